#include "core/relation.hpp"

namespace tra {

std::string RelationType::str() const {
    return "R^(" + std::to_string(key_arity) + "," + std::to_string(rank()) + "," + bound.str() +
           ") " + name_of(dtype);
}

KeySet TensorRelation::keys() const {
    KeySet s;
    for (const auto& [k, tile] : tuples) s.insert(k);
    return s;
}

}  // namespace tra
