#include "runtime/machine_calibration.hpp"

#include <algorithm>
#include <chrono>
#include <tuple>
#include <vector>

#include "core/dtype.hpp"
#include "core/host_mappings.hpp"
#include "ia/gemm_pricing.hpp"
#include "kernels/blas_threads.hpp"
#include "kernels/cache_size.hpp"
#include "kernels/kernel_calibration.hpp"
#include "runtime/link_calibration.hpp"
#include "runtime/operator_calibration.hpp"
#include "runtime/polite_barrier.hpp"

namespace tra::runtime {

namespace {

// Profiles need positive rates; a figure below a clock tick still stays positive.
double positive(double v) {
    return std::max(v, 1e-12);
}

// The kernel figures of one rank as a flat list in which lower is slower for every entry (call
// and excess seconds negated), so one MPI_MIN keeps each figure's slowest rank.
std::vector<double> flatten(const kernels::KernelRates& r) {
    std::vector<double> v;
    for (const kernels::DtypeKernelRates* d : {&r.f64, &r.f32}) {
        for (const kernels::GemmPoint& g : d->gemm) v.push_back(g.flops_per_second);
        for (const kernels::GemmShapePoint& g : d->gemm_shapes) v.push_back(g.flops_per_second);
        for (const kernels::ThinGemmPoint& g : d->thin_gemm) v.push_back(-g.excess_seconds);
        v.push_back(d->loop_flops_per_second);
        v.push_back(d->lanes_flops_per_second);
        for (const kernels::GemmPoint& l : d->lanes_by_count) v.push_back(l.flops_per_second);
    }
    v.push_back(r.memory_bytes_per_second);
    v.push_back(-r.ttgt.seconds);
    v.push_back(r.ttgt.lone_bytes_per_second);
    v.push_back(-r.kernel_call_seconds);
    return v;
}

// The inverse of flatten, into `profile` (its blas_threads set); `shape` gives the gemm sizes.
// The thin gemms' rates become the rates of their excess bytes (ia::fitted_gemm_excess_rates),
// and TTGT's seconds the permute rate, by the gemm rates just set (ia::ttgt_permute_rate).
void unflatten(const std::vector<double>& v, const kernels::KernelRates& shape,
               ia::MachineProfile& profile) {
    std::size_t i = 0;
    for (auto [from, to, dtype] : {std::tuple{&shape.f64, &profile.f64, DType::F64},
                                   {&shape.f32, &profile.f32, DType::F32}}) {
        to->gemm.clear();
        for (const kernels::GemmPoint& g : from->gemm)
            to->gemm.push_back({g.size, positive(v[i++])});
        std::vector<ia::GemmShapeRate> shapes;
        for (const kernels::GemmShapePoint& g : from->gemm_shapes)
            shapes.push_back({g.m, g.n, g.k, positive(v[i++])});
        to->gemm_shapes = ia::GemmShapeRates(std::move(shapes));
        std::vector<ia::GemmSample> thin;
        for (const kernels::ThinGemmPoint& g : from->thin_gemm)
            thin.push_back({g.m, g.n, g.k, -v[i++]});
        const ia::GemmExcessRates excess =
            ia::fitted_gemm_excess_rates(thin, static_cast<double>(size_of(dtype)));
        to->gemm_operand_excess_bytes_per_second = positive(excess.operand_bytes_per_second);
        to->gemm_result_excess_bytes_per_second = positive(excess.result_bytes_per_second);
        to->loop_flops_per_second = positive(v[i++]);
        to->lanes_flops_per_second = positive(v[i++]);
        to->lanes_by_count.clear();
        for (const kernels::GemmPoint& l : from->lanes_by_count)
            to->lanes_by_count.push_back({l.size, positive(v[i++])});
    }
    profile.memory_bytes_per_second = positive(v[i++]);
    kernels::TtgtFigures ttgt = shape.ttgt;
    ttgt.seconds = -v[i++];
    ttgt.lone_bytes_per_second = positive(v[i++]);
    profile.permute_bytes_per_second = positive(ia::ttgt_permute_rate(profile, ttgt));
    profile.kernel_call_seconds = positive(-v[i++]);
}

// Bytes per second of fresh memory taken and touched the way a run reserves its tiles
// (host_mappings::reserve of mappings for 8 MiB tiles, every page prefaulted), from an empty
// cache, which is emptied again after.
double first_touch_rate(std::size_t bytes) {
    const std::size_t length = host_mappings::length_for(std::size_t{8} << 20);
    const std::vector<std::size_t> lengths(std::max<std::size_t>(1, bytes / length), length);
    host_mappings::trim();
    const auto start = std::chrono::steady_clock::now();
    const std::size_t got = host_mappings::reserve(lengths);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    host_mappings::trim();
    return positive(static_cast<double>(got) / std::max(seconds, 1e-9));
}

ia::LinkRates link(MPI_Comm comm, std::optional<std::pair<int, int>> pair,
                   const ia::LinkRates& fallback, const LinkCalibrationSettings& settings,
                   const MachineCalibrationOptions& options, int me, const std::string& what) {
    if (!pair) return {false, fallback.latency_seconds, fallback.bytes_per_second};
    if (me == 0 && options.progress)
        options.progress("ping-pong " + what + ": ranks " + std::to_string(pair->first) + " and " +
                         std::to_string(pair->second));
    ia::LinkRates r = measure_link(comm, pair->first, pair->second, settings);
    r.latency_seconds = positive(r.latency_seconds);
    r.bytes_per_second = positive(r.bytes_per_second);
    r.duplex_bytes_per_second = positive(r.duplex_bytes_per_second);
    return r;
}

}  // namespace

ia::MachineProfile calibrate_machine(MPI_Comm comm, const HostLayout& layout,
                                     const MachineCalibrationOptions& options) {
    int me = 0, size = 1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);

