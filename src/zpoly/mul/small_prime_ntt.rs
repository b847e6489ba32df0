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
use crate::nmod::convolution::{convolve, MAX_BITS};
use crate::nmod::reduce::Modulus;
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
    let ff = residues_of(f);
    let res = if std::ptr::eq(f, g) {
        convolve(bits + 1, f.len(), &ff, f.len(), None)?
    } else {
        convolve(bits + 1, f.len(), &ff, g.len(), Some(&residues_of(g)))?
    };
    res.crt().signed_into(&res.data, res.stride, &mut h)?;
    Ok(h)
}

/// The fill function of the engine for a coefficient vector: c_j mod p by a dot product of the
/// limbs with 2^(64i) mod p, negated for negative c_j.
fn residues_of<'a>(c: &'a [IntRef]) -> impl Fn(usize, &Modulus, usize, &mut [u64]) + Sync + 'a {
    let limbs = c.iter().map(|x| x.mag.len()).max().unwrap_or(0);
    move |_, m, first, out| {
        if limbs <= 1 {
            for (o, x) in out.iter_mut().zip(&c[first..]) {
                let r = x.mag.first().map_or(0, |&l| m.reduce(l));
                *o = if x.neg { m.neg(r) } else { r };
            }
            return;
        }
        let w = m.limb_weights(limbs);
        for (o, x) in out.iter_mut().zip(&c[first..]) {
            let r = m.reduce_limbs(x.mag, &w);
            *o = if x.neg { m.neg(r) } else { r };
        }
    }
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
