// libFuzzer target for the workflow parser (lib/workflow/workflow_loader.cpp and the program
// builder behind it): the input is a workflow file. Every input must load or be refused with
// tra::Error; any other exception, crash, sanitizer finding or hang is a bug. Input files are
// not opened (check_input_files = false), so only the text is under test.
#include <cstddef>
#include <cstdint>

#include "core/error.hpp"
#include "fuzz_input_file.hpp"
#include "workflow/workflow_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const tra::fuzz::InputFolder folder;
    const std::string path = folder.write("wf.yaml", data, size);
    tra::workflow::LoadOptions options;
    options.check_input_files = false;
    try {
        (void)tra::workflow::load_workflow(path, options);
    } catch (const tra::Error&) {
    }
    return 0;
}
