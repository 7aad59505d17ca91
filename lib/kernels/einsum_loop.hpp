#pragma once
// Internal to lib/kernels: einsum's loop over every label assignment (einsum.cpp), shared by
// the joins by name (a functor per element) and by expression (einsum_expression.cpp, blocks of
// elements through the expression evaluator).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/parallel_for.hpp"

namespace tra::kernels::cpu {

// Every label once, output labels first, with its extent.
struct Labels {
    std::string names;
    std::vector<std::int64_t> extents;
};

// Element strides of `labels` (an operand's or the output's) for every label in `all`; 0 for
// labels the operand lacks, so one odometer walks all operands.
inline std::vector<std::int64_t> strides_for(const std::string& labels, const Labels& all) {
    std::vector<std::int64_t> strides(all.names.size(), 0);
    std::int64_t s = 1;
    for (std::size_t d = labels.size(); d-- > 0;) {
        std::size_t i = all.names.find(labels[d]);
        strides[i] = s;
        s *= all.extents[i];
    }
    return strides;
}

// Calls row(oa, ob, oo, n, ia, ib, io) once per assignment of every label but the innermost,
// where the row is the n elements a[oa + i*ia], b[ob + i*ib], out[oo + i*io] (i < n) along the
// innermost label. Labels are walked largest strides first, so the innermost is the one with
// the smallest strides (contiguous where some operand allows), and a summed innermost label
// (io == 0) can accumulate in a register.
template <class Row>
void walk_rows(const Labels& l, const std::vector<std::int64_t>& sa,
               const std::vector<std::int64_t>& sb, const std::vector<std::int64_t>& so, Row row) {
    for (std::int64_t e : l.extents)
        if (e == 0) return;  // nothing to visit; out already holds the agg identity
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < l.names.size(); ++i)
        if (l.extents[i] > 1) order.push_back(i);
    auto weight = [&](std::size_t i) { return sa[i] + sb[i] + so[i]; };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return weight(x) > weight(y); });
    if (order.empty()) {
        row(0, 0, 0, 1, 0, 0, 0);
        return;
    }
    const std::size_t in = order.back();
    order.pop_back();
    const std::int64_t ne = l.extents[in], ia = sa[in], ib = sb[in], io = so[in];
    std::vector<std::int64_t> idx(order.size(), 0);
    std::int64_t oa = 0, ob = 0, oo = 0;
    for (;;) {
        row(oa, ob, oo, ne, ia, ib, io);
        std::size_t k = order.size();
        for (; k-- > 0;) {
            const std::size_t d = order[k];
            oa += sa[d], ob += sb[d], oo += so[d];
            if (++idx[k] < l.extents[d]) break;
            oa -= sa[d] * idx[k], ob -= sb[d] * idx[k], oo -= so[d] * idx[k];
            idx[k] = 0;
        }
        if (k == static_cast<std::size_t>(-1)) return;
    }
}

// out[o] = agg(out[o], join(a[..], b[..])) over every label assignment (for one operand, b = a
// and join takes the first).
template <class T, class Join, class Agg>
void contract(const Labels& l, const T* a, const std::vector<std::int64_t>& sa, const T* b,
              const std::vector<std::int64_t>& sb, T* out, const std::vector<std::int64_t>& so,
              Join join, Agg agg) {
    walk_rows(l, sa, sb, so,
              [&](std::int64_t oa, std::int64_t ob, std::int64_t oo, std::int64_t ne,
                  std::int64_t ia, std::int64_t ib, std::int64_t io) {
                  if (io == 0) {
                      T acc = out[oo];
                      for (std::int64_t i = 0; i < ne; ++i)
                          acc = agg(acc, join(a[oa + i * ia], b[ob + i * ib]));
                      out[oo] = acc;
                  } else {
                      for (std::int64_t i = 0; i < ne; ++i)
                          out[oo + i * io] =
                              agg(out[oo + i * io], join(a[oa + i * ia], b[ob + i * ib]));
                  }
              });
}

// part(labels, a, b, out) on kernel_threads() threads: the output label of largest extent is
// split among them, each calling `part` on its range of that label (labels with its extent cut,
// the pointers moved to the range's start), so each output element is aggregated by one thread,
// in the order one call takes alone (the summed labels' order does not change with the split
// label's extent): results do not depend on the thread count.
template <class T, class Part>
void contract_threaded(const Labels& l, const T* a, const std::vector<std::int64_t>& sa, const T* b,
                       const std::vector<std::int64_t>& sb, T* out,
                       const std::vector<std::int64_t>& so, Part part) {
    std::size_t split = l.names.size();
    std::int64_t work = 1;
    for (std::size_t i = 0; i < l.names.size(); ++i) {
        work *= l.extents[i];
        if (so[i] != 0 && l.extents[i] > 1 &&
            (split == l.names.size() || l.extents[i] > l.extents[split]))
            split = i;
    }
    if (split == l.names.size() || work == 0) {
        part(l, a, b, out);
        return;
    }
    constexpr std::int64_t kGrainSteps = 1 << 15;  // loop steps per thread; a fork costs us
    const std::int64_t per_index = work / l.extents[split];
    parallel_for(
        l.extents[split], kGrainSteps / per_index + 1, [&](std::int64_t begin, std::int64_t end) {
            Labels range = l;
            range.extents[split] = end - begin;
            part(range, a + begin * sa[split], b + begin * sb[split], out + begin * so[split]);
        });
}

// out[o] = agg(out[o], program(a[..], b[..])) over every label assignment, with `agg_op` one of
// add, mul, max, min and `program` an expression in a and b (expression.hpp): each row's
// operands are gathered into blocks and evaluated together, as the expression kernels do.
// contract_threaded's split, so results do not depend on the thread count. T: float, double.
template <class T>
void contract_expression(const Labels& l, const T* a, const std::vector<std::int64_t>& sa,
                         const T* b, const std::vector<std::int64_t>& sb, T* out,
                         const std::vector<std::int64_t>& so, const std::string& program_text,
                         const std::string& agg_op);

}  // namespace tra::kernels::cpu
