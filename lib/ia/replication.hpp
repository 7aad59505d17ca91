#pragma once
// Replication maps: the IA map λ^L with arity m > 1 that the TRA paper's replication-based
// (3-D) matrix multiply needs (thesis 3.2, insertDim/duplicate). Each tuple of a relation becomes
// m tuples with the same tile, whose keys are the old key with new positions inserted, one copy
// per combination of values of the new positions:
//
//   (k0, k1, 0:4)   key (i, k) -> (i, k, 0), (i, k, 1), (i, k, 2), (i, k, 3)
//   (0:3, k0, k1)   key (k, j) -> (0, k, j), (1, k, j), (2, k, j)
//
// Every position of the source key appears exactly once (in any order); a new position `0:n`
// ranges over 0..n-1, n >= 1. The replicated relation is no TRA node: its type, key set and
// frontier are derived here from the source relation, and an IA node that holds one carries it
// (IaNode::replicated; enforcers carry their input's).
//
// Placement: a copy stays on its source tuple's site, and a placement reads only key values, so
// the output placement is the input's re-expressed on the copied positions (Part[0] of (i, k)
// is Part[0] of (i, k, j)); Unknown stays Unknown and is traced (replicated_sites).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ia/placement.hpp"
#include "ia/transfer.hpp"
#include "tra/program.hpp"

namespace tra::ia {

// One position of a replicated key: a copy of source key position `from`, or (no `from`) a new
// position taking the values 0..copies-1.
struct ReplicatedPosition {
    std::optional<std::size_t> from;
    std::int64_t copies = 1;
    friend bool operator==(const ReplicatedPosition&, const ReplicatedPosition&) = default;
};

struct Replication {
    std::vector<ReplicatedPosition> positions;  // the replicated key, in order

    // Tuples per source tuple: the product of the new positions' copies.
    std::int64_t arity() const;
    // What is wrong with it as a replication of keys with `source_arity` positions, or nullopt.
    std::optional<std::string> problem(std::size_t source_arity) const;
    // The source key of a replicated key (drops the new positions).
    Key source_key(const Key& replicated) const;
    // Every replicated key of one source key, in ascending key order.
    std::vector<Key> keys_of(const Key& source) const;
    // "(k0, k1, 0:4)" -- the plan file's syntax (workflow/replication_text.hpp parses it).
    std::string str() const;
    friend bool operator==(const Replication&, const Replication&) = default;
};

// A TRA relation replicated: what an IA node holds after a replication map. `relation` is a
// Node so that lookups of an IA node's relation (Plan::relation) read type, key set and
// frontier the same way for TRA and replicated relations; its name is the source's plus "*"
// (A*, as the thesis writes), its op and inputs the source's.
struct ReplicatedRelation {
    Replication spec;
    Node relation;
};

// Builds the replicated relation of `source` (spec must be valid for it: problem() empty).
std::shared_ptr<const ReplicatedRelation> replicate_relation(const Node& source,
                                                             const Replication& spec);

// The placement of a replication map's output for an input placed on `in` (see above).
Placement replicated_placement(const Placement& in, const Replication& spec);

// Where the replicated tuples are when the input's are traced: each copy where its source is.
SiteMap replicated_sites(const SiteMap& in, const KeySet& replicated_keys, const Replication& spec);

}  // namespace tra::ia
