#pragma once
// The core of the block transpose (tile_permute.cpp) where the input's rows lie apart: a block of
// input rows gathered transposed into a buffer whose rows are then the output's runs. In registers,
// 4 x 4 doubles or 8 x 8 floats at a time where the CPU has AVX2 (four or eight rows read side by
// side, each a whole cache line in turn), element by element elsewhere.
#include <cstdint>

namespace tra::kernels {

// buf[i * ld + j] = rows[j][i] for j < nq, i < np. rows[j] need no alignment; buf's rows do
// not overlap the input.
template <class T>
void transpose_rows(const T* const* rows, std::int64_t nq, std::int64_t np, T* buf,
                    std::int64_t ld);

}  // namespace tra::kernels
