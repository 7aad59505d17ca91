#include "tra/program.hpp"

#include <type_traits>

namespace tra {

namespace {
std::string positions(const KeyPositions& p) {
    std::string s = "[";
    for (std::size_t i = 0; i < p.size(); ++i) s += (i ? ", " : "") + std::to_string(p[i]);
    return s + "]";
}
}  // namespace

std::string operator_name(const Operator& op) {
    static const char* names[] = {"input",     "join", "aggregate", "rekey", "filter",
                                  "transform", "tile", "concat",    "fill"};
    return names[op.index()];
}

std::string operator_args(const Operator& op) {
    return std::visit(
        [](const auto& o) -> std::string {
            using T = std::decay_t<decltype(o)>;
            if constexpr (std::is_same_v<T, InputOp>) {
                const std::string slice =
                    o.source.slice ? ", a slice of " + std::to_string(o.source.slice->size) +
                                         " along dimension " + std::to_string(o.source.slice->dim) +
                                         " per iteration"
                                   : "";
                if (o.source.generate) return "generate " + o.source.generate->str() + slice;
                return "file " + o.source.file + ":" + o.source.dataset +
                       (o.source.sparse ? " sparse (allocated chunks)" : "") + slice;
            } else if constexpr (std::is_same_v<T, JoinOp>) {
                return "on " + positions(o.left_keys) + "=" + positions(o.right_keys) + " kernel " +
                       o.kernel.str();
            } else if constexpr (std::is_same_v<T, AggregateOp>) {
                return "by " + positions(o.by) + " kernel " + o.kernel.str();
            } else if constexpr (std::is_same_v<T, RekeyOp>) {
                return "key \"" + o.key.text() + "\"";
            } else if constexpr (std::is_same_v<T, FilterOp>) {
                return "where \"" + o.where.text() + "\"";
            } else if constexpr (std::is_same_v<T, TransformOp>) {
                return "kernel " + o.kernel.str();
            } else if constexpr (std::is_same_v<T, TileOp>) {
                return "dim " + std::to_string(o.dim) + " size " + std::to_string(o.size);
            } else if constexpr (std::is_same_v<T, FillOp>) {
                return "tiles of zeros where the input has none";
            } else {
                return "key_dim " + std::to_string(o.key_dim) + " array_dim " +
                       std::to_string(o.array_dim);
            }
        },
        op);
}

Key project(const Key& k, const KeyPositions& positions) {
    Key out;
    for (auto p : positions) out.push_back(k[p]);
    return out;
}

std::optional<NodeId> Program::find(const std::string& name) const {
    for (NodeId i = 0; i < nodes.size(); ++i)
        if (nodes[i].name == name) return i;
    return std::nullopt;
}

std::int64_t Node::absent_tuples() const {
    if (keys.held_as_box()) return 0;
    return frontier.product() - static_cast<std::int64_t>(keys.size());
}

std::vector<NodeId> Program::input_nodes() const {
    std::vector<NodeId> ids;
    for (NodeId i = 0; i < nodes.size(); ++i)
        if (std::holds_alternative<InputOp>(nodes[i].op)) ids.push_back(i);
    return ids;
}

std::int64_t InputSource::slice_key_offset(std::int64_t iteration, std::int64_t tile,
                                           std::int64_t extent) const {
    if (!slice || iteration < 1) return 0;
    const std::int64_t batches = extent / slice->size;
    return (iteration - 1) % batches * (slice->size / tile);
}

const Carry* Repeat::carried(NodeId input) const {
    for (const Carry& c : carry)
        if (c.input == input) return &c;
    return nullptr;
}

}  // namespace tra
