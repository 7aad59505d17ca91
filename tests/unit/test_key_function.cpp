#include <catch2/catch.hpp>
#include <string>

#include "core/error.hpp"
#include "tra/key_function.hpp"

using Catch::Contains;
using tra::Error;
using tra::Key;
using tra::KeyFunction;

namespace {

Key rekey(const std::string& text, const Key& key) {
    return KeyFunction::parse(text, key.size()).apply(key);
}

bool holds(const std::string& text, const Key& key = {}) {
    return KeyFunction::parse(text, key.size()).test(key);
}

// The single integer a one-position rekey yields.
std::int64_t value(const std::string& text, const Key& key = {}) {
    Key out = rekey(text, key);
    REQUIRE(out.size() == 1);
    return out[0];
}

// The message of the parse error, or "" when `text` parses.
std::string parse_error(const std::string& text, std::size_t arity) {
    try {
        KeyFunction::parse(text, arity);
    } catch (const Error& e) {
        CHECK(e.kind() == tra::ErrorKind::BadInput);
        CHECK(e.where().empty());  // the caller adds the YAML location
        return e.message();
    }
    return "";
}

}  // namespace

TEST_CASE("arithmetic operators") {
    CHECK(value("k0 + k1", {3, 4}) == 7);
    CHECK(value("k0 - k1", {9, 4}) == 5);
    CHECK(value("k0 * k1", {3, 4}) == 12);
    CHECK(value("k0 / k1", {9, 4}) == 2);
    CHECK(value("k0 % k1", {9, 4}) == 1);
    CHECK(value("-k0 + 10", {3}) == 7);
    CHECK(value("- -k0", {3}) == 3);
    CHECK(value("42") == 42);
    CHECK(value("007") == 7);
    CHECK(value("9223372036854775807") == 9223372036854775807);
}

TEST_CASE("precedence and associativity") {
    CHECK(value("k0 + k1 * 2", {1, 2}) == 5);
    CHECK(value("(k0 + k1) * 2", {1, 2}) == 6);
    CHECK(value("k0 - k1 - 1", {10, 3}) == 6);
    CHECK(value("k0 / k1 / 2", {100, 5}) == 10);
    CHECK(value("k0 % 4 * 3", {7}) == 9);
    CHECK(value("k0 * 3 % 4", {7}) == 1);
    CHECK(value("k0 - -k1", {1, 2}) == 3);
    CHECK(value("2 * -k0 + 10", {3}) == 4);
    CHECK(value("-k0 / 2 + 10", {7}) == 6);  // unary minus binds tighter: (-7) / 2 == -4
    CHECK(holds("1 + 2 == 3 && 4 < 5 || 0 == 1"));
    CHECK(holds("0 == 1 || 1 == 1 && 2 == 2"));  // && before ||
    CHECK_FALSE(holds("(0 == 1 || 1 == 1) && 2 == 3"));
    CHECK(holds("!(k0 == k1) && k0 < k1", {1, 2}));
    CHECK(holds("!!(k0 == 1)", {1}));
    CHECK(holds("k0 + 1 == k1 * 2 - 1", {2, 2}));
}

TEST_CASE("division and modulo floor like Python") {
    CHECK(holds("7 / 2 == 3 && 7 % 2 == 1"));
    CHECK(holds("-7 / 2 == -4 && -7 % 2 == 1"));
    CHECK(holds("7 / -2 == -4 && 7 % -2 == -1"));
    CHECK(holds("-7 / -2 == 3 && -7 % -2 == -1"));
    CHECK(holds("-6 / 3 == -2 && -6 % 3 == 0"));
    CHECK(holds("6 / -3 == -2 && 6 % -3 == 0"));
    CHECK(holds("(k0 - 7) / 2 == -4 && (k0 - 7) % 2 == 1", {0}));
    CHECK(holds("-9223372036854775808 % -1 == 0"));
    CHECK(holds("-9223372036854775808 < 0"));
    CHECK(holds("-9223372036854775808 / 2 == -4611686018427387904"));
}

