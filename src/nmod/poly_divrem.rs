//! Division with remainder in Z/pZ\[x\]: a = q·b + r with deg r < deg b, for b with a nonzero
//! leading coefficient.
//!
//! - Schoolbook while the quotient or the divisor has fewer than
//!   [`NMOD_POLY_DIVREM_NEWTON_MIN_LEN`] coefficients: m·blen Shoup products (m = alen − blen + 1).
//! - Otherwise by Newton ([MCA] Algorithm 9.5): with rev_k(h) = x^k·h(1/x),
//!   rev_(m−1)(q) = rev(a)·rev(b)^(−1) mod x^m (the power series inverse of [`super::inv_series`]
//!   to precision ⌈m/2⌉ and the last Newton step merged with the product by rev(a), Karp–Markstein;
//!   [`newton`] with a kept inverse: a truncated product of [`NttField::mullow`]), and r = a − q·b mod x^(blen−1) from one product
//!   modulo x^N + 1, N = 2^⌈log2(blen − 1)⌉: there coefficient t < blen − 1 holds
//!   Σ_(s≥0) (−1)^s·c_(t+sN) of c = q·b, and every c_j with j ≥ blen − 1 equals a_j (mod p) because
//!   deg r < blen − 1, so c_t = w_t + Σ_(s≥1) (−1)^(s+1)·a_(t+sN).
use super::inv_series::inv_series_with;
use super::ntt_field::NttField;
use super::prime::{check_modulus, check_reduced, invmod};
use super::reduce::Modulus;
use crate::tuning::{NMOD_POLY_DIVREM_NEWTON_MIN_LEN, NMOD_POLY_MUL_SCHOOLBOOK_MAX_LEN};
use crate::{invalid, Result};

/// (q, r) with a = q·b + r: q has alen − blen + 1 entries (none when alen < blen), r has blen − 1.
/// b must be non-empty with b\[blen − 1\] ≠ 0, entries < p, p an odd prime < 2^63; otherwise
/// `InvalidArgument`.
pub fn poly_divrem(a: &[u64], b: &[u64], p: u64) -> Result<(Vec<u64>, Vec<u64>)> {
    check_args(a, b, p)?;
    divrem_checked(a, b, p, None)
}

/// `InvalidArgument` unless p is an odd prime < 2^63, a and b are reduced and b has a nonzero
/// leading coefficient.
pub fn check_args(a: &[u64], b: &[u64], p: u64) -> Result<()> {
    check_modulus(p)?;
    check_reduced(a, p, "a")?;
    check_reduced(b, p, "b")?;
    match b.last() {
        None => invalid!("division by the zero polynomial (blen = 0)"),
        Some(0) => invalid!("the leading coefficient b[{}] of the divisor is zero", b.len() - 1),
        Some(_) => Ok(()),
    }
}

/// [`poly_divrem`] for checked arguments; `field` when the caller has one serving
/// [`field_size`]`(alen, blen)`.
pub fn divrem_checked(a: &[u64], b: &[u64], p: u64, field: Option<&NttField>) -> Result<(Vec<u64>, Vec<u64>)> {
    let blen = b.len();
    if a.len() < blen {
        let mut r = a.to_vec();
        r.resize(blen - 1, 0);
        return Ok((Vec::new(), r));
    }
    let m = a.len() - blen + 1;
    if m.min(blen) < NMOD_POLY_DIVREM_NEWTON_MIN_LEN {
        return Ok(schoolbook(a, b, &Modulus::new(p)));
    }
    let own;
    let field = match field {
        Some(f) => f,
        None => {
            own = NttField::new(p, field_size(a.len(), blen))?;
            &own
        }
    };
    let q = quotient_karp_markstein(field, a, b)?;
    let r = remainder(field, a, b, &q)?;
    Ok((q, r))
}

