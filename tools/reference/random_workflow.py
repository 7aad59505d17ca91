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

SEMIRINGS = [("mul", "add"), ("add", "min"), ("add", "max"), ("min", "max"), ("max", "min"),
             ("sub", "add")]
UNARY = ["relu", "tanh", "sigmoid", "scale(0.5)", "scale(-2)"]
ELEMENTWISE = ["add", "sub", "mul", "max", "min"]
MAP_EXPRESSIONS = ["x * rsqrt(x * x + 1e-6)", "max(x, 0) - 0.5 * x", "-x * sigmoid(x) + 1"]
JOIN_EXPRESSIONS = ["a * sigmoid(a) * b", "(a - b) * (a - b)", "min(a, b) + 2 * a"]
LETTERS = "ijklmn"
# The transforms that map a tile of zeros to zeros, so absent tiles stay absent; FILLING ones
# do not, so tra first makes tiles of zeros for the absent ones (a fill step; the result is dense).
SPARSE_UNARY = ["relu", "tanh", "scale(0.5)", "scale(-2)", '{expr: "x * rsqrt(x * x + 1e-6)"}',
                '{expr: "max(x, 0) - 0.5 * x"}']
FILLING_UNARY = ["sigmoid", '{expr: "-x * sigmoid(x) + 1"}']


class _Ufuncs:
    """numpy's ufunc for each element-wise kernel name (numpy imported only when used)."""

    def __getitem__(self, kernel):
        import numpy as np
        return {"add": np.add, "sub": np.subtract, "mul": np.multiply, "max": np.maximum,
                "min": np.minimum}[kernel]


UFUNC = _Ufuncs()


def apply_unary(kernel, x):
    """numpy's value of a transform kernel of UNARY or SPARSE_UNARY."""
    import numpy as np
    if kernel.startswith("scale("):
        return x * float(kernel[6:-1])
    return {"relu": lambda: np.maximum(x, 0), "tanh": lambda: np.tanh(x),
            "sigmoid": lambda: 1 / (1 + np.exp(-x)),
            SPARSE_UNARY[4]: lambda: x / np.sqrt(x * x + 1e-6),
            SPARSE_UNARY[5]: lambda: np.maximum(x, 0) - 0.5 * x,
            FILLING_UNARY[1]: lambda: -x / (1 + np.exp(-x)) + 1}[kernel]()


def unary_presence(kernel, present):
    """The tiles a transform by `kernel` holds, of an operand that holds `present`."""
    import numpy as np
    return np.ones_like(present) if kernel in FILLING_UNARY else present


class Tensor:
    """A plain tensor: its axes (indices into the workflow's axes), in dimension order; `sparse`
    when it is sparse-derived (from a `density:` input), so it may lack tiles (absent zeros)."""

    def __init__(self, name, axes, sparse=False):
        self.name, self.axes, self.sparse = name, axes, sparse


