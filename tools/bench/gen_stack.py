#!/usr/bin/python3
"""Writes a transformer-like stack of einsum and element-wise steps as a tra workflow, for the
planner benchmark (tools/bench/planner.sh). Nothing here touches data: inputs are generated.

Usage: /usr/bin/python3 tools/bench/gen_stack.py LAYERS > stack.yaml

Per layer (about 20 TRA operators after einsum lowering): q, k, v projections, attention
scores scaled by 1/32 (an element-wise `scale`; there is no softmax), the weighted values, an
output projection, a residual join, a two-einsum feed-forward block with relu, and a second
residual join. Sequence 4096 x model 1024 x hidden 4096, tiles of
512 (8 x 2 x 8 tiles), f32, on 8 sites.
"""
import sys


def main(layers):
    n, d, h, t = 4096, 1024, 4096, 512
    out = ["name: stack-%d" % layers, "dtype: f32", "sites: 8", "inputs:"]
    out.append("  X0: {shape: [%d, %d], tile: [%d, %d], generate: {uniform: [-1, 1], seed: 1}}"
               % (n, d, t, t))
    seed = 2
    for l in range(layers):
        for w, shape in (("Wq", (d, d)), ("Wk", (d, d)), ("Wv", (d, d)), ("Wo", (d, d)),
                         ("W1", (d, h)), ("W2", (h, d))):
            out.append("  %s%d: {shape: [%d, %d], tile: [%d, %d], generate: {uniform: [-0.1, 0.1], "
                       "seed: %d}}" % (w, l, shape[0], shape[1], t, t, seed))
            seed += 1
    out.append("program:")
    x = "X0"
    for l in range(layers):
        s = lambda name: "%s%d" % (name, l)  # noqa: E731
        out += [
            "  - %s: {einsum: \"nd,de->ne\", inputs: [%s, %s]}" % (s("q"), x, s("Wq")),
            "  - %s: {einsum: \"nd,de->ne\", inputs: [%s, %s]}" % (s("k"), x, s("Wk")),
            "  - %s: {einsum: \"nd,de->ne\", inputs: [%s, %s]}" % (s("v"), x, s("Wv")),
            "  - %s: {einsum: \"nd,md->nm\", inputs: [%s, %s]}" % (s("sc"), s("q"), s("k")),
            "  - %s: {transform: %s, kernel: scale(0.03125)}" % (s("ss"), s("sc")),
            "  - %s: {einsum: \"nm,md->nd\", inputs: [%s, %s]}" % (s("att"), s("ss"), s("v")),
            "  - %s: {einsum: \"nd,de->ne\", inputs: [%s, %s]}" % (s("o"), s("att"), s("Wo")),
            "  - %s: {join: [%s, %s], on: [[0, 1], [0, 1]], kernel: add}" % (s("r"), x, s("o")),
            "  - %s: {einsum: \"nd,dh->nh\", inputs: [%s, %s]}" % (s("f1"), s("r"), s("W1")),
            "  - %s: {transform: %s, kernel: relu}" % (s("a"), s("f1")),
            "  - %s: {einsum: \"nh,hd->nd\", inputs: [%s, %s]}" % (s("f2"), s("a"), s("W2")),
            "  - %s: {join: [%s, %s], on: [[0, 1], [0, 1]], kernel: add}" % (s("y"), s("r"), s("f2")),
        ]
        x = s("y")
    out += ["outputs:", "  %s: {file: out/stack.h5}" % x]
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(int(sys.argv[1]))
