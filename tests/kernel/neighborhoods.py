"""An independent, deliberately plain Python statement of the neighborhoods
of SPEC 2.1, the test oracle for the kernel's C implementation."""
import itertools
from functools import lru_cache

PROC_NULL = -1


@lru_cache(maxsize=None)
def tuw_dims(p, ndim):
    """Brute force over non-increasing factor vectors: least spread, then lexicographic."""
    def vectors(q, k, largest):
        if k == 0:
            if q == 1:
                yield ()
            return
        for d in range(min(q, largest), 0, -1):
            if q % d == 0:
                for rest in vectors(q // d, k - 1, d):
                    yield (d,) + rest
    return min(vectors(p, ndim, p), key=lambda v: (v[0] - v[-1], v))


def coords_of(rank, dims):
    coords = []
    for extent in reversed(dims):
        coords.append(rank % extent)
        rank //= extent
    return tuple(reversed(coords))


def rank_of(coords, dims):
    rank = 0
    for c, extent in zip(coords, dims):
        rank = rank * extent + c
    return rank


def grid(e, p):
    dims = tuw_dims(p, e["ndim"])
    periodic = [d >= e["nfin"] for d in range(e["ndim"])]
    return dims, periodic


def shifted(coords, offset, sign, dims, periodic):
    """The rank at coords + sign*offset, or None where it leaves a finite dimension."""
    target = []
    for c, o, extent, wraps in zip(coords, offset, dims, periodic):
        x = c + sign * o
        if not wraps and not 0 <= x < extent:
            return None
        target.append(x % extent)
    return rank_of(target, dims)


def offsets(topology, ndim, radius):
    box = itertools.product(range(-radius, radius + 1), repeat=ndim)
    if topology == "moore":
        keep = [c for c in box if any(c)]
    else:
        keep = [c for c in box if any(c) and sum(map(abs, c)) <= radius]
    return keep


def ordered(offs, order):
    if order == "LMAJ":
        return sorted(offs, key=lambda c: tuple(reversed(c)))
    return sorted(offs)  # FMAJ (RAND: compared as a multiset)


def lists(e, p, rank):
    """(sources, destinations) of `rank`, in ranks of the base communicator."""
    if e["topology"] == "full":
        sources = [(rank + 1 + i) % p for i in range(p - 1)]
        destinations = [(rank - 1 - i) % p for i in range(p - 1)]
        return sources, destinations
    dims, periodic = grid(e, p)
    me = coords_of(rank, dims)
    if e["topology"] == "cart":
        both = []
        for d in range(e["ndim"]):
            for sign in (-1, +1):
                unit = [0] * e["ndim"]
                unit[d] = 1
                target = shifted(me, unit, sign, dims, periodic)
                both.append(PROC_NULL if target is None else target)
        return both, list(both)
    offs = ordered(offsets(e["topology"], e["ndim"], e["radius"]), e.get("order") or "FMAJ")
    destinations = [r for r in (shifted(me, c, +1, dims, periodic) for c in offs) if r is not None]
    sources = [r for r in (shifted(me, c, -1, dims, periodic) for c in offs) if r is not None]
    return sources, destinations


def has_duplicate_edges(e, p):
    for rank in range(p):
        for neighbors in lists(e, p, rank):
            real = [r for r in neighbors if r != PROC_NULL]
            if len(real) != len(set(real)):
                return True
    return False


def has_short_periodic_dimension(e, p):
    """A periodic dimension of extent 1 or 2: both Cartesian neighbors are one process."""
    dims, periodic = grid(e, p)
    return any(wraps and extent <= 2 for extent, wraps in zip(dims, periodic))


def impossible(e, p):
    """The kernel refuses a radius when every dimension is finite and of extent 1."""
    if e["topology"] not in ("moore", "vneum"):
        return False
    dims, _ = grid(e, p)
    return e["nfin"] == e["ndim"] and max(dims) == 1
