#pragma once
// Element-wise expressions, the text of the `expr` and `expr_join` kernels ("x * 2",
// "(a - b) * (a - b)"): compiled once into a small register program whose instructions each
// run over a block of elements in a tight loop, so evaluating a tile costs no tree walk, no
// string work and no allocation per element or block.
//
// Grammar (EBNF; blanks between tokens are ignored):
//
//   expression = sum ;
//   sum        = product { ( "+" | "-" ) product } ;
//   product    = unary { ( "*" | "/" ) unary } ;
//   unary      = "-" unary | primary ;
//   primary    = number | variable | call | "(" sum ")" ;
//   call       = function "(" sum [ "," sum ] ")" ;
//   function   = "exp" | "log" | "sqrt" | "rsqrt" | "tanh" | "sigmoid" | "erf" | "abs"
//              | "sin" | "cos"                        (* one argument *)
//              | "min" | "max" | "pow" ;              (* two arguments *)
//   variable   = "x"                                  (* transform: expr *)
//              | "a" | "b" ;                          (* join: expr_join *)
//   number     = ( digits [ "." { digit } ] | "." digits ) [ ( "e" | "E" ) [ "+" | "-" ] digits ] ;
//
// Semantics are numpy's on the operands' dtype (f32 or f64): constants are rounded to it,
// sigmoid is 1 / (1 + exp(-x)) computed without overflow, rsqrt(x) = 1 / sqrt(x), min and max
// propagate NaN (numpy's minimum, maximum), pow, erf and the rest are the C library's.
// Constant subexpressions are folded at compile time, in each dtype, so folding never changes
// a result. Nothing assumes + or * associative or commutative: the program computes exactly
// the written order.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/checked.hpp"

namespace tra::kernels::expr {

// Which variables an expression may name: x (a transform's one operand) or a and b (a join's).
enum class Context { Transform, Join };

// Refused before parsing, so no text makes tra use unbounded memory or time.
inline constexpr std::size_t kMaxLength = 4096;  // characters
inline constexpr std::size_t kMaxNesting = 64;   // parentheses, calls and unary minus, nested
// Intermediate values alive at once. Evaluating the heavier operand first keeps any
// expression of kMaxLength within it (it needs about log2 of its leaves); the GPU interpreter
// holds them in a fixed array of this size.
inline constexpr std::size_t kMaxTemporaries = 32;

enum class Op : std::uint8_t {
    // One operand.
    Neg,
    Exp,
    Log,
    Sqrt,
    Rsqrt,
    Tanh,
    Sigmoid,
    Erf,
    Abs,
    Sin,
    Cos,
    // Two operands.
    Add,
    Sub,
    Mul,
    Div,
    Min,
    Max,
    Pow,
};
constexpr bool is_binary(Op op) {
    return op >= Op::Add;
}

// dst = op(a) or op(a, b). Operands and dst are slots: the inputs first (x, or a and b), then
// the constants, then the temporaries. dst is always a temporary distinct from a and b, and
// at most one of a and b is a constant (constant pairs are folded).
struct Instr {
    Op op;
    std::uint16_t dst = 0, a = 0, b = 0;
};

struct Program {
    std::string text;
    std::uint16_t inputs = 1;          // 1 (x) or 2 (a, b)
    std::vector<double> constants;     // folded in f64
    std::vector<float> constants_f32;  // the same constants folded in f32
    std::uint16_t temporaries = 0;     // at most kMaxTemporaries
    std::vector<Instr> code;
    // The slot holding the value. When a temporary, only the last instruction writes it.
    std::uint16_t result = 0;
    // f(0, ..., 0) is exactly 0 (not NaN) in both f32 and f64: evaluated, never assumed.
    bool zero_preserving = false;

    std::size_t slots() const { return inputs + constants.size() + temporaries; }
    bool is_constant(std::uint16_t slot) const {
        return slot >= inputs && slot < inputs + constants.size();
    }
    std::uint16_t first_temporary() const {
        return static_cast<std::uint16_t>(inputs + constants.size());
    }
};

// The program for `text`, or the problem: an Error whose where().column is the 1-based column
// within `text` (file and line empty) and whose message says "column N of the expression ...".
Checked<Program> compile(std::string_view text, Context context);

// compile's program for `text`, compiled once per thread and then looked up (the kernels run
// the same step's text on every tile); throws the problem. The lookup is per thread, so it needs
// no lock, and it is emptied when it holds 64 programs, so no workflow makes it grow unbounded.
const Program& compiled(std::string_view text, Context context);

// out[i] = the program on inputs[0][i] (and inputs[1][i]) for i in [0, n). The inputs are
// program.inputs arrays of n elements; out must not overlap them. T is float or double. Uses
// one scratch allocation per call, none per block; safe to call from several threads at once.
template <class T>
void evaluate(const Program& program, std::span<const T* const> inputs, T* out, std::int64_t n);

}  // namespace tra::kernels::expr
