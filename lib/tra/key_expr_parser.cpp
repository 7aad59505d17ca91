// Recursive-descent parser of the key-expression language (the EBNF grammar is at
// the top of key_function.cpp). The parser type-checks as it goes and emits postfix code
// directly: operands come out in evaluation order, so no separate AST is needed.
#include "tra/key_expr_parser.hpp"

#include <limits>
#include <optional>
#include <string_view>

#include "tra/key_expr_lexer.hpp"

namespace tra::key_expr {
namespace {

// "k3" -> 3 for the canonical spelling only ("k03" is just a name); huge numbers map to SIZE_MAX
// so they report as out of range rather than unknown.
std::optional<std::size_t> positional_index(std::string_view name) {
    if (name.size() < 2 || name[0] != 'k') return std::nullopt;
    if (name[1] == '0' && name.size() > 2) return std::nullopt;
    std::size_t n = 0;
    for (std::size_t i = 1; i < name.size(); ++i) {
        if (!is_digit(name[i])) return std::nullopt;
        n = i > 18 ? std::numeric_limits<std::size_t>::max()
                   : n * 10 + static_cast<std::size_t>(name[i] - '0');
    }
    return n;
}

std::string count_of(std::size_t n, const char* noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

enum class Type { Int, Bool, Tuple };

const char* a_type(Type t) {
    return t == Type::Int ? "an integer" : t == Type::Bool ? "a boolean" : "a tuple";
}

// What a parsed sub-expression leaves on the stack.
struct Operand {
    Type type;
    std::size_t column;     // where it starts, for type errors
    std::size_t count = 1;  // number of values (a tuple's length)
};

bool is_comparison(Tok k) {
    return k == Tok::Eq || k == Tok::Ne || k == Tok::Lt || k == Tok::Le || k == Tok::Gt ||
           k == Tok::Ge;
}

class Parser {
  public:
    Parser(const std::string& text, std::size_t arity) : text_(text), toks_(tokenize(text)) {
        program_.input_arity = arity;
    }

    Program run() {
        if (toks_.size() == 1) fail(text_, 1, "the expression is empty");
        for (std::size_t i = 0; i < toks_.size(); ++i) {
            if (toks_[i].kind == Tok::Arrow) {
                parse_params(i);
                break;
            }
        }
        if (peek().kind == Tok::End) fail_at(peek(), "expected the result after '->'");
        const Operand result = parse_or();
        if (peek().kind == Tok::RParen) fail_at(peek(), "unmatched ')'");
        if (peek().kind != Tok::End) {
            fail_at(peek(), "unexpected " + describe(peek()) + " after a complete expression");
        }
        program_.predicate = result.type == Type::Bool;
        program_.output_arity = result.count;
        return std::move(program_);
    }

  private:
    // Deep nesting would overflow the C++ stack long before it means anything.
    static constexpr std::size_t kMaxNesting = 256;
    struct NestGuard {
        NestGuard(Parser& p, const Token& at) : p(p) {
            if (++p.nesting_ > kMaxNesting) p.fail_at(at, "the expression nests too deeply");
        }
        ~NestGuard() { --p.nesting_; }
        Parser& p;
    };

    const Token& peek() const { return toks_[pos_]; }
    const Token& next() { return toks_[pos_ < toks_.size() - 1 ? pos_++ : pos_]; }
    bool accept(Tok k) {
        if (peek().kind != k) return false;
        ++pos_;
        return true;
    }
    [[noreturn]] void fail_at(const Token& t, const std::string& what) const {
        fail(text_, t.column, what);
    }
    static std::string describe(const Token& t) {
        return t.kind == Tok::End ? "the end of the expression" : "'" + std::string(t.text) + "'";
    }

    void emit(Op op, std::int64_t arg = 0) {
        program_.code.push_back({op, arg});
        // Binary operators pop one; so does the fall-through path of a jump.
        if (op == Op::Const || op == Op::Param)
            ++depth_;
        else if (op != Op::Neg && op != Op::Not)
            --depth_;
        if (depth_ > program_.max_depth) program_.max_depth = depth_;
    }

    void require(const Operand& o, Type want, const std::string& op) const {
        if (o.type == want) return;
        if (o.type == Type::Tuple) {
            fail(text_, o.column, "a tuple can only be the whole result, not an operand of " + op);
        }
        fail(text_, o.column,
             op + " needs " + (want == Type::Int ? "integers" : "booleans") + ", got " +
                 a_type(o.type));
    }

    // params = "(" [ name { "," name } ] ")" | name ;  followed by the "->" at `arrow`.
    void parse_params(std::size_t arrow) {
        named_ = true;
        const Token& first = toks_[0];
        if (first.kind == Tok::Name) {
            params_.push_back(first.text);
            pos_ = 1;
        } else if (first.kind == Tok::LParen) {
            pos_ = 1;
            if (!accept(Tok::RParen)) {
                for (;;) {
                    const Token& p = next();
                    if (p.kind != Tok::Name) {
                        fail_at(p, "expected a parameter name, got " + describe(p));
                    }
                    for (auto q : params_) {
                        if (q == p.text) {
                            fail_at(p, "parameter '" + std::string(p.text) + "' is named twice");
                        }
                    }
                    params_.push_back(p.text);
                    if (accept(Tok::RParen)) break;
                    if (!accept(Tok::Comma)) {
                        fail_at(peek(), "expected ',' or ')' in the parameter list, got " +
                                            describe(peek()));
                    }
                }
            }
        } else {
            fail_at(first, "expected a parameter list such as \"(i, j)\" before '->', got " +
                               describe(first));
        }
        if (pos_ != arrow)
            fail_at(peek(), "expected '->' after the parameter list, got " + describe(peek()));
        if (params_.size() != program_.input_arity) {
            fail_at(first, "the function takes " + count_of(params_.size(), "parameter") +
                               " but keys have " + count_of(program_.input_arity, "position"));
        }
        pos_ = arrow + 1;
    }

    Operand parse_logical(Tok tok, Op jump, const char* name, Operand (Parser::*operand)()) {
        Operand left = (this->*operand)();
        while (peek().kind == tok) {
            next();
            require(left, Type::Bool, name);
            const std::size_t at = program_.code.size();
            emit(jump);
            require((this->*operand)(), Type::Bool, name);
            program_.code[at].arg = static_cast<std::int64_t>(program_.code.size());
            left = {Type::Bool, left.column};
        }
        return left;
    }
    Operand parse_or() { return parse_logical(Tok::Or, Op::OrJump, "||", &Parser::parse_and); }
    Operand parse_and() {
        return parse_logical(Tok::And, Op::AndJump, "&&", &Parser::parse_comparison);
    }

    Operand parse_comparison() {
        const Operand left = parse_sum();
        if (!is_comparison(peek().kind)) return left;
        const Token& op = next();
        const std::string name(op.text);
        const Operand right = parse_sum();
        if ((op.kind == Tok::Eq || op.kind == Tok::Ne) && left.type != Type::Tuple &&
            right.type != Type::Tuple) {
            if (left.type != right.type) {
                fail_at(op, name + " compares values of one type, got " + a_type(left.type) +
                                " and " + a_type(right.type));
            }
        } else {
            require(left, Type::Int, name);
            require(right, Type::Int, name);
        }
        static constexpr Op ops[] = {Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge};
        emit(ops[static_cast<int>(op.kind) - static_cast<int>(Tok::Eq)]);
        if (is_comparison(peek().kind)) {
            fail_at(peek(), "comparisons do not chain; write \"a < b && b < c\"");
        }
        return {Type::Bool, left.column};
    }

    Operand parse_sum() {
        Operand left = parse_product();
        while (peek().kind == Tok::Plus || peek().kind == Tok::Minus) {
            const Token& op = next();
            require(left, Type::Int, std::string(op.text));
            require(parse_product(), Type::Int, std::string(op.text));
            emit(op.kind == Tok::Plus ? Op::Add : Op::Sub);
            left = {Type::Int, left.column};
        }
        return left;
    }

    Operand parse_product() {
        Operand left = parse_unary();
        while (peek().kind == Tok::Star || peek().kind == Tok::Slash ||
               peek().kind == Tok::Percent) {
            const Token& op = next();
            require(left, Type::Int, std::string(op.text));
            require(parse_unary(), Type::Int, std::string(op.text));
            emit(op.kind == Tok::Star ? Op::Mul : op.kind == Tok::Slash ? Op::Div : Op::Mod);
            left = {Type::Int, left.column};
        }
        return left;
    }

    Operand parse_unary() {
        if (peek().kind != Tok::Minus && peek().kind != Tok::Not) return parse_primary();
        NestGuard guard(*this, peek());
        const Token& op = next();
        // Folding "-literal" is what lets -9223372036854775808 be written at all.
        if (op.kind == Tok::Minus && peek().kind == Tok::Int) {
            emit(Op::Const, literal(next(), true));
            return {Type::Int, op.column};
        }
        const Operand o = parse_unary();
        if (op.kind == Tok::Minus) {
            require(o, Type::Int, "unary -");
            emit(Op::Neg);
        } else {
            require(o, Type::Bool, "!");
            emit(Op::Not);
        }
        return {o.type, op.column};
    }

    Operand parse_primary() {
        const Token& t = peek();
        if (t.kind == Tok::Int) {
            emit(Op::Const, literal(next(), false));
            return {Type::Int, t.column};
        }
        if (t.kind == Tok::Name) return parse_name(next());
        if (t.kind != Tok::LParen) fail_at(t, "expected an expression, got " + describe(t));
        NestGuard guard(*this, t);
        next();
        if (accept(Tok::RParen)) return {Type::Tuple, t.column, 0};
        const Operand first = parse_or();
        if (peek().kind != Tok::Comma) {
            expect_close(t, "')'");
            // Plain grouping ("(e)" as a result is a 1-position key); errors point at its '('.
            return {first.type, t.column, first.count};
        }
        check_element(first);
        std::size_t count = 1;
        while (accept(Tok::Comma)) {
            check_element(parse_or());
            ++count;
        }
        expect_close(t, "',' or ')'");
        return {Type::Tuple, t.column, count};
    }

    void expect_close(const Token& open, const char* expected) {
        if (accept(Tok::RParen)) return;
        fail_at(peek(), std::string("expected ") + expected + " to close the '(' at column " +
                            std::to_string(open.column) + ", got " + describe(peek()));
    }

    void check_element(const Operand& e) const {
        if (e.type == Type::Tuple) fail(text_, e.column, "tuples cannot be nested");
        if (e.type == Type::Bool) fail(text_, e.column, "a tuple holds integers, got a boolean");
    }

    Operand parse_name(const Token& t) {
        const std::string name(t.text);
        if (named_) {
            for (std::size_t i = 0; i < params_.size(); ++i) {
                if (params_[i] == t.text) {
                    emit(Op::Param, static_cast<std::int64_t>(i));
                    return {Type::Int, t.column};
                }
            }
            std::string msg = "unknown name '" + name + "'";
            if (positional_index(t.text))
                msg += " (k0, k1, ... are not available once parameters are named)";
            fail_at(t, msg);
        }
        const std::size_t arity = program_.input_arity;
        if (auto n = positional_index(t.text)) {
            if (*n >= arity) {
                fail_at(t, name + " is out of range: keys have " + count_of(arity, "position"));
            }
            emit(Op::Param, static_cast<std::int64_t>(*n));
            return {Type::Int, t.column};
        }
        std::string hint = arity == 0   ? "keys have no positions"
                           : arity == 1 ? "the key position is k0"
                                        : "the key positions are k0..k" + std::to_string(arity - 1);
        fail_at(t,
                "unknown name '" + name + "'; " + hint + ", or name them as in \"(i, j) -> ...\"");
    }

    std::int64_t literal(const Token& t, bool negative) const {
        constexpr std::uint64_t limit = std::uint64_t{1} << 63;  // |INT64_MIN|
        std::uint64_t v = 0;
        for (char c : t.text) {
            const auto d = static_cast<std::uint64_t>(c - '0');
            if (v > (limit - d) / 10) {  // v * 10 + d would pass |INT64_MIN| (or wrap)
                v = limit + 1;
                break;
            }
            v = v * 10 + d;
        }
        if (v > limit || (v == limit && !negative)) {
            fail_at(t, "integer literal " + std::string(t.text) +
                           " is out of range (at most 9223372036854775807)");
        }
        if (v == limit) return std::numeric_limits<std::int64_t>::min();
        const auto s = static_cast<std::int64_t>(v);
        return negative ? -s : s;
    }

    const std::string& text_;
    std::vector<Token> toks_;
    std::size_t pos_ = 0;
    std::size_t nesting_ = 0;
    std::size_t depth_ = 0;  // stack depth at the current point of the emitted code
    bool named_ = false;
    std::vector<std::string_view> params_;
    Program program_;
};

}  // namespace

Program compile(const std::string& text, std::size_t input_arity) {
    return Parser(text, input_arity).run();
}

}  // namespace tra::key_expr
