//! Kronecker packing of signed coefficient vectors ([FM] §3.2–3.2.1, signed digits as FLINT's
//! `fmpz_poly_bit_pack` / `bit_unpack`).
//!
//! Packing: Z = Σ c_i·2^(b·i) with |c_i| < 2^(b−1). The polynomial is first multiplied by the sign
//! of its leading non-zero coefficient, so that Z ≥ 0 (for |c_i| < 2^(b−1), |Σ_{i<s} c_i 2^(bi)| <
//! 2^(bs−1) and the leading coefficient fixes the sign). A negative digit is stored as 2^b + c_i and
//! borrows 1 from the next digit ([Fateman]). Chunks of 64·t coefficients start on limb
//! boundaries and are packed in parallel; the borrow into a chunk is 1 iff the last non-zero
//! coefficient before it is negative.
//!
//! Unpacking: if P = Σ h_k 2^(bk) ≥ 0 with |h_k| < 2^(b−1), then with L_k = Σ_{i<k} h_i 2^(bi),
//! P mod 2^(bk) = L_k + 2^(bk)·[L_k < 0], so the carry into digit k is bit bk−1 of P and
//! h_k ≡ digit_k + carry_k (mod 2^b), read as a signed b-bit number. Every coefficient is
//! independent: the unpacking is parallel over coefficients.
use super::{limbs_for_bits, try_zeroed, IntRef, ZSlab};
use crate::Result;
use rayon::prelude::*;

/// Limbs per packing task below which the work stays on one thread.
const GRAIN_LIMBS: u64 = 1 << 13;

/// Z = Σ c_i·2^(b·i) as (|Z| without high zero limbs, Z < 0). Requires |c_i| < 2^(b−1).
pub fn pack_signed(c: &[IntRef], b: u64) -> Result<(Vec<u64>, bool)> {
    let bits = b.checked_mul(c.len() as u64).filter(|&x| x < 1 << 58);
    let total = limbs_for_bits(bits.ok_or_else(|| crate::Error::SizeTooLarge(format!("{} coefficients of {b} bits", c.len())))?);
    let mut out = try_zeroed(total)?;
    let Some(lead) = c.iter().rposition(|x| !x.is_zero()) else {
        out.clear();
        return Ok((out, false));
    };
    let c = &c[..=lead];
    let flip = c[lead].neg;
    // Chunks of 64·t coefficients = b·t limbs.
    let t = (GRAIN_LIMBS / b).max(1) as usize;
    let chunk = 64 * t;
    if c.len() <= chunk {
        pack_chunk(&mut out, c, b, flip, false);
    } else {
        // borrow[j]: the last non-zero coefficient before chunk j is negative (after the flip).
        let last: Vec<Option<bool>> = c.par_chunks(chunk).map(|cs| cs.iter().rev().find(|x| !x.is_zero()).map(|x| x.neg != flip)).collect();
        let mut borrow = Vec::with_capacity(last.len());
        let mut cur = false;
        for l in &last {
            borrow.push(cur);
            cur = l.unwrap_or(cur);
        }
        out.par_chunks_mut(b as usize * t)
            .zip(c.par_chunks(chunk))
            .zip(borrow.par_iter())
            .for_each(|((o, cs), &br)| pack_chunk(o, cs, b, flip, br));
    }
    let n = out.iter().rposition(|&l| l != 0).map_or(0, |i| i + 1);
    out.truncate(n);
    Ok((out, flip))
}

/// ORs the digits of `c` (signs flipped if `flip`) into `out` (zero on entry), starting at bit 0,
/// with a borrow in; the region is b·c.len() bits.
fn pack_chunk(out: &mut [u64], c: &[IntRef], b: u64, flip: bool, mut borrow: bool) {
    let nl = limbs_for_bits(b);
    let top_mask = if b.is_multiple_of(64) { !0 } else { (1u64 << (b % 64)) - 1 };
    let mut pos = 0u64;
    for x in c {
        let m = x.mag;
        let put = |out: &mut [u64], t: usize, v: u64| {
            let bit = pos + 64 * t as u64;
            let (q, r) = ((bit / 64) as usize, bit % 64);
            out[q] |= v << r;
            if r != 0 && v >> (64 - r) != 0 {
                out[q + 1] |= v >> (64 - r);
            }
        };
        if m.is_empty() {
            // 0 − borrow: 2^b − 1 or nothing.
            if borrow {
                for t in 0..nl {
                    put(out, t, if t + 1 == nl { top_mask } else { !0 });
                }
            }
        } else if x.neg == flip {
            // Positive digit m − borrow (m ≥ 1, no borrow out).
            let mut br = borrow as u64;
            for (t, &l) in m.iter().enumerate() {
                let v = l.wrapping_sub(br);
                br = (l < br) as u64;
                if v != 0 {
                    put(out, t, v);
                }
            }
            borrow = false;
        } else {
            // Negative digit 2^b − m − borrow = (~m mod 2^b) + 1 − borrow; borrow out.
            let mut cy = !borrow as u64;
            for t in 0..nl {
                let l = m.get(t).copied().unwrap_or(0);
                let (mut v, c) = (!l).overflowing_add(cy);
                cy = c as u64;
                if t + 1 == nl {
                    v &= top_mask;
                }
                if v != 0 {
                    put(out, t, v);
                }
            }
            borrow = true;
        }
        pos += b;
    }
}