/// The quotient (m = alen − blen + 1 ≥ 2 coefficients) by Newton's iteration with the last step
/// merged into the product by rev(a) (Karp–Markstein): with R = rev(q), A = rev(a) mod x^m,
/// B = rev(b) mod x^m and g = B^(−1) mod x^k, k = ⌈m/2⌉,
///
///   R_0 = A·g mod x^k,  E = (A − R_0·B)/x^k mod x^(m−k),  R = R_0 + x^k·(E·g mod x^(m−k)),
///
/// since R·B ≡ A mod x^m and m − k ≤ k. Eight transforms of size N = 2^⌈log2(m − 1)⌉ (g's spectrum
/// used twice) where the full inverse and a truncated product of size 2N take eleven halves of that.
/// Modulo x^N + 1 only coefficient 0 of each product is wrapped (m ≤ N + 1): R_0's is
/// A_0·g_0, and (R_0·B)_N, needed when m = N + 1, is c_0 − (the wrapped value at 0).
fn quotient_karp_markstein(field: &NttField, a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
    let m = a.len() - b.len() + 1;
    let k = m.div_ceil(2);
    let md = &field.m;
    let ra: Vec<u64> = a.iter().rev().take(m).copied().collect();
    let rb: Vec<u64> = b.iter().rev().take(m).copied().collect();
    let g = inv_series_with(field, &rb, k)?;
    let n = field.size_for(m - 1)?;
    let (mut s, mut sg, mut sb) = (field.spectrum(n)?, field.spectrum(n)?, field.spectrum(n)?);
    field.fwd(&g, n, &mut sg)?;
    // R_0 = A·g mod x^k: 2k − 1 ≤ N + 1 coefficients, at most c_N wraps onto 0.
    let mut r = vec![0u64; m];
    field.fwd(&ra[..k], n, &mut s)?;
    field.mul(&mut s, &sg, n);
    field.inv_rows(&mut s, n)?;
    field.read(&s, n, 1, &mut r[1..k]);
    r[0] = md.reduce_u128(ra[0] as u128 * g[0] as u128);
    // E_t = A_(k+t) − (R_0·B)_(k+t): k + m − 1 ≤ N + k coefficients, wrapped onto 0 .. k − 1 only.
    field.fwd(&r[..k], n, &mut s)?;
    field.fwd(&rb, n, &mut sb)?;
    field.mul(&mut s, &sb, n);
    field.inv_rows(&mut s, n)?;
    let top = m.min(n);
    let mut e = vec![0u64; m - k];
    field.read(&s, n, k, &mut e[..top - k]);
    if m > n {
        // (R_0·B)_N = c_0 − w_0, c_0 = R_0(0)·B(0).
        let mut w0 = [0u64];
        field.read_signed(&mut s, n, 0, &mut w0);
        e[n - k] = md.sub(md.reduce_u128(r[0] as u128 * rb[0] as u128), w0[0]);
    }
    for (t, v) in e.iter_mut().enumerate() {
        *v = md.sub(ra[k + t], *v);
    }
    // R_1 = E·g mod x^(m−k): m − 1 ≤ N coefficients, exact.
    field.fwd(&e, n, &mut s)?;
    field.mul(&mut s, &sg, n);
    field.inv(&mut s, n, 0, &mut r[k..])?;
    r.reverse();
    Ok(r)
}

/// The transform size a Newton division of alen by blen coefficients needs at most.
pub fn field_size(alen: usize, blen: usize) -> usize {
    let m = alen.saturating_sub(blen) + 1;
    2 * m.max(blen).next_power_of_two()
}

/// q and r from g = rev(b)^(−1) mod x^m (at least m = alen − blen + 1 entries; alen ≥ blen ≥ 2).
pub fn newton(field: &NttField, a: &[u64], b: &[u64], g: &[u64]) -> Result<(Vec<u64>, Vec<u64>)> {
    let blen = b.len();
    let m = a.len() - blen + 1;
    let ra: Vec<u64> = a.iter().rev().take(m).copied().collect();
    let mut q = vec![0u64; m];
    field.mullow(&ra, &g[..m], &mut q, NMOD_POLY_MUL_SCHOOLBOOK_MAX_LEN)?;
    q.reverse();
    let r = remainder(field, a, b, &q)?;
    Ok((q, r))
}

/// r = a − q·b mod x^(blen−1), knowing that deg(a − q·b) < blen − 1.
pub fn remainder(field: &NttField, a: &[u64], b: &[u64], q: &[u64]) -> Result<Vec<u64>> {
    let rl = b.len() - 1;
    let mut r = vec![0u64; rl];
    if rl == 0 {
        return Ok(r);
    }
    let md = &field.m;
    if q.len().min(b.len()) <= NMOD_POLY_MUL_SCHOOLBOOK_MAX_LEN {
        // c mod x^rl directly: Σ q_i·b_(t−i).
        let mut c = vec![0u64; q.len() + b.len() - 1];
        super::ntt_field::schoolbook(q, b, md, &mut c);
        for (t, rt) in r.iter_mut().enumerate() {
            *rt = md.sub(a.get(t).copied().unwrap_or(0), c[t]);
        }
        return Ok(r);
    }
    let n = field.size_for(rl)?;
    let (mut sq, mut sb) = (field.spectrum(n)?, field.spectrum(n)?);
    field.fwd(q, n, &mut sq)?;
    field.fwd(b, n, &mut sb)?;
    field.mul(&mut sq, &sb, n);
    field.inv_signed(&mut sq, n, 0, &mut r)?;
    for (t, rt) in r.iter_mut().enumerate() {
        // c_t = w_t + a_(t+N) − a_(t+2N) + …
        let mut c = *rt;
        let mut s = t + n;
        let mut plus = true;
        while s < a.len() {
            c = if plus { md.add(c, a[s]) } else { md.sub(c, a[s]) };
            plus = !plus;
            s += n;
        }
        *rt = md.sub(a.get(t).copied().unwrap_or(0), c);
    }
    Ok(r)
}

