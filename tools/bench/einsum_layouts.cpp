// Does label order matter to tra's einsum kernel? Times one tile einsum (join mul, agg add, f64)
// in several label orders of the same contraction, each against the GEMM ceiling: one plain
// dgemm of the contraction's M x N x K on contiguous row-major matrices (batched contractions:
// one such dgemm per batch index). BLAS threads from OPENBLAS_NUM_THREADS.
// The non-BLAS kernels (the permutes) use the same threads (kernels/parallel_for.hpp), and
// OpenBLAS's idle threads spin as briefly as under `tra` (kernels::limit_blas_spin_wait).
// Usage: bench_einsum_layouts [REPEATS] [--every] [--cpu-time] [--machine FILE] [--rounds R]
// --machine FILE: the kernel chooses lanes or BLAS by that machine profile's rates, as `tra run
// --machine FILE` does (kernels/gemm_pricing.hpp); without it, by fewest elements permuted.
// --cpu-time: the process's CPU seconds instead of wall seconds, which other programs on the
// cores inflate less (for 1 thread; with more it sums the threads' seconds).
// --every: the batched and 4-D contractions in every label order of each operand and the output
// in turn (the others in GEMM order; batched: all 6 x 6 x 6 orders), instead of a sample.
// --rounds R (default 1): each group's ceiling and orders timed R times, one round after another,
// each round starting one order later; a figure is then the median over the rounds, and a ratio
// the median of each round's own ratio (paired), so that drift between rounds and one noisy
// round do not make an order look slower than it is (the worst of 8 noisy orders is biased up).
// Prints one line per spec: best seconds, GFLOP/s, the ratio to the ceiling and to the group's
// fastest order (1.00 = the fastest; 0.83 = 1.2x its time), then the group's worst order.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include "core/tile.hpp"
#include "ia/gemm_pricing.hpp"
#include "kernels/blas_threads.hpp"
#include "kernels/gemm_pricing.hpp"
#include "kernels/kernel.hpp"
#include "workflow/machine_profile_file.hpp"

