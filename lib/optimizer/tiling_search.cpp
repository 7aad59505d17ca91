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

    RankedPlans run(std::size_t exhaustive_limit) {
        std::size_t combinations = 1;
        for (const auto& s : sizes_)
            combinations = std::min<std::size_t>(combinations * s.size(), 1u << 20);
        if (combinations <= exhaustive_limit)
            exhaustive();
        else
            descend();
        return merged();
    }

  private:
    using Choice = std::vector<std::size_t>;  // index into sizes_[class]

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
        if (better(lead, best_)) best_ = lead;
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

    void exhaustive() {
        Choice choice(sizes_.size(), 0);
        if (std::any_of(sizes_.begin(), sizes_.end(), [](const auto& s) { return s.empty(); }))
            return;
        std::vector<Choice> batch;
        while (true) {
            if (allowed(choice)) batch.push_back(choice);
            if (batch.size() == kTilingBatch) plan(batch), batch.clear();
            std::size_t c = 0;
            while (c < choice.size() && ++choice[c] == sizes_[c].size()) choice[c++] = 0;
            if (c == choice.size()) break;
        }
        plan(batch);
    }

    // The index of the size whose tile count is nearest `factor` times that of sizes_[c][i]
    // (i itself when no other is nearer).
    std::size_t scaled(std::size_t c, std::size_t i, double factor) const {
        const auto& sizes = sizes_[c];
        const double extent = static_cast<double>(space_.classes[c].extent);
        const double target = factor * extent / static_cast<double>(sizes[i]);
        std::size_t nearest = i;
        for (std::size_t j = 0; j < sizes.size(); ++j)
            if (std::abs(extent / static_cast<double>(sizes[j]) - target) <
                std::abs(extent / static_cast<double>(sizes[nearest]) - target))
                nearest = j;
        return nearest;
    }

    // The first moves from `at`: every class twice and half as finely cut, then one class
    // twice and half.
    std::vector<Choice> scalings(const Choice& at) const {
        std::vector<Choice> out;
        const auto add = [&](const Choice& n) {
            if (n != at && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
        };
        for (double factor : {2.0, 0.5}) {
            Choice n = at;
            for (std::size_t c = 0; c < at.size(); ++c) n[c] = scaled(c, at[c], factor);
            add(n);
        }
        for (std::size_t c = 0; c < at.size(); ++c)
            for (double factor : {2.0, 0.5}) {
                Choice n = at;
                n[c] = scaled(c, at[c], factor);
                add(n);
            }
        return out;
    }

    // Where no scaling improves: one class to the next count up or down (where the extent has
    // many divisors, a count between two doublings).
    std::vector<Choice> neighbours(const Choice& at) const {
        std::vector<Choice> out;
        for (std::size_t c = 0; c < at.size(); ++c) {
            Choice n = at;
            if (at[c] + 1 < sizes_[c].size()) n[c] = at[c] + 1, out.push_back(n);
            if (at[c] > 0) n[c] = at[c] - 1, out.push_back(n);
        }
        return out;
    }

    // Where the moves above are stuck: each class alone four times and a quarter as finely
    // cut. A class whose best cut is a whole tile per site (a contraction split into exactly
    // `sites` pieces, each product local) can lie two doublings away behind a worse one. And a
    // padded class to the nearest tile counts that divide its extent, coarser and finer: its
    // padding costs about the same at every count (a softmax's masks pass over the whole
    // relation), so an unpadded count can beat every padded one around it (GPT-2's vocabulary,
    // 50257 = 29 x 1733: whole or in 29 tiles, where the doublings reach 2, 4, 8, ...).
    std::vector<Choice> jumps(const Choice& at) const {
        std::vector<Choice> out;
        const auto add = [&](const Choice& n) {
            if (n != at && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
        };
        for (std::size_t c = 0; c < at.size(); ++c)
            for (double factor : {4.0, 0.25}) {
                Choice n = at;
                n[c] = scaled(c, at[c], factor);
                add(n);
            }
        for (std::size_t c = 0; c < at.size(); ++c) {
            const auto& sizes = sizes_[c];
            const std::int64_t extent = space_.classes[c].extent;
            if (extent % sizes[at[c]] == 0) continue;
            const auto divides = [&](std::size_t i) { return extent % sizes[i] == 0; };
            Choice n = at;
            for (std::size_t i = at[c]; i-- > 0;)  // coarser (sizes_ is coarsest first)
                if (divides(i)) {
                    n[c] = i, add(n);
                    break;
                }
            for (std::size_t i = at[c] + 1; i < sizes.size(); ++i)
                if (divides(i)) {
                    n[c] = i, add(n);
                    break;
                }
        }
        return out;
    }

    // The best of `batch` (planned) when better than `best`, which it then becomes.
    std::optional<Choice> best_of(const std::vector<Choice>& batch, const Lead*& best) const {
        std::optional<Choice> move;
        for (const Choice& n : batch)
            if (const Lead* p = lead_of(n); better(p, best)) best = p, move = n;
        return move;
    }

    void descend() {
        // Start near sqrt(sites) tiles per dimension: sites tiles for a matrix.
        const double target = std::sqrt(static_cast<double>(request_.sites));
        Choice at(sizes_.size(), 0);
        for (std::size_t c = 0; c < sizes_.size(); ++c) {
            if (sizes_[c].empty()) return;
            double best = 1e300;
            for (std::size_t i = 0; i < sizes_[c].size(); ++i) {
                const double count = static_cast<double>(space_.classes[c].extent / sizes_[c][i]);
                const double off = std::abs(std::log2(count) - std::log2(target));
                if (off < best) best = off, at[c] = i;
            }
        }
        while (!allowed(at)) {  // coarser until within the per-input limit
            bool moved = false;
            for (std::size_t c = 0; c < at.size(); ++c)
                if (at[c] > 0) --at[c], moved = true;
            if (!moved) return;
        }
        plan({at});
        const Lead* best = lead_of(at);
        const auto try_moves = [&](const std::vector<Choice>& candidates) {
            std::vector<Choice> batch;
            for (const Choice& n : candidates)
                if (allowed(n)) batch.push_back(n);
            plan(batch);
            return best_of(batch, best);
        };
        // The likeliest moves first: a step plans neighbours only where no scaling improves, and
        // jumps only where neither does. Most steps of a descent are doublings or halvings, and
        // at 1024 sites each tiling planned takes a tenth of a second or more.
        for (int step = 0; step < 64; ++step) {
            std::optional<Choice> move = try_moves(scalings(at));
            if (!move) move = try_moves(neighbours(at));
            if (!move) move = try_moves(jumps(at));
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