TEST_CASE("comparisons") {
    CHECK(holds("k0 == k1", {2, 2}));
    CHECK_FALSE(holds("k0 == k1", {2, 3}));
    CHECK(holds("k0 != k1", {2, 3}));
    CHECK_FALSE(holds("k0 != k1", {3, 3}));
    CHECK(holds("k0 < k1", {2, 3}));
    CHECK_FALSE(holds("k0 < k1", {3, 3}));
    CHECK(holds("k0 <= k1", {3, 3}));
    CHECK_FALSE(holds("k0 <= k1", {4, 3}));
    CHECK(holds("k0 > k1", {4, 3}));
    CHECK_FALSE(holds("k0 > k1", {3, 3}));
    CHECK(holds("k0 >= k1", {3, 3}));
    CHECK_FALSE(holds("k0 >= k1", {2, 3}));
    // Booleans compare with == and != (an xor, in effect).
    CHECK(holds("(k0 < 1) == (k1 < 1)", {0, 0}));
    CHECK(holds("(k0 < 1) != (k1 < 1)", {0, 5}));
}

TEST_CASE("logical operators short-circuit") {
    CHECK(holds("k0 == 1 && k1 == 2", {1, 2}));
    CHECK_FALSE(holds("k0 == 1 && k1 == 2", {1, 3}));
    CHECK(holds("k0 == 1 || k1 == 2", {0, 2}));
    CHECK_FALSE(holds("k0 == 1 || k1 == 2", {0, 0}));
    CHECK(holds("!(k0 == 1)", {0}));
    // The right operand is not evaluated, so the division by zero never happens.
    CHECK_FALSE(holds("k1 != 0 && k0 / k1 > 1", {5, 0}));
    CHECK(holds("k1 == 0 || k0 / k1 > 1", {5, 0}));
    CHECK(holds("k1 == 0 || k0 / k1 > 1 || k0 / k1 > 1 && k1 == 0", {5, 0}));
}

TEST_CASE("positional and named parameters") {
    CHECK(rekey("(k1, k0)", {1, 2}) == Key{2, 1});
    CHECK(rekey("(i, j) -> (j, i)", {1, 2}) == Key{2, 1});
    CHECK(rekey("(i, j) -> (i / 2, j % 2, i + j)", {5, 3}) == Key{2, 1, 8});
    CHECK(rekey("i -> (i, 0)", {4}) == Key{4, 0});
    CHECK(rekey("(row_1, _col) -> (_col, row_1)", {1, 2}) == Key{2, 1});
    // A parameter literally called k1 is that parameter, not position 1.
    CHECK(rekey("(k1, k0) -> (k0, k1)", {1, 2}) == Key{2, 1});
    CHECK(holds("(i, j) -> i == j", {3, 3}));
    CHECK(rekey("() -> ()", {}) == Key{});
    CHECK(holds("() -> 1 == 1"));
    CHECK(rekey("\t(i,j)->\n(j,\n i)  ", {1, 2}) == Key{2, 1});  // any blanks, or none
}

TEST_CASE("tuple results and their arity") {
    KeyFunction none = KeyFunction::parse("()", 2);
    CHECK_FALSE(none.is_predicate());
    CHECK(none.output_arity() == 0);
    CHECK(none.apply({4, 5}) == Key{});

    for (const char* one : {"k0", "(k0)", "((k0))"}) {
        KeyFunction f = KeyFunction::parse(one, 2);
        CHECK(f.output_arity() == 1);
        CHECK(f.apply({4, 5}) == Key{4});
    }
    CHECK(KeyFunction::parse("((k0, k1))", 2).apply({4, 5}) == Key{4, 5});

    KeyFunction three = KeyFunction::parse("(k0, k1, k0 + k1)", 2);
    CHECK(three.input_arity() == 2);
    CHECK(three.output_arity() == 3);
    CHECK(three.text() == "(k0, k1, k0 + k1)");
    CHECK(three.apply({1, 2}) == Key{1, 2, 3});
}

TEST_CASE("predicates") {
    KeyFunction diag = KeyFunction::parse("k0 == k1", 2);
    CHECK(diag.is_predicate());
    CHECK(diag.output_arity() == 0);
    CHECK(diag.input_arity() == 2);
    CHECK(KeyFunction::parse("(k0 == k1)", 2).is_predicate());
    CHECK_FALSE(KeyFunction::parse("k0", 2).is_predicate());
    CHECK_THROWS_WITH(diag.apply({1, 1}), Contains("is a predicate"));
    CHECK_THROWS_WITH(KeyFunction::parse("(k1, k0)", 2).test({1, 1}),
                      Contains("is not a predicate"));
}

