#!/usr/bin/python3
"""What padding buys (`tile: auto` on extents no tile count divides, docs/workflow-format.md,
"Padding"): GPT-2's language-model head, logits = X W with a vocabulary of 50257 = 29 x 1733,
planned at several site counts (`tra plan`, nothing runs).

For L = X W (einsum "td,dv->tv", f32, X [T, 768] and W [768, 50257], both `tile: auto`), at each
site count S, by the default model (time, built-in profile unless --machine), prints:
  auto        tra's first plan: its tiling (a tile of W's v that does not divide 50257 is padded),
              predicted seconds, peak bytes per site
  unpadded    the best first plan over the tilings without padding along v: W's v tile pinned
              to each divisor tile 50257, 1733 and 29 (v cut into 1, 29 or 1733 tiles), the rest
              auto
  auto/unpad  predicted seconds of the first over the second (below 1: padding pays)
With --loss the head goes on to its training loss: LS = log_softmax(L) along v and the
cross-entropy xent = einsum "tv,tv->t" of soft labels Y [T, 50257] and LS (f32 throughout); the
softmax's lowering fills the padding of v with -inf (tra/softmax_lowering.hpp).
docs/benchmarks.md ("Padding: GPT-2's vocabulary") records runs.

Usage: tools/bench/padding.py [--tra PATH] [--tokens 8192] [--sites 4,16,64,256] [--machine FILE]
                              [--loss]
"""
import argparse
import os
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import auto_tiling  # noqa: E402

SOURCE = pathlib.Path(__file__).resolve().parents[2]
VOCAB, MODEL = 50257, 768

WORKFLOW = """name: lm_head_auto
dtype: f32
inputs:
  X: {{shape: [{t}, {d}], tile: auto, generate: {{uniform: [-1, 1], seed: 1}}}}
  W: {{shape: [{d}, {v}], tile: auto, generate: {{uniform: [-1, 1], seed: 2}}}}
program:
  - L: {{einsum: "td,dv->tv", inputs: [X, W]}}
outputs:
  L: {{file: out/L.h5}}
"""

LOSS_WORKFLOW = """name: lm_loss_auto
dtype: f32
inputs:
  X: {{shape: [{t}, {d}], tile: auto, generate: {{uniform: [-1, 1], seed: 1}}}}
  W: {{shape: [{d}, {v}], tile: auto, generate: {{uniform: [-1, 1], seed: 2}}}}
  Y: {{shape: [{t}, {v}], tile: auto, generate: {{uniform: [0, 1], seed: 3}}}}
program:
  - L: {{einsum: "td,dv->tv", inputs: [X, W]}}
  - LS: {{log_softmax: L, dim: 1}}
  - xent: {{einsum: "tv,tv->t", inputs: [Y, LS]}}
outputs:
  xent: {{file: out/xent.h5}}
"""


def first_plan(tra, workflow, sites, machine, pin=None):
    """tra's first plan as a dict, or None when tra refuses the pin."""
    return auto_tiling.first_plan(tra, workflow, sites, machine, pin)[0]


def best_unpadded(tra, workflow, sites, machine):
    """The best first plan with W's v tile pinned to a divisor of the vocabulary, for each
    model-dimension tile d that divides 768 (W's pin fixes its whole tile)."""
    best = None
    for v_tile in (VOCAB, 1733, 29):
        for d_tile in (768, 384, 256, 192, 128, 96, 64):
            plan = first_plan(tra, workflow, sites, machine, "W@%dx%d" % (d_tile, v_tile))
            if plan and (best is None or plan["estimated_seconds"] < best["estimated_seconds"]):
                best = plan
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tra", default=str(SOURCE / "build/apps/tra"), help="the tra binary")
    ap.add_argument("--tokens", type=int, default=8192, help="rows of X (tokens)")
    ap.add_argument("--sites", default="4,16,64,256", help="site counts, comma-separated")
    ap.add_argument("--machine", help="machine profile (default: the built-in one)")
    ap.add_argument("--loss", action="store_true",
                    help="the head with log_softmax and cross-entropy along the vocabulary")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        wf = os.path.join(tmp, "lm_head.yaml")
        with open(wf, "w") as f:
            f.write((LOSS_WORKFLOW if args.loss else WORKFLOW).format(t=args.tokens, d=MODEL,
                                                                       v=VOCAB))
        print("| sites | auto: first plan | pred s | peak MiB | best unpadded | pred s | peak MiB "
              "| auto / unpadded |")
        print("|---|---|---|---|---|---|---|---|")
        for sites in (int(s) for s in args.sites.split(",")):
            auto = first_plan(args.tra, wf, sites, args.machine)
            hand = best_unpadded(args.tra, wf, sites, args.machine)
            mib = lambda p: p["peak_bytes_per_site"] / 2**20  # noqa: E731
            print("| %d | `%s` | %.4g | %.1f | `%s` | %.4g | %.1f | %.2f |" % (
                sites, auto["name"], auto["estimated_seconds"], mib(auto), hand["name"],
                hand["estimated_seconds"], mib(hand),
                auto["estimated_seconds"] / hand["estimated_seconds"]))


if __name__ == "__main__":
    main()
