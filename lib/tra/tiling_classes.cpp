#include "tra/tiling_classes.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include "core/checked_math.hpp"
#include "tra/einsum_lowering.hpp"

namespace tra {

int TilingClasses::fresh(Slot s) {
    slots_.push_back(s);
    unpaddable_.push_back(false);
    parent_.push_back(static_cast<int>(parent_.size()));
    return static_cast<int>(slots_.size()) - 1;
}

int TilingClasses::find(int s) const {
    while (parent_[s] != s) s = parent_[s] = parent_[parent_[s]];
    return s;
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

bool TilingClasses::paddable(int slot) const {
    const int root = find(slot);
    for (std::size_t s = 0; s < slots_.size(); ++s)
        if (unpaddable_[s] && find(static_cast<int>(s)) == root) return false;
    return true;
}

void TilingClasses::no_padding(const std::vector<int>& slots) {
    for (int s : slots)
        if (s >= 0) unpaddable_[s] = true;
}

void TilingClasses::add_input(const std::string& name, const Shape& shape,
                              const std::vector<std::int64_t>& tile) {
    std::vector<int> keys;
    for (std::size_t d = 0; d < shape.size(); ++d)
        keys.push_back(
            fresh({shape[d], d < tile.size() ? tile[d] : shape[d], inputs_.size(), d, true}));
    inputs_.push_back({name, shape, tile});
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
                const auto [it, first] = label.emplace(c, keys[p]);
                if (!first) {
                    if (it->second < 0) it->second = keys[p];
                    unite(it->second, keys[p]);
                }
            }
        }
        auto padding_zero = [&](char c) {
            return (join_preserves(step) && everywhere[c]) ||
                   (join_annihilates(step) && zero_seen[c] && finite);
        };
        finite_[name] = finite;
        // A contracted label's padded entries are summed with the real ones: exact when the
        // joined values are zero there and the reduction is a sum, or when one tensor is
        // reduced, whose padding the loader first fills with the reduction's identity where it
        // does not hold it (padding_fill_steps.hpp).
        const bool filled = operands.size() == 1 && is_tensor(operands[0]) &&
                            (step.agg_op == "add" || step.agg_op == "max" || step.agg_op == "min" ||
                             step.agg_op == "mul");
        for (const auto& [c, slots] : carriers)
            if (spec->output.find(c) == std::string::npos &&
                !(padding_zero(c) && step.agg_op == "add") && !filled)
                no_padding(slots);
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
        no_padding(l);
        no_padding(r);
        zeros_[name] = std::vector<bool>(out.size(), false);
    }
    finite_[name] = finite_of(left) && finite_of(right) && props.finite;
    keys_[name] = std::move(out);
}

bool TilingClasses::follow_product(const std::string& name, const std::string& left,
                                   const std::string& right, const KeyPositions& left_keys,
                                   const KeyPositions& right_keys, const std::string& spec) {
    const auto comma = spec.find(','), arrow = spec.find("->");
    if (comma == std::string::npos || arrow == std::string::npos) return false;
    const std::string letters[2] = {spec.substr(0, comma),
                                    spec.substr(comma + 1, arrow - comma - 1)};
    const std::string out_letters = spec.substr(arrow + 2);
    const std::string side[2] = {left, right};
    const KeyPositions* on[2] = {&left_keys, &right_keys};
    // Per operand and key position: the letter of the tile dimension it cuts (0: none).
    std::vector<char> letter[2];
    for (int o = 0; o < 2; ++o)
        for (int d : dims_of(side[o])) {
            if (d >= static_cast<int>(letters[o].size())) return false;
            letter[o].push_back(d < 0 ? 0 : letters[o][static_cast<std::size_t>(d)]);
        }
    // Positions joined to each other cut the same letter (or none), and a letter of both
    // operands is cut by joined positions: its padded entries meet padded entries only.
    auto joined_to = [&](int o, std::size_t p) -> std::optional<std::size_t> {
        for (std::size_t i = 0; i < on[o]->size(); ++i)
            if ((*on[o])[i] == p) return (*on[1 - o])[i];
        return std::nullopt;
    };
    for (int o = 0; o < 2; ++o)
        for (std::size_t p = 0; p < letter[o].size(); ++p) {
            const char c = letter[o][p];
            const std::optional<std::size_t> q = joined_to(o, p);
            if (q ? *q >= letter[1 - o].size() || letter[1 - o][*q] != c
                  : c != 0 && letters[1 - o].find(c) != std::string::npos)
                return false;
        }
    // Summed letters: the padded entries enter the sums, exact where either factor is zero (and
    // the other finite). Kept letters: the product's padding is zero where its operand's is (a
    // product with a zero).
    const std::vector<bool> zl = zeros_of(left), zr = zeros_of(right);
    const bool fl = finite_of(left), fr = finite_of(right);
    auto product_zero = [&](bool left_zero, bool right_zero) {
        return (left_zero && right_zero) || (left_zero && fr) || (right_zero && fl);
    };
    const std::vector<int> kl = keys_of(left), kr = keys_of(right);
    std::vector<bool> zeros;
    std::vector<int> dims;
    auto output_position = [&](char c, bool zero) {
        const auto d = c == 0 ? std::string::npos : out_letters.find(c);
        dims.push_back(d == std::string::npos ? -1 : static_cast<int>(d));
        zeros.push_back(d == std::string::npos || zero);  // no tile dimension: nothing padded
    };
    for (std::size_t p = 0; p < letter[0].size(); ++p) {
        const char c = letter[0][p];
        const std::optional<std::size_t> q = joined_to(0, p);
        const bool zero = product_zero(zl[p], q && zr[*q]);
        if (c != 0 && q && out_letters.find(c) == std::string::npos && !zero)
            no_padding({kl[p], kr[*q]});
        output_position(c, zero);
    }
    for (std::size_t p = 0; p < letter[1].size(); ++p)
        if (!joined_to(1, p)) output_position(letter[1][p], product_zero(false, zr[p]));
    zeros_[name] = std::move(zeros);
    dims_[name] = std::move(dims);
    ranks_[name] = out_letters.size();
    return true;
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
    for (std::size_t p = 0; p < in.size(); ++p)
        if (std::find(by.begin(), by.end(), p) == by.end() && in_dims[p] >= 0 &&
            !(sums && in_zeros[p]) && !filled)
            no_padding({in[p]});
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
    if (!props.elementwise) no_padding(keys_of(operand));  // it may move or mix entries
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
    no_padding(a);
    no_padding(b);
}

