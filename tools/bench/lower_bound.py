"""Communication lower bounds for C[m, n] = A[m, k] B[k, n] on P ranks, in words (elements).

memory_independent: Al Daas, Ballard, Grigori, Kumar, Rouse, "Tight memory-independent parallel
matrix multiplication communication lower bounds" (SPAA 2022), the bound any load-balanced
algorithm that starts with one copy of A and B and ends with one copy of C must meet. A rank
computing mnk/P multiply-adds touches at least D elements of A, B and C together (Loomis-Whitney:
the product of its three projections is at least (mnk/P)^2, and no projection exceeds its
matrix), and owns only (mn + mk + nk)/P of them, so it receives at least D minus that. D is the
minimum of a + b + c under those constraints: with the dimensions sorted d1 >= d2 >= d3,
    D = d2 d3 + (d1 d2 + d1 d3) / P          if P <= d1 / d2
    D = 2 sqrt(d1 d2 d3^2 / P) + d1 d2 / P   if P <= d1 d2 / d3^2
    D = 3 (d1 d2 d3 / P)^(2/3)               otherwise.
The total over ranks is P times the per-rank bound (every rank does the same work).

memory_dependent: Irony, Toledo, Tiskin, "Communication lower bounds for distributed-memory
matrix multiplication" (JPDC 2004, Theorem 3.1): a rank that holds at most M elements at a time
and performs mnk/P multiply-adds communicates at least mnk / (2 sqrt(2) P sqrt(M)) - M elements.
It binds when memory is scarce (2-D algorithms' M ~ mn/P); with M large it goes negative and the
memory-independent bound is the one that holds. lower_bound_words takes the larger of the two,
for an algorithm whose peak per rank is M.
"""
import math

# Bytes per element of the element types the matrix multiplies run in.
ELEMENT_BYTES = {"f64": 8, "f32": 4}


def memory_independent_words(m, n, k, ranks):
    """Lower bound on the elements received by all ranks together (0 on one rank)."""
    if ranks <= 1:
        return 0.0
    d1, d2, d3 = sorted((m, n, k), reverse=True)
    p = float(ranks)
    if p <= d1 / d2:
        d = d2 * d3 + (d1 * d2 + d1 * d3) / p
    elif p <= d1 * d2 / d3 ** 2:
        d = 2 * math.sqrt(d1 * d2 * d3 ** 2 / p) + d1 * d2 / p
    else:
        d = 3 * (d1 * d2 * d3 / p) ** (2.0 / 3.0)
    owned = (m * n + m * k + n * k) / p
    return ranks * max(0.0, d - owned)


def memory_dependent_words(m, n, k, ranks, memory_words):
    """Lower bound on the elements communicated by all ranks together when each holds at most
    memory_words elements at a time (0 when the bound is vacuous)."""
    if ranks <= 1:
        return 0.0
    per_rank = m * n * k / (2 * math.sqrt(2) * ranks * math.sqrt(memory_words)) - memory_words
    return ranks * max(0.0, per_rank)


def lower_bound_words(m, n, k, ranks, memory_words):
    """The larger of the two bounds for an algorithm with memory_words elements per rank."""
    return max(memory_independent_words(m, n, k, ranks),
               memory_dependent_words(m, n, k, ranks, memory_words))


def summa_panel_words(m, n, k, grid_rows, grid_cols):
    """Elements a 2-D SUMMA rank holds when it receives its whole A row panel and B column
    panel at once, with its C block: what a step-by-step SUMMA needs at most."""
    return m * k / grid_rows + k * n / grid_cols + m * n / (grid_rows * grid_cols)


def summa_words(m, n, k, grid_rows, grid_cols):
    """Elements a 2-D SUMMA on a grid_rows x grid_cols grid receives in total: each rank gets
    the A panels of its grid row it does not own and the B panels of its grid column."""
    ranks = grid_rows * grid_cols
    per_rank = ((grid_cols - 1) / grid_cols * m * k / grid_rows +
                (grid_rows - 1) / grid_rows * k * n / grid_cols)
    return ranks * per_rank


if __name__ == "__main__":
    # The figures quoted in docs/benchmarks.md: 4096^3 in f64 on 2 and 4 ranks.
    for p in (2, 4):
        print(p, "ranks:", memory_independent_words(4096, 4096, 4096, p) * 8 / 1e6, "MB")
