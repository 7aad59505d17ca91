#!/usr/bin/python3
"""Writes a random small, valid workflow for the runtime's property test.

Usage: random_workflow.py SEED > WF.yaml
       random_workflow.py SEED --numpy OUT_DIR   (a sparse program's outputs against numpy)

The same SEED always gives the same workflow (Python's own `random`, no other state). A workflow
has a few axes (a tile count and a tile bound each), two to four generated input matrices over
them, and two to six steps drawn from templates that are valid by construction:

  einsum      matrix products in (+, x) and in other semirings (min-plus, max-plus, max-min),
              row or column reductions, three-operand chains
  join        element-wise join of two tensors with the same axes (add, sub, mul, max, min),
              or a tile-level matmul join followed by an aggregate over the shared key
  rekey       the tile-wise transpose (rekey "(i, j) -> (j, i)" then transform transpose), or a
              row-major linearisation of the key, optionally folded by an aggregate by []
  filter      keep tuples by a condition on the column key, then aggregate by the row key
  tile/concat cut every tile along a dimension, optionally transform the pieces, concat back
  transform   relu, tanh, sigmoid, scale(f)
  softmax     softmax or log_softmax along a random dimension of a plain tensor
  expression  an element-wise expression as a transform's kernel ({expr: "..."} in x), as a
              join's kernel (in a and b), or as an einsum's join (a matrix product's pair)

Tensors that later steps can use are plain (key position d tiles dimension d, no holes); results
of filter+aggregate and of `tile` are relations in relation layout, used only as outputs. The
last steps (and a random sample of the others) are the outputs.

Sparse programs (docs/workflow-format.md, "Sparse tensors"): a SEED that is 2 mod 3 (one in
three, decided without a draw, so the other seeds give the same dense programs as before) makes
the first input and about 60% of the others block-sparse, `density:` drawn in 0.2..0.7, and
draws only these templates, whose tiles held (absent tiles are zeros) the builder follows
(Tensor.sparse: sparse-derived, from a sparse input, through any step that keeps tiles absent):

  einsum      (+, x) products and chains (other semirings only between dense operands), row or
              column reductions by add (absent tiles skipped) or max/min (a group with a
              present tile takes its absent ones as zeros: a fill step)
  join        element-wise mul (present pairs only) or add, sub, max, min (the union of the
              tiles, fill steps), matmul join followed by an aggregate add over the shared key
  rekey       the tile-wise transpose (a permutation of the key)
  tile/concat cut and concat back (pieces of a present tile are all present), optionally a
              transform of the pieces; or the pieces as a relation output
  transform   zero-preserving (relu, tanh, scale(f), two expressions: absent tiles stay
              absent) or not (sigmoid, an expression: fill steps, the result is dense)

Not drawn: filter, arithmetic rekeys, softmax, expressions in joins and einsums, div. About half
of a sparse program's outputs are written `sparse: true`. For these templates the builder also
keeps a numpy evaluation on the dense equivalents (tragen.generate, absent tiles zeros) and the
tiles tra holds; `random_workflow.py SEED --numpy OUT_DIR` compares the outputs that `tra run
--out-dir OUT_DIR` wrote with it (values and shapes, and for a `sparse: true` output one
allocated chunk per held tile). For a dense SEED it checks nothing.
"""
import random
import sys

from random_step_templates import StepTemplates, Tensor


