"""gpmp: parallel big-integer, prime-field and integer-polynomial arithmetic (CPU and NVIDIA GPU).

Integers are Python ``int`` or ``gmpy2.mpz`` (read in place); results are Python ``int``.
Calls release the GIL while they compute. Errors raise ValueError (bad arguments), OverflowError
(sizes beyond gpmp's or GMP's limits), MemoryError or RuntimeError (CUDA, internal).

    >>> import gpmp
    >>> gpmp.poly_mul([1, 2], [3, -1])
    [3, 5, -2]
"""
from ._gpmp import (
    Gfpf,
    ZVec,
    add_n,
    addmod_n,
    addmul_n,
    crt,
    cuda_devices,
    get_backend,
    get_num_threads,
    mul,
    mod_primes_into,
    mul_n,
    mulmod_n,
    poly_mul,
    poly_mul_primes,
    poly_sqr,
    powm_n,
    set_backend,
    set_num_threads,
    sqr,
    sub_n,
    submod_n,
    version,
)
from . import nmod


def mod_primes(a, primes):
    """a[i] mod primes[j] for every element and prime, as an ``array.array("Q")`` of
    len(primes)·len(a) words, prime-major (entry j·len(a) + i); residues in [0, p) for any sign.
    The primes: distinct odd primes below 2^63 (``poly_mul_primes`` gives those of a product)."""
    from array import array

    a = a if isinstance(a, (list, tuple)) else list(a)
    out = array("Q", bytes(8 * len(primes) * len(a)))
    mod_primes_into(a, primes, out)
    return out


__version__ = version()
__all__ = [
    "Gfpf",
    "ZVec",
    "add_n",
    "addmod_n",
    "addmul_n",
    "crt",
    "cuda_devices",
    "get_backend",
    "get_num_threads",
    "mul",
    "mod_primes",
    "mod_primes_into",
    "mul_n",
    "mulmod_n",
    "nmod",
    "poly_mul",
    "poly_mul_primes",
    "poly_sqr",
    "powm_n",
    "set_backend",
    "set_num_threads",
    "sqr",
    "sub_n",
    "submod_n",
]
