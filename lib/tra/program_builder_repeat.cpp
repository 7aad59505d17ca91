// `repeat:` and `every:` (docs/workflow-format.md, "Loops"): the checks that make a carried
// input's next value interchangeable with its first one, so one plan serves every iteration.
#include <string>

#include "tra/program_builder.hpp"

namespace tra {

namespace {

// Observations of one `every:` output at most, so that no input makes tra create datasets
// without bound.
constexpr std::int64_t kMaxObservations = 100000;

}  // namespace

std::optional<Error> ProgramBuilder::try_set_repeat(std::int64_t times,
                                                    const std::vector<CarryText>& carry,
                                                    const SourceLocation& where) {
    if (times < 1) return Error("repeat needs times of at least 1", where);
    Repeat r{times, {}, where};
    for (const CarryText& c : carry) {
        const Checked<NodeId> input = try_lookup(c.input, c.where);
        if (!input) return input.problem();
        const Checked<NodeId> step = try_lookup(c.step, c.where);
        if (!step) return step.problem();
        const Node& in = node(*input);
        const Node& st = node(*step);
        if (!std::holds_alternative<InputOp>(in.op))
            return Error("carry: '" + c.input +
                             "' is a step, not an input; only an input can "
                             "take a new value between iterations",
                         c.where);
        if (std::get<InputOp>(in.op).source.slice)
            return Error("carry: " + c.input +
                             " is read a slice per iteration (slice:); a "
                             "carried input takes its value from the loop instead",
                         c.where);
        if (*input == *step)
            return Error("carry: " + c.input + ": " + c.step +
                             " keeps the input as it is; drop "
                             "the entry",
                         c.where);
        if (!(in.type == st.type))
            return Error("carry: " + c.step + " is " + st.type.str() + " but input " + c.input +
                             " is " + in.type.str() +
                             "; a carried step must have the input's type and tiling",
                         c.where);
        if (!(in.frontier == st.frontier) || !(in.keys == st.keys))
            return Error("carry: " + c.step + " has " + std::to_string(st.tuples()) +
                             " tiles below frontier " + st.frontier.str() + " but input " +
                             c.input + " has " + std::to_string(in.tuples()) + " below " +
                             in.frontier.str() + "; a carried step must have the input's tiles",
                         c.where);
        r.carry.push_back(Carry{*input, *step, c.where});
    }
    program_.repeat = std::move(r);
    return std::nullopt;
}

std::optional<Error> ProgramBuilder::try_add_observed_output(const std::string& relation,
                                                             const std::string& file,
                                                             const std::string& dataset,
                                                             std::int64_t every,
                                                             const StepSource& src, bool sparse) {
    const SourceLocation at = src.at("every");
    if (!program_.repeat)
        return Error("every: observes an output during a loop; this workflow has no repeat", at);
    if (every < 1) return Error("every must be at least 1", at);
    const std::int64_t times = program_.repeat->times;
    if (times / every > kMaxObservations)
        return Error("every " + std::to_string(every) + " of " + std::to_string(times) +
                         " iterations writes " + std::to_string(times / every) +
                         " datasets, more than " + std::to_string(kMaxObservations) +
                         "; observe less often",
                     at);
    for (std::int64_t i = every; i <= times; i += every)
        if (auto problem =
                try_add_output(relation, file, dataset + "@" + std::to_string(i), src, i, sparse))
            return problem;
    return try_add_output(relation, file, dataset, src, 0, sparse);
}

}  // namespace tra
