#pragma once
// Measures tra's own kernels, called through the registry (KernelCall) exactly as the runtime
// calls them, for `tra calibrate` (docs/machine-profile.md): matmul on square tiles and on thin
// and flat ones, einsum's loop path and its lanes product, an element-wise pass and the fixed
// cost of one call. The
// runtime runs these on every rank at once, so each figure is what one rank gets while the others
// work alike.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernels/einsum_gemm.hpp"

namespace tra::kernels {

// An m x k by k x n product as a join makes it: its calls take `left_tiles` left and
// `right_tiles` right operands in turn (a join streams the tiles of its inputs, and operands out
// of the caches make products slower), and sum `group` products in a row into one tile (a fused
// join+sum's group; 1: none are).
struct GemmShape {
    std::int64_t m = 0, n = 0, k = 0;
    std::int64_t left_tiles = 1, right_tiles = 1;
    std::int64_t group = 1;
};

struct KernelCalibrationSettings {
    std::vector<std::int64_t> gemm_sizes;  // square matmul tiles, ascending
    // Thin matmuls: m, n and k in turn `thin_short`, the other two `thin_long` (32 x 512: the
    // long operand is 2 MiB of f64, tile-sized). Each call takes operands of its own, at least
    // `thin_operand_bytes` of them in all (more than the caches hold), as a join's calls do:
    // operands in cache make thin products look several times cheaper than they run.
    std::int64_t thin_long = 0, thin_short = 0, thin_operand_bytes = 0;
    // Matmuls measured at their own shapes, per dtype (`tra calibrate --for`: the products a
    // workflow makes), each timed for at least `shape_seconds` as a join makes them: on the
    // shape's tiles taken in turn (at most kMaxShapeSets of each side, and at most
    // kMaxShapeBytes of them), the products summed in groups.
    std::vector<GemmShape> f64_shapes, f32_shapes;
    double shape_seconds = 0;
    std::int64_t loop_extent = 0;    // max-plus "ikb,kjb->ijb": i = j = k = this, b = 4
    std::int64_t lanes_extent = 0;   // "ikb,kjb->ijb" products: i = j = k = this,
                                     // b = kCalibrationLanes (the lanes product); and
                                     // the permute's tiles, [this, this, b], streamed
                                     // as the thin products' operands are
    std::int64_t stream_extent = 0;  // `add` on [extent, extent] f64 tiles
    double min_seconds = 0;          // each figure is timed for at least this long
    int min_samples = 0;             // and over at least this many timed batches (odd,
                                     // so the median is one of them)

    // What `tra calibrate` uses: sizes 16 to 2048, thin 32 x 512 over 64 MiB of operands, lanes
    // products of 256^3, 0.3 s per figure, 0.1 s per shape; no shapes.
    static KernelCalibrationSettings full();
    // `--quick`: sizes 16 to 512, thin as full(), a smaller loop and lanes products of 128^3,
    // 0.05 s per figure, 0.02 s per shape (about a second in all).
    static KernelCalibrationSettings quick();

