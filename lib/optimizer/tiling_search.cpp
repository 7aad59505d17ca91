#include "optimizer/tiling_search.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "core/checked_math.hpp"
#include "core/error.hpp"
#include "ia/time_estimate.hpp"
#include "optimizer/logical_rewrites.hpp"
#include "optimizer/tiling_merge.hpp"
#include "optimizer/tiling_moves.hpp"

namespace tra::optimizer {

std::string tiling_name(const Program& program) {
    std::string name;
    for (const auto& [input, tile] : program.tiling)
        name += (name.empty() ? "" : ",") + input + "@" + tile_text(tile);
    return name;
}

namespace {

// Tile sizes a class may take, coarsest first: extent / c for every tile count c that divides
// the extent, up to max_tiles; in a paddable class also ceil(extent / c) for the powers of two
// c that do not divide it (the last tile padded, tiling_classes.hpp).
std::vector<std::int64_t> class_sizes(const TileClass& c, std::int64_t max_tiles) {
    if (c.fixed) return {*c.fixed};
    std::set<std::int64_t, std::greater<>> sizes;
    for (std::int64_t count = 1; count <= max_tiles && count <= c.extent; ++count)
        if (c.extent % count == 0) sizes.insert(c.extent / count);
    if (c.paddable)
        for (std::int64_t count = 2; count <= max_tiles && count <= c.extent; count *= 2)
            sizes.insert(ceil_div(c.extent, count));
    return {sizes.begin(), sizes.end()};
}

std::int64_t tiles_of(const Shape& shape, const Shape& tile) {
    std::int64_t n = 1;
    for (std::size_t d = 0; d < shape.size(); ++d) n *= ceil_div(shape[d], tile[d]);
    return n;
}

class TilingSearch {
  public:
    TilingSearch(const TilingSpace& space, const ProgramOfTiling& build, const PlanRequest& request)
        : space_(space),
          build_(build),
          request_(request),
          max_tiles_(16 * static_cast<std::int64_t>(request.sites)) {
        for (const TileClass& c : space_.classes) sizes_.push_back(class_sizes(c, max_tiles_));
        pinned_.assign(sizes_.size(), false);
        apply_pins();
    }

    // First with the classes of each group cut alike (no re-tiling inside an einsum), then,
    // where groups hold several classes, on from the best with each class moving alone: a
    // re-tiling is placed where cutting apart improves the first plan.
    RankedPlans run(std::size_t exhaustive_limit) {
        const TilingMoves grouped(space_, sizes_, true), apart(space_, sizes_, false);
        const TilingMoves& alike = grouped.empty() ? apart : grouped;  // pins cut a group apart
        if (alike.combinations() <= exhaustive_limit)
            exhaustive(alike);
        else
            descend(alike);
        if (alike.linked() && best_choice_) descend_from(*best_choice_, apart);
        return merged();
    }

  private:
    using Choice = TilingChoice;

    // A tiling's first plan, as the rank order reads it.
    struct Lead {
        ia::PlanTotals totals;
        double seconds = 0;
        std::string name;
    };
    struct Outcome {
        std::optional<Lead> lead;           // nullopt: no plan (refused, or bound above the best)
        std::optional<RankedPlans> ranked;  // released once it cannot reach the first `top`
    };

    void apply_pins() {
        for (const auto& [name, tile] : request_.tiling_pins) {
            const std::string& pinned_input = name;  // (clang 14 cannot capture a binding)
            const auto in =
                std::find_if(space_.inputs.begin(), space_.inputs.end(),
                             [&](const AutoInput& i) { return i.name == pinned_input; });
            if (in == space_.inputs.end())
                throw Error("--plan pins the tiling of '" + name +
                            "', which is not an input with tile: auto");
            const std::size_t index = static_cast<std::size_t>(in - space_.inputs.begin());
            if (const auto why = space_.misfit(name, in->shape, in->tile, tile))
                throw Error("--plan pins " + name + "@" + tile_text(tile) +
                            ", which does not fit its shape " + in->shape.str() + ": " + *why);
            // A pinned class takes the pin's size, which may lie outside the space's sizes; a
            // second pin of the class, or a fixed class, must agree (else it has no size).
            std::vector<bool> pinned(space_.classes.size(), false);
            for (std::size_t c = 0; c < space_.classes.size(); ++c)
                for (const auto& [i, d] : space_.classes[c].dims)
                    if (i == index) {
                        auto& s = sizes_[c];
                        const bool agrees = std::find(s.begin(), s.end(), tile[d]) != s.end();
                        const bool free = !space_.classes[c].fixed && !pinned_[c] && !pinned[c];
                        s = agrees || free ? std::vector<std::int64_t>{tile[d]}
                                           : std::vector<std::int64_t>{};
                        pinned[c] = true;
                    }
            for (std::size_t c = 0; c < pinned.size(); ++c) pinned_[c] = pinned_[c] || pinned[c];
        }
    }

    std::vector<std::int64_t> tiles(const Choice& choice) const {
        std::vector<std::int64_t> t;
        for (std::size_t c = 0; c < choice.size(); ++c) t.push_back(sizes_[c][choice[c]]);
        return t;
    }

