#pragma once
// Non-temporal ("streaming") stores for kernels that write more than the caches hold before it
// is read again: the stores skip reading each line before overwriting it, a third of such a
// pass's memory traffic. A thread fences its streamed stores before others may read them.
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tra::kernels {

// Orders this thread's non-temporal stores before what follows (a join); a no-op without SSE2.
inline void store_fence() {
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

// Copies n elements (a multiple of 16 bytes) to a 16-byte-aligned dst past the caches where the
// CPU has such stores, else copies them.
template <class T>
inline void stream_copy(T* dst, const T* src, int n) {
#if defined(__SSE2__)
    static_assert(sizeof(T) == 4 || sizeof(T) == 8);
    constexpr int per_store = 16 / sizeof(T);
    for (int i = 0; i < n; i += per_store)
        if constexpr (sizeof(T) == 8)
            _mm_stream_pd(reinterpret_cast<double*>(dst + i),
                          _mm_loadu_pd(reinterpret_cast<const double*>(src + i)));
        else
            _mm_stream_ps(reinterpret_cast<float*>(dst + i),
                          _mm_loadu_ps(reinterpret_cast<const float*>(src + i)));
#else
    std::memcpy(dst, src, sizeof(T) * n);
#endif
}

}  // namespace tra::kernels
