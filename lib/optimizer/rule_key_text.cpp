#include "optimizer/rule_key_text.hpp"

#include <map>

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

}  // namespace tra::optimizer
