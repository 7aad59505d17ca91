// --max-tuples (or TRA_MAX_TUPLES): the most tuples one relation of the workflow may have, on
// every verb that loads a workflow. Key sets are enumerated, so this bounds the memory and time
// planning takes; a workflow past it is refused with a suggestion of coarser tiles.
#include "verbs.hpp"

namespace tra::cli {

void add_max_tuples_option(CLI::App* cmd, std::int64_t& max_tuples) {
    cmd->add_option("--max-tuples", max_tuples,
                    "Refuse a workflow with a relation of more tuples (tiles) than this")
        ->envname("TRA_MAX_TUPLES")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
}

}  // namespace tra::cli
