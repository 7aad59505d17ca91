#pragma once
// The shapes of the BLAS gemm calls a program's joins make, as the time model prices them
// (priced_blas_calls): what `tra calibrate --for WORKFLOW` measures, so that the model prices
// that workflow's products at rates measured at their own shapes (gemm_shape_rates.hpp).
#include <vector>

#include "ia/machine_profile.hpp"
#include "kernels/kernel_calibration.hpp"
#include "tra/program.hpp"

namespace tra::ia {

struct ProgramGemmShapes {
    // Each ascending by (m, n, k) and distinct, as the join of that shape with the most right
    // tiles makes it.
    std::vector<kernels::GemmShape> f64, f32;
};

// Every join of `program` on its operands' tile bounds (the tiling the program was built with;
// plans that re-tile make other shapes), an einsum's GEMM plan chosen as under `profile`.
ProgramGemmShapes program_gemm_shapes(const Program& program, const MachineProfile& profile);

// `more` added to `into`, each list kept ascending and distinct.
void merge(ProgramGemmShapes& into, const ProgramGemmShapes& more);

}  // namespace tra::ia
