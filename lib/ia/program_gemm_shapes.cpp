#include "ia/program_gemm_shapes.hpp"

#include <algorithm>
#include <tuple>
#include <variant>

#include "ia/gemm_pricing.hpp"

namespace tra::ia {

namespace {

auto sides(const kernels::GemmShape& g) {
    return std::tuple(g.m, g.n, g.k);
}

// Ascending and distinct, each shape as the join of it with the most right tiles makes it.
void sort_unique(std::vector<kernels::GemmShape>& shapes) {
    std::sort(shapes.begin(), shapes.end(), [](const auto& a, const auto& b) {
        return std::tuple(a.m, a.n, a.k, -a.right_tiles) <
               std::tuple(b.m, b.n, b.k, -b.right_tiles);
    });
    shapes.erase(std::unique(shapes.begin(), shapes.end(),
                             [](const auto& a, const auto& b) { return sides(a) == sides(b); }),
                 shapes.end());
}

// The products per group of the sum that reads join `join` (the runtime fuses the two and sums
// each group's products in a row, runtime/join_aggregate.cpp); 1 where no sum reads it.
std::int64_t products_per_group(const Program& program, NodeId join) {
    const std::size_t products = program.node(join).tuples();
    for (const Node& n : program.nodes)
        if (std::holds_alternative<AggregateOp>(n.op) && n.inputs.size() == 1 &&
            n.inputs[0] == join && n.tuples() > 0)
            return std::max<std::int64_t>(1, static_cast<std::int64_t>(products / n.tuples()));
    return 1;
}

}  // namespace

ProgramGemmShapes program_gemm_shapes(const Program& program, const MachineProfile& profile) {
    const ProfileGemmPricing pricing(profile);
    ProgramGemmShapes out;
    for (NodeId id = 0; id < program.nodes.size(); ++id) {
        const Node& node = program.node(id);
        const auto* join = std::get_if<JoinOp>(&node.op);
        if (!join || node.inputs.size() != 2) continue;
        const Shape shapes[] = {program.node(node.inputs[0]).type.bound,
                                program.node(node.inputs[1]).type.bound};
        const DType dtype = node.type.dtype;
        const auto plan = einsum_gemm_plan(join->kernel, shapes, pricing, dtype);
        const auto calls = priced_blas_calls(join->kernel, shapes, plan, profile.rates(dtype));
        // A 1 x k by k x 1 product is a dot the kernel computes without BLAS (einsum_gemm.cpp).
        if (!calls || (calls->m == 1 && calls->n == 1)) continue;
        // Groups run one after the other (runtime/join_aggregate.cpp), each over its products
        // in key order: a matrix product's left tiles (i, k) recur for the groups (i, j) of
        // one row, while its right tiles stream; a group's tiles of the left, all of the right.
        const auto tiles = [&](int side) {
            return std::max<std::int64_t>(
                1, static_cast<std::int64_t>(program.node(node.inputs[side]).tuples()));
        };
        const std::int64_t group = products_per_group(program, id);
        (dtype == DType::F32 ? out.f32 : out.f64)
            .push_back({calls->m, calls->n, calls->k,
                        group > 1 ? std::min(group, tiles(0)) : tiles(0), tiles(1), group});
    }
    sort_unique(out.f64);
    sort_unique(out.f32);
    return out;
}

void merge(ProgramGemmShapes& into, const ProgramGemmShapes& more) {
    into.f64.insert(into.f64.end(), more.f64.begin(), more.f64.end());
    into.f32.insert(into.f32.end(), more.f32.begin(), more.f32.end());
    sort_unique(into.f64);
    sort_unique(into.f32);
}

}  // namespace tra::ia
