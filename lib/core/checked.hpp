#pragma once
// A value, or the Error saying why there is none. Checks whose failure a caller may act on
// (a rewrite rule skipping a rewritten program that does not type-check) return one instead of
// throwing; the throwing APIs are the same checks followed by value(), so each check is
// written once and reads the same either way.
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

}  // namespace tra
