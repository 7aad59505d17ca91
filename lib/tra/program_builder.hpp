#pragma once
// Builds a typed Program one step at a time. Every add_* checks its operands and infers the new
// relation's type, key set and frontier immediately, so an error names the step and field that
// caused it. The builder knows nothing about YAML: callers pass a StepSource saying where each
// field was written.
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/checked.hpp"
#include "tra/program.hpp"
#include "tra/tuple_limit.hpp"

namespace tra {

// Where a step and each of its fields were written.
struct StepSource {
    SourceLocation step;
    std::map<std::string, SourceLocation> fields;

    // The field's own location, or the step's location with the field's name.
    SourceLocation at(const std::string& field) const;
};

struct EinsumStep {
    std::string spec;  // "ik,kj->ij"
    std::vector<std::string> inputs;
    std::string join_op = "mul";
    std::string agg_op = "add";
    std::string join_expr = {};  // {expr: "..."} in place of join_op (variables a, b) if set
    // Operands (indices) that take the cut of the others where they share a label, refined or
    // merged (einsum_retile.hpp); elsewhere the coarser operand is refined to the finest. Set by
    // the workflow loader under `tile: auto` for operands computed by a step (tiling_classes.hpp).
    std::vector<std::size_t> followers = {};
};

// Each add_* has a try_add_* twin that returns the problem (an Error located at the field that
// caused it) as a value instead of throwing it, for callers that only want to know whether a
// program type-checks (the logical rewrite rules). add_* is try_add_* followed by value(), so
// each check is written once. A key text that does not parse throws from both: callers that
// compose key text parse it (KeyFunction::parse) before they build.
class ProgramBuilder {
  public:
    ProgramBuilder(std::string name, DType dtype);
    void set_sites(int sites) { program_.sites = sites; }
    // A step whose relation would have more tuples than this is refused, before its keys are
    // enumerated where the count is known up front (dense relations, tile), else as soon as it
    // passes. Under enumerated_relations, dense relations (held as boxes) pass at any size
    // whose count and bytes fit in 64 bits; a box that must be enumerated (filtered, rekeyed
    // by arithmetic) is still refused past the limit.
    void set_max_tuples(std::int64_t max_tuples,
                        TupleLimitScope scope = TupleLimitScope::every_relation) {
        max_tuples_ = max_tuples;
        scope_ = scope;
    }

    // program_builder_input.cpp. A block-sparse file input (source.sparse) holds the tiles of
    // `present` (storage::allocated_tiles, read by the caller), every tile when not given; a
    // generated one with density < 1 the tiles storage::tile_present draws.
    Checked<NodeId> try_add_input(const std::string& name, const Shape& shape, const Shape& tile,
                                  DType dtype, InputSource source, const StepSource& src,
                                  std::optional<std::vector<Key>> present = std::nullopt);
    Checked<NodeId> try_add_join(const std::string& name, const std::string& left,
                                 const std::string& right, KeyPositions left_keys,
                                 KeyPositions right_keys, kernels::KernelCall kernel,
                                 const StepSource& src);
    Checked<NodeId> try_add_aggregate(const std::string& name, const std::string& input,
                                      KeyPositions by, kernels::KernelCall kernel,
                                      const StepSource& src);
    // `key` is parsed for the input's key arity.
    Checked<NodeId> try_add_rekey(const std::string& name, const std::string& input,
                                  const std::string& key, const StepSource& src);
    Checked<NodeId> try_add_filter(const std::string& name, const std::string& input,
                                   const std::string& where, const StepSource& src);
    Checked<NodeId> try_add_transform(const std::string& name, const std::string& input,
                                      kernels::KernelCall kernel, const StepSource& src);
    Checked<NodeId> try_add_tile(const std::string& name, const std::string& input, std::size_t dim,
                                 std::int64_t size, const StepSource& src);
    Checked<NodeId> try_add_concat(const std::string& name, const std::string& input,
                                   std::size_t key_dim, std::size_t array_dim,
                                   const StepSource& src);
    // The problem, if any; nothing is added then. `sparse`: Output::sparse, which also takes a
    // relation with holes.
    std::optional<Error> try_add_output(const std::string& relation, std::string file,
                                        std::string dataset, const StepSource& src,
                                        std::int64_t iteration = 0, bool sparse = false);
    // `repeat:` (program_builder_repeat.cpp): after the steps, before the outputs (an output's
    // `every:` needs the iteration count). Each carry is (input name, step name, where).
    struct CarryText {
        std::string input, step;
        SourceLocation where;
    };
    std::optional<Error> try_set_repeat(std::int64_t times, const std::vector<CarryText>& carry,
                                        const SourceLocation& where);
    // An output written every `every` iterations as well as after the last: one Output per
    // observation (Output::iteration), datasets "DATASET@ITERATION". Needs the repeat.
    std::optional<Error> try_add_observed_output(const std::string& relation,
                                                 const std::string& file,
                                                 const std::string& dataset, std::int64_t every,
                                                 const StepSource& src, bool sparse = false);

