// R1-6, filter push-down through a join: σ_b(⋈(L, R)) -> ⋈(σ_bL(L), σ_bR(R)).
//
// The join's output key is L's key followed by R's non-join positions. A position that comes from
// L maps to L; if it is one of L's join positions it also maps to the matching join position of
// R, since a joined pair agrees there. The predicate b is re-indexed onto a side when every
// position it reads maps to that side (thesis note: "the predicate must be re-indexed for each
// side"):
//   both sides    b reads only join positions (diag(X+Y): k0 == k1 on [0,1]=[0,1]): filter both,
//                 so neither side ships or joins tuples that cannot survive;
//   one side      b reads a position only that side has (and no position only the other has):
//                 filter that side; a pair survives the old filter exactly when its tuple from
//                 that side passes b, so the join of the filtered side gives the same key set;
//   neither       b mixes positions from both sides' own keys: not applied.
// Match also needs the join to be read only by this filter and not be an output, since the
// unfiltered join disappears. The kernel is not consulted: a filter reads keys only.
//
// Names: the new join keeps the join's name (pins such as S=bcast-left keep working) and the
// filter's readers are pointed at it; when the filter is an output, the join takes the filter's
// name instead so outputs keep theirs. Pushed filters are named FILTER.OPERAND ("F.X").
// Tuple counts: the new join's key set is the old filter's; each pushed filter has at most its
// operand's tuples.
#include "optimizer/logical_rewrites.hpp"
#include "optimizer/rule_key_text.hpp"

namespace tra::optimizer {

namespace {

using PositionMap = std::vector<std::optional<std::size_t>>;

std::optional<RuleApplication> try_push_filter_through_join(const Program& p, NodeId at) {
    const Node& filter = p.node(at);
    const auto* f = std::get_if<FilterOp>(&filter.op);
    if (!f) return std::nullopt;
    Steps steps = to_steps(p);
    const auto join_id = sole_use_operand(p, steps, at);
    if (!join_id) return std::nullopt;
    const Node& join = p.node(*join_id);
    const auto* j = std::get_if<JoinOp>(&join.op);
    if (!j) return std::nullopt;
    const Node& left = p.node(join.inputs[0]);
    const Node& right = p.node(join.inputs[1]);

    // Output position -> position in L, and -> position in R.
    const std::size_t a = left.type.key_arity;
    PositionMap to_left(join.type.key_arity), to_right(join.type.key_arity);
    for (std::size_t q = 0; q < a; ++q) to_left[q] = q;
    for (std::size_t i = 0; i < j->left_keys.size(); ++i)
        to_right[j->left_keys[i]] = j->right_keys[i];
    std::vector<bool> joined(right.type.key_arity, false);
    for (auto q : j->right_keys) joined[q] = true;
    for (std::size_t q = 0, out = a; q < right.type.key_arity; ++q)
        if (!joined[q]) to_right[out++] = q;

    const std::optional<std::string> on_left = reindexed_text(f->where, to_left);
    const std::optional<std::string> on_right = reindexed_text(f->where, to_right);
    if (!on_left && !on_right) return std::nullopt;

    Step new_join = steps.steps[steps.index(join.name)];
    const bool keep_filter_name = steps.is_output(filter.name);
    if (keep_filter_name) new_join.name = filter.name;
    std::string detail;
    auto push = [&](std::size_t side, const Node& operand, const std::string& text) {
        Step s = filter_step(steps.fresh_name(filter.name + "." + operand.name), operand.name,
                             operand.type.key_arity, text, filter.where);
        new_join.inputs[side] = s.name;
        detail +=
            (detail.empty() ? "" : ", ") + s.name + " = filter " + operand.name + " by " + text;
        const auto before = steps.index(filter.name);
        steps.steps.insert(steps.steps.begin() + static_cast<std::ptrdiff_t>(before), s);
    };
    if (on_left) push(0, left, *on_left);
    if (on_right) push(1, right, *on_right);

    // The new join takes the filter's place (after the pushed filters); the old join goes (its
    // only reader was the filter), and the filter's readers now read the new join.
    const std::size_t old_join_at = steps.index(join.name);
    steps.steps[steps.index(filter.name)] = new_join;
    steps.steps.erase(steps.steps.begin() + static_cast<std::ptrdiff_t>(old_join_at));
    if (!keep_filter_name) steps.redirect(filter.name, join.name);
    const char* where = on_left && on_right ? "both operands"
                        : on_left           ? "the left operand"
                                            : "the right operand";
    return RuleApplication{std::move(steps), f->where.text() + " pushed onto " + where + " of " +
                                                 join.name + ": " + detail};
}

}  // namespace

RewriteRule filter_join_pushdown_rule() {
    return {"R1-6", "filter push-down through a join", try_push_filter_through_join};
}

}  // namespace tra::optimizer
