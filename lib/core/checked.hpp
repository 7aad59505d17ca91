#pragma once
// A value, or the Error saying why there is none. Checks whose failure a caller may act on
// (a rewrite rule skipping a rewritten program that does not type-check) return one instead of
// throwing; the throwing APIs are the same checks followed by value(), so each check is
// written once and reads the same either way.
#include <cstdint>
#include <optional>
#include <utility>
#include <variant>

#include "core/error.hpp"

namespace tra {

template <class T>
class [[nodiscard]] Checked {
  public:
    Checked(T value) : state_(std::in_place_index<0>, std::move(value)) {}
    Checked(Error problem) : state_(std::in_place_index<1>, std::move(problem)) {}

    bool ok() const { return state_.index() == 0; }
    explicit operator bool() const { return ok(); }

    // The value; only when ok().
    const T& operator*() const { return std::get<0>(state_); }
    const T* operator->() const { return &std::get<0>(state_); }
    // Why there is no value; only when !ok().
    const Error& problem() const { return std::get<1>(state_); }

    // The value, or throws the problem.
    const T& value() const& {
        if (!ok()) throw problem();
        return std::get<0>(state_);
    }
    T value() && {
        if (!ok()) throw problem();
        return std::move(std::get<0>(state_));
    }

    // The same, with the problem located at `where` unless it already knows its place.
    Checked located(const SourceLocation& where) && {
        if (ok()) return std::move(*this);
        return problem().located(where);
    }

  private:
    std::variant<T, Error> state_;
};

// a + b and a * b, or nothing when the result does not fit in 64 bits: for shapes, frontiers,
// tuple counts and bytes, where a wrapped value would become a wrong answer instead of an error.
inline std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
    return r;
}
inline std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
    return r;
}

}  // namespace tra
