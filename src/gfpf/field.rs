//! The field context: r, k, p = r^k + 1, the reciprocal of r, and conversions between integers
//! (limb vectors) and canonical digit vectors.
use super::arith::RDiv;
use super::crt_mul::CrtMul;
use super::fft::Twiddles;
use crate::int::{normalized, rem_by_gmp};
use crate::{invalid, Result};
use gmp_mpfr_sys::gmp;
use std::mem::MaybeUninit;
use std::sync::{Arc, Mutex};

/// Z/pZ for a generalized Fermat prime p = r^k + 1. Immutable apart from its cache of twiddle
/// tables; shareable across threads.
pub struct Gfpf {
    pub(super) r: u64,
    pub(super) k: usize,
    /// p as normalized limbs.
    pub(super) p: Vec<u64>,
    pub(super) div: RDiv,
    /// The FFT-based product's primes and plans (k ≥ 16).
    pub(super) crt: Option<CrtMul>,
    /// Recently used twiddle tables ω^i, i < N (see [`super::fft`]).
    pub(super) tables: Mutex<Vec<Arc<Twiddles>>>,
}

impl std::fmt::Debug for Gfpf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Gfpf(r = {}, k = {})", self.r, self.k)
    }
}

/// r^k + 1 as normalized limbs.
fn r_pow_k_plus_1(r: u64, k: usize) -> Vec<u64> {
    let mut p = vec![1u64];
    for _ in 0..k {
        let mut c = 0u128;
        for l in p.iter_mut() {
            let t = (*l as u128) * (r as u128) + c;
            *l = t as u64;
            c = t >> 64;
        }
        if c != 0 {
            p.push(c as u64);
        }
    }
    // p = r^k here; r^k + 1 never carries out of its limbs (r^k = 2^(64m) − 1 is impossible for k ≥ 2).
    let mut i = 0;
    loop {
        let (s, o) = p[i].overflowing_add(1);
        p[i] = s;
        if !o {
            break;
        }
        i += 1;
    }
    p
}

impl Gfpf {
    /// The field r^k + 1 after checking that k is a power of 2 in [2, 256], r ≥ 2 and that
    /// r^k + 1 is a (probable) prime (GMP `mpz_probab_prime_p`: Baillie–PSW plus Miller–Rabin).
    pub fn new(r: u64, k: usize) -> Result<Self> {
        if !(2..=256).contains(&k) || !k.is_power_of_two() {
            return invalid!("k = {k} is not a power of 2 in [2, 256]");
        }
        if r < 2 || r % 2 == 1 {
            // r odd makes r^k + 1 even.
            return invalid!("{r}^{k} + 1 is not prime (r must be even and at least 2)");
        }
        let f = Self::new_unchecked(r, k);
        let mut z = MaybeUninit::uninit();
        // SAFETY: roinit makes a read-only mpz over f.p, which outlives it; it is never cleared.
        let prime = unsafe {
            let z = gmp::mpz_roinit_n(z.as_mut_ptr(), f.p.as_ptr(), f.p.len() as _);
            gmp::mpz_probab_prime_p(z, 25)
        };
        if prime == 0 {
            return invalid!("{r}^{k} + 1 is not prime");
        }
        Ok(f)
    }

    /// The field without the primality test (for the built-in primes, which are tested).
    pub(super) fn new_unchecked(r: u64, k: usize) -> Self {
        Gfpf {
            r,
            k,
            p: r_pow_k_plus_1(r, k),
            div: RDiv::new(r),
            // Plans exist for every k ≥ 16 ≤ 256 with these primes; without one, products stay plain.
            crt: CrtMul::new(r, k).unwrap_or(None),
            tables: Mutex::new(Vec::new()),
        }
    }

    /// The radix r.
    pub fn radix(&self) -> u64 {
        self.r
    }

    /// The number k of digits per element.
    pub fn k(&self) -> usize {
        self.k
    }

    /// p = r^k + 1 as normalized limbs.
    pub fn prime(&self) -> &[u64] {
        &self.p
    }

    /// v₂(p − 1) = k·v₂(r): every power of two N ≤ 2^v₂ has a primitive N-th root of unity.
    pub fn two_adicity(&self) -> u64 {
        self.k as u64 * self.r.trailing_zeros() as u64
    }

    /// Whether the digit vector x (k words) is canonical: all digits < r, or the special form of −1.
    pub fn is_canonical(&self, x: &[u64]) -> bool {
        x.iter().all(|&d| d < self.r) || self.is_minus_one(x)
    }

