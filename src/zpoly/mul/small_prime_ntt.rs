//! Multi-modular product: f·g modulo enough Fourier primes p < 2^50 (negacyclic NTTs with AVX-512
//! IFMA), recovered by CRT as symmetric residues ([`crate::nmod::convolution`], [`crate::nmod::crt`]).
//!
//! Every |h_k| < 2^B with B = `product_bits` (see [`crate::int::product_bits`]), so primes with
//! M = Π p_i > 2^(B+1) > 2·|h_k| determine h_k as the residue in (−M/2, M/2). The number of primes
//! thus follows the actual bit sizes and the shorter length (the bound depends on the degree, unlike
//! the Good-N table of [FM] App. B: see docs/REFERENCES.md). Very unbalanced operands are cut into blocks (overlap-add).
//!
//! The CRT is quadratic in the prime count, so above [`MAX_BITS`] coefficient bits the product is
//! taken on the Kronecker-packed integers instead, whose own product is the same multi-modular NTT
//! over 64-bit digits ([`crate::int::ntt_mul`]).
use crate::int::{limbs_for_bits, max_bits, product_bits, IntRef, ZSlab};
use crate::nmod::convolution::{convolve, primes_for_lengths, MAX_BITS};
use crate::nmod::reduce::ints_mod;
use crate::Result;

/// f·g by the small-prime NTT.
pub fn mul(f: &[IntRef], g: &[IntRef]) -> Result<ZSlab> {
    let bits = product_bits(max_bits(f), max_bits(g), f.len(), g.len());
    if bits + 1 > MAX_BITS {
        return super::kronecker::mul(f, g);
    }
    let mut h = ZSlab::zeros(f.len() + g.len() - 1, limbs_for_bits(bits))?;
    if bits == 0 {
        return Ok(h);
    }
    let ff = ints_mod(f);
    let res = if std::ptr::eq(f, g) {
        convolve(bits + 1, f.len(), &ff, f.len(), None)?
    } else {
        convolve(bits + 1, f.len(), &ff, g.len(), Some(&ints_mod(g)))?
    };
    res.crt().signed_into(&res.data, res.stride, &mut h)?;
    Ok(h)
}

/// The primes [`mul`] reduces modulo for a product of lengths flen, glen ≥ 1 whose coefficients
/// are bounded by 2^bits (`product_bits`, bits ≥ 1): the Fourier primes p < 2^50 of the transform
/// length [`convolve`] picks, with Π p > 2^(bits+1). `SizeTooLarge` beyond [`MAX_BITS`], where
/// [`mul`] multiplies the Kronecker-packed integers instead.
pub fn primes(flen: usize, glen: usize, bits: u64) -> Result<Vec<u64>> {
    primes_for_lengths(bits + 1, flen, glen)
}

#[cfg(test)]
mod tests {
    use crate::testing::zpoly::{assert_mul, check_alg};
    use crate::testing::{poly, Rng};
    use crate::zpoly::Alg;

    #[test]
    fn small_prime_ntt_matches_oracle() {
        check_alg(Alg::SmallPrimeNtt, 200, 3000);
    }

    #[test]
    fn small_prime_ntt_larger_cases() {
        let mut rng = Rng(99);
        for &(fl, gl, bits, style) in &[
            (3000, 3000, 64, 0),
            (3000, 2900, 64, 1),
            (500, 500, 1000, 0),
            (300, 301, 1000, 1),
            (1 << 12, 16, 64, 1),
            (16, 1 << 12, 64, 2),
            (5000, 3, 200, 0),
            (40, 40, 20000, 1),
        ] {
            let f = poly(&mut rng, fl, bits, style);
            let g = poly(&mut rng, gl, bits, style);
            assert_mul(Alg::SmallPrimeNtt, &f, &g, &format!("{fl}x{gl}, {bits} bits, style {style}"));
        }
        // Beyond the prime-count cap the product goes through the packed integers.
        let f = poly(&mut rng, 3, 60_000, 1);
        let g = poly(&mut rng, 5, 60_000, 0);
        assert_mul(Alg::SmallPrimeNtt, &f, &g, "3x5, 60000 bits (Kronecker route)");
    }
}
