#include "kernels/cache_size.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <fstream>
#include <string>

#include "core/checked_math.hpp"

namespace tra::kernels {

namespace {

std::string first_line(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

}  // namespace

std::optional<std::int64_t> parse_cache_size(std::string_view text) {
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end == text.data() || value < 0) return std::nullopt;
    const std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
    if (unit.empty()) return value;
    if (unit == "K") return checked_mul(value, std::int64_t{1} << 10);
    if (unit == "M") return checked_mul(value, std::int64_t{1} << 20);
    if (unit == "G") return checked_mul(value, std::int64_t{1} << 30);
    return std::nullopt;
}

std::optional<unsigned> cpus_in_mask(std::string_view mask) {
    unsigned count = 0;
    bool any = false;
    for (const char c : mask) {
        if (c == ',') continue;
        unsigned digit = 0;
        if (c >= '0' && c <= '9')
            digit = static_cast<unsigned>(c - '0');
        else if (c >= 'a' && c <= 'f')
            digit = static_cast<unsigned>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            digit = static_cast<unsigned>(c - 'A' + 10);
        else
            return std::nullopt;
        count += static_cast<unsigned>(std::popcount(digit));
        any = true;
    }
    if (!any) return std::nullopt;
    return count;
}

std::int64_t host_last_level_cache_bytes(unsigned cpus, const std::filesystem::path& cache_dir) {
    std::error_code ec;
    int best_level = 0;
    std::int64_t best_size = 0;
    unsigned sharing = 0;
    for (const auto& entry : std::filesystem::directory_iterator(cache_dir, ec)) {
        if (entry.path().filename().string().rfind("index", 0) != 0) continue;
        if (first_line(entry.path() / "type") == "Instruction") continue;
        const std::optional<std::int64_t> level =
            parse_cache_size(first_line(entry.path() / "level"));
        const std::optional<std::int64_t> size =
            parse_cache_size(first_line(entry.path() / "size"));
        if (!level || !size || *level <= best_level) continue;
        best_level = static_cast<int>(*level);
        best_size = *size;
        sharing = cpus_in_mask(first_line(entry.path() / "shared_cpu_map")).value_or(0);
    }
    // One cache per `sharing` CPUs; unknown sharing counts one cache for the host.
    const std::int64_t caches =
        sharing > 0 ? std::max<std::int64_t>(1, (cpus + sharing - 1) / sharing) : 1;
    return best_size * caches;
}

}  // namespace tra::kernels
