//! The multi-modular representation as separate phases, so that a product can be spread over
//! processes (one share of the primes each) and recombined by blocks of coefficients:
//!
//! - [`mod_primes_into`]: residues\[j·n + i\] = a_i mod p_j in [0, p_j) (any sign);
//! - [`crt`]: the x_i ≡ residues\[j·n + i\] (mod p_j) in (−M/2, M/2) or [0, M), M = Π p_j
//!   (Garner, [`crate::nmod::crt`]);
//! - [`poly_mul_primes`]: the primes of gpmp's multi-modular Z\[x\] product for the given lengths
//!   and coefficient sizes.
//!
//! The primes are any distinct odd primes p < 2^63. For f·g with `poly_mul_primes(len f, bits f,
//! len g, bits g)` = p_0 … p_(k−1), the products f·g mod p_j (e.g. [`super::nmod::poly_mul`]) and a
//! signed [`crt`] give f·g exactly: Π p_j > 2^(B+1) with B the product bound `product_bits`.
//! CPU only: the GPU engines reduce and recombine only modulo their own prime lists, inside their
//! products.
use crate::int::{IntRef, ZSlab};
use crate::nmod::crt::{check_primes, residues_into, Crt};
use crate::nmod::prime::check_reduced;
use crate::{Error, Result};

/// residues\[j·n + i\] = a\[i\] mod primes\[j\] (n = a.len(), residues.len() = k·n, else
/// `InvalidArgument`); `InvalidArgument` unless the primes are distinct odd primes < 2^63, and then
/// `residues` is untouched. Parallel in gpmp's pool when called inside `runtime::install`.
pub fn mod_primes_into(a: &[IntRef], primes: &[u64], residues: &mut [u64]) -> Result<()> {
    check_primes(primes)?;
    if primes.len().checked_mul(a.len()) != Some(residues.len()) {
        return crate::invalid!("residues holds {} words, not k·n = {}·{}", residues.len(), primes.len(), a.len());
    }
    residues_into(a, primes, residues);
    Ok(())
}

/// The n integers x_i with x_i ≡ residues\[j·n + i\] (mod primes\[j\]) for every j < k, in
/// (−M/2, M/2) when `signed` (M is odd) or in [0, M), M = Π primes\[j\] (M = 1 when k = 0: all
/// zeros). `InvalidArgument` unless the primes are distinct odd primes < 2^63, residues.len() = k·n
/// and every residues\[j·n + i\] < primes\[j\]; `OutOfMemory` when the constants (k²/2 words) and the
/// result (n·⌈log2 M / 64⌉ words) exceed the memory limit.
pub fn crt(residues: &[u64], n: usize, primes: &[u64], signed: bool) -> Result<ZSlab> {
    let k = primes.len();
    check_primes(primes)?;
    if k.checked_mul(n) != Some(residues.len()) {
        return crate::invalid!("residues holds {} words, not k·n = {k}·{n}", residues.len());
    }
    for (j, &p) in primes.iter().enumerate() {
        check_reduced(&residues[j * n..(j + 1) * n], p, &format!("residues (prime {j}: residues[{j}·n + i])"))?;
    }
    let limbs = (k as u128 * 63).div_ceil(64).max(1);
    let words = (k as u128 * k as u128) / 2 + 3 * k as u128 + n as u128 * (limbs + 1);
    crate::memory::check_host(8 * words, "the CRT")?;
    let limbs = usize::try_from(limbs).map_err(|_| Error::SizeTooLarge(format!("{k} primes")))?;
    if k == 0 {
        return ZSlab::zeros(n, 1);
    }
    let c = Crt::new(primes);
    debug_assert!(c.limbs() <= limbs);
    let mut out = ZSlab::zeros(n, c.limbs())?;
    c.values_into(residues, n, signed, &mut out)?;
    Ok(out)
}

