#include "workflow/replication_text.hpp"

#include <regex>

namespace tra::workflow {

std::optional<ia::Replication> parse_replication(const std::string& text) {
    static const std::regex whole(R"(\s*\(\s*([^()]*?)\s*\)\s*)");
    static const std::regex copy(R"(\s*k(\d{1,9})\s*)");
    static const std::regex fresh(R"(\s*0\s*:\s*(\d{1,9})\s*)");
    std::smatch m;
    if (!std::regex_match(text, m, whole)) return std::nullopt;
    const std::string list = m[1].str();
    ia::Replication spec;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t comma = list.find(',', start);
        const std::string item =
            list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        std::smatch e;
        if (std::regex_match(item, e, copy))
            spec.positions.push_back({std::stoul(e[1].str()), 1});
        else if (std::regex_match(item, e, fresh))
            spec.positions.push_back({std::nullopt, std::stoll(e[1].str())});
        else
            return std::nullopt;
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return spec;
}

}  // namespace tra::workflow
