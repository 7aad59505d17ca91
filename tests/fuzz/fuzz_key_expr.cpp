// libFuzzer target for the key-expression language (lib/tra/key_expr_*): the first byte picks
// the key arity (0-4), the rest is the expression. Every input must either compile or be
// refused with tra::Error; a compiled expression is then evaluated on a few keys, where only
// tra::Error (division by zero, negative result) may be thrown. Any other exception, crash,
// sanitizer finding or hang is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "tra/key_function.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::size_t arity = data[0] % 5;
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    tra::KeyFunction f;
    try {
        f = tra::KeyFunction::parse(text, arity);
    } catch (const tra::Error&) {
        return 0;
    }
    // Keys (non-negative, as in every relation) that reach division by zero and negative results.
    const std::int64_t values[] = {0, 1, 7, 1000};
    for (std::int64_t v : values) {
        tra::Key key(arity, v);
        for (std::size_t i = 0; i < arity; ++i) key[i] = v + static_cast<std::int64_t>(i);
        try {
            if (f.is_predicate())
                (void)f.test(key);
            else
                (void)f.apply(key);
        } catch (const tra::Error&) {
        }
    }
    return 0;
}
