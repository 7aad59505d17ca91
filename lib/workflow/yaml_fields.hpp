#pragma once
// Typed, located access to YAML nodes: every read names file:line:col and the field's path, so
// the format code never builds an error location by hand. Internal to lib/workflow.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace tra::workflow {

// A YAML node together with its path in the document ("program[1].C.by").
class Field {
  public:
    Field(YAML::Node node, std::string file, std::string path)
        : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)) {}

    const YAML::Node& node() const { return node_; }
    const std::string& path() const { return path_; }
    SourceLocation where() const;
    // Where the 1-based column `column` of this scalar's text is: exact for plain and quoted
    // one-line scalars (a quote shifts the text by one), so errors inside an expression can
    // point at the character.
    SourceLocation where_in_text(int column) const;
    bool is_map() const { return node_.IsMap(); }
    bool is_sequence() const { return node_.IsSequence(); }
    bool is_scalar() const { return node_.IsScalar(); }
    bool is_null() const { return !node_ || node_.IsNull(); }

    // Map access: has(), the child (Error if missing), and an error for unknown children.
    bool has(const std::string& key) const { return node_.IsMap() && node_[key]; }
    Field at(const std::string& key) const;
    // Map entries in document order, as (key, value field).
    std::vector<std::pair<std::string, Field>> entries() const;
    void allow_only(const std::set<std::string>& keys) const;
    // Sequence elements.
    std::vector<Field> elements() const;

    std::string as_string() const;
    std::int64_t as_int() const;
    double as_double() const;
    bool as_bool() const;  // true or false (also True, TRUE, ...: YAML 1.2's core schema)
    std::vector<std::int64_t> as_ints() const;
    std::vector<std::size_t> as_positions() const;  // non-negative integers
    std::vector<std::string> as_strings() const;

    [[noreturn]] void fail(const std::string& message) const;

  private:
    YAML::Node node_;
    std::string file_;
    std::string path_;
};

// Loads a YAML document; malformed YAML and duplicate map keys (which yaml-cpp 0.7 accepts
// silently) are errors at their line and column.
YAML::Node load_yaml(const std::string& path);
// The same for a document in memory; `source` names it in error locations.
YAML::Node parse_yaml(const std::string& text, const std::string& source);

}  // namespace tra::workflow
