"""The multi-modular phases (mod_primes, crt, poly_mul_primes) against Python ints: residues by %,
values by their residues and range, and the product through the primes against the schoolbook
product, on random and adversarial values."""
import random

import pytest

import gpmp

P50 = gpmp.poly_mul_primes(100, 1024, 100, 1024)
PRIME_LISTS = [[3], [(1 << 63) - 25], [3, 5, 7], P50[:4], P50, [7681, (1 << 63) - 25, 3, P50[0]]]


def values(rng, n, bits):
    edge = [0, 1, -1, 2**bits - 1, -(2**bits - 1), 2**64 - 1, -(2**64)]
    return (edge + [rng.getrandbits(bits) * rng.choice([1, -1]) for _ in range(n)])[:max(n, 1)]


def modulus(primes):
    m = 1
    for p in primes:
        m *= p
    return m


@pytest.mark.parametrize("primes", PRIME_LISTS)
def test_mod_primes_matches_remainders(primes):
    rng = random.Random(1)
    for n, bits in [(1, 64), (7, 100), (40, 3000)]:
        a = values(rng, n, bits)
        r = gpmp.mod_primes(a, primes)
        assert len(r) == len(primes) * len(a)
        assert all(r[j * len(a) + i] == x % p for j, p in enumerate(primes) for i, x in enumerate(a))


@pytest.mark.parametrize("primes", PRIME_LISTS)
def test_crt_ranges_and_round_trip(primes):
    rng = random.Random(2)
    m = modulus(primes)
    n = 30
    res = [[0, 1, p - 1, p // 2, p // 2 + 1] + [rng.randrange(p) for _ in range(n - 5)] for p in primes]
    flat = [x for row in res for x in row]
    for signed in [False, True]:
        x = gpmp.crt(flat, n, primes, signed)
        for i, v in enumerate(x):
            assert all(v % p == res[j][i] for j, p in enumerate(primes))
            assert (2 * abs(v) < m) if signed else (0 <= v < m)
    half = (m - 1) // 2
    a = [0, 1, -1, half, -half] + [rng.randrange(-half, half + 1) for _ in range(20)]
    assert gpmp.crt(gpmp.mod_primes(a, primes), len(a), primes) == a
    u = [0, 1, m - 1] + [rng.randrange(m) for _ in range(20)]
    assert gpmp.crt(gpmp.mod_primes(u, primes), len(u), primes, signed=False) == u


def schoolbook(f, g):
    h = [0] * (len(f) + len(g) - 1)
    for i, a in enumerate(f):
        for j, b in enumerate(g):
            h[i + j] += a * b
    return h


@pytest.mark.parametrize("fl,gl,bits", [(1, 1, 64), (1, 9, 3), (30, 20, 256), (17, 60, 1100)])
def test_product_through_primes(fl, gl, bits):
    rng = random.Random(3)
    f = values(rng, fl, bits)[:fl]
    g = [-(2**bits - 1)] * gl
    primes = gpmp.poly_mul_primes(fl, max(abs(x).bit_length() for x in f), gl, bits)
    rf, rg = memoryview(gpmp.mod_primes(f, primes)), memoryview(gpmp.mod_primes(g, primes))
    rh = []
    for j, p in enumerate(primes):
        rh += gpmp.nmod.poly_mul(rf[j * fl:(j + 1) * fl], rg[j * gl:(j + 1) * gl], p)
    assert gpmp.crt(rh, fl + gl - 1, primes) == schoolbook(f, g)


def test_edges_and_bad_input():
    assert gpmp.poly_mul_primes(0, 64, 5, 64) == [] and gpmp.poly_mul_primes(5, 0, 5, 64) == []
    assert gpmp.crt([], 3, []) == [0, 0, 0]
    assert len(gpmp.mod_primes([], [3, 5])) == 0
    for bad in [[2], [9], [3, 3], [1 << 63]]:
        with pytest.raises(ValueError):
            gpmp.mod_primes([5], bad)
        with pytest.raises(ValueError):
            gpmp.crt([0] * len(bad), 1, bad)
    with pytest.raises(ValueError):
        gpmp.crt([3], 1, [3])
    with pytest.raises(OverflowError):
        gpmp.poly_mul_primes(2, 60000, 2, 60000)
