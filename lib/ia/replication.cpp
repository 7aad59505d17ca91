#include "ia/replication.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace tra::ia {

std::int64_t Replication::arity() const {
    std::int64_t m = 1;
    for (const auto& p : positions)
        if (!p.from) m *= p.copies;
    return m;
}

std::optional<std::string> Replication::problem(std::size_t source_arity) const {
    std::vector<int> seen(source_arity, 0);
    for (const auto& p : positions) {
        if (!p.from) {
            if (p.copies < 1)
                return "a new key position needs at least one copy, got 0:" +
                       std::to_string(p.copies);
            continue;
        }
        if (*p.from >= source_arity)
            return "k" + std::to_string(*p.from) + " is outside the source key of " +
                   std::to_string(source_arity) + " positions";
        if (++seen[*p.from] > 1) return "k" + std::to_string(*p.from) + " appears twice";
    }
    for (std::size_t i = 0; i < source_arity; ++i)
        if (!seen[i]) return "source key position k" + std::to_string(i) + " is missing";
    return std::nullopt;
}

Key Replication::source_key(const Key& replicated) const {
    std::size_t arity = 0;
    for (const auto& p : positions)
        if (p.from) ++arity;
    Key source(arity);
    for (std::size_t i = 0; i < positions.size(); ++i)
        if (positions[i].from) source[*positions[i].from] = replicated[i];
    return source;
}

std::vector<Key> Replication::keys_of(const Key& source) const {
    // An odometer over the new positions, the last one fastest: ascending key order.
    std::vector<std::size_t> fresh;
    Key k(positions.size());
    for (std::size_t i = 0; i < positions.size(); ++i) {
        if (positions[i].from)
            k[i] = source[*positions[i].from];
        else
            fresh.push_back(i);
    }
    std::vector<Key> out;
    for (;;) {
        out.push_back(k);
        for (std::size_t j = fresh.size();;) {
            if (j == 0) return out;
            const std::size_t p = fresh[--j];
            if (++k[p] < positions[p].copies) break;
            k[p] = 0;
        }
    }
}

std::string Replication::str() const {
    std::string s = "(";
    for (std::size_t i = 0; i < positions.size(); ++i) {
        s += i ? ", " : "";
        s += positions[i].from ? "k" + std::to_string(*positions[i].from)
                               : "0:" + std::to_string(positions[i].copies);
    }
    return s + ")";
}

std::shared_ptr<const ReplicatedRelation> replicate_relation(const Node& source,
                                                             const Replication& spec) {
    if (auto why = spec.problem(source.type.key_arity))
        throw Error("replication " + spec.str() + " of '" + source.name + "': " + *why, {},
                    ErrorKind::Failed);
    auto out = std::make_shared<ReplicatedRelation>();
    out->spec = spec;
    Node& r = out->relation;
    r.name = source.name + "*";
    r.op = source.op;
    r.inputs = source.inputs;
    r.where = source.where;
    r.lowered_from = source.lowered_from;
    r.needed = source.needed;
    r.type = source.type;
    r.type.key_arity = spec.positions.size();
    if (source.keys.held_as_box()) {
        // Every source position is kept once, so the copies of a box are a box: the source's
        // extents moved to their new positions, and the copies along each new one.
        Frontier box(spec.positions.size());
        for (std::size_t i = 0; i < spec.positions.size(); ++i) {
            const ReplicatedPosition& p = spec.positions[i];
            box[i] = p.from ? source.keys.box_frontier()[*p.from] : p.copies;
        }
        r.keys = KeySet::box(box);
    } else {
        for (const Key& k : source.keys)
            for (const Key& rk : spec.keys_of(k)) r.keys.insert(rk);
    }
    r.frontier = r.keys.frontier(r.type.key_arity);
    return out;
}

Placement replicated_placement(const Placement& in, const Replication& spec) {
    // The replicated position holding source position d.
    auto moved = [&](std::size_t d) {
        for (std::size_t i = 0; i < spec.positions.size(); ++i)
            if (spec.positions[i].from == d) return i;
        throw Error("replication " + spec.str() + " drops key position " + std::to_string(d), {},
                    ErrorKind::Failed);
    };
    KeyPositions dims;
    for (std::size_t d : in.dims()) dims.push_back(moved(d));
    return in.on_positions(std::move(dims));
}

SiteMap replicated_sites(const SiteMap& in, const KeySet& replicated_keys,
                         const Replication& spec) {
    SiteMap out;
    out.reserve(replicated_keys.size());
    Key last_source;
    for (const Key& k : replicated_keys) {
        Key source = spec.source_key(k);
        if (!out.empty() && source == last_source) {
            out.append(k);  // another copy of the same tuple: where the last one is
            continue;
        }
        out.append(k, in.at(source));
        last_source = std::move(source);
    }
    return out;
}

}  // namespace tra::ia
