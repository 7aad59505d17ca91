#include "ia/placement.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace tra::ia {

namespace {

// Problems here are planner bugs or plans that do not fit the run, not user typos in a
// workflow, hence ErrorKind::Failed.
void check_site_count(int site_count) {
    if (site_count < 1) fail("site count must be at least 1, got " + std::to_string(site_count));
}

std::int64_t value_at(const Key& key, std::size_t position, const Placement& p) {
    if (position >= key.size())
        fail("placement " + p.str() + " uses key position " + std::to_string(position) +
             " but the key " + key.str() + " has only " + std::to_string(key.size()));
    return key[position];
}

// Mathematical modulo: keys are non-negative, but a map may produce anything and the site
// must still be in [0, m).
std::int64_t mod(std::int64_t v, std::int64_t m) {
    std::int64_t r = v % m;
    return r < 0 ? r + m : r;
}

std::string positions_str(const KeyPositions& dims) {
    std::string s;
    for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
    return s;
}

// Grid cell of a key: (row, column, layer) inside the pr x pc x pl grid.
struct Cell {
    std::int64_t row, col, layer;
};

Cell grid_cell(const Placement& p, const Key& key) {
    const std::int64_t layer =
        p.dims().size() > 2 ? mod(value_at(key, p.dims()[2], p), p.grid_layers()) : 0;
    return {mod(value_at(key, p.dims()[0], p), p.grid_rows()),
            mod(value_at(key, p.dims()[1], p), p.grid_cols()), layer};
}

}  // namespace

Placement Placement::all() {
    Placement p;
    p.kind_ = Kind::All;
    return p;
}

Placement Placement::part(KeyPositions dims) {
    Placement p;
    p.kind_ = Kind::Part;
    p.dims_ = std::move(dims);
    return p;
}

Placement Placement::grid(std::size_t row_dim, std::size_t col_dim, int grid_rows, int grid_cols,
                          Replicate replicate) {
    return layered_grid(row_dim, col_dim, 0, grid_rows, grid_cols, 1, replicate);
}

Placement Placement::layered_grid(std::size_t row_dim, std::size_t col_dim, std::size_t layer_dim,
                                  int grid_rows, int grid_cols, int grid_layers,
                                  Replicate replicate) {
    if (grid_rows < 1 || grid_cols < 1 || grid_layers < 1)
        fail("a process grid needs at least 1 x 1 x 1 sites, got " + std::to_string(grid_rows) +
             "x" + std::to_string(grid_cols) + "x" + std::to_string(grid_layers));
    Placement p;
    p.kind_ = Kind::Grid;
    p.dims_ = {row_dim, col_dim};
    // One layer is the 2-D grid, whatever position would have chosen the layer.
    if (grid_layers > 1) p.dims_.push_back(layer_dim);
    p.grid_rows_ = grid_rows;
    p.grid_cols_ = grid_cols;
    p.grid_layers_ = grid_layers;
    p.replicate_ = replicate;
    return p;
}

long long Placement::grid_sites() const {
    if (kind_ != Kind::Grid) return 0;
    return static_cast<long long>(grid_rows_) * grid_cols_ * grid_layers_;
}

Placement Placement::on_positions(KeyPositions dims) const {
    if (dims.size() != dims_.size())
        fail("placement " + str() + " reads " + std::to_string(dims_.size()) +
             " key positions, not " + std::to_string(dims.size()));
    switch (kind_) {
        case Kind::Part:
            return part(std::move(dims));
        case Kind::Grid:
            return layered_grid(dims[0], dims[1], dims.size() > 2 ? dims[2] : 0, grid_rows_,
                                grid_cols_, grid_layers_, replicate_);
        case Kind::All:
        case Kind::Unknown:
            break;
    }
    return *this;
}

Placement Placement::unknown() {
    return Placement{};
}

bool Placement::replicated() const {
    return kind_ == Kind::All || (kind_ == Kind::Grid && replicate_ != Replicate::None);
}

Site part_site(std::span<const std::int64_t> values, int site_count) {
    check_site_count(site_count);
    const std::int64_t s = site_count;
    // Reduce every term mod S as we go so large keys never overflow.
    std::int64_t h = 0;
    // One division per value where the twist is 0 (the first value, or a value below S): the
    // planner computes this for every tuple of every Part placement it costs.
    for (std::size_t i = 0; i < values.size(); ++i) {
        const std::int64_t v = values[i];
        const std::int64_t cycle = (v >= 0 ? v : v - (s - 1)) / s;  // floor(v / S)
        h += v - cycle * s;                                         // v mod S, in [0, S)
        if (i > 0 && cycle != 0) h += mod(static_cast<std::int64_t>(i) % s * mod(cycle, s), s);
        while (h >= s) h -= s;  // h < 3S before
    }
    return static_cast<Site>(h);
}

