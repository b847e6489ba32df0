"""Integers in and out, products and element-wise operations against Python ints, gmpy2 and
python-flint (independent oracles), on random and adversarial values."""
import random
import sys
import threading
import time

import gmpy2
import pytest

import gpmp

ALGS = ["auto", "schoolbook", "kronecker", "divide_conquer", "toom4", "toom8", "two_convolution",
        "small_prime_ntt", "big_prime_fft"]


def edge_values():
    """Zero, ±1, digit and limb boundaries (30-bit digits, 64-bit limbs), all-ones limbs."""
    vals = [0, 1, -1, 2, -2]
    for b in [29, 30, 31, 59, 60, 61, 63, 64, 65, 90, 120, 127, 128, 129, 192, 240, 256, 960, 1000, 4096]:
        for v in [2**b - 1, 2**b, 2**b + 1]:
            vals += [v, -v]
    return vals


def rand_int(rng, bits):
    if bits == 0:
        return 0
    v = rng.getrandbits(bits)
    return -v if rng.random() < 0.5 else v


def rand_list(rng, n, bits):
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.05:
            out.append(0)
        elif r < 0.1:
            out.append(rng.choice([1, -1, 2**64 - 1, -(2**64 - 1), 2**bits - 1, -(2**bits - 1)]))
        else:
            out.append(rand_int(rng, rng.randint(1, bits)))
    return out


def schoolbook(f, g):
    if not f or not g:
        return []
    h = [0] * (len(f) + len(g) - 1)
    for i, a in enumerate(f):
        if a:
            for j, b in enumerate(g):
                h[i + j] += a * b
    return h


def test_fast_int_paths_are_in_use():
    paths = gpmp._gpmp._int_paths()
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 15):
        print(f"skipped: {sys.implementation.name} {sys.version_info[:2]} uses the portable int path", file=sys.stderr)
        return
    assert paths == ("raw", "raw")


def test_round_trip_of_edge_values():
    vals = edge_values()
    # poly_mul by [1] returns each value unchanged: read in, written out.
    assert gpmp.poly_mul(vals, [1], alg="schoolbook") == vals
    assert gpmp.poly_mul([gmpy2.mpz(v) for v in vals], [1], alg="schoolbook") == vals
    big = [3**200000, -(7**100000), 2**(64 * 3000) - 1]
    assert gpmp.poly_mul(big, [1], alg="schoolbook") == big
    out = gpmp.poly_mul(vals, [1], alg="schoolbook")
    assert all(type(x) is int for x in out)


def test_inputs_of_every_kind():
    f = [3, -5, 2**100]
    want = schoolbook(f, [7, 1])
    np = pytest.importorskip("numpy")
    flint = pytest.importorskip("flint")
    for g in ([7, 1], (7, 1), iter([7, 1]), [gmpy2.mpz(7), gmpy2.mpz(1)], [gmpy2.xmpz(7), True],
              [np.int64(7), np.uint8(1)], [flint.fmpz(7), flint.fmpz(1)]):
        assert gpmp.poly_mul(f, g) == want
    with pytest.raises(TypeError):
        gpmp.poly_mul(f, [1.5])
    with pytest.raises(TypeError):
        gpmp.poly_mul(f, 5)
    with pytest.raises(TypeError):
        gpmp.poly_mul(f, ["1"])


@pytest.mark.parametrize("alg", ALGS)
def test_poly_mul_every_algorithm_against_flint(alg):
    flint = pytest.importorskip("flint")
    rng = random.Random(hash(alg) & 0xFFFF)
    cases = [(1, 1, 64), (1, 7, 300), (5, 3, 1), (17, 33, 64), (64, 64, 256), (100, 3, 1000), (300, 257, 130),
             (40, 40, 3000), (1000, 1000, 64)]
    for fl, gl, bits in cases:
        f, g = rand_list(rng, fl, bits), rand_list(rng, gl, bits)
        want = [int(c) for c in (flint.fmpz_poly(f) * flint.fmpz_poly(g)).coeffs()]
        got = gpmp.poly_mul(f, g, alg=alg)
        # flint drops the zero leading coefficients; gpmp returns all len(f)+len(g)-1.
        assert len(got) == fl + gl - 1
        assert got[:len(want)] == want and all(c == 0 for c in got[len(want):]), (alg, fl, gl, bits)


def test_poly_mul_edges():
    assert gpmp.poly_mul([], [1, 2]) == []
    assert gpmp.poly_mul([1, 2], []) == []
    assert gpmp.poly_mul([0, 0], [0]) == [0, 0]
    ones = [2**64 - 1] * 50
    assert gpmp.poly_mul(ones, ones) == schoolbook(ones, ones)
    neg = [-(2**192 - 1)] * 9
    assert gpmp.poly_mul(neg, ones) == schoolbook(neg, ones)
    # the same list twice, and gmpy2 against int
    f = rand_list(random.Random(5), 200, 500)
    assert gpmp.poly_mul(f, f) == schoolbook(f, f)
    assert gpmp.poly_sqr(f) == schoolbook(f, f)
    assert gpmp.poly_sqr([]) == []
    assert gpmp.poly_mul([gmpy2.mpz(x) for x in f], f) == schoolbook(f, f)
    with pytest.raises(ValueError, match="unknown algorithm"):
        gpmp.poly_mul(f, f, alg="fastest")


