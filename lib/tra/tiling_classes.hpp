#pragma once
// Which input dimensions a program ties together, for `tile: auto` (tiling.hpp). The workflow
// loader reports each step as it adds it; a union-find over input dimensions follows every key
// position of every relation back to the input dimension it tiles:
//
//   einsum     positions with one label are one class (operands, repeated labels, output),
//              except that an operand computed by a step is not tied where an input operand
//              carries the label: it is re-tiled when cut differently (einsum_retile.hpp)
//   join       the `on` positions are one class each; output key = left ++ right without `on`
//   aggregate  output key = the `by` positions
//   transform, softmax   the key is the operand's
//   rekey, filter, tile, concat, and kernels that read whole rows or their tile's position:
//              their meaning depends on the tiling, so no auto dimension may reach them
//
// Positions the tracker cannot follow are opaque: they tie nothing, which only widens the
// space the planner tries (a tiling the builder refuses is skipped there).
//
// Padding (docs/workflow-format.md, "Padding"): a class may take a tile that does not divide
// its extent when padding it is exact. The tracker follows, per key position of each relation,
// whether the padding holds zeros (inputs: yes), from the kernels' properties: a product is zero
// where any factor is and the others are finite (mul, zero-annihilating, and a join whose kernel
// is a sum of products: KernelProperties::sum_of_products; 0 * inf is NaN, so the tracker also
// follows whether each relation's padding is finite, KernelProperties::finite), add/sub/max/min
// where every operand is (zero-preserving),
// an element-wise transform where f(0) = 0, an aggregate's kept positions. Each key position
// also records the tile dimension it cuts (a matmul join's summed position cuts none). A class
// is paddable when every step that mixes its padded entries with real ones sums zeros: an
// einsum's contracted label or a sum-of-products join's summed letter whose products are zero
// there, with agg add; an aggregate by a sum (identity 0) that drops a position cutting a tile
// dimension; any aggregate, or a one-operand einsum's reduction, of a tensor (the loader first
// fills the padding of the dropped dimensions with the aggregation's identity where it does
// not hold it, padding_fill_steps.hpp); a contraction of several operands whose products are
// not zero there but whose other factors are finite, where one factor that is a tensor gets its
// padding along the label set to 0 first (FoldFill; einsums and matmul-family joins); a softmax
// along it (its lowering fills the padding with -inf, max's identity, and the result holds zeros
// there). Steps it cannot follow that way (folds of relations that are not tensors and do not hold
// zeros, joins with other kernels, a loop's carry) make the classes they reach unpaddable. Padded
// entries that are never mixed are cropped on output.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernels/kernel.hpp"
#include "tra/padding_fill_steps.hpp"
#include "tra/program.hpp"
#include "tra/program_builder.hpp"
#include "tra/tiling.hpp"

namespace tra {

struct EinsumSpec;

// A fold that mixes padded entries with real ones is exact once one operand's padding holds a
// value: an aggregation's identity (-inf under max), or 0 for one factor of a product whose other
// factors are finite. The loader fills it first (fold_fills.hpp): operand `operand` of the step,
// along its key `positions`.
struct FoldFill {
    std::size_t operand = 0;
    std::vector<std::size_t> positions;
    double value = 0;
};

class TilingClasses {
  public:
    // `tile` per dimension, 0 for auto.
    void add_input(const std::string& name, const Shape& shape,
                   const std::vector<std::int64_t>& tile);
    void add_einsum(const std::string& name, const EinsumStep& step);
    void add_join(const std::string& name, const std::string& left, const std::string& right,
                  const KeyPositions& left_keys, const KeyPositions& right_keys,
                  const kernels::KernelCall& kernel, const SourceLocation& where);
    void add_aggregate(const std::string& name, const std::string& operand, const KeyPositions& by,
                       const kernels::KernelCall& kernel);
    void add_transform(const std::string& name, const std::string& operand,
                       const kernels::KernelCall& kernel, const SourceLocation& where);
    // softmax (log: log_softmax) along `dim`: the key is the operand's. Padding along `dim` is
    // exact: the lowering fills it with -inf before the max (softmax_lowering.hpp).
    void add_softmax(const std::string& name, const std::string& operand, std::int64_t dim,
                     bool log);
    // A loop's carry: the input takes the step's value, so their key positions are cut alike.
    void add_carry(const std::string& input, const std::string& step);
    // An output of the program: its relation's padding must be croppable.
    void add_output(const std::string& relation);
    // A step whose meaning depends on how its operand is tiled; `what` says why ("a rekey").
    void add_tiling_dependent(const std::string& name, const std::string& operand,
                              const std::string& what, const SourceLocation& where);

