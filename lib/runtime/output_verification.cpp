#include "runtime/output_verification.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <variant>

#include "core/error.hpp"
#include "ia/operator_spec.hpp"
#include "ia/verification_plan.hpp"
#include "runtime/local_step.hpp"

namespace tra::runtime {

namespace {

// The first element where the run's tile and the recomputed one differ beyond rounding. The
// same code on the same operands: equal up to a threaded BLAS's summation order, so almost
// always bit for bit: blocks equal bit for bit are skipped at memcmp's speed (this loop alone,
// element by element, took as long as the operator it checks).
template <class T>
std::optional<std::int64_t> first_difference(const Tile& a, const Tile& b) {
    const T* x = a.data<T>();
    const T* y = b.data<T>();
    const double eps = std::numeric_limits<T>::epsilon();
    constexpr std::int64_t block = 512;
    for (std::int64_t start = 0; start < a.elements(); start += block) {
        const std::int64_t end = std::min(start + block, a.elements());
        if (std::memcmp(x + start, y + start, static_cast<std::size_t>(end - start) * sizeof(T)) ==
            0)
            continue;
        for (std::int64_t i = start; i < end; ++i) {
            if (x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i]))) continue;
            const double scale = std::max(std::fabs(double(x[i])), std::fabs(double(y[i])));
            if (std::fabs(double(x[i]) - double(y[i])) <= 64 * eps * scale) continue;
            return i;
        }
    }
    return std::nullopt;
}

Tile on_host(const Tile& t) {
    return t.to(Residence::Host);
}

}  // namespace

OutputVerification::OutputVerification(const ia::Plan& plan,
                                       const std::vector<std::optional<ia::IaNodeId>>& fused,
                                       const std::vector<ia::SiteMap>& where)
    : plan_(&plan), fused_(&fused), where_(&where), plan_of_checks_(ia::plan_verification(plan)) {}

void OutputVerification::run(std::vector<HeldTuples>& held, ia::Site me, std::uint64_t seed,
                             const RankAgreement& agree, MPI_Comm comm,
                             const std::string& when) const {
    for (const ia::OutputCheck& c : plan_of_checks_.checks) {
        if (c.method == ia::VerifyMethod::Recompute)
            agree.step([&] {
                const std::string problem = recompute(c, held, me);
                if (!problem.empty()) fail("verify: " + when + problem);
            });
        if (c.method != ia::VerifyMethod::Freivalds) continue;
        Sides sides;
        agree.step([&] { sides = contraction_sides(c, held, seed); });
        // Every rank got here (the step was agreed): the reduction cannot leave one waiting.
        sum_over_ranks(sides, comm);
        agree.step([&] {
            const std::string problem = compare(c, sides);
            if (!problem.empty()) fail("verify: " + when + problem);
        });
    }
}

namespace {

// A chunk's tiles together: about this many bytes of the first operand (a few tiles, in cache).
constexpr std::size_t kChunkBytes = std::size_t{4} << 20;

}  // namespace

std::string OutputVerification::recompute(const ia::OutputCheck& c, std::vector<HeldTuples>& held,
                                          ia::Site me) const {
    const ia::IaNode& n = plan_->node(c.join ? *c.join : c.node);
    const Tuples& out = held.at(c.node).tuples;
    const std::string failed = "output " + c.output + " failed verification";
    std::size_t made = 0;
    // The recomputed tiles against the run's.
    const auto compare = [&](const Tuples& again) -> std::string {
        made += again.size();
        for (const auto& [k, y0] : again) {
            const auto it = out.find(k);
            if (it == out.end())
                return failed + ": recomputing #" + std::to_string(c.node) + " makes tile " +
                       k.str() + ", which this rank does not hold";
            const Tile& t = it->second;
            const Tile a = t.on_device() ? on_host(t) : Tile();
            const Tile b = y0.on_device() ? on_host(y0) : Tile();
            const Tile& x = t.on_device() ? a : t;
            const Tile& y = y0.on_device() ? b : y0;
            if (x.shape() != y.shape())
                return failed + " at tile " + k.str() +
                       ": its shape differs from the recomputed one";
            const auto i = x.dtype() == DType::F32 ? first_difference<float>(x, y)
                                                   : first_difference<double>(x, y);
            if (i)
                return failed + " at tile " + k.str() + " (recomputing #" + std::to_string(c.node) +
                       " " + ia::op_name(plan_->node(c.node).op) + " gives " +
                       std::to_string(y.get(*i)) + " at element " + std::to_string(*i) +
                       ", the run holds " + std::to_string(x.get(*i)) + ")";
        }
        return "";
    };
    if (!c.in_chunks) {
        HeldTuples again;
        compute_locally(*plan_, n, held, me, *fused_, again);
        if (std::string problem = compare(again.tuples); !problem.empty()) return problem;
    } else {
        // Chunk by chunk (ia::OutputCheck::in_chunks): the operand's tuples wait in `aside`, a
        // chunk at a time stands in for them, and the checked ones go to `done`; map nodes move
        // between them, never tiles. Put back whatever happens.
        Tuples& operand = held.at(n.inputs.at(0)).tuples;
        Tuples aside, done;
        aside.swap(operand);
        struct PutBack {
            Tuples &operand, &aside, &done;
            ~PutBack() {
                operand.merge(done);
                operand.merge(aside);
            }
        } put_back{operand, aside, done};
        while (!aside.empty()) {
            for (std::size_t bytes = 0; !aside.empty() && bytes < kChunkBytes;) {
                auto node = aside.extract(aside.begin());
                bytes += node.mapped().bytes();
                operand.insert(std::move(node));
            }
            HeldTuples again;
            compute_locally(*plan_, n, held, me, *fused_, again);
            if (std::string problem = compare(again.tuples); !problem.empty()) return problem;
            done.merge(operand);
        }
    }
    if (made != out.size())
        return failed + ": " + std::to_string(out.size()) + " tiles on this rank, recomputing #" +
               std::to_string(c.node) + " makes " + std::to_string(made);
    return "";
}

std::string OutputVerification::summary() const {
    std::string line = "verify: passed:";
    bool first = true;
    for (const ia::OutputCheck& c : plan_of_checks_.checks) {
        const std::string op =
            "#" + std::to_string(c.node) + " " + ia::op_name(plan_->node(c.node).op);
        std::string item = c.output + " not verified: " + c.reason;
        if (c.method == ia::VerifyMethod::Freivalds)
            item = c.output + " (Freivalds check of " + op + " and its contraction #" +
                   std::to_string(*c.join) + ")";
        if (c.method == ia::VerifyMethod::Recompute) item = c.output + " (recomputed " + op + ")";
        line += (first ? " " : "; ") + item;
        first = false;
    }
    return line;
}

}  // namespace tra::runtime
