#pragma once
// `tra run --verify` (docs/reliability.md, "Verifying outputs"): after the last operator and
// before the outputs are written, every rank checks the tiles it holds of every output against
// the inputs of the operator that produced them (the output's producing IA node, as `tra
// explain` lists it: "output C <- #N"), which the run keeps until then. What each check is
// (Freivalds' for contractions, recomputation for the other local operators, none after an
// exchange or a read) is decided from the plan by ia::plan_verification; here the checks run.
// Freivalds' check (freivalds.hpp, contraction_check.cpp): O r against the join and aggregate
// applied to L and R r, within an element-wise residual bound. The output tiles that share
// rows are checked as one matrix, each with signs of its own, so a left tile meets one vector
// however many right tiles it is joined with; every rank sums its share of both sides and one
// MPI_Allreduce adds them up (vectors of the output's rows, never tiles), so the join, any
// partials, their exchange and the final sum are all covered.
#include <mpi.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ia/plan.hpp"
#include "ia/transfer.hpp"
#include "ia/verification_plan.hpp"
#include "runtime/held_tuples.hpp"
#include "runtime/rank_agreement.hpp"

namespace tra::runtime {

class OutputVerification {
  public:
    OutputVerification() = default;
    // `where`: every node's key -> sites (trace_sites), the same on every rank.
    OutputVerification(const ia::Plan& plan, const std::vector<std::optional<ia::IaNodeId>>& fused,
                       const std::vector<ia::SiteMap>& where);

    // The nodes whose tuples the check reads: the run must keep them until run().
    const std::vector<ia::IaNodeId>& kept() const { return plan_of_checks_.kept; }
    // What is checked and how, what is kept, the scratch (the peak and the reservation count it).
    const ia::VerificationPlan& checks() const { return plan_of_checks_; }

    // Checks this rank's tiles of every output. Collective: a failed check throws AgreedFailure
    // on every rank, after the lowest failing rank printed "verify: output C failed ...".
    // `held` is indexed by IA node; recomputation writes only temporaries. `when` ("in
    // iteration 3: " in a loop) starts the failure's message.
    void run(std::vector<HeldTuples>& held, ia::Site me, std::uint64_t seed,
             const RankAgreement& agree, MPI_Comm comm, const std::string& when = "") const;

    // One line per run: how each output was verified ("C (Freivalds check of #4 ...)").
    std::string summary() const;

  private:
    // Freivalds: the check's row vectors (contraction_check.cpp), one slot per row group of
    // the output (an output key without its column positions), laid out as the output's tile
    // bound with the last dimension 1; four blocks of slots: O r, |O| |r|, K(L, R r) and
    // K(|L|, |R| |r|). This rank's share until sum_over_ranks.
    struct Sides {
        std::map<Key, std::size_t> rows;  // row group -> slot
        Shape slot_shape;
        std::vector<double> values;          // 4 x rows x slot
        std::vector<std::int64_t> products;  // per row group: products summed into it
        std::int64_t left_elements = 0, width = 0;
    };
    Sides contraction_sides(const ia::OutputCheck& c, const std::vector<HeldTuples>& held,
                            std::uint64_t seed) const;
    // Adds the sides up over the ranks (one MPI_Allreduce of the row vectors).
    void sum_over_ranks(Sides& sides, MPI_Comm comm) const;
    // Compares both sides of every row group; "" or the problem (the same on every rank).
    std::string compare(const ia::OutputCheck& c, const Sides& sides) const;
    std::string recompute(const ia::OutputCheck& c, std::vector<HeldTuples>& held,
                          ia::Site me) const;

    const ia::Plan* plan_ = nullptr;
    const std::vector<std::optional<ia::IaNodeId>>* fused_ = nullptr;
    const std::vector<ia::SiteMap>* where_ = nullptr;
    ia::VerificationPlan plan_of_checks_;
};

}  // namespace tra::runtime
