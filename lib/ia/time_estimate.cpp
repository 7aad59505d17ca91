#include "ia/time_estimate.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "core/dtype.hpp"
#include "ia/exchange_time.hpp"
#include "ia/fused_joins.hpp"
#include "ia/gemm_pricing.hpp"
#include "ia/last_uses.hpp"
#include "ia/loop_carry.hpp"
#include "ia/operator_spec.hpp"
#include "ia/per_site_memo.hpp"

namespace tra::ia {

namespace {

double tile_bytes_of(const Plan& plan, IaNodeId id) {
    return static_cast<double>(plan.relation(id).type.tile_bytes());
}

// What one site of a node costs, before the busiest is chosen.
struct SiteWork {
    double compute = 0, memory = 0;
};

// One call of a join kernel that does flops, without its call overhead: the flops at the rate of
// its kernel class (an einsum's GEMM plan as the pricing prices its products, BLAS calls as
// blas_seconds prices them, or the loop rate); or -- a roofline -- reading its operands
// and writing its result where that takes longer: a matrix-vector or outer product is bound by
// its bytes. `plan`: the einsum's GEMM plan (einsum_gemm_plan), if it runs one.
double product_seconds(const kernels::KernelCall& kernel, const Shape (&shapes)[2], DType dtype,
                       double operand_bytes, const ProfileGemmPricing& pricing,
                       const MachineProfile& profile,
                       const std::optional<kernels::cpu::GemmPlan>& plan) {
    const double flops = static_cast<double>(kernel.flops(shapes));
    const DtypeRates& rates = profile.rates(dtype);
    double seconds = flops / rates.loop_flops_per_second;
    if (plan)
        seconds = pricing.product_seconds(*plan, dtype, flops);
    else if (const auto calls = priced_blas_calls(kernel, shapes, plan, rates))
        seconds = blas_seconds(rates, flops, *calls, static_cast<double>(size_of(dtype)));
    return std::max(seconds, operand_bytes / profile.memory_bytes_per_second);
}

// The work of one node but an enforcer, as a function of the site: the parts that do not depend
// on the site (a product's seconds, tile sizes) are worked out once per node, since planning at
// 1024 sites asks every site of every node it costs.
class NodeWork {
  public:
    enum class Kind {
        None,
        Passes,           // per call an overhead; one pass over the input and output held
        ElementwiseJoin,  // per call an overhead and a pass over both operands and the output
        Product,          // per call an overhead, a product, and the permutes' passes
    };

    NodeWork() = default;
    NodeWork(Kind kind, const PerSite* calls_of, double calls_tile, const MachineProfile& profile)
        : kind_(kind),
          calls_of_(calls_of),
          calls_tile_(calls_tile),
          call_seconds_(profile.kernel_call_seconds),
          memory_rate_(profile.memory_bytes_per_second) {}

    // Passes: the bytes held of the input (the share `in_read` of them, for a kernel that reads
    // less than its operands) and of the output, each read or written once.
    NodeWork& passes(const PerSite* in, const PerSite* out, double in_read = 1) {
        pass_in_ = in;
        pass_out_ = out;
        in_read_ = in_read;
        return *this;
    }
    // ElementwiseJoin: both operand tiles and the output tile, per call.
    NodeWork& call_bytes(double bytes) {
        call_bytes_ = bytes;
        return *this;
    }
    // The fixed cost of one call where the kernel's own differs from kernel_call_seconds.
    NodeWork& call_seconds(double seconds) {
        call_seconds_ = seconds;
        return *this;
    }
    // Product: one product's seconds, and its permutes' seconds, per call; the products written
    // (out, unless fused with their aggregate).
    NodeWork& product(double seconds, double permute_seconds, const PerSite* out) {
        product_seconds_ = seconds;
        permute_seconds_ = permute_seconds;
        pass_out_ = out;
        return *this;
    }

    SiteWork at(std::size_t s) const {
        if (kind_ == Kind::None) return {};
        const double calls = calls_tile_ > 0 && calls_of_ ? held(calls_of_, s) / calls_tile_ : 0.0;
        SiteWork w;
        w.compute = calls * call_seconds_;
        switch (kind_) {
            case Kind::Passes:
                w.memory = pass(held(pass_in_, s) * in_read_ + held(pass_out_, s));
                break;
            case Kind::ElementwiseJoin:
                w.memory = pass(calls * call_bytes_);
                break;
            case Kind::Product:
                w.compute += calls * product_seconds_;
                if (pass_out_) w.memory = pass(held(pass_out_, s));
                w.memory += calls * permute_seconds_;
                break;
            case Kind::None:
                break;
        }
        return w;
    }