TEST_CASE("errors in the form of the expression name their column") {
    CHECK_THAT(parse_error("", 2),
               Contains("column 1 of the expression \"\": the expression is empty"));
    CHECK_THAT(parse_error("   ", 2), Contains("column 1") && Contains("empty"));
    CHECK_THAT(parse_error("k0 k1", 2), Contains("column 4") && Contains("unexpected 'k1'"));
    CHECK_THAT(parse_error("k0)", 2), Contains("column 3") && Contains("unmatched ')'"));
    CHECK_THAT(parse_error("(k0 + 1", 2),
               Contains("column 8") && Contains("expected ')' to close the '(' at column 1") &&
                   Contains("got the end of the expression"));
    CHECK_THAT(parse_error("(k0, k1 k0)", 2),
               Contains("column 9") && Contains("expected ',' or ')'"));
    CHECK_THAT(parse_error("(k0, )", 2),
               Contains("column 6") && Contains("expected an expression"));
    CHECK_THAT(parse_error("k0 +", 2), Contains("column 5") && Contains("expected an expression"));
    CHECK_THAT(parse_error("k0 @ k1", 2),
               Contains("column 4") && Contains("unexpected character '@'"));
    CHECK_THAT(parse_error("k0 = k1", 2), Contains("column 4") && Contains("write '=='"));
    CHECK_THAT(parse_error("k0 & k1", 2), Contains("column 4") && Contains("write '&&'"));
    CHECK_THAT(parse_error("k0 | k1", 2), Contains("column 4") && Contains("write '||'"));
    CHECK_THAT(parse_error("12ab", 2), Contains("column 1") && Contains("malformed number '12ab'"));
    CHECK_THAT(parse_error(std::string(300, '(') + "k0" + std::string(300, ')'), 2),
               Contains("nests too deeply"));
}

TEST_CASE("integer literals must fit in 64 bits") {
    CHECK_THROWS_WITH(
        KeyFunction::parse("k0 + 9223372036854775808", 1),
        Contains("column 6") && Contains("integer literal 9223372036854775808 is out of range"));
    CHECK_THROWS_WITH(KeyFunction::parse("99999999999999999999999", 1),
                      Contains("column 1") && Contains("out of range"));
    CHECK_THROWS_WITH(KeyFunction::parse("-(9223372036854775808) > 0", 1),
                      Contains("column 3") && Contains("out of range"));
}

TEST_CASE("names and parameter lists") {
    CHECK_THROWS_WITH(KeyFunction::parse("k0 + k5", 2),
                      Contains("column 6 of the expression \"k0 + k5\": k5 is out of range: keys "
                               "have 2 positions"));
    CHECK_THROWS_WITH(KeyFunction::parse("k1", 1),
                      Contains("column 1") && Contains("keys have 1 position"));
    CHECK_THROWS_WITH(KeyFunction::parse("x + 1", 2),
                      Contains("column 1") && Contains("unknown name 'x'") && Contains("k0..k1"));
    CHECK_THROWS_WITH(KeyFunction::parse("k01", 2), Contains("unknown name 'k01'"));
    CHECK_THROWS_WITH(
        KeyFunction::parse("(i, j) -> (j, x)", 2),
        Contains("column 15 of the expression \"(i, j) -> (j, x)\": unknown name 'x'"));
    CHECK_THROWS_WITH(KeyFunction::parse("(i, j) -> k0", 2),
                      Contains("column 11") && Contains("unknown name 'k0'"));
    CHECK_THROWS_WITH(KeyFunction::parse("(i, j, l) -> i", 2),
                      Contains("column 1") &&
                          Contains("the function takes 3 parameters but keys have 2 positions"));
    CHECK_THROWS_WITH(KeyFunction::parse("i -> i", 2),
                      Contains("takes 1 parameter but keys have 2 positions"));
    CHECK_THROWS_WITH(KeyFunction::parse("(i, i) -> i", 2),
                      Contains("column 5") && Contains("parameter 'i' is named twice"));
    CHECK_THROWS_WITH(KeyFunction::parse("(i, 1) -> i", 2),
                      Contains("column 5") && Contains("expected a parameter name, got '1'"));
    CHECK_THROWS_WITH(KeyFunction::parse("(i, ) -> i", 2),
                      Contains("column 5") && Contains("expected a parameter name, got ')'"));
    CHECK_THROWS_WITH(
        KeyFunction::parse("(i j) -> i", 2),
        Contains("column 4") && Contains("expected ',' or ')' in the parameter list"));
    CHECK_THROWS_WITH(KeyFunction::parse("(i)(j) -> i", 1),
                      Contains("column 4") && Contains("expected '->' after the parameter list"));
    CHECK_THROWS_WITH(KeyFunction::parse("-> k0", 1),
                      Contains("column 1") && Contains("expected a parameter list"));
    CHECK_THROWS_WITH(KeyFunction::parse("(i, j) ->", 2),
                      Contains("column 10") && Contains("expected the result after '->'"));
    CHECK_THROWS_WITH(KeyFunction::parse("i -> i -> i", 1),
                      Contains("column 8") && Contains("unexpected '->'"));
}

