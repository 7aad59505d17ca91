#pragma once
// The key-expression language of rekey and filter: integer arithmetic (+ - * / %, unary -,
// with / and % flooring as in Python), comparisons (== != < <= > >=), && || !, parentheses,
// integer literals, positional parameters k0..kn or named ones ("(i, j) -> ..."), and tuples of
// expressions as results.
//   "k0 == k1"                 filter predicate over positional parameters
//   "(i, j) -> (j, i)"         rekey with named parameters
//   "(k0)"  or  "k0"           one-element result
//   "(i, j) -> (i / 2, j % 2, i + j)"
// The grammar is in docs/workflow-format.md.
#include <cstddef>
#include <memory>
#include <string>

#include "core/checked.hpp"
#include "core/index_vector.hpp"

namespace tra {

class KeyFunction {
  public:
    // Parses `text` for keys of `input_arity` positions. Throws Error (BadInput, no location)
    // whose message says what is wrong and at which character of the expression
    // ("column 7 of the expression: unknown name 'x'"); callers locate it at the YAML field.
    static KeyFunction parse(const std::string& text, std::size_t input_arity);

    KeyFunction();
    ~KeyFunction();
    KeyFunction(const KeyFunction&);
    KeyFunction& operator=(const KeyFunction&);

    // True when the result is one boolean (a filter predicate); false for integer tuples.
    bool is_predicate() const;
    std::size_t input_arity() const;
    // Number of integers a rekey produces (a predicate has none).
    std::size_t output_arity() const;

    // Rekey: the new key, or the problem (an Error, BadInput) on division by zero, overflow or
    // a negative result; apply throws it.
    Checked<Key> try_apply(const Key& key) const;
    Key apply(const Key& key) const { return try_apply(key).value(); }
    // Filter: whether the key is kept, or the problem (an Error, BadInput) on division by zero
    // or overflow; test throws it.
    Checked<bool> try_test(const Key& key) const;
    bool test(const Key& key) const { return try_test(key).value(); }

    // The expression as written.
    const std::string& text() const;

  private:
    struct Impl;
    std::shared_ptr<const Impl> impl_;
};

}  // namespace tra
