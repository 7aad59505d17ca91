#include "tra/einsum_retile.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "tra/einsum_lowering.hpp"

namespace tra {

namespace {

// How one dimension of one operand tiles its label.
struct LabelTiling {
    std::int64_t count = 0, size = 0;  // tiles x tile size
    std::size_t operand = 0, dim = 0;

    std::int64_t extent() const { return count * size; }
    std::string str() const { return std::to_string(count) + " x " + std::to_string(size); }
};

// The operand's tiling per dimension, or nothing when it is not a plain tensor of its labels'
// rank: the lowering refuses it with its own message, so it takes no part here.
std::optional<std::vector<LabelTiling>> tilings(const ProgramBuilder& b, const std::string& input,
                                                const std::string& labels, std::size_t operand) {
    const auto id = b.lookup_optional(input);
    if (!id) return std::nullopt;
    const Node& n = b.node(*id);
    if (n.type.key_arity != labels.size() || n.type.rank() != labels.size() ||
        !(n.is_tensor() || n.is_sparse_tensor()))
        return std::nullopt;
    std::vector<LabelTiling> out;
    for (std::size_t d = 0; d < labels.size(); ++d)
        out.push_back({n.frontier[d], n.type.bound[d], operand, d});
    return out;
}

// `a` and `b` (a written first) tile `label` in ways no re-tiling reconciles.
Error mismatch(char label, const LabelTiling& a, const LabelTiling& b,
               const std::vector<std::string>& inputs, const SourceLocation& where) {
    std::string text = std::string("label '") + label + "' is tiled as " + a.str();
    if (a.operand == b.operand)  // a repeated label: the operand's own dimensions disagree
        text += " at dimension " + std::to_string(a.dim) + " of " + inputs[a.operand] + " but as " +
                b.str() + " at dimension " + std::to_string(b.dim);
    else
        text += " in " + inputs[a.operand] + " but as " + b.str() + " in " + inputs[b.operand];
    if (a.extent() != b.extent())
        text += "; it spans " + std::to_string(a.extent()) + " elements in one and " +
                std::to_string(b.extent()) + " in the other, and must span the same extent";
    else
        text +=
            "; the tile counts must divide each other (the coarser is then re-tiled to the "
            "finer)";
    return Error(text, where);
}

}  // namespace

EinsumStep retile_operands(ProgramBuilder& builder, const std::string& name, const EinsumStep& step,
                           const StepSource& src) {
    const std::optional<EinsumSpec> parsed = operand_spec(step);
    if (!parsed) return step;  // the lowering reports it, located at `einsum`
    const EinsumSpec& spec = *parsed;
    const auto follows = [&](std::size_t operand) {
        return std::find(step.followers.begin(), step.followers.end(), operand) !=
               step.followers.end();
    };
    std::vector<std::optional<std::vector<LabelTiling>>> operands;
    // Per label, the cut every operand takes: the most tiles among the operands that lead (not
    // followers) where one carries the label, else among all; the first written among equals.
    std::map<char, LabelTiling> finest;
    for (std::size_t i = 0; i < spec.operands.size(); ++i)
        operands.push_back(tilings(builder, step.inputs[i], spec.operands[i], i));
    for (const bool leaders : {true, false})
        for (const auto& tiles : operands) {
            if (!tiles) continue;
            for (const LabelTiling& t : *tiles) {
                if (leaders && follows(t.operand)) continue;
                const char label = spec.operands[t.operand][t.dim];
                auto [it, fresh] = finest.emplace(label, t);
                if (!fresh && t.count > it->second.count &&
                    (leaders || follows(it->second.operand)))
                    it->second = t;
            }
        }
    // Every dimension is checked before any step is added, so a refused einsum adds nothing.
    for (const auto& tiles : operands) {
        if (!tiles) continue;
        for (const LabelTiling& t : *tiles) {
            const char label = spec.operands[t.operand][t.dim];
            const LabelTiling& f = finest.at(label);
            const bool divides =
                f.count % t.count == 0 || (follows(t.operand) && t.count % f.count == 0);
            if (t.extent() == f.extent() && divides) continue;
            const bool t_first =
                std::make_pair(t.operand, t.dim) < std::make_pair(f.operand, f.dim);
            throw mismatch(label, t_first ? t : f, t_first ? f : t, step.inputs, src.at("inputs"));
        }
    }
    EinsumStep out = step;
    out.followers.clear();
    for (std::size_t i = 0; i < operands.size(); ++i) {
        if (!operands[i]) continue;
        const std::string& labels = spec.operands[i];
        const std::string retiled = name + ".retile" + std::to_string(i + 1);
        std::string relation = step.inputs[i];
        // "(k0 * 2 + k2, k1 / 2, k1 % 2)": each split folded back into its dimension, each
        // merged dimension's piece appended (merges: its position and tile dimension).
        std::string key, pieces;
        std::vector<std::pair<std::size_t, std::size_t>> merges;
        std::size_t appended = labels.size();  // the key position the next tile appends
        for (const LabelTiling& t : *operands[i]) {
            const LabelTiling& f = finest.at(labels[t.dim]);
            const std::string k = "k" + std::to_string(t.dim);
            key += key.empty() ? "(" : ", ";
            if (t.count == f.count) {
                key += k;
            } else if (t.count > f.count) {  // a follower cut more finely: merged
                const std::string m = std::to_string(t.count / f.count);
                key += k + " / " + m;
                pieces += ", " + k + " % " + m;
                merges.emplace_back(labels.size() + merges.size(), t.dim);
            } else {
                const std::string split = retiled + ".tile" + std::to_string(t.dim);
                builder.set_lowered_from(builder.add_tile(split, relation, t.dim, f.size, src),
                                         name);
                relation = split;
                key += k + " * " + std::to_string(f.count / t.count) + " + k" +
                       std::to_string(appended++);
            }
        }
        if (relation == step.inputs[i] && merges.empty()) continue;  // tiled like the finest
        const std::string rekeyed = merges.empty() ? retiled : retiled + ".group";
        builder.set_lowered_from(builder.add_rekey(rekeyed, relation, key + pieces + ")", src),
                                 name);
        // A sparse operand's fill (made by the rekey, sparse_rules.hpp) is part of it too.
        if (auto fill = builder.lookup_optional(rekeyed + ".fill"))
            builder.set_lowered_from(*fill, name);
        relation = rekeyed;
        // The last piece position first, so the positions before it stay where they are.
        for (auto it = merges.rbegin(); it != merges.rend(); ++it) {
            const std::string merged = std::next(it) == merges.rend()
                                           ? retiled
                                           : retiled + ".concat" + std::to_string(it->second);
            builder.set_lowered_from(
                builder.add_concat(merged, relation, it->first, it->second, src), name);
            relation = merged;
        }
        out.inputs[i] = retiled;
    }
    return out;
}

}  // namespace tra
