#pragma once
// Costs that depend only on what they are of, shared by the plans of several tilings.
//
// The tiling search (optimizer/tiling_search.hpp) plans dozens of tilings that differ in one
// class of dimensions at a time, so most relations are cut alike in most of them, and the same
// relation moved between the same placements is costed again and again: at 1024 sites, tens of
// thousands of tuples each time. A move of a relation whose keys are a box, from a placement to
// another, is a function of (box, key arity, tile bytes, from, to, sites) alone (ia/transfer.hpp
// never looks at anything else), so its Transfer is kept under that description and reused,
// by every thread (a mutex guards it); so are the holders of a box under a placement. The same
// numbers come out either way: this only skips recomputing them. Bounded (kMaxBytes): entries
// live in two generations of at most half that each; when the newer one fills it becomes the
// older and the older is forgotten, so what the last tilings used stays (a hit in the older
// generation moves the entry to the newer).
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/index_vector.hpp"
#include "ia/placement.hpp"
#include "ia/transfer.hpp"

namespace tra::ia {

class SharedCosts {
  public:
    static constexpr std::size_t kMaxBytes = std::size_t{512} << 20;

    explicit SharedCosts(std::size_t max_bytes = kMaxBytes) : max_bytes_(max_bytes) {}

    // exact_transfer(held, key_arity, tile_bytes, to, sites) where `held` is holders(box, from),
    // computed once per description.
    Transfer box_transfer(const Frontier& box, std::size_t key_arity, std::size_t tile_bytes,
                          const Placement& from, const Placement& to, int sites,
                          const SiteMap& held);

    // holders(KeySet::box(box), placement, sites), computed once.
    std::shared_ptr<const SiteMap> box_holders(const Frontier& box, const Placement& placement,
                                               int sites);

  private:
    struct Generation {
        std::map<std::string, std::shared_ptr<const Transfer>> transfers;
        std::map<std::string, std::shared_ptr<const SiteMap>> holders;
        std::size_t bytes = 0;
    };
    // The entry under `key` of one kind (a Generation member), moved to the newer generation
    // when found in the older; null when neither has it.
    template <class T>
    std::shared_ptr<const T> find(std::map<std::string, std::shared_ptr<const T>> Generation::*kind,
                                  const std::string& key, std::size_t (*bytes)(const T&));
    // Keeps `value` under `key` in the newer generation, turning generations first if full.
    template <class T>
    void keep(std::map<std::string, std::shared_ptr<const T>> Generation::*kind,
              const std::string& key, std::shared_ptr<const T> value, std::size_t bytes);

    // The same with the lock held: turns the generations first if the newer is full.
    template <class T>
    void add_to_newer(std::map<std::string, std::shared_ptr<const T>> Generation::*kind,
                      const std::string& key, std::shared_ptr<const T> value, std::size_t bytes);

    std::size_t max_bytes_;
    std::mutex mutex_;
    Generation newer_, older_;
};

}  // namespace tra::ia
