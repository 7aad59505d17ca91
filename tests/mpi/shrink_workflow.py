"""Writes a workflow whose inputs are cut into the same tiles as SOURCE's, each tile smaller.

Usage: shrink_workflow.py SOURCE DEST

Every input written `shape: [..], tile: [..]` (flow style, as in plans/paper/scaled) keeps its
tile counts, so the block structure, the operators and the candidate strategies stay those of
SOURCE; each tile size is divided by its largest divisor up to 5, which makes the work about
100x smaller. The plan sweeps (test_paper_plans.sh) use it: they check that every listed plan
runs, moves exactly its predicted bytes and matches the reference evaluator, none of which needs
the large tiles (tests/cli/test_paper_workflows.sh checks the workflows themselves against numpy).
Fails when SOURCE has no such input, so a reformatted workflow cannot pass unshrunk.
"""

import re
import sys

INPUT = re.compile(r"shape: \[([0-9, ]+)\], tile: \[([0-9, ]+)\]")


def shrunk(match):
    shape = [int(x) for x in match.group(1).split(",")]
    tile = [int(x) for x in match.group(2).split(",")]
    small = [t // max(d for d in range(1, 6) if t % d == 0) for t in tile]
    shape = [s // t * n for s, t, n in zip(shape, tile, small)]
    return "shape: [%s], tile: [%s]" % (", ".join(map(str, shape)), ", ".join(map(str, small)))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: shrink_workflow.py SOURCE DEST")
    text = open(sys.argv[1]).read()
    out, count = INPUT.subn(shrunk, text)
    if count == 0:
        sys.exit(sys.argv[1] + ": no input written as 'shape: [..], tile: [..]' to shrink")
    with open(sys.argv[2], "w") as f:
        f.write(out)


if __name__ == "__main__":
    main()