    // The first site whose work is greatest, as an operator's busiest site. The beam asks it of
    // one costed node in every partial plan that places it alike (per_site_memo.hpp).
    OperatorTime busiest(std::size_t sites) const {
        thread_local PerSiteMemo<3, 10, OperatorTime> memo;
        const decltype(memo)::ArrayRefs arrays = {calls_of_, pass_in_, pass_out_};
        const decltype(memo)::ScalarValues scalars = {static_cast<double>(kind_),
                                                      calls_tile_,
                                                      call_seconds_,
                                                      memory_rate_,
                                                      call_bytes_,
                                                      product_seconds_,
                                                      permute_seconds_,
                                                      pass_out_ == calls_of_ ? 1.0 : 0.0,
                                                      in_read_,
                                                      static_cast<double>(sites)};
        if (const OperatorTime* known = memo.find(arrays, scalars)) return *known;
        const OperatorTime result = work_out_busiest(sites);
        memo.add(arrays, scalars, result);
        return result;
    }

  private:
    OperatorTime work_out_busiest(std::size_t sites) const {
        // Where the work grows with one per-site figure (a join's calls: its overheads,
        // products and passes), no site after the first holding the largest figure can do
        // more than that one: only the sites up to it are asked. At 1024 sites this loop was
        // most of the time model's work while planning.
        std::size_t last = sites;
        if (const PerSite* x = grows_with(); x && x->size() >= sites && sites > 0) {
            std::size_t top = 0;
            for (std::size_t s = 1; s < sites; ++s)
                if ((*x)[s] > (*x)[top]) top = s;
            last = top + 1;
        }
        OperatorTime best;
        for (std::size_t s = 0; s < last; ++s) {
            OperatorTime here;
            here.busiest = static_cast<Site>(s);
            const SiteWork w = at(s);
            here.compute = w.compute;
            here.memory = w.memory;
            if (s == 0 || here.seconds() > best.seconds()) best = here;
        }
        return best;
    }

    // The per-site figure the work is a non-decreasing function of, if there is one: a join's
    // calls, when its products are written to the same tiles they count (or not at all) and
    // every rate is non-negative.
    const PerSite* grows_with() const {
        const bool nonnegative = calls_tile_ > 0 && call_seconds_ >= 0 && memory_rate_ > 0 &&
                                 call_bytes_ >= 0 && product_seconds_ >= 0 && permute_seconds_ >= 0;
        if (!calls_of_ || !nonnegative) return nullptr;
        if (kind_ == Kind::ElementwiseJoin) return calls_of_;
        if (kind_ == Kind::Product && (!pass_out_ || pass_out_ == calls_of_)) return calls_of_;
        return nullptr;
    }

    static double held(const PerSite* per_site, std::size_t s) {
        return per_site ? static_cast<double>(figure_at(*per_site, s)) : 0.0;
    }
    double pass(double bytes) const { return bytes / memory_rate_; }

    Kind kind_ = Kind::None;
    const PerSite* calls_of_ = nullptr;  // resident bytes: one call per tuple
    double calls_tile_ = 0;
    double call_seconds_ = 0, memory_rate_ = 1;
    const PerSite *pass_in_ = nullptr, *pass_out_ = nullptr;
    double call_bytes_ = 0, product_seconds_ = 0, permute_seconds_ = 0, in_read_ = 1;
};

// The work of every kind of node but enforcers.
class LocalWork {
  public:
    // The nodes from `first` on: a join's fusion with its reader and an aggregate's with its
    // join are all of fused_joins they ask.
    LocalWork(const Plan& plan, const TimeModel& model, IaNodeId first)
        : plan_(plan),
          profile_(model.profile),
          pricing_(model.profile),
          fused_(fused_joins(plan, first)) {}

