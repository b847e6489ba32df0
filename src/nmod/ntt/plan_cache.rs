//! The transform for (n, w, p): validated once (p an odd prime < 2^63, n a power of two, w of exact
//! order n), kept in a process-wide cache, and run by the direct sum below [`NTT_FOUR_STEP_MIN_N`] or by
//! the four-step from there on.
use super::direct::Direct;
use super::four_step::FourStep;
use crate::nmod::prime::{check_modulus, check_reduced, powmod};
use crate::tuning::NTT_FOUR_STEP_MIN_N;
use crate::{invalid, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// A cyclic NTT of size n modulo p at root w (validated once, cached).
pub struct Ntt {
    n: usize,
    kind: Kind,
}

enum Kind {
    Direct(Direct),
    FourStep(Box<FourStep>),
}

/// The cached transform for (n, w, p), after validating p (odd prime < 2^63), n (a power of two)
/// and w (a residue of exact multiplicative order n).
pub fn ntt_plan(n: usize, w: u64, p: u64) -> Result<Arc<Ntt>> {
    type Cache = Mutex<HashMap<(usize, u64, u64), Arc<Ntt>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(t) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&(n, w, p)) {
        return Ok(Arc::clone(t));
    }
    let t = Arc::new(Ntt::new(n, w, p)?);
    let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
    if c.len() >= 256 {
        c.clear();
    }
    c.insert((n, w, p), Arc::clone(&t));
    Ok(t)
}

/// `Ok` when w has exact multiplicative order n (n a power of two) modulo p.
pub fn check_root(n: usize, w: u64, p: u64) -> Result<()> {
    if n == 0 || !n.is_power_of_two() {
        return invalid!("transform length {n} is not a power of two");
    }
    if w >= p {
        return invalid!("root {w} is not reduced modulo {p}");
    }
    let order_ok = if n == 1 { w == 1 } else { powmod(w, n as u64 / 2, p) == p - 1 };
    if !order_ok {
        return invalid!("{w} is not a primitive {n}-th root of unity modulo {p}");
    }
    Ok(())
}

impl Ntt {
    fn new(n: usize, w: u64, p: u64) -> Result<Self> {
        check_modulus(p)?;
        check_root(n, w, p)?;
        let kind =
            if n >= NTT_FOUR_STEP_MIN_N { Kind::FourStep(Box::new(FourStep::new(n, w, p))) } else { Kind::Direct(Direct::new(n, w, p)) };
        Ok(Ntt { n, kind })
    }

    /// Transform length n.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Always false: a transform has length ≥ 1.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Builds the twiddle tables of one direction now (else the first transform does).
    pub fn prepare(&self, inverse: bool) -> Result<()> {
        match &self.kind {
            Kind::Direct(_) => Ok(()),
            Kind::FourStep(f) => f.dir(inverse).map(|_| ()),
        }
    }

    /// Forward transform of x in place; `tmp` has length n. Fails, x untouched, with
    /// `InvalidArgument` when some x_j ≥ p (the four-step checks while pass 1 reads x, the direct
    /// sum scans first), and when the twiddle tables (2n or 16n bytes, built on first use) cannot
    /// be allocated.
    pub fn forward(&self, x: &mut [u64], tmp: &mut [u64]) -> Result<()> {
        self.run(x, tmp, false)
    }

    /// Inverse transform (at w^(−1), times n^(−1)) of x in place, failing as [`Ntt::forward`];
    /// `tmp` has length n.
    pub fn inverse(&self, x: &mut [u64], tmp: &mut [u64]) -> Result<()> {
        self.run(x, tmp, true)
    }

    fn run(&self, x: &mut [u64], tmp: &mut [u64], inverse: bool) -> Result<()> {
        assert!(x.len() == self.n && tmp.len() == self.n);
        match &self.kind {
            Kind::Direct(d) => {
                check_reduced(x, d.p, "x")?;
                d.run(x, inverse);
                Ok(())
            }
            Kind::FourStep(f) => f.run(x, tmp, inverse),
        }
    }
}
