//! Products of unsigned limb vectors: the building block of Kronecker substitution and of
//! `gpmp_mpz_mul`. GMP's `mpn_mul` for now (serial); the multi-threaded NTT product replaces it
//! above its crossover.
use super::try_zeroed;
use crate::Result;
use gmp_mpfr_sys::gmp;

/// |a|·|b| as a vector of a.len() + b.len() limbs (zero when either is empty).
pub fn mul_mag(a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
    let mut r = try_zeroed(a.len() + b.len())?;
    if a.is_empty() || b.is_empty() {
        return Ok(r);
    }
    let (x, y) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    // SAFETY: r has x.len() + y.len() limbs and does not overlap x, y; x.len() >= y.len() >= 1.
    unsafe {
        if std::ptr::eq(x, y) {
            gmp::mpn_sqr(r.as_mut_ptr(), x.as_ptr(), x.len() as _);
        } else {
            gmp::mpn_mul(r.as_mut_ptr(), x.as_ptr(), x.len() as _, y.as_ptr(), y.len() as _);
        }
    }
    Ok(r)
}
