//! Negacyclic transforms of the convolution engines: a tfhe-ntt plan ([`super::plan`]) below
//! [`NMOD_NEGACYCLIC_SPLIT_MIN_N`], and above it the same product computed from short tfhe-ntt
//! transforms, four-step style ([Bailey 1990]), so that a stop is seen between two of them and no
//! plan of the full length (4n twiddle words, built with a division each) is needed.
//!
//! **Split.** n = R·C (R = 2^⌊log₂n/2⌋ ≤ C), index j = r·C + c. With y = x^C,
//! x^n + 1 = y^R + 1 = Π_k (x^C − ω_k) over the R roots ω_k of y^R + 1, so by the CRT
//! Z/p\[x\]/(x^n + 1) ≅ Π_k Z/p\[x\]/(x^C − ω_k):
//! 1. columns: for each c, the length-R negacyclic transform of (a_{r·C+c})_r gives
//!    B_k\[c\] = Σ_r a_{r·C+c}·ω_k^r, and B_k(x) = Σ_c B_k\[c\]·x^c ≡ a(x) mod (x^C − ω_k)
//!    (ω_k in the plan's output order: the transform of y itself);
//! 2. rows: with λ_k^C = −ω_k, x = λ_k·x′ maps x^C − ω_k to −ω_k·(x′^C + 1), so row k is twisted,
//!    B_k\[c\] ← λ_k^c·B_k\[c\], and transformed by the length-C negacyclic plan.
//!
//! A product of spectra row by row is then the product modulo every x^C − ω_k, hence modulo
//! x^n + 1; the inverse undoes the rows (untwist by λ_k^(−c)), then the columns. λ_k = ψ^(e_k) for
//! a primitive 2n-th root ψ, where −ω_k = (ψ^C)^(e_k) (ψ^C is a primitive 2R-th root). The twists
//! ride on the row plan's pointwise product: its factor C^(−1) is folded into the twist vectors.
//!
//! Contract (both kinds): `fwd` and `inv` act in place on n residues < p; `inv(mul_assign_normalize
//! (fwd(a), fwd(b)))` is a·b mod (x^n + 1), bit for bit the same whichever kind computes it (it is
//! the unique product). A stopped call (`cur`) skips the remaining pieces of a split transform,
//! leaving x unspecified: the caller checks `cur` afterwards and discards x.
use super::plan::{plan, Plan};
use super::prime::{invmod, mul_shoup, mulmod, powmod, primitive_root_of_unity, shoup};
use crate::int::try_zeroed;
use crate::interrupt::Current;
use crate::tuning::NMOD_NEGACYCLIC_SPLIT_MIN_N;
use crate::{Error, Result};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Adjacent columns transformed together (one cache line of each row per visit).
const STRIP: usize = 8;

/// A negacyclic transform of length n modulo p (see the module documentation).
pub enum Negacyclic {
    /// One tfhe-ntt plan of length n.
    Direct(Arc<Plan>),
    /// Rows and columns of short plans.
    Split(Split),
}

/// The split transform: columns of length R, rows of length C, and the twist vectors of the rows
/// (row k at k·C: C·λ_k^c forward, C·R^(−1)·λ_k^(−c) inverse, c < C; 16n bytes, half the tables of a
/// tfhe-ntt plan of length n).
pub struct Split {
    r: usize,
    c: usize,
    col: Arc<Plan>,
    row: Arc<Plan>,
    twist: Vec<u64>,
    untwist: Vec<u64>,
}

/// The transform of length n modulo p, cached per (n, p) for the first `cache` primes a caller
/// uses (see [`super::convolution`]); a split one for n ≥ [`NMOD_NEGACYCLIC_SPLIT_MIN_N`].
pub fn negacyclic(n: usize, p: u64, cache: bool) -> Result<Arc<Negacyclic>> {
    if n < NMOD_NEGACYCLIC_SPLIT_MIN_N {
        return Ok(Arc::new(Negacyclic::Direct(if cache {
            plan(n, p)?
        } else {
            Arc::new(Plan::try_new(n, p).ok_or_else(|| Error::Internal(format!("no negacyclic NTT of size {n} modulo {p}")))?)
        })));
    }
    type Cache = Mutex<HashMap<(usize, u64), Arc<Negacyclic>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache_map = CACHE.get_or_init(Default::default);
    if let Some(t) = cache_map.lock().unwrap_or_else(|e| e.into_inner()).get(&(n, p)) {
        return Ok(Arc::clone(t));
    }
    let t = Arc::new(Negacyclic::Split(Split::new(n, p)?));
    if cache {
        cache_map.lock().unwrap_or_else(|e| e.into_inner()).insert((n, p), Arc::clone(&t));
    }
    Ok(t)
}

