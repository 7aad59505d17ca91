// How the ranks agree on a failure (runtime/rank_agreement.hpp), under mpiexec -n 1..4: a step
// every rank passes returns everywhere; a failure in a step, or in work deferred before it,
// throws AgreedFailure on every rank with the lowest failing rank's exit code; a rank with a
// deferred failure skips the next step's work; once agreed, the next steps pass again. (The
// failing rank prints its message on stderr, as a run does.)
#include <mpi.h>

#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "runtime/rank_agreement.hpp"

namespace {

using namespace tra;
using runtime::AgreedFailure;
using runtime::RankAgreement;

// The exit code every rank sees when `step` ends the agreement, or 0 when it returns.
template <class Step>
int agreed_code(Step&& step) {
    try {
        step();
    } catch (const AgreedFailure& f) {
        return f.exit_code;
    }
    return 0;
}

}  // namespace

TEST_CASE("agreement: a step every rank passes returns on every rank") {
    const RankAgreement agree(MPI_COMM_WORLD);
    int ran = 0;
    CHECK(agreed_code([&] { agree.step([&] { ++ran; }); }) == 0);
    CHECK(ran == 1);
}

TEST_CASE("agreement: a failure in a step ends it on every rank with that rank's code") {
    const RankAgreement agree(MPI_COMM_WORLD);
    const int last = agree.size() - 1;
    CHECK(agreed_code([&] {
              agree.step([&] {
                  if (agree.rank() == last) throw Error("bad input on the last rank");
              });
          }) == 2);
    CHECK(agreed_code([&] { agree.step([] {}); }) == 0);  // agreed: nothing is left over
}

TEST_CASE("agreement: a deferred failure is agreed at the next step, which the rank skips") {
    const RankAgreement agree(MPI_COMM_WORLD);
    const int last = agree.size() - 1;
    int deferred_ran = 0, next_ran = 0;
    agree.defer([&] {
        ++deferred_ran;
        if (agree.rank() == last) throw Error("over budget", {}, ErrorKind::Failed);
    });
    CHECK(deferred_ran == 1);  // deferred work runs at once; nothing is collective yet
    // Later deferred failures on that rank are not reported: the first one is.
    agree.defer([&] {
        if (agree.rank() == last) throw Error("a second problem");
    });
    CHECK(agreed_code([&] { agree.step([&] { ++next_ran; }); }) == 1);
    CHECK(next_ran == (agree.rank() == last ? 0 : 1));
    CHECK(agreed_code([&] { agree.step([&] { ++next_ran; }); }) == 0);
}

TEST_CASE("agreement: deferred work that passes costs nothing at the next step") {
    const RankAgreement agree(MPI_COMM_WORLD);
    int ran = 0;
    agree.defer([&] { ++ran; });
    CHECK(agreed_code([&] { agree.step([&] { ++ran; }); }) == 0);
    CHECK(ran == 2);
}

TEST_CASE("agreement: a deferred failure and a step's own, the lowest failing rank's code") {
    const RankAgreement agree(MPI_COMM_WORLD);
    const int last = agree.size() - 1;
    // Rank 0 fails in the step itself (bad input, 2); the last rank deferred a failure (1). On
    // one rank the deferred failure comes first and is the one agreed.
    agree.defer([&] {
        if (agree.rank() == last) throw Error("deferred", {}, ErrorKind::Failed);
    });
    const int code = agreed_code([&] {
        agree.step([&] {
            if (agree.rank() == 0) throw Error("in the step");
        });
    });
    CHECK(code == (agree.size() == 1 ? 1 : 2));
}
