// Every input the fuzzers (tests/fuzz) once crashed on, under tests/fuzz/regressions/TARGET/,
// fed to the same parser in the ordinary suite: it must load or be refused with tra::Error,
// never escape as another exception type.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "temp_dir.hpp"
#include "workflow/plan_file.hpp"
#include "workflow/workflow_loader.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kRegressions = fs::path(TRA_SOURCE_DIR) / "tests/fuzz/regressions";

std::string read_bytes(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Loads `path` with `load`; true when it loaded, false when refused with tra::Error. Any other
// exception propagates and fails the test.
template <class Load>
bool loads(Load load, const std::string& path) {
    try {
        load(path);
        return true;
    } catch (const tra::Error&) {
        return false;
    }
}

}  // namespace

TEST_CASE("fuzz regressions: plan files", "[fuzz]") {
    // As in fuzz_plan_file: the input beside copies of the example workflows.
    tra::testing::TempDir dir("fuzz");
    for (const auto& e : fs::directory_iterator(fs::path(TRA_SOURCE_DIR) / "plans/examples"))
        if (e.path().extension() == ".yaml") fs::copy_file(e.path(), dir / e.path().filename());
    tra::workflow::LoadOptions options;
    options.check_input_files = false;
    const auto load = [&](const std::string& p) { tra::workflow::load_plan_file(p, options); };
    for (const auto& e : fs::directory_iterator(kRegressions / "plan_file")) {
        INFO(e.path().string());
        const std::string path = dir.write("input.plan", read_bytes(e.path()));
        CHECK_NOTHROW(loads(load, path));
    }
}

TEST_CASE("fuzz regressions: workflows", "[fuzz]") {
    // As in fuzz_workflow: input files are not opened.
    tra::workflow::LoadOptions options;
    options.check_input_files = false;
    const auto load = [&](const std::string& p) { tra::workflow::load_workflow(p, options); };
    for (const auto& e : fs::directory_iterator(kRegressions / "workflow")) {
        INFO(e.path().string());
        CHECK_NOTHROW(loads(load, e.path().string()));
    }
}

TEST_CASE("fuzz regressions: a folder where a file is expected is a tra::Error", "[fuzz]") {
    tra::testing::TempDir dir("fuzz");
    fs::create_directories(dir / "folder.yaml");
    tra::workflow::LoadOptions options;
    options.check_input_files = false;
    CHECK_THROWS_WITH(tra::workflow::load_workflow(dir / "folder.yaml", options),
                      Catch::Contains("it is a folder"));
    const std::string plan =
        dir.write("p.plan", read_bytes(kRegressions / "plan_file/workflow-path-is-a-folder.plan"));
    CHECK_THROWS_WITH(tra::workflow::load_plan_file(plan, options),
                      Catch::Contains("cannot read the plan's workflow"));
}
