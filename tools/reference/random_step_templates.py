"""The step templates random_workflow.py draws from, and the kernels they draw.

Each template adds one kind of step that is valid by construction (the list is in
random_workflow.py's docstring) and returns True, or returns False when no operand fits. The
templates a sparse program draws also keep numpy's value of their result on the dense
equivalents and the tiles tra holds (Builder.numpy), for `random_workflow.py SEED --numpy`.
StepTemplates is mixed into random_workflow.Builder: its methods use the Builder's draws
(rng), operands (plain, pick, matrix, add_input) and output (fresh, step, plain_result,
relations).
"""

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


class StepTemplates:
    """The templates, as methods of random_workflow.Builder."""

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
