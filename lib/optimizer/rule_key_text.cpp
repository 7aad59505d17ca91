#include "optimizer/rule_key_text.hpp"

#include <map>

#include "core/error.hpp"

// The lexer is KeyFunction's internal tokenizer; reusing it means the rules split texts exactly
// as the parser does instead of guessing with string searches.
#include "tra/key_expr_lexer.hpp"

namespace tra::optimizer {

namespace {

using key_expr::Tok;
using key_expr::Token;

// A parsed text split into its parameter names (position = index) and its body tokens.
struct Split {
    std::map<std::string, std::size_t> params;
    std::vector<Token> body;  // without the End token
};

// The text was accepted by KeyFunction::parse, so its shape is known: either "params -> body"
// (params "(a, b)" or a single name) or a body over k0..k{n-1}.
Split split(const std::string& text, std::size_t arity) {
    const std::vector<Token> tokens = key_expr::tokenize(text);
    std::size_t arrow = tokens.size();
    for (std::size_t i = 0; i < tokens.size(); ++i)
        if (tokens[i].kind == Tok::Arrow) arrow = i;
    Split s;
    if (arrow == tokens.size()) {
        for (std::size_t p = 0; p < arity; ++p) s.params.emplace("k" + std::to_string(p), p);
        s.body.assign(tokens.begin(), tokens.end() - 1);
    } else {
        for (std::size_t i = 0; i < arrow; ++i)
            if (tokens[i].kind == Tok::Name)
                s.params.emplace(std::string(tokens[i].text), s.params.size());
        s.body.assign(tokens.begin() + static_cast<std::ptrdiff_t>(arrow) + 1, tokens.end() - 1);
    }
    return s;
}

}  // namespace

std::set<std::size_t> read_positions(const KeyFunction& f) {
    const Split s = split(f.text(), f.input_arity());
    std::set<std::size_t> out;
    // Every name in a body is a parameter: the language has no other names.
    for (const Token& t : s.body)
        if (t.kind == Tok::Name) out.insert(s.params.at(std::string(t.text)));
    return out;
}

std::optional<std::string> reindexed_text(const KeyFunction& f,
                                          const std::vector<std::optional<std::size_t>>& to) {
    const Split s = split(f.text(), f.input_arity());
    std::string out;
    for (const Token& t : s.body) {
        if (!out.empty()) out += ' ';  // blanks keep "- -1" from becoming a different token
        if (t.kind != Tok::Name) {
            out += t.text;
            continue;
        }
        const std::size_t p = s.params.at(std::string(t.text));
        if (p >= to.size() || !to[p]) return std::nullopt;
        out += "k" + std::to_string(*to[p]);
    }
    return out;
}

std::string positional_text(const KeyFunction& f) {
    std::vector<std::optional<std::size_t>> identity;
    for (std::size_t p = 0; p < f.input_arity(); ++p) identity.emplace_back(p);
    return *reindexed_text(f, identity);
}

namespace {

// Tokens as positional text, blank-separated like reindexed_text.
std::string positional(const Split& s, std::vector<Token>::const_iterator from,
                       std::vector<Token>::const_iterator to) {
    std::string out;
    for (auto t = from; t != to; ++t) {
        if (!out.empty()) out += ' ';
        out += t->kind == Tok::Name ? "k" + std::to_string(s.params.at(std::string(t->text)))
                                    : std::string(t->text);
    }
    return out;
}

}  // namespace

std::vector<std::string> result_texts(const KeyFunction& f) {
    const Split s = split(f.text(), f.input_arity());
    const auto& b = s.body;
    // A tuple "( e0 , e1 , ... )" when the first parenthesis closes at the very end; otherwise
    // ("(i + 1) * 2", "k0") the whole body is one result.
    bool tuple = !b.empty() && b.front().kind == Tok::LParen;
    int depth = 0;
    for (std::size_t i = 0; tuple && i < b.size(); ++i) {
        depth += b[i].kind == Tok::LParen ? 1 : b[i].kind == Tok::RParen ? -1 : 0;
        if (depth == 0 && i + 1 != b.size()) tuple = false;
    }
    if (!tuple) return {positional(s, b.begin(), b.end())};
    std::vector<std::string> out;
    auto start = b.begin() + 1;
    depth = 0;
    for (auto t = b.begin() + 1; t != b.end() - 1; ++t) {
        depth += t->kind == Tok::LParen ? 1 : t->kind == Tok::RParen ? -1 : 0;
        if (depth == 0 && t->kind == Tok::Comma) {
            out.push_back(positional(s, start, t));
            start = t + 1;
        }
    }
    out.push_back(positional(s, start, b.end() - 1));
    return out;
}

std::string substituted_text(const KeyFunction& f, const std::vector<std::string>& by) {
    const Split s = split(f.text(), f.input_arity());
    std::string out;
    for (const Token& t : s.body) {
        if (!out.empty()) out += ' ';
        if (t.kind != Tok::Name) {
            out += t.text;
            continue;
        }
        const std::size_t p = s.params.at(std::string(t.text));
        if (p >= by.size())
            throw Error("internal: no substitute for key position " + std::to_string(p), {},
                        ErrorKind::Failed);
        out += "(" + by[p] + ")";
    }
    return out;
}

}  // namespace tra::optimizer
