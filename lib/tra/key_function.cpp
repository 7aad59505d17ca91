// Key functions of rekey and filter: parsing is in key_expr_parser.cpp; this file evaluates the
// compiled postfix program against keys.
//
// Grammar (EBNF; blanks, tabs and newlines between tokens are ignored):
//
//   function   = [ params "->" ] result ;
//   params     = "(" [ name { "," name } ] ")" | name ;
//   result     = "(" ")"                              (* a 0-position key *)
//              | "(" expr "," expr { "," expr } ")"   (* an n-position key, n >= 2 *)
//              | expr ;                               (* "e" and "(e)": 1 position or a predicate
//              *)
//   expr       = and { "||" and } ;
//   and        = comparison { "&&" comparison } ;
//   comparison = sum [ ( "==" | "!=" | "<" | "<=" | ">" | ">=" ) sum ] ;   (* no chaining *)
//   sum        = product { ( "+" | "-" ) product } ;
//   product    = unary { ( "*" | "/" | "%" ) unary } ;
//   unary      = ( "-" | "!" ) unary | primary ;
//   primary    = integer | name | "(" expr ")" ;
//   name       = ( letter | "_" ) { letter | digit | "_" } ;      (* ASCII letters *)
//   integer    = digit { digit } ;                                 (* fits in int64 *)
//
// Meaning:
//   - Without params, the names are k0 .. k{n-1} for a key of n positions. With params, their
//     count must be n, they must be distinct, and only they are names (k0.. are not).
//   - Values are 64-bit integers or booleans, checked when parsing: + - * / % unary- and
//     < <= > >= take integers; && || ! take booleans; == != take two values of one type.
//     && and || short-circuit. / and % floor (as in Python): -7 / 2 == -4, -7 % 2 == 1, and
//     a % b has the sign of b. Overflow and division by zero are errors when evaluated.
//   - The result of a filter is one boolean; the result of a rekey is integers only, each of
//     them >= 0 when evaluated. A tuple is only ever the whole result.
#include "tra/key_function.hpp"

#include <limits>
#include <vector>

#include "core/error.hpp"
#include "tra/key_expr_parser.hpp"

namespace tra {

namespace {

using key_expr::Op;

// Most expressions need a handful of slots; larger ones fall back to the heap.
constexpr std::size_t kSmallStack = 32;

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    std::int64_t q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0))) --q;
    return q;
}

std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
    if (b == -1) return 0;  // INT64_MIN % -1 is undefined in C++
    std::int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

// Calls f with a stack of at least `depth` slots, on the C++ stack when it is small.
template <class F>
auto with_stack(std::size_t depth, F&& f) {
    if (depth <= kSmallStack) {
        std::int64_t slots[kSmallStack];
        return f(slots);
    }
    std::vector<std::int64_t> slots(depth);
    return f(slots.data());
}

}  // namespace

struct KeyFunction::Impl {
    std::string text;
    key_expr::Program program;

    Error fail_at_key(const char* what, const Key& key) const {
        return Error(std::string(what) + " in \"" + text + "\" at key " + key.str());
    }

