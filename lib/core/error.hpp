#pragma once
// The one exception type of tra. It carries where the problem came from (file, line, column,
// field) so every layer can report "file:line:col: field: message" without knowing YAML.
#include <stdexcept>
#include <string>

namespace tra {

struct SourceLocation {
    std::string file;
    int line = 0;    // 1-based; 0 when unknown
    int column = 0;  // 1-based; 0 when unknown
    std::string field;

    bool empty() const { return file.empty() && field.empty(); }
    // "file:line:col: field" with the parts that are known.
    std::string str() const;
};

// Exit codes of the command line: 0 ok, 1 result differs or run failed, 2 bad input.
enum class ErrorKind { BadInput = 2, Failed = 1 };

class Error : public std::runtime_error {
  public:
    explicit Error(const std::string& message, SourceLocation where = {},
                   ErrorKind kind = ErrorKind::BadInput);

    const std::string& message() const { return message_; }
    const SourceLocation& where() const { return where_; }
    ErrorKind kind() const { return kind_; }
    int exit_code() const { return static_cast<int>(kind_); }

    // The same error, located at `where` unless it already knows its place.
    Error located(const SourceLocation& where) const;

  private:
    std::string message_;
    SourceLocation where_;
    ErrorKind kind_;
};

// Throws an Error of kind Failed without a location: a run or a plan went wrong, not its input.
[[noreturn]] void fail(const std::string& message);

}  // namespace tra