    // Within 16 x sites tiles per input.
    bool allowed(const Choice& choice) const {
        const Tiling t = space_.resolve(tiles(choice));
        for (const AutoInput& in : space_.inputs)
            if (tiles_of(in.shape, t.at(in.name)) > max_tiles_) return false;
        return true;
    }

    // The first plan of a tiling already planned; nullptr when it gives no plan.
    const Lead* lead_of(const Choice& choice) const {
        const auto it = planned_.find(choice);
        return it != planned_.end() && it->second.lead ? &*it->second.lead : nullptr;
    }

    // Plans each tiling of `batch` not planned yet, on up to planner_threads threads, and
    // records its first plan. Under the time model a tiling whose compute alone
    // (ia::compute_lower_bound) is no faster than the best first plan from before the batch is
    // not planned: none of its plans could rank first. The bound, the tilings planned and so
    // the plans do not depend on the thread count or on which tiling finishes first.
    void plan(const std::vector<Choice>& batch) {
        struct Job {
            Choice choice;
            std::optional<Program> program;  // to rank; nullopt: no plan (refused or bounded)
            std::exception_ptr failure;
        };
        std::vector<Job> jobs;
        for (const Choice& choice : batch) {
            const bool seen = planned_.count(choice) ||
                              std::any_of(jobs.begin(), jobs.end(),
                                          [&](const Job& j) { return j.choice == choice; });
            if (seen) continue;
            Job& job = jobs.emplace_back(Job{choice, std::nullopt, nullptr});
            try {
                Program p = build_(space_.resolve(tiles(choice)));
                const bool bounded =
                    request_.cost == CostModel::Time && best_ &&
                    ia::compute_lower_bound(apply_logical_rewrites(p).program, request_.time,
                                            request_.sites) >= best_->seconds;
                if (!bounded && within_call_limit(p)) job.program = std::move(p);
            } catch (const Error&) {
                job.failure = std::current_exception();
            }
        }
        // A tiling's plans are recorded as soon as they are ranked, so only the `top` best
        // tilings' plans are held at any time (release_beyond_top keeps the same ones whatever
        // the order). Refusals are recorded after, in batch order: the first is the one reported.
        std::mutex recording;
        run_parallel(jobs.size(), [&](std::size_t i) {
            Job& job = jobs[i];
            if (!job.program) return;
            try {
                PlanRequest r = request_;
                r.tiling_pins.clear();
                r.shared_costs = shared_costs_;
                RankedPlans ranked = rank_plans(std::move(*job.program), r);
                job.program.reset();
                const std::lock_guard lock(recording);
                record(job.choice, std::move(ranked));
            } catch (...) {
                job.failure = std::current_exception();
            }
        });
        for (Job& job : jobs) {
            if (planned_.count(job.choice)) continue;
            if (job.failure) {
                try {
                    std::rethrow_exception(job.failure);
                } catch (const Error& e) {
                    if (e.kind() != ErrorKind::BadInput) throw;
                    if (!error_) error_ = e;
                }
            }
            record(job.choice, std::nullopt);
        }
    }

    // Records a tiling's ranked plans (nullopt: it has none) and its first plan.
    void record(const Choice& choice, std::optional<RankedPlans> ranked) {
        Outcome o;
        o.ranked = std::move(ranked);
        if (o.ranked && !o.ranked->plans.empty()) {
            // Named as merged() will name it: ties between tilings break alike.
            const RankedPlan& f = o.ranked->plans.front();
            o.lead = Lead{f.totals, f.seconds, tiled_plan_name(*o.ranked->program, f.name)};
        }
        const Outcome& kept = planned_.emplace(choice, std::move(o)).first->second;
        const Lead* lead = kept.lead ? &*kept.lead : nullptr;
        if (better(lead, best_)) best_ = lead, best_choice_ = choice;
        if (lead) release_beyond_top();
    }

    // Calls work(i) for every i < n on up to planner_threads threads (the caller is one).
    template <class Work>
    void run_parallel(std::size_t n, Work&& work) const {
        std::size_t threads = request_.planner_threads;
        if (threads == 0) threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
        threads = std::min(threads, n);
        std::atomic<std::size_t> next{0};
        const auto worker = [&] {
            for (std::size_t i; (i = next.fetch_add(1)) < n;) work(i);
        };
        std::vector<std::thread> helpers;
        for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(worker);
        worker();
        for (std::thread& h : helpers) h.join();
    }

    // At most kCallsPerSite x sites kernel calls per join: finer cuts add call overhead and
    // planning work (exact costs follow every tuple) faster than they add parallelism.
    bool within_call_limit(const Program& p) const {
        for (const Node& n : p.nodes)
            if (n.needed && std::holds_alternative<JoinOp>(n.op) &&
                static_cast<std::int64_t>(n.tuples()) > kCallsPerSite * request_.sites)
                return false;
        return true;
    }

