#pragma once
// A typed TRA program: a DAG of the seven TRA operators over named relations, each node carrying
// its type R^(k,r,b), dtype, exact key set and frontier, inferred when the node was added
// (see ProgramBuilder). Einsum steps appear here already lowered to join/aggregate/rekey/
// transform nodes.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/error.hpp"
#include "core/relation.hpp"
#include "kernels/kernel.hpp"
#include "storage/generator.hpp"
#include "tra/key_function.hpp"
#include "tra/tiling.hpp"

namespace tra {

using NodeId = std::size_t;

// Key positions, in order (join keys, group-by keys).
using KeyPositions = std::vector<std::size_t>;

// The key's values at `positions`, in that order (join keys, group-by keys).
Key project(const Key& k, const KeyPositions& positions);

// Where an input's tiles come from: an HDF5 dataset, or a generator (then `file`/`dataset`, if
// given, are where `tra gen` writes it).
struct InputSource {
    std::string file;  // absolute or relative to the current directory
    std::string dataset;
    std::optional<storage::GeneratorSpec> generate;
    // In a loop, a per-iteration input (`slice: {dim, size}`): iteration i (1-based) reads the
    // `size` entries of array dimension `dim` from ((i - 1) * size) mod extent on, the relation
    // being that slice (tiles of the slice, keys from 0). `size` divides the extent and is a
    // multiple of the tile, so batches wrap around whole.
    struct Slice {
        std::size_t dim = 0;
        std::int64_t size = 0;
    };
    std::optional<Slice> slice;
    // A block-sparse file input (`sparse: true`, docs/workflow-format.md "Sparse tensors"): the
    // relation holds the tiles that cover an allocated chunk of the (chunked) dataset; the others
    // are absent and stand for tiles of zeros. Generated inputs say it with `density:`.
    bool sparse = false;
    // A `tile: auto` input with a padded dimension (docs/workflow-format.md, "Padding"): a tile
    // may not divide the shape; the last tiles along such a dimension reach past it and hold
    // zeros there (storage/padded_blocks.hpp). The relation's frontier rounds up.
    bool padded = false;

    // The key offset along `slice->dim` of iteration `iteration` (0 without a slice), for
    // tiles of `tile` elements along it and a source of `extent` elements.
    std::int64_t slice_key_offset(std::int64_t iteration, std::int64_t tile,
                                  std::int64_t extent) const;
};

struct InputOp {
    Shape shape;  // the source's (file or generated tensor); a slice's relation is smaller
    InputSource source;
};
// Output key = left key ++ right key without its join positions; tiles combined by `kernel`.
struct JoinOp {
    KeyPositions left_keys, right_keys;
    kernels::KernelCall kernel;
};
// Groups by `by` (output key = those positions, in that order) and folds each group's tiles
// with `kernel` in key order.
struct AggregateOp {
    KeyPositions by;
    kernels::KernelCall kernel;
};
struct RekeyOp {
    KeyFunction key;
};
struct FilterOp {
    KeyFunction where;
};
struct TransformOp {
    kernels::KernelCall kernel;
};
// Cuts each tile along array dimension `dim` into pieces of `size`; the piece index is appended
// to the key.
struct TileOp {
    std::size_t dim;
    std::int64_t size;
};
// Inverse of TILE: groups on every key position but `key_dim` and concatenates the group's tiles
// along `array_dim` in the order of `key_dim`.
struct ConcatOp {
    std::size_t key_dim;
    std::size_t array_dim;
};

// Block sparsity (docs/workflow-format.md, "Sparse tensors"): the input's tuples, and a tile of
// zeros at every key of this node's key set that the input does not hold. Not a workflow step:
// the ProgramBuilder inserts one before a step that needs absent tiles of a sparse-derived
// relation as zeros (tra/sparse_rules.hpp), for just the keys that step reads.
struct FillOp {};

using Operator = std::variant<InputOp, JoinOp, AggregateOp, RekeyOp, FilterOp, TransformOp, TileOp,
                              ConcatOp, FillOp>;

// "input", "join", "aggregate", "rekey", "filter", "transform", "tile", "concat", "fill".
std::string operator_name(const Operator& op);
// The operator's arguments in one line, e.g. "on [1]=[0] kernel matmul".
std::string operator_args(const Operator& op);

struct Node {
    std::string name;  // the step's name, or "D.join" for a lowered einsum's parts
    Operator op;
    std::vector<NodeId> inputs;  // operands, in order
    RelationType type;
    KeySet keys;
    Frontier frontier;
    SourceLocation where;      // the step in the workflow
    std::string lowered_from;  // the einsum step this node implements, if any
    bool needed = false;       // some output depends on it
    // Sparse-derived (docs/workflow-format.md "Sparse tensors"): a key below the frontier that
    // the relation does not hold stands for a tile of zeros, and the frontier is that of the
    // dense equivalent. Holes of other relations (made by filters) are just absent.
    bool sparse = false;

