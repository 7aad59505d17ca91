#include "tra/program_builder.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/checked_math.hpp"
#include "tra/box_keys.hpp"
#include "tra/einsum_lowering.hpp"
#include "tra/join_keys.hpp"
#include "tra/program_builder_support.hpp"
#include "tra/rekey_frontier.hpp"
#include "tra/softmax_lowering.hpp"
#include "tra/sparse_rules.hpp"
#include "tra/tuple_limit.hpp"

namespace tra {

using builder::checked_tile_bytes;
using builder::finish_node;

namespace {

std::optional<Error> positions_problem(const KeyPositions& p, std::size_t arity,
                                       const std::string& relation, const SourceLocation& where) {
    for (std::size_t i = 0; i < p.size(); ++i) {
        if (p[i] >= arity)
            return Error("key position " + std::to_string(p[i]) + " is out of range: " + relation +
                             " has keys of " + std::to_string(arity) + " positions",
                         where);
        for (std::size_t j = 0; j < i; ++j)
            if (p[j] == p[i])
                return Error("key position " + std::to_string(p[i]) + " is listed twice", where);
    }
    return std::nullopt;
}

Checked<Shape> infer_kernel_shape(const kernels::KernelCall& k, std::vector<Shape> operands,
                                  const SourceLocation& where) {
    return k.try_output_shape(operands).located(where);
}

std::optional<Error> operand_count_problem(const kernels::KernelCall& k, int wanted,
                                           const std::string& role, const SourceLocation& where) {
    if (k.operand_count() == wanted) return std::nullopt;
    return Error("kernel '" + k.name() + "' takes " + std::to_string(k.operand_count()) +
                     " operand(s), but " + role + " needs a kernel of " + std::to_string(wanted),
                 where);
}

KeyFunction parse_key_function(const std::string& text, std::size_t arity,
                               const SourceLocation& where) {
    try {
        return KeyFunction::parse(text, arity);
    } catch (const Error& e) {
        throw e.located(where);
    }
}

}  // namespace

SourceLocation StepSource::at(const std::string& field) const {
    auto it = fields.find(field);
    if (it != fields.end()) return it->second;
    SourceLocation loc = step;
    loc.field = step.field.empty() ? field : step.field + "." + field;
    return loc;
}

ProgramBuilder::ProgramBuilder(std::string name, DType dtype) {
    program_.name = std::move(name);
    program_.dtype = dtype;
}

Checked<NodeId> ProgramBuilder::try_lookup(const std::string& name,
                                           const SourceLocation& where) const {
    if (auto id = program_.find(name)) return *id;
    return Error("unknown relation '" + name + "'", where);
}

Checked<KeySet> ProgramBuilder::dense_keys(const std::string& name, const Frontier& frontier,
                                           const RelationType& type, const SourceLocation& where,
                                           const std::string& hint) const {
    const std::int64_t tiles = tuples_in_box(frontier);
    // A count past 64 bits passes any limit: no count (tuples, bytes) could describe it.
    const bool limited = scope_ == TupleLimitScope::every_relation || tiles == kTooManyTuples;
    if (limited)
        if (auto p = too_many_tuples(name, tiles, max_tuples_, where, hint)) return *p;
    if (tuples_times(tiles, static_cast<std::int64_t>(type.tile_bytes())) == kTooManyTuples)
        return Error(name + " has more bytes than 64 bits count: " + std::to_string(tiles) +
                         " tiles of " + std::to_string(type.tile_bytes()) + " bytes",
                     where);
    return KeySet::box(frontier);
}

std::optional<Error> ProgramBuilder::enumeration_problem(const Node& input,
                                                         const SourceLocation& where) const {
    if (!input.keys.held_as_box()) return std::nullopt;  // enumerated already, so within it
    return too_many_tuples(input.name, static_cast<std::int64_t>(input.tuples()), max_tuples_,
                           where);
}

Checked<NodeId> ProgramBuilder::append(Node node) {
    if (program_.find(node.name)) return Error("duplicate name '" + node.name + "'", node.where);
    // A kernel may grow tiles (an outer product squares them): every step's tile and total
    // bytes are counted here, once, so that no later stage multiplies past 64 bits.
    const std::optional<std::int64_t> tile_bytes =
        checked_tile_bytes(node.type.bound, node.type.dtype);
    if (!tile_bytes)
        return Error(node.name + " has tiles of " + node.type.bound.str() +
                         " elements, more bytes than 64 bits count",
                     node.where);
    if (tuples_times(static_cast<std::int64_t>(node.tuples()), *tile_bytes) == kTooManyTuples)
        return Error(node.name +
                         " has more bytes than 64 bits count: " + std::to_string(node.tuples()) +
                         " tiles of " + std::to_string(*tile_bytes) + " bytes",
                     node.where);
    program_.nodes.push_back(std::move(node));
    return program_.nodes.size() - 1;
}

Checked<NodeId> ProgramBuilder::try_add_join(const std::string& name, const std::string& left,
                                             const std::string& right, KeyPositions left_keys,
                                             KeyPositions right_keys, kernels::KernelCall kernel,
                                             const StepSource& src) {
    const Checked<NodeId> l_id = try_lookup(left, src.at("join"));
    if (!l_id) return l_id.problem();
    const Checked<NodeId> r_id = try_lookup(right, src.at("join"));
    if (!r_id) return r_id.problem();
    const Node &L0 = node(*l_id), &R0 = node(*r_id);
    if (left_keys.size() != right_keys.size())
        return Error("join positions differ in count: " + std::to_string(left_keys.size()) +
                         " on the left, " + std::to_string(right_keys.size()) + " on the right",
                     src.at("on"));
    if (auto p = positions_problem(left_keys, L0.type.key_arity, left, src.at("on"))) return *p;
    if (auto p = positions_problem(right_keys, R0.type.key_arity, right, src.at("on"))) return *p;
    if (L0.type.dtype != R0.type.dtype)
        return Error("type mismatch: " + left + " is " + name_of(L0.type.dtype) + " but " + right +
                         " is " + name_of(R0.type.dtype),
                     src.at("join"));
    if (auto p = operand_count_problem(kernel, 2, "a join", src.at("kernel"))) return *p;
    const Checked<Shape> shape =
        infer_kernel_shape(kernel, {L0.type.bound, R0.type.bound}, src.at("kernel"));
    if (!shape) return shape.problem();
    const Shape bound = *shape;
    // Sparse operands whose absent tiles take part as zeros are filled first, each for the
    // other's present tiles (so both fills are decided before either is appended).
    const Checked<NodeId> lf = filled(
        *l_id, name, ".fill0",
        [&](const Node& side) {
            return sparse::join_fill(side, left_keys, node(*r_id), right_keys, kernel);
        },
        src.at("kernel"));
    if (!lf) return lf.problem();
    const Checked<NodeId> rf = filled(
        *r_id, name, ".fill1",
        [&](const Node& side) {
            return sparse::join_fill(side, right_keys, node(*l_id), left_keys, kernel);
        },
        src.at("kernel"));
    if (!rf) return rf.problem();
    const NodeId l = *lf, r = *rf;
    const Node &L = node(l), &R = node(r);

    Node n{
        name,
        JoinOp{left_keys, right_keys, kernel},
        {l, r},
        RelationType{L.type.key_arity + R.type.key_arity - right_keys.size(), bound, L.type.dtype},
        {},
        {},
        src.step,
        "",
        false};
    Checked<KeySet> keys =
        L.keys.held_as_box() && R.keys.held_as_box()
            ? dense_keys(name, joined_box(L.frontier, R.frontier, left_keys, right_keys), n.type,
                         src.at("join"))
            : enumerated_join_keys(L.keys, R.keys, left_keys, right_keys, R.type.key_arity,
                                   EnumerationLimit{name, max_tuples_, src.at("join")});
    if (!keys) return keys.problem();
    n.keys = std::move(*keys);
    finish_node(n);
    if (L.sparse || R.sparse)
        sparse::finish(n, joined_box(L.frontier, R.frontier, left_keys, right_keys));
    return append(std::move(n));
}

Checked<NodeId> ProgramBuilder::try_add_aggregate(const std::string& name, const std::string& input,
                                                  KeyPositions by, kernels::KernelCall kernel,
                                                  const StepSource& src) {
    const Checked<NodeId> in = try_lookup(input, src.at("aggregate"));
    if (!in) return in.problem();
    const Node& I0 = node(*in);
    if (auto p = positions_problem(by, I0.type.key_arity, input, src.at("by"))) return *p;
    if (auto p = operand_count_problem(kernel, 2, "an aggregation", src.at("kernel"))) return *p;
    if (!kernel.properties().aggregation())
        return Error("kernel '" + kernel.name() +
                         "' cannot aggregate: an aggregation kernel must be associative and "
                         "commutative",
                     src.at("kernel"));
    const Checked<Shape> shape =
        infer_kernel_shape(kernel, {I0.type.bound, I0.type.bound}, src.at("kernel"));
    if (!shape) return shape.problem();
    const Shape& bound = *shape;
    if (bound != I0.type.bound)
        return Error("kernel '" + kernel.name() + "' changes the tile bound " +
                         I0.type.bound.str() + " to " + bound.str() +
                         "; an aggregation must keep it",
                     src.at("kernel"));
    const Checked<NodeId> filled_in = filled(
        *in, name, ".fill",
        [&](const Node& operand) { return sparse::aggregate_fill(operand, by, kernel); },
        src.at("kernel"));
    if (!filled_in) return filled_in.problem();
    const Node& I = node(*filled_in);
    Node n{name,         AggregateOp{by, kernel},
           {*filled_in}, RelationType{by.size(), bound, I.type.dtype},
           {},           {},
           src.step,     "",
           false};
    if (I.keys.held_as_box()) {
        Checked<KeySet> keys = dense_keys(name, grouped_box(I.frontier, by), n.type, src.at("by"));
        if (!keys) return keys.problem();
        n.keys = std::move(*keys);
    } else {
        for (const Key& k : I.keys) n.keys.insert(project(k, by));
    }
    finish_node(n);
    if (I.sparse) sparse::finish(n, grouped_box(I.frontier, by));
    return append(std::move(n));
}

Checked<NodeId> ProgramBuilder::try_add_rekey(const std::string& name, const std::string& input,
                                              const std::string& key, const StepSource& src) {
    const Checked<NodeId> in = try_lookup(input, src.at("rekey"));
    if (!in) return in.problem();
    const Node& I = node(*in);
    const KeyFunction f = parse_key_function(key, I.type.key_arity, src.at("key"));
    if (f.is_predicate())
        return Error(
            "a rekey needs a key (a tuple of integers), but \"" + key + "\" is a condition",
            src.at("key"));
    Node n{name, RekeyOp{f}, {*in},    RelationType{f.output_arity(), I.type.bound, I.type.dtype},
           {},   {},         src.step, "",
           false};
    const auto permutation = position_permutation(f);
    if (I.keys.held_as_box() && permutation) {
        n.keys = KeySet::box(permuted_box(I.frontier, *permutation));
        finish_node(n);
        if (I.sparse) sparse::finish(n, n.frontier);
        return append(std::move(n));
    }
    if (I.sparse && permutation) {  // absent tiles move with the positions
        for (const Key& k : I.keys) {
            Key out;
            for (auto p : *permutation) out.push_back(k[p]);
            n.keys.insert(out);
        }
        sparse::finish(n, permuted_box(I.frontier, *permutation));
        return append(std::move(n));
    }
    // Arithmetic on key values sees every key of the box: absent tiles become tiles of zeros.
    const Checked<NodeId> filled_in = filled(
        *in, name, ".fill", [](const Node& operand) { return sparse::key_step_fill(operand); },
        src.at("key"));
    if (!filled_in) return filled_in.problem();
    const Node& F = node(*filled_in);  // (appending may move I)
    n.inputs = {*filled_in};
    if (auto p = enumeration_problem(F, src.at("key"))) return *p;
    std::map<Key, Key> origin;
    for (const Key& k : F.keys) {
        Checked<Key> applied = f.try_apply(k).located(src.at("key"));
        if (!applied) return applied.problem();
        const Key& out = *applied;
        auto [it, fresh] = origin.emplace(out, k);
        if (!fresh)
            return Error("rekey maps keys " + it->second.str() + " and " + k.str() +
                             " to the same key " + out.str() + "; keys must stay unique",
                         src.at("key"));
        n.keys.insert(out);
    }
    const Checked<Frontier> frontier = rekey_frontier(f, n.keys);
    if (!frontier) return Error(name + ": " + frontier.problem().message(), src.at("key"));
    finish_node(n);
    return append(std::move(n));
}

Checked<NodeId> ProgramBuilder::try_add_filter(const std::string& name, const std::string& input,
                                               const std::string& where, const StepSource& src) {
    const Checked<NodeId> in = try_lookup(input, src.at("filter"));
    if (!in) return in.problem();
    const Node& I = node(*in);
    const KeyFunction f = parse_key_function(where, I.type.key_arity, src.at("where"));
    if (!f.is_predicate())
        return Error("a filter needs a condition, but \"" + where + "\" computes a key",
                     src.at("where"));
    // A condition on key values sees every key of the box: absent tiles become tiles of zeros.
    const Checked<NodeId> filled_in = filled(
        *in, name, ".fill", [](const Node& operand) { return sparse::key_step_fill(operand); },
        src.at("where"));
    if (!filled_in) return filled_in.problem();
    const Node& F = node(*filled_in);  // (appending may move I)
    Node n{name, FilterOp{f}, {*filled_in}, F.type, {}, {}, src.step, "", false};
    if (auto p = enumeration_problem(F, src.at("where"))) return *p;
    for (const Key& k : F.keys) {
        const Checked<bool> keep = f.try_test(k).located(src.at("where"));
        if (!keep) return keep.problem();
        if (*keep) n.keys.insert(k);
    }
    finish_node(n);
    return append(std::move(n));
}

Checked<NodeId> ProgramBuilder::try_add_transform(const std::string& name, const std::string& input,
                                                  kernels::KernelCall kernel,
                                                  const StepSource& src) {
    const Checked<NodeId> in = try_lookup(input, src.at("transform"));
    if (!in) return in.problem();
    const Node& I = node(*in);
    if (auto p = operand_count_problem(kernel, 1, "a transform", src.at("kernel"))) return *p;
    const Checked<Shape> bound = infer_kernel_shape(kernel, {I.type.bound}, src.at("kernel"));
    if (!bound) return bound.problem();
    const auto& props = kernel.properties();
    if (props.requires_whole_rows) {
        if (I.type.key_arity < 2 || I.type.rank() < 2)
            return Error("kernel '" + kernel.name() +
                             "' needs a matrix relation (keys and tiles of "
                             "at least 2 positions)",
                         src.at("kernel"));
        if (I.frontier[1] > 1)
            return Error("kernel '" + kernel.name() + "' needs tiles that span whole rows, but " +
                             input + " has " + std::to_string(I.frontier[1]) +
                             " tiles across its columns; make the tile " +
                             std::to_string(I.frontier[1] * I.type.bound[1]) + " wide",
                         src.at("kernel"));
    }
    if (props.reads_tile_position && I.type.key_arity != I.type.rank())
        return Error("kernel '" + kernel.name() + "' reports positions in the whole tensor, so " +
                         input + " must have as many key positions as tile dimensions",
                     src.at("kernel"));
    // A kernel that does not keep zeros zeros maps absent tiles too: they are made first.
    const Checked<NodeId> filled_in = filled(
        *in, name, ".fill",
        [&](const Node& operand) { return sparse::transform_fill(operand, kernel); },
        src.at("kernel"));
    if (!filled_in) return filled_in.problem();
    const Node& F = node(*filled_in);  // (appending may move I)
    Node n{name,         TransformOp{kernel},
           {*filled_in}, RelationType{F.type.key_arity, *bound, F.type.dtype},
           F.keys,       F.frontier,
           src.step,     "",
           false};
    n.sparse = F.sparse;  // zeros stay zeros, or none are absent
    return append(std::move(n));
}

NodeId ProgramBuilder::add_einsum(const std::string& name, const EinsumStep& step,
                                  const StepSource& src) {
    return lower_einsum(*this, name, step, src);
}

NodeId ProgramBuilder::add_softmax(const std::string& name, const std::string& input,
                                   std::int64_t dim, bool log, const StepSource& src,
                                   std::optional<std::int64_t> extent) {
    return lower_softmax(*this, name, input, dim, log, src, extent);
}

std::optional<Error> ProgramBuilder::try_add_output(const std::string& relation, std::string file,
                                                    std::string dataset, const StepSource& src,
                                                    std::int64_t iteration, bool sparse) {
    const Checked<NodeId> id_id = try_lookup(relation, src.step);
    if (!id_id) return id_id.problem();
    const NodeId id = *id_id;
    const Node& n = node(id);
    if (!n.sparse && !sparse && !n.keys.is_box(n.type.key_arity))
        return Error(relation + " has holes: " + std::to_string(n.tuples()) + " of " +
                         std::to_string(n.frontier.product()) + " tuples below its frontier " +
                         n.frontier.str() + "; an output is written as a dense tensor",
                     src.step);
    if (!written_.insert({file, dataset}).second)
        return Error("two outputs write " + file + ":" + dataset, src.at("dataset"));
    program_.outputs.push_back(
        Output{id, std::move(file), std::move(dataset), src.step, iteration, sparse, {}});
    return std::nullopt;
}

Program ProgramBuilder::finish() {
    for (const Output& o : program_.outputs) program_.nodes[o.node].needed = true;
    if (program_.repeat)
        for (const Carry& c : program_.repeat->carry) program_.nodes[c.step].needed = true;
    for (NodeId i = program_.nodes.size(); i-- > 0;)
        if (program_.nodes[i].needed)
            for (NodeId in : program_.nodes[i].inputs) program_.nodes[in].needed = true;
    return program_;
}

}  // namespace tra
