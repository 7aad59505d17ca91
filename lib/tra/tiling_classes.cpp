#include "tra/tiling_classes.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "core/checked_math.hpp"
#include "tra/einsum_lowering.hpp"

namespace tra {

int TilingClasses::fresh(Slot s) {
    slots_.push_back(s);
    refusals_.emplace_back();
    parent_.push_back(static_cast<int>(parent_.size()));
    return static_cast<int>(slots_.size()) - 1;
}

int TilingClasses::find(int s) const {
    while (parent_[s] != s) s = parent_[s] = parent_[parent_[s]];
    return s;
}

void TilingClasses::link(int a, int b) {
    if (a >= 0 && b >= 0) links_.emplace_back(a, b);
}

void TilingClasses::unite(int a, int b) {
    if (a < 0 || b < 0) return;
    a = find(a);
    b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
}

std::vector<int> TilingClasses::keys_of(const std::string& relation) const {
    const auto it = keys_.find(relation);
    return it == keys_.end() ? std::vector<int>{} : it->second;
}

std::vector<bool> TilingClasses::zeros_of(const std::string& relation) const {
    const auto it = zeros_.find(relation);
    std::vector<bool> z = it == zeros_.end() ? std::vector<bool>{} : it->second;
    z.resize(keys_of(relation).size(), false);
    return z;
}

bool TilingClasses::finite_of(const std::string& relation) const {
    const auto it = finite_.find(relation);
    return it != finite_.end() && it->second;
}

std::vector<int> TilingClasses::dims_of(const std::string& relation) const {
    const std::size_t n = keys_of(relation).size();
    const auto it = dims_.find(relation);
    if (it != dims_.end() && it->second.size() == n) return it->second;
    std::vector<int> identity(n);  // a tensor: key position d cuts tile dimension d
    for (std::size_t d = 0; d < n; ++d) identity[d] = static_cast<int>(d);
    return identity;
}

std::optional<std::size_t> TilingClasses::rank_of(const std::string& relation) const {
    const auto it = ranks_.find(relation);
    return it == ranks_.end() ? std::nullopt : std::optional<std::size_t>(it->second);
}

bool TilingClasses::is_tensor(const std::string& relation) const {
    const std::vector<int> dims = dims_of(relation);
    if (rank_of(relation) != dims.size()) return false;
    for (std::size_t d = 0; d < dims.size(); ++d)
        if (dims[d] != static_cast<int>(d)) return false;
    return true;
}

const TilingClasses::Refusal* TilingClasses::refusal(int slot) const {
    const int root = find(slot);
    const Refusal* first = nullptr;
    for (std::size_t s = 0; s < slots_.size(); ++s) {
        const Refusal& r = refusals_[s];
        if (r.order >= 0 && find(static_cast<int>(s)) == root && (!first || r.order < first->order))
            first = &r;
    }
    return first;
}

void TilingClasses::no_padding(const std::vector<int>& slots, const std::string& why) {
    for (int s : slots)
        if (s >= 0 && refusals_[s].order < 0) refusals_[s] = {refused_, why};
    ++refused_;
}

void TilingClasses::add_fill(const std::string& step, std::size_t operand, std::size_t position,
                             double value) {
    std::vector<FoldFill>& fills = fills_[step];  // in operand order, positions sorted
    auto it = std::find_if(fills.begin(), fills.end(),
                           [&](const FoldFill& f) { return f.operand >= operand; });
    if (it == fills.end() || it->operand != operand)
        it = fills.insert(it, FoldFill{operand, {}, value});
    const auto at = std::lower_bound(it->positions.begin(), it->positions.end(), position);
    if (at == it->positions.end() || *at != position) it->positions.insert(at, position);
}

void TilingClasses::add_input(const std::string& name, const Shape& shape,
                              const std::vector<std::int64_t>& tile) {
    std::vector<int> keys;
    for (std::size_t d = 0; d < shape.size(); ++d)
        keys.push_back(
            fresh({shape[d], d < tile.size() ? tile[d] : shape[d], inputs_.size(), d, true}));
    inputs_.push_back({name, shape, tile});
    input_names_.insert(name);
    zeros_[name] = std::vector<bool>(keys.size(), true);
    finite_[name] = true;
    ranks_[name] = shape.size();
    keys_[name] = std::move(keys);
}

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

namespace {
bool reads_tiling(const kernels::KernelCall& kernel) {
    return kernel.properties().requires_whole_rows || kernel.properties().reads_tile_position;
}
}  // namespace

void TilingClasses::add_join(const std::string& name, const std::string& left,
                             const std::string& right, const KeyPositions& left_keys,
                             const KeyPositions& right_keys, const kernels::KernelCall& kernel,
                             const SourceLocation& where) {
    const std::vector<int> l = keys_of(left), r = keys_of(right);
    if (reads_tiling(kernel)) {
        const std::string what = "kernel " + kernel.name() + " reads whole rows or tile positions";
        depends(name, left, what, where);
        depends(name, right, what, where);
    }
    for (std::size_t i = 0; i < left_keys.size() && i < right_keys.size(); ++i)
        if (left_keys[i] < l.size() && right_keys[i] < r.size())
            unite(l[left_keys[i]], r[right_keys[i]]);
    std::vector<int> out = l;
    for (std::size_t p = 0; p < r.size(); ++p)
        if (std::find(right_keys.begin(), right_keys.end(), p) == right_keys.end())
            out.push_back(r[p]);
    // Padding is followed through an element-wise kernel joining two relations on every
    // position in order (tiles of one shape, entry meets entry) and through a sum of products
    // (the matmul family); other joins may mix padded entries with real ones.
    const auto& props = kernel.properties();
    bool aligned = props.elementwise && l.size() == r.size() && left_keys.size() == l.size() &&
                   right_keys.size() == r.size();
    for (std::size_t p = 0; aligned && p < left_keys.size(); ++p)
        aligned = left_keys[p] == p && right_keys[p] == p;
    if (aligned) {
        const std::vector<bool> zl = zeros_of(left), zr = zeros_of(right);
        const bool finite = finite_of(left) && finite_of(right);
        std::vector<bool> zeros(out.size());
        for (std::size_t p = 0; p < zeros.size(); ++p)
            zeros[p] = (props.zero_preserving && zl[p] && zr[p]) ||
                       (props.zero_annihilates && finite && (zl[p] || zr[p]));
        zeros_[name] = std::move(zeros);
        dims_[name] = dims_of(left);
        if (const auto rank = rank_of(left)) ranks_[name] = *rank;
    } else if (!follow_product(name, left, right, left_keys, right_keys, props.sum_of_products)) {
        const std::string why =
            "step " + name + " joins with kernel " + kernel.name() +
            ", which tra does not follow padding through (only element-wise kernels joining "
            "every position in order, and the matmul family on the positions it sums)";
        no_padding(l, why);
        no_padding(r, why);
        zeros_[name] = std::vector<bool>(out.size(), false);
    }
    finite_[name] = finite_of(left) && finite_of(right) && props.finite;
    keys_[name] = std::move(out);
}

void TilingClasses::add_aggregate(const std::string& name, const std::string& operand,
                                  const KeyPositions& by, const kernels::KernelCall& kernel) {
    const std::vector<int> in = keys_of(operand), in_dims = dims_of(operand);
    const std::vector<bool> in_zeros = zeros_of(operand);
    const auto& props = kernel.properties();
    // Folding tiles along a dropped position that cuts a tile dimension adds the padded entries
    // of its last tiles to the real entries of the others: exact when they are zeros and the
    // fold is a sum (identity 0), or when the operand is a tensor, whose padding the loader
    // first fills with the fold's identity where it does not hold it (padding_fill_steps.hpp).
    // A position that cuts no tile dimension pads nothing.
    const bool sums = props.identity && *props.identity == 0.0;
    const bool filled = props.identity && is_tensor(operand);
    for (std::size_t p = 0; p < in.size(); ++p) {
        if (std::find(by.begin(), by.end(), p) != by.end() || in_dims[p] < 0) continue;
        if (filled)
            add_fill(name, 0, p, *props.identity);
        else if (!(sums && in_zeros[p]))
            no_padding({in[p]}, "step " + name + " aggregates by " + kernel.name() +
                                    " a relation that is not a plain tensor, folding padded "
                                    "entries that are not zeros into real ones");
    }
    // Kept positions: padded entries fold with padded entries only.
    std::vector<int> out, dims;
    std::vector<bool> zeros;
    for (std::size_t p : by) {
        const bool known = p < in.size();
        out.push_back(known ? in[p] : -1);
        dims.push_back(known ? in_dims[p] : -1);
        zeros.push_back(known && in_zeros[p] && props.zero_preserving);
    }
    keys_[name] = std::move(out);
    dims_[name] = std::move(dims);
    zeros_[name] = std::move(zeros);
    finite_[name] = finite_of(operand) && props.finite;
    if (const auto rank = rank_of(operand)) ranks_[name] = *rank;
}

void TilingClasses::add_transform(const std::string& name, const std::string& operand,
                                  const kernels::KernelCall& kernel, const SourceLocation& where) {
    if (reads_tiling(kernel))
        depends(name, operand, "kernel " + kernel.name() + " reads whole rows or tile positions",
                where);
    keys_[name] = keys_of(operand);
    dims_[name] = dims_of(operand);
    if (const auto rank = rank_of(operand)) ranks_[name] = *rank;
    const auto& props = kernel.properties();
    std::vector<bool> zeros = zeros_of(operand);
    if (!props.elementwise)
        no_padding(keys_of(operand), "step " + name + " applies kernel " + kernel.name() +
                                         ", which is not element-wise: it may move or mix "
                                         "padded entries with real ones");
    for (std::size_t p = 0; p < zeros.size(); ++p)
        zeros[p] = zeros[p] && props.elementwise && props.zero_preserving;
    zeros_[name] = std::move(zeros);
    finite_[name] = finite_of(operand) && props.finite;
}

void TilingClasses::add_softmax(const std::string& name, const std::string& operand,
                                std::int64_t dim, bool log) {
    const std::vector<int> keys = keys_of(operand);
    // Along `dim` the lowering fills the padding with -inf, whose exp is 0: the sum is exact,
    // and softmax holds zeros there (log_softmax x - max - log(sum): finite values). Along the
    // others the padded rows are softmaxes of whatever they hold, not zeros.
    std::vector<bool> zeros(keys.size(), false);
    if (dim >= 0 && static_cast<std::size_t>(dim) < keys.size())
        zeros[static_cast<std::size_t>(dim)] = !log;
    zeros_[name] = std::move(zeros);
    finite_[name] = finite_of(operand);
    keys_[name] = keys;
    dims_[name] = dims_of(operand);
    if (const auto rank = rank_of(operand)) ranks_[name] = *rank;
}

void TilingClasses::add_carry(const std::string& input, const std::string& step) {
    const std::vector<int> a = keys_of(input), b = keys_of(step);
    for (std::size_t p = 0; p < a.size() && p < b.size(); ++p) unite(a[p], b[p]);
    // A carried relation is checkpointed and read back whole, tiles and all: not padded.
    const std::string why = "the loop carries step " + step + " into input " + input +
                            ", and a carried relation is checkpointed and read back whole";
    no_padding(a, why);
    no_padding(b, why);
}

void TilingClasses::add_output(const std::string& relation) {
    // An output is written cropped only where it is a tensor whose key position d cuts tile
    // dimension d (crop_outputs); a relation of other tiles (a matmul join's, an aggregate that
    // kept a tile dimension without a key) would be written with its padding.
    if (!is_tensor(relation))
        no_padding(keys_of(relation),
                   "output " + relation +
                       " is not a plain tensor (its key positions do not cut its tiles' "
                       "dimensions in order), so its padding could not be cropped");
}

void TilingClasses::add_tiling_dependent(const std::string& name, const std::string& operand,
                                         const std::string& what, const SourceLocation& where) {
    depends(name, operand, what, where);
    keys_[name] = {};  // opaque from here on
}

void TilingClasses::depends(const std::string& name, const std::string& operand,
                            const std::string& what, const SourceLocation& where) {
    dependents_.push_back({name, what, keys_of(operand), where});
}

}  // namespace tra
