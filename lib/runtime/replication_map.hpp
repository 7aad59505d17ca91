#pragma once
// Runs a replication map (ia/replication.hpp) on the tuples one rank holds: each tuple becomes
// spec.arity() tuples under the replicated keys, every copy on this rank. Each copy owns its
// tile (a plain copy): the memory model (ia/peak_memory.hpp) counts every replica's bytes, and
// the copies are shuffled to different sites right after, so sharing storage would save little.
#include "ia/replication.hpp"
#include "runtime/local_ops.hpp"

namespace tra::runtime {

Tuples replicate_tuples(const ia::Replication& spec, const Tuples& in);

}  // namespace tra::runtime
