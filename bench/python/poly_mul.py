"""gpmp.poly_mul from Python against python-flint's fmpz_poly product and a gmpy2 Kronecker
product, conversions included on every side: each timed call takes lists of Python ints and
returns the product's coefficients as a list of Python ints.

    python3 bench/python/poly_mul.py                 # 2^14 x 2^14 and 2^16 x 2^16, 256-bit coefficients
    python3 bench/python/poly_mul.py --cases 2^12:64,2^16:256 --min-time 1

Needs `pip install ./python gmpy2 python-flint`. Rows (best of R runs, R adaptive):
- gpmp@default, gpmp@1: gpmp.poly_mul at gpmp's default thread count (all cores, or
  GPMP_NUM_THREADS) and at 1 thread;
- gpmp mpz@default: the same with gmpy2.mpz inputs (viewed in place);
- flint@default: fmpz_poly(f) * fmpz_poly(g), then [int(c) for c in h.coeffs()], at python-flint's
  default thread count (flint.ctx.threads, 1 unless changed); flint@N at all cores;
- flint mul only: the product of two fmpz_poly built beforehand (no conversion), for reference;
- gmpy2 kronecker: f and g packed into two gmpy2.mpz at 2^b (b from the coefficient bound), one
  GMP product, the signed coefficients read back.
Every product is checked against gpmp's. Tables go to stdout (markdown), progress to stderr.
"""
import argparse
import os
import platform
import random
import subprocess
import sys
import time

import gmpy2
import flint

import gpmp


def rand_poly(rng, n, bits):
    """n signed coefficients of exactly `bits` bits (top bit set), random signs."""
    top = 1 << (bits - 1)
    return [(rng.getrandbits(bits - 1) | top) * (1 if rng.getrandbits(1) else -1) for _ in range(n)]


def best(fn, min_time, min_runs=3):
    times, out = [], None
    start = time.perf_counter()
    while len(times) < min_runs or time.perf_counter() - start < min_time:
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def flint_product(f, g):
    return [int(c) for c in (flint.fmpz_poly(f) * flint.fmpz_poly(g)).coeffs()]


def kronecker_gmpy2(f, g):
    """f·g by Kronecker substitution with gmpy2: F(2^b)·G(2^b), b > bits of every |h_k| + 1."""
    bound = max(abs(c) for c in f).bit_length() + max(abs(c) for c in g).bit_length() + min(len(f), len(g)).bit_length()
    b = bound + 1
    nbytes = (b + 7) // 8
    b = 8 * nbytes

    def pack(p):
        # Σ c_i 2^(b·i) over signed c_i: the positive and the negative parts packed apart.
        pos = b"".join(c.to_bytes(nbytes, "little") if c > 0 else bytes(nbytes) for c in p)
        neg = b"".join((-c).to_bytes(nbytes, "little") if c < 0 else bytes(nbytes) for c in p)
        return gmpy2.mpz(int.from_bytes(pos, "little")) - gmpy2.mpz(int.from_bytes(neg, "little"))

    h = pack(f) * pack(g)
    n = len(f) + len(g) - 1
    neg = h < 0
    data = int(abs(h)).to_bytes(n * nbytes + 1, "little")
    half = 1 << (b - 1)
    out, carry = [], 0
    for i in range(n):
        c = int.from_bytes(data[i * nbytes:(i + 1) * nbytes], "little") + carry
        if c >= half:  # a negative coefficient borrowed from the next digit
            c -= 1 << b
            carry = 1
        else:
            carry = 0
        out.append(-c if neg else c)
    return out


def parse_cases(s):
    out = []
    for item in s.split(","):
        n, bits = item.split(":")
        n = 2 ** int(n[2:]) if n.startswith("2^") else int(n)
        out.append((n, int(bits)))
    return out


def machine():
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} logical cores, Python {platform.python_version()}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default="2^14:256,2^16:256")
    ap.add_argument("--min-time", type=float, default=0.5)
    ap.add_argument("--no-kronecker", action="store_true", help="skip the gmpy2 Kronecker product")
    args = ap.parse_args()
    ncores = os.cpu_count() or 1
    gpmp_default = gpmp.get_num_threads()
    flint_default = flint.ctx.threads
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = "?"
    print(f"# gpmp.poly_mul from Python, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit}")
    print(f"# {machine()}; gpmp {gpmp.version()} (default threads {gpmp_default}, backend {gpmp.get_backend()}), "
          f"python-flint {flint.__version__} (default threads {flint_default}), gmpy2 {gmpy2.version()}")
    print(f"# command: {' '.join([os.path.basename(sys.executable)] + sys.argv)}")
    print()
    header = ["case", f"gpmp@{gpmp_default} ms", "gpmp@1 ms", f"gpmp mpz@{gpmp_default} ms", f"flint@{flint_default} ms",
              f"flint@{ncores} ms", "flint mul only ms", "gmpy2 kronecker ms",
              f"flint@{flint_default} / gpmp@{gpmp_default}", f"flint@{flint_default} / gpmp@1"]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(["---"] + ["--:"] * (len(header) - 1)) + "|")
    rng = random.Random(42)
    for n, bits in parse_cases(args.cases):
        f, g = rand_poly(rng, n, bits), rand_poly(rng, n, bits)
        fz, gz = [gmpy2.mpz(c) for c in f], [gmpy2.mpz(c) for c in g]
        print(f"{n} x {n}, {bits} bits ...", file=sys.stderr)
        t_gpmp, want = best(lambda: gpmp.poly_mul(f, g), args.min_time)
        gpmp.set_num_threads(1)
        try:
            t_gpmp1, h = best(lambda: gpmp.poly_mul(f, g), args.min_time)
        finally:
            gpmp.set_num_threads(gpmp_default)
        assert h == want
        t_mpz, h = best(lambda: gpmp.poly_mul(fz, gz), args.min_time)
        assert h == want
        t_flint, h = best(lambda: flint_product(f, g), args.min_time)
        assert h == want[:len(h)] and not any(want[len(h):])
        flint.ctx.threads = ncores
        try:
            t_flint_n, h = best(lambda: flint_product(f, g), args.min_time)
        finally:
            flint.ctx.threads = flint_default
        ff, gf = flint.fmpz_poly(f), flint.fmpz_poly(g)
        t_flint_mul, _ = best(lambda: ff * gf, args.min_time)
        if args.no_kronecker:
            t_kron = float("nan")
        else:
            t_kron, h = best(lambda: kronecker_gmpy2(f, g), args.min_time)
            assert h == want
        row = [f"2^{n.bit_length() - 1} x 2^{n.bit_length() - 1}, {bits}-bit" if n & (n - 1) == 0 else f"{n} x {n}, {bits}-bit"]
        row += [f"{1e3 * t:.1f}" for t in (t_gpmp, t_gpmp1, t_mpz, t_flint, t_flint_n, t_flint_mul, t_kron)]
        row += [f"{t_flint / t_gpmp:.2f}", f"{t_flint / t_gpmp1:.2f}"]
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
