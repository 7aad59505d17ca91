#!/usr/bin/python3
"""Buckets a `perf report --no-children --sort dso,sym` listing of a tra run into where the time
goes: the BLAS kernel, tra's own kernels, memory copies, first touch of fresh buffers (page
faults and zeroing), the MPI exchange, HDF5 and file I/O, input generation, waiting (spinning
or yielding threads), and the rest. Reads the listing on stdin, prints one line per bucket.

Usage: perf report -i perf.data --no-children --sort dso,sym --stdio --comms tra |
           tools/bench/profile_breakdown.py
"""
import re
import sys

# (bucket, test on (dso, symbol)), first match wins.
BUCKETS = [
    ("blas kernel (dgemm and its packing)", lambda d, s: "openblas" in d or "libblas" in d),
    ("tra kernels (add, einsum loops, ...)", lambda d, s: "tra::kernels" in s),
    ("input generation", lambda d, s: "tra::storage::generate" in s),
    ("hdf5 and file i/o", lambda d, s: "hdf5" in d or re.search(
        r"ext4|folio_from_iter|filemap|vfs_|write_iter|H5", s)),
    ("mpi (exchange, and polling while a peer is late)",
     lambda d, s: re.search(r"mpi|open-pal|open-rte|mca_|pmix|vader", d)),
    ("first touch (page faults, zeroing)", lambda d, s: re.search(
        r"page_fault|clear_page|do_anonymous_page|alloc_pages|memcg|pte|handle_mm_fault|"
        r"folio|lruvec|rmqueue|get_page_from_freelist|zap_|unmap|free_pages|mmap|brk", s)),
    ("copies (memcpy, memset)", lambda d, s: re.search(r"mem(set|move|cpy)", s)),
    ("waiting (yield, scheduler)", lambda d, s: re.search(
        r"sched|schedule|yield|finish_task_switch|spin_unlock|spin_lock|nanosleep|futex", s)),
]


def main():
    totals = {}
    for line in sys.stdin:
        m = re.match(r"\s*([0-9.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*)", line)
        if not m:
            continue
        share, dso, sym = float(m.group(1)), m.group(2), m.group(3)
        bucket = next((b for b, test in BUCKETS if test(dso, sym)), "other")
        totals[bucket] = totals.get(bucket, 0.0) + share
    for bucket, _ in BUCKETS + [("other", None)]:
        print("%6.1f%%  %s" % (totals.get(bucket, 0.0), bucket))


if __name__ == "__main__":
    main()
