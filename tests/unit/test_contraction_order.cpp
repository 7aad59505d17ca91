// Contraction order: the chosen order of random einsums against every pairwise contraction tree,
// enumerated by brute force here with its own cost count (sets of labels, no bit tricks).
#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "tra/contraction_order.hpp"

using namespace tra;

namespace {

using LabelSet = std::set<char>;

struct Cost {
    double flops = 0, largest = 0;
};

// The cost definition, written out plainly: contracting two operands costs the product of the
// extents of every label either holds; the result keeps the labels the output or another
// remaining operand holds (all labels without early sums), and the last one is the output.
struct Naive {
    const ContractionProblem& p;

    double elements(const LabelSet& s) const {
        double n = 1;
        for (char c : s) n *= p.extent[static_cast<std::size_t>(c - 'a')];
        return n;
    }
    LabelSet result(const LabelSet& joined, const std::vector<LabelSet>& others, bool last) const {
        LabelSet out(p.output.begin(), p.output.end());
        if (last) return out;
        if (!p.early_sums) return joined;
        for (const auto& o : others) out.insert(o.begin(), o.end());
        LabelSet kept;
        for (char c : joined)
            if (out.count(c)) kept.insert(c);
        return kept;
    }
    // Contracts items[i] and items[j]; returns its flops and the result's elements (0 if last).
    Cost contract(std::vector<LabelSet>& items, std::size_t i, std::size_t j) const {
        LabelSet joined = items[i];
        joined.insert(items[j].begin(), items[j].end());
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(j));
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
        const LabelSet r = result(joined, items, items.empty());
        items.push_back(r);
        return {elements(joined), items.size() == 1 ? 0 : elements(r)};
    }
    std::vector<LabelSet> start() const {
        std::vector<LabelSet> items;
        for (const auto& op : p.operands) items.emplace_back(op.begin(), op.end());
        return items;
    }
    // The cost of a path; fails the test unless it is a valid path.
    Cost of(const ContractionPath& path) const {
        auto items = start();
        REQUIRE(path.size() + 1 == items.size());
        Cost c;
        for (auto [i, j] : path) {
            REQUIRE(i < j);
            REQUIRE(j < items.size());
            const Cost s = contract(items, i, j);
            c.flops += s.flops;
            c.largest = std::max(c.largest, s.largest);
        }
        return c;
    }
    // The least (flops, largest intermediate) over every sequence of pairwise contractions,
    // which covers every contraction tree.
    Cost best(const std::vector<LabelSet>& items) const {
        if (items.size() == 1) return {};
        Cost best{std::numeric_limits<double>::infinity(), 0};
        for (std::size_t i = 0; i < items.size(); ++i)
            for (std::size_t j = i + 1; j < items.size(); ++j) {
                auto rest = items;
                const Cost step = contract(rest, i, j);
                const Cost after = this->best(rest);
                const Cost total{step.flops + after.flops, std::max(step.largest, after.largest)};
                if (total.flops < best.flops ||
                    (total.flops == best.flops && total.largest < best.largest))
                    best = total;
            }
        return best;
    }
};

// n operands over labels a..h, 1-4 labels each, extents 2-9; the output holds each label that
// appears with probability 1/3.
ContractionProblem random_problem(std::mt19937& rng, std::size_t n) {
    ContractionProblem p;
    std::uniform_int_distribution<int> label('a', 'h'), width(1, 4), extent(2, 9), coin(0, 2);
    LabelSet used;
    for (std::size_t i = 0; i < n; ++i) {
        LabelSet s;
        const int w = width(rng);
        while (static_cast<int>(s.size()) < w) s.insert(static_cast<char>(label(rng)));
        p.operands.emplace_back(s.begin(), s.end());
        std::shuffle(p.operands.back().begin(), p.operands.back().end(), rng);
        used.insert(s.begin(), s.end());
    }
    for (char c : used)
        if (coin(rng) == 0) p.output += c;
    for (auto& e : p.extent) e = extent(rng);
    return p;
}

