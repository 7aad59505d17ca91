// Recursive-descent parser of element-wise expressions (grammar in expression.hpp). It builds
// the syntax tree bottom-up and folds an operation on constants as soon as it is built, in f32
// and f64 each, so the compiler only sees operations with at least one variable operand.
#include <algorithm>

#include "kernels/expression_ops.hpp"
#include "kernels/expression_syntax.hpp"

namespace tra::kernels::expr {
namespace {

class Parser {
  public:
    Parser(std::string_view text, Context context)
        : text_(text), context_(context), toks_(tokenize(text)) {}

    Tree run() {
        if (peek().kind == Tok::End) fail(text_, 1, "the expression is empty");
        tree_.root = parse_sum();
        if (peek().kind == Tok::RParen) fail_at(peek(), "unmatched ')'");
        if (peek().kind != Tok::End)
            fail_at(peek(), "unexpected " + describe(peek()) + " after a complete expression");
        return std::move(tree_);
    }

  private:
    // Each level is a C++ stack frame here and in the compiler.
    struct NestGuard {
        NestGuard(Parser& p, const Token& at) : p(p) {
            if (++p.nesting_ > kMaxNesting)
                p.fail_at(at, "the expression nests more than " + std::to_string(kMaxNesting) +
                                  " levels deep");
        }
        ~NestGuard() { --p.nesting_; }
        Parser& p;
    };

    const Token& peek() const { return toks_[pos_]; }
    const Token& next() { return toks_[pos_ < toks_.size() - 1 ? pos_++ : pos_]; }
    [[noreturn]] void fail_at(const Token& t, const std::string& what) const {
        fail(text_, t.column, what);
    }
    static std::string describe(const Token& t) {
        return t.kind == Tok::End ? "the end of the expression" : "'" + std::string(t.text) + "'";
    }
    void expect(Tok kind, const std::string& what) {
        if (peek().kind != kind) fail_at(peek(), "expected " + what + ", got " + describe(peek()));
        next();
    }

    std::int32_t add(Node n) {
        tree_.nodes.push_back(n);
        return static_cast<std::int32_t>(tree_.nodes.size() - 1);
    }
    std::int32_t constant(double value, float value_f32) {
        Node n;
        n.kind = Node::Kind::Constant;
        n.value = value;
        n.value_f32 = value_f32;
        return add(n);
    }

    // op(a) or op(a, b); folded when every operand is a constant.
    std::int32_t apply(Op op, std::int32_t a, std::int32_t b = -1) {
        const Node& x = tree_.nodes[static_cast<std::size_t>(a)];
        const Node* y = b >= 0 ? &tree_.nodes[static_cast<std::size_t>(b)] : nullptr;
        const bool x_const = x.kind == Node::Kind::Constant;
        if (x_const && (!y || y->kind == Node::Kind::Constant)) {
            const double yd = y ? y->value : 0.0;
            const float yf = y ? y->value_f32 : 0.0f;
            const double d = apply_op(op, x.value, yd);
            const float f = apply_op(op, x.value_f32, yf);
            return constant(d, f);
        }
        Node n;
        n.kind = Node::Kind::Apply;
        n.op = op;
        n.a = a;
        n.b = b;
        // Sethi-Ullman: with the heavier operand first, its temporaries are free again by the
        // time the other is computed; the result needs a slot of its own beside the operands'.
        const std::uint16_t na = x.need, nb = y ? y->need : 0;
        const auto held = [](const Node& o) { return o.kind == Node::Kind::Apply ? 1 : 0; };
        const int both = held(x) + (y ? held(*y) : 0) + 1;
        const int first = std::max(na, nb);
        const int second = std::min(na, nb) + (y ? held(na >= nb ? x : *y) : 0);
        n.need = static_cast<std::uint16_t>(std::max({first, second, both}));
        return add(n);
    }

    // sum = product { ( "+" | "-" ) product } ;
    std::int32_t parse_sum() {
        std::int32_t left = parse_product();
        while (peek().kind == Tok::Plus || peek().kind == Tok::Minus) {
            const Op op = next().kind == Tok::Plus ? Op::Add : Op::Sub;
            left = apply(op, left, parse_product());
        }
        return left;
    }

