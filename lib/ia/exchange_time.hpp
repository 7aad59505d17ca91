#pragma once
// The time model's communication of one exchange (time_estimate.hpp): every site's own time
// (the bytes it sends and receives at once at its links' duplex rate, the rest of the larger
// direction at their one-way rate, plus a latency and the runtime's own cost per message,
// MachineProfile::message_seconds, per peer in each direction), and every host's network link,
// which the sites on that host share (a host sends and receives at the across-host rates,
// whatever the number of its ranks that talk across at once). Operators and the loop's carry
// are timed by this one class.
//
//   ExchangeTime exchange(model, plan.sites());
//   auto [site, seconds] = exchange.slowest(node.cost.transfer);
#include <cstddef>
#include <utility>
#include <vector>

#include "ia/time_estimate.hpp"
#include "ia/transfer.hpp"

namespace tra::ia {

class ExchangeTime {
  public:
    ExchangeTime(const TimeModel& model, std::size_t sites);

    // An exchange's seconds and the site that takes longest (the first of equals): no site
    // finishes before its host's shared network link has carried the exchange.
    std::pair<std::size_t, double> slowest(const Transfer& transfer) const;

  private:
    struct Figures;  // a Transfer's per-site arrays, looked up once per exchange
    // What a byte and a message cost a site whose peers are on other hosts in share r: worked
    // out once per site, not once per site and exchange (the search asks thousands).
    struct SiteRates {
        double per_byte = 0, per_duplex_byte = 0, per_message = 0;
    };
    SiteRates rates_for(double r) const;

    double site(const Figures& t, std::size_t s) const;
    std::pair<std::size_t, double> work_out_slowest(const Transfer& transfer) const;
    // The busiest host's link: its sites' traffic to other hosts, each direction apart.
    double busiest_link(const Figures& t) const;

    LinkRates near_, far_;
    double message_seconds_ = 0;          // the runtime's own per message, on either link
    SiteRates near_only_ = rates_for(0);  // every site, on one host
    std::vector<SiteRates> rates_;        // per site, on several hosts
    std::vector<double> share_;           // per site, the share of its peers on other hosts
    std::vector<int> hosts_;
};

}  // namespace tra::ia
