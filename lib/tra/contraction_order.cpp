#include "tra/contraction_order.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <tuple>

#include "core/error.hpp"

namespace tra {

namespace {

using Labels = std::uint32_t;  // bit c - 'a' set: label c present

Labels labels_of(const std::string& s) {
    Labels m = 0;
    for (char c : s) m |= Labels{1} << (c - 'a');
    return m;
}

double elements(const ContractionProblem& p, Labels m) {
    double n = 1;
    for (int c = 0; c < 26; ++c)
        if (m & (Labels{1} << c)) n *= p.extent[static_cast<std::size_t>(c)];
    return n;
}

// Fewer flops first; then a smaller largest intermediate.
bool cheaper(const ContractionOrder& a, const ContractionOrder& b) {
    if (a.flops != b.flops) return a.flops < b.flops;
    return a.largest_intermediate < b.largest_intermediate;
}

// The labels the result of a contraction keeps, given the labels of every operand not in it.
// The last contraction yields the output; before it, without early sums, every label stays
// (the lowering sums after the last join then).
Labels kept(const ContractionProblem& p, Labels joined, Labels others, bool last) {
    if (last) return labels_of(p.output);
    if (!p.early_sums) return joined;
    return joined & (labels_of(p.output) | others);
}

}  // namespace

ContractionOrder evaluate_order(const ContractionProblem& p, const ContractionPath& path) {
    std::vector<Labels> items;
    for (const auto& op : p.operands) items.push_back(labels_of(op));
    if (items.empty() || path.size() + 1 != items.size())
        throw Error("a contraction path for " + std::to_string(items.size()) + " operands has " +
                    std::to_string(items.size() ? items.size() - 1 : 0) + " pairs, not " +
                    std::to_string(path.size()));
    ContractionOrder order{path, 0, 0};
    for (auto [i, j] : path) {
        if (i >= j || j >= items.size())
            throw Error("contraction pair (" + std::to_string(i) + ", " + std::to_string(j) +
                        ") is not i < j < " + std::to_string(items.size()));
        const Labels joined = items[i] | items[j];
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(j));
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
        Labels others = 0;
        for (Labels m : items) others |= m;
        const Labels result = kept(p, joined, others, items.empty());
        order.flops += elements(p, joined);
        if (!items.empty())
            order.largest_intermediate = std::max(order.largest_intermediate, elements(p, result));
        items.push_back(result);
    }
    return order;
}

ContractionOrder written_order(const ContractionProblem& p) {
    const std::size_t n = p.operands.size();
    ContractionPath path;
    if (n >= 2) path.emplace_back(0, 1);
    // The running result is last in the list of m - 1 operands, the next written one first.
    for (std::size_t m = n; m > 2; --m) path.emplace_back(0, m - 2);
    return evaluate_order(p, path);
}

ContractionOrder optimal_order(const ContractionProblem& p) {
    const std::size_t n = p.operands.size();
    if (n == 0 || n > 16)
        throw Error("optimal_order orders 1 to 16 operands, not " + std::to_string(n));
    const std::size_t all = (std::size_t{1} << n) - 1;
    // For each subset S of operands: the union of their labels, the labels of S's contracted
    // result (the same whatever the order inside S), and the cheapest way to contract S.
    std::vector<Labels> unite(all + 1, 0), result(all + 1, 0);
    for (std::size_t s = 1; s <= all; ++s) {
        const auto low = static_cast<std::size_t>(std::countr_zero(s));
        unite[s] = unite[s & (s - 1)] | labels_of(p.operands[low]);
    }
    for (std::size_t s = 1; s <= all; ++s)
        result[s] = std::popcount(s) == 1 ? unite[s] : kept(p, unite[s], unite[all ^ s], s == all);
    struct Best {
        double flops = 0, largest = 0;
        std::size_t split = 0;  // one side of the last contraction; 0 for a single operand
    };
    std::vector<Best> best(all + 1);
    for (std::size_t s = 1; s <= all; ++s) {
        if (std::popcount(s) == 1) continue;
        const std::size_t low = s & (~s + 1);
        bool found = false;
        // Each split {a, s ^ a} once: a holds s's lowest operand. Ascending, so that among
        // equal costs the earliest written operands are split off first and joined last:
        // ea,fb,gc,hd,abcd reads (ea,(fb,(gc,(hd,abcd)))).
        for (std::size_t a = (0 - s) & s; a != s; a = (a - s) & s) {
            if (!(a & low)) continue;
            const std::size_t b = s ^ a;
            const Best cand{best[a].flops + best[b].flops + elements(p, result[a] | result[b]),
                            std::max(best[a].largest, best[b].largest), a};
            if (!found || cand.flops < best[s].flops ||
                (cand.flops == best[s].flops && cand.largest < best[s].largest)) {
                best[s] = cand;
                found = true;
            }
        }
        if (s != all) best[s].largest = std::max(best[s].largest, elements(p, result[s]));
    }
    // Replay the tree as a path: children first, each pair found in the running list.
    ContractionPath path;
    std::vector<std::size_t> list;
    for (std::size_t i = 0; i < n; ++i) list.push_back(std::size_t{1} << i);
    auto emit = [&](auto&& self, std::size_t s) -> void {
        if (std::popcount(s) == 1) return;
        const std::size_t a = best[s].split, b = s ^ a;
        self(self, a);
        self(self, b);
        auto i = static_cast<std::size_t>(std::find(list.begin(), list.end(), a) - list.begin());
        auto j = static_cast<std::size_t>(std::find(list.begin(), list.end(), b) - list.begin());
        if (i > j) std::swap(i, j);
        path.emplace_back(i, j);
        list.erase(list.begin() + static_cast<std::ptrdiff_t>(j));
        list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
        list.push_back(s);
    };
    emit(emit, all);
    return evaluate_order(p, path);
}

ContractionOrder greedy_order(const ContractionProblem& p) {
    std::vector<Labels> items;
    for (const auto& op : p.operands) items.push_back(labels_of(op));
    ContractionPath path;
    while (items.size() > 1) {
        // Key of a pair: shares no label (outer products last), flops, result size.
        std::tuple<bool, double, double> best_key{};
        std::pair<std::size_t, std::size_t> best_pair{0, 1};
        Labels best_result = 0;
        for (std::size_t i = 0; i < items.size(); ++i)
            for (std::size_t j = i + 1; j < items.size(); ++j) {
                Labels others = 0;
                for (std::size_t k = 0; k < items.size(); ++k)
                    if (k != i && k != j) others |= items[k];
                const Labels joined = items[i] | items[j];
                const Labels result = kept(p, joined, others, items.size() == 2);
                const std::tuple<bool, double, double> key{
                    (items[i] & items[j]) == 0, elements(p, joined), elements(p, result)};
                if ((i == 0 && j == 1) || key < best_key) {
                    best_key = key;
                    best_pair = {i, j};
                    best_result = result;
                }
            }
        path.push_back(best_pair);
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(best_pair.second));
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(best_pair.first));
        items.push_back(best_result);
    }
    return evaluate_order(p, path);
}

ContractionOrder choose_contraction_order(const ContractionProblem& p) {
    const ContractionOrder written = written_order(p);
    // Without early sums every intermediate keeps all its labels, so the last join costs the
    // product of all extents in any order, and no order gains more than a factor of the operand
    // count: the written order stays, which keeps the user in control of the keys' layout.
    if (!p.early_sums || p.operands.size() < 3) return written;
    ContractionOrder best =
        p.operands.size() <= kOptimalOperands ? optimal_order(p) : greedy_order(p);
    return cheaper(best, written) ? best : written;
}

}  // namespace tra
