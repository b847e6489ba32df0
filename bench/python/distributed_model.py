"""The cost model of gpmp.distributed.poly_mul on R nodes (one rank each) from the phases measured
on one rank (bench/python/distributed.py), for an n × n product with b-bit coefficients and k
primes:

  T(R) = (T_ser + T_reduce)·s + T_in(R) + (T_products + T_crt + T_py)·s/R + T_a2a(R) + T_out(R)

  T_in  = 2·S_in/BW             inputs to every rank (scatter + allgather broadcast), S_in = 2·n·b/8
  T_a2a = 8·k·h·(R−1)/R² / BW + R·α   each node sends and receives k·h/R words less its own share
  T_out = S_out·(R−1)/R / BW    the product's coefficients to rank 0, S_out = h·(2b + log2 n)/8
  s     = the work ratio from the measured size to the modelled one (n·log2 n for the products,
          n for the reductions, h for the CRT: the same k)

with h = 2n − 1, BW = 100 Gb/s = 12.5e9 B/s, α = 2 µs per message. T_py: the measured pack and
Python conversions, also divided by R. T_ser: what rank 0 does alone at any R (pickling the inputs
for the broadcast and unpickling the gathered product: the bcast and gather phases measured on one
rank, where no byte crosses a network). T_reduce is not divided by R: every rank reads all of the
broadcast Python ints into limbs before reducing them modulo its share of the primes, and that
reading dominates the phase (measured: it barely shrinks from 1 to 4 ranks).

    python3 bench/python/distributed_model.py --measured-len 2^18 --reduce 1.2 --products 3.4 --crt 2.1 --py 0.8 --serial 1.4
"""
import argparse
import math


def size_arg(s):
    return 2 ** int(s[2:]) if s.startswith("2^") else int(s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--measured-len", type=size_arg, required=True)
    ap.add_argument("--len", type=size_arg, default=1 << 22)
    ap.add_argument("--bits", type=int, default=1024)
    ap.add_argument("--k", type=int, default=42)
    ap.add_argument("--reduce", type=float, required=True)
    ap.add_argument("--products", type=float, required=True)
    ap.add_argument("--crt", type=float, required=True)
    ap.add_argument("--py", type=float, default=0.0)
    ap.add_argument("--serial", type=float, default=0.0)
    ap.add_argument("--bw", type=float, default=12.5e9)
    ap.add_argument("--alpha", type=float, default=2e-6)
    a = ap.parse_args()
    m, n, b, k = a.measured_len, a.len, a.bits, a.k
    h = 2 * n - 1
    s_lin = n / m
    s_ntt = (n * math.log2(2 * n)) / (m * math.log2(2 * m))
    compute = a.products * s_ntt + a.crt * s_lin + a.py * s_lin
    s_in = 2 * n * b / 8
    s_out = h * (2 * b + math.log2(n)) / 8
    ser = (a.serial + a.reduce) * s_lin
    print(f"| R | serial: rank 0 alone + reduce (s) | compute/R (s) | bcast (s) | Alltoallv bytes per node | Alltoallv (s) | gather (s) | total (s) | speed-up |")
    print("|---|---|---|---|---|---|---|---|---|")
    t1 = compute + ser
    for r in [1, 2, 4, 16, 64]:
        t_in = 2 * s_in / a.bw if r > 1 else 0.0
        vol = 8 * k * h * (r - 1) / r**2
        t_a2a = vol / a.bw + (r * a.alpha if r > 1 else 0.0)
        t_out = s_out * (r - 1) / r / a.bw
        total = ser + compute / r + t_in + t_a2a + t_out
        print(f"| {r} | {ser:.2f} | {compute / r:.2f} | {t_in:.3f} | {vol / 2**20:.0f} MiB | {t_a2a:.3f} | {t_out:.3f} | {total:.2f} | {t1 / total:.1f}× |")


if __name__ == "__main__":
    main()