impl Negacyclic {
    /// Coefficients to spectrum, in place.
    pub fn fwd(&self, x: &mut [u64], cur: &Current) {
        match self {
            Negacyclic::Direct(pl) => pl.fwd(x),
            Negacyclic::Split(s) => {
                s.columns(x, false, cur);
                s.rows(x, false, cur);
            }
        }
    }

    /// Spectrum to coefficients, in place (after [`Negacyclic::mul_assign_normalize`]).
    pub fn inv(&self, x: &mut [u64], cur: &Current) {
        match self {
            Negacyclic::Direct(pl) => pl.inv(x),
            Negacyclic::Split(s) => {
                s.rows(x, true, cur);
                s.columns(x, true, cur);
            }
        }
    }

    /// x ← x·y, pointwise on spectra, with the normalisation that [`Negacyclic::inv`] expects.
    pub fn mul_assign_normalize(&self, x: &mut [u64], y: &[u64]) {
        match self {
            Negacyclic::Direct(pl) => pl.mul_assign_normalize(x, y),
            Negacyclic::Split(s) => {
                for (a, b) in x.chunks_exact_mut(s.c).zip(y.chunks_exact(s.c)) {
                    s.row.mul_assign_normalize(a, b);
                }
            }
        }
    }
}

/// A shared pointer to the columns of one buffer; each task touches only its own columns.
struct Columns(*mut u64);
// SAFETY: the tasks of `Split::columns` read and write disjoint columns.
unsafe impl Send for Columns {}
// SAFETY: as above.
unsafe impl Sync for Columns {}

impl Columns {
    fn at(&self, i: usize) -> *mut u64 {
        // SAFETY: callers stay inside the buffer.
        unsafe { self.0.add(i) }
    }
}

impl Split {
    fn new(n: usize, p: u64) -> Result<Split> {
        let r = 1usize << (n.trailing_zeros() / 2);
        let c = n / r;
        let (col, row) = (plan(r, p)?, plan(c, p)?);
        let psi = primitive_root_of_unity(2 * n as u64, p)?;
        let zeta = powmod(psi, c as u64, p);
        // The roots ω_k of y^R + 1 in the column plan's order: the transform of y.
        let mut omega = vec![0u64; r];
        omega[1] = 1;
        col.fwd(&mut omega);
        let mut log = HashMap::with_capacity(2 * r);
        let mut z = 1u64;
        for e in 0..2 * r as u64 {
            log.insert(z, e);
            z = mulmod(z, zeta, p);
        }
        let exps = omega
            .iter()
            .map(|&w| log.get(&(p - w)).copied().ok_or_else(|| Error::Internal(format!("split NTT: {w} is no root of y^{r} + 1 mod {p}"))))
            .collect::<Result<Vec<u64>>>()?;
        let cm = c as u64 % p;
        let (fwd_scale, inv_scale) = (cm, mulmod(cm, invmod(r as u64 % p, p), p));
        let mut twist = try_zeroed(n)?;
        let mut untwist = try_zeroed(n)?;
        let cur = crate::interrupt::current();
        twist.par_chunks_mut(c).zip(untwist.par_chunks_mut(c)).zip(exps.par_iter().zip(&omega)).for_each(|((t, u), (&e, &w))| {
            if cur.is_stopped() {
                return;
            }
            // λ = ψ^e with λ^C = (ψ^C)^e = −ω_k.
            let (l, li) = (powmod(psi, e, p), powmod(psi, 2 * n as u64 - e, p));
            debug_assert_eq!(powmod(l, c as u64, p), p - w);
            for (v, w, scale) in [(t, l, fwd_scale), (u, li, inv_scale)] {
                let wq = shoup(w, p);
                let mut x = scale;
                for y in v.iter_mut() {
                    *y = x;
                    x = mul_shoup(x, w, wq, p);
                }
            }
        });
        // A stopped call left the tables unfinished: they are not kept.
        cur.check()?;
        Ok(Split { r, c, col, row, twist, untwist })
    }

