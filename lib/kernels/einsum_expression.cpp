// einsum with an expression join ({expr: "(a - b) * (a - b)"}): the loop of einsum_loop.hpp,
// each row's operands gathered into blocks and joined by the expression evaluator, so the
// program runs as tight loops over a block, never as a per-element dispatch.
#include "kernels/einsum_loop.hpp"
#include "kernels/expression.hpp"
#include "kernels/scalar_ops.hpp"

namespace tra::kernels::cpu {

namespace {

// Elements gathered per evaluation: the operands' and the joined values' blocks stay in L1.
constexpr std::int64_t kGatherBlock = 512;

}  // namespace

template <class T>
void contract_expression(const Labels& l, const T* a, const std::vector<std::int64_t>& sa,
                         const T* b, const std::vector<std::int64_t>& sb, T* out,
                         const std::vector<std::int64_t>& so, const std::string& program_text,
                         const std::string& agg_op) {
    const expr::Program& program = expr::compiled(program_text, expr::Context::Join);
    auto run = [&](auto agg) {
        contract_threaded(
            l, a, sa, b, sb, out, so, [&](const Labels& part, const T* pa, const T* pb, T* po) {
                // One buffer per thread's part: a's and b's gathered values and
                // the joined ones.
                std::vector<T> buffer(3 * kGatherBlock);
                T* ga = buffer.data();
                T* gb = ga + kGatherBlock;
                T* joined = gb + kGatherBlock;
                const T* gathered[2] = {ga, gb};
                walk_rows(part, sa, sb, so,
                          [&](std::int64_t oa, std::int64_t ob, std::int64_t oo, std::int64_t ne,
                              std::int64_t ia, std::int64_t ib, std::int64_t io) {
                              for (std::int64_t i0 = 0; i0 < ne; i0 += kGatherBlock) {
                                  const std::int64_t m = std::min(kGatherBlock, ne - i0);
                                  const T* ra = pa + oa + i0 * ia;
                                  const T* rb = pb + ob + i0 * ib;
                                  for (std::int64_t i = 0; i < m; ++i) {
                                      ga[i] = ra[i * ia];
                                      gb[i] = rb[i * ib];
                                  }
                                  expr::evaluate<T>(program, gathered, joined, m);
                                  T* ro = po + oo + i0 * io;
                                  if (io == 0) {
                                      T acc = *ro;
                                      for (std::int64_t i = 0; i < m; ++i)
                                          acc = agg(acc, joined[i]);
                                      *ro = acc;
                                  } else {
                                      for (std::int64_t i = 0; i < m; ++i)
                                          ro[i * io] = agg(ro[i * io], joined[i]);
                                  }
                              }
                          });
            });
    };
    if (!with_aggregation_op(agg_op, run))
        throw Error("einsum: unknown agg '" + agg_op + "' (add, mul, max, min)");
}

template void contract_expression<float>(const Labels&, const float*,
                                         const std::vector<std::int64_t>&, const float*,
                                         const std::vector<std::int64_t>&, float*,
                                         const std::vector<std::int64_t>&, const std::string&,
                                         const std::string&);
template void contract_expression<double>(const Labels&, const double*,
                                          const std::vector<std::int64_t>&, const double*,
                                          const std::vector<std::int64_t>&, double*,
                                          const std::vector<std::int64_t>&, const std::string&,
                                          const std::string&);

}  // namespace tra::kernels::cpu
