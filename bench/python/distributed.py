"""gpmp.distributed.poly_mul on the ranks of COMM_WORLD, time per phase and bytes communicated,
against gpmp.poly_mul on one process (the same product, checked equal).

    mpiexec -n R python3 bench/python/distributed.py --len 2^16 --bits 1024 [--runs 3]

Each rank runs with GPMP_NUM_THREADS as set in the environment. Phases (seconds, the slowest rank's,
best of --runs): bcast (inputs from rank 0), reduce (mod_primes of f and g for the rank's primes),
products (nmod.poly_mul per prime), pack (the send buffer), alltoallv, crt (the rank's block),
gather (the product's ints to rank 0). Bytes: residue words sent by all ranks together in the
Alltoallv (8·k·n·(R − 1)/R). Prints one markdown row on rank 0.
"""
import argparse
import random
import time

from mpi4py import MPI

import gpmp
import gpmp.distributed as gd

PHASES = ["bcast", "reduce", "products", "pack", "alltoallv", "crt", "gather"]


def size_arg(s):
    return 2 ** int(s[2:]) if s.startswith("2^") else int(s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--len", type=size_arg, default=1 << 14)
    ap.add_argument("--bits", type=int, default=1024)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--local", action="store_true", help="also time gpmp.poly_mul on rank 0 alone (best of --runs)")
    args = ap.parse_args()
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    n, bits = args.len, args.bits
    f = g = None
    if rank == 0:
        rng = random.Random(1)
        top = 1 << (bits - 1)
        f = [(rng.getrandbits(bits - 1) | top) * rng.choice([1, -1]) for _ in range(n)]
        g = [(rng.getrandbits(bits - 1) | top) * rng.choice([1, -1]) for _ in range(n)]
    best = None
    for _ in range(args.runs):
        t = {}
        comm.Barrier()
        t0 = time.perf_counter()
        h = gd.poly_mul(f, g, comm, timings=t)
        total = time.perf_counter() - t0
        phases = [t.get(p, 0.0) for p in PHASES]
        rows = comm.gather((phases, t.get("bytes_sent", 0), total), root=0)
        if rank == 0:
            worst = [max(r[0][i] for r in rows) for i in range(len(PHASES))]
            sent, total = sum(r[1] for r in rows), max(r[2] for r in rows)
            if best is None or total < best[0]:
                best = (total, worst, sent)
    local = None
    if rank == 0 and args.local:
        for _ in range(args.runs):
            t0 = time.perf_counter()
            want = gpmp.poly_mul(f, g)
            t = time.perf_counter() - t0
            local = t if local is None else min(local, t)
        assert want == h, "the distributed product differs from gpmp.poly_mul"
    if rank == 0:
        k = len(gpmp.poly_mul_primes(n, bits, n, bits))
        total, worst, sent = best
        cells = " | ".join(f"{x:.3f}" for x in worst)
        loc = f"{local:.3f}" if local is not None else "–"
        print(f"| {size} | {n} | {bits} | {k} | {cells} | {total:.3f} | {sent / 2**20:.1f} | {loc} |", flush=True)


if __name__ == "__main__":
    main()
