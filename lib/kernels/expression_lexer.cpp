// Tokenizer of element-wise expressions (grammar in expression.hpp).
#include <charconv>
#include <system_error>

#include "core/ascii_text.hpp"
#include "kernels/expression_syntax.hpp"

namespace tra::kernels::expr {
namespace {

using ascii::is_digit;
using ascii::is_name_char;
using ascii::is_name_start;
using ascii::show_char;

// The end of the number starting at `i`: digits [ "." digits ] [ exponent ], or "." digits
// [ exponent ]; fails on a malformed one ("1e", "1.2.3", "2x").
std::size_t scan_number(std::string_view s, std::size_t i) {
    const std::size_t start = i;
    auto digits = [&] {
        const std::size_t from = i;
        while (i < s.size() && is_digit(s[i])) ++i;
        return i - from;
    };
    std::size_t mantissa = digits();
    if (i < s.size() && s[i] == '.') {
        ++i;
        mantissa += digits();
    }
    bool bad = mantissa == 0;
    if (!bad && i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        bad = digits() == 0;
    }
    if (bad || (i < s.size() && (is_name_char(s[i]) || s[i] == '.'))) {
        while (i < s.size() && (is_name_char(s[i]) || s[i] == '.')) ++i;
        fail(s, start + 1, "malformed number '" + std::string(s.substr(start, i - start)) + "'");
    }
    return i;
}

}  // namespace

[[noreturn]] void fail(std::string_view text, std::size_t column, const std::string& what) {
    // Echo the whole expression, as key expressions do, unless it is past the length limit.
    constexpr std::size_t kShown = 64;
    const std::string shown =
        text.size() <= kMaxLength ? std::string(text) : std::string(text.substr(0, kShown)) + "...";
    SourceLocation where;
    where.column = static_cast<int>(column);
    // The location's column alone renders nothing (SourceLocation::empty), so the message says
    // where itself; a caller locates the error in its file with Error::located.
    throw Error(
        "column " + std::to_string(column) + " of the expression \"" + shown + "\": " + what,
        where);
}

std::vector<Token> tokenize(std::string_view s) {
    std::vector<Token> out;
    std::size_t i = 0;
    while (i < s.size()) {
        const char c = s[i];
        const std::size_t start = i;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            ++i;
        } else if (is_digit(c) || c == '.') {
            i = scan_number(s, i);
            Token t{Tok::Number, start + 1, s.substr(start, i - start)};
            // from_chars, not strtod: the C locale's decimal point whatever the process's.
            const auto [end, ec] = std::from_chars(s.data() + start, s.data() + i, t.value);
            if (ec == std::errc::result_out_of_range)
                fail(s, start + 1, "the number '" + std::string(t.text) + "' is out of range");
            if (ec != std::errc() || end != s.data() + i)
                fail(s, start + 1, "malformed number '" + std::string(t.text) + "'");
            out.push_back(t);
        } else if (is_name_start(c)) {
            while (i < s.size() && is_name_char(s[i])) ++i;
            out.push_back({Tok::Name, start + 1, s.substr(start, i - start)});
        } else {
            Tok kind;
            switch (c) {
                case '(':
                    kind = Tok::LParen;
                    break;
                case ')':
                    kind = Tok::RParen;
                    break;
                case ',':
                    kind = Tok::Comma;
                    break;
                case '+':
                    kind = Tok::Plus;
                    break;
                case '-':
                    kind = Tok::Minus;
                    break;
                case '/':
                    kind = Tok::Slash;
                    break;
                case '*':
                    if (i + 1 < s.size() && s[i + 1] == '*')
                        fail(s, start + 1, "'**' is not an operator; write pow(x, y)");
                    kind = Tok::Star;
                    break;
                case '^':
                    fail(s, start + 1, "'^' is not an operator; write pow(x, y)");
                default:
                    fail(s, start + 1, "unexpected character " + show_char(c));
            }
            out.push_back({kind, start + 1, s.substr(i, 1)});
            ++i;
        }
    }
    out.push_back({Tok::End, s.size() + 1, {}});
    return out;
}

}  // namespace tra::kernels::expr
