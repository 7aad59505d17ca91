#pragma once
// Workflow files (YAML, format v1, docs/workflow-format.md) to typed Programs. Every error names
// file:line:column and the field, e.g. "wf.yaml:7:25: program[1].C.by: key position 3 is out of
// range: AB has keys of 3 positions".
#include <functional>
#include <string>

#include "tra/program_builder.hpp"

namespace tra::workflow {

struct LoadOptions {
    // Folder that relative output paths (and `tra gen` files) are resolved against instead of
    // the workflow's own folder; inputs stay relative to the workflow.
    std::string output_dir;
    // Open HDF5 inputs to check their dtype and shape against the workflow.
    bool check_input_files = true;
    // A relation with more tuples than this is refused (ProgramBuilder::set_max_tuples).
    std::int64_t max_tuples = kDefaultMaxTuples;
    // Which relations max_tuples limits: all (planning, running) or the enumerated ones only.
    TupleLimitScope tuple_limit_scope = TupleLimitScope::every_relation;
    // Tiles for inputs with `tile: auto` dimensions (the planner's choice, or a plan file's
    // `tiling:`); an auto input not named here gets one tile along each free auto dimension.
    Tiling tiling;
};

Program load_workflow(const std::string& path, const LoadOptions& options = {});

// load_workflow of `path` with a given tiling of its `tile: auto` inputs (the tiling search's
// builder, optimizer/tiling_search.hpp). Copies `options`.
std::function<Program(const Tiling&)> program_of_tiling(const std::string& path,
                                                        const LoadOptions& options);

}  // namespace tra::workflow
