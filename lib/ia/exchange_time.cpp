#include "ia/exchange_time.hpp"

#include <algorithm>
#include <cstdint>

#include "ia/per_site_memo.hpp"

namespace tra::ia {

namespace {

// How a site's traffic splits over the two links: the share of its peers on other hosts.
double remote_share(const TimeModel& model, std::size_t s, std::size_t sites) {
    if (sites < 2 || s >= model.host_of_site.size()) return 0;
    const int host = model.host_of_site[s];
    const auto same = std::count(model.host_of_site.begin(), model.host_of_site.end(), host);
    return static_cast<double>(sites - static_cast<std::size_t>(same)) /
           static_cast<double>(sites - 1);
}

// Seconds to send `sent` and receive `received` bytes at once: the bytes both directions
// carry together at the duplex rate, the rest of the larger direction at the one-way rate.
double two_way_seconds(double sent, double received, double per_byte, double per_duplex_byte) {
    const double both = std::min(sent, received);
    return both * per_duplex_byte + (std::max(sent, received) - both) * per_byte;
}

}  // namespace

struct ExchangeTime::Figures {
    explicit Figures(const Transfer& t)
        : sent_payload(t.sent_payload),
          sent_overhead(t.sent_overhead),
          received_payload(t.received_payload),
          received_overhead(t.received_overhead),
          sent_messages(t.sent_messages),
          received_messages(t.received_messages) {}

    // Site s's two figures together (0 where a Transfer counted nothing per site).
    static double sum(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                      std::size_t s) {
        return static_cast<double>(figure_at(a, s)) + static_cast<double>(figure_at(b, s));
    }

    double sent(std::size_t s) const { return sum(sent_payload, sent_overhead, s); }
    double received(std::size_t s) const { return sum(received_payload, received_overhead, s); }
    double messages(std::size_t s) const { return sum(sent_messages, received_messages, s); }

    const std::vector<std::int64_t>&sent_payload, &sent_overhead, &received_payload,
        &received_overhead, &sent_messages, &received_messages;
};

ExchangeTime::ExchangeTime(const TimeModel& model, std::size_t sites)
    : near_(model.profile.same_host),
      far_(model.profile.across_hosts_or_default()),
      message_seconds_(model.profile.message_seconds) {
    share_.assign(sites, 0.0);  // one host (no host_of_site): every peer is near
    if (!model.host_of_site.empty()) {
        for (std::size_t s = 0; s < sites; ++s) share_[s] = remote_share(model, s, sites);
        for (double r : share_) rates_.push_back(rates_for(r));
    }
    hosts_ = model.host_of_site;
}

std::pair<std::size_t, double> ExchangeTime::slowest(const Transfer& transfer) const {
    // The beam times one costed enforcer in every partial plan that places it alike
    // (per_site_memo.hpp); on several hosts the link rates differ per site: not kept.
    if (!rates_.empty()) return work_out_slowest(transfer);
    thread_local PerSiteMemo<6, 4, std::pair<std::size_t, double>> memo;
    const Transfer& t = transfer;
    const decltype(memo)::ArrayRefs arrays = {&t.sent_payload,     &t.sent_overhead,
                                              &t.received_payload, &t.received_overhead,
                                              &t.sent_messages,    &t.received_messages};
    const decltype(memo)::ScalarValues scalars = {near_only_.per_byte, near_only_.per_duplex_byte,
                                                  near_only_.per_message,
                                                  static_cast<double>(share_.size())};
    if (const auto* known = memo.find(arrays, scalars)) return *known;
    const auto result = work_out_slowest(transfer);
    memo.add(arrays, scalars, result);
    return result;
}

ExchangeTime::SiteRates ExchangeTime::rates_for(double r) const {
    return {(1 - r) / near_.bytes_per_second + r / far_.bytes_per_second,
            (1 - r) / near_.duplex_rate() + r / far_.duplex_rate(),
            (1 - r) * near_.latency_seconds + r * far_.latency_seconds + message_seconds_};
}

double ExchangeTime::site(const Figures& t, std::size_t s) const {
    const SiteRates& r = rates_.empty() ? near_only_ : rates_[s];
    return two_way_seconds(t.sent(s), t.received(s), r.per_byte, r.per_duplex_byte) +
           t.messages(s) * r.per_message;
}

std::pair<std::size_t, double> ExchangeTime::work_out_slowest(const Transfer& transfer) const {
    const Figures t(transfer);
    std::size_t slowest_site = 0;
    double most = 0;
    for (std::size_t s = 0; s < share_.size(); ++s)
        if (const double here = site(t, s); s == 0 || here > most) {
            slowest_site = s;
            most = here;
        }
    return {slowest_site, std::max(most, busiest_link(t))};
}

double ExchangeTime::busiest_link(const Figures& t) const {
    if (hosts_.empty()) return 0;
    const int count = *std::max_element(hosts_.begin(), hosts_.end()) + 1;
    std::vector<double> out(static_cast<std::size_t>(count), 0.0), in = out;
    for (std::size_t s = 0; s < share_.size() && s < hosts_.size(); ++s) {
        const auto h = static_cast<std::size_t>(hosts_[s]);
        out[h] += share_[s] * t.sent(s);
        in[h] += share_[s] * t.received(s);
    }
    double most = 0;
    for (std::size_t h = 0; h < out.size(); ++h)
        most = std::max(most, two_way_seconds(out[h], in[h], 1 / far_.bytes_per_second,
                                              1 / far_.duplex_rate()));
    return most;
}

}  // namespace tra::ia
