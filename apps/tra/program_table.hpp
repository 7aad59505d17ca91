#pragma once
// Prints a typed program as a table: one row per relation with its operator, type, frontier,
// tuple count and bytes.
#include <ostream>

#include "tra/program.hpp"

namespace tra::cli {

void print_program(std::ostream& out, const Program& program);

}  // namespace tra::cli
