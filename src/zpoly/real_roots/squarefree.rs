//! The square-free part f/gcd(f, f′) over Z by a multi-modular GCD ([Brown71]'s small-prime method with
//! verification by products instead of a priori bounds).
//!
//! - One prime p ∤ lc(f) (62-bit primes below 2^62): if gcd(f mod p, f′ mod p) = 1 then f is
//!   square-free (a square factor of f over Z keeps a square factor of positive degree mod p), and
//!   nothing more is done — the common case.
//! - Otherwise, for primes p ∤ lc(f), let G_p = the monic gcd mod p; only primes with the least degree
//!   e are kept (a prime where the degree is larger is unlucky). With ℓ = lc(f), the integer
//!   polynomials G̃ = (ℓ/lc G)·G, Q = lc(G)·f/G and Q′ = lc(G)·f′/G (G = gcd over Z) reduce to
//!   ℓ·G_p, f_p/G_p and f′_p/G_p; they are rebuilt by CRT (symmetric residues) from 2, 4, 8, …
//!   primes until two successive rebuilds agree, and accepted when G̃·Q = ℓ·f and G̃·Q′ = ℓ·f′
//!   exactly (products by [`crate::zpoly::mul`]). Then G̃ divides f and f′ with degree e, and e is at
//!   least deg gcd(f, f′) (the degree of a modular gcd never drops below it for p ∤ lc(f)), so G̃ is
//!   the gcd up to a constant and Q ∝ f/gcd(f, f′) is the square-free part.
//!
//! Everything runs on Rust-owned buffers (the CRT of [`crate::nmod::crt`], the GCD of
//! [`crate::nmod::poly_gcd`]), so it may run on a worker thread.
use crate::int::{Int, IntRef, ZSlab};
use crate::nmod::crt::Crt;
use crate::nmod::poly_gcd::{divexact, gcd, trim};
use crate::nmod::prime::is_prime;
use crate::nmod::reduce::Modulus;
use crate::zpoly::{mul, Alg};
use crate::{Error, Result};

/// (the square-free part of f up to a constant, and gcd(f, f′) up to a constant when it is not
/// constant). f trimmed, degree ≥ 1.
pub fn squarefree_split(f: &[IntRef]) -> Result<(ZSlab, Option<ZSlab>)> {
    let d = f.len() - 1;
    assert!(d >= 1 && !f[d].is_zero());
    let df = derivative(f)?;
    let dfv = df.views();
    let lc = f[d];
    let mut primes = Primes(1 << 62);
    let mut kept: Vec<Image> = Vec::new();
    let mut e_min = usize::MAX;
    let mut previous: Option<[ZSlab; 3]> = None;
    let mut next_check = 2;
    let mut tried = 0usize;
    loop {
        crate::interrupt::checkpoint()?;
        let p = primes.next_not_dividing(lc);
        tried += 1;
        if tried > 100_000 {
            return Err(Error::Internal("square-free part: no stable modular GCD".into()));
        }
        let m = Modulus::new(p);
        let (fp, dfp) = (reduce(f, &m), reduce(&dfv, &m));
        let g = gcd(&fp, &dfp, p)?;
        let e = g.len() - 1;
        if e == 0 && kept.is_empty() && e_min == usize::MAX {
            return Ok((copy(f)?, None));
        }
        if e > e_min {
            continue;
        }
        if e < e_min {
            e_min = e;
            kept.clear();
            previous = None;
            next_check = 2;
        }
        let l = reduce(&[lc], &m).first().copied().unwrap_or(0);
        let gt: Vec<u64> = g.iter().map(|&x| m.reduce_u128(x as u128 * l as u128)).collect();
        let q = divexact(&fp, &g, p)?;
        let qd = divexact(&dfp, &g, p)?;
        kept.push((p, gt, q, qd));
        if kept.len() < next_check {
            continue;
        }
        next_check *= 2;
        let rebuilt = [rebuild(&kept, e + 1, |k| &k.1)?, rebuild(&kept, d - e + 1, |k| &k.2)?, rebuild(&kept, d - e, |k| &k.3)?];
        let stable = previous.as_ref().is_some_and(|old| (0..3).all(|i| old[i].views() == rebuilt[i].views()));
        if stable && verify(&rebuilt[0], &rebuilt[1], f, lc)? && verify(&rebuilt[0], &rebuilt[2], &dfv, lc)? {
            let [g, q, _] = rebuilt;
            return Ok((q, if e == 0 { None } else { Some(g) }));
        }
        previous = Some(rebuilt);
    }
}

/// f′ = Σ i·f_i x^(i−1).
fn derivative(f: &[IntRef]) -> Result<ZSlab> {
    let d = f.len() - 1;
    let bits = crate::int::max_bits(f) + 64;
    let mut out = ZSlab::zeros(d, crate::int::limbs_for_bits(bits))?;
    for (i, &fi) in f.iter().enumerate().skip(1) {
        let v = Int::from_ref(fi).mul(&Int::from_u64(i as u64))?;
        out.set(i - 1, v.neg, &v.mag);
    }
    Ok(out)
}

/// A copy of f as a slab.
fn copy(f: &[IntRef]) -> Result<ZSlab> {
    let mut out = ZSlab::zeros(f.len(), f.iter().map(|v| v.mag.len()).max().unwrap_or(1))?;
    for (i, v) in f.iter().enumerate() {
        out.set(i, v.neg, v.mag);
    }
    Ok(out)
}