    NodeWork of(const IaNode& n) const {
        using Kind = NodeWork::Kind;
        const OperatorSpec& spec = operator_spec(n.op);
        if (spec.joins) return join(n);
        if (spec.group_by != nullptr) return aggregate(n);
        if (n.op == IaOp::Map && !n.logical && n.replicated && n.inputs.size() == 1)
            // A replication map: every copy owns its tile (runtime/replication_map.hpp), so it
            // reads its input tiles and writes each copy.
            return NodeWork(Kind::Passes, nullptr, 0, profile_)
                .passes(&resident(n.inputs[0]), &n.cost.resident);
        if (!n.logical || n.inputs.size() != 1) return {};
        const bool transform = std::holds_alternative<TransformOp>(*n.logical);
        if (!transform && !std::holds_alternative<TileOp>(*n.logical) &&
            !std::holds_alternative<FillOp>(*n.logical))
            return {};
        // A transform, a cut or a fill reads its input tiles (a transform's kernel may read
        // less: Kernel::bytes_read) and writes its output tiles.
        const double in_tile = tile_bytes_of(plan_, n.inputs[0]);
        double in_read = 1;
        if (transform && in_tile > 0) {
            const RelationType& in = plan_.relation(n.inputs[0]).type;
            const Shape shapes[] = {in.bound};
            const auto element = static_cast<std::int64_t>(size_of(in.dtype));
            const kernels::KernelCall& kernel = std::get<TransformOp>(*n.logical).kernel;
            if (const auto bytes = kernel.bytes_read(shapes, element))
                in_read = std::min(1.0, static_cast<double>(*bytes) / in_tile);
        }
        return NodeWork(Kind::Passes, &resident(n.inputs[0]), in_tile, profile_)
            .passes(&resident(n.inputs[0]), &n.cost.resident, in_read);
    }

  private:
    const PerSite& resident(IaNodeId id) const { return plan_.node(id).cost.resident; }

    NodeWork join(const IaNode& n) const {
        using Kind = NodeWork::Kind;
        const auto* op = n.logical ? std::get_if<JoinOp>(&*n.logical) : nullptr;
        if (!op) return {};
        const Shape shapes[] = {plan_.relation(n.inputs[0]).type.bound,
                                plan_.relation(n.inputs[1]).type.bound};
        const double tile = tile_bytes_of(plan_, n.id);
        const double operand_bytes =
            tile_bytes_of(plan_, n.inputs[0]) + tile_bytes_of(plan_, n.inputs[1]) + tile;
        const double per_call = op->kernel.name() == "einsum" && profile_.einsum_call_seconds > 0
                                    ? profile_.einsum_call_seconds
                                    : profile_.kernel_call_seconds;
        if (op->kernel.flops(shapes) == 0)  // element-wise
            return NodeWork(Kind::ElementwiseJoin, &n.cost.resident, tile, profile_)
                .call_bytes(operand_bytes)
                .call_seconds(per_call);
        const DType dtype = plan_.relation(n.id).type.dtype;
        // The kernel's own GEMM plan (gemm_pricing.hpp): lanes or BLAS, and for TTGT each
        // operand or result it permutes read and written once more.
        const std::optional<kernels::cpu::GemmPlan> gemm =
            einsum_gemm_plan(op->kernel, shapes, pricing_, dtype);
        const double permutes = gemm ? pricing_.permute_seconds(*gemm, dtype) : 0.0;
        return NodeWork(Kind::Product, &n.cost.resident, tile, profile_)
            .call_seconds(per_call)
            .product(
                product_seconds(op->kernel, shapes, dtype, operand_bytes, pricing_, profile_, gemm),
                permutes,
                fused_[n.id] ? nullptr : &n.cost.resident);  // the products written
    }

    NodeWork aggregate(const IaNode& n) const {
        if (n.inputs.size() != 1) return {};
        const IaNodeId in = n.inputs[0];
        // Fused with its join, the products were added as the join's calls made them: no call
        // or pass of its own.
        if (fused_[in]) return {};
        return NodeWork(NodeWork::Kind::Passes, &resident(in), tile_bytes_of(plan_, in), profile_)
            .passes(&resident(in), &n.cost.resident);
    }

