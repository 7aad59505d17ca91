#pragma once
// Internal to KeyFunction: compiles key-expression text (grammar in key_function.cpp) into a
// postfix program for a tiny stack machine, so evaluating it over millions of keys does no
// string work and no allocation per key. All parse errors are raised here.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tra::key_expr {

enum class Op : std::uint8_t {
    Const,  // push arg
    Param,  // push key[arg]
    Neg,
    Not,
    Add,
    Sub,
    Mul,
    Div,  // floor division
    Mod,  // floor modulo
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    // Short circuit: when the boolean on top already decides the result, keep it and jump to
    // instruction `arg`; otherwise pop it and fall through to the right operand.
    AndJump,
    OrJump,
};

struct Instr {
    Op op;
    std::int64_t arg = 0;  // constant, key position or jump target
};

struct Program {
    std::vector<Instr> code;
    std::size_t max_depth = 0;  // stack slots the program needs
    std::size_t input_arity = 0;
    std::size_t output_arity = 0;  // values left on the stack (1 for a predicate)
    bool predicate = false;        // the single result is a boolean (0 or 1)
};

// Throws Error (BadInput, no location) naming the 1-based column within `text`.
Program compile(const std::string& text, std::size_t input_arity);

}  // namespace tra::key_expr
