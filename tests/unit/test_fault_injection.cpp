// The test-only fault hook TRA_FAULT (lib/runtime/fault_injection.hpp): which rank and operator
// it fires at, that it fires once, and that a malformed value is bad input. (`kill` and `hang`
// are tested end to end by tests/mpi/test_run_failures.sh: one ends the process, one never
// returns.)
#include <catch2/catch.hpp>
#include <cstdlib>

#include "core/error.hpp"
#include "runtime/fault_injection.hpp"

using tra::Error;
using tra::ErrorKind;
using tra::runtime::FaultInjection;

namespace {

FaultInjection with(const char* value) {
    ::setenv("TRA_FAULT", value, 1);
    FaultInjection f = FaultInjection::from_environment();
    ::unsetenv("TRA_FAULT");
    return f;
}

}  // namespace

TEST_CASE("fault hook: unset does nothing", "[fault]") {
    ::unsetenv("TRA_FAULT");
    FaultInjection f = FaultInjection::from_environment();
    CHECK_NOTHROW(f.reach(0, 0, "read"));
    CHECK_NOTHROW(f.reach(1, 3, "shuffle"));
}

TEST_CASE("fault hook: error at an operator id, on one rank, once", "[fault]") {
    FaultInjection f = with("error@1:3");
    CHECK_NOTHROW(f.reach(0, 3, "shuffle"));  // another rank
    CHECK_NOTHROW(f.reach(1, 2, "shuffle"));  // another operator
    try {
        f.reach(1, 3, "local_join");
        FAIL("the fault did not fire");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::Failed);
        CHECK(std::string(e.what()).find("injected fault") != std::string::npos);
    }
    CHECK_NOTHROW(f.reach(1, 3, "local_join"));  // fired already
}

TEST_CASE("fault hook: error at the first operator of a kind", "[fault]") {
    FaultInjection f = with("error@0:write");
    CHECK_NOTHROW(f.reach(0, 5, "shuffle"));
    CHECK_THROWS_AS(f.reach(0, 9, "write"), Error);
}

TEST_CASE("fault hook: hang is read (it fires only end to end, where it never returns)",
          "[fault]") {
    FaultInjection f = with("hang@1:local_join");
    CHECK_NOTHROW(f.reach(0, 3, "local_join"));  // another rank
    CHECK_NOTHROW(f.reach(1, 2, "shuffle"));     // another operator
}

TEST_CASE("fault hook: malformed values are bad input naming the variable", "[fault]") {
    for (const char* bad :
         {"explode@0:read", "error@x:read", "error@1", "kill:1:read", "error@1:Read"}) {
        ::setenv("TRA_FAULT", bad, 1);
        try {
            FaultInjection::from_environment();
            FAIL(std::string("accepted ") + bad);
        } catch (const Error& e) {
            CHECK(e.kind() == ErrorKind::BadInput);
            CHECK(std::string(e.what()).find("TRA_FAULT") != std::string::npos);
        }
    }
    ::unsetenv("TRA_FAULT");
}

TEST_CASE("fault hook: corrupt changes one element of the first tile, once", "[fault]") {
    FaultInjection f = with("corrupt@1:4");
    tra::runtime::HeldTuples out;
    tra::Tile a(tra::DType::F64, tra::Shape{2, 2}), b(tra::DType::F64, tra::Shape{2, 2});
    a.set(0, 2.5);
    out.tuples.emplace(tra::Key{0}, a);
    out.tuples.emplace(tra::Key{1}, b);
    CHECK_NOTHROW(f.reach(1, 4, "local_join"));  // corrupt is not an error
    f.corrupt(0, 4, "local_join", out);          // another rank
    f.corrupt(1, 3, "local_join", out);          // another operator
    CHECK(out.tuples.at(tra::Key{0}).get(0) == 2.5);
    f.corrupt(1, 4, "local_join", out);
    CHECK(out.tuples.at(tra::Key{0}).get(0) == -3.5);  // -x - 1: off by 2|x| + 1
    for (int i = 1; i < 4; ++i) CHECK(out.tuples.at(tra::Key{0}).get(i) == 0);
    CHECK(out.tuples.at(tra::Key{1}).get(0) == 0);
    f.corrupt(1, 4, "local_join", out);  // fired already
    CHECK(out.tuples.at(tra::Key{0}).get(0) == -3.5);
}

TEST_CASE("fault hook: corrupt on a rank with no tile of the operator fails", "[fault]") {
    FaultInjection f = with("corrupt@0:local_aggregate");
    tra::runtime::HeldTuples none;
    CHECK_THROWS_WITH(f.corrupt(0, 7, "local_aggregate", none),
                      Catch::Contains("produces no tile") && Catch::Contains("another rank"));
}
