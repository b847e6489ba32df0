"""gpmp.nmod, gpmp.Gfpf, gpmp.ZVec and the runtime settings, against naive transforms, Python's
modular arithmetic and python-flint's nmod_poly."""
import array
import random
import sys

import pytest

import gpmp
from gpmp import nmod


def naive_dft(x, w, p):
    n = len(x)
    return [sum(x[j] * pow(w, i * j, p) for j in range(n)) % p for i in range(n)]


def test_fourier_primes_and_roots():
    for bits in [20, 31, 50, 62, 63]:
        seen = set()
        for i in range(3):
            p = nmod.fourier_prime(bits, i)
            assert p < 2**bits and p % 2 == 1 and p not in seen
            seen.add(p)
            assert all(pow(a, p - 1, p) == 1 for a in [2, 3, 5, 7])
            k = ((p - 1) & -(p - 1)).bit_length() - 1
            for n in [2, 1 << min(k, 10)]:
                w = nmod.primitive_root(n, p)
                assert pow(w, n, p) == 1 and pow(w, n // 2, p) == p - 1
    with pytest.raises(ValueError):
        nmod.fourier_prime(10, 0)
    with pytest.raises(ValueError):
        nmod.primitive_root(3, 97)
    with pytest.raises(ValueError):
        nmod.primitive_root(2, 91)


@pytest.mark.parametrize("bits", [31, 50, 62])
def test_ntt_lists_and_buffers(bits):
    np = pytest.importorskip("numpy")
    rng = random.Random(bits)
    p = nmod.fourier_prime(bits, 0)
    for n in [1, 2, 8, 64, 256]:
        w = nmod.primitive_root(n, p) if n > 1 else 1
        x = [rng.randrange(p) for _ in range(n)]
        x[0] = p - 1
        want = naive_dft(x, w, p)
        assert nmod.ntt(x, w, p) == want
        assert nmod.intt(want, w, p) == x
        a = np.array(x, dtype=np.uint64)
        assert nmod.ntt(a, w, p) is a and a.tolist() == want
        nmod.intt(a, w, p)
        assert a.tolist() == x
        q = array.array("Q", x)
        nmod.ntt(q, w, p)
        assert q.tolist() == want
    n, rows = 16, 5
    w = nmod.primitive_root(n, p)
    x = [rng.randrange(p) for _ in range(n * rows)]
    a = np.array(x, dtype=np.uint64)
    nmod.ntt_many(a, n, w, p)
    assert a.tolist() == sum((naive_dft(x[r * n:(r + 1) * n], w, p) for r in range(rows)), [])


def test_ntt_errors_leave_buffers_untouched():
    np = pytest.importorskip("numpy")
    p = nmod.fourier_prime(50, 0)
    w = nmod.primitive_root(8, p)
    a = np.array([1, 2, 3, p, 5, 6, 7, 8], dtype=np.uint64)  # p is unreduced
    with pytest.raises(ValueError):
        nmod.ntt(a, w, p)
    assert a.tolist() == [1, 2, 3, p, 5, 6, 7, 8]
    with pytest.raises(ValueError):
        nmod.ntt([], w, p)
    with pytest.raises(ValueError):
        nmod.ntt([1, 2, 3], w, p)  # not a power of two
    ro = np.zeros(8, dtype=np.uint64)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        nmod.ntt(ro, w, p)
    with pytest.raises(ValueError):
        nmod.ntt([-1] + [0] * 7, w, p)
    with pytest.raises(ValueError):
        nmod.ntt_many([0] * 12, 8, w, p)


@pytest.mark.parametrize("p", [3, 65537, 2**31 - 1, 1152921504606846883, 9223372036854775783])
def test_nmod_poly_mul_against_flint(p):
    flint = pytest.importorskip("flint")
    np = pytest.importorskip("numpy")
    rng = random.Random(p % 1000)
    for fl, gl in [(1, 1), (3, 7), (100, 100), (2000, 513)]:
        f = [rng.randrange(p) for _ in range(fl)]
        g = [rng.randrange(p) for _ in range(gl)]
        f[-1] = p - 1
        want = [int(c) for c in (flint.nmod_poly(f, p) * flint.nmod_poly(g, p)).coeffs()]
        got = nmod.poly_mul(f, g, p)
        assert got[:len(want)] == want and not any(got[len(want):])
        out = np.zeros(fl + gl - 1, dtype=np.uint64)
        assert nmod.poly_mul(np.array(f, dtype=np.uint64), g, p, out=out) is out
        assert out.tolist() == got
    assert nmod.poly_mul([], [1], p) == []
    with pytest.raises(ValueError):
        nmod.poly_mul([p], [1], p)
    with pytest.raises(ValueError):
        nmod.poly_mul([1], [1], 91)


@pytest.mark.parametrize("k", [2, 8, 16])
def test_gfpf_builtin_fields(k):
    F = gpmp.Gfpf.builtin(k)
    r, p = F.radix, F.prime
    assert F.k == k and p == r**k + 1
    rng = random.Random(k)
    n = 64
    x = [rng.randrange(p) for _ in range(n)] + [0, 1, p - 1, p, -1, -(p + 3), 3 * p + 2]
    y = [rng.randrange(-p, 2 * p) for _ in range(len(x))]
    assert F.add(x, y) == [(a + b) % p for a, b in zip(x, y)]
    assert F.sub(x, y) == [(a - b) % p for a, b in zip(x, y)]
    assert F.mul(x, y) == [(a * b) % p for a, b in zip(x, y)]
    for s in [0, 1, k - 1, k, 2 * k - 1]:
        assert F.mul_pow_r(x, s) == [(a * pow(r, s, p)) % p for a in x]
    with pytest.raises(ValueError):
        F.mul_pow_r(x, 2 * k)
    digits = F.to_digits(x)
    assert all(len(d) == k for d in digits)
    assert F.from_digits(digits) == [a % p for a in x]
    assert F.to_digits([p - 1]) == [[0] * (k - 1) + [r]]
    N = 4 * k
    w = F.root_of_unity(N)
    assert pow(w, N, p) == 1 and pow(w, N // 2, p) == p - 1 and pow(w, N // (2 * k), p) == r
    v = x[:N]
    want = [sum(v[j] * pow(w, i * j, p) for j in range(N)) % p for i in range(N)]
    assert F.dft(v) == want
    assert F.dft(v, w) == want
    assert F.idft(want) == [a % p for a in v]
    f, g = x[:9], y[:5]
    h = [0] * 13
    for i, a in enumerate(f):
        for j, b in enumerate(g):
            h[i + j] += a * b
    assert F.poly_mul(f, g) == [c % p for c in h]
    with pytest.raises(ValueError):
        F.dft(x[:3])


def test_gfpf_new_and_errors():
    F = gpmp.Gfpf.builtin(8)
    G = gpmp.Gfpf(F.radix, 8)
    assert G.prime == F.prime and "Gfpf" in repr(G)
    with pytest.raises(ValueError):
        gpmp.Gfpf(10, 3)
    with pytest.raises(ValueError):
        gpmp.Gfpf(12, 4)  # 12^4 + 1 = 20737 = 89 * 233
    with pytest.raises(ValueError):
        F.from_digits([[F.radix] + [0] * 7])
    with pytest.raises(ValueError):
        F.add([1, 2], [3])


def test_zvec_operations_and_aliasing():
    rng = random.Random(21)
    n, bits = 300, 200
    a = [rng.randrange(-2**bits + 1, 2**bits) for _ in range(n)]
    b = [rng.randrange(-2**(bits - 1), 2**(bits - 1)) for _ in range(n)]
    m = 2**127 - 1
    with gpmp.ZVec(n, bits) as va, gpmp.ZVec(n, bits) as vb, gpmp.ZVec(n, 2 * bits + 1) as r:
        assert len(va) == n and va.bits == bits and va.on_device in (True, False)
        va.set(a)
        vb.set(b)
        assert va.get() == a
        r.add(va, vb)
        assert r.get() == [x + y for x, y in zip(a, b)]
        r.sub(va, vb)
        assert r.get() == [x - y for x, y in zip(a, b)]
        r.mul(va, vb)
        assert r.get() == [x * y for x, y in zip(a, b)]
        r.mulmod(va, vb, m)
        assert r.get() == [x * y % m for x, y in zip(a, b)]
        e = [abs(x) % 1000 for x in b]
        vb.set(e)
        r.powm(va, vb, m)
        assert r.get() == [pow(x, y, m) for x, y in zip(a, e)]
        r.add(r, r)  # aliasing: r = r + r
        assert r.get() == [2 * pow(x, y, m) for x, y in zip(a, e)]
        with pytest.raises(OverflowError):
            va.mul(va, va)  # 2·bits does not fit in bits
        assert va.get() == a
        with pytest.raises(OverflowError):
            va.set([2**bits] + a[1:])
        assert va.get() == a
        with pytest.raises(ValueError):
            va.set(a[1:])
        with pytest.raises(ValueError):
            r.mulmod(va, vb, 1)
        va.synchronize()
    assert va.closed and "closed" in repr(va)
    with pytest.raises(ValueError, match="closed"):
        va.get()
    with pytest.raises(ValueError, match="closed"):
        r.add(va, vb)
    va.close()


def test_runtime_settings():
    assert gpmp.get_backend() in ("auto", "cpu", "gpu")
    assert isinstance(gpmp.cuda_devices(), list)
    old = gpmp.get_backend()
    try:
        gpmp.set_backend("cpu")
        assert gpmp.get_backend() == "cpu"
        assert gpmp.poly_mul([1, 1], [1, -1]) == [1, 0, -1]
        with pytest.raises(ValueError):
            gpmp.set_backend("tpu")
        if not gpmp.cuda_devices():
            with pytest.raises(RuntimeError):
                gpmp.set_backend("gpu")
            assert gpmp.get_backend() == "cpu"
        else:
            print("skipped: the no-device error (a CUDA device is present)", file=sys.stderr)
    finally:
        gpmp.set_backend(old)
    assert gpmp.__version__ == gpmp.version()