    // First, while this process has taken no memory yet, as a run's reservation comes first:
    // every rank at once, as a run's ranks reserve their tiles together; the slowest rank's.
    polite_barrier(comm);
    if (me == 0 && options.progress) options.progress("first touch of fresh memory");
    double touch = first_touch_rate(options.quick ? std::size_t{32} << 20 : std::size_t{256} << 20);
    MPI_Allreduce(MPI_IN_PLACE, &touch, 1, MPI_DOUBLE, MPI_MIN, comm);

    const Host& host = layout.mine();
    const std::int64_t cache =
        kernels::host_last_level_cache_bytes(static_cast<unsigned>(host.cores));
    auto settings = (options.quick ? kernels::KernelCalibrationSettings::quick()
                                   : kernels::KernelCalibrationSettings::full())
                        .beyond_cache(cache, static_cast<int>(host.ranks.size()));
    settings.f64_shapes = options.f64_shapes;
    settings.f32_shapes = options.f32_shapes;
    if (me == 0 && options.progress)  // printed after "measuring "
        options.progress("streams of " + std::to_string(settings.thin_operand_bytes >> 20) +
                         " MiB per rank, beyond the host's last-level cache (" +
                         (cache > 0 ? std::to_string(cache >> 20) + " MiB" : "size unknown") + ")");
    const kernels::KernelRates mine =
        kernels::calibrate_kernels(settings, [&](const std::string& what) {
            polite_barrier(comm);  // every rank starts the figure together, so all are busy
            if (me == 0 && options.progress) options.progress(what);
        });
    std::vector<double> figures = flatten(mine);
    MPI_Allreduce(MPI_IN_PLACE, figures.data(), static_cast<int>(figures.size()), MPI_DOUBLE,
                  MPI_MIN, comm);

    ia::MachineProfile p;
    p.name = options.name;
    p.blas_core = kernels::blas_core_name();
    p.blas_threads = options.blas_threads;
    p.ranks = size;
    unflatten(figures, mine, p);
    p.first_touch_bytes_per_second = touch;

    if (me == 0 && options.progress)
        options.progress("loops of joins of 4 x 4 tiles on every rank (the runtime's own cost)");
    const OperatorCosts costs =
        operator_costs(comm, options.quick ? OperatorCalibrationSettings::quick()
                                           : OperatorCalibrationSettings::full());
    p.operator_seconds = positive(costs.operator_seconds);
    if (costs.exchange_seconds > 0) p.exchange_seconds = positive(costs.exchange_seconds);
    // A kernel call as a run makes it: the runtime's work per tile holds the call's own cost
    // (the kernels' figure, kept where it is the larger).
    p.kernel_call_seconds = std::max(p.kernel_call_seconds, costs.tile_seconds);
    p.einsum_call_seconds = positive(std::max(p.kernel_call_seconds, costs.einsum_tile_seconds));

    const auto links =
        options.quick ? LinkCalibrationSettings::quick() : LinkCalibrationSettings::full();
    const ia::MachineProfile& fallback = ia::default_machine_profile();
    p.same_host =
        link(comm, same_host_pair(layout), fallback.same_host, links, options, me, "on one host");
    p.across_hosts = link(comm, across_hosts_pair(layout), fallback.across_hosts, links, options,
                          me, "across hosts");

    // The runtime's own cost per message: what a moving carry takes beyond the links' price.
    if (size > 1) {
        if (me == 0 && options.progress)
            options.progress("a loop whose carry sends every rank's tile to every other rank");
        const double per_message =
            message_seconds(comm, p, layout.host_of_rank(size),
                            options.quick ? OperatorCalibrationSettings::quick()
                                          : OperatorCalibrationSettings::full());
        if (per_message > 0) p.message_seconds = positive(per_message);
    }
    p.source = "";
    p.content_hash = "";
    return p;
}

}  // namespace tra::runtime