    /// Whether x is the special form (x_{k−1} = r, others 0) of r^k ≡ −1.
    #[inline]
    pub fn is_minus_one(&self, x: &[u64]) -> bool {
        x[self.k - 1] == self.r && x[..self.k - 1].iter().all(|&d| d == 0)
    }

    /// Checks that `x` holds `n` canonical elements (n·k words).
    pub fn check_vec(&self, x: &[u64], what: &str) -> Result<()> {
        // Fast path: every digit < r (a branch-free, vectorisable scan of 256 words at a time);
        // only blocks with a digit ≥ r (the special −1, or bad input) are checked per element.
        const B: usize = 256;
        let blk = B / self.k * self.k;
        let slow = |c: &[u64]| c.iter().fold(0u64, |a, &d| a | (d >= self.r) as u64) != 0;
        if !x.chunks(blk).any(slow) {
            return Ok(());
        }
        if let Some(i) = x.chunks_exact(self.k).position(|e| !self.is_canonical(e)) {
            return invalid!("{what}[{i}] is not a canonical digit vector (digits < r = {}, or the form of p − 1)", self.r);
        }
        Ok(())
    }

    /// z = (−1)^neg·|mag| mod p as a canonical digit vector (z has k words).
    pub fn from_limbs(&self, z: &mut [u64], neg: bool, mag: &[u64]) {
        let (k, pl) = (self.k, self.p.len());
        let mag = normalized(mag);
        let mut rem = vec![0u64; pl];
        // p has at most 257 limbs: GMP's quotients by blocks, on any thread.
        rem_by_gmp(&mut rem, mag, &self.p, &mut Vec::new());
        if neg && rem.iter().any(|&l| l != 0) {
            // rem ← p − rem
            let mut t = self.p.clone();
            // SAFETY: equal lengths; p > rem so no borrow.
            unsafe { gmp::mpn_sub_n(t.as_mut_ptr(), self.p.as_ptr(), rem.as_ptr(), pl as _) };
            rem = t;
        }
        // p − 1 = r^k is the special form.
        let mut pm1 = self.p.clone();
        pm1[0] -= 1; // p is odd, so its low limb is ≥ 1
        if rem == pm1 {
            z.fill(0);
            z[k - 1] = self.r;
            return;
        }
        // Digits by repeated division by r (O(k²) words; conversions are boundary operations).
        for d in z.iter_mut().take(k) {
            // SAFETY: in-place mpn_divrem_1 (identical areas are allowed), r ≠ 0.
            *d = unsafe { gmp::mpn_divrem_1(rem.as_mut_ptr(), 0, rem.as_ptr(), pl as _, self.r) };
        }
    }

    /// The value in [0, p) of the canonical digit vector x, as p.len() limbs (high zeros allowed).
    pub fn to_limbs(&self, out: &mut [u64], x: &[u64]) {
        out.fill(0);
        if self.is_minus_one(x) {
            out[..self.p.len()].copy_from_slice(&self.p);
            out[0] -= 1;
            return;
        }
        // Horner: acc ← acc·r + x_i, i = k−1 … 0 (acc < r^k < p fits).
        for &d in x[..self.k].iter().rev() {
            let mut c = d as u128;
            for l in out.iter_mut() {
                let t = (*l as u128) * (self.r as u128) + c;
                *l = t as u64;
                c = t >> 64;
            }
        }
    }

    /// The digit vector of the small integer a (any value: reduced mod p).
    pub fn from_u64(&self, a: u64) -> Vec<u64> {
        let mut z = vec![0u64; self.k];
        self.from_limbs(&mut z, false, &[a]);
        z
    }

    /// The cached twiddle table for (N, ω) if any, else builds it with `make` and caches it
    /// (the two most recent tables are kept: at N = 2^20 a P4 table is 128 MiB).
    pub(super) fn twiddles(&self, n: usize, omega: &[u64], make: impl FnOnce() -> Result<Twiddles>) -> Result<Arc<Twiddles>> {
        if let Some(t) = self.tables.lock().unwrap().iter().find(|t| t.n == n && t.omega == omega) {
            return Ok(t.clone());
        }
        let t = Arc::new(make()?);
        let mut c = self.tables.lock().unwrap();
        if c.len() >= 2 {
            c.remove(0);
        }
        c.push(t.clone());
        Ok(t)
    }
}