    // These settings with the working sets that must stream from memory (the thin products'
    // operands, the element-wise pass's three tiles) grown where needed so that the
    // `ranks_on_host` ranks, calibrating at once, stream at least twice the host's last-level
    // cache (`cache_bytes`, cache_size.hpp; 0: unknown) between them: 64 MiB is more than the
    // caches of a desktop but fits those of many servers. At most kMaxStreamedBytes per rank.
    KernelCalibrationSettings beyond_cache(std::int64_t cache_bytes, int ranks_on_host) const;
};

// The lanes the lanes-product figure is measured on: 16 fill two AVX2 vectors of f32 and four
// of f64, between the 8 where it starts to pay and the 64 of wide batches.
inline constexpr std::int64_t kCalibrationLanes = 16;
// The lane counts the lanes product is also measured at (the model interpolates between them):
// one vector of f64 lanes per cache line, kCalibrationLanes, wide batches, where packing reads
// one cache line in eight of every position, and many small matrices (256 and 1024 lanes),
// where each position's lanes lie KiBs apart and the rate falls by half and more (one EPYC
// core, f64: 39, 23 and 13 GFLOP/s at 64, 256 and 1024 lanes, alike for extents 32 to 256).
// Beyond 64 lanes the extent shrinks so that each operand holds as many elements as at 64
// (lanes_extent_for).
inline constexpr std::int64_t kCalibrationLaneCounts[] = {8, kCalibrationLanes, 64, 256, 1024};

// The extent i = j = k of the calibration's lanes product on `lanes` lanes: `extent` up to 64
// lanes, beyond them the one whose operands hold as many elements as 64 lanes of `extent` (at
// least 8, at most `extent`): 1024 lanes of 256^2 would take 1.5 GiB.
std::int64_t lanes_extent_for(std::int64_t lanes, std::int64_t extent);

// The most operand sets, and bytes of them, a shape of KernelCalibrationSettings::f64_shapes or
// f32_shapes is timed on: beyond a few dozen tiles and a few hundred MiB, operands come from
// memory however many more there are.
inline constexpr std::int64_t kMaxShapeSets = 64;
inline constexpr std::int64_t kMaxShapeBytes = std::int64_t{256} << 20;

// The most bytes one working set of beyond_cache takes per rank.
inline constexpr std::int64_t kMaxStreamedBytes = std::int64_t{1} << 30;

struct GemmPoint {
    std::int64_t size = 0;
    double flops_per_second = 0;
};

// A matmul of [m, k] by [k, n] tiles: the seconds a call takes beyond a square matmul of the
// same flops (side: the cube root of m*n*k, rounded; its seconds scaled to the exact flops), the
// two timed in alternation; negative where the thin call was the faster.
struct ThinGemmPoint {
    std::int64_t m = 0, n = 0, k = 0;
    double excess_seconds = 0;
};

struct GemmShapePoint {
    std::int64_t m = 0, n = 0, k = 0;
    double flops_per_second = 0;
};

struct DtypeKernelRates {
    std::vector<GemmPoint> gemm;  // one per KernelCalibrationSettings::gemm_sizes
    // One per shape of KernelCalibrationSettings::f64_shapes or f32_shapes, in their order.
    std::vector<GemmShapePoint> gemm_shapes;
    std::vector<ThinGemmPoint> thin_gemm;  // m, n, k short in turn
    double loop_flops_per_second = 0;
    double lanes_flops_per_second = 0;      // batch labels innermost: the lanes product
    std::vector<GemmPoint> lanes_by_count;  // the same at each of kCalibrationLaneCounts (size:
                                            // the lanes)
};

// What TTGT pays to move a batch label out of the way of BLAS, as it costs inside TTGT: f64
// `ikb,kjb->ijb` on [n, n, 16] tiles (n = lanes_extent) run by its BLAS plan (A and B permuted
// to [16, n, n], the product permuted back), whose permutes' rate is what the product takes
// beyond its gemms as the time model prices them: ia::ttgt_permute_rate, where the profile's
// gemm rates are known (MachineProfile::permute_bytes_per_second).
struct TtgtFigures {
    cpu::GemmPlan plan;                // the plan the einsum kernel ran
    double seconds = 0;                // one call by that plan, on tile pairs taken in turn
    double lone_bytes_per_second = 0;  // read plus written by `ijb->bij` and back alone, on
                                       // tiles taken in turn
};

struct KernelRates {
    DtypeKernelRates f32, f64;
    double memory_bytes_per_second = 0;  // (2 reads + 1 write) x tile bytes / seconds of `add`
    TtgtFigures ttgt;
    double kernel_call_seconds = 0;  // one `add` call on 1 x 1 tiles
};

// Called before each figure with what it measures ("matmul f64 256"); the runtime uses it to
// line the ranks up (a barrier) and to print progress. May be empty.
using BeforeMeasurement = std::function<void(const std::string& what)>;

// Measures every figure in turn. Each is the median over timed batches of calls (a batch repeats
// the call until it takes min_seconds / min_samples), after one untimed warm-up call that also
// maps the output's pages. Flops come from the kernel's own count (KernelCall::flops); rates are
// net of kernel_call_seconds (measured first), which the time model charges each call apart. Throws
// Error (Failed) when a kernel fails, e.g. out of memory.
KernelRates calibrate_kernels(const KernelCalibrationSettings& settings,
                              const BeforeMeasurement& before = {});

}  // namespace tra::kernels