/// Schoolbook division (alen ≥ blen ≥ 1, b\[blen−1\] ≠ 0).
fn schoolbook(a: &[u64], b: &[u64], md: &Modulus) -> (Vec<u64>, Vec<u64>) {
    let blen = b.len();
    let m = a.len() - blen + 1;
    let c = invmod(b[blen - 1], md.p);
    let cs = md.shoup(c);
    let bs: Vec<(u64, u64)> = b[..blen - 1].iter().map(|&v| (v, md.shoup(v))).collect();
    let mut r = a.to_vec();
    let mut q = vec![0u64; m];
    for i in (0..m).rev() {
        let qi = md.mul_shoup(r[i + blen - 1], c, cs);
        q[i] = qi;
        if qi == 0 {
            continue;
        }
        let nq = md.neg(qi);
        for (j, &(bj, bjs)) in bs.iter().enumerate() {
            // r_(i+j) −= q_i·b_j, as r + (−q_i)·b_j.
            r[i + j] = md.add(r[i + j], md.mul_shoup(nq, bj, bjs));
        }
    }
    r.truncate(blen - 1);
    (q, r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nmod::poly_mul::tests::{naive, rand_vec};
    use crate::nmod::prime::fourier_primes;

    /// The schoolbook oracle of the tests: long division one coefficient at a time with `%`.
    fn oracle(a: &[u64], b: &[u64], p: u64) -> (Vec<u64>, Vec<u64>) {
        let blen = b.len();
        let mut r: Vec<u128> = a.iter().map(|&v| v as u128).collect();
        let c = invmod(b[blen - 1], p) as u128;
        let p128 = p as u128;
        let m = (a.len() + 1).saturating_sub(blen);
        let mut q = vec![0u64; m];
        for i in (0..m).rev() {
            let qi = r[i + blen - 1] * c % p128;
            q[i] = qi as u64;
            for j in 0..blen {
                r[i + j] = (r[i + j] + p128 - qi * b[j] as u128 % p128) % p128;
            }
        }
        let mut rr: Vec<u64> = r.iter().map(|&v| v as u64).collect();
        rr.resize(blen - 1, 0);
        rr.truncate(blen - 1);
        (q, rr)
    }

    /// Against schoolbook division and a = q·b + r, for the listed primes, balanced and
    /// unbalanced lengths on both sides of the Newton crossover, blen − 1 a power of two (the
    /// folded divisor), entries p − 1, a shorter than b.
    #[test]
    fn divrem_matches_schoolbook() {
        let primes = [3u64, 257, 65537, (1 << 31) - 1, (1 << 61) - 1, (1 << 63) - 25, fourier_primes(62, 30, 1)[0]];
        let lens = [
            (0usize, 1usize),
            (5, 1),
            (3, 7),
            (7, 7),
            (100, 60),
            (200, 100),
            (257, 129),
            (164, 100),
            (2049, 1025),
            (2048, 1),
            (4100, 2052),
            (1000, 65),
            (1000, 999),
            (2048, 1025),
            (3000, 1000),
            (5000, 200),
        ];
        for &p in &primes {
            for &(al, bl) in &lens {
                for kind in 0..2 {
                    let a = if kind == 0 { rand_vec(al, p, al as u64 + 3) } else { vec![p - 1; al] };
                    let mut b = if kind == 0 { rand_vec(bl, p, 11 * bl as u64) } else { vec![p - 1; bl] };
                    if b[bl - 1] == 0 {
                        b[bl - 1] = 1;
                    }
                    let (q, r) = poly_divrem(&a, &b, p).unwrap();
                    let (wq, wr) = oracle(&a, &b, p);
                    assert_eq!((q.len(), r.len()), (wq.len(), bl - 1), "p = {p}, {al} / {bl}");
                    assert_eq!(q, wq, "q: p = {p}, {al} / {bl}, kind {kind}");
                    assert_eq!(r, wr, "r: p = {p}, {al} / {bl}, kind {kind}");
                    // a = q·b + r.
                    if !q.is_empty() {
                        let mut qb = naive(&q, &b, p);
                        for (i, &v) in r.iter().enumerate() {
                            qb[i] = (qb[i] + v) % p;
                        }
                        assert_eq!(qb, a, "a = qb + r: p = {p}, {al} / {bl}");
                    }
                }
            }
        }
    }

    #[test]
    fn bad_inputs_are_rejected() {
        assert!(poly_divrem(&[1, 2], &[], 7).is_err(), "b = 0");
        assert!(poly_divrem(&[1, 2], &[1, 0], 7).is_err(), "leading zero");
        assert!(poly_divrem(&[1, 7], &[1, 1], 7).is_err(), "unreduced a");
        assert!(poly_divrem(&[1, 2], &[8], 7).is_err(), "unreduced b");
        assert!(poly_divrem(&[1, 2], &[1], 15).is_err(), "composite p");
        assert!(poly_divrem(&[1, 2], &[1], 2).is_err(), "p = 2");
    }
}
