#pragma once
// `tra calibrate`'s measurements on every rank of a run (docs/machine-profile.md): the kernels
// (kernels/kernel_calibration.hpp) and an operator's fixed cost (operator_calibration.hpp) on all
// ranks at once, then the links (link_calibration.hpp) one pair at a time, gathered into one
// ia::MachineProfile.
#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include "ia/machine_profile.hpp"
#include "kernels/kernel_calibration.hpp"
#include "runtime/host_layout.hpp"

namespace tra::runtime {

struct MachineCalibrationOptions {
    bool quick = false;    // KernelCalibrationSettings::quick and LinkCalibrationSettings::quick
    std::string name;      // the profile's name
    int blas_threads = 1;  // what the ranks' BLAS was set to (recorded, not set here)
    // Matmuls also measured at these shapes (`--for`; KernelCalibrationSettings::f64_shapes),
    // the same on every rank, each list ascending by (m, n, k) and distinct, as
    // ia::program_gemm_shapes gives them (the profile keeps them so: ia::GemmShapeRates).
    std::vector<kernels::GemmShape> f64_shapes, f32_shapes;
    // Rank 0 only: one line per figure as it starts ("matmul f64 256"). May be empty.
    std::function<void(const std::string& line)> progress;
};

// Collective over `comm`. Every rank times the kernels at the same moment (a barrier before each
// figure), so each figure is what a rank gets while all of them work, as in a run; the profile
// keeps, figure by figure, the slowest rank's (the lowest rate, the highest call cost), because
// an operator ends when its busiest rank does. Links: the same-host pair and, on a run that
// spans hosts, the across-hosts pair (link_calibration.hpp); a link the run has no pair for is
// unmeasured, with the built-in default's rates. blas_core is kernels::blas_core_name(), ranks
// the size of `comm`. Every rank returns the same profile, source "" and content_hash "" (the
// file written from it gets them when read).
ia::MachineProfile calibrate_machine(MPI_Comm comm, const HostLayout& layout,
                                     const MachineCalibrationOptions& options);

}  // namespace tra::runtime
