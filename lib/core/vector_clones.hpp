#pragma once
// Compiles a function for AVX-512, AVX2 and baseline x86-64 and lets the loader pick one for the
// CPU (GCC's target_clones, an ifunc), so the hot loops get wide vectors in a generic build. Only
// GCC on x86-64 with glibc: elsewhere (clang's sanitizer and fuzz builds included) one version.
// GCC 12 at -O2 vectorises only loops whose trip count it knows unless the file is compiled with
// -fvect-cost-model=dynamic (lib/CMakeLists.txt lists the files that are).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__GLIBC__)
#define TRA_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TRA_VECTOR_CLONES
#endif
