#pragma once
// The bytes the kernels hold in scratch kept between calls (TTGT's permuted copies, the lanes
// product's panels: kernels::cpu::gemm_scratch), over all threads: what the runtime measures
// beside its tiles (runtime/execution.cpp), as the peak model predicts it (ia/kernel_scratch.hpp).
#include <cstdint>

namespace tra::kernels {

std::int64_t scratch_bytes_held();

// One kept buffer's bytes, counted in scratch_bytes_held() until it changes or goes (a member
// beside the buffer, in the same thread_local).
class HeldBytes {
  public:
    HeldBytes() = default;
    HeldBytes(const HeldBytes&) = delete;
    HeldBytes& operator=(const HeldBytes&) = delete;
    ~HeldBytes() { set(0); }
    void set(std::int64_t bytes);

  private:
    std::int64_t bytes_ = 0;
};

}  // namespace tra::kernels
