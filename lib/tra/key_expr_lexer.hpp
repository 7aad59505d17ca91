#pragma once
// Internal to KeyFunction: splits key-expression text into tokens that remember their column,
// so every later error can point at the character it is about.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/ascii_text.hpp"

namespace tra::key_expr {

// The token kinds; Eq..Ge are in the order of the comparison ops of Op
// (the parser maps one onto the other by offset).
enum class Tok {
    Int,
    Name,
    LParen,
    RParen,
    Comma,
    Arrow,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Not,
    End
};

struct Token {
    Tok kind;
    std::size_t column;     // 1-based position of the first character
    std::string_view text;  // into the expression; empty for End
};

// Throws Error (BadInput, no location): "column C of the expression "TEXT": WHAT".
[[noreturn]] void fail(const std::string& expr, std::size_t column, const std::string& what);

using ascii::is_digit;

// The tokens of `text`, ending with one End token at column text.size() + 1. The views point
// into `text`, which must outlive them.
std::vector<Token> tokenize(const std::string& text);

}  // namespace tra::key_expr
