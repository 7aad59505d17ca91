#pragma once
// Character classes and quoting shared by tra's expression lexers (key expressions, element-wise
// expressions). ASCII only on purpose: what parses must not depend on the locale.
#include <string>

namespace tra::ascii {

inline bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
inline bool is_name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool is_name_char(char c) {
    return is_name_start(c) || is_digit(c);
}

// A character for an error message: 'x' when printable, else its byte value ("byte 0x07").
inline std::string show_char(char c) {
    if (c >= 0x20 && c < 0x7f) return std::string("'") + c + "'";
    static const char* hex = "0123456789abcdef";
    auto u = static_cast<unsigned char>(c);
    return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}

}  // namespace tra::ascii