class Builder:
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

    # Templates: each returns True when it added a step.

    def einsum_product(self):
        rng = self.rng
        a = self.matrix()
        b = self.matrix(lambda t: t.axes[0] == a.axes[1]) if a else None
        if b is None:
            b = self.add_input([a.axes[1], rng.randrange(len(self.axes))]) if a else None
        if a is None:
            return False
        join, agg = rng.choice(SEMIRINGS)
        name = self.fresh("E")
        operands, spec = [a, b], "ik,kj->ij"
        c = self.matrix(lambda t: t.axes[0] == b.axes[1])
        if c is not None and rng.random() < 0.3:
            operands, spec = [a, b, c], "ik,kl,lj->ij"
        sparse = any(t.sparse for t in operands)
        if self.sparse_program and (sparse or len(operands) == 3):
            join, agg = "mul", "add"  # the only semiring absent tiles (zeros) may skip
        semiring = "" if (join, agg) == ("mul", "add") else ", join: %s, agg: %s" % (join, agg)
        names = [t.name for t in operands]

        def value(v):
            import numpy as np
            (x, mx), rest = v(names[0]), [v(n) for n in names[1:]]
            for y, my in rest:
                if (join, agg) == ("mul", "add"):
                    x = x @ y
                else:
                    x = UFUNC[agg].reduce(UFUNC[join](x[:, :, None], y[None, :, :]), axis=1)
                mx = (mx.astype(np.int64) @ my.astype(np.int64)) > 0
            return x, mx
        self.step(name, 'einsum: "%s", inputs: [%s]%s' % (spec, ", ".join(names), semiring), value)
        self.plain_result(name, [a.axes[0], operands[-1].axes[1]], sparse)
        return True

    def einsum_reduce(self):
        a = self.matrix()
        if a is None:
            return False
        keep = self.rng.randrange(2)
        # On a sparse operand: add skips absent tiles; max/min take them as zeros in a group
        # with a present tile (a fill step), and a wholly absent group stays absent.
        agg = self.rng.choice(["add", "max", "min"])
        name = self.fresh("R")

        def value(v):
            x, m = v(a.name)
            return UFUNC[agg].reduce(x, axis=1 - keep), m.any(axis=1 - keep)
        self.step(name, 'einsum: "ij->%s", inputs: [%s], agg: %s' % ("ij"[keep], a.name, agg),
                  value)
        self.plain_result(name, [a.axes[keep]], a.sparse)
        return True

    def elementwise(self):
        a = self.pick()
        if a is None:
            return False
        b = self.pick(lambda t: t.axes == a.axes and t is not a) or self.add_input(list(a.axes))
        name = self.fresh("J")
        positions = list(range(len(a.axes)))
        # mul meets present pairs only; add/sub/max/min hold the union (fill steps make each
        # side's tiles of zeros where the other side has a tile).
        kernel = self.rng.choice(ELEMENTWISE)
        sparse = a.sparse or b.sparse

        def value(v):
            (x, mx), (y, my) = v(a.name), v(b.name)
            return UFUNC[kernel](x, y), mx & my if kernel == "mul" else mx | my
        self.step(name, "join: [%s, %s], on: [%s, %s], kernel: %s"
                  % (a.name, b.name, positions, positions, kernel), value)
        self.plain_result(name, list(a.axes), sparse)
        return True

    def join_aggregate(self):
        a = self.matrix()
        b = self.matrix(lambda t: t.axes[0] == a.axes[1]) if a else None
        if b is None:
            return False
        joined, name = self.fresh("P"), None
        self.step(joined, "join: [%s, %s], on: [[1], [0]], kernel: matmul" % (a.name, b.name))
        name = self.fresh("S")

        def value(v):
            import numpy as np
            (x, mx), (y, my) = v(a.name), v(b.name)
            return x @ y, (mx.astype(np.int64) @ my.astype(np.int64)) > 0
        self.step(name, "aggregate: %s, by: [0, 2], kernel: add" % joined, value)
        self.plain_result(name, [a.axes[0], b.axes[1]], a.sparse or b.sparse)
        return True

    def transpose(self):
        a = self.matrix()
        if a is None:
            return False
        swapped = self.fresh("K")
        self.step(swapped, 'rekey: %s, key: "(i, j) -> (j, i)"' % a.name)
        name = self.fresh("T")

        def value(v):
            x, m = v(a.name)
            return x.T, m.T
        self.step(name, "transform: %s, kernel: transpose" % swapped, value)
        self.plain_result(name, [a.axes[1], a.axes[0]], a.sparse)
        return True

    def rekey_aggregate(self):
        a = self.matrix()
        if a is None:
            return False
        # Row-major linearisation of the key (unique, no holes), then maybe a fold of every tile.
        columns = self.axes[a.axes[1]][0]
        flat = self.fresh("L")
        self.step(flat, 'rekey: %s, key: "(i, j) -> i * %d + j"' % (a.name, columns))
        if self.rng.random() < 0.5:
            self.relations.append(flat)
            return True
        name = self.fresh("A")
        self.step(name, "aggregate: %s, by: [], kernel: %s" % (flat, self.rng.choice(["add", "min"])))
        self.relations.append(name)
        return True

    def filter_aggregate(self):
        a = self.matrix()
        if a is None:
            return False
        # A condition on the column key that keeps column 0, so every row keeps a tuple and the
        # aggregate by the row key has no holes.
        cond = self.rng.choice(["k1 % 2 == 0", "k1 < 2", "k1 <= k0 || k1 == 0", "k1 * 3 < k0 + 2"])
        kept = self.fresh("F")
        self.step(kept, 'filter: %s, where: "%s"' % (a.name, cond))
        name = self.fresh("G")
        self.step(name, "aggregate: %s, by: [0], kernel: %s" % (kept, self.rng.choice(["add", "max"])))
        self.relations.append(name)
        return True

    def tile_concat(self):
        rng = self.rng
        choices = [(t, d) for t in self.plain for d in range(len(t.axes)) if self.axes[t.axes[d]][1] % 2 == 0]
        if not choices:
            return False
        a, dim = rng.choice(choices)
        bound = self.axes[a.axes[dim]][1]
        size = rng.choice([s for s in (1, 2, 3) if bound % s == 0 and s < bound])
        pieces = self.fresh("C")
        bounds = [self.axes[x][1] for x in a.axes]

        def cut(v):  # relation layout: key (tiles..., piece) ++ the piece's bound
            x, m = v(a.name)
            split, order, n = [], [], len(bounds)
            for d, b in enumerate(bounds):
                split += [x.shape[d] // b, b // size, size] if d == dim else [x.shape[d] // b, b]
            x = x.reshape(split)
            at = [sum(3 if e == dim else 2 for e in range(d)) for d in range(n)]
            order = [at[d] for d in range(n)] + [at[dim] + 1]
            order += [at[d] + (2 if d == dim else 1) for d in range(n)]
            import numpy as np
            return x.transpose(order), np.repeat(m[..., None], bounds[dim] // size, axis=n)
        self.step(pieces, "tile: %s, dim: %d, size: %d" % (a.name, dim, size), cut)
        if rng.random() < 0.3:
            self.relations.append(pieces)
            return True
        kernel = None
        if rng.random() < 0.5:
            mapped = self.fresh("U")
            kernel = rng.choice(UNARY)
            if self.sparse_program:
                kernel = rng.choice(UNARY + SPARSE_UNARY[4:] + FILLING_UNARY[1:])
            self.step(mapped, "transform: %s, kernel: %s" % (pieces, kernel))
            pieces = mapped
        name = self.fresh("B")

        def value(v):
            x, m = v(a.name)
            return (apply_unary(kernel, x), unary_presence(kernel, m)) if kernel else (x, m)
        self.step(name, "concat: %s, key_dim: %d, array_dim: %d" % (pieces, len(a.axes), dim),
                  value)
        self.plain_result(name, list(a.axes), a.sparse and kernel not in FILLING_UNARY)
        return True

    def transform(self):
        a = self.pick()
        if a is None:
            return False
        name = self.fresh("M")
        kernel = self.rng.choice(UNARY)
        if self.sparse_program:
            # Zero-preserving kernels keep absent tiles absent; sigmoid and the last expression
            # need tiles of zeros first (the result is dense).
            kernel = self.rng.choice(UNARY + SPARSE_UNARY[4:] + FILLING_UNARY[1:])

        def value(v):
            x, m = v(a.name)
            return apply_unary(kernel, x), unary_presence(kernel, m)
        self.step(name, "transform: %s, kernel: %s" % (a.name, kernel), value)
        self.plain_result(name, list(a.axes), a.sparse and kernel not in FILLING_UNARY)
        return True

    def softmax(self):
        a = self.pick()
        if a is None:
            return False
        name = self.fresh("S")
        op = self.rng.choice(["softmax", "log_softmax"])
        self.step(name, "%s: %s, dim: %d" % (op, a.name, self.rng.randrange(len(a.axes))))
        self.plain.append(Tensor(name, list(a.axes)))
        return True

    def expression(self):
        rng = self.rng
        a = self.pick()
        if a is None:
            return False
        name = self.fresh("E")
        kind = rng.choice(["transform", "join", "einsum"])
        b = self.matrix(lambda t: t.axes[0] == a.axes[1]) if len(a.axes) == 2 else None
        if kind == "einsum" and b is not None:
            expr = rng.choice(JOIN_EXPRESSIONS)
            self.step(name, 'einsum: "ij,jk->ik", inputs: [%s, %s], join: {expr: "%s"}'
                      % (a.name, b.name, expr))
            self.plain.append(Tensor(name, [a.axes[0], b.axes[1]]))
        elif kind == "join":
            b = self.pick(lambda t: t.axes == a.axes and t is not a) or self.add_input(list(a.axes))
            positions = list(range(len(a.axes)))
            self.step(name, 'join: [%s, %s], on: [%s, %s], kernel: {expr: "%s"}'
                      % (a.name, b.name, positions, positions, rng.choice(JOIN_EXPRESSIONS)))
            self.plain.append(Tensor(name, list(a.axes)))
        else:
            self.step(name, 'transform: %s, kernel: {expr: "%s"}'
                      % (a.name, rng.choice(MAP_EXPRESSIONS)))
            self.plain.append(Tensor(name, list(a.axes)))
        return True

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
