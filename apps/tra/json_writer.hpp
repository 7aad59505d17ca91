#pragma once
// A minimal streaming JSON writer for the CLI's machine-readable outputs (plan lists, explain,
// reports): objects, arrays, strings, integers and numbers, with stable field order as written.
#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

namespace tra::cli {

class JsonWriter {
  public:
    explicit JsonWriter(std::ostream& out) : out_(out) {}

    JsonWriter& begin_object();
    JsonWriter& end_object();
    JsonWriter& begin_array();
    JsonWriter& end_array();
    // The key of the next value inside an object.
    JsonWriter& key(const std::string& k);
    JsonWriter& value(const std::string& s);
    JsonWriter& value(const char* s) { return value(std::string(s)); }
    JsonWriter& value(std::int64_t v);
    JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
    JsonWriter& value(std::size_t v) { return value(static_cast<std::int64_t>(v)); }
    JsonWriter& value(double v);
    JsonWriter& value(bool v);
    template <class T>
    JsonWriter& array(const std::vector<T>& values) {
        begin_array();
        for (const auto& v : values) value(v);
        return end_array();
    }
    template <class T>
    JsonWriter& field(const std::string& k, const T& v) {
        key(k);
        if constexpr (requires { v.begin(); } && !std::is_convertible_v<T, std::string>)
            return array(v);
        else
            return value(v);
    }

  private:
    void separate();
    void write_string(const std::string& s);

    std::ostream& out_;
    std::vector<bool> first_;  // per open container: no element written yet
    bool after_key_ = false;
};

}  // namespace tra::cli
