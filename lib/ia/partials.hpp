#pragma once
// Pre-aggregation (thesis R2-5): where the partial results of a partial aggregation are, and what
// the exchange that brings them together costs (docs/cost-model.md, "Pre-aggregation").
//
// A partial aggregation runs an aggregate on each site over the tuples that site holds, so a
// group whose tuples are spread over several sites ends with one partial per (group, site
// holding a tuple of it). Which sites those are depends on which input keys exist, not on the
// group's key values, so no Placement describes them: they are traced as a SiteMap, exactly.
//
// The exchange is a reduce, not a move: every holder other than the group's home sends its own
// partial (they differ, so none is a replica that could be skipped), and the home combines them.
// exact_transfer charges one copy per receiver and would undercount it, hence exact_reduce.
//
//   payload  = sum over groups g of |holders(g) \ {home(g)}| * tile_bytes
//   overhead = the transfer contract (transfer.hpp): 8 B per key position of every received
//              partial, 8 B per ordered (sender, receiver) pair exchanging >= 1 partial; the
//              sender of a partial is the site that holds it.
//
// Combine order (the runtime follows it, so results are reproducible bit for bit): the home
// folds the partials of a group in ascending order of the site that computed them, its own
// partial at its own site number: acc = p[s_0]; acc = op(acc, p[s_i]) for s_1 < s_2 < ...
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ia/transfer.hpp"

namespace tra::ia {

// The partials of a partial aggregation over a relation whose tuples are at `input`: for each
// group (the key projected on `by`, in by's order) the ascending, distinct sites holding at
// least one of its tuples. Each of those sites holds exactly one partial of the group.
SiteMap partial_holders(const SiteMap& input, const KeyPositions& by);

// Whether some group has partials on more than one site (otherwise pre-aggregation is just the
// aggregate, and the exchange moves nothing that a plain local aggregate would not keep).
bool spans_sites(const SiteMap& partials);

// spans_sites(partial_holders(input, by)), stopping at the first group found on two sites: the
// search asks it of every aggregate candidate.
bool groups_span_sites(const SiteMap& input, const KeyPositions& by);

// Number of partials, sum over groups of |holders(g)|: the size of the partial relation.
std::int64_t partial_count(const SiteMap& partials);

// Sending each partial to its group's home under `to`, which must put every key on one site
// (Part, or an unreplicated Grid); throws tra::Error (Failed) otherwise. Formula above.
Transfer exact_reduce(const SiteMap& partials, std::size_t key_arity, std::size_t tile_bytes,
                      const Placement& to, int sites);

// Tile bytes per site once the partials are at their homes: each home holds all the partials
// of its groups until the combining aggregate runs.
std::vector<std::int64_t> reduced_resident(const SiteMap& partials, std::size_t tile_bytes,
                                           const Placement& to, int sites);

}  // namespace tra::ia
