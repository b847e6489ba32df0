//! Interpolation over Q from integer data: the unique f ∈ Q\[x\] of degree < n with f(u_i) = v_i at
//! n distinct integer points, as num/den with num ∈ Z\[x\] and den > 0 minimal.
//!
//! Multi-modular with rational reconstruction ([MCA] §5.10) and an exact check:
//! 1. modulo 50-bit Fourier primes q at which the points stay distinct, f mod q by a subproduct
//!    tree ([`crate::nmod::interpolate`]); then X_j ≡ f_j (mod Q = Π q) by CRT;
//! 2. with a common denominator D (from 1): y = D·X_j mod Q is taken as num_j when
//!    |y| ≤ N = ⌊√(Q/2)⌋, else y ≡ a/b with |a|, b ≤ N by the extended Euclidean algorithm
//!    stopped at N, and D ← D·b, earlier numerators ← ·b, num_j = a (fails when no such a/b
//!    exists or D > N);
//! 3. the check: d_i = num(u_i) − D·v_i is divisible by every prime of step 1 (num ≡ D·X,
//!    X(u_i) ≡ v_i), and |d_i| < 2^E with E = max(bits(num) + bu·(n − 1) + ⌈log2 n⌉, bits(D) + bv) + 1;
//!    more primes q′ with Q·Π q′ > 2^E check num(u_i) ≡ D·v_i mod q′, so d_i = 0 for all i and
//!    num/D interpolates, and it is the interpolant (unique in degree < n);
//! 4. num and D divided by gcd(D, content(num)).
//!
//! A failed step 2 or 3 doubles the bits of Q and resumes (the residues already computed are kept).
//! N is taken as 2^⌊(bits(Q) − 2)/2⌋ (≤ √(Q/2), > √(Q/8)): once Q > 8·H² for H bounding |num| and
//! den of the answer (Cramer's rule gives such an H: den | Π_(i<j)(u_j − u_i)), reconstruction
//! returns the answer, so the loop ends.
//!
//! The big-integer steps (2–4) use [`Int`] (Rust memory, any thread); the residues are computed in
//! gpmp's pool.
use super::evaluate::{residues, tree_primes};
use crate::int::{ceil_log2, cmp_mag, cmp_signed, max_bits, Divisor, Int, IntRef, ZSlab};
use crate::nmod::crt::Crt;
use crate::{invalid, runtime, Error, Result};
use rayon::prelude::*;
use std::cmp::Ordering;

/// (num, den): n numerator coefficients and den > 0 with f = num/den. n ≥ 1 distinct points and as
/// many values; otherwise `InvalidArgument`.
pub fn interpolate(points: &[IntRef], values: &[IntRef]) -> Result<(Vec<Int>, Int)> {
    let n = points.len();
    if n == 0 {
        return invalid!("no points (n = 0)");
    }
    if values.len() != n {
        return invalid!("{n} points but {} values", values.len());
    }
    check_distinct(points)?;
    let (bu, bv) = (max_bits(points), max_bits(values));
    let mut good: Vec<u64> = Vec::new();
    let mut rows: Vec<Vec<u64>> = Vec::new();
    let mut tried = 0usize;
    let mut want = 64 + bv;
    loop {
        crate::interrupt::checkpoint()?;
        // Enough candidates for `want` bits of good primes, whatever was skipped.
        let cand = tree_primes(want + 50 * (tried - good.len()) as u64, n)?;
        let new: Vec<u64> = cand[tried.min(cand.len())..].to_vec();
        tried = cand.len();
        let got: Vec<Option<Vec<u64>>> = runtime::install(|| {
            new.par_iter()
                .with_max_len(1)
                .map(|&q| -> Result<Option<Vec<u64>>> {
                    let u = residues(points, q);
                    match crate::nmod::interpolate::interpolate_vec(&u, &residues(values, q), q) {
                        Ok(f) => Ok(Some(f)),
                        Err(Error::InvalidArgument(_)) => Ok(None), // two points meet mod q
                        Err(e) => Err(e),
                    }
                })
                .collect::<Result<Vec<_>>>()
        })?;
        for (q, f) in new.iter().zip(got) {
            if let Some(f) = f {
                good.push(*q);
                rows.push(f);
            }
        }
        let x = runtime::install(|| crt(&good, &rows, n))?;
        let qz = modulus(&good)?;
        if let Some((num, den)) = reconstruct(&x, &qz)? {
            if verify(&num, &den, points, values, bu, bv, &qz, &good, n)? {
                return normalize(num, den);
            }
        }
        want *= 2;
    }
}

