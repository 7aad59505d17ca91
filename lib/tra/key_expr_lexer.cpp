// Tokenizer of the key-expression language (grammar at the top of key_function.cpp).
#include "tra/key_expr_lexer.hpp"

#include "core/error.hpp"

namespace tra::key_expr {
namespace {

using ascii::is_name_char;
using ascii::is_name_start;
using ascii::show_char;

}  // namespace

[[noreturn]] void fail(const std::string& expr, std::size_t column, const std::string& what) {
    throw Error("column " + std::to_string(column) + " of the expression \"" + expr +
                "\": " + what);
}

std::vector<Token> tokenize(const std::string& s) {
    // Longer operators first, so "->" is not read as "-" and ">".
    static constexpr struct {
        std::string_view text;
        Tok kind;
    } ops[] = {
        {"->", Tok::Arrow}, {"==", Tok::Eq},   {"!=", Tok::Ne},     {"<=", Tok::Le},
        {">=", Tok::Ge},    {"&&", Tok::And},  {"||", Tok::Or},     {"(", Tok::LParen},
        {")", Tok::RParen}, {",", Tok::Comma}, {"+", Tok::Plus},    {"-", Tok::Minus},
        {"*", Tok::Star},   {"/", Tok::Slash}, {"%", Tok::Percent}, {"<", Tok::Lt},
        {">", Tok::Gt},     {"!", Tok::Not},
    };
    std::vector<Token> out;
    std::size_t i = 0;
    auto view = [&](std::size_t b, std::size_t e) { return std::string_view(s).substr(b, e - b); };
    while (i < s.size()) {
        const char c = s[i];
        const std::size_t start = i;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            ++i;
        } else if (is_digit(c)) {
            while (i < s.size() && is_digit(s[i])) ++i;
            if (i < s.size() && is_name_char(s[i])) {
                while (i < s.size() && is_name_char(s[i])) ++i;
                fail(s, start + 1, "malformed number '" + std::string(view(start, i)) + "'");
            }
            out.push_back({Tok::Int, start + 1, view(start, i)});
        } else if (is_name_start(c)) {
            while (i < s.size() && is_name_char(s[i])) ++i;
            out.push_back({Tok::Name, start + 1, view(start, i)});
        } else {
            bool matched = false;
            for (const auto& op : ops) {
                if (s.compare(i, op.text.size(), op.text) == 0) {
                    out.push_back({op.kind, start + 1, view(i, i + op.text.size())});
                    i += op.text.size();
                    matched = true;
                    break;
                }
            }
            if (matched) continue;
            // The likely slips of people used to other languages get a pointed hint.
            if (c == '=') fail(s, start + 1, "'=' is not an operator; write '==' to compare");
            if (c == '&') fail(s, start + 1, "'&' is not an operator; write '&&'");
            if (c == '|') fail(s, start + 1, "'|' is not an operator; write '||'");
            fail(s, start + 1, "unexpected character " + show_char(c));
        }
    }
    out.push_back({Tok::End, s.size() + 1, {}});
    return out;
}

}  // namespace tra::key_expr
