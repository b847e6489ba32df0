"""Word-size prime fields Z/pZ (p an odd prime < 2^63): Fourier primes, roots of unity, NTTs and
polynomial products. Word vectors are lists of ints or uint64 buffers (numpy arrays,
``array.array("Q")``); a writable buffer is transformed in place."""
from ._gpmp import nmod as _nmod

fourier_prime = _nmod.fourier_prime
primitive_root = _nmod.primitive_root
ntt = _nmod.ntt
intt = _nmod.intt
ntt_many = _nmod.ntt_many
poly_mul = _nmod.poly_mul

__all__ = ["fourier_prime", "primitive_root", "ntt", "intt", "ntt_many", "poly_mul"]
