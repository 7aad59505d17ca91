#pragma once
// Catch2's implementation for the test programs with a main of their own (the C++ MPI tests'
// and the GPU kernels'), compiled once in catch_runner.cpp: compiling it takes longer than any
// test source, so no test program compiles it again.
#include <string>

namespace tra::testing {

// Runs the test cases linked into this program as Catch2's own main would, with its command
// line; with `report_file` the report goes to that file instead of stdout. Returns Catch2's exit
// code (0 when every test case passed).
int run_test_cases(int argc, char** argv, const std::string& report_file = {});

}  // namespace tra::testing
