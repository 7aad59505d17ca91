#include "json_writer.hpp"

#include <cmath>
#include <cstdio>

namespace tra::cli {

void JsonWriter::separate() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (!first_.empty()) {
        if (!first_.back()) out_ << ",";
        first_.back() = false;
    }
}

JsonWriter& JsonWriter::begin_object() {
    separate();
    out_ << "{";
    first_.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::end_object() {
    first_.pop_back();
    out_ << "}";
    if (first_.empty()) out_ << "\n";
    return *this;
}

JsonWriter& JsonWriter::begin_array() {
    separate();
    out_ << "[";
    first_.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::end_array() {
    first_.pop_back();
    out_ << "]";
    return *this;
}

JsonWriter& JsonWriter::key(const std::string& k) {
    separate();
    write_string(k);
    out_ << ":";
    after_key_ = true;
    return *this;
}

JsonWriter& JsonWriter::value(const std::string& s) {
    separate();
    write_string(s);
    return *this;
}

void JsonWriter::write_string(const std::string& s) {
    out_ << '"';
    for (char c : s) {
        switch (c) {
            case '"':
                out_ << "\\\"";
                break;
            case '\\':
                out_ << "\\\\";
                break;
            case '\n':
                out_ << "\\n";
                break;
            case '\t':
                out_ << "\\t";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out_ << buf;
                } else {
                    out_ << c;
                }
        }
    }
    out_ << '"';
}

JsonWriter& JsonWriter::value(std::int64_t v) {
    separate();
    out_ << v;
    return *this;
}

JsonWriter& JsonWriter::value(double v) {
    separate();
    if (!std::isfinite(v)) {
        out_ << "null";  // JSON has no inf or nan
    } else {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.17g", v);
        out_ << buf;
    }
    return *this;
}

JsonWriter& JsonWriter::value(bool v) {
    separate();
    out_ << (v ? "true" : "false");
    return *this;
}

}  // namespace tra::cli