    const Plan& plan_;
    const MachineProfile& profile_;
    const ProfileGemmPricing pricing_;
    std::vector<std::optional<IaNodeId>> fused_;
};

}  // namespace

double kept_copy_seconds(const PerSite& resident, const PerSite& arrived,
                         const MachineProfile& profile, std::size_t sites) {
    double most = 0;
    for (std::size_t s = 0; s < sites; ++s)
        most = std::max(most, static_cast<double>(figure_at(resident, s) - figure_at(arrived, s)));
    return 2 * most / profile.memory_bytes_per_second;
}

double kept_copy_seconds(const IaNode& n, const MachineProfile& profile, std::size_t sites) {
    return kept_copy_seconds(n.cost.resident, n.cost.transfer.received_payload, profile, sites);
}

std::vector<int> TimeModel::blocked_hosts(int sites, int sites_per_host) {
    std::vector<int> hosts(static_cast<std::size_t>(std::max(sites, 0)));
    const int per = std::max(sites_per_host, 1);
    for (int s = 0; s < sites; ++s) hosts[static_cast<std::size_t>(s)] = s / per;
    return hosts;
}

std::vector<OperatorTime> operator_times(const Plan& plan, const TimeModel& model, IaNodeId first) {
    const LocalWork local(plan, model, first);
    const auto sites = static_cast<std::size_t>(plan.sites());
    const ExchangeTime exchange(model, sites);
    // Which inputs are read again after their enforcer: known in a whole plan only (a partial
    // plan's later readers are not placed yet; the search's beam decides by the program).
    const std::vector<IaNodeId> last = first == 0 ? last_uses(plan) : std::vector<IaNodeId>{};
    std::vector<OperatorTime> out;
    for (IaNodeId id = first; id < plan.size(); ++id) {
        const IaNode& n = plan.node(id);
        OperatorTime busiest;
        if (is_enforcer(n.op)) {
            const auto [site, seconds] = exchange.slowest(n.cost.transfer);
            busiest.busiest = static_cast<Site>(site);
            busiest.communication = seconds;
            if (!last.empty() && n.inputs.size() == 1 && last[n.inputs[0]] != n.id)
                busiest.memory = kept_copy_seconds(n, model.profile, sites);
            busiest.fixed = model.profile.exchange_fixed_seconds();
            out.push_back(busiest);
            continue;
        }
        out.push_back(local.of(n).busiest(sites));
        out.back().fixed = model.profile.operator_seconds;
    }
    return out;
}

std::vector<double> carry_seconds(const Plan& plan, const TimeModel& model) {
    const auto sites = static_cast<std::size_t>(plan.sites());
    const ExchangeTime exchange(model, sites);
    std::vector<double> out;
    // Each move is one exchange operator of the run ("carry" in its report), whatever it moves.
    const std::vector<CarryMove> moves = carry_moves(plan);
    for (std::size_t j = 0; j < moves.size(); ++j) {
        const CarryMove& m = moves[j];
        double seconds =
            exchange.slowest(m.transfer).second + model.profile.exchange_fixed_seconds();
        if (copies_kept_tuples(plan, moves, j))
            seconds += kept_copy_seconds(plan.node(m.input).cost.resident,
                                         m.transfer.received_payload, model.profile, sites);
        out.push_back(seconds);
    }
    return out;
}

double compute_lower_bound(const Program& program, const TimeModel& model, int sites) {
    double total = 0;
    for (const Node& n : program.nodes) {
        const auto* op = std::get_if<JoinOp>(&n.op);
        if (!op || !n.needed) continue;
        const Shape shapes[] = {program.node(n.inputs[0]).type.bound,
                                program.node(n.inputs[1]).type.bound};
        const double calls = static_cast<double>(n.tuples());
        double per_call = model.profile.kernel_call_seconds;
        if (op->kernel.flops(shapes) > 0) {
            const auto bytes = [&](const Node& r) {
                return static_cast<double>(r.type.bound.product()) *
                       static_cast<double>(size_of(r.type.dtype));
            };
            const ProfileGemmPricing pricing(model.profile);
            per_call += product_seconds(
                op->kernel, shapes, n.type.dtype,
                bytes(program.node(n.inputs[0])) + bytes(program.node(n.inputs[1])) + bytes(n),
                pricing, model.profile,
                einsum_gemm_plan(op->kernel, shapes, pricing, n.type.dtype));
        }
        total += calls * per_call;
    }
    return total / std::max(sites, 1);
}

double estimated_seconds(const Plan& plan, const TimeModel& model, IaNodeId first) {
    double seconds = 0;
    if (first == 0)
        for (double s : carry_seconds(plan, model)) seconds += s;
    for (const OperatorTime& t : operator_times(plan, model, first)) seconds += t.seconds();
    return seconds;
}

}  // namespace tra::ia
