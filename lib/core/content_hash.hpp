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

inline constexpr std::uint64_t kFnv1a64Basis = 0xcbf29ce484222325ULL;

// FNV-1a 64 of `bytes` (offset basis 0xcbf29ce484222325, prime 0x100000001b3). A hash of bytes
// that come in pieces continues from the previous piece's result: fnv1a64(b, fnv1a64(a)) is the
// hash of a followed by b.
std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t state = kFnv1a64Basis);

// "fnv1a64:" followed by the 16 lower-case hex digits of fnv1a64(bytes), zero-padded.
std::string content_hash(std::string_view bytes);

// content_hash of the file's bytes, read in pieces (memory stays bounded for a file of any size:
// `tra run --hash-inputs` hashes whole HDF5 inputs). Throws Error (BadInput) when the file cannot
// be read.
std::string file_content_hash(const std::string& path);

}  // namespace tra
