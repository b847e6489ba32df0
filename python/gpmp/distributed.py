"""Products and batches spread over MPI ranks (mpi4py), built from gpmp's multi-modular phases.

``poly_mul(f, g, comm)``: the k primes of the product (``gpmp.poly_mul_primes``) are split into
contiguous shares, one per rank. Each rank reduces the broadcast inputs modulo its primes
(``gpmp.mod_primes``) and multiplies modulo each (``gpmp.nmod.poly_mul``, on its CPU or GPU); one
``Alltoallv`` regroups the residues from "rank owns primes" to "rank owns a block of coefficients"
(every rank sends and receives about k·n/size words, n = len(f) + len(g) − 1); each rank
recombines its block (``gpmp.crt``) and rank 0 gathers the product. Because the shares are
contiguous and in rank order, what a rank receives is already prime-major for its block.

``mul(a, b, comm)``: one product of two integers, as the product of their base-2^c digit
polynomials, with the carries resolved on each rank's block before the gather.
``powm_n(bases, exps, m, comm)``: ``gpmp.powm_n`` on blocks of elements.

Inputs are read on rank 0 (other ranks may pass None); the result is returned on rank 0 and None
elsewhere. ``timings``, when a dict, receives the seconds of each phase on this rank and the bytes
it sent. Run one rank per GPU where there are GPUs (``GPMP_CUDA_DEVICE`` from the local rank).
mpi4py is imported by the caller: this module only uses the communicator it is given.
"""
import time
from array import array

import gpmp

__all__ = ["poly_mul", "mul", "powm_n"]


def _blocks(total, parts):
    """Contiguous shares of range(total): the bounds of part r are (lo[r], lo[r + 1])."""
    q, r = divmod(total, parts)
    lo = [0]
    for i in range(parts):
        lo.append(lo[-1] + q + (1 if i < r else 0))
    return lo


def _max_bits(v):
    return max((abs(x).bit_length() for x in v), default=0)


class _Clock:
    def __init__(self, timings):
        self.t = timings
        self.last = time.perf_counter()

    def lap(self, name):
        now = time.perf_counter()
        if self.t is not None:
            self.t[name] = self.t.get(name, 0.0) + now - self.last
        self.last = now


def _residue_blocks(f, g, comm, clock, timings):
    """The shared steps of poly_mul and mul on the broadcast f, g: every rank's block of the
    product's coefficients as (lo, hi, values) with values the exact coefficients lo .. hi − 1."""
    from mpi4py import MPI

    rank, size = comm.Get_rank(), comm.Get_size()
    flen, glen = len(f), len(g)
    fbits, gbits = _max_bits(f), _max_bits(g)
    hl = flen + glen - 1
    primes = gpmp.poly_mul_primes(flen, fbits, glen, gbits)
    k = len(primes)
    cb = _blocks(hl, size)
    lo, hi = cb[rank], cb[rank + 1]
    if k == 0:
        clock.lap("crt")
        return lo, hi, [0] * (hi - lo)
    pb = _blocks(k, size)
    mine = primes[pb[rank]:pb[rank + 1]]
    rf, rg = gpmp.mod_primes(f, mine), gpmp.mod_primes(g, mine)
    clock.lap("reduce")
    rh = array("Q", bytes(8 * len(mine) * hl))
    mf, mg, mh = memoryview(rf), memoryview(rg), memoryview(rh)
    for j, p in enumerate(mine):
        gpmp.nmod.poly_mul(mf[j * flen:(j + 1) * flen], mg[j * glen:(j + 1) * glen], p, out=mh[j * hl:(j + 1) * hl])
    clock.lap("products")
    # Send to rank s, for each of my primes, the coefficients of s's block.
    scounts = [len(mine) * (cb[s + 1] - cb[s]) for s in range(size)]
    send = array("Q", bytes(8 * sum(scounts)))
    ms, pos = memoryview(send), 0
    for s in range(size):
        w = cb[s + 1] - cb[s]
        for j in range(len(mine)):
            ms[pos:pos + w] = mh[j * hl + cb[s]:j * hl + cb[s + 1]]
            pos += w
    rcounts = [(pb[t + 1] - pb[t]) * (hi - lo) for t in range(size)]
    sdispl, rdispl = _blocks_from(scounts), _blocks_from(rcounts)
    recv = array("Q", bytes(8 * sum(rcounts)))
    clock.lap("pack")
    comm.Alltoallv([send, (scounts, sdispl), MPI.UINT64_T], [recv, (rcounts, rdispl), MPI.UINT64_T])
    clock.lap("alltoallv")
    if timings is not None:
        timings["bytes_sent"] = 8 * (sum(scounts) - scounts[rank])
    values = gpmp.crt(recv, hi - lo, primes, True)
    clock.lap("crt")
    return lo, hi, values