    std::size_t tuples() const { return keys.size(); }
    std::size_t bytes() const { return keys.size() * type.tile_bytes(); }
    // (A sparse-derived relation is a plain tensor only with every tile present: then, and only
    // then, its keys are held as the box below its frontier.)
    bool is_tensor() const {
        return type.key_arity == type.rank() &&
               (sparse ? keys.held_as_box() : keys.is_box(type.key_arity));
    }
    // Key position d tiles array dimension d, and every key below the frontier is held or, in a
    // sparse-derived relation, stands for zeros: a tensor einsum and outputs may take.
    bool is_sparse_tensor() const { return type.key_arity == type.rank() && sparse; }
    // The keys below the frontier that the relation does not hold (0 for a box).
    std::int64_t absent_tuples() const;
};

struct Output {
    NodeId node;
    std::string file;     // resolved: absolute or relative to the current directory
    std::string dataset;  // e.g. "/C"
    SourceLocation where;
    // In a `repeat:` program, an output with `every: K` is also written after iterations K, 2K,
    // ... (1-based): one Output each, dataset "/C@K", with that iteration here. 0: written once,
    // after the last iteration (every output of a program without `repeat:`).
    std::int64_t iteration = 0;
    // `sparse: true`: only the relation's tiles are written (chunks of one tile each); the
    // other chunks stay unallocated and read as zeros. Otherwise absent tiles of a
    // sparse-derived relation are written as zeros.
    bool sparse = false;
    // The extents written: the relation's frontier * bound less the padding of padded
    // dimensions, which is cropped (storage/padded_blocks.hpp). Empty: frontier * bound.
    Shape shape;
};

// One `carry:` entry of a `repeat:` (docs/workflow-format.md): after each iteration, input
// `input` takes the value step `step` had in it. Both have the same type, key set and frontier.
struct Carry {
    NodeId input;
    NodeId step;
    SourceLocation where;
};

// A top-level `repeat:`: the program (the loop body) runs `times` times in one run, planned
// once; carried relations stay in memory between iterations, other inputs are read once.
struct Repeat {
    std::int64_t times = 1;
    std::vector<Carry> carry;
    SourceLocation where;

    // The carry whose input is `input`, if it is carried.
    const Carry* carried(NodeId input) const;
};

class Program {
  public:
    std::string name;
    DType dtype = DType::F64;
    std::optional<int> sites;  // the workflow's `sites:`: default site count for planning
    // Logical rewrites applied to the workflow's program, in order ("R1-6 at F"); empty for a
    // program exactly as written. Plan files record it so they reload the same program.
    std::vector<std::string> rewrites;
    // Inputs with `tile: auto` dimensions: the tilings the planner may choose among, and the one
    // this program was built with (each such input's whole tile; empty when there is none).
    TilingSpace tiling_space;
    Tiling tiling;
    std::vector<Node> nodes;  // topological: inputs precede users
    std::vector<Output> outputs;
    std::optional<Repeat> repeat;  // none: the program runs once

    const Node& node(NodeId id) const { return nodes.at(id); }
    std::optional<NodeId> find(const std::string& name) const;
    std::vector<NodeId> input_nodes() const;
};

}  // namespace tra
