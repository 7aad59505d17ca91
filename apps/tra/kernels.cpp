#include <iostream>

#include "kernels/registry.hpp"
#include "verbs.hpp"

namespace tra::cli {

void add_kernels(CLI::App& app, int& exit_code) {
    auto* cmd = app.add_subcommand("kernels", "List the kernels a workflow may name");
    cmd->callback([&exit_code] {
        for (const kernels::Kernel* k : kernels::all_kernels()) {
            const auto& p = k->properties;
            std::string props;
            if (p.aggregation()) props += " aggregates";
            if (p.elementwise) props += " element-wise";
            if (p.requires_whole_rows) props += " whole-rows";
            std::cout << k->name << (k->name.size() < 14 ? std::string(14 - k->name.size(), ' ') : " ")
                      << k->summary << (props.empty() ? "" : "  [" + props.substr(1) + "]") << "\n";
        }
        exit_code = 0;
    });
}

}  // namespace tra::cli
