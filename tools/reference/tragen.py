"""Reference implementation of tra's synthetic inputs (`generate:` in a workflow).

Every element is a function of (seed, global row-major index) alone, exactly as in
lib/storage/generator.cpp, so the arrays returned here equal what `tra gen` writes, bit for bit:

    z = seed * 0x9E3779B97F4A7C15 + (index + 1) * 0xD1B54A32D192ED03   (mod 2**64)
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB
    z = z ^ (z >> 31)
    u = (z >> 11) * 2**-53                                               (in [0, 1))

    uniform [lo, hi]   lo + (hi - lo) * u
    integers [lo, hi]  lo + floor(u * (hi - lo + 1))
    constant lo        lo
    arange [lo, hi]    lo + hi * index        (start, step)

Values are computed in float64; f32 tensors hold them rounded to float32.

Block sparsity (`density: d`, with the workflow's tile): the tile with row-major index t in the
grid of tiles is present when unit_uniform(seed ^ 0x5851F42D4C957F2D, t) < d; an absent tile is
zeros. At d = 1 every tile is present.

    from tragen import generate
    a = generate("uniform", -1, 1, seed=7, shape=[6, 10], dtype="f64")
"""

import numpy as np

__all__ = ["KINDS", "unit_uniform", "generate", "present_tiles"]

KINDS = ("uniform", "integers", "constant", "arange")

_MASK = (1 << 64) - 1
_GAMMA_SEED = 0x9E3779B97F4A7C15
_GAMMA_INDEX = 0xD1B54A32D192ED03
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB


def unit_uniform(seed, index):
    """u in [0, 1) for each entry of `index` (array of non-negative integers) under `seed`."""
    index = np.asarray(index, dtype=np.uint64)
    u64 = np.uint64
    # Array arithmetic on uint64 wraps mod 2**64 as SplitMix64 requires; errstate only silences
    # numpy versions that warn about it. The seed term is reduced in Python's exact integers.
    with np.errstate(over="ignore"):
        z = u64((int(seed) * _GAMMA_SEED) & _MASK) + (index + u64(1)) * u64(_GAMMA_INDEX)
        z = (z ^ (z >> u64(30))) * u64(_MIX1)
        z = (z ^ (z >> u64(27))) * u64(_MIX2)
        z = z ^ (z >> u64(31))
    # 53 bits convert to float64 exactly; the power-of-two scale is exact too.
    return (z >> u64(11)).astype(np.float64) * 2.0 ** -53


_PRESENCE_STREAM = 0x5851F42D4C957F2D


def present_tiles(seed, density, tiles):
    """Boolean array of shape `tiles` (tiles per dimension): which tiles `density:` keeps."""
    tiles = tuple(int(n) for n in tiles)
    if density >= 1.0:
        return np.ones(tiles, dtype=bool)
    count = int(np.prod(tiles, dtype=np.int64)) if tiles else 1
    u = unit_uniform(int(seed) ^ _PRESENCE_STREAM, np.arange(count, dtype=np.uint64))
    return (u < density).reshape(tiles)


def generate(kind, lo, hi, seed, shape, dtype="f64", density=1.0, tile=None):
    """The whole tensor of `shape` ("f32" or "f64") that tra generates for this spec; with
    `density` < 1 (and the workflow's `tile`) the absent tiles are zeros."""
    shape = tuple(int(n) for n in shape)
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    index = np.arange(count, dtype=np.uint64)
    lo, hi = float(lo), float(hi)
    if kind == "uniform":
        values = lo + (hi - lo) * unit_uniform(seed, index)
    elif kind == "integers":
        values = lo + np.floor(unit_uniform(seed, index) * (hi - lo + 1.0))
    elif kind == "constant":
        values = np.full(count, lo, dtype=np.float64)
    elif kind == "arange":
        values = lo + hi * index.astype(np.float64)
    else:
        raise ValueError("unknown generator kind %r (expected one of %s)"
                         % (kind, ", ".join(KINDS)))
    if dtype not in ("f32", "f64"):
        raise ValueError("unknown dtype %r (expected f32 or f64)" % (dtype,))
    values = values.astype(np.float32 if dtype == "f32" else np.float64).reshape(shape)
    if density < 1.0:
        tile = tuple(int(n) for n in tile)
        keep = present_tiles(seed, density, [n // t for n, t in zip(shape, tile)])
        for d, t in enumerate(tile):  # each tile's flag over its elements
            keep = np.repeat(keep, t, axis=d)
        values = np.where(keep, values, values.dtype.type(0))
    return values
