#include "tra/box_keys.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace tra {

namespace {

std::string without_spaces(const std::string& s) {
    std::string out;
    for (char c : s)
        if (!std::isspace(static_cast<unsigned char>(c))) out += c;
    return out;
}

// "a,b,c" -> {"a", "b", "c"}; "" -> {}.
std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> parts;
    if (s.empty()) return parts;
    std::string::size_type start = 0;
    for (;;) {
        const auto comma = s.find(',', start);
        parts.push_back(s.substr(start, comma - start));
        if (comma == std::string::npos) return parts;
        start = comma + 1;
    }
}

// "(x)" -> "x", "x" -> "x".
std::string unparenthesized(const std::string& s) {
    if (s.size() >= 2 && s.front() == '(' && s.back() == ')') return s.substr(1, s.size() - 2);
    return s;
}

}  // namespace

Frontier joined_box(const Frontier& left, const Frontier& right, const KeyPositions& left_keys,
                    const KeyPositions& right_keys) {
    Frontier out = left;
    std::vector<bool> joined(right.size(), false);
    for (std::size_t i = 0; i < left_keys.size(); ++i) {
        out[left_keys[i]] = std::min(left[left_keys[i]], right[right_keys[i]]);
        joined[right_keys[i]] = true;
    }
    for (std::size_t i = 0; i < right.size(); ++i)
        if (!joined[i]) out.push_back(right[i]);
    return out;
}

Frontier grouped_box(const Frontier& input, const KeyPositions& by) {
    Frontier out;
    for (std::size_t p : by) out.push_back(input[p]);
    return out;
}

Frontier tiled_box(const Frontier& input, std::int64_t pieces) {
    Frontier out = input;
    out.push_back(pieces);
    return out;
}

Frontier concatenated_box(const Frontier& input, std::size_t key_dim) {
    Frontier out;
    for (std::size_t i = 0; i < input.size(); ++i)
        if (i != key_dim) out.push_back(input[i]);
    return out;
}

std::optional<KeyPositions> position_permutation(const KeyFunction& f) {
    if (f.is_predicate() || f.output_arity() != f.input_arity()) return std::nullopt;
    // The text is either "(results)" over k0..kn, or "(names) -> (results)": a permutation
    // when every result is a bare parameter. Anything else (arithmetic, constants) may leave
    // holes, so it is enumerated.
    const std::string text = without_spaces(f.text());
    std::vector<std::string> names;
    std::string results = text;
    if (const auto arrow = text.find("->"); arrow != std::string::npos) {
        names = split_commas(unparenthesized(text.substr(0, arrow)));
        results = text.substr(arrow + 2);
    } else {
        for (std::size_t i = 0; i < f.input_arity(); ++i) names.push_back("k" + std::to_string(i));
    }
    const std::vector<std::string> outputs = split_commas(unparenthesized(results));
    if (names.size() != f.input_arity() || outputs.size() != f.output_arity()) return std::nullopt;
    KeyPositions permutation;
    std::vector<bool> used(names.size(), false);
    for (std::string o : outputs) {
        // "((k0), (k1))", as rules compose key texts: a parameter in parentheses is still one.
        while (o.size() > 2 && o.front() == '(' && o.back() == ')') o = o.substr(1, o.size() - 2);
        const auto it = std::find(names.begin(), names.end(), o);
        if (it == names.end()) return std::nullopt;
        const auto p = static_cast<std::size_t>(it - names.begin());
        if (used[p]) return std::nullopt;
        used[p] = true;
        permutation.push_back(p);
    }
    // The parser is the authority on what the text means: the permutation must agree with it
    // on a key whose positions all differ.
    Key probe(f.input_arity());
    for (std::size_t i = 0; i < probe.size(); ++i) probe[i] = static_cast<std::int64_t>(i) + 1;
    const Checked<Key> applied = f.try_apply(probe);
    if (!applied) return std::nullopt;
    for (std::size_t i = 0; i < permutation.size(); ++i)
        if ((*applied)[i] != probe[permutation[i]]) return std::nullopt;
    return permutation;
}

Frontier permuted_box(const Frontier& input, const KeyPositions& permutation) {
    Frontier out;
    for (std::size_t p : permutation) out.push_back(input[p]);
    return out;
}

}  // namespace tra
