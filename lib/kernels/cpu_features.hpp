#pragma once
// What the CPU running this process offers beyond the x86-64 baseline the kernels are compiled
// for, asked once per process: the kernels with AVX2 or AVX-512 code (functions compiled with
// target attributes: lanes_tiles.hpp, transpose_rows.cpp) run it only where these say so.
// False on other architectures.
namespace tra::kernels::cpu_features {

#if defined(__x86_64__) || defined(__i386__)
inline bool avx2() {
    static const bool has = (__builtin_cpu_init(), __builtin_cpu_supports("avx2") != 0);
    return has;
}
inline bool fma() {
    static const bool has = (__builtin_cpu_init(), __builtin_cpu_supports("fma") != 0);
    return has;
}
inline bool avx512f() {
    static const bool has = (__builtin_cpu_init(), __builtin_cpu_supports("avx512f") != 0);
    return has;
}
#else
inline bool avx2() {
    return false;
}
inline bool fma() {
    return false;
}
inline bool avx512f() {
    return false;
}
#endif

}  // namespace tra::kernels::cpu_features