std::vector<Site> fill_sites(const Placement& input, const Key& key, int site_count) {
    if (input.kind() != Placement::Kind::Unknown) return input.sites(key, site_count);
    return {part_site(std::vector<std::int64_t>(key.begin(), key.end()), site_count)};
}

std::vector<Site> Placement::sites(const Key& key, int site_count) const {
    std::vector<Site> out;
    sites(key, site_count, out);
    return out;
}

void Placement::sites(const Key& key, int site_count, std::vector<Site>& out) const {
    check_site_count(site_count);
    out.clear();
    switch (kind_) {
        case Kind::All:
            for (int s = 0; s < site_count; ++s) out.push_back(s);
            return;
        case Kind::Part: {
            Key values;  // inline for up to four positions: no allocation
            for (auto d : dims_) values.push_back(value_at(key, d, *this));
            out.push_back(part_site(std::span<const std::int64_t>(values.begin(), values.size()),
                                    site_count));
            return;
        }
        case Kind::Grid: {
            if (grid_sites() > site_count)
                fail("placement " + str() + " needs " + std::to_string(grid_sites()) +
                     " sites but the run has " + std::to_string(site_count));
            const Cell c = grid_cell(*this, key);
            const std::int64_t base = c.layer * grid_rows_ * grid_cols_;
            if (replicate_ == Replicate::AlongRow) {
                // Every column of the tuple's grid row (in its layer).
                for (int col = 0; col < grid_cols_; ++col)
                    out.push_back(static_cast<Site>(base + c.row * grid_cols_ + col));
            } else if (replicate_ == Replicate::AlongColumn) {
                // Every row of the tuple's grid column (in its layer).
                for (int row = 0; row < grid_rows_; ++row)
                    out.push_back(static_cast<Site>(base + row * grid_cols_ + c.col));
            } else {
                out.push_back(static_cast<Site>(base + c.row * grid_cols_ + c.col));
            }
            return;
        }
        case Kind::Unknown:
            break;
    }
    fail("placement is unknown");
}

Site Placement::home(const Key& key, int site_count) const {
    if (kind_ == Kind::Unknown) fail("placement is unknown");
    if (replicated())
        fail("placement " + str() + " keeps copies on several sites; it has no single home");
    return sites(key, site_count).front();
}

std::string Placement::str() const {
    switch (kind_) {
        case Kind::All:
            return "All";
        case Kind::Part:
            return "Part[" + positions_str(dims_) + "]";
        case Kind::Grid: {
            const bool layered = dims_.size() > 2;
            std::string s = "Grid[" + std::to_string(dims_[0]) + " x " + std::to_string(dims_[1]) +
                            (layered ? " x " + std::to_string(dims_[2]) : "") + " on " +
                            std::to_string(grid_rows_) + "x" + std::to_string(grid_cols_) +
                            (layered ? "x" + std::to_string(grid_layers_) : "");
            if (replicate_ == Replicate::AlongRow) s += ", replicated along rows";
            if (replicate_ == Replicate::AlongColumn) s += ", replicated along columns";
            return s + "]";
        }
        case Kind::Unknown:
            break;
    }
    return "Unknown";
}

