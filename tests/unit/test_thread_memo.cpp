// ThreadMemo: made once per key, nothing kept when making fails, bounded, and a value handed
// out stays valid when the memo starts over.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

#include "kernels/thread_memo.hpp"

using tra::kernels::ThreadMemo;

TEST_CASE("thread memo: a value is made once per key", "[thread_memo]") {
    ThreadMemo<int> memo(8);
    int made = 0;
    const auto make = [&] { return ++made * 10; };
    CHECK(*memo.get("a", make) == 10);
    CHECK(*memo.get("a", make) == 10);
    CHECK(*memo.get("b", make) == 20);
    CHECK(*memo.get("a", make) == 10);
    CHECK(made == 2);
}

TEST_CASE("thread memo: a make that throws keeps nothing", "[thread_memo]") {
    ThreadMemo<int> memo(8);
    CHECK_THROWS_AS(memo.get("k", []() -> int { throw std::runtime_error("bad spec"); }),
                    std::runtime_error);
    CHECK(*memo.get("k", [] { return 7; }) == 7);
}

TEST_CASE("thread memo: full, it starts over, and held values stay valid", "[thread_memo]") {
    ThreadMemo<std::string> memo(2);
    int made = 0;
    const auto make = [&] { return "value " + std::to_string(++made); };
    const auto first = memo.get("1", make);
    memo.get("2", make);
    memo.get("3", make);  // full: "1" and "2" are forgotten
    CHECK(*first == "value 1");
    CHECK(*memo.get("1", make) == "value 4");
    CHECK(*memo.get("3", make) == "value 3");
    CHECK(made == 4);
}
