#include "workflow/yaml_fields.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tra::workflow {

namespace {

SourceLocation location(const std::string& file, const YAML::Mark& mark, const std::string& path) {
    SourceLocation loc{file, 0, 0, path};
    if (mark.line >= 0) {
        loc.line = mark.line + 1;
        loc.column = mark.column + 1;
    }
    return loc;
}

// Walks the whole document; `path` names the node as Field paths do ("program[1].C").
void reject_duplicate_keys(const YAML::Node& node, const std::string& file,
                           const std::string& path) {
    if (node.IsMap()) {
        std::set<std::string> seen;
        for (auto it = node.begin(); it != node.end(); ++it) {
            const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
            const std::string child = path.empty() ? key : path + "." + key;
            if (!seen.insert(key).second)
                throw Error("duplicate key '" + key + "'", location(file, it->first.Mark(), child));
            reject_duplicate_keys(it->second, file, child);
        }
    } else if (node.IsSequence()) {
        for (std::size_t i = 0; i < node.size(); ++i)
            reject_duplicate_keys(node[i], file, path + "[" + std::to_string(i) + "]");
    }
}

}  // namespace

YAML::Node load_yaml(const std::string& path) {
    // A folder opens as a stream but its first read throws std::ios_base::failure (EISDIR).
    std::error_code ignored;
    if (std::filesystem::is_directory(path, ignored))
        throw Error("cannot read workflow file '" + path + "': it is a folder");
    std::ifstream in(path);
    if (!in) throw Error("cannot read workflow file '" + path + "'");
    std::stringstream text;
    text << in.rdbuf();
    return parse_yaml(text.str(), path);
}

YAML::Node parse_yaml(const std::string& text, const std::string& source) {
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        throw Error("malformed YAML: " + e.msg, location(source, e.mark, ""));
    }
    reject_duplicate_keys(root, source, "");
    return root;
}

SourceLocation Field::where() const {
    return location(file_, node_ ? node_.Mark() : YAML::Mark::null_mark(), path_);
}

SourceLocation Field::where_in_text(int column) const {
    SourceLocation at = where();
    if (at.column == 0 || column < 1) return at;
    // yaml-cpp tags non-plain (quoted or block) scalars "!"; its mark is the opening quote.
    const bool quoted = node_.IsScalar() && node_.Tag() == "!";
    at.column += column - 1 + (quoted ? 1 : 0);
    return at;
}

void Field::fail(const std::string& message) const {
    throw Error(message, where());
}

Field Field::at(const std::string& key) const {
    if (!node_.IsMap()) fail("expected a map with '" + key + "'");
    YAML::Node child = node_[key];
    if (!child) fail("missing field '" + key + "'");
    return Field(child, file_, path_.empty() ? key : path_ + "." + key);
}

std::vector<std::pair<std::string, Field>> Field::entries() const {
    std::vector<std::pair<std::string, Field>> out;
    if (is_null()) return out;
    if (!node_.IsMap()) fail("expected a map");
    for (auto it = node_.begin(); it != node_.end(); ++it) {
        if (!it->first.IsScalar()) fail("map keys must be names");
        const std::string key = it->first.Scalar();
        out.emplace_back(key, Field(it->second, file_, path_.empty() ? key : path_ + "." + key));
    }
    return out;
}

void Field::allow_only(const std::set<std::string>& keys) const {
    if (is_null()) return;  // no fields at all (whether any are required is asked apart)
    // A list or a scalar has no fields to check, and yaml-cpp throws its own exceptions for
    // the keys of one: say what was expected (a list where a map belongs made the plan-file
    // fuzzer abort).
    if (!node_.IsMap()) fail("expected a map");
    for (auto it = node_.begin(); it != node_.end(); ++it) {
        if (!it->first.IsScalar()) fail("map keys must be names");
        const std::string key = it->first.Scalar();
        if (keys.count(key)) continue;
        std::string expected;
        for (const auto& k : keys) expected += (expected.empty() ? "" : ", ") + k;
        throw Error("unknown field '" + key + "' (expected one of: " + expected + ")",
                    location(file_, it->first.Mark(), path_));
    }
}

std::vector<Field> Field::elements() const {
    if (!node_.IsSequence()) fail("expected a list");
    std::vector<Field> out;
    for (std::size_t i = 0; i < node_.size(); ++i)
        out.emplace_back(node_[i], file_, path_ + "[" + std::to_string(i) + "]");
    return out;
}

std::string Field::as_string() const {
    if (!node_.IsScalar()) fail("expected a string");
    return node_.Scalar();
}

std::int64_t Field::as_int() const {
    if (!node_.IsScalar()) fail("expected an integer");
    const std::string& s = node_.Scalar();
    try {
        std::size_t used = 0;
        const long long v = std::stoll(s, &used);
        if (used == s.size()) return v;
    } catch (...) {
    }
    fail("expected an integer, got '" + s + "'");
}

bool Field::as_bool() const {
    if (node_.IsScalar()) {
        const std::string& s = node_.Scalar();
        if (s == "true" || s == "True" || s == "TRUE") return true;
        if (s == "false" || s == "False" || s == "FALSE") return false;
    }
    fail("expected true or false" + (node_.IsScalar() ? ", got '" + node_.Scalar() + "'" : ""));
}

double Field::as_double() const {
    if (!node_.IsScalar()) fail("expected a number");
    const std::string& s = node_.Scalar();
    try {
        std::size_t used = 0;
        const double v = std::stod(s, &used);
        if (used == s.size()) return v;
    } catch (...) {
    }
    fail("expected a number, got '" + s + "'");
}

std::vector<std::int64_t> Field::as_ints() const {
    std::vector<std::int64_t> out;
    for (const Field& f : elements()) out.push_back(f.as_int());
    return out;
}

std::vector<std::size_t> Field::as_positions() const {
    std::vector<std::size_t> out;
    for (const Field& f : elements()) {
        const auto v = f.as_int();
        if (v < 0) f.fail("key positions are non-negative");
        out.push_back(static_cast<std::size_t>(v));
    }
    return out;
}

std::vector<std::string> Field::as_strings() const {
    std::vector<std::string> out;
    for (const Field& f : elements()) out.push_back(f.as_string());
    return out;
}

}  // namespace tra::workflow
