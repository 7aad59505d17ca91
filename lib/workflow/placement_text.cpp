#include "workflow/placement_text.hpp"

#include <limits>
#include <regex>

namespace tra::workflow {

namespace {

// std::stoul/stoi with every failure (overflow included) turned into nullopt.
template <typename T>
std::optional<T> number(const std::string& digits) {
    try {
        const unsigned long long v = std::stoull(digits);
        if (v > static_cast<unsigned long long>(std::numeric_limits<T>::max())) return std::nullopt;
        return static_cast<T>(v);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<ia::Placement> parse_part(const std::string& list) {
    KeyPositions dims;
    static const std::regex item(R"(\d+)");
    for (auto it = std::sregex_iterator(list.begin(), list.end(), item);
         it != std::sregex_iterator(); ++it) {
        auto d = number<std::size_t>(it->str());
        if (!d) return std::nullopt;
        dims.push_back(*d);
    }
    return ia::Placement::part(std::move(dims));
}

}  // namespace

std::optional<ia::Placement> parse_placement(const std::string& text) {
    static const std::regex all(R"(\s*All\s*)");
    static const std::regex unknown(R"(\s*Unknown\s*)");
    // The list is validated as a whole here; parse_part then only extracts the numbers.
    static const std::regex part(R"(\s*Part\s*\[\s*((?:\d+\s*(?:,\s*\d+\s*)*)?)\]\s*)");
    // Positions r x c [x l] on rows x cols [x layers]: the layer given on both sides or neither.
    static const std::regex grid(
        R"(\s*Grid\s*\[\s*(\d+)\s*x\s*(\d+)(?:\s*x\s*(\d+))?\s+on\s+(\d+)\s*x\s*(\d+)\s*)"
        R"((?:x\s*(\d+)\s*)?(?:,\s*replicated\s+along\s+(rows|columns)\s*)?\]\s*)");
    std::smatch m;
    if (std::regex_match(text, all)) return ia::Placement::all();
    if (std::regex_match(text, unknown)) return ia::Placement::unknown();
    if (std::regex_match(text, m, part)) return parse_part(m[1].str());
    if (std::regex_match(text, m, grid)) {
        if (m[3].matched != m[6].matched) return std::nullopt;
        const bool layered = m[3].matched;
        auto row = number<std::size_t>(m[1].str()), col = number<std::size_t>(m[2].str());
        auto layer = layered ? number<std::size_t>(m[3].str()) : std::optional<std::size_t>(0);
        auto rows = number<int>(m[4].str()), cols = number<int>(m[5].str());
        auto layers = layered ? number<int>(m[6].str()) : std::optional<int>(1);
        if (!row || !col || !layer || !rows || !cols || !layers || *rows < 1 || *cols < 1 ||
            *layers < 1)
            return std::nullopt;
        auto rep = ia::Placement::Replicate::None;
        if (m[7].matched)
            rep = m[7].str() == "rows" ? ia::Placement::Replicate::AlongRow
                                       : ia::Placement::Replicate::AlongColumn;
        return ia::Placement::layered_grid(*row, *col, *layer, *rows, *cols, *layers, rep);
    }
    return std::nullopt;
}

std::string placement_syntax() {
    return "All, Part[d, ...], Grid[r x c on RxC] or Grid[r x c x l on RxCxL] (optionally "
           "', replicated along rows' or "
           "', replicated along columns' before the ']'), or Unknown";
}

}  // namespace tra::workflow