/// `InvalidArgument` naming two equal points.
fn check_distinct(points: &[IntRef]) -> Result<()> {
    let mut idx: Vec<usize> = (0..points.len()).collect();
    idx.sort_by(|&i, &j| cmp(&points[i], &points[j]));
    for w in idx.windows(2) {
        if points[w[0]] == points[w[1]] {
            let (a, b) = (w[0].min(w[1]), w[0].max(w[1]));
            return invalid!("points[{a}] = points[{b}]: the points must be distinct");
        }
    }
    Ok(())
}

/// The symmetric residues of the coefficients modulo Π good (prime-major rows of n).
fn crt(good: &[u64], rows: &[Vec<u64>], n: usize) -> Result<ZSlab> {
    let mut res = crate::int::try_zeroed::<u64>(good.len() * n)?;
    for (dst, r) in res.chunks_mut(n).zip(rows) {
        dst.copy_from_slice(r);
    }
    let c = Crt::new(good);
    let mut out = ZSlab::zeros(n, c.limbs())?;
    c.signed_into(&res, n, &mut out)?;
    Ok(out)
}

/// Π q.
fn modulus(primes: &[u64]) -> Result<Int> {
    let mut z = Int::from_u64(1);
    for &q in primes {
        z = z.mul(&Int::from_u64(q))?;
    }
    Ok(z)
}

/// Step 2 of the module doc; `None` when the reconstruction fails at this modulus.
fn reconstruct(x: &ZSlab, q: &Int) -> Result<Option<(Vec<Int>, Int)>> {
    let n = x.len();
    let bound = Int::from_u64(1).shl((q.bits() - 2) / 2); // N = 2^⌊(bits(Q) − 2)/2⌋ ≤ √(Q/2)
    let k = q.mag.len();
    let div = Divisor::new(&q.mag, 2 * k + 1)?;
    let (mut rem, mut scratch) = (vec![0u64; k], Vec::new());
    let mut den = Int::from_u64(1);
    let mut nums: Vec<Int> = Vec::with_capacity(n);
    for j in 0..n {
        if j % 1024 == 0 {
            crate::interrupt::checkpoint()?;
        }
        // y = D·X_j mod Q in [0, Q), then symmetric.
        let t = Int::from_ref(x.get(j)).mul(&den)?;
        div.rem_into(&mut rem, &t.mag, &mut scratch)?;
        let mut y = Int::from_ref(IntRef::new(false, &rem));
        if t.neg && !y.is_zero() {
            y = q.sub(y.view());
        }
        if y.shl(1) > *q {
            y = y.sub(q.view());
        }
        if cmp_mag(&y.mag, &bound.mag) != Ordering::Greater {
            nums.push(y);
            continue;
        }
        if y.neg {
            y = y.add(q.view());
        }
        let Some((a, b)) = ratrecon(&y, q, &bound)? else { return Ok(None) };
        den = den.mul(&b)?;
        if den > bound {
            return Ok(None);
        }
        for v in nums.iter_mut() {
            *v = v.mul(&b)?;
        }
        nums.push(a);
    }
    Ok(Some((nums, den)))
}

