#pragma once
// Predicate texts for the filter rules. A rule that moves or combines a filter must say which key
// positions the predicate reads and re-express it over another relation's positions. Texts may
// use named parameters ("(i, j) -> i == j"), so both helpers resolve names to positions first and
// always produce positional texts ("k0 == k1"), which any arity can parse.
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tra/key_function.hpp"

namespace tra::optimizer {

// The key positions `predicate` reads.
std::set<std::size_t> read_positions(const KeyFunction& predicate);

// The predicate's body with each read position p renamed to k<to[p]>, or nullopt when it reads a
// position p for which `to` has no entry (nullopt or beyond its end). The result keeps the
// expression's tokens and their order, so evaluation order and short-circuits are unchanged.
std::optional<std::string> reindexed_text(const KeyFunction& predicate,
                                          const std::vector<std::optional<std::size_t>>& to);

// reindexed_text with the identity map: the predicate over positional names.
std::string positional_text(const KeyFunction& predicate);

// A rekey's results as positional texts, one per output position: "(i, j) -> (j, i + 1)" gives
// {"k1", "k0 + 1"}.
std::vector<std::string> result_texts(const KeyFunction& rekey);

// The function's body with each read position p replaced by "(by[p])": composing f after a rekey
// whose results are `by` (R1-2). Throws Error (Failed) when `by` has no entry for a position.
std::string substituted_text(const KeyFunction& f, const std::vector<std::string>& by);

}  // namespace tra::optimizer
