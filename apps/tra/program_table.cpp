#include "program_table.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "core/checked_math.hpp"
#include "tra/einsum_orders.hpp"

namespace tra::cli {

void print_columns(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> width;
    for (const auto& r : rows)
        for (std::size_t c = 0; c < r.size(); ++c) {
            if (width.size() <= c) width.push_back(0);
            width[c] = std::max(width[c], r[c].size());
        }
    for (const auto& r : rows) {
        for (std::size_t c = 0; c < r.size(); ++c) {
            out << r[c];
            if (c + 1 < r.size()) out << std::string(width[c] - r[c].size() + 2, ' ');
        }
        out << "\n";
    }
}

void print_program(std::ostream& out, const Program& p) {
    std::vector<std::vector<std::string>> rows = {
        {"relation", "operator", "inputs", "type", "frontier", "tuples", "bytes", "arguments"}};
    for (const Node& n : p.nodes) {
        std::string inputs;
        for (NodeId in : n.inputs) inputs += (inputs.empty() ? "" : ",") + p.node(in).name;
        rows.push_back({n.name + (n.needed ? "" : " (unused)"), operator_name(n.op),
                        inputs.empty() ? "-" : inputs, n.type.str(), n.frontier.str(),
                        std::to_string(n.tuples()), std::to_string(n.bytes()),
                        operator_args(n.op)});
    }
    out << "workflow " << p.name << ": " << p.nodes.size() << " relations, " << p.outputs.size()
        << " outputs, default dtype " << name_of(p.dtype) << "\n";
    print_columns(out, rows);
    for (const Output& o : p.outputs)
        out << "output " << p.node(o.node).name << " -> " << o.file << ":" << o.dataset
            << (o.iteration ? " (after iteration " + std::to_string(o.iteration) + ")" : "")
            << "\n";
    if (p.repeat) {
        out << "loop: " << p.repeat->times << " iterations";
        for (const Carry& c : p.repeat->carry)
            out << (&c == &p.repeat->carry.front() ? "; carry " : ", ") << p.node(c.input).name
                << " <- " << p.node(c.step).name;
        out << "\n";
    }
    print_auto_tiling(out, p, false);
    print_einsum_orders(out, p);
}

void print_auto_tiling(std::ostream& out, const Program& p, bool planned) {
    if (p.tiling_space.empty()) return;
    out << (planned ? "tiling (chosen for tile: auto):" : "tile: auto:");
    for (const AutoInput& in : p.tiling_space.inputs) {
        out << (&in == &p.tiling_space.inputs.front() ? " " : ", ") << in.name << " [";
        for (std::size_t d = 0; d < in.tile.size(); ++d) {
            out << (d ? ", " : "");
            if (planned)
                out << p.tiling.at(in.name)[d];
            else if (in.tile[d])
                out << in.tile[d];
            else
                out << "auto";
        }
        out << "]";
        // A padded dimension: its last tile reaches past the extent (docs/workflow-format.md,
        // "Padding").
        if (planned) {
            const Shape& tile = p.tiling.at(in.name);
            std::string padded;
            for (std::size_t d = 0; d < tile.size() && d < in.shape.size(); ++d)
                if (in.shape[d] % tile[d] != 0) {
                    const std::int64_t count = ceil_div(in.shape[d], tile[d]);
                    const auto whole = checked_mul(count, tile[d]);
                    padded += std::string(padded.empty() ? "" : ", ") +
                              std::to_string(in.shape[d]) + " -> " +
                              (whole ? std::to_string(*whole)
                                     : std::to_string(count) + " x " + std::to_string(tile[d]));
                }
            if (!padded.empty()) out << " (padded " << padded << ")";
        }
    }
    out << (planned ? "\n"
                    : " (tra plan chooses; the table shows one tile per free auto dimension)\n");
}

void print_einsum_orders(std::ostream& out, const Program& p) {
    for (const EinsumOrder& o : einsum_orders(p)) out << o.str() << "\n";
}

}  // namespace tra::cli
