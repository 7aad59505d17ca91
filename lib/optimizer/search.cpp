#include "optimizer/search.hpp"

#include <algorithm>
#include <set>
#include <string_view>
#include <tuple>
#include <variant>

#include "core/error.hpp"
#include "ia/grid_move.hpp"
#include "ia/plan_validator.hpp"
#include "optimizer/beam_frontier.hpp"
#include "optimizer/emit.hpp"
#include "optimizer/ia_rules.hpp"
#include "optimizer/plan_order.hpp"
#include "optimizer/strategy.hpp"

namespace tra::optimizer {

using ia::Placement;
using ia::Plan;

std::vector<Placement> candidate_input_placements(const Program& program, NodeId input, int sites) {
    const Node& n = program.node(input);
    const std::size_t arity = n.type.key_arity;
    if (arity == 0) return {Placement::part({})};
    std::vector<Placement> out;
    for (std::size_t d = 0; d < arity; ++d) out.push_back(Placement::part({d}));
    // Part[d] puts a key box on at most frontier[d] sites. When every position has fewer keys
    // than there are sites, that leaves most sites idle and a few holding whole rows, and an
    // exchange out of them packs every row for every peer at once (a 32 x 32 tile matmul at
    // 1024 sites: 512 MiB of messages on the 32 senders). The process grid of the grid
    // strategy spreads the first two positions over rows x columns instead, one tile per site
    // there.
    const bool crowded =
        n.frontier.size() == arity && std::all_of(n.frontier.begin(), n.frontier.end(),
                                                  [&](std::int64_t f) { return f < sites; });
    if (arity >= 2 && crowded) {
        const ia::GridShape g = ia::grid_shape(sites);
        if (g.rows > 1) out.push_back(Placement::grid(0, 1, g.rows, g.cols));
    }
    return out;
}

namespace {

std::string join_names(const std::vector<std::string>& names, const std::string& sep) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : sep) + n;
    return out;
}

// Whether a1 + a2 < b1 + b2 as strings, without building either.
bool joined_less(std::string_view a1, std::string_view a2, std::string_view b1,
                 std::string_view b2) {
    for (;;) {
        if (a1.empty()) std::swap(a1, a2);
        if (b1.empty()) std::swap(b1, b2);
        if (a1.empty() || b1.empty()) return a1.empty() && !b1.empty();
        const std::size_t n = std::min(a1.size(), b1.size());
        if (int c = a1.substr(0, n).compare(b1.substr(0, n)); c != 0) return c < 0;
        a1.remove_prefix(n);
        b1.remove_prefix(n);
    }
}

class Searcher {
  public:
    Searcher(const Program& program, int sites, const SearchOptions& options)
        : program_(program), sites_(sites), options_(options) {
        for (NodeId id = 0; id < program.nodes.size(); ++id)
            if (program.node(id).needed) order_.push_back(id);
        check_inputs();
        check_pins();
    }

    std::vector<RankedPlan> run() {
        // An upper bound on the combinations: every choice point times its option count.
        // Their sum: the beam's extensions per unit of its width.
        double bound = 1, extensions_per_width = 0;
        for (NodeId id : order_) {
            const auto c = static_cast<double>(choices(id));
            bound *= c;
            extensions_per_width += c;
        }
        greedy_ = bound > static_cast<double>(options_.max_combinations);
        if (greedy_)
            beam(beam_width(extensions_per_width));
        else {
            State empty{Plan(program_, sites_), {}, {}, {}, {}, 0};
            walk(0, empty);
        }
        check_pins_applied();
        std::vector<RankedPlan> out;
        for (auto& [name, c] : best_) out.push_back(std::move(c.ranked));
        std::sort(out.begin(), out.end(), [&](const RankedPlan& a, const RankedPlan& b) {
            return cheaper(options_.cost, a.totals, a.seconds, a.name, b.totals, b.seconds, b.name);
        });
        if (out.size() > options_.top_k) out.erase(out.begin() + options_.top_k, out.end());
        return out;
    }

  private:
    struct Candidate {
        RankedPlan ranked;
        std::string inputs;  // where inputs started: breaks ties between same-named plans
    };

    std::size_t choices(NodeId id) const {
        const Node& n = program_.node(id);
        if (std::holds_alternative<InputOp>(n.op))
            return options_.input_placements.count(id)
                       ? 1
                       : candidate_input_placements(program_, id, sites_).size();
        if (pinned_.count(id)) return 1;
        return std::max<std::size_t>(1, strategies_for(n.op).size());
    }

    void check_inputs() const {
        for (const auto& [id, placement] : options_.input_placements) {
            if (id >= program_.nodes.size() ||
                !std::holds_alternative<InputOp>(program_.node(id).op) || !program_.node(id).needed)
                throw Error("a starting placement is given for node " + std::to_string(id) +
                            ", which is not a needed input of the program");
            if (placement.kind() == Placement::Kind::Unknown)
                throw Error("input '" + program_.node(id).name +
                            "' cannot start in an Unknown placement");
        }
    }

    static std::string names_of(const std::vector<Strategy>& list) {
        std::vector<std::string> names;
        for (const auto& s : list) names.push_back(s.name);
        return join_names(names, ", ");
    }

