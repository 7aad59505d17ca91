#include "ia/initial_plan.hpp"

#include <string>
#include <variant>

#include "core/error.hpp"
#include "ia/plan_validator.hpp"

namespace tra::ia {

namespace {

class Compiler {
  public:
    Compiler(const Program& program, int sites, const CompileOptions& options)
        : plan_(program, sites), options_(options) {}

    Plan run() {
        for (const auto& [id, placement] : options_.input_placements) {
            if (id >= program().nodes.size() ||
                !std::holds_alternative<InputOp>(program().node(id).op) ||
                !program().node(id).needed)
                throw Error("an input placement is given for node " + std::to_string(id) +
                            ", which is not a needed input of the program");
            if (placement.kind() == Placement::Kind::Unknown)
                throw Error("input '" + program().node(id).name +
                            "' cannot start in an Unknown placement");
        }
        for (NodeId id = 0; id < program().nodes.size(); ++id)
            if (program().node(id).needed) plan_.set_result(id, compile(id));
        validate(plan_);
        return std::move(plan_);
    }

  private:
    const Program& program() const { return plan_.program(); }

    IaNodeId result(NodeId tra) const {
        auto r = plan_.result(tra);
        if (!r)
            throw Error("TRA node " + std::to_string(tra) + " was not compiled", {},
                        ErrorKind::Failed);
        return *r;
    }

    // Appends a node whose placement follows from its inputs (the validator's rules).
    IaNodeId emit(IaOp op, NodeId origin, std::vector<IaNodeId> inputs,
                  std::optional<Operator> logical = std::nullopt, KeyPositions dims = {},
                  int map_arity = 1) {
        IaNode n;
        n.op = op;
        n.origin = origin;
        n.inputs = std::move(inputs);
        n.logical = std::move(logical);
        n.shuffle_dims = std::move(dims);
        n.map_arity = map_arity;
        n.rules = {"compile"};
        n.id = plan_.size();
        // Invalid combinations leave Unknown here; validate() then reports why.
        n.placement = infer_output_placement(plan_, n).placement.value_or(Placement::unknown());
        return plan_.add(std::move(n));
    }

    IaNodeId shuffle(IaNodeId in, KeyPositions dims) {
        return emit(IaOp::Shuffle, plan_.node(in).origin, {in}, std::nullopt, std::move(dims));
    }

    IaNodeId compile(NodeId id) {
        const Node& node = program().node(id);
        auto in = [&](std::size_t i) { return result(node.inputs.at(i)); };
        return std::visit(
            [&](const auto& op) -> IaNodeId {
                using T = std::decay_t<decltype(op)>;
                if constexpr (std::is_same_v<T, InputOp>) {
                    IaNode n;
                    n.op = IaOp::Input;
                    n.origin = id;
                    n.logical = node.op;
                    n.rules = {"compile"};
                    auto given = options_.input_placements.find(id);
                    n.placement = given != options_.input_placements.end()
                                      ? given->second
                                      : Placement::part(node.type.key_arity ? KeyPositions{0}
                                                                            : KeyPositions{});
                    return plan_.add(std::move(n));
                } else if constexpr (std::is_same_v<T, JoinOp>) {
                    IaNodeId left = emit(IaOp::Bcast, node.inputs[0], {in(0)});
                    IaNodeId right = in(1);
                    if (plan_.node(right).placement.kind() == Placement::Kind::Unknown)
                        right = shuffle(right, op.right_keys);  // see the header: deviation
                    return emit(IaOp::LocalJoin, id, {left, right}, node.op);
                } else if constexpr (std::is_same_v<T, AggregateOp>) {
                    return emit(IaOp::LocalAggregate, id, {shuffle(in(0), op.by)}, node.op);
                } else if constexpr (std::is_same_v<T, ConcatOp>) {
                    KeyPositions rest;
                    for (std::size_t p = 0; p < program().node(node.inputs[0]).type.key_arity; ++p)
                        if (p != op.key_dim) rest.push_back(p);
                    return emit(IaOp::LocalAggregate, id, {shuffle(in(0), rest)}, node.op);
                } else if constexpr (std::is_same_v<T, FilterOp>) {
                    return emit(IaOp::LocalFilter, id, {in(0)}, node.op);
                } else if constexpr (std::is_same_v<T, TileOp>) {
                    // One tuple becomes ceil(extent / size) pieces along the tiled dimension.
                    std::int64_t extent = program().node(node.inputs[0]).type.bound[op.dim];
                    auto pieces = static_cast<int>((extent + op.size - 1) / op.size);
                    return emit(IaOp::Map, id, {in(0)}, node.op, {}, pieces);
                } else {  // RekeyOp, TransformOp, FillOp
                    return emit(IaOp::Map, id, {in(0)}, node.op);
                }
            },
            node.op);
    }

    Plan plan_;
    const CompileOptions& options_;
};

}  // namespace

Plan compile_initial(const Program& program, int sites, const CompileOptions& options) {
    return Compiler(program, sites, options).run();
}

}  // namespace tra::ia