def test_long_products_against_flint():
    flint = pytest.importorskip("flint")
    rng = random.Random(11)
    for n, bits in [(1 << 13, 256), (5000, 64), (3000, 2000)]:
        f, g = rand_list(rng, n, bits), rand_list(rng, n // 3 + 1, bits)
        want = [int(c) for c in (flint.fmpz_poly(f) * flint.fmpz_poly(g)).coeffs()]
        got = gpmp.poly_mul(f, g)
        assert got[:len(want)] == want and not any(got[len(want):])


def test_thread_counts_give_the_same_products():
    f = rand_list(random.Random(3), 3000, 300)
    want = gpmp.poly_mul(f, f)
    old = gpmp.get_num_threads()
    try:
        for n in [1, 2, 3]:
            gpmp.set_num_threads(n)
            assert gpmp.get_num_threads() == n
            assert gpmp.poly_mul(f, f) == want
    finally:
        gpmp.set_num_threads(old)


def test_mul_and_sqr():
    rng = random.Random(7)
    vals = edge_values() + [rand_int(rng, b) for b in [100, 5000, 60000, 200000]]
    for a in vals[::3]:
        for b in vals[::5]:
            assert gpmp.mul(a, b) == a * b
    for a in vals:
        assert gpmp.sqr(a) == a * a
    a, b = rand_int(rng, 10**6), rand_int(rng, 7 * 10**5)  # the NTT product
    assert gpmp.mul(a, b) == a * b
    assert gpmp.mul(gmpy2.mpz(a), b) == a * b
    assert gpmp.sqr(gmpy2.mpz(b)) == b * b
    assert type(gpmp.mul(gmpy2.mpz(3), 4)) is int


def test_elementwise_against_python():
    rng = random.Random(9)
    n = 5000
    a = rand_list(rng, n, 700)
    b = rand_list(rng, n, 300)
    c = rand_list(rng, n, 1000)
    assert gpmp.add_n(a, b) == [x + y for x, y in zip(a, b)]
    assert gpmp.sub_n(a, b) == [x - y for x, y in zip(a, b)]
    assert gpmp.mul_n(a, b) == [x * y for x, y in zip(a, b)]
    assert gpmp.addmul_n(c, a, b) == [z + x * y for z, x, y in zip(c, a, b)]
    assert gpmp.mul_n([gmpy2.mpz(x) for x in a], b) == [x * y for x, y in zip(a, b)]
    assert gpmp.add_n([], []) == []
    with pytest.raises(ValueError):
        gpmp.add_n([1, 2], [1])


@pytest.mark.parametrize("m", [2, 3, 2**64 - 59, 2**64, 2**127 - 1, 2**521 - 1, 10**300 + 7, 2**1000, 3**700])
def test_modular_against_python(m):
    rng = random.Random(m % 1000)
    n = 300
    a = rand_list(rng, n, m.bit_length() + 70) + [0, -1, m - 1, -m, m]
    b = rand_list(rng, n, m.bit_length()) + [m - 1, m, 1, 0, -(m + 1)]
    e = [abs(x) for x in rand_list(rng, n, 80)] + [0, 1, 2, m, 2**64]
    assert gpmp.addmod_n(a, b, m) == [(x + y) % m for x, y in zip(a, b)]
    assert gpmp.submod_n(a, b, m) == [(x - y) % m for x, y in zip(a, b)]
    assert gpmp.mulmod_n(a, b, m) == [(x * y) % m for x, y in zip(a, b)]
    assert gpmp.powm_n(a, e, m) == [pow(x, y, m) for x, y in zip(a, e)]
    assert gpmp.powm_n([gmpy2.mpz(x) for x in a], e, gmpy2.mpz(m)) == [int(gmpy2.powmod(x, y, m)) for x, y in zip(a, e)]


def test_modular_errors():
    for bad in [1, 0, -5]:
        with pytest.raises(ValueError, match="modulus"):
            gpmp.mulmod_n([1], [1], bad)
    with pytest.raises(ValueError):
        gpmp.powm_n([2], [-1], 7)


def test_gil_is_released_while_computing():
    f = rand_list(random.Random(1), 1 << 15, 256)
    old = gpmp.get_num_threads()
    gpmp.set_num_threads(1)
    done = threading.Event()
    out = []

    def work():
        for _ in range(3):
            out.append(gpmp.poly_mul(f, f))
        done.set()

    t = threading.Thread(target=work)
    try:
        t.start()
        ticks = 0
        while not done.is_set():
            ticks += 1
            time.sleep(0.0005)
        t.join()
    finally:
        gpmp.set_num_threads(old)
    # With the GIL held during the products this thread would run only between the calls.
    assert ticks >= 20, ticks
    assert out[0] == out[2]
