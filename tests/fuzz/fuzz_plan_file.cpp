// libFuzzer target for the plan-file parser (lib/workflow/plan_file.cpp, plan_file_nodes.cpp):
// the input is a plan file beside copies of the example workflows (plans/examples/*.yaml,
// copied once at start), so seeds made by `tra plan EXAMPLE.yaml -o` (tools/fuzz.sh) name a
// workflow that exists and whose hash matches. Every input must load or be refused with
// tra::Error; any other exception, crash, sanitizer finding or hang is a bug.
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "core/error.hpp"
#include "fuzz_input_file.hpp"
#include "workflow/plan_file.hpp"

namespace {

const tra::fuzz::InputFolder& folder_with_workflows() {
    static const tra::fuzz::InputFolder folder;
    static const bool copied = [] {
        namespace fs = std::filesystem;
        for (const auto& entry : fs::directory_iterator(TRA_SOURCE_DIR "/plans/examples"))
            if (entry.path().extension() == ".yaml")
                fs::copy_file(entry.path(), folder.path() / entry.path().filename(),
                              fs::copy_options::overwrite_existing);
        return true;
    }();
    (void)copied;
    return folder;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const tra::fuzz::InputFolder& folder = folder_with_workflows();
    const std::string path = folder.write("fuzz.plan", data, size);
    tra::workflow::LoadOptions options;
    options.check_input_files = false;
    try {
        (void)tra::workflow::load_plan_file(path, options);
    } catch (const tra::Error&) {
    }
    return 0;
}