def _blocks_from(counts):
    d = [0]
    for c in counts[:-1]:
        d.append(d[-1] + c)
    return d


def poly_mul(f, g, comm, timings=None):
    """f·g (lists of ints, low degree first) over the ranks of ``comm``; the list on rank 0, None
    elsewhere. f and g are read on rank 0."""
    clock = _Clock(timings)
    f, g = comm.bcast((list(f), list(g)) if comm.Get_rank() == 0 else None, root=0)
    clock.lap("bcast")
    if not f or not g:
        return [] if comm.Get_rank() == 0 else None
    _, _, values = _residue_blocks(f, g, comm, clock, timings)
    parts = comm.gather(values, root=0)
    clock.lap("gather")
    if comm.Get_rank() != 0:
        return None
    return [x for part in parts for x in part]


def _digits(x, c):
    """The base-2^c digits of x ≥ 0, low first."""
    b = x.to_bytes((x.bit_length() + 7) // 8 or 1, "little")
    w = c // 8
    return [int.from_bytes(b[i:i + w], "little") for i in range(0, len(b), w)]


def _combine(values, c):
    """Σ values[i]·2^(c·i) for values ≥ 0 of any size, in linear time: the values are written in
    q interleaved classes (i mod q), whose terms do not overlap."""
    if not values:
        return 0
    width = max(v.bit_length() for v in values)
    q = max(1, -(-width // c))
    w = q * c // 8
    total = 0
    for r in range(q):
        buf = b"".join(v.to_bytes(w, "little") for v in values[r::q])
        total += int.from_bytes(buf, "little") << (c * r)
    return total


def mul(a, b, comm, timings=None):
    """a·b (ints, read on rank 0) over the ranks of ``comm``; the int on rank 0, None elsewhere.
    The digits are 2^c with c = 64·⌈size/2⌉ bits, so that the product has about size + 3 primes to
    share; each rank adds up its block of coefficients, rank 0 the blocks."""
    clock = _Clock(timings)
    size = comm.Get_size()
    c = 64 * max(1, -(-size // 2))
    if comm.Get_rank() == 0:
        a, b = int(a), int(b)
        sign = -1 if (a < 0) != (b < 0) else 1
        f, g = _digits(abs(a), c), _digits(abs(b), c)
    else:
        sign, f, g = 1, None, None
    sign, f, g = comm.bcast((sign, f, g), root=0)
    clock.lap("bcast")
    lo, _, values = _residue_blocks(f, g, comm, clock, timings)
    part = (lo, _combine(values, c))
    parts = comm.gather(part, root=0)
    clock.lap("gather")
    if comm.Get_rank() != 0:
        return None
    return sign * sum(v << (c * lo) for lo, v in parts)


def powm_n(bases, exps, m, comm, timings=None):
    """[pow(bases[i], exps[i], m)] (read on rank 0) by blocks of elements, one block per rank
    (``gpmp.powm_n`` on each); the list on rank 0, None elsewhere."""
    clock = _Clock(timings)
    rank, size = comm.Get_rank(), comm.Get_size()
    chunks = None
    if rank == 0:
        bases, exps = list(bases), list(exps)
        if len(bases) != len(exps):
            raise ValueError("powm_n: bases and exps differ in length")
        lo = _blocks(len(bases), size)
        chunks = [(bases[lo[r]:lo[r + 1]], exps[lo[r]:lo[r + 1]], m) for r in range(size)]
    b, e, m = comm.scatter(chunks, root=0)
    clock.lap("scatter")
    r = gpmp.powm_n(b, e, m) if b else []
    clock.lap("powm")
    parts = comm.gather(r, root=0)
    clock.lap("gather")
    if rank != 0:
        return None
    return [x for part in parts for x in part]