/// f mod p, trimmed.
fn reduce(f: &[IntRef], m: &Modulus) -> Vec<u64> {
    let w = m.limb_weights(f.iter().map(|v| v.mag.len()).max().unwrap_or(0));
    let mut out: Vec<u64> = f
        .iter()
        .map(|v| {
            let r = m.reduce_limbs(v.mag, &w);
            if v.neg {
                m.neg(r)
            } else {
                r
            }
        })
        .collect();
    trim(&mut out);
    out
}

/// One kept prime with the images of the GCD, of f over it and of f′ over it.
type Image = (u64, Vec<u64>, Vec<u64>, Vec<u64>);

/// The integer polynomial of `len` coefficients with the given images (symmetric CRT).
fn rebuild<T>(kept: &[T], len: usize, image: impl Fn(&T) -> &Vec<u64>) -> Result<ZSlab>
where
    T: HasPrime,
{
    let primes: Vec<u64> = kept.iter().map(|k| k.prime()).collect();
    let crt = Crt::new(&primes);
    let mut out = ZSlab::zeros(len, crt.limbs())?;
    let mut r = vec![0u64; primes.len()];
    let mut v = vec![0u64; primes.len()];
    let mut limbs = vec![0u64; crt.limbs()];
    for i in 0..len {
        for (j, k) in kept.iter().enumerate() {
            r[j] = image(k).get(i).copied().unwrap_or(0);
        }
        let neg = crt.signed(&r, &mut v, &mut limbs);
        out.set(i, neg, &limbs);
    }
    Ok(out)
}

trait HasPrime {
    fn prime(&self) -> u64;
}

impl HasPrime for Image {
    fn prime(&self) -> u64 {
        self.0
    }
}

/// Whether g·q = ℓ·f exactly.
fn verify(g: &ZSlab, q: &ZSlab, f: &[IntRef], l: IntRef) -> Result<bool> {
    let prod = mul(&g.views(), &q.views(), Alg::Auto)?;
    let lz = Int::from_ref(l);
    let mut n = prod.len();
    while n > 0 && prod.get(n - 1).is_zero() {
        n -= 1;
    }
    if n != f.len() {
        return Ok(false);
    }
    for (i, fi) in f.iter().enumerate() {
        crate::interrupt::checkpoint()?;
        if Int::from_ref(*fi).mul(&lz)?.view() != prod.get(i) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The primes below a start, downwards.
struct Primes(u64);

impl Primes {
    /// The next prime p (going down) with lc mod p ≠ 0.
    fn next_not_dividing(&mut self, lc: IntRef) -> u64 {
        loop {
            self.0 -= 1;
            if self.0.is_multiple_of(2) || !is_prime(self.0) {
                continue;
            }
            let m = Modulus::new(self.0);
            if m.reduce_limbs(lc.mag, &m.limb_weights(lc.mag.len())) != 0 {
                return self.0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{poly, views, Coef, Rng};

    fn product(a: &[Coef], b: &[Coef]) -> Vec<Coef> {
        crate::testing::oracle(&views(a), &views(b))
    }

    /// f = a²·b (a, b random): the square-free part is ∝ a·b and the gcd ∝ a (checked by
    /// proportionality: x·(a·b) = y·sqf with integer x, y, via cross products of coefficients).
    #[test]
    fn square_factors_are_removed() {
        let mut rng = Rng(61);
        for (la, lb, bits) in [(2usize, 2usize, 8u64), (3, 1, 5), (5, 7, 30), (10, 4, 100), (20, 20, 64)] {
            let a = poly(&mut rng, la, bits, 0);
            let b = poly(&mut rng, lb, bits, 0);
            let (a, b): (Vec<Coef>, Vec<Coef>) = (fix_lead(a), fix_lead(b));
            let f = product(&product(&a, &a), &b);
            let (sqf, g) = squarefree_split(&views(&f)).unwrap();
            let ab = product(&a, &b);
            assert_proportional(&crate::testing::slab_coefs(&sqf), &ab, "square-free part");
            if la >= 2 {
                assert_proportional(&crate::testing::slab_coefs(&g.unwrap()), &a, "gcd");
            }
        }
        // A square-free polynomial comes back unchanged, without a gcd.
        let f: Vec<Coef> = vec![(true, vec![2]), (false, vec![0]), (false, vec![1])];
        let (sqf, g) = squarefree_split(&views(&f)).unwrap();
        assert!(g.is_none());
        assert_eq!(crate::testing::slab_coefs(&sqf), vec![(true, vec![2]), (false, vec![]), (false, vec![1])]);
    }

    fn fix_lead(mut a: Vec<Coef>) -> Vec<Coef> {
        let last = a.len() - 1;
        if a[last].1.iter().all(|&l| l == 0) {
            a[last] = (false, vec![1]);
        }
        a
    }

    /// x·u = y·v for some nonzero integers (u, v trimmed, same degree).
    fn assert_proportional(u: &[Coef], v: &[Coef], what: &str) {
        let trimmed = |w: &[Coef]| {
            let mut w = w.to_vec();
            while w.last().is_some_and(|c| c.1.iter().all(|&l| l == 0)) {
                w.pop();
            }
            w
        };
        let (u, v) = (trimmed(u), trimmed(v));
        assert_eq!(u.len(), v.len(), "{what}: degrees differ");
        let (ul, vl) = (views(&u)[u.len() - 1], views(&v)[v.len() - 1]);
        for i in 0..u.len() {
            // u_i·v_lead = v_i·u_lead
            let l = crate::testing::oracle(&[views(&u)[i]], &[vl]);
            let r = crate::testing::oracle(&[views(&v)[i]], &[ul]);
            assert_eq!(l, r, "{what}: not proportional at {i}");
        }
    }
}
