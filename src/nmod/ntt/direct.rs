//! The direct transform for n < [`NTT_FOUR_STEP_MIN_N`]: X_i = Σ_j x_j·w^(ij mod n), O(n²) Shoup
//! products from a table of the n powers of w; the inverse uses w^(−ij) and multiplies by n^(−1).
//! Input reduced (the caller checks), output in [0, p).
use crate::nmod::prime::{addmod, invmod, mul_shoup, powmod, shoup};
use crate::tuning::NTT_FOUR_STEP_MIN_N;

/// The direct O(n²) transform for n < [`NTT_FOUR_STEP_MIN_N`].
pub(super) struct Direct {
    pub(super) p: u64,
    /// w^k and its Shoup constant, k < n.
    pw: Vec<(u64, u64)>,
    n_inv: (u64, u64),
}

impl Direct {
    pub(super) fn new(n: usize, w: u64, p: u64) -> Self {
        let pw = (0..n as u64).map(|k| powmod(w, k, p)).map(|v| (v, shoup(v, p))).collect();
        let ni = invmod(n as u64 % p, p);
        Direct { p, pw, n_inv: (ni, shoup(ni, p)) }
    }

    pub(super) fn run(&self, x: &mut [u64], inverse: bool) {
        let (n, p) = (x.len(), self.p);
        let mut out = [0u64; NTT_FOUR_STEP_MIN_N];
        for (i, o) in out[..n].iter_mut().enumerate() {
            let mut acc = 0u64;
            for (j, &xj) in x.iter().enumerate() {
                let e = (i * j) % n;
                let (v, vs) = self.pw[if inverse { (n - e) % n } else { e }];
                acc = addmod(acc, mul_shoup(xj, v, vs, p), p);
            }
            *o = if inverse { mul_shoup(acc, self.n_inv.0, self.n_inv.1, p) } else { acc };
        }
        x.copy_from_slice(&out[..n]);
    }
}
