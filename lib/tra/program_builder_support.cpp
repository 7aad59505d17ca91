#include "tra/program_builder_support.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/checked_math.hpp"

namespace tra::builder {

std::string join_list(const std::vector<std::int64_t>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s;
}

std::vector<std::int64_t> divisors_near(std::int64_t n, std::int64_t wanted) {
    std::vector<std::int64_t> d;
    for (std::int64_t i = 1; i * i <= n; ++i)
        if (n % i == 0) {
            d.push_back(i);
            if (i != n / i) d.push_back(n / i);
        }
    std::sort(d.begin(), d.end(), [&](auto a, auto b) {
        return std::abs(a - wanted) != std::abs(b - wanted)
                   ? std::abs(a - wanted) < std::abs(b - wanted)
                   : a < b;
    });
    d.resize(std::min<std::size_t>(d.size(), 4));
    std::sort(d.begin(), d.end());
    return d;
}

std::optional<std::int64_t> checked_tile_bytes(const Shape& bound, DType dtype) {
    std::optional<std::int64_t> bytes = static_cast<std::int64_t>(size_of(dtype));
    for (std::int64_t extent : bound)
        if (bytes) bytes = checked_mul(*bytes, extent);
    return bytes;
}

void finish_node(Node& n) {
    n.keys.compact(n.type.key_arity);
    n.frontier = n.keys.frontier(n.type.key_arity);
}

}  // namespace tra::builder