/// The k primes of gpmp's multi-modular product f·g for lengths flen, glen and coefficient sizes
/// |f_i| < 2^fbits, |g_j| < 2^gbits: those of the small-prime NTT product
/// ([`crate::zpoly::mul::small_prime_ntt::primes`], 50-bit Fourier primes with Π p > 2^(B+1),
/// B = `product_bits(fbits, gbits, flen, glen)`), the same on every backend and every machine.
/// Empty when a length or a size is 0 (the product is empty or zero); `SizeTooLarge` when
/// B + 1 exceeds [`crate::nmod::convolution::MAX_BITS`] (coefficients of about 50 000 bits each),
/// where gpmp multiplies Kronecker-packed integers instead.
pub fn poly_mul_primes(flen: usize, fbits: u64, glen: usize, gbits: u64) -> Result<Vec<u64>> {
    use crate::nmod::convolution::MAX_BITS;
    if flen == 0 || glen == 0 || fbits == 0 || gbits == 0 {
        return Ok(Vec::new());
    }
    if flen.checked_add(glen).is_none_or(|l| l > isize::MAX as usize / 8) {
        return Err(Error::SizeTooLarge(format!("a product of lengths {flen} and {glen}")));
    }
    if fbits.max(gbits) > MAX_BITS {
        return Err(Error::SizeTooLarge(format!(
            "{}-bit coefficients: the multi-modular product stops at {MAX_BITS} bits",
            fbits.max(gbits)
        )));
    }
    let bits = crate::int::product_bits(fbits, gbits, flen, glen);
    crate::zpoly::mul::small_prime_ntt::primes(flen, glen, bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nmod::convolution::convolve;
    use crate::nmod::prime::fourier_primes;
    use crate::nmod::reduce::ints_mod;
    use crate::testing::{coef, oracle, poly, slab_coefs, views, Coef, Mpz, Rng};
    use crate::Error;
    use gmp_mpfr_sys::gmp;

    /// Prime lists of every kind: tiny, 50-bit Fourier (the product's), 62-bit, the largest below
    /// 2^63, mixed sizes, k = 1.
    fn prime_lists() -> Vec<Vec<u64>> {
        let mut mixed = vec![3, (1u64 << 63) - 25, 7681];
        mixed.extend(fourier_primes(62, 40, 2));
        mixed.extend(fourier_primes(50, 30, 3));
        vec![
            vec![3],
            vec![(1 << 63) - 25],
            vec![3, 5, 7],
            fourier_primes(50, 25, 4),
            fourier_primes(50, 25, 11),
            fourier_primes(62, 40, 5),
            mixed,
        ]
    }

    /// n integers of up to `bits` bits, with zero, ±1 and −(2^bits − 1) (all-ones limbs) among them.
    fn ints(rng: &mut Rng, n: usize, bits: u64) -> Vec<Coef> {
        (0..n)
            .map(|i| match i {
                0 => (false, vec![]),
                1 => (false, vec![1]),
                2 => (true, vec![1]),
                3 => (true, coef(rng, bits, 1).1),
                _ => {
                    let (b, kind) = (1 + rng.below(bits), rng.below(4));
                    coef(rng, b, kind)
                }
            })
            .collect()
    }

    fn fdiv_ui(z: &Mpz, p: u64) -> u64 {
        // SAFETY: an initialised mpz; p < 2^63 fits an unsigned long.
        unsafe { gmp::mpz_fdiv_ui(z.as_ptr(), p as _) as u64 }
    }

    /// M = Π p as an mpz.
    fn modulus(primes: &[u64]) -> Mpz {
        let m = crate::nmod::crt::prime_product(primes);
        Mpz::from_coef(IntRef::new(false, &m))
    }

    #[test]
    fn mod_primes_matches_gmp() {
        let mut rng = Rng(25);
        for primes in prime_lists() {
            for (n, bits) in [(0, 64), (1, 64), (5, 1), (37, 64), (300, 200), (9, 5000), (6, 1024)] {
                let a = ints(&mut rng, n, bits);
                let av = views(&a);
                let mut res = vec![u64::MAX; primes.len() * n];
                mod_primes_into(&av, &primes, &mut res).unwrap();
                for (i, c) in av.iter().enumerate() {
                    let z = Mpz::from_coef(*c);
                    for (j, &p) in primes.iter().enumerate() {
                        assert_eq!(res[j * n + i], fdiv_ui(&z, p), "a[{i}] mod {p}, n = {n}, {bits} bits");
                    }
                }
            }
        }
        // k = 0 and n = 0 write nothing and succeed.
        mod_primes_into(&views(&ints(&mut rng, 4, 64)), &[], &mut []).unwrap();
    }

    /// Every value lies in the range and has the given residues (GMP), for random residues and the
    /// edges 0, 1, p − 1; the two ranges agree modulo M.
    #[test]
    fn crt_matches_gmp() {
        let mut rng = Rng(26);
        for primes in prime_lists() {
            let k = primes.len();
            let n = 41;
            let mut res = vec![0u64; k * n];
            for (j, &p) in primes.iter().enumerate() {
                for i in 0..n {
                    res[j * n + i] = match i {
                        0 => 0,
                        1 => 1,
                        2 => p - 1,
                        3 => p / 2,
                        4 => p / 2 + 1,
                        _ => rng.below(p),
                    };
                }
            }
            let m = modulus(&primes);
            for signed in [false, true] {
                let x = crt(&res, n, &primes, signed).unwrap();
                assert_eq!(x.len(), n);
                for i in 0..n {
                    let z = Mpz::from_coef(x.get(i));
                    for (j, &p) in primes.iter().enumerate() {
                        assert_eq!(fdiv_ui(&z, p), res[j * n + i], "x[{i}] mod {p}, signed {signed}");
                    }
                    // SAFETY: initialised mpz values.
                    unsafe {
                        if signed {
                            let mut t = Mpz::new();
                            gmp::mpz_mul_2exp(t.as_mut_ptr(), z.as_ptr(), 1);
                            gmp::mpz_abs(t.as_mut_ptr(), t.as_ptr());
                            assert!(gmp::mpz_cmp(t.as_ptr(), m.as_ptr()) < 0, "2|x| < M");
                        } else {
                            assert!(!x.get(i).neg && gmp::mpz_cmp(z.as_ptr(), m.as_ptr()) < 0, "0 ≤ x < M");
                        }
                    }
                }
            }
        }
    }

    /// Values in range go through mod_primes and back through crt unchanged: signed values of
    /// both signs up to (M − 1)/2, unsigned values up to M − 1.
    #[test]
    fn mod_primes_then_crt_round_trips() {
        let mut rng = Rng(27);
        for primes in prime_lists() {
            let m = modulus(&primes);
            let mbits = m.mag().len() as u64 * 64 - m.mag().last().unwrap().leading_zeros() as u64;
            for signed in [false, true] {
                let mut a: Vec<Coef> = ints(&mut rng, 30, mbits.saturating_sub(2).max(1));
                // The extremes: (M − 1)/2 and −(M − 1)/2 signed, M − 1 unsigned.
                let mut top = Mpz::new();
                // SAFETY: initialised mpz values.
                unsafe {
                    gmp::mpz_sub_ui(top.as_mut_ptr(), m.as_ptr(), 1);
                    if signed {
                        gmp::mpz_fdiv_q_2exp(top.as_mut_ptr(), top.as_ptr(), 1);
                    }
                }
                a.push(top.to_coef());
                if signed {
                    a.push((true, top.mag().to_vec()));
                } else {
                    a.iter_mut().for_each(|c| c.0 = false);
                }
                let n = a.len();
                let mut res = vec![0u64; primes.len() * n];
                mod_primes_into(&views(&a), &primes, &mut res).unwrap();
                let back = crt(&res, n, &primes, signed).unwrap();
                let want: Vec<Coef> = views(&a).iter().map(|c| Mpz::from_coef(*c).to_coef()).collect();
                assert_eq!(slab_coefs(&back), want, "{} primes, signed {signed}", primes.len());
            }
        }
        // k = 0: every value is 0 (M = 1).
        let z = crt(&[], 3, &[], true).unwrap();
        assert!((0..3).all(|i| z.get(i).is_zero()));
    }

    /// The product through the phases (residues of f and g, f·g mod each prime, signed CRT) equals
    /// the schoolbook product, and the primes are those the small-prime NTT product's convolution
    /// picks for these operands.
    #[test]
    fn product_through_primes_is_the_product() {
        let mut rng = Rng(28);
        for &(fl, gl, bits, style) in &[
            (1, 1, 64, 1),
            (1, 7, 3, 0),
            (13, 17, 64, 1),
            (40, 39, 200, 2),
            (100, 3, 1000, 0),
            (64, 64, 129, 1),
            (25, 30, 3000, 2),
            (6000, 5, 64, 1),
        ] {
            let f = poly(&mut rng, fl, bits, style);
            let g = poly(&mut rng, gl, bits, style);
            let (fv, gv) = (views(&f), views(&g));
            let (fb, gb) = (crate::int::max_bits(&fv), crate::int::max_bits(&gv));
            let primes = poly_mul_primes(fl, fb, gl, gb).unwrap();
            let b = crate::int::product_bits(fb, gb, fl, gl);
            let engine = convolve(b + 1, fl, &ints_mod(&fv), gl, Some(&ints_mod(&gv))).unwrap();
            assert_eq!(primes, engine.primes, "{fl}x{gl}: the primes of the small-prime NTT product");
            let k = primes.len();
            let (mut rf, mut rg) = (vec![0; k * fl], vec![0; k * gl]);
            mod_primes_into(&fv, &primes, &mut rf).unwrap();
            mod_primes_into(&gv, &primes, &mut rg).unwrap();
            let hl = fl + gl - 1;
            let mut rh = Vec::with_capacity(k * hl);
            for (j, &p) in primes.iter().enumerate() {
                rh.extend(crate::ops::nmod::poly_mul(&rf[j * fl..(j + 1) * fl], &rg[j * gl..(j + 1) * gl], p).unwrap());
            }
            let h = crt(&rh, hl, &primes, true).unwrap();
            assert_eq!(slab_coefs(&h), oracle(&fv, &gv), "{fl}x{gl}, {bits} bits, style {style}");
        }
    }

    #[test]
    fn poly_mul_primes_edges() {
        assert!(poly_mul_primes(0, 64, 5, 64).unwrap().is_empty());
        assert!(poly_mul_primes(5, 0, 5, 64).unwrap().is_empty());
        // 64 + 64 + 1 bits: Π p > 2^130 needs three 50-bit primes.
        let p = poly_mul_primes(2, 64, 2, 64).unwrap();
        assert_eq!(p.len(), 3);
        assert!(p.iter().all(|&q| q < 1 << 50 && (q - 1).trailing_zeros() >= 25));
        assert!(matches!(poly_mul_primes(2, 60_000, 2, 60_000), Err(Error::SizeTooLarge(_))));
        assert!(matches!(poly_mul_primes(2, 1 << 40, 2, 1), Err(Error::SizeTooLarge(_))));
        assert!(matches!(poly_mul_primes(usize::MAX, 64, 2, 64), Err(Error::SizeTooLarge(_))));
    }

    #[test]
    fn bad_primes_and_residues_are_rejected() {
        let a = [(false, vec![5u64])];
        let av = views(&a);
        for bad in [vec![2u64], vec![9], vec![1], vec![0], vec![1 << 63], vec![u64::MAX], vec![7681, 7681], vec![3, 5, 3]] {
            let mut res = vec![42u64; bad.len()];
            assert!(matches!(mod_primes_into(&av, &bad, &mut res), Err(Error::InvalidArgument(_))), "{bad:?}");
            assert!(res.iter().all(|&r| r == 42), "untouched on error");
            assert!(matches!(crt(&vec![0; bad.len()], 1, &bad, true), Err(Error::InvalidArgument(_))), "{bad:?}");
        }
        // A residue equal to its prime, and a length that is not k·n.
        assert!(matches!(crt(&[0, 7681], 1, &[3, 7681], false), Err(Error::InvalidArgument(_))));
        assert!(matches!(crt(&[0, 1, 2], 2, &[3, 7681], false), Err(Error::InvalidArgument(_))));
        assert!(matches!(mod_primes_into(&av, &[3, 5], &mut [0; 3]), Err(Error::InvalidArgument(_))));
    }
}
