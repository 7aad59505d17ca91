// PersistentVector: copies share elements until one changes, and a change to one copy is never
// seen by another (the search relies on this to extend one partial plan in several ways).
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "ia/persistent_vector.hpp"

using tra::ia::PersistentVector;

namespace {

std::vector<std::string> items(const PersistentVector<std::string>& v) {
    return std::vector<std::string>(v.begin(), v.end());
}

PersistentVector<std::string> numbered(int n) {
    PersistentVector<std::string> v;
    for (int i = 0; i < n; ++i) v.push_back(std::to_string(i));
    return v;
}

}  // namespace

TEST_CASE("persistent vector: push_back, read, iterate across chunks", "[persistent_vector]") {
    PersistentVector<std::string> v = numbered(100);
    CHECK(v.size() == 100);
    CHECK(v[0] == "0");
    CHECK(v.at(31) == "31");
    CHECK(v.at(32) == "32");
    CHECK(v.back() == "99");
    CHECK(items(v).size() == 100);
    CHECK_THROWS_AS(v.at(100), std::out_of_range);
    CHECK_THROWS_AS(v.mutable_at(100), std::out_of_range);
    CHECK(PersistentVector<std::string>().empty());
}

TEST_CASE("persistent vector: copies are independent", "[persistent_vector]") {
    // Sizes on, before and after a chunk boundary: the shared last chunk is the tricky case.
    for (int n : {0, 1, 31, 32, 33, 64, 70}) {
        PersistentVector<std::string> a = numbered(n);
        PersistentVector<std::string> b = a;
        b.push_back("b");
        PersistentVector<std::string> c = a;
        c.push_back("c");
        CHECK(a.size() == static_cast<std::size_t>(n));
        CHECK(b.back() == "b");
        CHECK(c.back() == "c");
        CHECK(b.size() == a.size() + 1);
        if (n > 0) {
            c.mutable_at(0) = "changed";
            CHECK(a[0] == "0");
            CHECK(b[0] == "0");
            CHECK(c[0] == "changed");
            a.mutable_at(static_cast<std::size_t>(n - 1)) += "!";
            CHECK(a.back() == std::to_string(n - 1) + "!");
            CHECK(b[static_cast<std::size_t>(n - 1)] == std::to_string(n - 1));
        }
        std::vector<std::string> expect = items(numbered(n));
        expect.push_back("b");
        CHECK(items(b) == expect);
    }
}

TEST_CASE("persistent vector: references survive push_back", "[persistent_vector]") {
    PersistentVector<std::string> v = numbered(31);
    PersistentVector<std::string> keep = v;
    const std::string& last = v.back();
    for (int i = 0; i < 40; ++i) v.push_back("x");
    CHECK(last == "30");
    CHECK(keep.size() == 31);
}