    void check_pins() {
        for (const auto& [node, strategy] : options_.pins) {
            auto id = program_.find(node);
            if (!id || !program_.node(*id).needed || !has_strategies(program_.node(*id).op))
                throw Error("cannot pin '" + node +
                            "': it is not a needed join or aggregate of the program");
            const auto& list = strategies_for(program_.node(*id).op);
            // Named capture: clang 14 cannot capture a structured binding.
            bool known =
                std::any_of(list.begin(), list.end(),
                            [&wanted = strategy](const Strategy& s) { return s.name == wanted; });
            if (!known)
                throw Error("cannot pin '" + node + "' to '" + strategy + "': the " +
                            operator_name(program_.node(*id).op) + " strategies are " +
                            names_of(list));
            pinned_[*id] = strategy;
        }
    }

    // A pinned strategy that applied in no combination: name what did apply.
    void check_pins_applied() const {
        for (const auto& [id, strategy] : pinned_) {
            const auto& ok = applied_.count(id) ? applied_.at(id) : std::set<std::string>{};
            if (ok.count(strategy)) continue;
            std::vector<std::string> names(ok.begin(), ok.end());
            throw Error("cannot pin '" + program_.node(id).name + "' to '" + strategy +
                        "': it applies to no reachable placement of its inputs; strategies "
                        "that apply: " +
                        (names.empty() ? std::string("none") : join_names(names, ", ")));
        }
    }

    // A partial plan: the choices made so far for order_[0..i). Copied once per candidate
    // extension, so every member copies in time independent of the plan's size, or (the
    // name) in a single memcpy.
    struct State {
        Plan plan;         // shares its nodes with the plan it was copied from
        std::string name;  // "NODE=strategy" so far, comma separated
        std::string inputs;
        ia::CostCache cache;    // where the costed nodes' tuples are; the memo is shared
        ia::PlanTotals so_far;  // beam only: transfer of the nodes costed so far
        double seconds = 0;     // beam under the time model: seconds of the nodes costed so far
    };

    // Every way to extend `state` by node order_[i]: starting placements for an input, the
    // single Table 1 rewrite, or each applicable (and, if pinned, the pinned) strategy.
    std::vector<State> expand(const State& state, std::size_t i) {
        const NodeId id = order_[i];
        const Node& node = program_.node(id);
        std::vector<State> out;
        if (std::holds_alternative<InputOp>(node.op)) {
            std::vector<Placement> starts;
            if (auto f = options_.input_placements.find(id); f != options_.input_placements.end())
                starts = {f->second};
            else
                starts = candidate_input_placements(program_, id, sites_);
            for (const Placement& p : starts) {
                State next = state;
                next.plan.set_result(id, emit_input(next.plan, id, p));
                next.inputs += node.name + "=" + p.str() + ";";
                out.push_back(std::move(next));
            }
            return out;
        }
        if (!has_strategies(node.op)) {
            State next = state;
            next.plan.set_result(id, emit_table1(next.plan, id));
            out.push_back(std::move(next));
            return out;
        }
        // Every strategy is tried on a copy, so the pin error can list those that applied.
        for (const Strategy& s : strategies_for(node.op)) {
            State next = state;
            auto r = s.apply(next.plan, id);
            if (!r) continue;
            applied_[id].insert(s.name);
            auto pin = pinned_.find(id);
            if (pin != pinned_.end() && pin->second != s.name) continue;
            next.plan.set_result(id, *r);
            next.name += (next.name.empty() ? "" : ",") + node.name + "=" + s.name;
            out.push_back(std::move(next));
        }
        return out;
    }

    // The copies the enforcers from node `placed` on make of what they keep, where a later step
    // reads their input's relation (`live`): the whole plan's operator_times knows its last
    // readers, a partial plan does not have them yet.
    double kept_copies(const ia::Plan& plan, ia::IaNodeId placed, const LiveRelations& live) const {
        double seconds = 0;
        for (ia::IaNodeId id = placed; id < plan.size(); ++id) {
            const ia::IaNode& n = plan.node(id);
            if (ia::is_enforcer(n.op) && n.inputs.size() == 1 &&
                live.contains(plan.node(n.inputs[0]).origin))
                seconds += ia::kept_copy_seconds(n, options_.time.profile,
                                                 static_cast<std::size_t>(sites_));
        }
        return seconds;
    }

    // The beam's width, given its extensions per unit of width (the sum of the nodes' choice
    // counts): a short program affords a wide beam (ffnn-xml on 2 sites: at 32 the beam
    // dropped, at its dW1 aggregate, the partial plan whose W1 update later runs in place, and
    // returned a plan predicted 14% slower than the best; at 64 and more it keeps it).
    std::size_t beam_width(double extensions_per_width) const {
        const double affordable =
            static_cast<double>(options_.beam_extensions) / std::max(extensions_per_width, 1.0);
        const std::size_t widest = std::max(options_.beam_width, options_.max_beam_width);
        if (affordable >= static_cast<double>(widest)) return widest;
        return std::max(options_.beam_width, static_cast<std::size_t>(affordable));
    }

