#pragma once
// Content hashes that tie a file to what it was made from: a plan file records the hash of its
// workflow so that loading it against an edited workflow is refused (docs/plan-format.md).
//
// The hash is FNV-1a, 64 bit, over the file's exact bytes (no newline or whitespace
// normalisation: any byte changed, added or removed changes the input). It is an IDENTITY check
// against accidental change, not a security measure: FNV is not collision resistant, and anyone
// can edit a file and its recorded hash together.
#include <cstdint>
#include <string>
#include <string_view>

namespace tra {

// FNV-1a 64 of `bytes` (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
std::uint64_t fnv1a64(std::string_view bytes);

// "fnv1a64:" followed by the 16 lower-case hex digits of fnv1a64(bytes), zero-padded.
std::string content_hash(std::string_view bytes);

// content_hash of the file's bytes. Throws Error (BadInput) when the file cannot be read.
std::string file_content_hash(const std::string& path);

}  // namespace tra
