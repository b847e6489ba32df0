//! Overlap-add of signed integers at limb offsets: S = Σ (−1)^neg_i · |x_i| · 2^(64·o_i), the
//! recovery step of block Kronecker products (divide & conquer, Toom-Cook: [FM] Algorithm 5, done
//! on the packed integers so that one signed unpacking follows).
//!
//! S is accumulated in two's complement over a prefix of `top` limbs that grows as terms arrive
//! (in order of offset), with one limb of headroom above every term: after terms with
//! max(o_i + |x_i| limbs) = E, |partial sum| < count · 2^(64E) < 2^(64(E+1)−1), so the prefix holds
//! the exact partial sum and a carry never has to travel past it.
use super::{negate_in_place, normalized, try_zeroed};
use crate::Result;
use gmp_mpfr_sys::gmp;

/// Σ (−1)^neg · mag · 2^(64·off) over `terms` (off, neg, mag), as (|S| without high zero limbs, S < 0).
pub fn sum_shifted(terms: &[(usize, bool, &[u64])]) -> Result<(Vec<u64>, bool)> {
    let n = terms.iter().map(|&(o, _, m)| o + normalized(m).len() + 1).max().unwrap_or(0);
    let mut buf = try_zeroed(n)?;
    let mut order: Vec<usize> = (0..terms.len()).collect();
    order.sort_by_key(|&i| terms[i].0);
    let mut top = 0;
    for i in order {
        let (o, neg, m) = terms[i];
        let m = normalized(m);
        if m.is_empty() {
            continue;
        }
        top = extend(&mut buf, top, o + m.len() + 1);
        let (lo, hi) = buf[o..top].split_at_mut(m.len());
        let len = m.len() as _;
        // SAFETY: lo and m have m.len() limbs; rp == s1p is allowed.
        let mut carry = unsafe {
            if neg {
                gmp::mpn_sub_n(lo.as_mut_ptr(), lo.as_ptr(), m.as_ptr(), len)
            } else {
                gmp::mpn_add_n(lo.as_mut_ptr(), lo.as_ptr(), m.as_ptr(), len)
            }
        } != 0;
        // Carry or borrow into the prefix, modulo 2^(64·top).
        for l in hi.iter_mut() {
            if !carry {
                break;
            }
            if neg {
                *l = l.wrapping_sub(1);
                carry = *l == u64::MAX;
            } else {
                *l = l.wrapping_add(1);
                carry = *l == 0;
            }
        }
    }
    top = extend(&mut buf, top, n);
    debug_assert_eq!(top, n);
    let negative = buf.last().is_some_and(|&t| t >> 63 == 1);
    if negative {
        negate_in_place(&mut buf);
    }
    let len = normalized(&buf).len();
    buf.truncate(len);
    Ok((buf, negative))
}

/// Sign-extends the two's complement prefix buf\[..top\] to `end` limbs; returns the new top.
fn extend(buf: &mut [u64], top: usize, end: usize) -> usize {
    if end <= top {
        return top;
    }
    let fill = if top > 0 && buf[top - 1] >> 63 == 1 { u64::MAX } else { 0 };
    buf[top..end].fill(fill);
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{coef, Mpz, Rng};
    use gmp_mpfr_sys::gmp;

    #[test]
    fn sum_shifted_matches_mpz() {
        let mut rng = Rng(99);
        for round in 0..300 {
            let count = 1 + rng.below(12) as usize;
            let terms: Vec<(usize, (bool, Vec<u64>))> = (0..count)
                .map(|_| {
                    let bits = 1 + rng.below(if round % 2 == 0 { 300 } else { 3000 });
                    let (o, kind) = (rng.below(30) as usize, rng.below(4));
                    (o, coef(&mut rng, bits, kind))
                })
                .collect();
            let refs: Vec<(usize, bool, &[u64])> = terms.iter().map(|(o, (n, m))| (*o, *n, m.as_slice())).collect();
            let (mag, neg) = sum_shifted(&refs).unwrap();
            let mut want = Mpz::new();
            for (o, (n, m)) in &terms {
                let t = Mpz::from_coef(crate::int::IntRef::new(*n, m));
                // SAFETY: all initialised.
                unsafe {
                    let mut s = Mpz::new();
                    gmp::mpz_mul_2exp(&mut s.0, &t.0, 64 * *o as u64);
                    gmp::mpz_add(&mut want.0, &want.0, &s.0);
                }
            }
            assert_eq!((neg, mag), want.to_coef(), "round {round}");
        }
    }
}
