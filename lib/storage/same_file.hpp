#pragma once
// Whether two paths name one file, so that a workflow cannot write an output over one of its
// own inputs (docs/reliability.md, "Inputs untouched").
#include <string>

namespace tra::storage {

// True when `a` and `b` are the same path once symlinks, "." and ".." are resolved (neither
// needs to exist), or both exist and are one file (same device and inode: hard links, bind
// mounts).
bool same_file(const std::string& a, const std::string& b);

}  // namespace tra::storage
