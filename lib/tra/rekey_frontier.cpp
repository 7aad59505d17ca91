#include "tra/rekey_frontier.hpp"

#include <string>

#include "core/checked_math.hpp"
#include "core/error.hpp"

namespace tra {

Checked<Frontier> rekey_frontier(const KeyFunction& f, const KeySet& keys) {
    const std::size_t arity = f.output_arity();
    Frontier frontier(arity, 0);
    for (const Key& k : keys)
        for (std::size_t i = 0; i < arity; ++i) {
            if (k[i] < frontier[i]) continue;
            const auto next = checked_add(k[i], 1);
            if (!next)
                return Error("rekey \"" + f.text() + "\" gives key " + k.str() +
                             ", whose position " + std::to_string(i) +
                             " is the largest 64-bit integer: the relation's frontier (one past "
                             "its largest key) would overflow");
            frontier[i] = *next;
        }
    std::int64_t count = 1;
    for (std::size_t i = 0; i < arity; ++i) {
        const auto c = checked_mul(count, frontier[i]);
        if (!c)
            return Error("rekey \"" + f.text() + "\" gives keys below the frontier " +
                         frontier.str() +
                         ", which holds more than 2^63 keys: the result's tuple count would "
                         "overflow");
        count = *c;
    }
    return frontier;
}

}  // namespace tra