namespace {

bool cpu_time = false;

double now() {
    if (!cpu_time)
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

template <class F>
double best_seconds(int repeats, F f) {
    f();  // warm: first touch of the output, BLAS buffers
    double best = 1e300;
    for (int r = 0; r < repeats; ++r) {
        const double t0 = now();
        f();
        best = std::min(best, now() - t0);
    }
    return best;
}

tra::Tile tile_of(const std::string& labels, const std::map<char, std::int64_t>& extent) {
    tra::Shape s;
    for (char c : labels) s.push_back(extent.at(c));
    tra::Tile t(tra::DType::F64, s);
    for (std::int64_t i = 0; i < t.elements(); ++i) t.set(i, double(i % 7) - 3);
    return t;
}

// The ceiling: `batch` dgemms of m x n x k, contiguous; seconds.
double dgemm_seconds(std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k,
                     int repeats) {
    std::vector<double> a(batch * m * k, 1.0), b(batch * k * n, 0.5), c(batch * m * n);
    return best_seconds(repeats, [&] {
        for (std::int64_t i = 0; i < batch; ++i)
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, &a[i * m * k], k,
                        &b[i * k * n], n, 0.0, &c[i * m * n], n);
    });
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Group {
    std::map<char, std::int64_t> extent;
    std::int64_t batch, m, n, k;
    std::vector<std::string> specs;
};

// Every order of the letters of `labels`.
std::vector<std::string> orders_of(std::string labels) {
    std::sort(labels.begin(), labels.end());
    std::vector<std::string> out;
    do out.push_back(labels);
    while (std::next_permutation(labels.begin(), labels.end()));
    return out;
}

// a,b->o with each of a, b and o in every order in turn, the other two as given.
std::vector<std::string> each_operand_in_every_order(const std::string& a, const std::string& b,
                                                     const std::string& o) {
    std::vector<std::string> out;
    for (const std::string& x : orders_of(a)) out.push_back(x + "," + b + "->" + o);
    for (const std::string& x : orders_of(b)) out.push_back(a + "," + x + "->" + o);
    for (const std::string& x : orders_of(o)) out.push_back(a + "," + b + "->" + x);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// Best seconds of `repeats` calls of the einsum kernel on `spec`'s operands, made for the call.
double order_seconds(const Group& g, const std::string& spec, int repeats) {
    const std::string a = spec.substr(0, spec.find(','));
    const std::string b = spec.substr(spec.find(',') + 1, spec.find('-') - spec.find(',') - 1);
    const tra::Tile ta = tile_of(a, g.extent), tb = tile_of(b, g.extent);
    const tra::Tile* ops[] = {&ta, &tb};
    tra::kernels::KernelParams p;
    p.spec = spec;
    const tra::kernels::KernelCall call("einsum", p);
    return best_seconds(repeats, [&] { call.apply(ops); });
}

}  // namespace

int main(int argc, char** argv) {
    tra::kernels::limit_blas_spin_wait();  // as tra does
    const int repeats = argc > 1 && argv[1][0] != '-' ? std::atoi(argv[1]) : 5;
    bool every = false;
    int rounds = 1;
    for (int i = 1; i < argc; ++i) {
        every = every || std::string(argv[i]) == "--every";
        if (std::string(argv[i]) == "--rounds" && i + 1 < argc)
            rounds = std::max(1, std::atoi(argv[++i]));
        cpu_time = cpu_time || std::string(argv[i]) == "--cpu-time";
        if (std::string(argv[i]) == "--machine" && i + 1 < argc) {
            tra::ia::MachineProfile profile;
            try {
                profile = tra::workflow::load_machine_profile(argv[++i]);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "bench_einsum_layouts: %s\n", e.what());
                return 2;
            }
            std::printf("lanes or BLAS by machine profile %s (%s)\n", profile.name.c_str(),
                        profile.source.c_str());
            tra::kernels::cpu::use_gemm_pricing(tra::ia::ProfileGemmPricing::holding(profile));
        }
    }
    std::vector<Group> groups = {
        // Attention scores (issue 19): s = t = 512, h = 8, d = 128.
        {{{'s', 512}, {'t', 512}, {'h', 8}, {'d', 128}},
         8,
         512,
         512,
         128,
         {"shd,thd->hst", "hsd,htd->hst", "hsd,hdt->hst", "sdh,tdh->hst", "shd,thd->sth",
          "dsh,dth->tsh", "shd,htd->ths", "hds,thd->sht"}},
        // A GEMM-shaped 4-D contraction, every label 32: M = N = K = 1024.
        {{{'a', 32}, {'b', 32}, {'c', 32}, {'d', 32}, {'e', 32}, {'f', 32}},
         1,
         1024,
         1024,
         1024,
         {"abcd,cdef->abef", "acbd,dcef->feab", "cdab,cdef->abef", "abcd,efcd->efab",
          "dcba,fedc->feba", "badc,cdfe->baef", "cadb,edcf->aebf", "bdac,fdec->eafb"}},
        // Batched products, batch label first, middle and last: b = 64, 256 x 256 x 256.
        {{{'b', 64}, {'i', 256}, {'j', 256}, {'k', 256}},
         64,
         256,
         256,
         256,
         {"bij,bjk->bik", "bij,jbk->bik", "ibj,jbk->ibk", "ijb,jkb->ikb", "jib,kjb->kib",
          "bij,bjk->ikb", "ijb,bjk->bik", "bji,jkb->kbi"}},
        // vs_numpy.py's batched cases (batch-middle, batch-last): b = 16, 512 x 512 x 512.
        {{{'b', 16}, {'i', 512}, {'j', 512}, {'k', 512}},
         16,
         512,
         512,
         512,
         {"bij,bjk->bik", "ibj,jbk->ibk", "ijb,jkb->ikb", "jib,kjb->kib", "bij,bjk->ikb",
          "ijb,bjk->bik"}},
        // Many small products: b = 1024, 32 x 32 x 32 (the ceiling's calls each take ~2 us).
        {{{'b', 1024}, {'i', 32}, {'j', 32}, {'k', 32}},
         1024,
         32,
         32,
         32,
         {"bij,bjk->bik", "ibj,jbk->ibk", "ijb,jkb->ikb", "bij,bjk->ikb", "ijb,bjk->bik"}},
    };
    if (every) {
        groups[1].specs = each_operand_in_every_order("abcd", "cdef", "abef");
        for (std::size_t g : {2, 3}) {
            groups[g].specs.clear();
            for (const std::string& a : orders_of("bij"))
                for (const std::string& b : orders_of("bjk"))
                    for (const std::string& o : orders_of("bik"))
                        groups[g].specs.push_back(a + "," + b + "->" + o);
        }
    }
    for (const Group& g : groups) {
        const double flops = 2.0 * g.batch * g.m * g.n * g.k;
        const std::size_t orders = g.specs.size();
        std::vector<double> ceiling(rounds);
        // seconds[order][round]
        std::vector<std::vector<double>> seconds(orders, std::vector<double>(rounds));
        for (int r = 0; r < rounds; ++r) {
            ceiling[r] = dgemm_seconds(g.batch, g.m, g.n, g.k, repeats);
            for (std::size_t j = 0; j < orders; ++j) {
                const std::size_t i = (j + static_cast<std::size_t>(r)) % orders;
                seconds[i][r] = order_seconds(g, g.specs[i], repeats);
            }
        }
        std::printf("dgemm %lld x (%lld x %lld x %lld): %.4f s, %.2f GFLOP/s\n",
                    static_cast<long long>(g.batch), static_cast<long long>(g.m),
                    static_cast<long long>(g.n), static_cast<long long>(g.k), median(ceiling),
                    flops / median(ceiling) / 1e9);
        std::vector<double> round_best(rounds);  // each round's fastest order
        for (int r = 0; r < rounds; ++r) {
            round_best[r] = seconds[0][r];
            for (std::size_t o = 1; o < orders; ++o)
                round_best[r] = std::min(round_best[r], seconds[o][r]);
        }
        // Per order, medians over the rounds: its seconds, and the ceiling's and the round's
        // best order's seconds over its own.
        std::vector<double> to_ceiling(orders), to_best(orders);
        for (std::size_t i = 0; i < orders; ++i) {
            std::vector<double> c(rounds), b(rounds);
            for (int r = 0; r < rounds; ++r)
                c[r] = ceiling[r] / seconds[i][r], b[r] = round_best[r] / seconds[i][r];
            to_ceiling[i] = median(c), to_best[i] = median(b);
            const double s = median(seconds[i]);
            std::printf("  %-16s %.4f s, %.2f GFLOP/s, %.2fx the ceiling, %.2fx the best order\n",
                        g.specs[i].c_str(), s, flops / s / 1e9, to_ceiling[i], to_best[i]);
        }
        const auto worst = static_cast<std::size_t>(
            std::min_element(to_best.begin(), to_best.end()) - to_best.begin());
        std::printf("  worst %s: %.2fx the best order's time, %zu of %zu orders within 1.2x\n",
                    g.specs[worst].c_str(), 1 / to_best[worst],
                    static_cast<std::size_t>(std::count_if(to_best.begin(), to_best.end(),
                                                           [](double b) { return 1 / b <= 1.2; })),
                    orders);
    }
    return 0;
}
