//! Integer product by the multi-modular NTT ([`crate::nmod::convolution`]): the limbs of a and b are
//! the coefficients of two polynomials at x = 2^64, their convolution c is computed modulo
//! Fourier primes p < 2^50 and recovered by CRT, then a·b = Σ c_k·2^(64k) by carry propagation.
//!
//! Bound: c_k = Σ_{i+j=k} a_i·b_j with at most m = min(la, lb) terms, each < 2^128, so
//! c_k < m·2^128 ≤ 2^(128 + ⌈log2 m⌉) and primes with M > 2^(128 + ⌈log2 m⌉) recover it exactly:
//! three 50-bit primes (M > 2^149.9) while m ≤ 2^21 (products up to 2^28 bits per operand),
//! four beyond.
use super::ceil_log2;
use crate::nmod::convolution::{convolve, words_mod as limbs_mod};
use crate::Result;
use rayon::prelude::*;

/// r = a·b for non-empty a, b (r has exactly a.len() + b.len() limbs; a and b may be the same
/// slice, a square).
pub fn ntt_mul(a: &[u64], b: &[u64], r: &mut [u64]) -> Result<()> {
    let (la, lb) = (a.len(), b.len());
    assert!(la > 0 && lb > 0 && r.len() == la + lb);
    let bits = 128 + ceil_log2(la.min(lb));
    let fa = limbs_mod(a);
    let res = if std::ptr::eq(a, b) { convolve(bits, la, &fa, la, None)? } else { convolve(bits, la, &fa, lb, Some(&limbs_mod(b)))? };
    let crt = res.crt();
    let w = crt.limbs();
    // CRT and carry propagation fused, per chunk of CHUNK coefficients in parallel: chunk c sums
    // its coefficients' values (rows of w limbs, coefficient t at limb t) into limbs
    // [c·CHUNK, (c+1)·CHUNK) of r and returns what lies beyond (w + 1 limbs, the last one a carry);
    // the overflows are then added in order, each with its carry chain.
    const CHUNK: usize = 2048;
    let len = res.len;
    let cur = crate::interrupt::current();
    let tails: Vec<Vec<u64>> = r[..len]
        .par_chunks_mut(CHUNK)
        .enumerate()
        .map_init(
            || vec![0u64; CHUNK * w],
            |rows, (c, rc)| {
                if cur.is_stopped() {
                    return Vec::new();
                }
                let rows = &mut rows[..rc.len() * w];
                crt.unsigned_range(&res.data, res.stride, c * CHUNK, rows);
                // Limb t of the chunk's sum is Σ_j rows[t − j][j] plus the carry from limb t − 1.
                let n = rc.len();
                let mut tail = vec![0u64; w + 1];
                let mut carry = 0u128;
                for t in 0..n + w {
                    let mut s = carry;
                    if t + 1 >= w && t < n {
                        for j in 0..w {
                            s += rows[(t - j) * w + j] as u128;
                        }
                    } else {
                        for j in 0..w {
                            if t >= j && t - j < n {
                                s += rows[(t - j) * w + j] as u128;
                            }
                        }
                    }
                    if t < n {
                        rc[t] = s as u64;
                    } else {
                        tail[t - n] = s as u64;
                    }
                    carry = s >> 64;
                }
                tail[w] = carry as u64;
                tail
            },
        )
        .collect();
    cur.check()?;
    r[len..].fill(0);
    for (c, tail) in tails.iter().enumerate() {
        let mut carry = false;
        let at = ((c + 1) * CHUNK).min(len);
        for (i, x) in r[at..].iter_mut().enumerate() {
            let y = tail.get(i).copied().unwrap_or(0);
            if i >= tail.len() && !carry {
                break;
            }
            let (s1, c1) = x.overflowing_add(y);
            let (s2, c2) = s1.overflowing_add(carry as u64);
            *x = s2;
            carry = c1 | c2;
        }
        debug_assert!(!carry, "product wider than a.len() + b.len() limbs");
    }
    Ok(())
}
