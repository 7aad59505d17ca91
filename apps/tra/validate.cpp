#include <iostream>

#include "program_table.hpp"
#include "verbs.hpp"
#include "workflow/workflow_loader.hpp"

namespace tra::cli {

void add_validate(CLI::App& app, int& exit_code) {
    auto* cmd =
        app.add_subcommand("validate",
                           "Parse and type-check a workflow; print each relation's type, frontier, "
                           "tuples and bytes");
    auto path = std::make_shared<std::string>();
    auto load = std::make_shared<workflow::LoadOptions>();
    cmd->add_option("workflow", *path, "Workflow YAML file")->required();
    add_max_tuples_option(cmd, load->max_tuples);
    // Validate holds dense relations as boxes and never visits their keys, so it checks a
    // workflow of any tile count in the same time; only relations it enumerates (those with
    // holes) are limited. plan and run visit every key, so they limit every relation.
    load->tuple_limit_scope = TupleLimitScope::enumerated_relations;
    cmd->callback([path, load, &exit_code] {
        Program p = workflow::load_workflow(*path, *load);
        print_program(std::cout, p);
        exit_code = 0;
    });
}

}  // namespace tra::cli
