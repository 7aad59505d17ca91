// How an einsum step ties its operands' tilings (TilingClasses::add_einsum): a label's tiling is
// one class across the operands and the output, and padding follows where the join and the
// aggregation keep zeros.
#include <optional>
#include <set>
#include <string>

#include "tra/einsum_lowering.hpp"
#include "tra/tiling_classes.hpp"

namespace tra {

namespace {
// How an einsum's scalar join keeps zeros: a product is zero where one factor is (and the others
// are finite); add, sub, max and min where every operand is. An expression is not followed (no
// padding through it).
bool join_annihilates(const EinsumStep& step) {
    return step.join_expr.empty() && step.join_op == "mul";
}
// Why add_einsum cannot pad contracted label c: the rest of "step NAME (einsum SPEC) ...".
std::string contraction_refusal(const EinsumStep& step, char c) {
    const std::string label = std::string("label '") + c + "'";
    if (step.inputs.size() == 1)
        return "reduces " + label + " by " + step.agg_op +
               " of a relation that is not a plain tensor, whose padding tra cannot set to the "
               "reduction's identity";
    if (step.agg_op != "add")
        return "reduces " + label + " by " + step.agg_op +
               " over several operands: tra pads only under sums of products and folds of one "
               "tensor";
    if (!join_annihilates(step))
        return "sums " + label + " over a join by " +
               (step.join_expr.empty() ? step.join_op : std::string("an expression")) +
               " whose padding is not zero";
    return "sums products over " + label +
           " where no factor holds zeros in the padding or can be set to 0 (each is not a "
           "plain tensor or meets a factor whose padding is not finite: 0 x inf is NaN)";
}
bool join_preserves(const EinsumStep& step) {
    static const std::set<std::string> preserving = {"mul", "add", "sub", "max", "min"};
    return step.join_expr.empty() && preserving.count(step.join_op) > 0;
}
}  // namespace

void TilingClasses::add_einsum(const std::string& name, const EinsumStep& step) {
    std::optional<EinsumSpec> spec;
    try {
        spec = EinsumSpec::parse(step.spec);
    } catch (const Error&) {
    }
    const std::vector<std::string>& operands = step.inputs;
    std::vector<int> out;
    std::vector<bool> out_zeros;
    if (spec && spec->operands.size() == operands.size()) {
        std::map<char, int> label;
        // Per label: the slots that carry it, and whether the joined value's padding along it
        // is zero (zero_seen: some operand has zeros there; everywhere: every operand has it,
        // with zeros).
        std::map<char, std::vector<int>> carriers;
        std::map<char, bool> zero_seen, everywhere;
        bool finite = step.join_expr.empty() && step.join_op != "div";
        for (const std::string& labels : spec->operands)
            for (const char c : labels) everywhere[c] = true;
        // A label some input operand carries is cut as those inputs are; an operand computed by
        // an earlier step keeps its producer's cut there (it is not tied), and the lowering
        // re-tiles it where the two differ (einsum_retile.hpp): the search may cut each einsum
        // apart from the steps feeding it, as EinDecomp repartitions between vertices. A label
        // only computed operands carry ties them as it ties inputs.
        std::set<char> anchored;
        std::vector<std::pair<char, int>> loose;  // computed operands' slots of anchored labels
        for (std::size_t i = 0; i < operands.size(); ++i)
            if (is_input(operands[i]) && keys_of(operands[i]).size() == spec->operands[i].size())
                anchored.insert(spec->operands[i].begin(), spec->operands[i].end());
        for (std::size_t i = 0; i < operands.size(); ++i) {
            const std::vector<int> keys = keys_of(operands[i]);
            const std::vector<bool> zeros = zeros_of(operands[i]);
            const bool followed = keys.size() == spec->operands[i].size();
            finite = finite && finite_of(operands[i]);
            for (auto& [c, all] : everywhere)
                if (!followed || spec->operands[i].find(c) == std::string::npos) all = false;
            if (!followed) continue;
            for (std::size_t p = 0; p < keys.size(); ++p) {
                const char c = spec->operands[i][p];
                carriers[c].push_back(keys[p]);
                zero_seen[c] = zero_seen[c] || zeros[p];
                everywhere[c] = everywhere[c] && zeros[p];
                if (anchored.count(c) && !is_input(operands[i])) {  // re-tiled if cut apart
                    loose.emplace_back(c, keys[p]);
                    followers_[name].emplace_back(i, keys[p]);
                    continue;
                }
                const auto [it, first] = label.emplace(c, keys[p]);
                if (!first) {
                    if (it->second < 0) it->second = keys[p];
                    unite(it->second, keys[p]);
                }
            }
        }
        for (const auto& [c, slot] : loose) link(label.at(c), slot);
        auto padding_zero = [&](char c) {
            return (join_preserves(step) && everywhere[c]) ||
                   (join_annihilates(step) && zero_seen[c] && finite);
        };
        finite_[name] = finite;
        // A contracted label's padded entries are folded into the real ones. Exact when
        //   - one tensor is reduced: the loader first sets its padding to the reduction's
        //     identity where it does not hold it (fold_fills.hpp);
        //   - the joined values are zero there and the reduction is a sum;
        //   - products are summed whose padding is not zero (no zero factor, or one meeting a
        //     factor that is not finite): the loader first sets one factor's padding to 0, one
        //     whose co-factors are finite (zero_fillable).
        const bool sums = step.agg_op == "add";
        const bool one_tensor =
            operands.size() == 1 && is_tensor(operands[0]) &&
            (sums || step.agg_op == "max" || step.agg_op == "min" || step.agg_op == "mul");
        auto fill = [&](std::size_t operand, char c, double value) {  // every position of c
            for (std::size_t p = 0; p < spec->operands[operand].size(); ++p)
                if (spec->operands[operand][p] == c) add_fill(name, operand, p, value);
        };
        for (const auto& [c, slots] : carriers) {
            if (spec->output.find(c) != std::string::npos) continue;
            if (one_tensor) {
                fill(0, c, *kernels::KernelCall(step.agg_op).properties().identity);
                continue;
            }
            if (sums && padding_zero(c)) continue;
            const std::optional<std::size_t> zeroed =
                sums && join_annihilates(step) ? zero_fillable(step, *spec, c) : std::nullopt;
            if (zeroed)
                fill(*zeroed, c, 0.0);
            else
                no_padding(slots, "step " + name + " (einsum \"" + step.spec + "\") " +
                                      contraction_refusal(step, c));
        }
        for (char c : spec->output) {
            out.push_back(label.count(c) ? label[c] : -1);
            out_zeros.push_back(padding_zero(c));
        }
    }
    zeros_[name] = std::move(out_zeros);
    if (spec) ranks_[name] = spec->output.size();
    keys_[name] = std::move(out);
}

}  // namespace tra
