#pragma once
// What the workflow loader tests share: a temporary folder, the FILE:LINE:COL of a field, an
// expected load error, a header of two generated inputs, and a small HDF5 dataset.
#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "storage/tensor_file.hpp"
#include "temp_dir.hpp"
#include "workflow/workflow_loader.hpp"

namespace tra::testing {

struct WorkflowDir : TempDir {
    WorkflowDir() : TempDir("workflow") {}
};

// "FILE:LINE:COL" where COL is the (1-based) column of `needle` in line `line` of `text`.
inline std::string loc(const std::string& file, const std::string& text, int line,
                       const std::string& needle) {
    std::istringstream in(text);
    std::string l;
    for (int i = 0; i < line; ++i) std::getline(in, l);
    const auto col = l.find(needle);
    REQUIRE(col != std::string::npos);
    return file + ":" + std::to_string(line) + ":" + std::to_string(col + 1);
}

// Loads a workflow that must fail; checks the message starts with `where` and holds `what`.
inline void expect_error(const std::string& path, const std::string& where, const std::string& what,
                         const workflow::LoadOptions& options = {}) {
    INFO("workflow " << path);
    try {
        workflow::load_workflow(path, options);
        FAIL("loaded without an error");
    } catch (const Error& e) {
        CHECK_THAT(e.what(), Catch::StartsWith(where));
        CHECK_THAT(e.what(), Catch::Contains(what));
        CHECK(e.exit_code() == 2);
    }
}

inline const std::string kHeader =
    "name: bad\n"                                                                  // 1
    "inputs:\n"                                                                    // 2
    "  A: {shape: [8, 6], tile: [4, 3], generate: {uniform: [-1, 1], seed: 1}}\n"  // 3
    "  B: {shape: [6, 4], tile: [3, 2], generate: {uniform: [-1, 1], seed: 2}}\n"  // 4
    "program:\n";                                                                  // 5

inline void write_h5(const std::string& path, const std::string& dataset, DType dtype,
                     const Shape& shape) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    storage::DatasetWriter w(path, dataset, dtype, shape, shape);
    w.write_block(Shape(shape.size()), Tile(dtype, shape));
    w.close();
}

}  // namespace tra::testing