    // Runs the program on `key`; the results are stack[0 .. returned count), or the problem.
    Checked<std::size_t> run(const Key& key, std::int64_t* stack) const {
        if (key.size() != program.input_arity) {
            return Error("key " + key.str() + " does not fit \"" + text +
                         "\", which takes keys of " + std::to_string(program.input_arity) +
                         " positions");
        }
        const key_expr::Instr* code = program.code.data();
        const std::size_t n = program.code.size();
        std::size_t sp = 0;
        for (std::size_t pc = 0; pc < n; ++pc) {
            const key_expr::Instr& in = code[pc];
            switch (in.op) {
                case Op::Const:
                    stack[sp++] = in.arg;
                    continue;
                case Op::Param:
                    stack[sp++] = key[static_cast<std::size_t>(in.arg)];
                    continue;
                case Op::Neg:
                    if (stack[sp - 1] == std::numeric_limits<std::int64_t>::min()) {
                        return fail_at_key("integer overflow", key);
                    }
                    stack[sp - 1] = -stack[sp - 1];
                    continue;
                case Op::Not:
                    stack[sp - 1] = !stack[sp - 1];
                    continue;
                // The jump lands on instruction arg; the loop's ++pc is accounted for.
                case Op::AndJump:
                    if (stack[sp - 1] == 0)
                        pc = static_cast<std::size_t>(in.arg) - 1;
                    else
                        --sp;
                    continue;
                case Op::OrJump:
                    if (stack[sp - 1] != 0)
                        pc = static_cast<std::size_t>(in.arg) - 1;
                    else
                        --sp;
                    continue;
                default:
                    break;
            }
            const std::int64_t b = stack[--sp];
            std::int64_t& a = stack[sp - 1];
            switch (in.op) {
                case Op::Add:
                    if (__builtin_add_overflow(a, b, &a))
                        return fail_at_key("integer overflow", key);
                    break;
                case Op::Sub:
                    if (__builtin_sub_overflow(a, b, &a))
                        return fail_at_key("integer overflow", key);
                    break;
                case Op::Mul:
                    if (__builtin_mul_overflow(a, b, &a))
                        return fail_at_key("integer overflow", key);
                    break;
                case Op::Div:
                    if (b == 0) return fail_at_key("division by zero", key);
                    if (b == -1 && a == std::numeric_limits<std::int64_t>::min()) {
                        return fail_at_key("integer overflow", key);
                    }
                    a = floor_div(a, b);
                    break;
                case Op::Mod:
                    if (b == 0) return fail_at_key("division by zero", key);
                    a = floor_mod(a, b);
                    break;
                case Op::Eq:
                    a = a == b;
                    break;
                case Op::Ne:
                    a = a != b;
                    break;
                case Op::Lt:
                    a = a < b;
                    break;
                case Op::Le:
                    a = a <= b;
                    break;
                case Op::Gt:
                    a = a > b;
                    break;
                case Op::Ge:
                    a = a >= b;
                    break;
                default:
                    break;  // unary ops and jumps were handled above
            }
        }
        return sp;
    }
};

KeyFunction KeyFunction::parse(const std::string& text, std::size_t input_arity) {
    KeyFunction f;
    auto impl = std::make_shared<Impl>();
    impl->text = text;
    impl->program = key_expr::compile(impl->text, input_arity);
    f.impl_ = std::move(impl);
    return f;
}

KeyFunction::KeyFunction() = default;
KeyFunction::~KeyFunction() = default;
KeyFunction::KeyFunction(const KeyFunction&) = default;
KeyFunction& KeyFunction::operator=(const KeyFunction&) = default;

bool KeyFunction::is_predicate() const {
    return impl_ && impl_->program.predicate;
}

std::size_t KeyFunction::input_arity() const {
    return impl_ ? impl_->program.input_arity : 0;
}

std::size_t KeyFunction::output_arity() const {
    return impl_ && !impl_->program.predicate ? impl_->program.output_arity : 0;
}

const std::string& KeyFunction::text() const {
    static const std::string empty;
    return impl_ ? impl_->text : empty;
}

Checked<Key> KeyFunction::try_apply(const Key& key) const {
    if (!impl_) return Error("an empty key function cannot rekey");
    const Impl& f = *impl_;
    if (f.program.predicate) {
        return Error("\"" + f.text + "\" is a predicate (a filter), not a rekey function");
    }
    return with_stack(f.program.max_depth, [&](std::int64_t* stack) -> Checked<Key> {
        const Checked<std::size_t> n = f.run(key, stack);
        if (!n) return n.problem();
        std::vector<std::int64_t> out(stack, stack + *n);
        for (auto x : out) {
            if (x < 0) {
                return Error("rekey \"" + f.text + "\" maps key " + key.str() + " to " +
                             Key(out).str() + ": keys must be non-negative");
            }
        }
        return Key(std::move(out));
    });
}

Checked<bool> KeyFunction::try_test(const Key& key) const {
    if (!impl_) return Error("an empty key function cannot filter");
    const Impl& f = *impl_;
    if (!f.program.predicate) {
        return Error("\"" + f.text + "\" is not a predicate: it yields " +
                     std::to_string(f.program.output_arity) +
                     " integer(s) where a filter needs one boolean");
    }
    return with_stack(f.program.max_depth, [&](std::int64_t* stack) -> Checked<bool> {
        const Checked<std::size_t> n = f.run(key, stack);
        if (!n) return n.problem();
        return *n == 1 && stack[0] != 0;
    });
}

}  // namespace tra
