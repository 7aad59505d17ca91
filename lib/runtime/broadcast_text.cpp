#include "runtime/broadcast_text.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>

namespace tra::runtime {

void broadcast_text(std::string& text, MPI_Comm comm) {
    std::uint64_t n = text.size();
    MPI_Bcast(&n, 1, MPI_UINT64_T, 0, comm);
    text.resize(static_cast<std::size_t>(n));
    for (std::uint64_t at = 0; at < n;) {
        const auto piece = static_cast<int>(std::min<std::uint64_t>(n - at, INT_MAX));
        MPI_Bcast(text.data() + at, piece, MPI_CHAR, 0, comm);
        at += static_cast<std::uint64_t>(piece);
    }
}

void broadcast_numbers(std::vector<double>& values, MPI_Comm comm) {
    // A plan's operator count is far below INT_MAX (--max-tuples bounds the plan long before).
    int n = static_cast<int>(values.size());
    MPI_Bcast(&n, 1, MPI_INT, 0, comm);
    values.resize(static_cast<std::size_t>(n));
    if (n > 0) MPI_Bcast(values.data(), n, MPI_DOUBLE, 0, comm);
}

}  // namespace tra::runtime