void TilingClasses::add_output(const std::string& relation) {
    // An output is written cropped only where it is a tensor whose key position d cuts tile
    // dimension d (crop_outputs); a relation of other tiles (a matmul join's, an aggregate that
    // kept a tile dimension without a key) would be written with its padding.
    if (!is_tensor(relation)) no_padding(keys_of(relation));
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

TilingSpace TilingClasses::space() const {
    // Class root -> the auto dimension that makes it auto (the first), if any.
    std::map<int, int> auto_slot;
    for (std::size_t s = 0; s < slots_.size(); ++s)
        if (slots_[s].from_input && slots_[s].tile == 0)
            auto_slot.emplace(find(static_cast<int>(s)), static_cast<int>(s));
    for (const Dependent& d : dependents_)
        for (int s : d.slots) {
            if (s < 0 || !auto_slot.count(find(s))) continue;
            const Slot& a = slots_[auto_slot.at(find(s))];
            throw Error("step " + d.name + ": its meaning depends on how its operand is tiled (" +
                            d.what + "), and that operand is cut along dimension " +
                            std::to_string(a.dim) + " of input " + inputs_[a.input].name +
                            ", whose tile is auto; give " + inputs_[a.input].name +
                            " an explicit tile",
                        d.where);
        }
    TilingSpace space;
    std::map<std::size_t, std::size_t> index;  // inputs_ index -> space.inputs index
    for (std::size_t i = 0; i < inputs_.size(); ++i)
        if (std::count(inputs_[i].tile.begin(), inputs_[i].tile.end(), 0) > 0) {
            index[i] = space.inputs.size();
            space.inputs.push_back(inputs_[i]);
        }
    std::map<int, std::size_t> class_of;  // root -> space.classes index
    for (std::size_t s = 0; s < slots_.size(); ++s) {
        const Slot& slot = slots_[s];
        const int root = find(static_cast<int>(s));
        if (!slot.from_input || !auto_slot.count(root)) continue;
        auto [it, added] = class_of.emplace(root, space.classes.size());
        if (added)
            space.classes.push_back(
                {slots_[auto_slot.at(root)].extent, {}, std::nullopt, paddable(root)});
        TileClass& c = space.classes[it->second];
        if (slot.tile == 0) {
            c.dims.emplace_back(index.at(slot.input), slot.dim);
        } else if (slot.extent == c.extent) {
            // The finest explicit tile: coarser operands are re-cut to it (einsum_retile.hpp).
            c.fixed = c.fixed ? std::min(*c.fixed, slot.tile) : slot.tile;
        }
    }
    for (TileClass& c : space.classes) c.paddable = c.paddable && !c.fixed;
    return space;
}

std::optional<std::int64_t> TilingClasses::padded_extent(const std::string& relation,
                                                         std::size_t position) const {
    const std::vector<int> keys = keys_of(relation);
    if (position >= keys.size() || keys[position] < 0 || !paddable(keys[position]) ||
        dims_of(relation)[position] != static_cast<int>(position))
        return std::nullopt;
    return slots_[find(keys[position])].extent;
}

std::vector<PaddedDim> TilingClasses::dims_to_fill(const std::string& relation,
                                                   const std::vector<std::size_t>& positions,
                                                   double identity) const {
    const std::vector<bool> zeros = zeros_of(relation);
    std::vector<PaddedDim> out;
    for (std::size_t p : positions)
        if (const auto extent = padded_extent(relation, p);
            extent && !(identity == 0.0 && zeros[p]))
            out.push_back({p, *extent});
    return out;
}

void TilingClasses::crop_outputs(Program& program) const {
    for (Output& o : program.outputs) {
        const Node& n = program.node(o.node);
        const std::vector<int> keys = keys_of(n.name), dims = dims_of(n.name);
        if (!n.is_tensor() || keys.size() != n.type.rank()) continue;
        Shape shape(n.type.rank());
        bool cropped = false;
        for (std::size_t d = 0; d < keys.size(); ++d) {
            const std::int64_t bound = n.type.bound[d];
            shape[d] = n.frontier[d] * bound;
            if (keys[d] < 0 || dims[d] != static_cast<int>(d) || !paddable(keys[d])) continue;
            // A padded class: its last tile reaches past the extent.
            const std::int64_t extent = slots_[find(keys[d])].extent;
            if (extent % bound != 0 && ceil_div(extent, bound) == n.frontier[d]) {
                shape[d] = extent;
                cropped = true;
            }
        }
        if (cropped) o.shape = shape;
    }
}

}  // namespace tra
