#define CATCH_CONFIG_RUNNER
#include "catch_runner.hpp"

#include <catch2/catch.hpp>

namespace tra::testing {

int run_test_cases(int argc, char** argv, const std::string& report_file) {
    Catch::Session session;
    const int code = session.applyCommandLine(argc, argv);
    if (code != 0) return code;
    if (!report_file.empty()) session.configData().outputFilename = report_file;
    return session.run();
}

}  // namespace tra::testing
