#include "runtime/operator_calibration.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "ia/initial_plan.hpp"
#include "ia/loop_carry.hpp"
#include "ia/plan_costs.hpp"
#include "ia/time_estimate.hpp"
#include "runtime/executor.hpp"
#include "tra/program_builder.hpp"

namespace tra::runtime {

namespace {

// Tiles per rank of the second loop: enough that their cost stands out of the first's noise.
constexpr int kManyTiles = 8;
constexpr std::int64_t kTile = 4;  // tiles of 4 x 4: the kernel's arithmetic is nothing

// X: `tiles_per_rank` tiles of kTile x kTile per rank, keys (i, 0), on every rank (replicated,
// so no join moves anything); x0 = X in Part[0] (tile i on rank i mod ranks, as many on each),
// x1 = X + x0 (an element-wise join of matching keys), ..., xM = X + x(M-1), for `iterations`
// iterations, each join calling `kernel` once per tile. The carry is x0 <- xM, which moves nothing
// (each join's result lies where x0 does), or, where `carry_moves`, X <- xM, which sends every
// rank's tiles of xM to every other rank (X grows about M-fold per iteration, far from overflowing
// in the iterations run). Joins, not maps: a join's call (finding the matching tile, then the
// kernel) costs 2-4x a map's per tile, and joins are what einsum programs mostly run.
Program chain_of_joins(int ranks, int tiles_per_rank, const OperatorCalibrationSettings& s,
                       const kernels::KernelCall& kernel, bool carry_moves) {
    const auto at = [](const std::string& step) {
        StepSource src;
        src.step = SourceLocation{"operator calibration", 1, 1, step};
        return src;
    };
    ProgramBuilder b("operator calibration", DType::F64);
    InputSource ones;
    ones.generate = storage::GeneratorSpec{storage::GeneratorSpec::Kind::Constant, 1.0, 0.0, 0};
    const std::int64_t tiles = static_cast<std::int64_t>(ranks) * tiles_per_rank;
    const Shape shape{tiles * kTile, kTile}, tile{kTile, kTile};
    b.add_input("X", shape, tile, DType::F64, ones, at("X"));
    b.add_input("x0", shape, tile, DType::F64, ones, at("x0"));
    std::string last = "x0";
    for (int m = 1; m <= s.joins; ++m) {
        const std::string name = "x" + std::to_string(m);
        b.add_join(name, "X", last, {0, 1}, {0, 1}, kernel, at(name));
        last = name;
    }
    const SourceLocation where{"operator calibration", 1, 1, "repeat"};
    const std::string carried = carry_moves ? "X" : "x0";
    if (auto problem = b.try_set_repeat(s.iterations, {{carried, last, where}}, where))
        throw *problem;
    return b.finish();
}

// What one operator of the loop costs per iteration, the slowest rank's (the report's): the
// median over the chain's joins, and the carry (chain_of_joins). Each the fastest of `repeats`
// runs: a run can lose its cores for a while to the rest of the machine; the fastest is what the
// runtime itself costs.
struct LoopSeconds {
    double join = 0, carry = 0;
};

// The loop's plan: X replicated, x0 cut by rows (the compiler's default).
ia::Plan loop_plan(const Program& program, int ranks) {
    ia::CompileOptions placed;
    placed.input_placements[*program.find("X")] = ia::Placement::all();
    ia::Plan plan = ia::compile_initial(program, ranks, placed);
    ia::annotate_costs(plan);
    return plan;
}

LoopSeconds loop_seconds(MPI_Comm comm, const ia::Plan& plan,
                         const OperatorCalibrationSettings& s) {
    // As `tra run` runs under its default per-operator limits (--operator-timeout-factor 20,
    // --operator-timeout-floor 60): the watchdog is on.
    ExecuteOptions options;
    options.operator_timeout_factor = 20;
    options.operator_timeout_floor = 60;
    const auto fastest = [](double& best, double v) {
        if (v > 0 && (best == 0 || v < best)) best = v;
    };
    LoopSeconds best;
    for (int r = 0; r < std::max(1, s.repeats); ++r) {
        const ExecutionResult result = execute(plan, comm, options);
        std::vector<double> joins;
        for (const OperatorRun& op : result.operators) {
            if (op.op == "local_join") joins.push_back(op.seconds / std::max(1, s.iterations));
            // Every iteration but the last ends in the carry.
            if (op.op == "carry" && s.iterations > 1)
                fastest(best.carry, op.seconds / (s.iterations - 1));
        }
        if (joins.empty()) continue;
        const auto mid = joins.begin() + static_cast<std::ptrdiff_t>(joins.size() / 2);
        std::nth_element(joins.begin(), mid, joins.end());
        fastest(best.join, *mid);
    }
    double figures[2] = {best.join, best.carry};
    MPI_Bcast(figures, 2, MPI_DOUBLE, 0, comm);  // rank 0's report is over every rank
    return {figures[0], figures[1]};
}

// The `add` kernel, and the einsum kernel as an `einsum: "ij,ij->ij", join: add` step runs it
// (tra/einsum_lowering.cpp): the same sums, through the einsum's set-up per call.
kernels::KernelCall add_kernel() {
    return kernels::KernelCall("add");
}
kernels::KernelCall einsum_add_kernel() {
    kernels::KernelParams p;
    p.spec = "ij,ij->ij";
    p.join_op = "add";
    return kernels::KernelCall("einsum", p);
}

LoopSeconds loop_seconds(MPI_Comm comm, int tiles_per_rank, const kernels::KernelCall& kernel,
                         const OperatorCalibrationSettings& s) {
    int ranks = 1;
    MPI_Comm_size(comm, &ranks);
    const Program program = chain_of_joins(ranks, tiles_per_rank, s, kernel, false);
    return loop_seconds(comm, loop_plan(program, ranks), s);
}

}  // namespace

OperatorCosts operator_costs(MPI_Comm comm, const OperatorCalibrationSettings& settings) {
    const LoopSeconds one = loop_seconds(comm, 1, add_kernel(), settings);
    const LoopSeconds many = loop_seconds(comm, kManyTiles, add_kernel(), settings);
    const LoopSeconds einsum_one = loop_seconds(comm, 1, einsum_add_kernel(), settings);
    const LoopSeconds einsum_many = loop_seconds(comm, kManyTiles, einsum_add_kernel(), settings);
    OperatorCosts c;
    c.tile_seconds = std::max(0.0, (many.join - one.join) / (kManyTiles - 1));
    c.einsum_tile_seconds = std::max(0.0, (einsum_many.join - einsum_one.join) / (kManyTiles - 1));
    c.operator_seconds = std::max(0.0, one.join - c.tile_seconds);
    // The one-tile loop's carry copies its one kept tile of 4 x 4: nothing beside the rest.
    c.exchange_seconds = one.carry;
    return c;
}

double message_seconds(MPI_Comm comm, const ia::MachineProfile& profile,
                       const std::vector<int>& host_of_rank,
                       const OperatorCalibrationSettings& settings) {
    int ranks = 1;
    MPI_Comm_size(comm, &ranks);
    if (ranks < 2) return 0;  // no messages to time
    const Program program = chain_of_joins(ranks, 1, settings, add_kernel(), true);
    const ia::Plan plan = loop_plan(program, ranks);
    const std::vector<ia::CarryMove> moves = ia::carry_moves(plan);
    if (moves.size() != 1) return 0;
    const double measured = loop_seconds(comm, plan, settings).carry;
    // What the profile predicts for the carry without a cost per message of its own; the rest,
    // over the messages of the rank that sends and receives most, is that cost.
    ia::TimeModel model;
    model.profile = profile;
    model.profile.message_seconds = 0;
    if (host_of_rank.size() == static_cast<std::size_t>(ranks)) model.host_of_site = host_of_rank;
    const double predicted = ia::carry_seconds(plan, model).at(0);
    const ia::Transfer& t = moves[0].transfer;
    std::int64_t most = 0;
    for (std::size_t s = 0; s < t.sent_messages.size() && s < t.received_messages.size(); ++s)
        most = std::max(most, t.sent_messages[s] + t.received_messages[s]);
    if (most == 0 || measured <= predicted) return 0;
    return (measured - predicted) / static_cast<double>(most);
}

}  // namespace tra::runtime
