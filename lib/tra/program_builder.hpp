#pragma once
// Builds a typed Program one step at a time. Every add_* checks its operands and infers the new
// relation's type, key set and frontier immediately, so an error names the step and field that
// caused it. The builder knows nothing about YAML: callers pass a StepSource saying where each
// field was written.
#include <map>
#include <string>
#include <vector>

#include "tra/program.hpp"

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
};

class ProgramBuilder {
public:
    ProgramBuilder(std::string name, DType dtype);
    void set_sites(int sites) { program_.sites = sites; }

    NodeId add_input(const std::string& name, const Shape& shape, const Shape& tile, DType dtype,
                     InputSource source, const StepSource& src);
    NodeId add_join(const std::string& name, const std::string& left, const std::string& right,
                    KeyPositions left_keys, KeyPositions right_keys, kernels::KernelCall kernel,
                    const StepSource& src);
    NodeId add_aggregate(const std::string& name, const std::string& input, KeyPositions by,
                         kernels::KernelCall kernel, const StepSource& src);
    // `key` is parsed for the input's key arity.
    NodeId add_rekey(const std::string& name, const std::string& input, const std::string& key,
                     const StepSource& src);
    NodeId add_filter(const std::string& name, const std::string& input, const std::string& where,
                      const StepSource& src);
    NodeId add_transform(const std::string& name, const std::string& input,
                         kernels::KernelCall kernel, const StepSource& src);
    NodeId add_tile(const std::string& name, const std::string& input, std::size_t dim,
                    std::int64_t size, const StepSource& src);
    NodeId add_concat(const std::string& name, const std::string& input, std::size_t key_dim,
                      std::size_t array_dim, const StepSource& src);
    // Lowered to TRA (see einsum_lowering.hpp); the last node gets `name`.
    NodeId add_einsum(const std::string& name, const EinsumStep& step, const StepSource& src);

    void add_output(const std::string& relation, std::string file, std::string dataset,
                    const StepSource& src);

    // The finished program, with `needed` marked on every node an output depends on.
    Program finish();

    // Reads for lowering and validation.
    const Node& node(NodeId id) const { return program_.nodes.at(id); }
    NodeId lookup(const std::string& name, const SourceLocation& where) const;
    std::optional<NodeId> lookup_optional(const std::string& name) const {
        return program_.find(name);
    }
    // Records that `id` is part of the lowering of einsum step `step`.
    void set_lowered_from(NodeId id, const std::string& step) {
        program_.nodes.at(id).lowered_from = step;
    }

private:
    NodeId append(Node node);

    Program program_;
};

}  // namespace tra