class Builder(StepTemplates):
    """Draws a random workflow from a seed (build); the step templates it draws from are
    StepTemplates' methods (random_step_templates.py)."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        rng = self.rng
        # A sparse program: some inputs block-sparse, only the steps valid on them. Decided by
        # the seed alone (no draw), so the other seeds give the same dense programs as before.
        self.sparse_program = seed % 3 == 2
        # Each axis: (tiles, bound). Bounds of 2, 4 or 6 can be cut by `tile`.
        self.axes = [(rng.randint(1, 4), rng.choice([1, 2, 3, 4, 6])) for _ in range(rng.randint(2, 4))]
        self.inputs, self.steps, self.plain, self.relations = [], [], [], []
        # The numpy evaluation of each tensor and relation of the templates a sparse program
        # draws: name -> f(value) giving (dense array, tile presence), value(name) evaluating
        # an earlier one. Presence has a flag per key of tra's relation (all set when dense).
        self.numpy = {}

    def fresh(self, prefix):
        return "%s%d" % (prefix, len(self.inputs) + len(self.steps))

    def add_input(self, axes):
        rng = self.rng
        name = self.fresh("X")
        shape = [self.axes[a][0] * self.axes[a][1] for a in axes]
        tile = [self.axes[a][1] for a in axes]
        if rng.random() < 0.5:
            kind, lo, hi, seed = "uniform", -1, 1, rng.randint(0, 999)
        else:
            kind, lo, hi, seed = "integers", 0, 9, rng.randint(0, 999)
        density = 1.0
        if self.sparse_program and (not self.inputs or rng.random() < 0.6):
            density = round(rng.uniform(0.2, 0.7), 2)
        gen = "{%s: [%d, %d], seed: %d%s}" % (kind, lo, hi, seed,
                                              ", density: %g" % density if density < 1 else "")
        self.inputs.append("  %s: {shape: %s, tile: %s, generate: %s}" % (name, shape, tile, gen))
        self.plain.append(Tensor(name, axes, density < 1))

        def value(_):
            import numpy as np
            from tragen import generate, present_tiles
            grid = [s // t for s, t in zip(shape, tile)]
            present = present_tiles(seed, density, grid) if density < 1 else np.ones(grid, bool)
            return generate(kind, lo, hi, seed, shape, self.dtype, density, tile), present
        self.numpy[name] = value
        return self.plain[-1]

    def step(self, name, body, numpy=None):
        self.steps.append("  - %s: {%s}" % (name, body))
        if numpy is not None:
            self.numpy[name] = numpy

    def plain_result(self, name, axes, sparse):
        self.plain.append(Tensor(name, axes, sparse))

    def pick(self, matching=lambda t: True):
        found = [t for t in self.plain if matching(t)]
        return self.rng.choice(found) if found else None

    def matrix(self, matching=lambda t: True):
        return self.pick(lambda t: len(t.axes) == 2 and matching(t))

    def build(self):
        rng = self.rng
        n = len(self.axes)
        for _ in range(rng.randint(2, 4)):
            self.add_input([rng.randrange(n), rng.randrange(n)])
        templates = [self.einsum_product, self.einsum_product, self.einsum_reduce, self.elementwise,
                     self.join_aggregate, self.transpose, self.filter_aggregate, self.tile_concat,
                     self.transform, self.rekey_aggregate, self.softmax, self.expression]
        if self.sparse_program:
            # Those valid on relations with absent tiles (each draws its kernel accordingly);
            # filter, arithmetic rekey, softmax and expressions in joins are refused on them.
            templates = [self.einsum_product, self.einsum_product, self.einsum_reduce,
                         self.elementwise, self.join_aggregate, self.transpose, self.tile_concat,
                         self.transform]
        wanted = rng.randint(2, 6)
        made = 0
        while made < wanted:
            made += 1 if rng.choice(templates)() else 0
        results = [t.name for t in self.plain if not t.name.startswith("X")] + self.relations
        last = [s.split(":")[0].strip(" -") for s in self.steps][-1]
        outputs = sorted(set(rng.sample(results, min(len(results), rng.randint(1, 3))) + [last]))
        dtype = "f32" if rng.random() < 0.25 else "f64"
        self.dtype, self.outputs = dtype, outputs
        # A sparse program writes about half its outputs `sparse: true` (only the held tiles).
        self.sparse_outputs = [o for o in outputs if self.sparse_program and rng.random() < 0.5]
        lines = ["name: random_program", "dtype: %s" % dtype, "inputs:"] + self.inputs
        lines += ["program:"] + self.steps + ["outputs:"]
        for o in outputs:
            lines.append("  %s: {file: out/%s.h5%s}"
                         % (o, o, ", sparse: true" if o in self.sparse_outputs else ""))
        return "\n".join(lines) + "\n"


def check_outputs(builder, out_dir):
    """Compares a sparse program's outputs in OUT_DIR (what `tra run --out-dir OUT_DIR` wrote)
    with numpy on the dense equivalents; a `sparse: true` output must also have exactly one
    chunk per tile that tra holds (numpy's presence). Returns the problems found."""
    import os
    import h5py
    import numpy as np
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    memo = {}

    def value(name):
        if name not in memo:
            memo[name] = builder.numpy[name](value)
        return memo[name]
    problems = []
    for o in builder.outputs:
        want, present = value(o)
        path = os.path.join(out_dir, "out", o + ".h5")
        if not os.path.exists(path):
            problems.append("%s: no file %s" % (o, path))
            continue
        with h5py.File(path, "r") as f:
            ds = f[o]
            got, ds_chunked = ds[()], ds.chunks is not None
            chunks = ds.id.get_num_chunks() if ds.chunks else 0  # contiguous: every element
        tol = 1e-4 if builder.dtype == "f32" else 1e-9
        scale = float(np.max(np.abs(want))) if want.size else 0.0
        if got.shape != want.shape:
            problems.append("%s: shape %s, numpy's %s" % (o, got.shape, want.shape))
        elif not np.allclose(got, want, rtol=tol, atol=tol * (1 + scale)):
            at = np.unravel_index(np.argmax(np.abs(got - want)), got.shape)
            problems.append("%s: differs from numpy's dense value (at %s: %r, numpy %r)"
                            % (o, tuple(int(i) for i in at), got[at], want[at]))
        # An empty relation may be written contiguous: nothing is allocated either way.
        held = int(present.sum())
        if o in builder.sparse_outputs and (chunks != held or not (ds_chunked or held == 0)):
            problems.append("%s: written sparse with %s, numpy says %d of %d tiles are held"
                            % (o, "%d chunks" % chunks if ds_chunked else "no chunks (contiguous)",
                               held, present.size))
    return problems


def main(argv):
    if len(argv) not in (2, 4) or not argv[1].isdigit() or argv[2:3] not in ([], ["--numpy"]):
        print(__doc__, file=sys.stderr)
        return 2
    builder = Builder(int(argv[1]))
    text = builder.build()
    if len(argv) == 4:
        if not builder.sparse_program:
            return 0  # the dense templates have no numpy evaluation: --check covers them
        problems = check_outputs(builder, argv[3])
        for p in problems:
            print("numpy check, seed %s: %s" % (argv[1], p), file=sys.stderr)
        return 1 if problems else 0
    sys.stdout.write("# random_workflow.py %s\n" % argv[1])
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
