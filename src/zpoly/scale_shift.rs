//! The scale-shift P_(k,c)(f) = 2^(k·d)·f((x + c)/2^k), d = deg f (CUMODP's `pkc_cpu`): the
//! polynomial whose roots in (0, 1) are 2^k·r − c for the roots r of f in (c/2^k, (c + 1)/2^k),
//! the node polynomial of a bisection tree. With h_i = f_i·2^(k·(d−i)) it is h(x + c), one
//! [`crate::zpoly::taylor_shift`]; coefficients grow by k·d bits.
use crate::int::{limbs_for_bits, Int, IntRef, ZSlab};
use crate::zpoly::taylor_shift::taylor_shift;
use crate::{Error, Result};

/// 2^(k·d)·f((x + c)/2^k) for f of length n (d = n − 1; empty for empty f).
pub fn scale_shift(f: &[IntRef], k: u64, c: IntRef) -> Result<ZSlab> {
    let n = f.len();
    if n == 0 {
        return ZSlab::zeros(0, 1);
    }
    let d = (n - 1) as u64;
    let grow = k.checked_mul(d).ok_or_else(|| Error::SizeTooLarge(format!("2^({k}·{d})")))?;
    let bits = crate::int::max_bits(f).checked_add(grow).ok_or_else(|| Error::SizeTooLarge(format!("2^({k}·{d})")))?;
    let mut h = ZSlab::zeros(n, limbs_for_bits(bits.max(1)))?;
    for (i, v) in f.iter().enumerate() {
        let s = Int::from_ref(*v).shl(k * (d - i as u64));
        h.set(i, s.neg, &s.mag);
    }
    taylor_shift(&h.views(), c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{coef, poly, slab_coefs, views, Mpz, Rng};
    use gmp_mpfr_sys::gmp;

    /// Against its definition by GMP: Σ f_i·(x + c)^i·2^(k(d−i)) expanded with binomials.
    #[test]
    fn matches_the_definition() {
        let mut rng = Rng(77);
        for (len, bits, k) in [(0usize, 5u64, 3u64), (1, 70, 9), (2, 3, 1), (9, 64, 0), (30, 100, 5), (200, 64, 2), (120, 700, 64)] {
            for c in [(false, vec![]), (false, vec![1]), (true, vec![3]), coef(&mut rng, 90, 0)] {
                let f = poly(&mut rng, len, bits, 0);
                let fv = views(&f);
                let cv = IntRef::new(c.0, &c.1);
                let got = slab_coefs(&scale_shift(&fv, k, cv).unwrap());
                let d = len.saturating_sub(1);
                let cz = Mpz::from_coef(cv);
                let want: Vec<_> = (0..len)
                    .map(|j| {
                        let mut acc = Mpz::new();
                        let (mut t, mut pw) = (Mpz::new(), Mpz::new());
                        for (i, fi) in fv.iter().enumerate().skip(j) {
                            let fz = Mpz::from_coef(*fi);
                            // SAFETY: initialised.
                            unsafe {
                                gmp::mpz_bin_uiui(&mut t.0, i as _, j as _);
                                gmp::mpz_pow_ui(&mut pw.0, &cz.0, (i - j) as _);
                                gmp::mpz_mul(&mut t.0, &t.0, &pw.0);
                                gmp::mpz_mul(&mut t.0, &t.0, &fz.0);
                                gmp::mpz_mul_2exp(&mut t.0, &t.0, k * (d - i) as u64);
                                gmp::mpz_add(&mut acc.0, &acc.0, &t.0);
                            }
                        }
                        acc.to_coef()
                    })
                    .collect();
                assert_eq!(got, want, "len {len}, {bits} bits, k {k}, c {c:?}");
            }
        }
    }
}
