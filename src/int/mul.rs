//! Products of unsigned limb vectors: the building block of Kronecker substitution, of
//! `gpmp_mpz_mul` and of the batch and polynomial products. GMP's `mpn_mul` below
//! [`INT_MUL_NTT_MIN_LIMBS`], the parallel multi-modular NTT product ([`super::ntt_mul`]) above, and
//! for a long operand against a short one, GMP's products of pieces of the long one: GMP is called
//! only within [`GMP_STACK_MAX_LIMBS`], so every product here may run on a worker thread.
use super::mpn::{self, GMP_STACK_MAX_LIMBS, GMP_STACK_MAX_SHORT_LIMBS};
use super::ntt_mul::ntt_mul;
use super::try_zeroed_words;
use crate::tuning::INT_MUL_NTT_MIN_LIMBS;
use crate::Result;
use gmp_mpfr_sys::gmp;

/// |a|·|b| as a vector of a.len() + b.len() limbs (zero when either is empty).
pub fn mul_mag(a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
    let mut r = try_zeroed_words(a.len() + b.len())?;
    mul_into(&mut r, a, b)?;
    Ok(r)
}

/// r = |a|·|b| (r has exactly a.len() + b.len() limbs; a and b may be the same slice, a square;
/// high zero limbs are allowed). Any thread may call it: GMP only sees operands within its stack
/// bounds ([`GMP_STACK_MAX_LIMBS`], or a short operand within [`GMP_STACK_MAX_SHORT_LIMBS`]); a
/// shorter operand of at least [`INT_MUL_NTT_MIN_LIMBS`] takes the NTT product, and one between the
/// two bounds against a longer one beyond [`GMP_STACK_MAX_LIMBS`] is cut into pieces of that many
/// limbs, as GMP's `mpn_mul` cuts its own: each piece's product overlaps the previous one in the
/// short operand's v limbs, where it is added, and is copied above them (the partial sums stay
/// below 2^(64·(offset + piece + v)), so the carry stops inside the copied limbs).
pub fn mul_into(r: &mut [u64], a: &[u64], b: &[u64]) -> Result<()> {
    assert_eq!(r.len(), a.len() + b.len());
    if a.is_empty() || b.is_empty() {
        r.fill(0);
        return Ok(());
    }
    let (x, y) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    if y.len() >= INT_MUL_NTT_MIN_LIMBS {
        return ntt_mul(x, y, r);
    }
    if x.len() <= GMP_STACK_MAX_LIMBS || y.len() <= GMP_STACK_MAX_SHORT_LIMBS {
        mpn::mul(r, x, y);
        return Ok(());
    }
    let (v, p) = (y.len(), GMP_STACK_MAX_LIMBS);
    mpn::mul(&mut r[..p + v], &x[..p], y);
    let mut t = try_zeroed_words(p + v)?;
    let mut off = p;
    for piece in x[p..].chunks(p) {
        crate::interrupt::checkpoint()?;
        let (pl, t) = (piece.len(), &mut t[..piece.len() + v]);
        if pl >= v {
            mpn::mul(t, piece, y);
        } else {
            mpn::mul(t, y, piece);
        }
        let (lo, hi) = r[off..off + v + pl].split_at_mut(v);
        hi.copy_from_slice(&t[v..]);
        // SAFETY: lo and t[..v] have v limbs, hi pl; rp == s1p is allowed.
        unsafe {
            let c = gmp::mpn_add_n(lo.as_mut_ptr(), lo.as_ptr(), t.as_ptr(), v as _);
            let c = gmp::mpn_add_1(hi.as_mut_ptr(), hi.as_ptr(), pl as _, c);
            debug_assert_eq!(c, 0);
        }
        off += pl;
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    /// GMP's product on the test thread (any size), the oracle.
    fn gmp_ref(a: &[u64], b: &[u64]) -> Vec<u64> {
        let mut r = vec![0; a.len() + b.len()];
        let (x, y) = if a.len() >= b.len() { (a, b) } else { (b, a) };
        // SAFETY: r has x.len() + y.len() limbs, x.len() >= y.len() >= 1, no overlap.
        unsafe {
            if std::ptr::eq(x, y) {
                gmp::mpn_sqr(r.as_mut_ptr(), x.as_ptr(), x.len() as _);
            } else {
                gmp::mpn_mul(r.as_mut_ptr(), x.as_ptr(), x.len() as _, y.as_ptr(), y.len() as _);
            }
        }
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

    /// A long operand beyond GMP's stack bound against a short one below the NTT's: GMP whole
    /// while the short one is within its bound (any long one), else pieces (a last piece shorter
    /// than the short operand included), with high zero limbs and all-ones limbs; at the bound
    /// itself GMP takes it whole.
    #[test]
    fn long_by_short_products_in_pieces_match_gmp() {
        let mut rng = Rng(9);
        let (n, s) = (GMP_STACK_MAX_LIMBS, GMP_STACK_MAX_SHORT_LIMBS);
        for &(la, lb, kind) in &[
            (n, INT_MUL_NTT_MIN_LIMBS - 1, 0),
            (n + 1, INT_MUL_NTT_MIN_LIMBS - 1, 1),
            (n + 1, s + 1, 0),
            (3 * n + 7, s + 25, 0),
            (5 * n, INT_MUL_NTT_MIN_LIMBS - 1, 0),
            (n + 1, 1, 0),
            (3 * n + 7, 300, 0),
            (2 * n + 5, 10, 1),
            (20 * n, s, 1),
        ] {
            let a = operand(&mut rng, la, kind);
            let mut b = operand(&mut rng, lb, kind);
            let want = gmp_ref(&a, &b);
            assert_eq!(mul_mag(&a, &b).unwrap(), want, "{la}x{lb} kind {kind}");
            assert_eq!(mul_mag(&b, &a).unwrap(), want, "{lb}x{la} kind {kind}");
            b.push(0); // a high zero limb
            let mut r = vec![7; la + lb + 1];
            mul_into(&mut r, &a, &b).unwrap();
            assert_eq!(&r[..la + lb], &want[..], "{la}x{lb}+0 kind {kind}");
            assert_eq!(r[la + lb], 0);
        }
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