/// a/b ≡ y (mod q) with |a| ≤ bound, 0 < b ≤ bound, gcd(a, b) = 1 (y ∈ [0, q)), or `None`.
fn ratrecon(y: &Int, q: &Int, bound: &Int) -> Result<Option<(Int, Int)>> {
    let (mut r0, mut r1) = (q.clone(), y.clone());
    let (mut t0, mut t1) = (Int::default(), Int::from_u64(1));
    while r1 > *bound {
        let (quo, rem) = r0.div_rem(&r1)?;
        r0 = std::mem::replace(&mut r1, rem);
        let t = t0.sub(quo.mul(&t1)?.view());
        t0 = std::mem::replace(&mut t1, t);
    }
    if t1.is_zero() || cmp_mag(&t1.mag, &bound.mag) == Ordering::Greater {
        return Ok(None);
    }
    if r1.gcd(&t1)? != Int::from_u64(1) {
        return Ok(None);
    }
    if t1.neg {
        t1 = t1.neg();
        r1 = r1.neg();
    }
    Ok(Some((r1, t1)))
}

/// Step 3 of the module doc: whether num(u_i) = den·v_i for every i.
#[allow(clippy::too_many_arguments)]
fn verify(num: &[Int], den: &Int, points: &[IntRef], values: &[IntRef], bu: u64, bv: u64, q: &Int, used: &[u64], n: usize) -> Result<bool> {
    let nb = num.iter().map(|v| v.mag.len() as u64 * 64).max().unwrap_or(0);
    let db = den.mag.len() as u64 * 64;
    let e = (nb + bu * (n as u64 - 1) + ceil_log2(n)).max(db + bv) + 1;
    let have = q.bits() - 1; // Q ≥ 2^have
    if have > e {
        return Ok(true);
    }
    // Primes beyond those used, until the product passes 2^(e − have).
    let all = tree_primes(e - have + 50 * (used.len() as u64 + 2), n)?;
    let mut extra = Vec::new();
    let mut bits = 0.0f64;
    for &p in &all {
        if used.contains(&p) {
            continue;
        }
        extra.push(p);
        bits += (p as f64).log2() - 1e-6;
        if bits > (e - have) as f64 + 1.0 {
            break;
        }
    }
    if bits <= (e - have) as f64 + 1.0 {
        return Err(Error::SizeTooLarge(format!("a {e}-bit check needs more primes than available")));
    }
    let numv: Vec<IntRef> = num.iter().map(Int::view).collect();
    let denv = den.view();
    runtime::install(|| {
        extra
            .par_iter()
            .with_max_len(1)
            .try_fold(
                || true,
                |ok, &p| -> Result<bool> {
                    if !ok {
                        return Ok(false);
                    }
                    let m = crate::nmod::reduce::Modulus::new(p);
                    let at = crate::nmod::evaluate::evaluate_vec(&residues(&numv, p), &residues(points, p), p)?;
                    let d = residues(std::slice::from_ref(&denv), p)[0];
                    let ds = m.shoup(d);
                    Ok(residues(values, p).iter().zip(&at).all(|(&v, &a)| m.mul_shoup(v, d, ds) == a))
                },
            )
            .try_reduce(|| true, |a, b| Ok(a && b))
    })
}

/// num/den with gcd(den, content(num)) = 1 and den > 0.
fn normalize(mut num: Vec<Int>, mut den: Int) -> Result<(Vec<Int>, Int)> {
    let one = Int::from_u64(1);
    let mut g = den.clone();
    for v in &num {
        if g == one {
            break;
        }
        g = g.gcd(v)?;
    }
    if g != one {
        for v in num.iter_mut() {
            *v = v.div_rem(&g)?.0;
        }
        den = den.div_rem(&g)?.0;
    }
    if den.neg {
        den = den.neg();
        for v in num.iter_mut() {
            *v = v.neg();
        }
    }
    Ok((num, den))
}

