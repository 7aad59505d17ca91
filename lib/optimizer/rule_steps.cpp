#include "optimizer/rule_steps.hpp"

#include <span>
#include <type_traits>

#include "tra/program_builder.hpp"

namespace tra::optimizer {

std::size_t Steps::index(const std::string& name) const {
    for (std::size_t i = 0; i < steps.size(); ++i)
        if (steps[i].name == name) return i;
    throw Error("internal: no step named '" + name + "'", {}, ErrorKind::Failed);
}

std::size_t Steps::uses(const std::string& name) const {
    std::size_t n = 0;
    for (const Step& s : steps)
        for (const std::string& in : s.inputs) n += in == name;
    for (const StepOutput& o : outputs) n += o.relation == name;
    if (repeat)
        for (const auto& c : repeat->carry) n += c.step == name;
    return n;
}

bool Steps::is_output(const std::string& name) const {
    for (const StepOutput& o : outputs)
        if (o.relation == name) return true;
    if (repeat)
        for (const auto& c : repeat->carry)
            if (c.step == name) return true;
    return false;
}

void Steps::redirect(const std::string& from, const std::string& to) {
    for (Step& s : steps)
        for (std::string& in : s.inputs)
            if (in == from) in = to;
}

std::string Steps::fresh_name(const std::string& base) const {
    auto taken = [&](const std::string& n) {
        for (const Step& s : steps)
            if (s.name == n) return true;
        return false;
    };
    if (!taken(base)) return base;
    for (int i = 2;; ++i)
        if (!taken(base + "." + std::to_string(i))) return base + "." + std::to_string(i);
}

Steps to_steps(const Program& p) {
    Steps out{p.name, p.dtype, p.sites, {}, {}, {}};
    // Fills are not steps: the builder inserts them again where a step needs one, so a step
    // reads the relation the fill filled.
    auto name_of = [&](NodeId id) {
        while (std::holds_alternative<FillOp>(p.node(id).op)) id = p.node(id).inputs.at(0);
        return p.node(id).name;
    };
    for (const Node& n : p.nodes) {
        if (std::holds_alternative<FillOp>(n.op)) continue;
        Step s{n.name, n.op, {}, n.where, n.lowered_from, n.type};
        for (NodeId in : n.inputs) s.inputs.push_back(name_of(in));
        if (const auto* input = std::get_if<InputOp>(&n.op); input && input->source.sparse)
            s.present = std::vector<Key>(n.keys.begin(), n.keys.end());
        out.steps.push_back(std::move(s));
    }
    for (const Output& o : p.outputs)
        out.outputs.push_back(
            {p.node(o.node).name, o.file, o.dataset, o.where, o.iteration, o.sparse, o.shape});
    if (p.repeat) {
        StepRepeat r{p.repeat->times, {}, p.repeat->where};
        for (const Carry& c : p.repeat->carry)
            r.carry.push_back({p.node(c.input).name, p.node(c.step).name, c.where});
        out.repeat = std::move(r);
    }
    return out;
}

Checked<Program> build_steps(const Steps& steps) {
    ProgramBuilder b(steps.name, steps.dtype);
    if (steps.sites) b.set_sites(*steps.sites);
    for (const Step& s : steps.steps) {
        StepSource src;
        src.step = s.where;
        const Checked<NodeId> id = std::visit(
            [&](const auto& op) -> Checked<NodeId> {
                using T = std::decay_t<decltype(op)>;
                if constexpr (std::is_same_v<T, InputOp>)
                    return b.try_add_input(s.name, op.shape, s.input_type.bound, s.input_type.dtype,
                                           op.source, src, s.present);
                else if constexpr (std::is_same_v<T, JoinOp>)
                    return b.try_add_join(s.name, s.inputs.at(0), s.inputs.at(1), op.left_keys,
                                          op.right_keys, op.kernel, src);
                else if constexpr (std::is_same_v<T, AggregateOp>)
                    return b.try_add_aggregate(s.name, s.inputs.at(0), op.by, op.kernel, src);
                else if constexpr (std::is_same_v<T, RekeyOp>)
                    return b.try_add_rekey(s.name, s.inputs.at(0), op.key.text(), src);
                else if constexpr (std::is_same_v<T, FilterOp>)
                    return b.try_add_filter(s.name, s.inputs.at(0), op.where.text(), src);
                else if constexpr (std::is_same_v<T, TransformOp>)
                    return b.try_add_transform(s.name, s.inputs.at(0), op.kernel, src);
                else if constexpr (std::is_same_v<T, TileOp>)
                    return b.try_add_tile(s.name, s.inputs.at(0), op.dim, op.size, src);
                else if constexpr (std::is_same_v<T, ConcatOp>)
                    return b.try_add_concat(s.name, s.inputs.at(0), op.key_dim, op.array_dim, src);
                else  // FillOp: to_steps leaves fills to the builder
                    return Error("internal: fill " + s.name + " as a step", s.where,
                                 ErrorKind::Failed);
            },
            s.op);
        if (!id) return id.problem();
        if (!s.lowered_from.empty()) b.set_lowered_from(*id, s.lowered_from);
    }
    if (steps.repeat)
        if (auto problem =
                b.try_set_repeat(steps.repeat->times, steps.repeat->carry, steps.repeat->where))
            return *problem;
    for (const StepOutput& o : steps.outputs) {
        StepSource src;
        src.step = o.where;
        if (auto problem =
                b.try_add_output(o.relation, o.file, o.dataset, src, o.iteration, o.sparse))
            return *problem;
    }
    Program built = b.finish();
    for (std::size_t i = 0; i < built.outputs.size() && i < steps.outputs.size(); ++i)
        built.outputs[i].shape = steps.outputs[i].shape;
    return built;
}

Step filter_step(std::string name, const std::string& input, std::size_t arity,
                 const std::string& where, SourceLocation at) {
    return Step{std::move(name),
                FilterOp{KeyFunction::parse(where, arity)},
                {input},
                std::move(at),
                "",
                {}};
}

Step transform_step(std::string name, const std::string& input, kernels::KernelCall kernel,
                    SourceLocation at) {
    return Step{std::move(name), TransformOp{std::move(kernel)}, {input}, std::move(at), "", {}};
}

std::optional<std::size_t> transformed_tile_bytes(const kernels::KernelCall& kernel,
                                                  const RelationType& operand) {
    if (kernel.operand_count() != 1) return std::nullopt;
    const Checked<Shape> out = kernel.try_output_shape(std::span<const Shape>(&operand.bound, 1));
    if (!out) return std::nullopt;
    return static_cast<std::size_t>(out->product()) * size_of(operand.dtype);
}

void swap_down(Steps& steps, const std::string& top, const std::string& middle,
               const std::vector<Step>& pushed, Step new_middle) {
    const bool keep_top_name = steps.is_output(top);
    if (keep_top_name) new_middle.name = top;
    const std::size_t middle_at = steps.index(middle);
    steps.steps[steps.index(top)] = std::move(new_middle);
    steps.steps.erase(steps.steps.begin() + static_cast<std::ptrdiff_t>(middle_at));
    steps.steps.insert(steps.steps.begin() + static_cast<std::ptrdiff_t>(middle_at), pushed.begin(),
                       pushed.end());
    if (!keep_top_name) steps.redirect(top, middle);
}

}  // namespace tra::optimizer
