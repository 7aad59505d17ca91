#pragma once
// PerSite: one int64 per site (bytes resident, sent or received; messages), immutable and
// shared. A node's costs are computed once per memo entry (plan_costs.hpp) and then held by
// every partial plan that places the node the same way; at 1024 sites a Transfer's six figures
// per site are 48 KiB, which copying into each plan cost more than costing them. Copies share
// one array; build a std::vector and convert it to change one.
//
//   PerSite r = std::vector<std::int64_t>{256, 256};
//   r[1], r.size(), for (std::int64_t b : r), r.values()  // read-only
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

namespace tra::ia {

class PerSite {
  public:
    PerSite() = default;
    PerSite(std::vector<std::int64_t> values)  // NOLINT: a PerSite is built from its values
        : values_(std::make_shared<const std::vector<std::int64_t>>(std::move(values))) {}
    PerSite(std::initializer_list<std::int64_t> values)
        : PerSite(std::vector<std::int64_t>(values)) {}

    const std::vector<std::int64_t>& values() const { return values_ ? *values_ : kNone; }
    operator const std::vector<std::int64_t>&() const { return values(); }  // NOLINT

    std::size_t size() const { return values().size(); }
    bool empty() const { return values().empty(); }
    std::int64_t operator[](std::size_t s) const { return values()[s]; }
    std::int64_t at(std::size_t s) const { return values().at(s); }
    auto begin() const { return values().begin(); }
    auto end() const { return values().end(); }

    // Which array this is, for memos of figures computed from it (time_estimate.cpp): while
    // `watch()` has not expired, no other array has this identity. Null when empty.
    const void* identity() const { return values_.get(); }
    std::weak_ptr<const std::vector<std::int64_t>> watch() const { return values_; }

    friend bool operator==(const PerSite& a, const PerSite& b) { return a.values() == b.values(); }
    friend bool operator==(const PerSite& a, const std::vector<std::int64_t>& b) {
        return a.values() == b;
    }

  private:
    static inline const std::vector<std::int64_t> kNone{};  // constant-initialized: no guard
    std::shared_ptr<const std::vector<std::int64_t>> values_;
};

// Site s's figure, or 0 beyond the array (a Transfer that never counted per site: nothing moved).
inline std::int64_t figure_at(const std::vector<std::int64_t>& per_site, std::size_t s) {
    return s < per_site.size() ? per_site[s] : 0;
}

}  // namespace tra::ia
