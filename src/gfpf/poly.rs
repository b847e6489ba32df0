//! Products of polynomials over Z/pZ (coefficients low to high, element-major): schoolbook when
//! one factor is short, otherwise by the convolution theorem h = IDFT(DFT(f)·DFT(g)) at the
//! power of two N ≥ flen + glen − 1 (N must divide p − 1; N ≤ 2^v₂(p−1) is astronomically large for
//! the Table 2.1 primes).
use super::Gfpf;
use crate::int::try_zeroed;
use crate::tuning::GFPF_POLY_MUL_SCHOOLBOOK_MAX_LEN;
use crate::{invalid, Error, Result};
use rayon::prelude::*;

impl Gfpf {
    /// h = f·g with flen + glen − 1 coefficients (empty when f or g is empty); f, g canonical.
    pub fn poly_mul(&self, f: &[u64], g: &[u64]) -> Result<Vec<u64>> {
        let k = self.k;
        if !f.len().is_multiple_of(k) || !g.len().is_multiple_of(k) {
            return invalid!("polynomial lengths are not multiples of k = {k}");
        }
        self.check_vec(f, "f")?;
        self.check_vec(g, "g")?;
        let (flen, glen) = (f.len() / k, g.len() / k);
        if flen == 0 || glen == 0 {
            return Ok(Vec::new());
        }
        let hlen = flen + glen - 1;
        if flen.min(glen) <= GFPF_POLY_MUL_SCHOOLBOOK_MAX_LEN {
            let mut h = try_zeroed(hlen * k)?;
            h.par_chunks_mut(k).enumerate().with_min_len(64).for_each_init(
                || vec![0u64; k],
                |t, (c, hc)| {
                    for i in c.saturating_sub(glen - 1)..=c.min(flen - 1) {
                        self.mul(t, &f[i * k..][..k], &g[(c - i) * k..][..k]);
                        self.add_assign(hc, t);
                    }
                },
            );
            return Ok(h);
        }
        let n = hlen.next_power_of_two();
        if n.trailing_zeros() as u64 > self.two_adicity() {
            return Err(Error::SizeTooLarge(format!("a product of {hlen} coefficients needs a DFT of size {n}, beyond 2^v2(p−1)")));
        }
        let w = self.root_of_unity(n)?;
        let mut fa = try_zeroed(n * k)?;
        fa[..f.len()].copy_from_slice(f);
        let mut ga = try_zeroed(n * k)?;
        ga[..g.len()].copy_from_slice(g);
        let cur = crate::interrupt::current();
        let (a, b) = rayon::join(|| self.dft_cpu(&mut fa, n, &w), || cur.enter(|| self.dft_cpu(&mut ga, n, &w)));
        a?;
        b?;
        // The pointwise products (IFMA batches where available), then the inverse DFT.
        let mut h = try_zeroed(n * k)?;
        self.mul_n(&mut h, &fa, &ga);
        drop((fa, ga));
        cur.check()?;
        self.idft_cpu(&mut h, n, &w)?;
        h.truncate(hlen * k);
        Ok(h)
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::gfpf::{fields, random};
    use crate::testing::Rng;

    /// Against the schoolbook product mod p in GMP (via the element oracle), lengths 1 … 70.
    #[test]
    fn poly_mul_matches_schoolbook() {
        let mut rng = Rng(0x9011);
        for f in fields() {
            let k = f.k();
            for (fl, gl) in [(1usize, 1usize), (1, 5), (3, 2), (17, 17), (20, 33), (70, 19), (40, 40)] {
                if (fl + gl - 1).next_power_of_two().trailing_zeros() as u64 > f.two_adicity() {
                    assert!(f.poly_mul(&vec![0; fl * k], &vec![0; gl * k]).is_err() || fl.min(gl) <= 16);
                    continue;
                }
                let a: Vec<u64> = (0..fl).flat_map(|_| random(&f, &mut rng)).collect();
                let mut b: Vec<u64> = (0..gl).flat_map(|_| random(&f, &mut rng)).collect();
                f.set_minus_one(&mut b[..k]);
                let h = f.poly_mul(&a, &b).unwrap();
                assert_eq!(h.len(), (fl + gl - 1) * k);
                // Oracle: schoolbook with the GMP-checked element operations, all in GMP.
                let p = crate::testing::gfpf::p_mpz(&f);
                for c in 0..fl + gl - 1 {
                    let mut acc = crate::testing::Mpz::new();
                    for i in c.saturating_sub(gl - 1)..=c.min(fl - 1) {
                        let (x, y) =
                            (crate::testing::gfpf::value(&f, &a[i * k..][..k]), crate::testing::gfpf::value(&f, &b[(c - i) * k..][..k]));
                        // SAFETY: initialised.
                        unsafe { gmp_mpfr_sys::gmp::mpz_addmul(&mut acc.0, &x.0, &y.0) };
                    }
                    // SAFETY: initialised.
                    unsafe { gmp_mpfr_sys::gmp::mpz_mod(&mut acc.0, &acc.0, &p.0) };
                    assert!(
                        crate::testing::gfpf::eq(&crate::testing::gfpf::value(&f, &h[c * k..][..k]), &acc),
                        "r = {} {fl}x{gl} coefficient {c}",
                        f.radix()
                    );
                }
            }
        }
        assert!(super::super::Gfpf::builtin(8).unwrap().poly_mul(&[0; 7], &[0; 8]).is_err());
    }
}
