//! Kronecker substitution ([FM] Algorithm 3, FLINT's `fmpz_poly_mul_KS`): h(2^b) = f(2^b)·g(2^b)
//! with b = product_bits + 1 (a sign bit), signed digits packed and unpacked exactly by
//! [`crate::int::pack`]; one big-integer product by [`mul_mag`] (a square when f and g are the
//! same slice).
use crate::int::{limbs_for_bits, max_bits, mul_mag, pack_signed, product_bits, unpack_signed, IntRef, ZSlab};
use crate::Result;

/// f·g by Kronecker substitution.
pub fn mul(f: &[IntRef], g: &[IntRef]) -> Result<ZSlab> {
    mul_by(f, g, &|a, b| mul_mag(a, b))
}

/// A product of magnitudes, |a|·|b| as a.len() + b.len() limbs.
pub(crate) type MagProduct = dyn Fn(&[u64], &[u64]) -> Result<Vec<u64>> + Sync;

/// f·g by Kronecker substitution with the big-integer product `product(|F|, |G|)` (called with
/// the same slice twice for a square); the big-prime FFT route supplies its own.
pub(crate) fn mul_by(f: &[IntRef], g: &[IntRef], product: &MagProduct) -> Result<ZSlab> {
    let pb = product_bits(max_bits(f), max_bits(g), f.len(), g.len());
    let mut h = ZSlab::zeros(f.len() + g.len() - 1, limbs_for_bits(pb))?;
    if pb == 0 {
        return Ok(h);
    }
    let b = pb + 1;
    let (p, neg) = if same(f, g) {
        let (z, _) = pack_signed(f, b)?;
        (product(&z, &z)?, false)
    } else {
        let (zf, zg) = rayon::join(|| pack_signed(f, b), || pack_signed(g, b));
        let ((zf, nf), (zg, ng)) = (zf?, zg?);
        (product(&zf, &zg)?, nf != ng)
    };
    unpack_signed(&mut h, &p, neg, b);
    Ok(h)
}

/// Whether f and g are the same slice (a square).
pub(crate) fn same(f: &[IntRef], g: &[IntRef]) -> bool {
    std::ptr::eq(f, g)
}

#[cfg(test)]
mod tests {
    use crate::testing::zpoly::{check_alg, check_large};
    use crate::zpoly::Alg;

    #[test]
    fn kronecker_matches_oracle() {
        check_alg(Alg::Kronecker, 200, 3000);
    }

    #[test]
    fn kronecker_large_matches_schoolbook() {
        check_large(Alg::Kronecker);
    }
}
