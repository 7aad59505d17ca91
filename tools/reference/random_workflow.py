#!/usr/bin/python3
"""Writes a random small, valid workflow for the runtime's property test.

Usage: random_workflow.py SEED > WF.yaml

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


class Tensor:
    """A plain tensor: its axes (indices into the workflow's axes), in dimension order."""

    def __init__(self, name, axes):
        self.name, self.axes = name, axes


class Builder:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        rng = self.rng
        # Each axis: (tiles, bound). Bounds of 2, 4 or 6 can be cut by `tile`.
        self.axes = [(rng.randint(1, 4), rng.choice([1, 2, 3, 4, 6])) for _ in range(rng.randint(2, 4))]
        self.inputs, self.steps, self.plain, self.relations = [], [], [], []

    def fresh(self, prefix):
        return "%s%d" % (prefix, len(self.inputs) + len(self.steps))

    def add_input(self, axes):
        rng = self.rng
        name = self.fresh("X")
        shape = [self.axes[a][0] * self.axes[a][1] for a in axes]
        tile = [self.axes[a][1] for a in axes]
        if rng.random() < 0.5:
            gen = "{uniform: [-1, 1], seed: %d}" % rng.randint(0, 999)
        else:
            gen = "{integers: [0, 9], seed: %d}" % rng.randint(0, 999)
        self.inputs.append("  %s: {shape: %s, tile: %s, generate: %s}" % (name, shape, tile, gen))
        self.plain.append(Tensor(name, axes))
        return self.plain[-1]

    def step(self, name, body):
        self.steps.append("  - %s: {%s}" % (name, body))

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
        semiring = "" if (join, agg) == ("mul", "add") else ", join: %s, agg: %s" % (join, agg)
        self.step(name, 'einsum: "%s", inputs: [%s]%s' % (spec, ", ".join(t.name for t in operands), semiring))
        self.plain.append(Tensor(name, [a.axes[0], operands[-1].axes[1]]))
        return True

    def einsum_reduce(self):
        a = self.matrix()
        if a is None:
            return False
        keep = self.rng.randrange(2)
        agg = self.rng.choice(["add", "max", "min"])
        name = self.fresh("R")
        self.step(name, 'einsum: "ij->%s", inputs: [%s], agg: %s' % ("ij"[keep], a.name, agg))
        self.plain.append(Tensor(name, [a.axes[keep]]))
        return True

    def elementwise(self):
        a = self.pick()
        if a is None:
            return False
        b = self.pick(lambda t: t.axes == a.axes and t is not a) or self.add_input(list(a.axes))
        name = self.fresh("J")
        positions = list(range(len(a.axes)))
        self.step(name, "join: [%s, %s], on: [%s, %s], kernel: %s"
                  % (a.name, b.name, positions, positions, self.rng.choice(ELEMENTWISE)))
        self.plain.append(Tensor(name, list(a.axes)))
        return True

    def join_aggregate(self):
        a = self.matrix()
        b = self.matrix(lambda t: t.axes[0] == a.axes[1]) if a else None
        if b is None:
            return False
        joined, name = self.fresh("P"), None
        self.step(joined, "join: [%s, %s], on: [[1], [0]], kernel: matmul" % (a.name, b.name))
        name = self.fresh("S")
        self.step(name, "aggregate: %s, by: [0, 2], kernel: add" % joined)
        self.plain.append(Tensor(name, [a.axes[0], b.axes[1]]))
        return True

    def transpose(self):
        a = self.matrix()
        if a is None:
            return False
        swapped = self.fresh("K")
        self.step(swapped, 'rekey: %s, key: "(i, j) -> (j, i)"' % a.name)
        name = self.fresh("T")
        self.step(name, "transform: %s, kernel: transpose" % swapped)
        self.plain.append(Tensor(name, [a.axes[1], a.axes[0]]))
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
        self.step(pieces, "tile: %s, dim: %d, size: %d" % (a.name, dim, size))
        if rng.random() < 0.3:
            self.relations.append(pieces)
            return True
        if rng.random() < 0.5:
            mapped = self.fresh("U")
            self.step(mapped, "transform: %s, kernel: %s" % (pieces, rng.choice(UNARY)))
            pieces = mapped
        name = self.fresh("B")
        self.step(name, "concat: %s, key_dim: %d, array_dim: %d" % (pieces, len(a.axes), dim))
        self.plain.append(Tensor(name, list(a.axes)))
        return True

    def transform(self):
        a = self.pick()
        if a is None:
            return False
        name = self.fresh("M")
        self.step(name, "transform: %s, kernel: %s" % (a.name, self.rng.choice(UNARY)))
        self.plain.append(Tensor(name, list(a.axes)))
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
        wanted = rng.randint(2, 6)
        made = 0
        while made < wanted:
            made += 1 if rng.choice(templates)() else 0
        results = [t.name for t in self.plain if not t.name.startswith("X")] + self.relations
        last = [s.split(":")[0].strip(" -") for s in self.steps][-1]
        outputs = sorted(set(rng.sample(results, min(len(results), rng.randint(1, 3))) + [last]))
        dtype = "f32" if rng.random() < 0.25 else "f64"
        lines = ["name: random_program", "dtype: %s" % dtype, "inputs:"] + self.inputs
        lines += ["program:"] + self.steps + ["outputs:"]
        lines += ["  %s: {file: out/%s.h5}" % (o, o) for o in outputs]
        return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) != 2 or not argv[1].isdigit():
        print(__doc__, file=sys.stderr)
        return 2
    sys.stdout.write("# random_workflow.py %s\n" % argv[1])
    sys.stdout.write(Builder(int(argv[1])).build())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