    NodeId add_input(const std::string& name, const Shape& shape, const Shape& tile, DType dtype,
                     InputSource source, const StepSource& src,
                     std::optional<std::vector<Key>> present = std::nullopt) {
        return try_add_input(name, shape, tile, dtype, std::move(source), src, std::move(present))
            .value();
    }
    NodeId add_join(const std::string& name, const std::string& left, const std::string& right,
                    KeyPositions left_keys, KeyPositions right_keys, kernels::KernelCall kernel,
                    const StepSource& src) {
        return try_add_join(name, left, right, std::move(left_keys), std::move(right_keys),
                            std::move(kernel), src)
            .value();
    }
    NodeId add_aggregate(const std::string& name, const std::string& input, KeyPositions by,
                         kernels::KernelCall kernel, const StepSource& src) {
        return try_add_aggregate(name, input, std::move(by), std::move(kernel), src).value();
    }
    NodeId add_rekey(const std::string& name, const std::string& input, const std::string& key,
                     const StepSource& src) {
        return try_add_rekey(name, input, key, src).value();
    }
    NodeId add_filter(const std::string& name, const std::string& input, const std::string& where,
                      const StepSource& src) {
        return try_add_filter(name, input, where, src).value();
    }
    NodeId add_transform(const std::string& name, const std::string& input,
                         kernels::KernelCall kernel, const StepSource& src) {
        return try_add_transform(name, input, std::move(kernel), src).value();
    }
    NodeId add_tile(const std::string& name, const std::string& input, std::size_t dim,
                    std::int64_t size, const StepSource& src) {
        return try_add_tile(name, input, dim, size, src).value();
    }
    NodeId add_concat(const std::string& name, const std::string& input, std::size_t key_dim,
                      std::size_t array_dim, const StepSource& src) {
        return try_add_concat(name, input, key_dim, array_dim, src).value();
    }
    // Lowered to TRA (see einsum_lowering.hpp); the last node gets `name`.
    NodeId add_einsum(const std::string& name, const EinsumStep& step, const StepSource& src);
    // softmax (log: log_softmax) of `input` along its dimension `dim`, lowered to einsums
    // (see softmax_lowering.hpp); the last node gets `name`. `extent`: the dimension's extent
    // where it may be padded (tile: auto), so that the lowering excludes the padding.
    NodeId add_softmax(const std::string& name, const std::string& input, std::int64_t dim,
                       bool log, const StepSource& src,
                       std::optional<std::int64_t> extent = std::nullopt);

    void add_output(const std::string& relation, std::string file, std::string dataset,
                    const StepSource& src, bool sparse = false) {
        if (auto problem =
                try_add_output(relation, std::move(file), std::move(dataset), src, 0, sparse))
            throw *problem;
    }

    // The finished program, with `needed` marked on every node an output or a carry depends on.
    Program finish();

    // Reads for lowering and validation.
    const Node& node(NodeId id) const { return program_.nodes.at(id); }
    Checked<NodeId> try_lookup(const std::string& name, const SourceLocation& where) const;
    NodeId lookup(const std::string& name, const SourceLocation& where) const {
        return try_lookup(name, where).value();
    }
    std::optional<NodeId> lookup_optional(const std::string& name) const {
        return program_.find(name);
    }
    // Records that `id` is part of the lowering of einsum step `step`.
    void set_lowered_from(NodeId id, const std::string& step) {
        program_.nodes.at(id).lowered_from = step;
    }

  private:
    Checked<NodeId> append(Node node);
    // The keys of dense relation `name` of `type`: the box below `frontier`, refused where its
    // tuples or bytes pass 64 bits, or (every_relation) its tuples pass the limit.
    Checked<KeySet> dense_keys(const std::string& name, const Frontier& frontier,
                               const RelationType& type, const SourceLocation& where,
                               const std::string& hint = "") const;
    // The problem with enumerating `input`'s keys for a step at `where`: a box past the limit.
    std::optional<Error> enumeration_problem(const Node& input, const SourceLocation& where) const;
    // program_builder_fill.cpp. The operand `input` of step `step` as the step needs it: itself,
    // or a FillOp node `step` + `suffix` holding the keys `target` computes for it
    // (tra/sparse_rules.hpp), appended now. Refused where the operand's box passes the limit.
    Checked<NodeId> filled(NodeId input, const std::string& step, const std::string& suffix,
                           const std::function<std::optional<KeySet>(const Node&)>& target,
                           const SourceLocation& where);

    Program program_;
    std::set<std::pair<std::string, std::string>> written_;  // (file, dataset) of every output
    std::int64_t max_tuples_ = kDefaultMaxTuples;
    TupleLimitScope scope_ = TupleLimitScope::every_relation;
};

}  // namespace tra
