#pragma once
// The threads behind parallel_for: kept from one loop to the next instead of started per loop.
// Starting and joining a thread costs about 40 us on the development VM, and an element-wise
// kernel on a 2.4 MB tile (ffnn-xml's weights, 2 threads) takes about 250 us: starting its
// helper per tile made such maps run at 18 GB/s where one large tile runs at 27.
//
// An idle worker spins about 50 us for the next loop (a join calls its kernel once per tile,
// back to back), then sleeps on a condition variable: it never spins beside the BLAS for long
// (kernels never run during a BLAS call, and a spinning thread would take a core from it).
#include <cstdint>

namespace tra::kernels {

// What a loop's part runs: task(context, part) for part in [0, parts).
using PoolTask = void (*)(void* context, int part);

// Runs task(context, p) for every p in [0, parts): part 0 on the caller, the others on the
// pool's workers (started when first needed, kept after), and returns when all have ended. The
// first exception any part threw is rethrown here, after every part has ended. A call made while
// another is running (from another thread, or from inside a part) runs its parts one after
// another on its caller: the pool serves one loop at a time.
void run_on_workers(int parts, PoolTask task, void* context);

}  // namespace tra::kernels
