#pragma once
// Element types of tiles. Kernels are written once as templates and instantiated through
// visit_dtype, so f32 and f64 share code but never share buffers.
#include <cstddef>
#include <optional>
#include <string>

namespace tra {

enum class DType { F32, F64 };

inline std::size_t size_of(DType d) {
    return d == DType::F32 ? 4 : 8;
}
inline std::string name_of(DType d) {
    return d == DType::F32 ? "f32" : "f64";
}
inline std::optional<DType> parse_dtype(const std::string& s) {
    if (s == "f32") return DType::F32;
    if (s == "f64") return DType::F64;
    return std::nullopt;
}

template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<float>() {
    return DType::F32;
}
template <>
constexpr DType dtype_of<double>() {
    return DType::F64;
}

// Calls f(float{}) or f(double{}) so generic code can pick the element type at run time.
template <class F>
decltype(auto) visit_dtype(DType d, F&& f) {
    if (d == DType::F32) return f(float{});
    return f(double{});
}

}  // namespace tra
