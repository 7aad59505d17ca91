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
            // f(0) = 0: tiles of zeros give zeros. Where it depends on the call's parameters
            // (einsum's join), the kernel-wide answer is no, so say that it varies.
            if (p.zero_preserving)
                props += " zero-preserving";
            else if (k->properties_of)
                props += " zero-preserving-by-params";
            // A zero operand gives zeros: joins of block-sparse relations meet present pairs only.
            if (p.zero_annihilates) props += " zero-annihilating";
            std::cout << k->name
                      << (k->name.size() < 14 ? std::string(14 - k->name.size(), ' ') : " ")
                      << k->summary << (props.empty() ? "" : "  [" + props.substr(1) + "]") << "\n";
        }
        exit_code = 0;
    });
}

}  // namespace tra::cli