    /// Step 1 (or its inverse): the length-R transforms of the columns, [`STRIP`] at a time.
    fn columns(&self, x: &mut [u64], inverse: bool, cur: &Current) {
        let (r, c) = (self.r, self.c);
        assert_eq!(x.len(), r * c);
        let base = Columns(x.as_mut_ptr());
        let base = &base;
        (0..c / STRIP).into_par_iter().for_each_init(
            || vec![0u64; STRIP * r],
            |t, s| {
                if cur.is_stopped() {
                    return;
                }
                let c0 = s * STRIP;
                for i in 0..r {
                    // SAFETY: row i, columns c0 .. c0 + STRIP ≤ C of this task only.
                    let src = unsafe { std::slice::from_raw_parts(base.at(i * c + c0), STRIP) };
                    for (j, &v) in src.iter().enumerate() {
                        t[j * r + i] = v;
                    }
                }
                for line in t.chunks_exact_mut(r) {
                    if inverse {
                        self.col.inv(line);
                    } else {
                        self.col.fwd(line);
                    }
                }
                for i in 0..r {
                    // SAFETY: as above.
                    let dst = unsafe { std::slice::from_raw_parts_mut(base.at(i * c + c0), STRIP) };
                    for (j, v) in dst.iter_mut().enumerate() {
                        *v = t[j * r + i];
                    }
                }
            },
        );
    }

    /// Step 2 (or its inverse): twist and transform each row, or transform back and untwist.
    fn rows(&self, x: &mut [u64], inverse: bool, cur: &Current) {
        let tw = if inverse { &self.untwist } else { &self.twist };
        x.par_chunks_mut(self.c).zip(tw.par_chunks(self.c)).for_each(|(row, t)| {
            if cur.is_stopped() {
                return;
            }
            if inverse {
                self.row.inv(row);
                self.row.mul_assign_normalize(row, t);
            } else {
                self.row.mul_assign_normalize(row, t);
                self.row.fwd(row);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    /// The negacyclic product by the split transform equals tfhe-ntt's direct one (itself checked
    /// against a naive product in `super::plan`), for both prime families and unbalanced R < C.
    #[test]
    fn split_products_equal_direct_ones() {
        let cur = crate::interrupt::current();
        let mut rng = Rng(5);
        for &p in &[1108307720798209u64, 29 << 57 | 1] {
            for logn in [8u32, 9, 12, 13] {
                let n = 1usize << logn;
                let s = Negacyclic::Split(Split::new(n, p).unwrap());
                let d = Negacyclic::Direct(plan(n, p).unwrap());
                let mut a: Vec<u64> = (0..n).map(|_| rng.next() % p).collect();
                let b: Vec<u64> = (0..n).map(|_| rng.next() % p).collect();
                a[0] = p - 1;
                let mut prods = Vec::new();
                for t in [&s, &d] {
                    let (mut x, mut y) = (a.clone(), b.clone());
                    t.fwd(&mut x, &cur);
                    t.fwd(&mut y, &cur);
                    t.mul_assign_normalize(&mut x, &y);
                    t.inv(&mut x, &cur);
                    prods.push(x);
                }
                assert_eq!(prods[0], prods[1], "p = {p}, n = 2^{logn}");
                // The inverse undoes the forward transform (a·1 = a).
                let mut one = vec![0u64; n];
                one[0] = 1;
                let mut x = a.clone();
                s.fwd(&mut x, &cur);
                s.fwd(&mut one, &cur);
                s.mul_assign_normalize(&mut x, &one);
                s.inv(&mut x, &cur);
                assert_eq!(x, a);
            }
        }
    }

    /// A stopped call builds no split tables (it returns `Err(Interrupted)`); the next call does.
    #[test]
    fn a_stopped_call_builds_no_tables() {
        let p = 1108307720798209u64;
        let r = crate::interrupt::call(|| {
            crate::interrupt::stop_current();
            Split::new(1 << 12, p).err()
        });
        assert!(matches!(r, Some(Error::Interrupted(_))), "{r:?}");
        assert!(crate::interrupt::call(|| Split::new(1 << 12, p)).is_ok());
    }
}
