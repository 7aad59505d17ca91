#pragma once
// Internal to the expression compiler: tokens (expression_lexer.cpp) and the folded syntax tree
// the parser builds from them (expression_parser.cpp), which expression_compiler.cpp turns into
// a Program. Both stages report a problem by throwing Error located at its column (fail below);
// compile() catches it and returns it as a value.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "kernels/expression.hpp"

namespace tra::kernels::expr {

enum class Tok { Number, Name, LParen, RParen, Comma, Plus, Minus, Star, Slash, End };

struct Token {
    Tok kind;
    std::size_t column;  // 1-based
    std::string_view text;
    // Number: its value as a double; in f32 it is this double rounded, as numpy rounds a
    // Python float operand to an f32 array's dtype.
    double value = 0;
};

// Throws Error with where().column = `column` and the message "column N of the expression
// "TEXT": WHAT" (the text shortened when very long).
[[noreturn]] void fail(std::string_view text, std::size_t column, const std::string& what);

// The tokens of `text`, ending with Tok::End at column size + 1. Throws via fail.
std::vector<Token> tokenize(std::string_view text);

// A node of the syntax tree: a constant (folded in both dtypes), an input, or an operation.
struct Node {
    enum class Kind { Constant, Input, Apply } kind = Kind::Constant;
    double value = 0;  // Constant
    float value_f32 = 0;
    std::uint16_t input = 0;      // Input: 0 (x or a) or 1 (b)
    Op op = Op::Neg;              // Apply
    std::int32_t a = -1, b = -1;  // Apply: operand nodes (b only for binary ops)
    // Temporaries needed to evaluate the node, with the heavier operand first (Sethi-Ullman);
    // constants and inputs need none, since they are slots of their own.
    std::uint16_t need = 0;
};

struct Tree {
    std::vector<Node> nodes;  // operands before the nodes that use them
    std::int32_t root = -1;
};

// Parses and folds `text` in `context`. Throws via fail.
Tree parse(std::string_view text, Context context);

}  // namespace tra::kernels::expr