/// Orders integers by value (for tests and callers that sort points).
pub fn cmp(a: &IntRef, b: &IntRef) -> Ordering {
    cmp_signed(*a, *b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{poly, views, Mpz, Rng};
    use gmp_mpfr_sys::gmp;

    fn coef(x: &Int) -> (bool, Vec<u64>) {
        (x.neg, x.mag.clone())
    }

    /// num(u_i) = den·v_i at every point (Horner over GMP), den > 0, gcd(den, content(num)) = 1,
    /// for random signed points and values (non-integral results), integral data (den = 1),
    /// zero values, n = 1, 2, 3, 40.
    #[test]
    fn interpolant_passes_through_the_points() {
        let mut rng = Rng(41);
        for &(n, bu, bv) in &[(1usize, 10u64, 10u64), (2, 64, 64), (3, 5, 100), (17, 30, 3), (40, 64, 128), (40, 3, 3)] {
            for style in 0..3 {
                let mut u = poly(&mut rng, n, bu, 0);
                // distinct points: add the index to the top limb's low bits when needed
                let mut seen = std::collections::HashSet::new();
                for (i, c) in u.iter_mut().enumerate() {
                    while !seen.insert(c.clone()) {
                        if c.1.is_empty() {
                            c.1.push(0);
                        }
                        c.1[0] = c.1[0].wrapping_add(i as u64 + 1);
                    }
                }
                let v = match style {
                    0 => poly(&mut rng, n, bv, 0),
                    1 => vec![(false, vec![]); n],
                    _ => poly(&mut rng, n, bv, 2),
                };
                let (uv, vv) = (views(&u), views(&v));
                let (num, den) = interpolate(&uv, &vv).unwrap();
                assert_eq!(num.len(), n);
                let (num, den): (Vec<Mpz>, Mpz) = (num.iter().map(|c| Mpz::from_coef(c.view())).collect(), Mpz::from_coef(den.view()));
                unsafe {
                    assert!(gmp::mpz_sgn(den.as_ptr()) > 0);
                    let mut g = Mpz::new();
                    gmp::mpz_set(g.as_mut_ptr(), den.as_ptr());
                    for c in &num {
                        gmp::mpz_gcd(g.as_mut_ptr(), g.as_ptr(), c.as_ptr());
                    }
                    assert_eq!(gmp::mpz_cmp_ui(g.as_ptr(), 1), 0, "den minimal");
                    for i in 0..n {
                        let x = Mpz::from_coef(uv[i]);
                        let mut acc = Mpz::new();
                        for c in num.iter().rev() {
                            gmp::mpz_mul(acc.as_mut_ptr(), acc.as_ptr(), x.as_ptr());
                            gmp::mpz_add(acc.as_mut_ptr(), acc.as_ptr(), c.as_ptr());
                        }
                        let mut dv = Mpz::from_coef(vv[i]);
                        gmp::mpz_mul(dv.as_mut_ptr(), dv.as_ptr(), den.as_ptr());
                        assert_eq!(gmp::mpz_cmp(acc.as_ptr(), dv.as_ptr()), 0, "n {n}, style {style}, point {i}");
                    }
                    if style == 1 {
                        assert_eq!(gmp::mpz_cmp_ui(den.as_ptr(), 1), 0);
                    }
                }
            }
        }
        // An integral interpolant: f = 3x^2 − 5 at 0, 1, −2.
        let u = [(false, vec![]), (false, vec![1u64]), (true, vec![2u64])];
        let v = [(true, vec![5u64]), (true, vec![2u64]), (false, vec![7u64])];
        let (num, den) = interpolate(&views(&u), &views(&v)).unwrap();
        assert_eq!(
            (coef(&den), num.iter().map(coef).collect::<Vec<_>>()),
            ((false, vec![1]), vec![(true, vec![5]), (false, vec![]), (false, vec![3])])
        );
        // f = x/2 through (0, 0) and (2, 1): num = x, den = 2.
        let u = [(false, vec![]), (false, vec![2u64])];
        let v = [(false, vec![]), (false, vec![1u64])];
        let (num, den) = interpolate(&views(&u), &views(&v)).unwrap();
        assert_eq!(coef(&den), (false, vec![2]));
        assert_eq!(num.iter().map(coef).collect::<Vec<_>>(), vec![(false, vec![]), (false, vec![1])]);
        // Repeated points.
        let u = [(false, vec![4u64]), (true, vec![4u64]), (false, vec![4u64])];
        let v = [(false, vec![1u64]), (false, vec![2u64]), (false, vec![3u64])];
        assert!(interpolate(&views(&u[..2]), &views(&v[..2])).is_ok(), "4 and −4 differ");
        assert!(interpolate(&views(&u), &views(&v)).is_err(), "4 twice");
    }
}
