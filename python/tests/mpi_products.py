"""Run under mpiexec (by test_distributed.py): gpmp.distributed's products and powers on the ranks
of COMM_WORLD against Python ints on rank 0. Prints "ok <ranks>" on rank 0 when every check passed."""
import random
import sys

from mpi4py import MPI

import gpmp
import gpmp.distributed as gd

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
rng = random.Random(7)


def abort_on_error(exc_type, exc, tb):
    """A failing rank stops every rank (instead of leaving the others in a collective)."""
    sys.__excepthook__(exc_type, exc, tb)
    sys.stderr.flush()
    comm.Abort(1)


sys.excepthook = abort_on_error


def schoolbook(f, g):
    h = [0] * (len(f) + len(g) - 1)
    for i, a in enumerate(f):
        for j, b in enumerate(g):
            h[i + j] += a * b
    return h


def rand(bits):
    return rng.getrandbits(bits) * rng.choice([1, -1])


cases = [
    ([5], [-7]),
    ([1, 2], [3, -1]),
    ([0, 0, 0], [1, 2, 3]),
    ([2**1024 - 1] * 37, [-(2**1024 - 1)] * 29),
    ([rand(300) for _ in range(120)], [rand(90) for _ in range(3)]),
    ([rand(2000) for _ in range(5)], [rand(2000) for _ in range(64)]),
]
for f, g in cases:
    h = gd.poly_mul(f if rank == 0 else None, g if rank == 0 else None, comm)
    if rank == 0:
        assert h == schoolbook(f, g), (len(f), len(g))
    else:
        assert h is None

for a, b in [(0, 12345), (-1, 1), (2**64 - 1, -(2**64 - 1)), (rand(200_000), rand(150_000)), (rand(50_000), 3)]:
    r = gd.mul(a if rank == 0 else None, b if rank == 0 else None, comm)
    if rank == 0:
        assert r == a * b

m = rng.getrandbits(512) | 1
bases = [rng.getrandbits(600) for _ in range(101)] + [0, 1, m - 1]
exps = [rng.getrandbits(64) for _ in range(101)] + [0, 5, 2]
r = gd.powm_n(bases if rank == 0 else None, exps if rank == 0 else None, m if rank == 0 else None, comm)
if rank == 0:
    assert r == [pow(x, e, m) for x, e in zip(bases, exps)]
    print("ok", comm.Get_size())
    sys.stdout.flush()
