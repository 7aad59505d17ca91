#pragma once
// Tables for people: a typed program (one row per relation with its operator, type, frontier,
// tuple count and bytes), and the column layout the other verbs share.
#include <ostream>
#include <string>
#include <vector>

#include "tra/program.hpp"

namespace tra::cli {

void print_program(std::ostream& out, const Program& program);
// One line per einsum with two or more operands: the order its operands are joined in and the
// flops of that order (tra/einsum_orders.hpp).
void print_einsum_orders(std::ostream& out, const Program& program);

// The inputs with tile: auto: as written (planned = false: "auto" where tra chooses), or the
// tiles the program was built with.
void print_auto_tiling(std::ostream& out, const Program& program, bool planned);

// Rows (the first is the header) as left-aligned columns two spaces apart: the layout of every
// table the CLI prints for people.
void print_columns(std::ostream& out, const std::vector<std::vector<std::string>>& rows);

}  // namespace tra::cli
