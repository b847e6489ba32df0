//! Integer product by the multi-modular NTT ([`crate::nmod::multimod`]): the limbs of a and b are
//! the coefficients of two polynomials at x = 2^64, their convolution c is computed modulo
//! Fourier primes p < 2^50 and recovered by CRT, then a·b = Σ c_k·2^(64k) by carry propagation.
//!
//! Bound: c_k = Σ_{i+j=k} a_i·b_j with at most m = min(la, lb) terms, each < 2^128, so
//! c_k < m·2^128 ≤ 2^(128 + ⌈log2 m⌉) and primes with M > 2^(128 + ⌈log2 m⌉) recover it exactly:
//! three 50-bit primes (M > 2^149.9) while m ≤ 2^21 (products up to 2^28 bits per operand),
//! four beyond.
use super::ceil_log2;
use crate::nmod::multimod::{convolve, give, take, words_mod as limbs_mod};
use crate::Result;

/// r = a·b for non-empty a, b (r has exactly a.len() + b.len() limbs; a and b may be the same
/// slice, a square).
pub fn ntt_mul(a: &[u64], b: &[u64], r: &mut [u64]) -> Result<()> {
    let (la, lb) = (a.len(), b.len());
    assert!(la > 0 && lb > 0 && r.len() == la + lb);
    let bits = 128 + ceil_log2(la.min(lb));
    let fa = limbs_mod(a);
    let res = if std::ptr::eq(a, b) {
        convolve(bits, la, &fa, la, None)?
    } else {
        convolve(bits, la, &fa, lb, Some(&limbs_mod(b)))?
    };
    let crt = res.crt();
    let w = crt.limbs();
    let mut rows = take(res.len * w)?;
    crt.unsigned_into(&res.data, res.stride, &mut rows);
    // r_t = Σ_j rows[t−j][j] + carry: the coefficient rows overlap in w limbs.
    let mut carry = 0u128;
    for (t, rt) in r.iter_mut().enumerate() {
        let mut s = carry;
        for j in 0..w.min(t + 1) {
            if t - j < res.len {
                s += rows[(t - j) * w + j] as u128;
            }
        }
        *rt = s as u64;
        carry = s >> 64;
    }
    debug_assert_eq!(carry, 0);
    give(rows);
    Ok(())
}