TEST_CASE("type errors") {
    CHECK_THROWS_WITH(KeyFunction::parse("k0 == k1 && k1", 2),
                      Contains("column 13") && Contains("&& needs booleans, got an integer"));
    CHECK_THROWS_WITH(KeyFunction::parse("k0 || k1 == 1", 2),
                      Contains("column 1") && Contains("|| needs booleans, got an integer"));
    CHECK_THROWS_WITH(KeyFunction::parse("k0 + (k1 < 2)", 2),
                      Contains("column 6") && Contains("+ needs integers, got a boolean"));
    CHECK_THROWS_WITH(KeyFunction::parse("(k0 < 1) * 2", 2),
                      Contains("column 1") && Contains("* needs integers, got a boolean"));
    CHECK_THROWS_WITH(KeyFunction::parse("!k0", 2),
                      Contains("column 2") && Contains("! needs booleans, got an integer"));
    CHECK_THROWS_WITH(KeyFunction::parse("-(k0 < 1)", 2),
                      Contains("column 2") && Contains("unary - needs integers, got a boolean"));
    CHECK_THROWS_WITH(KeyFunction::parse("k0 == (k1 < 1)", 2),
                      Contains("column 4") &&
                          Contains("== compares values of one type, got an integer and a boolean"));
    CHECK_THROWS_WITH(KeyFunction::parse("(k0 < 1) <= (k1 < 1)", 2),
                      Contains("column 1") && Contains("<= needs integers, got a boolean"));
    CHECK_THROWS_WITH(KeyFunction::parse("k0 < k1 < 2", 2),
                      Contains("column 9") && Contains("comparisons do not chain"));
    CHECK_THROWS_WITH(KeyFunction::parse("k0 == k1 == 1", 2),
                      Contains("column 10") && Contains("comparisons do not chain"));
    CHECK_THROWS_WITH(KeyFunction::parse("(k0, k1 == 1)", 2),
                      Contains("column 6") && Contains("a tuple holds integers, got a boolean"));
    CHECK_THROWS_WITH(KeyFunction::parse("(k0, k1) + 1", 2),
                      Contains("column 1") && Contains("a tuple can only be the whole result"));
    CHECK_THROWS_WITH(KeyFunction::parse("() == ()", 2),
                      Contains("a tuple can only be the whole result"));
    CHECK_THROWS_WITH(KeyFunction::parse("((k0, k1), k0)", 2),
                      Contains("column 2") && Contains("tuples cannot be nested"));
}

