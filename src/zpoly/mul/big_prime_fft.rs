//! Z\[x\] products by an FFT over the generalized Fermat prime field P3 = r^8 + 1,
//! r = 2^63 + 2^34 ([Thesis] Ch. 2–3, [BPF]; the field is
//! [`crate::gfpf`]).
//!
//! Packing (two Kronecker levels):
//! 1. f and g become the integers F = f(2^b), G = g(2^b), b = product_bits + 1, by the signed
//!    packing of [`crate::int::pack`] (exactly as [`super::kronecker`]); then h = f·g is read off
//!    F·G by the signed unpacking.
//! 2. |F| and |G| are cut into chunks of [`CHUNK_LIMBS`] = 3 limbs: |F| = Σ a_i 2^(192 i) with
//!    0 ≤ a_i < 2^192, likewise b_j, so |F|·|G| = C(2^192) with C = A·B. Each coefficient of C is
//!    c_m = Σ a_i b_(m−i) < min(len A, len B)·2^384 < 2^504 < r^8 < p as long as the shorter
//!    factor has fewer than 2^120 chunks (always: memory ends far before), so C computed over
//!    Z/pZ ([`Gfpf::poly_mul`]: DFT, pointwise products, inverse DFT at the power of two
//!    N ≥ len C, N ≤ 2^v₂(p−1) = 2^272) is C itself: every residue in [0, p) is the exact
//!    non-negative coefficient, no symmetric lift is needed. |F|·|G| = Σ c_m 2^(192 m) is the
//!    overlap-add [`sum_shifted`].
use crate::gfpf::Gfpf;
use crate::int::{sum_shifted, try_zeroed, IntRef, ZSlab};
use crate::Result;
use rayon::prelude::*;
use std::sync::OnceLock;

/// Limbs of |F| per field element (c_m < len·2^(128·CHUNK_LIMBS) < p, see the module docs).
const CHUNK_LIMBS: usize = 3;

/// The field P3, built once (it caches its twiddle tables).
fn field() -> &'static Gfpf {
    static P3: OnceLock<Gfpf> = OnceLock::new();
    P3.get_or_init(|| Gfpf::builtin(8).expect("P3 is built in"))
}

/// f·g by the big prime field FFT.
pub fn mul(f: &[IntRef], g: &[IntRef]) -> Result<ZSlab> {
    super::kronecker::mul_by(f, g, &|a, b| {
        if std::ptr::eq(a, b) {
            let e = to_field(a)?;
            mul_chunks(&e, &e)
        } else {
            let (ea, eb) = rayon::join(|| to_field(a), || to_field(b));
            mul_chunks(&ea?, &eb?)
        }
    })
}

/// The chunks a_i of z (CHUNK_LIMBS limbs each) as field elements, element-major.
fn to_field(z: &[u64]) -> Result<Vec<u64>> {
    let gf = field();
    let k = gf.k();
    let mut e = try_zeroed(z.len().div_ceil(CHUNK_LIMBS) * k)?;
    e.par_chunks_mut(k).zip(z.par_chunks(CHUNK_LIMBS)).with_min_len(64).for_each(|(d, c)| gf.from_limbs(d, false, c));
    Ok(e)
}

/// |F|·|G| = Σ c_m 2^(64·CHUNK_LIMBS·m), C = A·B over Z/pZ (exact, see the module docs).
fn mul_chunks(a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
    let gf = field();
    let k = gf.k();
    if a.is_empty() || b.is_empty() {
        return Ok(Vec::new());
    }
    let c = gf.poly_mul(a, b)?;
    let pl = gf.prime().len();
    let mut limbs = try_zeroed(c.len() / k * pl)?;
    limbs.par_chunks_mut(pl).zip(c.par_chunks(k)).with_min_len(64).for_each(|(l, d)| gf.to_limbs(l, d));
    let terms: Vec<(usize, bool, &[u64])> = limbs.chunks(pl).enumerate().map(|(m, l)| (m * CHUNK_LIMBS, false, l)).collect();
    Ok(sum_shifted(&terms)?.0)
}

#[cfg(test)]
mod tests {
    use crate::testing::zpoly::{check_alg, check_large};
    use crate::zpoly::Alg;

    #[test]
    fn big_prime_fft_matches_oracle() {
        check_alg(Alg::BigPrimeFft, 200, 3000);
    }

    #[test]
    fn big_prime_fft_large_matches_schoolbook() {
        check_large(Alg::BigPrimeFft);
    }
}