    // product = unary { ( "*" | "/" ) unary } ;
    std::int32_t parse_product() {
        std::int32_t left = parse_unary();
        while (peek().kind == Tok::Star || peek().kind == Tok::Slash) {
            const Op op = next().kind == Tok::Star ? Op::Mul : Op::Div;
            left = apply(op, left, parse_unary());
        }
        return left;
    }

    // unary = "-" unary | primary ;
    std::int32_t parse_unary() {
        if (peek().kind != Tok::Minus) return parse_primary();
        NestGuard guard(*this, peek());
        next();
        return apply(Op::Neg, parse_unary());
    }

    // primary = number | variable | call | "(" sum ")" ;
    std::int32_t parse_primary() {
        const Token& t = next();
        switch (t.kind) {
            case Tok::Number:
                return constant(t.value, static_cast<float>(t.value));
            case Tok::LParen: {
                NestGuard guard(*this, t);
                const std::int32_t inner = parse_sum();
                expect(Tok::RParen, "')' to close the '(' at column " + std::to_string(t.column));
                return inner;
            }
            case Tok::Name:
                return peek().kind == Tok::LParen ? parse_call(t) : variable(t);
            default:
                fail_at(t, "expected a number, a variable, a function or '(', got " + describe(t));
        }
    }

    std::int32_t variable(const Token& t) {
        const bool transform = context_ == Context::Transform;
        if (transform && t.text == "x") return input(0);
        if (!transform && (t.text == "a" || t.text == "b")) return input(t.text == "a" ? 0 : 1);
        const char* known = transform ? "x (a transform's element)" : "a and b (a join's elements)";
        const std::string name(t.text);
        if (t.text == "x" || t.text == "a" || t.text == "b")
            fail_at(t, "variable '" + name + "' is not available here; the variables are " + known);
        for (const Function& f : kFunctions)
            if (f.name == t.text) fail_at(t, "function '" + name + "' needs '(' and its arguments");
        fail_at(t, "unknown name '" + name + "'; the variables are " + known);
    }

    std::int32_t input(std::uint16_t i) {
        Node n;
        n.kind = Node::Kind::Input;
        n.input = i;
        return add(n);
    }

    // call = function "(" sum [ "," sum ] ")" ;
    std::int32_t parse_call(const Token& name) {
        const Function* f = nullptr;
        for (const Function& g : kFunctions)
            if (g.name == name.text) f = &g;
        if (!f) {
            std::string known;
            for (const Function& g : kFunctions)
                known += (known.empty() ? "" : ", ") + std::string(g.name);
            fail_at(name, "unknown function '" + std::string(name.text) + "'; the functions are " +
                              known);
        }
        NestGuard guard(*this, name);
        const std::size_t want = is_binary(f->op) ? 2 : 1;
        const std::string what =
            "'" + std::string(f->name) + "' takes " + (want == 1 ? "1 argument" : "2 arguments");
        next();  // "("
        if (peek().kind == Tok::RParen) fail_at(peek(), what + ", got none");
        std::int32_t args[2] = {parse_sum(), -1};
        std::size_t got = 1;
        while (peek().kind == Tok::Comma) {
            const Token& comma = next();
            if (got == want) fail_at(comma, what + ", got more");
            args[got++] = parse_sum();
        }
        if (got < want) fail_at(peek(), what + ", got " + std::to_string(got));
        expect(Tok::RParen, "')' to close the call of '" + std::string(f->name) + "'");
        return apply(f->op, args[0], args[1]);
    }

    std::string_view text_;
    Context context_;
    std::vector<Token> toks_;
    std::size_t pos_ = 0;
    std::size_t nesting_ = 0;
    Tree tree_;
};

}  // namespace

Tree parse(std::string_view text, Context context) {
    if (text.size() > kMaxLength)
        fail(text, kMaxLength + 1,
             "the expression is " + std::to_string(text.size()) + " characters long; at most " +
                 std::to_string(kMaxLength) + " are allowed");
    return Parser(text, context).run();
}

}  // namespace tra::kernels::expr