/// Fills every element of `h` with the signed b-bit digits of (−1)^neg·P, P = Σ h_k 2^(bk) ≥ 0
/// (limbs of P past its end read as zero). Requires |h_k| < 2^(b−1) ≤ 2^(64·h.stride()).
pub fn unpack_signed(h: &mut ZSlab, p: &[u64], neg: bool, b: u64) {
    let nl = limbs_for_bits(b);
    let grain = (GRAIN_LIMBS as usize / nl).max(1);
    h.par_rows_mut().enumerate().with_min_len(grain).for_each_init(
        || vec![0u64; nl],
        |d, (k, (row, sign))| {
            let pos = b * k as u64;
            read_bits(p, pos, b, d);
            let carry = k > 0 && bit(p, pos - 1);
            if carry {
                for l in d.iter_mut() {
                    *l = l.wrapping_add(1);
                    if *l != 0 {
                        break;
                    }
                }
                mask(d, b);
            }
            let negative = bit(d, b - 1);
            if negative {
                super::negate_in_place(d);
                mask(d, b);
            }
            let n = row.len().min(nl);
            debug_assert!(d[n..].iter().all(|&l| l == 0), "digit wider than the stride");
            row[..n].copy_from_slice(&d[..n]);
            row[n..].fill(0);
            let nonzero = d.iter().any(|&l| l != 0);
            *sign = nonzero && (negative != neg);
        },
    );
}

/// Bit i of p (zero past the end).
fn bit(p: &[u64], i: u64) -> bool {
    p.get((i / 64) as usize).is_some_and(|&l| (l >> (i % 64)) & 1 == 1)
}

/// d ← bits [pos, pos + b) of p (zero past the end); d has limbs_for_bits(b) limbs.
fn read_bits(p: &[u64], pos: u64, b: u64, d: &mut [u64]) {
    let (q, r) = ((pos / 64) as usize, pos % 64);
    let at = |i: usize| p.get(i).copied().unwrap_or(0);
    for (t, l) in d.iter_mut().enumerate() {
        *l = if r == 0 { at(q + t) } else { (at(q + t) >> r) | (at(q + t + 1) << (64 - r)) };
    }
    mask(d, b);
}

/// Clears the bits of d at and above bit b (d has limbs_for_bits(b) limbs).
fn mask(d: &mut [u64], b: u64) {
    if !b.is_multiple_of(64) {
        if let Some(top) = d.last_mut() {
            *top &= (1u64 << (b % 64)) - 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{poly, views, Mpz, Rng};
    use gmp_mpfr_sys::gmp;

    /// Σ c_i 2^(bi) by mpz arithmetic.
    fn oracle_pack(c: &[IntRef], b: u64) -> Mpz {
        let mut z = Mpz::new();
        for x in c.iter().rev() {
            let t = Mpz::from_coef(*x);
            // SAFETY: all initialised.
            unsafe {
                gmp::mpz_mul_2exp(&mut z.0, &z.0, b);
                gmp::mpz_add(&mut z.0, &z.0, &t.0);
            }
        }
        z
    }

    fn check(c: &[IntRef], b: u64) {
        let (m, neg) = pack_signed(c, b).unwrap();
        let want = oracle_pack(c, b).to_coef();
        assert_eq!((neg, m.clone()), want, "pack, b = {b}, len {}", c.len());
        let stride = limbs_for_bits(b - 1);
        let mut h = ZSlab::zeros(c.len(), stride).unwrap();
        unpack_signed(&mut h, &m, neg, b);
        for (k, x) in c.iter().enumerate() {
            assert_eq!(h.get(k), *x, "unpack coefficient {k}, b = {b}");
        }
    }

    #[test]
    fn pack_unpack_round_trip() {
        let mut rng = Rng(17);
        for &bits in &[1u64, 2, 63, 64, 65, 127, 128, 200, 1000] {
            for &b in &[bits + 1, bits + 2, bits + 63, bits + 64, bits + 65] {
                for &len in &[1usize, 2, 3, 64, 65, 200, 5000] {
                    if len * b as usize > 200_000 {
                        continue; // the mpz oracle is quadratic
                    }
                    for style in 0..4 {
                        // Style 3 has one coefficient of 20·bb bits.
                        let bb = if style == 3 { bits.min((b - 1) / 20) } else { bits };
                        if bb == 0 {
                            continue;
                        }
                        let p = poly(&mut rng, len, bb, style);
                        check(&views(&p), b);
                    }
                }
            }
        }
    }

    #[test]
    fn pack_adversarial() {
        // Zeros, negative runs over chunk boundaries, ±(2^(b−1) − 1).
        let ones = vec![u64::MAX; 2];
        let one = [1u64];
        let n = 70_000;
        let cases: Vec<Vec<IntRef>> = vec![
            vec![IntRef::ZERO; 5],
            (0..n).map(|i| if i == 3 { IntRef::new(true, &one) } else { IntRef::ZERO }).collect(),
            (0..n).map(|i| if i == 3 || i == n - 1 { IntRef::new(true, &one) } else { IntRef::ZERO }).collect(),
            (0..n).map(|i| IntRef::new(i % 3 != 0, &ones)).collect(),
            (0..n).map(|i| if i % 7000 == 5 { IntRef::new(i % 2 == 0, &ones) } else { IntRef::ZERO }).collect(),
        ];
        for c in &cases {
            check(c, 129);
            check(c, 192);
        }
    }
}
