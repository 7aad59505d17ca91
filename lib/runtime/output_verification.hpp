#pragma once
// `tra run --verify` (docs/reliability.md, "Verifying outputs"): after the last operator and
// before the outputs are written, every rank checks the tiles it holds of every output against
// the inputs of the operator that produced them (the output's producing IA node, as `tra
// explain` lists it), which the run keeps until then:
//   - a contraction (an add-aggregate fused with a join whose kernel is bilinear with the
//     output's last dimension taken from the right operand alone: matmul, matmul_tn, matmul_nt,
//     einsum with join=mul, agg=add) by Freivalds' check (freivalds.hpp): O r against the join
//     and aggregate applied to L and R r, within an element-wise residual bound;
//   - any other local operator by recomputing it from its inputs and comparing every tile;
//   - an output whose last operator is an exchange or a read is not verified, and says so.
// The ranks agree on the result in one small reduction (RankAgreement): only a flag travels.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ia/plan.hpp"
#include "runtime/held_tuples.hpp"

namespace tra::runtime {

class OutputVerification {
  public:
    OutputVerification() = default;
    OutputVerification(const ia::Plan& plan, const std::vector<std::optional<ia::IaNodeId>>& fused);

    // The nodes whose tuples the check reads: the run must keep them until check().
    const std::vector<ia::IaNodeId>& kept() const { return kept_; }

    // Checks this rank's tiles of every output; "" when they pass, else the first problem,
    // naming the output. `held` is indexed by IA node; recomputation writes only temporaries.
    std::string check(std::vector<HeldTuples>& held, ia::Site me, std::uint64_t seed) const;

    // One line per run: how each output was verified ("C: Freivalds check of #4 local_aggregate").
    std::string summary() const;

  private:
    enum class Method { Freivalds, Recompute, None };
    struct Check {
        std::string output;      // the output's name
        ia::IaNodeId node = 0;   // its producing IA node
        Method method = Method::None;
        std::string reason;      // Method::None: why not
        std::optional<ia::IaNodeId> join;  // the fused join computing the node's tuples
        std::size_t right_dim = 0;         // Freivalds: R's dimension r contracts
    };
    std::string freivalds(const Check& c, std::vector<HeldTuples>& held, std::uint64_t seed) const;
    std::string recompute(const Check& c, std::vector<HeldTuples>& held, ia::Site me) const;

    const ia::Plan* plan_ = nullptr;
    const std::vector<std::optional<ia::IaNodeId>>* fused_ = nullptr;
    std::vector<Check> checks_;
    std::vector<ia::IaNodeId> kept_;
};

}  // namespace tra::runtime
