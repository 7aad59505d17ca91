#pragma once
// What the time model (ia/time_estimate.hpp) knows of a machine: rates `tra calibrate` measured
// on it, stored as YAML `format: tra-machine/1` (docs/machine-profile.md; read and written by
// lib/workflow/machine_profile_file.hpp). Without a profile the built-in default below is used.
//
// Every rate is per rank: what one rank achieves while the others run alike (calibrate measures
// with all its ranks busy), because the model charges each operator its busiest rank.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "ia/gemm_shape_rates.hpp"

namespace tra::ia {

// A gemm rate measured on square calls: m = n = k = size, 2 * size^3 flops per call.
struct GemmRate {
    std::int64_t size = 0;
    double flops_per_second = 0;
};

struct LanesRate {
    std::int64_t lanes = 0;
    double flops_per_second = 0;
};

struct DtypeRates {
    std::vector<GemmRate> gemm;        // ascending, distinct sizes; at least one
    double loop_flops_per_second = 0;  // contractions that do not run as gemm (einsum's loop)
    // Products whose batch labels run as SIMD lanes (kernels/lanes_gemm.hpp), measured on 16
    // lanes; 0: not measured (profiles before it, the built-in default), such products are
    // priced as the BLAS calls of the same geometry, and plans choose by fewest elements permuted.
    double lanes_flops_per_second = 0;
    // The lanes product at several lane counts (calibrate: 8, 16 and 64), ascending and distinct:
    // its rate falls as lanes grow (each lane group packs one cache line of every position, 64
    // lanes of f64 are eight such lines apart: 48 -> 30 GFLOP/s from 8 to 64 lanes on one Xeon
    // core). Empty: every lane count at lanes_flops_per_second (profiles before it).
    std::vector<LanesRate> lanes_by_count;
    // What makes a thin or flat product slower than a square one of the same flops: the elements
    // it has beyond a square call's (gemm_excess below) cost time on top of its flops, those of
    // its operands (packed and streamed by BLAS, each reused fewer times) at the first rate and
    // those of its result (read and written once per pass over k) at the second. 0: not charged
    // (profiles made in code, e.g. by tests).
    double gemm_operand_excess_bytes_per_second = 0;
    double gemm_result_excess_bytes_per_second = 0;
    // Rates measured at exact call shapes (`tra calibrate --for`): a BLAS call of a measured
    // shape is priced by its rate alone, others by the square rates and excess rates above.
    GemmShapeRates gemm_shapes;

    // The rate of one gemm call of `flops_per_call` flops: its size is the cube root of
    // flops / 2, and the rate is interpolated linearly in log(size) between the measured sizes,
    // constant beyond the smallest and the largest.
    double gemm_flops_per_second(double flops_per_call) const;
    // The lanes product's rate on `lanes` lanes: interpolated linearly in log(lanes) between the
    // counts of lanes_by_count, constant beyond its ends; lanes_flops_per_second where that is
    // empty (0: not measured).
    double lanes_flops_per_second_at(std::int64_t lanes) const;
    // What one m x k by k x n gemm call with elements of `element_bytes` takes beyond its flops
    // at gemm_flops_per_second: its excess operand and result bytes at their rates; 0 for
    // square calls, and where a rate is 0.
    double gemm_excess_seconds(std::int64_t m, std::int64_t n, std::int64_t k,
                               double element_bytes) const;
};

// The elements of an m x k by k x n product beyond those of the square product of the same
// flops (side s = cube root of m*n*k): its operands' m*k + k*n beyond 2 s^2, its result's m*n
// beyond s^2; each 0 where not beyond, so both are 0 for a square call.
struct GemmExcess {
    double operand_elements = 0, result_elements = 0;
};
GemmExcess gemm_excess(std::int64_t m, std::int64_t n, std::int64_t k);

// A gemm call measured on thin or flat tiles (m x k by k x n), for fitting the excess rates: the
// seconds it took beyond a square call of the same flops (kernels::ThinGemmPoint).
struct GemmSample {
    std::int64_t m = 0, n = 0, k = 0;
    double excess_seconds = 0;
};

// The excess rates that explain `samples` best: least squares of their excess seconds over their
// excess operand and result bytes (rates not negative). calibrate measures samples with only one
// kind of excess each (m, n or k short), so each rate is that kind's bytes over its seconds.
// A kind with no bytes in the samples, or whose samples took no longer than square calls (a BLAS
// indifferent to shape), gets kNoGemmExcess, a rate that charges nothing measurable.
struct GemmExcessRates {
    double operand_bytes_per_second = 0, result_bytes_per_second = 0;
};
GemmExcessRates fitted_gemm_excess_rates(std::span<const GemmSample> samples, double element_bytes);
inline constexpr double kNoGemmExcess = 1e15;

// Point-to-point messages between two ranks: a message of b bytes takes
// latency_seconds + b / bytes_per_second on each side. While the two ranks send to each other
// at once, each direction runs at duplex_bytes_per_second: Open MPI's shared memory copies a
// message in and out on both ranks, so a rank sending and receiving copies twice (half the
// rate); a network link carries both directions at once (near the one-way rate) but not always.
struct LinkRates {
    bool measured = false;  // false: not measured here; the model uses the default's rates
    double latency_seconds = 0;
    double bytes_per_second = 0;
    double duplex_bytes_per_second = 0;  // 0: not measured: both directions at bytes_per_second