    // Beam search for programs with too many combinations to enumerate: after each node, keep
    // the `width` partial plans that are cheapest so far (same order as whole plans), the
    // cheapest of each frontier (beam_frontier.hpp) before the others.
    // Partial costs are exact for what is already placed, so the beam only misjudges choices
    // whose price shows up later; a wider beam trades planning time for fewer such misses.
    void beam(std::size_t width) {
        const std::vector<LiveRelations> live = live_after_each_step(program_, order_);
        std::vector<State> states;
        states.push_back(State{Plan(program_, sites_), {}, {}, {}, {}, 0});
        states.back().cache.memo->shared = options_.shared_costs;
        for (std::size_t i = 0; i < order_.size(); ++i) {
            std::vector<State> next;
            for (const State& s : states) {
                const std::size_t placed = s.plan.size();
                for (State& e : expand(s, i)) {
                    // Cost only what the extension added; earlier nodes' costs do not change.
                    const ia::PlanTotals added = ia::annotate_new_costs(e.plan, e.cache);
                    e.so_far.payload_bytes += added.payload_bytes;
                    e.so_far.paper_floats += added.paper_floats;
                    if (options_.cost == CostModel::Time)
                        e.seconds += ia::estimated_seconds(e.plan, options_.time, placed) +
                                     kept_copies(e.plan, placed, live[i]);
                    next.push_back(std::move(e));
                }
            }
            if (next.size() > width) {
                // The tie-break is name + inputs, compared without building it: names grow
                // with the plan, and building one per candidate made each step linear in it.
                std::vector<std::size_t> order(next.size());
                for (std::size_t k = 0; k < next.size(); ++k) order[k] = k;
                std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                    const State &x = next[a], &y = next[b];
                    if (options_.cost == CostModel::Time && x.seconds != y.seconds)
                        return x.seconds < y.seconds;
                    auto cost = [](const State& s) {
                        return std::tie(s.so_far.payload_bytes, s.so_far.paper_floats);
                    };
                    if (cost(x) != cost(y)) return cost(x) < cost(y);
                    return joined_less(x.name, x.inputs, y.name, y.inputs);
                });
                // The cheapest `width`, those with distinct frontiers (beam_frontier.hpp) first:
                // of partial plans alike for every later node only the cheapest can lead to the
                // best; the others fill what room is left (near the end, where few relations
                // are live, they are the alternatives `--top` lists).
                std::vector<State> kept;
                std::vector<std::size_t> alike;
                std::set<std::uint64_t> frontiers;
                for (std::size_t k = 0; k < order.size() && kept.size() < width; ++k) {
                    State& candidate = next[order[k]];
                    if (auto f = frontier_signature(candidate.plan, live[i]))
                        if (!frontiers.insert(*f).second) {
                            alike.push_back(order[k]);
                            continue;
                        }
                    kept.push_back(std::move(candidate));
                }
                for (std::size_t k = 0; k < alike.size() && kept.size() < width; ++k)
                    kept.push_back(std::move(next[alike[k]]));
                next = std::move(kept);
            }
            states = std::move(next);
        }
        for (State& s : states) finish(std::move(s));
    }

    // Exhaustive enumeration, depth first. Each prefix is costed once, before its extensions
    // copy it.
    void walk(std::size_t i, State& state) {
        ia::annotate_new_costs(state.plan, state.cache);
        if (i == order_.size()) return finish(std::move(state));
        for (State& next : expand(state, i)) walk(i + 1, next);
    }

    void finish(State state) {
        Plan& plan = state.plan;
        const std::string& inputs = state.inputs;
        ia::validate(plan);  // strategies only emit validated nodes; this guards the whole
        ia::PlanTotals totals = ia::annotate_costs(plan, state.cache);
        if (auto normal = normalise_plan(plan, totals)) {  // e.g. a concat needing no shuffle
            plan = std::move(normal->plan);
            totals = std::move(normal->totals);
        }
        std::string name = state.name.empty() ? std::string("table1") : state.name;
        const double seconds = ia::estimated_seconds(plan, options_.time);
        auto it = best_.find(name);
        if (it != best_.end() &&
            !cheaper(options_.cost, totals, seconds, inputs, it->second.ranked.totals,
                     it->second.ranked.seconds, it->second.inputs))
            return;
        Candidate c{RankedPlan{name, std::move(plan), std::move(totals), seconds}, inputs};
        if (it != best_.end())
            it->second = std::move(c);
        else
            best_.emplace(name, std::move(c));
    }

    const Program& program_;
    int sites_;
    const SearchOptions& options_;
    std::vector<NodeId> order_;
    std::map<NodeId, std::string> pinned_;
    std::map<NodeId, std::set<std::string>> applied_;
    std::map<std::string, Candidate> best_;
    bool greedy_ = false;
};

}  // namespace

std::vector<RankedPlan> search_plans(const Program& program, int sites,
                                     const SearchOptions& options) {
    if (sites < 1) throw Error("the site count must be at least 1");
    return Searcher(program, sites, options).run();
}

}  // namespace tra::optimizer
