#include "ia/shared_costs.hpp"

#include <utility>

namespace tra::ia {

namespace {

std::size_t transfer_bytes(const Transfer& t) {
    const std::size_t per_site = t.received_payload.size() + t.received_overhead.size() +
                                 t.sent_payload.size() + t.sent_overhead.size() +
                                 t.sent_messages.size() + t.received_messages.size();
    return sizeof(Transfer) + per_site * sizeof(std::int64_t);
}

std::size_t holders_bytes(const SiteMap& m) {
    return m.memory_bytes();
}

}  // namespace

template <class T>
std::shared_ptr<const T> SharedCosts::find(
    std::map<std::string, std::shared_ptr<const T>> Generation::*kind, const std::string& key,
    std::size_t (*bytes)(const T&)) {
    const std::lock_guard lock(mutex_);
    if (const auto found = (newer_.*kind).find(key); found != (newer_.*kind).end())
        return found->second;
    const auto found = (older_.*kind).find(key);
    if (found == (older_.*kind).end()) return nullptr;
    std::shared_ptr<const T> value = std::move(found->second);
    (older_.*kind).erase(found);
    older_.bytes -= bytes(*value) + key.size();
    add_to_newer(kind, key, value, bytes(*value));
    return value;
}

template <class T>
void SharedCosts::keep(std::map<std::string, std::shared_ptr<const T>> Generation::*kind,
                       const std::string& key, std::shared_ptr<const T> value, std::size_t bytes) {
    const std::lock_guard lock(mutex_);
    if ((newer_.*kind).count(key)) return;  // another thread made it meanwhile
    add_to_newer(kind, key, std::move(value), bytes);
}

template <class T>
void SharedCosts::add_to_newer(std::map<std::string, std::shared_ptr<const T>> Generation::*kind,
                               const std::string& key, std::shared_ptr<const T> value,
                               std::size_t bytes) {
    if (newer_.bytes + bytes + key.size() > max_bytes_ / 2) {
        older_ = std::move(newer_);
        newer_ = Generation{};
    }
    newer_.bytes += bytes + key.size();
    (newer_.*kind).emplace(key, std::move(value));
}

Transfer SharedCosts::box_transfer(const Frontier& box, std::size_t key_arity,
                                   std::size_t tile_bytes, const Placement& from,
                                   const Placement& to, int sites, const SiteMap& held) {
    const std::string key = box.str() + " " + std::to_string(key_arity) + " " +
                            std::to_string(tile_bytes) + " " + from.str() + " -> " + to.str() +
                            " on " + std::to_string(sites);
    if (auto found = find(&Generation::transfers, key, &transfer_bytes)) return *found;
    // Computed outside the lock: two threads may both compute one; they get the same numbers.
    auto made =
        std::make_shared<const Transfer>(exact_transfer(held, key_arity, tile_bytes, to, sites));
    keep(&Generation::transfers, key, made, transfer_bytes(*made));
    return *made;
}

std::shared_ptr<const SiteMap> SharedCosts::box_holders(const Frontier& box,
                                                        const Placement& placement, int sites) {
    const std::string key = box.str() + " " + placement.str() + " on " + std::to_string(sites);
    if (auto found = find(&Generation::holders, key, &holders_bytes)) return found;
    auto made = std::make_shared<const SiteMap>(holders(KeySet::box(box), placement, sites));
    keep(&Generation::holders, key, made, holders_bytes(*made));
    return made;
}

}  // namespace tra::ia
