#include "runtime/replication_map.hpp"

namespace tra::runtime {

Tuples replicate_tuples(const ia::Replication& spec, const Tuples& in) {
    Tuples out;
    for (const auto& [k, t] : in)
        for (Key& copy : spec.keys_of(k)) out.emplace_hint(out.end(), std::move(copy), t);
    return out;
}

}  // namespace tra::runtime
