#include "core/content_hash.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/error.hpp"

namespace tra {

std::uint64_t fnv1a64(std::string_view bytes) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

std::string content_hash(std::string_view bytes) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a64(bytes)));
    return std::string("fnv1a64:") + hex;
}

std::string file_content_hash(const std::string& path) {
    // Binary mode: the hash is of the bytes on disk, whatever the platform's newline convention.
    // A folder opens as a stream but its first read throws std::ios_base::failure (EISDIR).
    std::error_code ignored;
    if (std::filesystem::is_directory(path, ignored))
        throw Error("cannot read '" + path + "' to compute its content hash: it is a folder");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read '" + path + "' to compute its content hash");
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw Error("cannot read '" + path + "' to compute its content hash");
    return content_hash(bytes);
}

}  // namespace tra