    double duplex_rate() const {
        return duplex_bytes_per_second > 0 ? duplex_bytes_per_second : bytes_per_second;
    }
};

struct MachineProfile {
    std::string name;       // what the profile calls itself ("built-in default", a host name)
    std::string blas_core;  // OpenBLAS core it was measured with ("Haswell"); "" when unknown
    int blas_threads = 1;   // OpenBLAS threads per rank it was measured with
    int ranks = 1;          // ranks that ran at once while measuring
    DtypeRates f32, f64;
    double memory_bytes_per_second = 0;  // bytes read plus written by element-wise passes
    // Bytes read plus written by a permute moving a batch label from innermost to outermost (the
    // einsum's TTGT permutes): strided, so slower than a pass. 0: not measured (profiles before
    // it, the built-in default): memory_bytes_per_second.
    double permute_bytes_per_second = 0;
    double kernel_call_seconds = 0;  // fixed cost of one kernel call on one tile
    // The same for a call of the einsum kernel (every `einsum:` step's joins: the spec and GEMM
    // plan looked up, the generic loop or BLAS set up), which costs about twice an `add` call on
    // tiny tiles. 0: not measured (older profiles, the built-in default): kernel_call_seconds.
    double einsum_call_seconds = 0;
    // The runtime's fixed cost of one operator, whatever it computes: the ranks' agreement that
    // ends it (runtime/operator_calibration.hpp). 0: not measured (profiles before it, the
    // built-in default): not charged.
    double operator_seconds = 0;
    // The runtime's fixed cost of an exchange operator (an enforcer, a loop's carry move) beside
    // its messages: the ranks' agreement on its lists, its messages' set-up and wait
    // (runtime/operator_calibration.hpp). 0: not measured: an exchange pays operator_seconds.
    double exchange_seconds = 0;
    // The runtime's own cost per message of an exchange beside its link's latency (laying it
    // out, posting it, waiting for it, checking it; runtime/operator_calibration.hpp), on either
    // link. 0: not measured (one rank, older profiles, the built-in default): not charged.
    double message_seconds = 0;
    // What an exchange operator pays whatever it moves.
    double exchange_fixed_seconds() const {
        return exchange_seconds > 0 ? exchange_seconds : operator_seconds;
    }
    // Fresh memory taken and touched (the run's tile reservation before its first operator,
    // runtime/tile_reservation.hpp): on a VM the hypervisor backs each page on first touch.
    double first_touch_bytes_per_second = 0;
    LinkRates same_host;     // between ranks on one host (shared memory)
    LinkRates across_hosts;  // between ranks on different hosts (the network)

    // Where it came from: a file's path, or "built-in"; and the content hash of that file
    // (core/content_hash.hpp), or of the built-in's canonical text. Plan files record both.
    std::string source = "built-in";
    std::string content_hash;

    const DtypeRates& rates(DType dtype) const { return dtype == DType::F32 ? f32 : f64; }
    double permute_rate() const {
        return permute_bytes_per_second > 0 ? permute_bytes_per_second : memory_bytes_per_second;
    }
    // across_hosts when measured, otherwise the built-in default's across-host rates.
    const LinkRates& across_hosts_or_default() const;
};

// The built-in default: one core of the development machine (OpenBLAS, one thread) and two
// ranks on it, Open MPI's shared memory between them; across hosts a 10 Gbit/s network. Its
// content_hash is left empty here (the canonical text lives in lib/workflow).
const MachineProfile& default_machine_profile();

}  // namespace tra::ia