namespace {

// Whether (left position l, right position r) is one of the join's matched pairs, i.e. the two
// values are equal in every pair of tuples the join combines.
bool join_pair(std::size_t l, std::size_t r, const KeyPositions& left_keys,
               const KeyPositions& right_keys) {
    for (std::size_t j = 0; j < left_keys.size() && j < right_keys.size(); ++j)
        if (left_keys[j] == l && right_keys[j] == r) return true;
    return false;
}

// Where a right key position ends up in the join's output key.
std::size_t right_to_output(std::size_t r, const KeyPositions& left_keys,
                            const KeyPositions& right_keys, std::size_t left_arity) {
    for (std::size_t j = 0; j < right_keys.size() && j < left_keys.size(); ++j)
        if (right_keys[j] == r) return left_keys[j];  // equal values: use the left's copy
    std::size_t dropped_before = 0;
    for (auto k : right_keys)
        if (k < r) ++dropped_before;
    return left_arity + r - dropped_before;
}

Placement right_on_output(const Placement& right, const KeyPositions& left_keys,
                          const KeyPositions& right_keys, std::size_t left_arity) {
    KeyPositions dims;
    for (auto d : right.dims())
        dims.push_back(right_to_output(d, left_keys, right_keys, left_arity));
    return right.on_positions(std::move(dims));
}

// One axis of a grid: either one fixed grid index from a key position, or every index.
struct Axis {
    bool every;
    std::size_t position;  // in the side's own key
};

std::optional<Placement> grid_join(const Placement& left, const KeyPositions& left_keys,
                                   const Placement& right, const KeyPositions& right_keys,
                                   std::size_t left_arity) {
    if (left.grid_rows() != right.grid_rows() || left.grid_cols() != right.grid_cols() ||
        left.grid_layers() != right.grid_layers())
        return std::nullopt;
    // Layers are never replicated: both sides fix theirs, so they must agree on every pair.
    const bool layered = left.dims().size() > 2;
    if (layered && !join_pair(left.dims()[2], right.dims()[2], left_keys, right_keys))
        return std::nullopt;
    using R = Placement::Replicate;
    // Replicated along a row = every column of it; along a column = every row of it.
    const Axis lrow{left.replicate() == R::AlongColumn, left.dims()[0]};
    const Axis lcol{left.replicate() == R::AlongRow, left.dims()[1]};
    const Axis rrow{right.replicate() == R::AlongColumn, right.dims()[0]};
    const Axis rcol{right.replicate() == R::AlongRow, right.dims()[1]};

    // The two tuples meet iff their row sets and column sets both intersect. Returns the
    // output axis (a position in the output key), or nullopt if some pair could miss.
    auto meet = [&](const Axis& l, const Axis& r) -> std::optional<Axis> {
        if (l.every && r.every) return Axis{true, l.position};
        if (r.every) return Axis{false, l.position};
        if (l.every)
            return Axis{false, right_to_output(r.position, left_keys, right_keys, left_arity)};
        if (join_pair(l.position, r.position, left_keys, right_keys))
            return Axis{false, l.position};
        return std::nullopt;
    };
    const auto row = meet(lrow, rrow);
    const auto col = meet(lcol, rcol);
    if (!row || !col) return std::nullopt;
    // Both axes "every" would need both sides replicated both ways, which Grid cannot express.
    const R rep = row->every ? R::AlongColumn : col->every ? R::AlongRow : R::None;
    return Placement::layered_grid(row->position, col->position, layered ? left.dims()[2] : 0,
                                   left.grid_rows(), left.grid_cols(), left.grid_layers(), rep);
}

}  // namespace

std::optional<Placement> join_output_placement(const Placement& left, const KeyPositions& left_keys,
                                               const Placement& right,
                                               const KeyPositions& right_keys,
                                               std::size_t left_arity) {
    using K = Placement::Kind;
    if (left.kind() == K::Unknown || right.kind() == K::Unknown) return std::nullopt;
    // A side on every site meets every tuple of the other side wherever that one lives.
    if (left.kind() == K::All) return right_on_output(right, left_keys, right_keys, left_arity);
    if (right.kind() == K::All) return left;
    if (left.kind() == K::Part && right.kind() == K::Part) {
        // Same function of the same values in the same order: h(left values) = h(right values).
        if (left.dims().size() != right.dims().size()) return std::nullopt;
        for (std::size_t i = 0; i < left.dims().size(); ++i)
            if (!join_pair(left.dims()[i], right.dims()[i], left_keys, right_keys))
                return std::nullopt;
        return left;
    }
    if (left.kind() == K::Grid && right.kind() == K::Grid)
        return grid_join(left, left_keys, right, right_keys, left_arity);
    return std::nullopt;  // Part with Grid: different site functions
}

bool co_located(const Placement& left, const KeyPositions& left_keys, const Placement& right,
                const KeyPositions& right_keys) {
    // Validity never depends on where the right's extra positions land in the output, so any
    // left arity large enough for the left's positions will do.
    std::size_t left_arity = 0;
    for (auto d : left.dims()) left_arity = std::max(left_arity, d + 1);
    for (auto d : left_keys) left_arity = std::max(left_arity, d + 1);
    return join_output_placement(left, left_keys, right, right_keys, left_arity).has_value();
}

}  // namespace tra::ia