std::string str(const ContractionProblem& p) {
    std::string s;
    for (const auto& op : p.operands) s += (s.empty() ? "" : ",") + op;
    return s + "->" + p.output;
}

}  // namespace

TEST_CASE("contraction order: optimal equals brute force over every tree, up to 6 operands",
          "[contraction_order]") {
    std::mt19937 rng(19);
    for (int round = 0; round < 400; ++round) {
        const std::size_t n = 3 + static_cast<std::size_t>(round % 4);
        const ContractionProblem p = random_problem(rng, n);
        const Naive naive{p};
        INFO(str(p));
        const Cost want = naive.best(naive.start());
        const ContractionOrder got = choose_contraction_order(p);
        const Cost have = naive.of(got.path);
        CHECK(have.flops == want.flops);
        CHECK(have.largest == want.largest);
        // What the order says of itself is what it costs.
        CHECK(got.flops == have.flops);
        CHECK(got.largest_intermediate == have.largest);
        CHECK(naive.of(optimal_order(p).path).flops == want.flops);
    }
}

TEST_CASE("contraction order: opt_einsum's 5-operand example contracts abcd first",
          "[contraction_order]") {
    ContractionProblem p{{"ea", "fb", "gc", "hd", "abcd"}, "efgh", {}, true};
    for (char c : std::string("abcdefgh")) p.extent[static_cast<std::size_t>(c - 'a')] = 32;
    const Naive naive{p};
    const ContractionOrder got = choose_contraction_order(p);
    // Each step contracts the 4-label intermediate with one matrix: 4 * 32^5 flops, and no
    // intermediate beyond 32^4 elements; left to right builds ea,fb,gc,hd's 32^8 outer product.
    CHECK(naive.of(got.path).flops == 4 * 33554432.0);
    CHECK(naive.of(got.path).largest == 1048576.0);
    CHECK(naive.of(written_order(p).path).largest == 1099511627776.0);  // 32^8
}

TEST_CASE("contraction order: greedy orders 10 operands with a valid tree", "[contraction_order]") {
    std::mt19937 rng(1910);
    for (int round = 0; round < 50; ++round) {
        const ContractionProblem p = random_problem(rng, 10);
        const Naive naive{p};
        INFO(str(p));
        const ContractionOrder greedy = greedy_order(p);
        const Cost have = naive.of(greedy.path);
        CHECK(greedy.flops == have.flops);
        // Beyond kOptimalOperands the choice is greedy, or written when greedy is no cheaper.
        const ContractionOrder chosen = choose_contraction_order(p);
        CHECK(naive.of(chosen.path).flops ==
              std::min(have.flops, naive.of(written_order(p).path).flops));
    }
}

TEST_CASE("contraction order: no early sums keeps the written order", "[contraction_order]") {
    std::mt19937 rng(7);
    for (int round = 0; round < 20; ++round) {
        ContractionProblem p = random_problem(rng, 5);
        p.early_sums = false;
        const ContractionPath written{{0, 1}, {0, 3}, {0, 2}, {0, 1}};
        CHECK(choose_contraction_order(p).path == written);
        CHECK(choose_contraction_order(p).flops == Naive{p}.of(written).flops);
    }
}

TEST_CASE("contraction order: invalid paths are refused", "[contraction_order][errors]") {
    ContractionProblem p{{"ij", "jk", "kl"}, "il", {}, true};
    p.extent.fill(2);
    CHECK_THROWS_AS(evaluate_order(p, {{0, 1}}), Error);
    CHECK_THROWS_AS(evaluate_order(p, {{1, 0}, {0, 1}}), Error);
    CHECK_THROWS_AS(evaluate_order(p, {{0, 1}, {0, 2}}), Error);
    CHECK(evaluate_order(p, {{1, 2}, {0, 1}}).flops == 8 + 8);
}