TEST_CASE("evaluation errors name the expression and the key") {
    KeyFunction div = KeyFunction::parse("k0 / k1", 2);
    CHECK_THROWS_WITH(div.apply({3, 0}), "division by zero in \"k0 / k1\" at key (3, 0)");
    CHECK(div.apply({3, 1}) == Key{3});
    CHECK_THROWS_WITH(KeyFunction::parse("(k0 % k1, 0)", 2).apply({3, 0}),
                      "division by zero in \"(k0 % k1, 0)\" at key (3, 0)");
    CHECK_THROWS_WITH(KeyFunction::parse("k0 % k1 == 0", 2).test({3, 0}),
                      "division by zero in \"k0 % k1 == 0\" at key (3, 0)");
    CHECK_THROWS_WITH(KeyFunction::parse("(k0 - 1, k1 - 1)", 2).apply({0, 1}),
                      "rekey \"(k0 - 1, k1 - 1)\" maps key (0, 1) to (-1, 0): keys must be "
                      "non-negative");
    CHECK_THROWS_WITH(KeyFunction::parse("k0 * 9223372036854775807", 1).apply({2}),
                      Contains("integer overflow"));
    CHECK_THROWS_WITH(KeyFunction::parse("k0 + 9223372036854775807", 1).apply({1}),
                      Contains("integer overflow"));
    CHECK_THROWS_WITH(KeyFunction::parse("-9223372036854775808 - k0 < 0", 1).test({1}),
                      Contains("integer overflow"));
    CHECK_THROWS_WITH(KeyFunction::parse("-9223372036854775808 / -1 < 0", 0).test({}),
                      Contains("integer overflow"));
    CHECK_THROWS_WITH(KeyFunction::parse("-(-9223372036854775808) < 0", 0).test({}),
                      Contains("integer overflow"));
    CHECK_THROWS_WITH(KeyFunction::parse("k0", 2).apply({1}),
                      Contains("key (1) does not fit \"k0\", which takes keys of 2 positions"));
    try {
        div.apply({3, 0});
    } catch (const Error& e) {
        CHECK(e.kind() == tra::ErrorKind::BadInput);
    }
}

TEST_CASE("an empty key function and copies") {
    KeyFunction empty;
    CHECK_FALSE(empty.is_predicate());
    CHECK(empty.input_arity() == 0);
    CHECK(empty.output_arity() == 0);
    CHECK(empty.text().empty());
    CHECK_THROWS_AS(empty.apply({}), Error);
    CHECK_THROWS_AS(empty.test({}), Error);

    KeyFunction copy;
    {
        KeyFunction original = KeyFunction::parse("(i, j) -> (j, i)", 2);
        copy = original;
    }
    KeyFunction again(copy);
    CHECK(copy.apply({1, 2}) == Key{2, 1});
    CHECK(again.text() == "(i, j) -> (j, i)");
}

TEST_CASE("deep expressions need more than the small stack") {
    std::string text = "k0";
    for (int i = 0; i < 100; ++i) text = "k0 + (" + text + ")";
    CHECK(value(text, {2}) == 202);
    std::string pred = "k0 == 1";
    for (int i = 0; i < 60; ++i) pred = "k0 == 1 && (" + pred + ")";
    CHECK(holds(pred, {1}));
}

TEST_CASE("a million keys evaluate to the counted results") {
    KeyFunction diag = KeyFunction::parse("(i, j) -> i == j && (i + j) % 3 != 1", 2);
    KeyFunction swap = KeyFunction::parse("(i, j) -> (j / 2, i % 7)", 2);
    std::int64_t kept = 0, sum = 0;
    Key key{0, 0};
    for (std::int64_t i = 0; i < 1000; ++i) {
        for (std::int64_t j = 0; j < 1000; ++j) {
            key[0] = i;
            key[1] = j;
            kept += diag.test(key);
            sum += swap.apply(key)[1];
        }
    }
    CHECK(kept == 667);
    CHECK(sum == 1000 * (142 * 21 + 15));
}

TEST_CASE("try_apply and try_test return the evaluation problem as a value") {
    KeyFunction div = KeyFunction::parse("(k0 / k1)", 2);
    const tra::Checked<Key> bad = div.try_apply({3, 0});
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.problem().message() == "division by zero in \"(k0 / k1)\" at key (3, 0)");
    CHECK(bad.problem().kind() == tra::ErrorKind::BadInput);
    // 7 / 2 floors to 3.
    const tra::Checked<Key> good = div.try_apply({7, 2});
    REQUIRE(good.ok());
    CHECK(*good == Key{3});

    KeyFunction pred = KeyFunction::parse("k0 % k1 == 1", 2);
    const tra::Checked<bool> no = pred.try_test({3, 0});
    REQUIRE_FALSE(no.ok());
    CHECK(no.problem().message() == "division by zero in \"k0 % k1 == 1\" at key (3, 0)");
    // 7 % 3 == 1, 8 % 3 == 2.
    CHECK(*pred.try_test({7, 3}));
    CHECK_FALSE(*pred.try_test({8, 3}));
}
