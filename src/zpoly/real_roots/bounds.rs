//! An upper bound 2^K on the positive roots: the local-max-quadratic bound (LMQ) of Akritas,
//! Strzeboński and Vigklas ([ASV] §3; FLINT's `_fmpz_poly_positive_root_upper_bound_2exp`, SLV's
//! `slv_poly_root_upper_bound_2exp`), on bit sizes only.
//!
//! With the leading coefficient taken positive, every positive root x satisfies
//! x ≤ max over a_i < 0 of min over a_j > 0, j > i, of (2^(t_j)·|a_i|/a_j)^(1/(j − i)), where t_j
//! counts how often a_j has been used (starting at 1, incremented for the j attaining each min).
//! Each term is bounded above with ⌈log2 |a_i|⌉ and ⌊log2 a_j⌋, so the K returned satisfies
//! every positive root ≤ 2^K.
use crate::int::IntRef;

/// K with every positive root of p at most 2^K, or `None` when p has no sign variation (then no
/// positive root, Descartes). p trimmed (nonzero leading coefficient), any length.
pub fn positive_root_bound_2exp(p: &[IntRef]) -> Option<i64> {
    let n = p.len();
    if n < 2 {
        return None;
    }
    let sgn = p[n - 1].neg;
    // t_j for the coefficients of the leading sign (starting at 1).
    let mut used = vec![1i64; n];
    let mut k: Option<i64> = None;
    for i in (0..n - 1).rev() {
        let a = p[i];
        if a.is_zero() || a.neg == sgn {
            continue;
        }
        let clog = clog2(a.mag);
        let mut best: Option<(i64, usize)> = None;
        for j in i + 1..n {
            let b = p[j];
            if b.is_zero() || b.neg != sgn {
                continue;
            }
            let num = used[j] + clog - (b.bits() as i64 - 1);
            let den = (j - i) as i64;
            let v = (num + den - 1).div_euclid(den);
            if best.is_none_or(|(bv, _)| v < bv) {
                best = Some((v, j));
                if k.is_some_and(|k| v < k) {
                    break;
                }
            }
        }
        let (v, j) = best.expect("the leading coefficient has the leading sign");
        k = Some(k.map_or(v, |k| k.max(v)));
        used[j] += 1;
    }
    k
}

/// ⌈log2 m⌉ for a nonzero magnitude.
fn clog2(m: &[u64]) -> i64 {
    let bits = crate::int::mag_bits(m) as i64;
    let pow2 = m.last().is_some_and(|t| t.is_power_of_two()) && m[..m.len() - 1].iter().all(|&l| l == 0);
    if pow2 {
        bits - 1
    } else {
        bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{poly, views, Mpz, Rng};
    use gmp_mpfr_sys::gmp;

    /// p(2^K·s) has the sign of the leading coefficient for s = 1, 1.5, 2, …: no positive root
    /// beyond 2^K is seen on a geometric grid, and for polynomials ∏(x − r_i) the largest r_i ≤ 2^K.
    #[test]
    fn bound_holds_on_products_of_linear_factors() {
        let mut rng = Rng(8);
        for round in 0..200 {
            let deg = 1 + rng.below(12) as usize;
            // roots: random integers in [−1000, 1000] and powers of two.
            let roots: Vec<i64> =
                (0..deg).map(|t| if t % 3 == 0 { 1i64 << rng.below(20) } else { rng.below(2001) as i64 - 1000 }).collect();
            let mut c = vec![Mpz::from_coef(IntRef::new(false, &[1]))];
            for &r in &roots {
                // c ← c·(x − r)
                let mut next: Vec<Mpz> = (0..=c.len()).map(|_| Mpz::new()).collect();
                for (i, ci) in c.iter().enumerate() {
                    // SAFETY: initialised.
                    unsafe {
                        gmp::mpz_add(&mut next[i + 1].0, &next[i + 1].0, &ci.0);
                        gmp::mpz_submul_ui(&mut next[i].0, &ci.0, r.unsigned_abs());
                        if r < 0 {
                            gmp::mpz_addmul_ui(&mut next[i].0, &ci.0, 2 * r.unsigned_abs());
                        }
                    }
                }
                c = next;
            }
            let coefs: Vec<_> = c.iter().map(|z| z.to_coef()).collect();
            let pv = views(&coefs);
            let max = roots.iter().copied().filter(|&r| r > 0).max();
            match positive_root_bound_2exp(&pv) {
                None => assert!(max.is_none(), "round {round}: no bound but the root {max:?}"),
                Some(k) => {
                    if let Some(m) = max {
                        assert!((m as f64) <= 2f64.powi(k as i32), "round {round}: root {m} > 2^{k}");
                    }
                }
            }
        }
        // Random polynomials: no sign change of p on [2^K, 2^(K+8)] at sample points.
        for round in 0..50 {
            let len = 2 + rng.below(30) as usize;
            let f = poly(&mut rng, len, 80, round % 3);
            let mut fv = views(&f);
            while fv.last().is_some_and(|v| v.is_zero()) {
                fv.pop();
            }
            if fv.len() < 2 {
                continue;
            }
            let Some(k) = positive_root_bound_2exp(&fv) else { continue };
            let lead = fv[fv.len() - 1].neg;
            for s in 0..64u64 {
                // x = 2^K·(1 + s/8), as the rational (8 + s)·2^K/8: sign of Σ f_i (8+s)^i 2^(K i) 8^(d−i).
                let d = fv.len() - 1;
                let mut acc = Mpz::new();
                for (i, v) in fv.iter().enumerate() {
                    let mut t = Mpz::from_coef(*v);
                    // SAFETY: initialised.
                    unsafe {
                        let mut w = Mpz::new();
                        gmp::mpz_ui_pow_ui(&mut w.0, 8 + s, i as _);
                        gmp::mpz_mul(&mut t.0, &t.0, &w.0);
                        gmp::mpz_ui_pow_ui(&mut w.0, 8, (d - i) as _);
                        gmp::mpz_mul(&mut t.0, &t.0, &w.0);
                        if k >= 0 {
                            gmp::mpz_mul_2exp(&mut t.0, &t.0, (k as u64) * i as u64);
                        } else {
                            gmp::mpz_mul_2exp(&mut t.0, &t.0, ((-k) as u64) * (d - i) as u64);
                        }
                        gmp::mpz_add(&mut acc.0, &acc.0, &t.0);
                    }
                }
                // SAFETY: initialised.
                let sg = unsafe { gmp::mpz_sgn(&acc.0) };
                assert!(sg != 0 && (sg < 0) == lead, "round {round}: sign change beyond 2^{k} at s = {s}");
            }
        }
    }
}
