//! Products of unsigned limb vectors: the building block of Kronecker substitution and of
//! `gpmp_mpz_mul`. GMP's `mpn_mul` below [`INT_MUL_NTT_MIN_LIMBS`], the parallel multi-modular NTT
//! product ([`super::ntt_mul`]) above.
use super::ntt_mul::ntt_mul;
use super::try_zeroed_words;
use crate::tuning::INT_MUL_NTT_MIN_LIMBS;
use crate::Result;
use gmp_mpfr_sys::gmp;

/// |a|·|b| as a vector of a.len() + b.len() limbs (zero when either is empty).
pub fn mul_mag(a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
    let mut r = try_zeroed_words(a.len() + b.len())?;
    if a.is_empty() || b.is_empty() {
        return Ok(r);
    }
    let (x, y) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    if y.len() >= INT_MUL_NTT_MIN_LIMBS {
        ntt_mul(x, y, &mut r)?;
        return Ok(r);
    }
    gmp_mul(x, y, &mut r);
    Ok(r)
}

/// Each limb of x as a non-negative one-limb integer (the coefficients of x read as a polynomial
/// at 2^64, or of a residue vector), built in parallel; `OutOfMemory` instead of an abort.
pub fn limb_views(x: &[u64]) -> Result<Vec<super::IntRef<'_>>> {
    use rayon::prelude::*;
    let mut v = Vec::new();
    v.try_reserve_exact(x.len()).map_err(|_| crate::Error::OutOfMemory(format!("cannot allocate {} views", x.len())))?;
    v.par_extend(x.par_iter().with_min_len(1 << 14).map(|l| super::IntRef::new(false, std::slice::from_ref(l))));
    Ok(v)
}

/// r = x·y by GMP (x.len() ≥ y.len() ≥ 1, r.len() = x.len() + y.len()).
fn gmp_mul(x: &[u64], y: &[u64], r: &mut [u64]) {
    // SAFETY: r has x.len() + y.len() limbs and does not overlap x, y; x.len() >= y.len() >= 1.
    unsafe {
        if std::ptr::eq(x, y) {
            gmp::mpn_sqr(r.as_mut_ptr(), x.as_ptr(), x.len() as _);
        } else {
            gmp::mpn_mul(r.as_mut_ptr(), x.as_ptr(), x.len() as _, y.as_ptr(), y.len() as _);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    fn gmp_ref(a: &[u64], b: &[u64]) -> Vec<u64> {
        let mut r = vec![0; a.len() + b.len()];
        let (x, y) = if a.len() >= b.len() { (a, b) } else { (b, a) };
        gmp_mul(x, y, &mut r);
        r
    }

    /// n limbs: all ones (kind 1), or random with a zero limb every 97 (kind 0).
    fn operand(rng: &mut Rng, n: usize, kind: u32) -> Vec<u64> {
        (0..n)
            .map(|i| {
                if kind == 1 {
                    u64::MAX
                } else if i % 97 == 5 {
                    0
                } else {
                    rng.next()
                }
            })
            .collect()
    }

    #[test]
    fn ntt_product_matches_gmp() {
        let mut rng = Rng(5);
        for &(la, lb, kind) in &[
            (1, 1, 1),
            (1, 1, 0),
            (3, 17, 1),
            (100, 100, 0),
            (999, 1000, 1),
            (4000, 4000, 0),
            (4000, 4000, 1),
            (5000, 2100, 0),
            (30000, 40, 1),
            (20000, 2000, 0),
            (INT_MUL_NTT_MIN_LIMBS, INT_MUL_NTT_MIN_LIMBS, 1),
        ] {
            let a = operand(&mut rng, la, kind);
            let b = operand(&mut rng, lb, kind);
            let mut r = vec![0; la + lb];
            ntt_mul(&a, &b, &mut r).unwrap();
            assert_eq!(r, gmp_ref(&a, &b), "{la}x{lb} kind {kind}");
            let mut s = vec![0; 2 * la];
            ntt_mul(&a, &a, &mut s).unwrap();
            assert_eq!(s, gmp_ref(&a, &a), "square {la} kind {kind}");
            // mul_mag on both sides of the crossover, in both argument orders.
            assert_eq!(mul_mag(&b, &a).unwrap(), r);
            assert_eq!(mul_mag(&a, &a).unwrap(), s);
        }
        assert_eq!(mul_mag(&[], &[1, 2]).unwrap(), vec![0, 0]);
    }

    /// The NTT product's prime count switches from 3 to 4 exactly where its bound
    /// 128 + ⌈log2 m⌉ passes 149 bits (m = min(la, lb) > 2^21 limbs, operands above 2^27 bits).
    #[test]
    fn ntt_product_prime_count_threshold() {
        use crate::nmod::convolution::primes_for;
        let count = |m: usize| primes_for(128 + super::super::ceil_log2(m), 1 << 23).unwrap().len();
        assert_eq!(count(INT_MUL_NTT_MIN_LIMBS), 3);
        assert_eq!(count(1 << 21), 3);
        assert_eq!(count((1 << 21) + 1), 4);
    }

    /// |a|·|b| on the GPU as a vector of a.len() + b.len() limbs.
    #[cfg(feature = "gpu-tests")]
    fn gpu_mul(a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
        let mut r = vec![0; a.len() + b.len()];
        crate::gpu::ntt_mul::mul_into(a, b, &mut r)?;
        Ok(r)
    }

    #[cfg(feature = "gpu-tests")]
    #[test]
    fn gpu_product_matches_gmp() {
        let mut rng = Rng(11);
        for &(la, lb, kind) in
            &[(1, 1, 1), (1, 5, 0), (768, 768, 1), (1000, 3, 0), (5000, 4999, 1), (1 << 16, 1 << 16, 0), (1 << 18, 1 << 10, 1)]
        {
            let a = operand(&mut rng, la, kind);
            let b = operand(&mut rng, lb, kind);
            assert_eq!(gpu_mul(&a, &b).unwrap(), gmp_ref(&a, &b), "{la}x{lb} kind {kind}");
            assert_eq!(gpu_mul(&a, &a).unwrap(), gmp_ref(&a, &a), "square {la} kind {kind}");
        }
    }
}
