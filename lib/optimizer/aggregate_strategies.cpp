#include "optimizer/aggregate_strategies.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ia/grid_move.hpp"
#include "ia/partials.hpp"
#include "optimizer/emit.hpp"

namespace tra::optimizer {

using ia::IaNodeId;
using ia::Plan;

namespace {

const KeyPositions& group_by(const Plan& plan, NodeId id) {
    return std::get<AggregateOp>(tra_node(plan, id).op).by;
}
IaNodeId operand(const Plan& plan, NodeId id) {
    return result_of(plan, tra_node(plan, id).inputs.at(0));
}

std::string with_position(const std::string& name, std::size_t p) {
    return name + "[" + std::to_string(p) + "]";
}

// `on`: positions of the aggregate's input key, a subset of by.
std::optional<IaNodeId> shuffle_then_aggregate(Plan& plan, NodeId id, const KeyPositions& on,
                                               const std::string& rule) {
    IaNodeId in = operand(plan, id);
    if (aggregates_in_place(plan, id, in)) return std::nullopt;
    auto moved = emit_shuffle(plan, in, on, rule);
    if (!moved) return std::nullopt;
    return emit_local_aggregate(plan, id, *moved, rule);
}

// Whether some group of `by` has tuples on several sites. The preagg variants of one aggregate
// ask it in turn of the same input, and the beam asks it again of every partial plan that
// placed that input the same way (one shared map); a walk over a large relation's sites costs
// (at 1024 sites it was an eighth of planning), so the last few answers are kept. Weak
// pointers: they do not keep a large map alive after planning, and a live one is never
// another map at a reused address.
bool groups_span(const std::shared_ptr<const ia::SiteMap>& where, const KeyPositions& by) {
    struct Answer {
        std::weak_ptr<const ia::SiteMap> map;
        KeyPositions by;
        bool spans = false;
    };
    constexpr std::size_t kKept = 16;
    thread_local std::vector<Answer> answers;  // most recent last
    for (std::size_t i = answers.size(); i-- > 0;)
        if (answers[i].by == by && answers[i].map.lock() == where) return answers[i].spans;
    if (answers.size() == kKept) answers.erase(answers.begin());
    answers.push_back(Answer{where, by, ia::groups_span_sites(*where, by)});
    return answers.back().spans;
}

// Moves the partials of an aggregate to their groups' homes.
using PartialsMove =
    std::function<std::optional<IaNodeId>(Plan& plan, IaNodeId partials, const std::string& rule)>;

// `move`: the reduce of the partials to their homes.
std::optional<IaNodeId> preaggregate(Plan& plan, NodeId id, const PartialsMove& move,
                                     const std::string& rule) {
    IaNodeId in = operand(plan, id);
    auto partial = emit_partial_aggregate(plan, id, in, rule);
    if (!partial) return std::nullopt;  // the input may hold a tuple on several sites
    // Worth a node only when some group really is on several sites (exact keys, not frontier).
    // A costed input (the search costs each prefix before extending it) knows where its
    // tuples are; the partial aggregate's validity says the input's placement is not Unknown.
    const auto& input = plan.node(in);
    auto where = input.cost.sites ? input.cost.sites
                                  : std::make_shared<const ia::SiteMap>(ia::holders(
                                        plan.origin(in).keys, input.placement, plan.sites()));
    if (!groups_span(where, group_by(plan, id))) return std::nullopt;
    auto moved = move(plan, *partial, rule);
    if (!moved) return std::nullopt;
    return emit_local_aggregate(plan, id, *moved, rule);
}

// `on`: positions of the aggregate's OUTPUT key (the partials carry it).
PartialsMove shuffle_on(KeyPositions on) {
    return [on = std::move(on)](Plan& plan, IaNodeId partials, const std::string& rule) {
        return emit_shuffle(plan, partials, on, rule);
    };
}

// The groups' homes on the most square process grid of all sites, rows and columns from the
// first two output positions: one group per site on a box of S groups, where Part's homes of a
// box with fewer than S keys per position crowd onto a diagonal band of sites.
std::optional<IaNodeId> reduce_to_grid(Plan& plan, IaNodeId partials, const std::string& rule) {
    const ia::GridShape g = ia::grid_shape(plan.sites());
    return emit_grid_move(plan, partials, ia::Placement::grid(0, 1, g.rows, g.cols), rule);
}

std::optional<IaNodeId> agg_local(Plan& plan, NodeId id) {
    return emit_local_aggregate(plan, id, operand(plan, id), "R2-4");
}

}  // namespace

std::vector<Strategy> aggregate_strategies(const AggregateOp& op) {
    const KeyPositions by = op.by;
    KeyPositions all_out(by.size());
    for (std::size_t i = 0; i < by.size(); ++i) all_out[i] = i;
    // Single positions only when they differ from the full list.
    const std::size_t singles = by.size() >= 2 ? by.size() : 0;

    std::vector<Strategy> out;
    out.push_back({"shuffle", [by](Plan& plan, NodeId id) {
                       return shuffle_then_aggregate(plan, id, by, "shuffle");
                   }});
    for (std::size_t i = 0; i < singles; ++i) {
        const std::string name = with_position("shuffle", by[i]);
        out.push_back({name, [p = by[i], name](Plan& plan, NodeId id) {
                           return shuffle_then_aggregate(plan, id, {p}, name);
                       }});
    }
    // The thesis' R2-5 rewrite (the partials shuffled on every output position): the R2-5 rule
    // offers this one.
    out.push_back({"preagg",
                   [all_out](Plan& plan, NodeId id) {
                       return preaggregate(plan, id, shuffle_on(all_out), "R2-5:preagg");
                   },
                   "R2-5"});
    for (std::size_t i = 0; i < singles; ++i) {
        const std::string name = with_position("preagg", by[i]);
        out.push_back({name, [i, name](Plan& plan, NodeId id) {
                           return preaggregate(plan, id, shuffle_on({i}), "R2-5:" + name);
                       }});
    }
    if (by.size() >= 2)
        out.push_back({"preagg-grid", [](Plan& plan, NodeId id) {
                           return preaggregate(plan, id, reduce_to_grid, "R2-5:preagg-grid");
                       }});
    out.push_back({"local", agg_local});
    return out;
}

}  // namespace tra::optimizer
