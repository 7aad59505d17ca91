#include "tra/tiling_classes.hpp"

#include <algorithm>
#include <optional>

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