    // Only the tilings whose first plans are among the `top` best can hold one of the first
    // `top` plans: the others' plans (and programs) are released.
    void release_beyond_top() {
        std::vector<Outcome*> held;
        for (auto& [choice, o] : planned_)
            if (o.ranked && o.lead) held.push_back(&o);
        if (held.size() <= request_.top) return;
        std::nth_element(
            held.begin(), held.begin() + static_cast<std::ptrdiff_t>(request_.top), held.end(),
            [&](const Outcome* a, const Outcome* b) { return better(&*a->lead, &*b->lead); });
        for (std::size_t i = request_.top; i < held.size(); ++i) held[i]->ranked.reset();
    }

    bool better(const Lead* a, const Lead* b) const {
        if (!a) return false;
        if (!b) return true;
        return cheaper(request_.cost, a->totals, a->seconds, a->name, b->totals, b->seconds,
                       b->name);
    }

    void exhaustive(const TilingMoves& moves) {
        if (moves.empty()) return;
        std::vector<std::size_t> unit_index(moves.units(), 0);
        std::vector<Choice> batch;
        do {
            const Choice choice = moves.choice(unit_index);
            if (allowed(choice)) batch.push_back(choice);
            if (batch.size() == kTilingBatch) plan(batch), batch.clear();
        } while (moves.next(unit_index));
        plan(batch);
    }

    // The best of `batch` (planned) when better than `best`, which it then becomes.
    std::optional<Choice> best_of(const std::vector<Choice>& batch, const Lead*& best) const {
        std::optional<Choice> move;
        for (const Choice& n : batch)
            if (const Lead* p = lead_of(n); better(p, best)) best = p, move = n;
        return move;
    }

    void descend(const TilingMoves& moves) {
        if (moves.empty()) return;
        // Start near sqrt(sites) tiles per dimension: sites tiles for a matrix.
        Choice at = moves.nearest(std::sqrt(static_cast<double>(request_.sites)));
        while (!allowed(at)) {  // coarser until within the per-input limit
            const auto coarser = moves.coarser(at);
            if (!coarser) return;
            at = *coarser;
        }
        plan({at});
        descend_from(at, moves);
    }

    // Moves from `at` (planned) to the best of its moves while that improves the best first
    // plan. The likeliest moves first: a step plans neighbours only where no scaling improves,
    // and jumps only where neither does. Most steps of a descent are doublings or halvings, and
    // at 1024 sites each tiling planned takes a tenth of a second or more.
    void descend_from(Choice at, const TilingMoves& moves) {
        const Lead* best = lead_of(at);
        const auto try_moves = [&](const std::vector<Choice>& candidates) {
            std::vector<Choice> batch;
            for (const Choice& n : candidates)
                if (allowed(n)) batch.push_back(n);
            plan(batch);
            return best_of(batch, best);
        };
        for (int step = 0; step < 64; ++step) {
            std::optional<Choice> move = try_moves(moves.scalings(at));
            if (!move) move = try_moves(moves.neighbours(at));
            if (!move) move = try_moves(moves.jumps(at));
            if (!move) break;
            at = *move;
        }
    }

    RankedPlans merged() {
        std::vector<RankedPlans*> all;
        for (auto& [choice, o] : planned_)
            if (o.ranked) all.push_back(&*o.ranked);
        if (all.empty()) {
            if (error_) throw *error_;
            throw Error(
                "no tiling of the tile: auto inputs is possible: every one left by the pins "
                "cuts an input into more than 16 x sites = " +
                std::to_string(max_tiles_) + " tiles, makes a join of more than " +
                std::to_string(kCallsPerSite) +
                " x sites = " + std::to_string(kCallsPerSite * request_.sites) +
                " kernel calls, or conflicts with the tiles it is tied to");
        }
        return merge_tiling_plans(all, request_.cost, request_.top);
    }

    TilingSpace space_;
    const ProgramOfTiling& build_;
    const PlanRequest& request_;
    std::int64_t max_tiles_;
    std::vector<std::vector<std::int64_t>> sizes_;  // per class, coarsest first
    std::vector<bool> pinned_;                      // per class: a pin has set its size
    std::map<Choice, Outcome> planned_;             // map nodes stay put: leads are pointed at
    const Lead* best_ = nullptr;                    // the best first plan planned so far
    std::optional<Choice> best_choice_;             // its tiling
    // Moves costed for one tiling's plans, reused by the others' (most relations are cut alike).
    std::shared_ptr<ia::SharedCosts> shared_costs_ = std::make_shared<ia::SharedCosts>();
    std::optional<Error> error_;
};

}  // namespace

RankedPlans rank_tiled_plans(Program loaded, const ProgramOfTiling& build,
                             const PlanRequest& request, std::size_t exhaustive_limit) {
    if (loaded.tiling_space.empty()) {
        if (!request.tiling_pins.empty())
            throw Error("--plan pins the tiling of '" + request.tiling_pins.begin()->first +
                        "', but no input of the workflow has tile: auto");
        return rank_plans(std::move(loaded), request);
    }
    return TilingSearch(loaded.tiling_space, build, request).run(exhaustive_limit);
}

}  // namespace tra::optimizer
