// The pool behind parallel_for (kernels/worker_pool.hpp): every part of every loop runs exactly
// once, whatever the part counts from loop to loop; a part's exception reaches the caller only
// after every part has ended; a loop started inside a part, or from a second thread while the
// pool is busy, runs its parts on its own caller.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "kernels/worker_pool.hpp"

using tra::kernels::run_on_workers;

namespace {

struct Counts {
    std::vector<std::atomic<int>> runs;
    explicit Counts(int parts) : runs(static_cast<std::size_t>(parts)) {}
};

void count_part(void* context, int part) {
    static_cast<Counts*>(context)->runs[static_cast<std::size_t>(part)].fetch_add(1);
}

}  // namespace

TEST_CASE("every part of every loop runs exactly once", "[worker_pool]") {
    // Part counts go up and down, so workers started for a wide loop sit out narrow ones.
    for (int loop = 0; loop < 400; ++loop) {
        const int parts = 1 + (loop * 7) % 5;
        Counts counts(parts);
        run_on_workers(parts, count_part, &counts);
        for (int p = 0; p < parts; ++p) {
            INFO("loop " << loop << " part " << p << " of " << parts);
            REQUIRE(counts.runs[static_cast<std::size_t>(p)].load() == 1);
        }
    }
}

TEST_CASE("no parts run nothing", "[worker_pool]") {
    Counts counts(1);
    run_on_workers(0, count_part, &counts);
    REQUIRE(counts.runs[0].load() == 0);
}

TEST_CASE("a part's exception reaches the caller after every part has ended", "[worker_pool]") {
    for (const int thrower : {0, 1, 2}) {
        struct Loop {
            int thrower;
            std::atomic<int> ended{0};
        } loop{thrower};
        const auto task = [](void* context, int part) {
            auto& l = *static_cast<Loop*>(context);
            if (part == l.thrower) throw std::runtime_error("part " + std::to_string(part));
            std::this_thread::sleep_for(std::chrono::milliseconds(20));  // ends after the throw
            l.ended.fetch_add(1);
        };
        INFO("thrower " << thrower);
        REQUIRE_THROWS_WITH(run_on_workers(3, task, &loop), "part " + std::to_string(thrower));
        REQUIRE(loop.ended.load() == 2);  // the other parts had ended when it came back
    }
    Counts counts(3);  // and the pool still serves loops
    run_on_workers(3, count_part, &counts);
    for (auto& r : counts.runs) REQUIRE(r.load() == 1);
}

TEST_CASE("a loop inside a part runs on that part's thread", "[worker_pool]") {
    struct Outer {
        std::vector<Counts> inner;
    } outer;
    for (int i = 0; i < 3; ++i) outer.inner.emplace_back(4);
    run_on_workers(
        3,
        [](void* context, int part) {
            auto& o = *static_cast<Outer*>(context);
            run_on_workers(4, count_part, &o.inner[static_cast<std::size_t>(part)]);
        },
        &outer);
    for (auto& counts : outer.inner)
        for (auto& r : counts.runs) REQUIRE(r.load() == 1);
}

TEST_CASE("loops from two threads at once each run all their parts", "[worker_pool]") {
    std::vector<int> failures(2, 0);
    const auto caller = [&](int who) {
        for (int loop = 0; loop < 300; ++loop) {
            Counts counts(3);
            run_on_workers(3, count_part, &counts);
            for (auto& r : counts.runs)
                if (r.load() != 1) ++failures[static_cast<std::size_t>(who)];
        }
    };
    std::thread other(caller, 1);
    caller(0);
    other.join();
    REQUIRE(failures[0] == 0);
    REQUIRE(failures[1] == 0);
}
