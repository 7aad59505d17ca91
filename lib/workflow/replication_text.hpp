#pragma once
// The text form of a replication map's spec, read back: the inverse of ia::Replication::str(),
// so plan files (docs/plan-format.md) write `replicate: "(k0, k1, 0:4)"` and read it here.
//
//   (k0, k1, 0:4)    position 0 = source position 0, 1 = source 1, 2 = new, values 0..3
//   (0:3, k0, k1)    a new first position with 3 copies, then the source key
//
// Entries are `kN` (a copy of source key position N) or `0:N` (a new position, N copies);
// whitespace is free. Whether the entries fit the source key is checked by
// ia::Replication::problem, not here.
#include <optional>
#include <string>

#include "ia/replication.hpp"

namespace tra::workflow {

// The replication `text` denotes, or nullopt when it is not of the form above.
std::optional<ia::Replication> parse_replication(const std::string& text);

}  // namespace tra::workflow
