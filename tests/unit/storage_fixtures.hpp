#pragma once
// Shared by the storage tests: the message of the BadInput error a call throws.
#include <catch2/catch.hpp>
#include <functional>
#include <string>

#include "core/error.hpp"

namespace tra::testing {

// The message of the tra::Error `f` throws, checked to be BadInput (a user's file or request,
// which storage errors name); "(no error)" when it throws none.
inline std::string bad_input_message(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::BadInput);
        return e.message();
    }
    return "(no error)";
}

}  // namespace tra::testing