    // The auto inputs and their classes. Throws Error (BadInput) at the first tiling-dependent
    // step that an auto dimension reaches, naming the step, the input and the dimension.
    TilingSpace space() const;
    // The extent of the class that key position `position` of `relation` tiles (cutting tile
    // dimension `position`), when that class may be padded (the build pass asks it: a padded
    // tile reaches past it); nullopt otherwise.
    std::optional<std::int64_t> padded_extent(const std::string& relation,
                                              std::size_t position) const;
    // Those of `positions` that have a padded_extent and whose padding does not already hold
    // `identity` (zeros, for 0), as fill_padding_steps takes them: what a fold of `relation`
    // over them by an aggregation of that identity fills first.
    std::vector<PaddedDim> dims_to_fill(const std::string& relation,
                                        const std::vector<std::size_t>& positions,
                                        double identity) const;
    // The fills step `name` needs before it folds padded dimensions, in operand order (what the
    // tracker made its classes paddable on); empty for most steps.
    std::vector<FoldFill> fills_before(const std::string& name) const;
    // The operands of einsum `name` that keep their producer's cut where an input operand
    // carries the same label (add_einsum) and that cut is auto: the lowering re-cuts them to
    // the inputs' tiling (EinsumStep::followers). Empty for other steps; explicitly tiled
    // operands keep the rule of hand-tiled workflows (the coarser refined to the finest).
    std::vector<std::size_t> followers(const std::string& name) const;
    // Sets Output::shape of each output whose relation has padded dimensions (its frontier *
    // bound exceeds its classes' extents): the padding is cropped when it is written.
    void crop_outputs(Program& program) const;

  private:
    struct Slot {
        std::int64_t extent = 0;
        std::int64_t tile = 0;  // 0: auto
        std::size_t input = 0, dim = 0;
        bool from_input = false;
    };
    struct Dependent {
        std::string name, what;
        std::vector<int> slots;
        SourceLocation where;
    };

    int fresh(Slot s);
    int find(int s) const;
    void unite(int a, int b);
    // Slots an einsum re-tiles into each other when cut apart (add_einsum): not one class, but
    // one group of classes (TileClass::group) that the search first cuts alike.
    void link(int a, int b);
    std::vector<int> keys_of(const std::string& relation) const;
    // The first operand of a product (an einsum joining by mul, summing) that carries `label`
    // and is a tensor while every other operand is finite: filling its padding along `label`
    // with zeros makes every product there zero. nullopt when none is.
    std::optional<std::size_t> zero_fillable(const EinsumStep& step, const EinsumSpec& spec,
                                             char label) const;
    std::vector<bool> zeros_of(const std::string& relation) const;
    bool finite_of(const std::string& relation) const;
    std::vector<int> dims_of(const std::string& relation) const;
    std::optional<std::size_t> rank_of(const std::string& relation) const;  // nullopt: unknown
    // Key position d cuts tile dimension d, for every d of its tiles.
    bool is_tensor(const std::string& relation) const;
    // An input of the program (not a step's result).
    bool is_input(const std::string& relation) const { return input_names_.count(relation) > 0; }
    // A join whose kernel is a sum of products (`spec`, KernelProperties::sum_of_products):
    // records the output's padding and tile dimensions and the fills its sums need (a factor's
    // padding set to 0), marks summed classes where no fill makes the products zero. False when
    // the join's positions do not fit the kernel's dimensions.
    bool follow_product(const std::string& name, const std::string& left, const std::string& right,
                        const KeyPositions& left_keys, const KeyPositions& right_keys,
                        const std::string& spec);
    // Records that step `step` needs operand `operand`'s padding along key `position` set to
    // `value` first (fills_before).
    void add_fill(const std::string& step, std::size_t operand, std::size_t position, double value);
    // Marks `slots` unpaddable: `why` names the step and says what it would mix.
    void no_padding(const std::vector<int>& slots, const std::string& why);
    struct Refusal {
        int order = -1;  // in the order steps marked it; -1: not marked
        std::string why;
    };
    // The earliest refusal among the members of `slot`'s class; nullptr when it is paddable.
    const Refusal* refusal(int slot) const;
    bool paddable(int slot) const { return refusal(slot) == nullptr; }
    void depends(const std::string& name, const std::string& operand, const std::string& what,
                 const SourceLocation& where);

    std::vector<Slot> slots_;
    mutable std::vector<int> parent_;
    std::map<std::string, std::vector<int>> keys_;  // relation -> slot per key position, -1 opaque
    // relation -> per key position: its padding holds zeros
    std::map<std::string, std::vector<bool>> zeros_;
    // relation -> every padded entry is finite (KernelProperties::finite): a product with a
    // zero factor is zero only then
    std::map<std::string, bool> finite_;
    // relation -> per key position: the tile dimension it cuts, -1 none (a join's summed
    // positions); absent: position d cuts dimension d
    std::map<std::string, std::vector<int>> dims_;
    std::map<std::string, std::size_t> ranks_;  // relation -> its tiles' rank, where known
    std::vector<Refusal> refusals_;             // per slot: its first refusal
    int refused_ = 0;                           // refusals recorded, for Refusal::order
    std::map<std::string, std::vector<FoldFill>> fills_;  // step -> fills_before
    std::vector<AutoInput> inputs_;
    std::set<std::string> input_names_;
    std::vector<std::pair<int, int>> links_;
    // einsum -> (operand, slot) of each position add_einsum left untied, for followers()
    std::map<std::string, std::vector<std::pair<std::size_t, int>>> followers_;
    std::vector<Dependent> dependents_;
};

}  // namespace tra
