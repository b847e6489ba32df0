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
    cuda_devices,
    get_backend,
    get_num_threads,
    mul,
    mul_n,
    mulmod_n,
    poly_mul,
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

__version__ = version()
__all__ = [
    "Gfpf",
    "ZVec",
    "add_n",
    "addmod_n",
    "addmul_n",
    "cuda_devices",
    "get_backend",
    "get_num_threads",
    "mul",
    "mul_n",
    "mulmod_n",
    "nmod",
    "poly_mul",
    "poly_sqr",
    "powm_n",
    "set_backend",
    "set_num_threads",
    "sqr",
    "sub_n",
    "submod_n",
]
