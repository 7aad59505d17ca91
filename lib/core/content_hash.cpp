#include "core/content_hash.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "core/error.hpp"

namespace tra {

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t state) {
    std::uint64_t h = state;
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

namespace {

std::string hash_text(std::uint64_t h) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return std::string("fnv1a64:") + hex;
}

}  // namespace

std::string content_hash(std::string_view bytes) {
    return hash_text(fnv1a64(bytes));
}

std::string file_content_hash(const std::string& path) {
    // Binary mode: the hash is of the bytes on disk, whatever the platform's newline convention.
    // A folder opens as a stream but its first read throws std::ios_base::failure (EISDIR).
    std::error_code ignored;
    if (std::filesystem::is_directory(path, ignored))
        throw Error("cannot read '" + path + "' to compute its content hash: it is a folder");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read '" + path + "' to compute its content hash");
    std::vector<char> piece(std::size_t{1} << 20);
    std::uint64_t h = kFnv1a64Basis;
    while (in) {
        in.read(piece.data(), static_cast<std::streamsize>(piece.size()));
        h = fnv1a64(std::string_view(piece.data(), static_cast<std::size_t>(in.gcount())), h);
    }
    if (in.bad()) throw Error("cannot read '" + path + "' to compute its content hash");
    return hash_text(h);
}

}  // namespace tra
