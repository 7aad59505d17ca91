#pragma once
// The keys of a join's output where they must be enumerated (an operand has holes). A join is
// the one step that makes more tuples than its operands hold, so enumeration stops as soon as
// the count passes the tuple limit; a box operand is never enumerated whole, only the part of it
// that matches each key of the other operand.
#include <cstdint>
#include <string>

#include "core/checked.hpp"
#include "core/error.hpp"
#include "core/key_set.hpp"
#include "tra/program.hpp"

namespace tra {

// The relation being enumerated, for the error when it passes `max_tuples`.
struct EnumerationLimit {
    std::string relation;
    std::int64_t max_tuples;
    SourceLocation where;
};

// Output key = left key ++ right key without the right's join positions.
Checked<KeySet> enumerated_join_keys(const KeySet& left, const KeySet& right,
                                     const KeyPositions& left_keys, const KeyPositions& right_keys,
                                     std::size_t right_arity, const EnumerationLimit& limit);

}  // namespace tra
