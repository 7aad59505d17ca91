#include "tra/tiling_classes.hpp"

// How padding follows products (tiling_classes.hpp): a matmul-family join's letters, and which
// factor of a product (an einsum's or such a join's) takes zeros in its padding when no factor
// holds them.
#include <optional>

#include "tra/einsum_lowering.hpp"

namespace tra {

std::optional<std::size_t> TilingClasses::zero_fillable(const EinsumStep& step,
                                                        const EinsumSpec& spec, char label) const {
    if (step.inputs.size() < 2) return std::nullopt;
    for (std::size_t i = 0; i < step.inputs.size(); ++i) {
        if (spec.operands[i].find(label) == std::string::npos || !is_tensor(step.inputs[i]) ||
            keys_of(step.inputs[i]).size() != spec.operands[i].size())
            continue;
        bool others_finite = true;
        for (std::size_t j = 0; j < step.inputs.size(); ++j)
            others_finite = others_finite && (j == i || finite_of(step.inputs[j]));
        if (others_finite) return i;
    }
    return std::nullopt;
}

bool TilingClasses::follow_product(const std::string& name, const std::string& left,
                                   const std::string& right, const KeyPositions& left_keys,
                                   const KeyPositions& right_keys, const std::string& spec) {
    const auto comma = spec.find(','), arrow = spec.find("->");
    if (comma == std::string::npos || arrow == std::string::npos) return false;
    // Positions joined in pairs: lists of different lengths are refused by the program builder
    // after this pass (which sees every step first, valid or not), so nothing is followed here.
    if (left_keys.size() != right_keys.size()) return false;
    const std::string letters[2] = {spec.substr(0, comma),
                                    spec.substr(comma + 1, arrow - comma - 1)};
    const std::string out_letters = spec.substr(arrow + 2);
    const std::string side[2] = {left, right};
    const KeyPositions* on[2] = {&left_keys, &right_keys};
    // Per operand and key position: the letter of the tile dimension it cuts (0: none).
    std::vector<char> letter[2];
    for (int o = 0; o < 2; ++o)
        for (int d : dims_of(side[o])) {
            if (d >= static_cast<int>(letters[o].size())) return false;
            letter[o].push_back(d < 0 ? 0 : letters[o][static_cast<std::size_t>(d)]);
        }
    // Positions joined to each other cut the same letter (or none), and a letter of both
    // operands is cut by joined positions: its padded entries meet padded entries only.
    auto joined_to = [&](int o, std::size_t p) -> std::optional<std::size_t> {
        for (std::size_t i = 0; i < on[o]->size(); ++i)
            if ((*on[o])[i] == p) return (*on[1 - o])[i];
        return std::nullopt;
    };
    for (int o = 0; o < 2; ++o)
        for (std::size_t p = 0; p < letter[o].size(); ++p) {
            const char c = letter[o][p];
            const std::optional<std::size_t> q = joined_to(o, p);
            if (q ? *q >= letter[1 - o].size() || letter[1 - o][*q] != c
                  : c != 0 && letters[1 - o].find(c) != std::string::npos)
                return false;
        }
    // Summed letters: the padded entries enter the sums, exact where either factor is zero (and
    // the other finite), or where one factor that is a tensor, its co-factor finite, gets its
    // padding there set to 0 first (FoldFill, as an einsum's zero_fillable). Kept letters: the
    // product's padding is zero where its operand's is (a product with a zero).
    const std::vector<bool> zl = zeros_of(left), zr = zeros_of(right);
    const bool fl = finite_of(left), fr = finite_of(right);
    auto product_zero = [&](bool left_zero, bool right_zero) {
        return (left_zero && right_zero) || (left_zero && fr) || (right_zero && fl);
    };
    const std::vector<int> kl = keys_of(left), kr = keys_of(right);
    std::vector<bool> zeros;
    std::vector<int> dims;
    auto output_position = [&](char c, bool zero) {
        const auto d = c == 0 ? std::string::npos : out_letters.find(c);
        dims.push_back(d == std::string::npos ? -1 : static_cast<int>(d));
        zeros.push_back(d == std::string::npos || zero);  // no tile dimension: nothing padded
    };
    for (std::size_t p = 0; p < letter[0].size(); ++p) {
        const char c = letter[0][p];
        const std::optional<std::size_t> q = joined_to(0, p);
        const bool zero = product_zero(zl[p], q && zr[*q]);
        if (c != 0 && q && out_letters.find(c) == std::string::npos && !zero) {
            if (is_tensor(left) && fr)
                add_fill(name, 0, p, 0.0);
            else if (is_tensor(right) && fl)
                add_fill(name, 1, *q, 0.0);
            else
                no_padding({kl[p], kr[*q]},
                           "step " + name + " (a product " + spec +
                               ") sums a dimension whose products are not zero in the padding "
                               "(neither factor holds zeros there with the other finite, nor is "
                               "a tensor whose padding can be set to 0 with the other finite)");
        }
        output_position(c, zero);
    }
    for (std::size_t p = 0; p < letter[1].size(); ++p)
        if (!joined_to(1, p)) output_position(letter[1][p], product_zero(false, zr[p]));
    zeros_[name] = std::move(zeros);
    dims_[name] = std::move(dims);
    ranks_[name] = out_letters.size();
    return true;
}

}  // namespace tra
