//! Test support: the GMP oracle for field elements and generators of random and edge elements.
use super::{Mpz, Rng};
use crate::gfpf::Gfpf;
use gmp_mpfr_sys::gmp;

/// The fields every test runs on: P3, P4, Table 2.1 with k = 2 and 4, and small primes
/// (r = 2, k = 4: 17; r = 4, k = 2: 17 in radix 4; r = 6, k = 2: 37; r = 10, k = 2: 101).
pub fn fields() -> Vec<Gfpf> {
    let mut v: Vec<Gfpf> = [8, 16, 2, 4].iter().map(|&k| Gfpf::builtin(k).unwrap()).collect();
    for (r, k) in [(2u64, 4usize), (4, 2), (6, 2), (10, 2), (2, 16)] {
        v.push(Gfpf::new(r, k).unwrap());
    }
    v
}

/// p as an mpz.
pub fn p_mpz(f: &Gfpf) -> Mpz {
    limbs_mpz(f.prime())
}

pub fn limbs_mpz(l: &[u64]) -> Mpz {
    let mut z = Mpz::new();
    // SAFETY: import reads l.len() limbs.
    unsafe { gmp::mpz_import(&mut z.0, l.len(), -1, 8, 0, 0, l.as_ptr().cast()) };
    z
}

/// The value of a digit vector Σ x_i r^i mod p, computed in GMP independently of `to_limbs`.
pub fn value(f: &Gfpf, x: &[u64]) -> Mpz {
    let mut z = Mpz::new();
    let p = p_mpz(f);
    // SAFETY: all initialised.
    unsafe {
        for &d in x.iter().rev() {
            gmp::mpz_mul_ui(&mut z.0, &z.0, f.radix());
            gmp::mpz_add_ui(&mut z.0, &z.0, d);
        }
        gmp::mpz_mod(&mut z.0, &z.0, &p.0);
    }
    z
}

/// The canonical digit vector of the mpz a (any sign), by division in GMP.
pub fn digits(f: &Gfpf, a: &Mpz) -> Vec<u64> {
    let p = p_mpz(f);
    let mut z = Mpz::new();
    let mut out = vec![0u64; f.k()];
    // SAFETY: all initialised.
    unsafe {
        gmp::mpz_mod(&mut z.0, &a.0, &p.0);
        let mut pm1 = Mpz::new();
        gmp::mpz_sub_ui(&mut pm1.0, &p.0, 1);
        if gmp::mpz_cmp(&z.0, &pm1.0) == 0 {
            f.set_minus_one(&mut out);
            return out;
        }
        for d in out.iter_mut() {
            *d = gmp::mpz_fdiv_q_ui(&mut z.0, &z.0, f.radix());
        }
    }
    out
}

pub fn eq(a: &Mpz, b: &Mpz) -> bool {
    // SAFETY: initialised.
    unsafe { gmp::mpz_cmp(&a.0, &b.0) == 0 }
}

/// A uniformly random element (a random integer mod p).
pub fn random(f: &Gfpf, rng: &mut Rng) -> Vec<u64> {
    let l: Vec<u64> = (0..f.prime().len() + 1).map(|_| rng.next()).collect();
    digits(f, &limbs_mpz(&l))
}

/// Edge elements: 0, 1, 2, p − 1, p − 2, r, all digits r − 1 (= p − 2), r^(k−1), digits
/// alternating 0 and r − 1, and random ones.
pub fn elements(f: &Gfpf, rng: &mut Rng, nrandom: usize) -> Vec<Vec<u64>> {
    let (k, r) = (f.k(), f.radix());
    let mut v = vec![vec![0u64; k], f.from_u64(1), f.from_u64(2)];
    let mut m1 = vec![0u64; k];
    f.set_minus_one(&mut m1);
    v.push(m1);
    v.push(vec![r - 1; k]);
    let mut e1 = vec![0u64; k];
    e1[1] = 1;
    v.push(e1);
    let mut top = vec![0u64; k];
    top[k - 1] = 1;
    v.push(top);
    v.push((0..k).map(|i| if i % 2 == 0 { 0 } else { r - 1 }).collect());
    v.push((0..k).map(|i| if i == 0 { r - 1 } else { 0 }).collect());
    for _ in 0..nrandom {
        v.push(random(f, rng));
    }
    v
}
