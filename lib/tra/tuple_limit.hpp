#pragma once
// The limit on tuples (tiles) per relation, --max-tuples: tra enumerates every relation's keys
// to plan exactly (about 100 bytes each), so the limit bounds the memory and time planning
// takes. Counts saturate instead of wrapping, and the error suggests a tiling that fits.
#include <cstdint>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "core/index_vector.hpp"

namespace tra {

// The most tuples one relation may have unless the caller says otherwise (--max-tuples,
// TRA_MAX_TUPLES): enough for the paper's workflows and for 1024 sites.
constexpr std::int64_t kDefaultMaxTuples = 10'000'000;

// Which relations the limit applies to. Planning and running visit every key of every
// relation, so they limit all of them; checking a workflow (validate) enumerates only relations
// with holes, and holds dense ones as boxes, so it limits only the enumerated ones.
enum class TupleLimitScope { every_relation, enumerated_relations };

// A tuple count past 64 bits.
constexpr std::int64_t kTooManyTuples = INT64_MAX;

// The tuples of a box (its frontier's product); kTooManyTuples where that overflows.
std::int64_t tuples_in_box(const Frontier& f);
// count x factor; kTooManyTuples where that overflows.
std::int64_t tuples_times(std::int64_t count, std::int64_t factor);

// "e.g. tile: [40, 40] (6250000 tiles)": each tile dimension grown alike to a divisor of its
// extent until the tensor has at most `max_tuples` tiles; "" where none is quick to find.
std::string coarser_tiles_hint(const Shape& shape, const Shape& tile, std::int64_t max_tuples);

// The error for relation `name` of `count` tuples (max_tuples + 1: "at least that") when count
// passes `max_tuples`, located at `where`; nullopt otherwise.
std::optional<Error> too_many_tuples(const std::string& name, std::int64_t count,
                                     std::int64_t max_tuples, const SourceLocation& where,
                                     const std::string& hint = "");

}  // namespace tra
