#pragma once
// Where each tuple of a physical relation lives, as an explicit function of its key's values and
// the site count S (never of the relation's frontier, which joins and filters change). The
// optimizer's cost model and the runtime both call these functions: one implementation, shared.
//
//   All            every tuple on every site
//   Part(dims)     one site per tuple: site = h(key[dims...]) for an ordered list of key
//                  positions; deterministic, and balanced on dense key boxes
//   Grid(r, c)     a pr x pc process grid (pr * pc <= S, any S): grid row from key[r], grid
//                  column from key[c]; the tuple is on one site, or replicated along one grid
//                  axis (all columns of its row, or all rows of its column), as SUMMA needs
//   Grid(r, c, l)  a layered grid, pl layers of pr x pc (pr * pc * pl <= S): the layer from
//                  key[l], never replicated across layers. The 3-D matrix multiply puts the
//                  products of one block of the contracted label on one layer
//                  (optimizer/join_grid.hpp); site = layer * pr * pc + row * pc + column
//   Unknown        after a map that changes keys arbitrarily; nothing may rely on it
//
// The Part site function (docs/cost-model.md derives its balance bound). For the ordered
// positions d_0..d_{m-1} and the values v_i = key[d_i]:
//
//     h(v, S) = ( sum_i  v_i + i * floor(v_i / S) )  mod S        (h = 0 when m = 0)
//
//   * m = 1 gives h = v_0 mod S: plain round robin, so a dense 1-D range of n keys puts
//     floor(n/S) or ceil(n/S) keys on every site.
//   * Each term takes every residue once per S consecutive values, so on a dense box with
//     extents n_i (remainders r_i = n_i mod S) the loads differ by at most the product of the
//     r_i without the largest one -- 0 as soon as one extent is a multiple of S, and
//     min(r_0, r_1) <= S-1 for two positions.
//   * The i * floor(v_i / S) twist makes the function depend on the order of the list, so
//     Part[0, 1] and Part[1, 0] differ as functions on keys >= S (below S they agree; for S = 2
//     no function balanced on every box could separate them). Co-location reasoning never
//     relies on two differently ordered lists agreeing.
//
// Local joins (join_output_placement below): a local join is valid when every pair of tuples
// whose join keys match meets on at least one common site, for any key values and any S; the
// output tuple then appears on exactly the sites where its pair met, and that set of sites is
// again described by a placement of the output key (output key = left key ++ right key without
// its join positions).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/index_vector.hpp"
#include "tra/program.hpp"

namespace tra::ia {

using Site = int;

class Placement {
  public:
    enum class Kind { All, Part, Grid, Unknown };
    // Along which grid axis a Grid placement replicates each tuple.
    enum class Replicate { None, AlongRow, AlongColumn };

    static Placement all();
    static Placement part(KeyPositions dims);
    static Placement grid(std::size_t row_dim, std::size_t col_dim, int grid_rows, int grid_cols,
                          Replicate replicate = Replicate::None);
    // A grid of `grid_layers` layers; with one layer it is exactly grid(row_dim, col_dim, ...).
    static Placement layered_grid(std::size_t row_dim, std::size_t col_dim, std::size_t layer_dim,
                                  int grid_rows, int grid_cols, int grid_layers,
                                  Replicate replicate = Replicate::None);
    static Placement unknown();

    Kind kind() const { return kind_; }
    // Part: the ordered positions; Grid: {row_dim, col_dim}, and layer_dim when layered.
    const KeyPositions& dims() const { return dims_; }
    int grid_rows() const { return grid_rows_; }
    int grid_cols() const { return grid_cols_; }
    int grid_layers() const { return grid_layers_; }  // 1 unless layered
    // The sites a Grid needs: rows x columns x layers (0 for the other kinds).
    long long grid_sites() const;
    Replicate replicate() const { return replicate_; }

    // The sites holding the tuple with this key, ascending. Throws Error for Unknown.
    std::vector<Site> sites(const Key& key, int site_count) const;
    // The same into `out` (cleared first), reusing its storage: planning asks this for every
    // tuple of every placement it costs.
    void sites(const Key& key, int site_count, std::vector<Site>& out) const;
    // Whether two keys are placed alike because they agree on every position the placement
    // reads (All: always; Unknown: never). Both keys must have those positions (sites() of
    // either checks that): planning asks this to skip recomputing sites tuple by tuple.
    bool places_alike(const Key& a, const Key& b) const {
        if (kind_ == Kind::Unknown) return false;
        for (auto d : dims_)
            if (a[d] != b[d]) return false;
        return true;
    }
    // Part and unreplicated Grid: the single site of the key.
    Site home(const Key& key, int site_count) const;

    // The same kind of placement read from other key positions, one per entry of dims() (a
    // key's positions moved by a join, replication or aggregate). All and Unknown: unchanged.
    Placement on_positions(KeyPositions dims) const;

    // "All", "Part[1]", "Part[0, 2]", "Grid[0 x 1 on 2x3, replicated along rows]",
    // "Grid[0 x 2 x 1 on 2x2x4]", "Unknown"
    std::string str() const;
    friend bool operator==(const Placement&, const Placement&) = default;

    // True when a tuple may live on more than one site (All, replicated Grid).
    bool replicated() const;

  private:
    Kind kind_ = Kind::Unknown;
    KeyPositions dims_;
    int grid_rows_ = 0, grid_cols_ = 0, grid_layers_ = 0;
    Replicate replicate_ = Replicate::None;
};

// Where a fill (FillOp) makes the tile of zeros at `key`, its input placed by `input`: where that
// placement puts the key, or, for an Unknown placement, at the Part site of the whole key.
// Site tracing and the runtime both ask this.
std::vector<Site> fill_sites(const Placement& input, const Key& key, int site_count);

// The Part site function h(values, S) described above; values in list order. S >= 1.
Site part_site(std::span<const std::int64_t> values, int site_count);

// The placement of the output of a local join of `left` and `right` on left_keys[j] =
// right_keys[j], or nullopt when a local join would miss some matching pair. Output key
// positions: left positions stay; a right join position becomes its left partner; the other
// right positions follow the left key (`left_arity`) in order. Valid combinations:
//   Unknown with anything                          never
//   All with All                                   All
//   All with X (either side)                       X, re-expressed on output positions
//   Part(dl) with Part(dr)                         |dl| = |dr| and every (dl[i], dr[i]) is a
//                                                  join pair (dl[i] = left_keys[j] and
//                                                  dr[i] = right_keys[j], same j); -> Part(dl)
//   Grid with Grid, same pr x pc x pl              per grid axis: a side replicated across that
//                                                  axis meets anything; two sides fixed on it
//                                                  must use a join pair. SUMMA (left replicated
//                                                  along rows, right along columns) meets on
//                                                  exactly one site -> unreplicated Grid. Layers
//                                                  are never replicated: the two layer
//                                                  positions must be a join pair.
//   Part with Grid                                 never (different site functions)
std::optional<Placement> join_output_placement(const Placement& left, const KeyPositions& left_keys,
                                               const Placement& right,
                                               const KeyPositions& right_keys,
                                               std::size_t left_arity);

// Whether a local join of the two placements is valid (join_output_placement has a value).
bool co_located(const Placement& left, const KeyPositions& left_keys, const Placement& right,
                const KeyPositions& right_keys);

}  // namespace tra::ia
