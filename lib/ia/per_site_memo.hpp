#pragma once
// PerSiteMemo: results worked out from per-site arrays (per_site.hpp) and a few scalars, kept
// by the arrays' identities. The search costs a node once per memo entry and then holds its
// arrays in every partial plan that places the node alike; timing that node walks every site
// each time it is asked (at 1024 sites most of the time model's work), though the answer is the
// same. An entry holds weak references to its arrays: while they live no other array has their
// address, and an entry whose arrays have died never matches.
//
//   thread_local PerSiteMemo<2, 1, double> memo;
//   if (const double* known = memo.find({&a, &b}, {rate})) return *known;
//   memo.add({&a, &b}, {rate}, work_out(a, b, rate));
#include <array>
#include <cstddef>
#include <memory>
#include <vector>

#include "ia/per_site.hpp"

namespace tra::ia {

template <std::size_t Arrays, std::size_t Scalars, class Result>
class PerSiteMemo {
  public:
    using ArrayRefs = std::array<const PerSite*, Arrays>;  // a null pointer: no array
    using ScalarValues = std::array<double, Scalars>;

    const Result* find(const ArrayRefs& arrays, const ScalarValues& scalars) const {
        const Ids ids = ids_of(arrays);
        if (!any(ids)) return nullptr;
        for (const Entry& e : entries_)
            if (e.ids == ids && e.scalars == scalars && alive(e)) return &e.result;
        return nullptr;
    }

    // Keeps the last kEntries results; nothing for arrays that are all absent or empty.
    void add(const ArrayRefs& arrays, const ScalarValues& scalars, Result result) {
        Entry e{ids_of(arrays), {}, scalars, std::move(result)};
        if (!any(e.ids)) return;
        for (std::size_t i = 0; i < Arrays; ++i)
            if (arrays[i]) e.watches[i] = arrays[i]->watch();
        if (entries_.size() < kEntries)
            entries_.push_back(std::move(e));
        else
            entries_[next_++ % kEntries] = std::move(e);
    }

  private:
    static constexpr std::size_t kEntries = 64;
    using Ids = std::array<const void*, Arrays>;
    struct Entry {
        Ids ids;
        std::array<std::weak_ptr<const std::vector<std::int64_t>>, Arrays> watches;
        ScalarValues scalars;
        Result result;
    };

    static Ids ids_of(const ArrayRefs& arrays) {
        Ids ids{};
        for (std::size_t i = 0; i < Arrays; ++i)
            ids[i] = arrays[i] ? arrays[i]->identity() : nullptr;
        return ids;
    }
    static bool any(const Ids& ids) {
        for (const void* id : ids)
            if (id) return true;
        return false;
    }
    static bool alive(const Entry& e) {
        for (std::size_t i = 0; i < Arrays; ++i)
            if (e.ids[i] && e.watches[i].expired()) return false;
        return true;
    }

    std::vector<Entry> entries_;
    std::size_t next_ = 0;
};

}  // namespace tra::ia
