#include "core/error.hpp"

namespace tra {

std::string SourceLocation::str() const {
    std::string out = file;
    if (line > 0) {
        out += ":" + std::to_string(line);
        if (column > 0) out += ":" + std::to_string(column);
    }
    if (!field.empty()) out += (out.empty() ? "" : ": ") + field;
    return out;
}

static std::string render(const std::string& message, const SourceLocation& where) {
    return where.empty() ? message : where.str() + ": " + message;
}

Error::Error(const std::string& message, SourceLocation where, ErrorKind kind)
    : std::runtime_error(render(message, where)),
      message_(message),
      where_(std::move(where)),
      kind_(kind) {}

Error Error::located(const SourceLocation& where) const {
    if (!where_.empty()) return *this;
    return Error(message_, where, kind_);
}

void fail(const std::string& message) {
    throw Error(message, {}, ErrorKind::Failed);
}

}  // namespace tra
