//! GCD and exact division of polynomials over Z/pZ (p an odd prime < 2^63), by Euclid's algorithm
//! (the remainder sequence, made monic at the end): O(deg f·deg g) operations, for the square-free part over Z (one prime
//! decides square-freeness; several primes and CRT give the GCD over Z).
//!
//! Polynomials are coefficient vectors low to high without high zero entries (the zero
//! polynomial is empty); entries < p.
use super::prime::invmod;
use super::reduce::Modulus;
use crate::int::try_zeroed;
use crate::Result;

/// f without its high zero entries.
pub fn trim(f: &mut Vec<u64>) {
    while f.last() == Some(&0) {
        f.pop();
    }
}

/// The monic gcd of f and g mod p (empty when both are zero). f, g trimmed.
pub fn gcd(f: &[u64], g: &[u64], p: u64) -> Result<Vec<u64>> {
    let m = Modulus::new(p);
    let (mut a, mut b) = if f.len() >= g.len() { (f.to_vec(), g.to_vec()) } else { (g.to_vec(), f.to_vec()) };
    while !b.is_empty() {
        crate::interrupt::checkpoint()?;
        rem_in_place(&mut a, &b, &m);
        std::mem::swap(&mut a, &mut b);
    }
    make_monic(&mut a, &m);
    Ok(a)
}

/// a ← a mod b (b nonzero, trimmed); a is trimmed on return.
fn rem_in_place(a: &mut Vec<u64>, b: &[u64], m: &Modulus) {
    let db = b.len() - 1;
    let inv = invmod(b[db], m.p);
    let inv_sh = m.shoup(inv);
    while a.len() > db {
        let top = a.len() - 1;
        let q = m.mul_shoup(a[top], inv, inv_sh);
        if q != 0 {
            let qs = m.shoup(q);
            let off = top - db;
            for (j, &bj) in b.iter().enumerate().take(db) {
                a[off + j] = m.sub(a[off + j], m.mul_shoup(bj, q, qs));
            }
        }
        a.pop();
        trim(a);
    }
}

/// f ← f / lc(f) (nothing for the zero polynomial).
fn make_monic(f: &mut [u64], m: &Modulus) {
    if let Some(&lc) = f.last() {
        let inv = invmod(lc, m.p);
        let sh = m.shoup(inv);
        for v in f.iter_mut() {
            *v = m.mul_shoup(*v, inv, sh);
        }
    }
}

/// The quotient f / g mod p when g divides f (g nonzero, both trimmed; the remainder is not checked).
pub fn divexact(f: &[u64], g: &[u64], p: u64) -> Result<Vec<u64>> {
    let m = Modulus::new(p);
    let (df, dg) = (f.len() - 1, g.len() - 1);
    if df < dg {
        return Ok(Vec::new());
    }
    let mut r = f.to_vec();
    let mut q = try_zeroed::<u64>(df - dg + 1)?;
    let inv = invmod(g[dg], p);
    let inv_sh = m.shoup(inv);
    for k in (0..=df - dg).rev() {
        let c = m.mul_shoup(r[k + dg], inv, inv_sh);
        q[k] = c;
        if c != 0 {
            let cs = m.shoup(c);
            for j in 0..dg {
                r[k + j] = m.sub(r[k + j], m.mul_shoup(g[j], c, cs));
            }
        }
    }
    Ok(q)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nmod::poly_mul::tests::{naive, rand_vec};

    #[test]
    fn gcd_of_products_is_the_common_factor() {
        for p in [7681u64, (1 << 61) - 1, (1u64 << 63) - 25] {
            for (la, lb, lc) in [(1usize, 1usize, 1usize), (3, 5, 4), (40, 30, 20), (200, 150, 1), (1, 90, 60)] {
                let mut c = rand_vec(lc, p, 5 + lc as u64);
                *c.last_mut().unwrap() = 1; // monic, nonzero
                let mut a = rand_vec(la, p, 7);
                let mut b = rand_vec(lb, p, 11);
                *a.last_mut().unwrap() |= 1;
                *b.last_mut().unwrap() |= 1;
                let (f, g) = (naive(&a, &c, p), naive(&b, &c, p));
                let h = gcd(&f, &g, p).unwrap();
                // h is monic, divides f and g, and c divides h (a, b random: h = c almost surely).
                assert_eq!(*h.last().unwrap(), 1);
                let qf = divexact(&f, &h, p).unwrap();
                assert_eq!(naive(&qf, &h, p), f, "p = {p}: h does not divide f");
                let qg = divexact(&g, &h, p).unwrap();
                assert_eq!(naive(&qg, &h, p), g, "p = {p}: h does not divide g");
                let qh = divexact(&h, &c, p).unwrap();
                assert_eq!(naive(&qh, &c, p), h, "p = {p}: c does not divide h");
            }
        }
        assert!(gcd(&[], &[], 7).unwrap().is_empty());
        assert_eq!(gcd(&[3, 1], &[], 7).unwrap(), vec![3, 1]);
    }
}
