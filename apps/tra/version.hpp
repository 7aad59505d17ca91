#pragma once
// What `tra --version` prints: the first line "tra X.Y.Z" (what scripts and help2man parse),
// then the commit and each library tra was built with, as that library reports itself.
#include <string>

namespace tra::cli {

std::string version_text();

}  // namespace tra::cli
