#pragma once
// Helpers the ProgramBuilder's files share (program_builder.cpp, program_builder_layout.cpp):
// the divisibility error's suggestions and the last touch of every node it appends.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tra/program.hpp"

namespace tra::builder {

// "1, 2, 4": a list for an error message.
std::string join_list(const std::vector<std::int64_t>& v);

// Up to four divisors of n closest to the requested tile size, for the divisibility error.
std::vector<std::int64_t> divisors_near(std::int64_t n, std::int64_t wanted);

// Bytes of one tile of `bound` elements, or nothing past 64 bits.
std::optional<std::int64_t> checked_tile_bytes(const Shape& bound, DType dtype);
// Enumerated keys that fill their box are held as that box, so later steps stay dense.
void finish_node(Node& n);

}  // namespace tra::builder
