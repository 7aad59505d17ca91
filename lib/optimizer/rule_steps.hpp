#pragma once
// The untyped form of a Program that logical rewrite rules edit: a list of steps (operator,
// operand names, where it was written), in topological order. A rule never writes a type, key
// set or frontier itself; `build_steps` replays the list through a fresh ProgramBuilder, so every
// rewritten node is re-inferred exactly as if the workflow had said it.
#include <optional>
#include <string>
#include <vector>

#include "tra/program.hpp"
#include "tra/program_builder.hpp"

namespace tra::optimizer {

struct Step {
    std::string name;
    Operator op;  // as in the Program; a filter's or rekey's text is re-parsed when built
    std::vector<std::string> inputs;
    SourceLocation where;
    std::string lowered_from;
    RelationType input_type;  // inputs only: the tile bound and dtype to declare
    // Sparse file inputs only: the tiles the file holds (read once, when the workflow loaded).
    std::optional<std::vector<Key>> present = std::nullopt;
};

struct StepOutput {
    std::string relation;
    std::string file, dataset;
    SourceLocation where;
    std::int64_t iteration = 0;  // Output::iteration
    bool sparse = false;         // Output::sparse
    Shape shape;                 // Output::shape
};

// A `repeat:` by names: rules keep a carried step's name, as they keep an output's.
struct StepRepeat {
    std::int64_t times = 1;
    std::vector<ProgramBuilder::CarryText> carry;
    SourceLocation where;
};

struct Steps {
    std::string name;
    DType dtype = DType::F64;
    std::optional<int> sites;
    std::vector<Step> steps;
    std::vector<StepOutput> outputs;
    std::optional<StepRepeat> repeat;

    // Index of the step called `name`; throws Error (Failed) when there is none.
    std::size_t index(const std::string& name) const;
    // How many operands (of steps, outputs and carries) read `name`; join(X, X) counts twice.
    std::size_t uses(const std::string& name) const;
    // Whether `name` leaves the program: an output, or a step a loop carries.
    bool is_output(const std::string& name) const;
    // Points every operand reading `from` (steps only, not outputs) at `to`.
    void redirect(const std::string& from, const std::string& to);
    // `base` if no step has that name, else base.2, base.3, ...
    std::string fresh_name(const std::string& base) const;
};

Steps to_steps(const Program& program);

// Rebuilds the typed program, or returns the problem (the Error ProgramBuilder would throw) when
// a step does not type-check (e.g. a pushed-down predicate that divides by zero on a key it now
// sees). Only a key text that does not parse throws: rules parse the text they compose.
Checked<Program> build_steps(const Steps& steps);

// Step for a filter of `input` by positional predicate text `where` (parsed for `arity`).
Step filter_step(std::string name, const std::string& input, std::size_t arity,
                 const std::string& where, SourceLocation at);

// Step for a transform of `input` by `kernel`.
Step transform_step(std::string name, const std::string& input, kernels::KernelCall kernel,
                    SourceLocation at);

// Bytes of one tile of a transform by `kernel` of tiles of `operand`'s type, or nullopt when
// the kernel does not take such tiles: what the map rules compare to decide a move never grows
// a relation.
std::optional<std::size_t> transformed_tile_bytes(const kernels::KernelCall& kernel,
                                                  const RelationType& operand);

// Exchanges a node `top` with `middle`, the operand it alone reads, when a rule moves `top`'s
// work below `middle` (R1-3, R1-4, R1-5, R1-7, ...): the `pushed` steps take middle's place (after
// middle's operands), `new_middle` (reading them) takes top's place. new_middle keeps middle's
// name, so pins on it still work, and top's readers are pointed at it -- unless top is an
// output, in which case new_middle takes top's name so outputs keep theirs.
void swap_down(Steps& steps, const std::string& top, const std::string& middle,
               const std::vector<Step>& pushed, Step new_middle);

}  // namespace tra::optimizer
