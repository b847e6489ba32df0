//! Cyclic NTT over Z/pZ with a caller-given root: x_i ← Σ_j x_j·w^(ij), natural order in and out.
//!
//! n is a power of two, p an odd prime < 2^63 and w an element of exact order n. The transform is
//! built from tfhe-ntt's negacyclic kernels (AVX-512, IFMA for p < 2^50) by the radix-2 split of
//! the cyclic DFT into its even and odd outputs: with h = n/2, a_j = x_j + x_(j+h), b_j = x_j − x_(j+h),
//!
//! - X_(2i)   = Σ_j a_j·(w²)^(ij)  (a cyclic DFT of size h at w², split again the same way),
//! - X_(2i+1) = Σ_j b_j·w^(j(2i+1)) = B(w^(2i+1)) (a negacyclic DFT of size h: w is a primitive
//!   2h-th root, so it only needs n | p − 1, the caller's condition, and no twist).
//!
//! The recursion stops at a cyclic base of size ≤ 16 done directly. tfhe-ntt evaluates b at the odd
//! powers of its own primitive 2m-th root ψ (m = block size), ψ^(2·rev(t)+1) in slot t (rev = bit
//! reversal on log2 m bits); our root u = w^(2^r) of level r is ψ^s for an odd s found once by a
//! discrete logarithm (Pohlig–Hellman in the 2-group), so B(u^(2i+1)) sits in slot
//! t = rev(((s·(2i+1)) mod 2m − 1)/2). One gather puts every output in natural order; the inverse
//! scatters, runs the inverse kernels (which leave a factor m) and the butterflies backwards
//! (a + b, a − b without halving), and multiplies by n^(−1) once at the end.
//!
//! Work: Σ_r (m_r/2)·log2 m_r butterflies ≈ one negacyclic NTT of size n, plus ≈ 2n additions and
//! one permutation pass (a tabulated index). Levels are independent, so they run in parallel (rayon)
//! for large n. That is the `Direct` transform, used below `FOUR_STEP_MIN`.
//!
//! From `FOUR_STEP_MIN` on, the scattered permutation leaves the cache, and the transform is a
//! `FourStep` instead: n = n1·n2 with n1, n2 ≈ √n, column transforms, tabulated twiddles, row
//! transforms and a blocked transpose; each small cyclic transform is a single twisted tfhe-ntt
//! negacyclic one (`Small`, possible because n1, n2 < n), so every pass is vectorised or a copy.
use super::multimod::{give, take};
use super::plan::{plan, Plan};
use super::prime::{addmod, check_modulus, check_reduced, invmod, mul_shoup, mulmod, powmod, shoup, submod};
use crate::int::try_zeroed;
use crate::runtime::{self, Backend};
use crate::{invalid, Error, Result};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Largest cyclic size done by the direct O(n²) base transform.
const BASE: usize = 16;
/// Below this size everything runs on the calling thread.
const PAR_MIN: usize = 1 << 14;
/// From this size on the transform is a [`FourStep`] (the permutation of [`Direct`] leaves L2 above it).
const FOUR_STEP_MIN: usize = 1 << 17;

/// One negacyclic level of the split: block size m = n/2^(r+1), tfhe-ntt plan, and the odd
/// exponent s with u = ψ^s (u = w^(2^r), ψ the plan's root).
struct Level {
    plan: Arc<Plan>,
    s: u64,
}

/// The radix-2 split of a cyclic NTT into tfhe-ntt negacyclic blocks (sizes below [`FOUR_STEP_MIN`]).
struct Direct {
    n: usize,
    p: u64,
    levels: Vec<Level>,
    /// Powers of the base root w^(n/base) and their Shoup constants; base = n >> levels.len().
    pw: Vec<(u64, u64)>,
    n_inv: (u64, u64),
    /// The output permutation, tabulated: X_pos sits in tmp\[perm\[pos\]\] after the block transforms.
    perm: Vec<u32>,
    /// Its inverse: tmp\[q\] takes X_(iperm\[q\]) before the inverse block transforms.
    iperm: Vec<u32>,
}

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

/// s with ψ^s = u, for ψ and u both of order 2^kk (Pohlig–Hellman: bit i of s is read off
/// (u·ψ^(−s))^(2^(kk−1−i)), which is 1 exactly when that bit is already right).
fn dlog2(u: u64, psi: u64, kk: u32, p: u64) -> u64 {
    let mut s = 0u64;
    let mut h = u; // u·ψ^(−s)
    let mut step = invmod(psi, p); // ψ^(−2^i)
    for i in 0..kk {
        let mut t = h;
        for _ in 0..kk - 1 - i {
            t = mulmod(t, t, p);
        }
        if t != 1 {
            s |= 1 << i;
            h = mulmod(h, step, p);
        }
        step = mulmod(step, step, p);
    }
    s
}

/// Bit reversal of t on `bits` bits.
#[inline]
fn rev(t: u64, bits: u32) -> u64 {
    if bits == 0 {
        0
    } else {
        t.reverse_bits() >> (64 - bits)
    }
}

impl Direct {
    /// Needs p an odd prime and w of exact order n (checked by the caller).
    fn new(n: usize, w: u64, p: u64) -> Result<Self> {
        let mut levels = Vec::new();
        let mut u = w; // root of the current cyclic size n >> r
        while n >> levels.len() > BASE {
            let m = n >> (levels.len() + 1);
            let plan = plan(m, p)?;
            let psi = root_of(&plan, p)?;
            let kk = (2 * m).trailing_zeros();
            let s = dlog2(u, psi, kk, p);
            debug_assert_eq!(powmod(psi, s, p), u);
            levels.push(Level { plan, s });
            u = mulmod(u, u, p);
        }
        let base = n >> levels.len();
        let pw = (0..base as u64).map(|k| powmod(u, k, p)).map(|v| (v, shoup(v, p))).collect();
        let ni = invmod(n as u64 % p, p);
        let mut t = Direct { n, p, levels, pw, n_inv: (ni, shoup(ni, p)), perm: Vec::new(), iperm: Vec::new() };
        if !t.levels.is_empty() {
            // X_pos with pos = 2^r·(2i+1) comes from level r, slot rev(((s·(2i+1)) mod 2m − 1)/2);
            // X_pos with 2^L | pos from the base block.
            let nl = t.levels.len();
            let mut perm = try_zeroed::<u32>(n)?;
            for (pos, q) in perm.iter_mut().enumerate() {
                let r = pos.trailing_zeros() as usize;
                *q = (if r >= nl {
                    pos >> nl
                } else {
                    let m = n >> (r + 1);
                    let e = ((pos >> r) as u64).wrapping_mul(t.levels[r].s) & (2 * m as u64 - 1);
                    m + rev(e >> 1, m.trailing_zeros()) as usize
                }) as u32;
            }
            let mut iperm = try_zeroed::<u32>(n)?;
            for (pos, &q) in perm.iter().enumerate() {
                iperm[q as usize] = pos as u32;
            }
            t.perm = perm;
            t.iperm = iperm;
        }
        Ok(t)
    }

    /// Direct DFT of the base block at w_b (or w_b^(−1) when `inverse`), unnormalised.
    fn base_dft(&self, x: &mut [u64], inverse: bool) {
        let (b, p) = (x.len(), self.p);
        let mut out = [0u64; BASE];
        for (i, o) in out[..b].iter_mut().enumerate() {
            let mut acc = 0u64;
            for (j, &xj) in x.iter().enumerate() {
                let e = (i * j) % b;
                let (v, vs) = self.pw[if inverse { (b - e) % b } else { e }];
                acc = addmod(acc, mul_shoup(xj, v, vs, p), p);
            }
            *o = acc;
        }
        x.copy_from_slice(&out[..b]);
    }

    /// Runs `f(level, block)` on every negacyclic block of `tmp` (level r at [n/2^(r+1), n/2^r)),
    /// in parallel for large n, and `base` on tmp[.. n/2^L].
    fn blocks(&self, tmp: &mut [u64], f: &(impl Fn(&Level, &mut [u64]) + Sync), base: &(impl Fn(&mut [u64]) + Sync)) {
        fn go(levels: &[Level], t: &mut [u64], f: &(impl Fn(&Level, &mut [u64]) + Sync), base: &(impl Fn(&mut [u64]) + Sync)) {
            match levels.split_first() {
                None => base(t),
                Some((lv, rest)) => {
                    let (lo, hi) = t.split_at_mut(t.len() / 2);
                    if hi.len() >= PAR_MIN {
                        rayon::join(|| f(lv, hi), || go(rest, lo, f, base));
                    } else {
                        f(lv, hi);
                        go(rest, lo, f, base);
                    }
                }
            }
        }
        go(&self.levels, tmp, f, base);
    }

    /// Forward transform of x (entries < p) in place; `tmp` has length n.
    fn forward(&self, x: &mut [u64], tmp: &mut [u64]) {
        let (n, p, nl) = (self.n, self.p, self.levels.len());
        if nl == 0 {
            return self.base_dft(x, false);
        }
        // Radix-2 splits: the first reads x, the others work in tmp on shrinking prefixes.
        let h = n / 2;
        let (tlo, thi) = tmp.split_at_mut(h);
        let (xlo, xhi) = x.split_at(h);
        let split = |(((a, b), &u), &v): (((&mut u64, &mut u64), &u64), &u64)| {
            *a = addmod(u, v, p);
            *b = submod(u, v, p);
        };
        if n >= PAR_MIN {
            tlo.par_iter_mut().zip(thi.par_iter_mut()).zip(xlo.par_iter()).zip(xhi.par_iter()).for_each(split);
        } else {
            tlo.iter_mut().zip(thi.iter_mut()).zip(xlo.iter()).zip(xhi.iter()).for_each(split);
        }
        for r in 1..nl {
            let h = n >> (r + 1);
            let (lo, hi) = tmp[..2 * h].split_at_mut(h);
            for (a, b) in lo.iter_mut().zip(hi.iter_mut()) {
                let (u, v) = (*a, *b);
                *a = addmod(u, v, p);
                *b = submod(u, v, p);
            }
        }
        self.blocks(tmp, &|lv, blk| lv.plan.fwd(blk), &|blk| self.base_dft(blk, false));
        // Gather into natural order.
        let tmp = &*tmp;
        if n >= PAR_MIN {
            x.par_iter_mut().zip(self.perm.par_iter()).with_min_len(4096).for_each(|(xo, &q)| *xo = tmp[q as usize]);
        } else {
            x.iter_mut().zip(&self.perm).for_each(|(xo, &q)| *xo = tmp[q as usize]);
        }
    }

    /// Inverse transform (at w^(−1), times n^(−1)) of x (entries < p) in place; `tmp` has length n.
    fn inverse(&self, x: &mut [u64], tmp: &mut [u64]) {
        let (n, p, nl) = (self.n, self.p, self.levels.len());
        let (ni, nis) = self.n_inv;
        if nl == 0 {
            self.base_dft(x, true);
            x.iter_mut().for_each(|v| *v = mul_shoup(*v, ni, nis, p));
            return;
        }
        // Scatter (the inverse of the gather).
        let xs = &*x;
        if n >= PAR_MIN {
            tmp.par_iter_mut().zip(self.iperm.par_iter()).with_min_len(4096).for_each(|(to, &q)| *to = xs[q as usize]);
        } else {
            tmp.iter_mut().zip(&self.iperm).for_each(|(to, &q)| *to = xs[q as usize]);
        }
        self.blocks(tmp, &|lv, blk| lv.plan.inv(blk), &|blk| self.base_dft(blk, true));
        // Undo the splits: (m·a, m·b) → (2m·x_j, 2m·x_(j+m)) = (m·a + m·b, m·a − m·b).
        for r in (1..nl).rev() {
            let h = n >> (r + 1);
            let (lo, hi) = tmp[..2 * h].split_at_mut(h);
            for (a, b) in lo.iter_mut().zip(hi.iter_mut()) {
                let (u, v) = (*a, *b);
                *a = addmod(u, v, p);
                *b = submod(u, v, p);
            }
        }
        let h = n / 2;
        let (xlo, xhi) = x.split_at_mut(h);
        let (tlo, thi) = tmp.split_at(h);
        let join = |(((a, b), &u), &v): (((&mut u64, &mut u64), &u64), &u64)| {
            *a = mul_shoup(addmod(u, v, p), ni, nis, p);
            *b = mul_shoup(submod(u, v, p), ni, nis, p);
        };
        if n >= PAR_MIN {
            xlo.par_iter_mut().zip(xhi.par_iter_mut()).zip(tlo.par_iter()).zip(thi.par_iter()).for_each(join);
        } else {
            xlo.iter_mut().zip(xhi.iter_mut()).zip(tlo.iter()).zip(thi.iter()).for_each(join);
        }
    }
}

/// A cyclic DFT of size m at a root u of order m, when 2m | p − 1, on one tfhe-ntt negacyclic
/// transform: with ψ its root (order 2m) and z_j = y_j·ψ^(−j), slot t of the negacyclic transform of z
/// is Σ_j y_j·(ψ²)^(j·rev(t)); u = (ψ²)^s for an odd s, so Y_i = Σ_j y_j·u^(ij) sits in slot
/// rev(s·i mod m). The twist runs as tfhe-ntt's vectorised pointwise product (which divides by m,
/// so the factors carry m); the caller reads Y_i at `perm[i]`.
struct Small {
    plan: Arc<Plan>,
    psi_inv: u64,
    perm: Vec<u32>,
}

impl Small {
    fn new(m: usize, u: u64, p: u64) -> Result<Self> {
        let plan = plan(m, p)?;
        let psi = root_of(&plan, p)?;
        let bits = m.trailing_zeros();
        let s = dlog2(u, mulmod(psi, psi, p), bits, p);
        let perm = (0..m as u64).map(|i| rev(i.wrapping_mul(s) & (m as u64 - 1), bits) as u32).collect();
        Ok(Small { plan, psi_inv: invmod(psi, p), perm })
    }

    /// out\[j\] = c·r^j·ψ^(−j)·m mod p for j < m: the factors that twist and scale a row before `run`.
    fn factors(&self, out: &mut [u64], c: u64, r: u64, p: u64) {
        let step = mulmod(r, self.psi_inv, p);
        let step_sh = shoup(step, p);
        let mut t = mulmod(c, out.len() as u64 % p, p);
        for o in out {
            *o = t;
            t = mul_shoup(t, step, step_sh, p);
        }
    }

    /// v ← negacyclic transform of (v_j·f_j/m), f from [`Small::factors`].
    #[inline]
    fn run(&self, v: &mut [u64], f: &[u64]) {
        self.plan.mul_assign_normalize(v, f);
        self.plan.fwd(v);
    }
}

/// tfhe-ntt's root ψ of a plan of size m: its transform puts ψ^(2·rev(t)+1) in slot t.
fn root_of(plan: &Plan, p: u64) -> Result<u64> {
    let m = plan.ntt_size();
    let mut e1 = try_zeroed::<u64>(m)?;
    e1[1] = 1;
    plan.fwd(&mut e1);
    if e1[1] != p - e1[0] {
        return Err(Error::Internal(format!("unexpected tfhe-ntt output order (m = {m}, p = {p})")));
    }
    Ok(e1[0])
}

/// Words moved per row in the blocked column and transposing passes (one 64-byte line).
const BLK: usize = 8;

/// A raw pointer shared by the rayon tasks of a four-step pass, each writing its own entries.
#[derive(Clone, Copy)]
struct SharedMut(*mut u64);
// SAFETY: only used where the tasks write disjoint index sets and nothing reads them meanwhile.
unsafe impl Send for SharedMut {}
unsafe impl Sync for SharedMut {}

/// The four-step split of a large cyclic NTT ([Bailey 1990], "FFTs in external or hierarchical
/// memory"): n = n1·n2, input index j = j1·n2 + j2, output index i = i1 + n1·i2, so that
/// w^(ij) = (w^n2)^(j1·i1)·w^(i1·j2)·(w^n1)^(j2·i2) and
///
/// X_(i1 + n1·i2) = Σ_j2 (w^n1)^(j2·i2) · w^(i1·j2) · Σ_j1 (w^n2)^(j1·i1) · x_(j1·n2 + j2).
///
/// Column pass (x → tmp): blocks of [`BLK`] columns are copied out (one cache line per row), each
/// column gets a size-n1 [`Small`] transform at w^n2, and goes back in natural order. Row pass
/// (tmp → x): row i1 is multiplied by its tabulated twiddles w^(i1·j2) (with the row transform's
/// twist) and transformed at w^n1, and blocks of [`BLK`] rows are written transposed (again one
/// line per write). n1, n2 ≤ n/2, so 2·n1 and 2·n2 divide p − 1 as [`Small`] needs, and both are
/// ≤ 2^11 for n ≤ 2^22, so every transform runs in L1/L2. The inverse is the same at w^(−1), with
/// n^(−1) in its twiddles. Memory: the two twiddle tables, 16n bytes.
struct FourStep {
    n1: usize,
    n2: usize,
    /// Forward \[0\] and inverse \[1\]: column transforms (size n1 at w^(±n2)) and their factors,
    /// row transforms (size n2 at w^(±n1)) and the twiddle table (n1 rows of n2 factors).
    col: [Small; 2],
    col_f: [Vec<u64>; 2],
    row: [Small; 2],
    tw: [Vec<u64>; 2],
}

impl FourStep {
    fn new(n: usize, w: u64, p: u64) -> Result<Self> {
        let n1 = 1usize << (n.trailing_zeros() / 2);
        let n2 = n / n1;
        let wi = invmod(w, p);
        let ni = invmod(n as u64 % p, p);
        let col = [Small::new(n1, powmod(w, n2 as u64, p), p)?, Small::new(n1, powmod(wi, n2 as u64, p), p)?];
        let row = [Small::new(n2, powmod(w, n1 as u64, p), p)?, Small::new(n2, powmod(wi, n1 as u64, p), p)?];
        let mut col_f = [try_zeroed(n1)?, try_zeroed(n1)?];
        let mut tw = [try_zeroed(n)?, try_zeroed(n)?];
        for (k, (root, scale)) in [(w, 1u64), (wi, ni)].into_iter().enumerate() {
            col[k].factors(&mut col_f[k], 1, 1, p);
            let (rw, tk) = (&row[k], &mut tw[k]);
            tk.par_chunks_mut(n2).enumerate().with_min_len(16).for_each(|(i1, t)| rw.factors(t, scale, powmod(root, i1 as u64, p), p));
        }
        Ok(FourStep { n1, n2, col, col_f, row, tw })
    }

    /// The forward (or, with `inv`, the inverse) transform of x in place, tmp of length n as scratch.
    fn run(&self, x: &mut [u64], tmp: &mut [u64], inv: bool) {
        let (n1, n2, k) = (self.n1, self.n2, inv as usize);
        let (col, col_f, row, tw) = (&self.col[k], &self.col_f[k][..], &self.row[k], &self.tw[k][..]);
        let blocks_min = (PAR_MIN / (BLK * n1)).max(1);
        let out = SharedMut(tmp.as_mut_ptr());
        let xs = &*x;
        (0..n2 / BLK).into_par_iter().with_min_len(blocks_min).for_each_init(
            || vec![0u64; BLK * n1],
            |buf, c| {
                let c0 = c * BLK;
                for i1 in 0..n1 {
                    let src = &xs[i1 * n2 + c0..][..BLK];
                    for (b, &v) in src.iter().enumerate() {
                        buf[b * n1 + i1] = v;
                    }
                }
                buf.chunks_exact_mut(n1).for_each(|colv| col.run(colv, col_f));
                let out = out;
                for (i1, &q) in col.perm.iter().enumerate() {
                    // SAFETY: task c alone writes columns c0..c0+BLK of tmp (n1 × n2, row-major).
                    let dst = unsafe { std::slice::from_raw_parts_mut(out.0.add(i1 * n2 + c0), BLK) };
                    for (b, d) in dst.iter_mut().enumerate() {
                        *d = buf[b * n1 + q as usize];
                    }
                }
            },
        );
        let out = SharedMut(x.as_mut_ptr());
        tmp.par_chunks_mut(BLK * n2).zip(tw.par_chunks(BLK * n2)).enumerate().with_min_len(blocks_min).for_each(|(r, (rows, t))| {
            rows.chunks_exact_mut(n2).zip(t.chunks_exact(n2)).for_each(|(rowv, tr)| row.run(rowv, tr));
            let out = out;
            for (i2, &q) in row.perm.iter().enumerate() {
                // SAFETY: task r alone writes x[r·BLK + n1·i2 ..][..BLK] (columns r·BLK.. of the
                // n2 × n1 output), and x is not read in this pass.
                let dst = unsafe { std::slice::from_raw_parts_mut(out.0.add(r * BLK + n1 * i2), BLK) };
                for (b, d) in dst.iter_mut().enumerate() {
                    *d = rows[b * n2 + q as usize];
                }
            }
        });
    }
}

impl Ntt {
    fn new(n: usize, w: u64, p: u64) -> Result<Self> {
        check_modulus(p)?;
        check_root(n, w, p)?;
        let kind = if n >= FOUR_STEP_MIN { Kind::FourStep(Box::new(FourStep::new(n, w, p)?)) } else { Kind::Direct(Direct::new(n, w, p)?) };
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

    /// Forward transform of x (entries < p) in place; `tmp` has length n.
    pub fn forward(&self, x: &mut [u64], tmp: &mut [u64]) {
        assert!(x.len() == self.n && tmp.len() == self.n);
        match &self.kind {
            Kind::Direct(d) => d.forward(x, tmp),
            Kind::FourStep(f) => f.run(x, tmp, false),
        }
    }

    /// Inverse transform (at w^(−1), times n^(−1)) of x (entries < p) in place; `tmp` has length n.
    pub fn inverse(&self, x: &mut [u64], tmp: &mut [u64]) {
        assert!(x.len() == self.n && tmp.len() == self.n);
        match &self.kind {
            Kind::Direct(d) => d.inverse(x, tmp),
            Kind::FourStep(f) => f.run(x, tmp, true),
        }
    }
}

/// Row length from which `Backend::Auto` sends transforms to the GPU, when one is usable. Measured
/// end to end on an H100 host (16 cores, bench/results/gpu-h100.md): single rows win on the GPU
/// from 2^14 (barely) to 2^24 (3.7× at 62 bits), while any batch of 2^10-point rows stays faster
/// on the CPU (0.2–0.7×, up to 2^24 points in all): the pageable transfers, 16 bytes a point, cost
/// more than the CPU's cache-resident short rows. So the rule is on n, not on the total.
const GPU_MIN_LEN: usize = 1 << 20;

/// Whether rows of length n go to the GPU: always with `Backend::Gpu` (`NoCudaDevice` when none
/// is usable), from [`GPU_MIN_LEN`] with `Backend::Auto`.
fn on_gpu(n: usize) -> Result<bool> {
    Ok(match runtime::backend() {
        Backend::Cpu => false,
        Backend::Gpu => {
            crate::gpu::device::current()?;
            true
        }
        Backend::Auto => n >= GPU_MIN_LEN && runtime::gpu_available(),
    })
}

/// Forward or inverse transform of every row of length n of x, rows in parallel, on the backend's
/// device (the GPU transform computes the same residues: both are exact).
fn rows(x: &mut [u64], n: usize, w: u64, p: u64, inverse: bool) -> Result<()> {
    let t = ntt_plan(n, w, p)?;
    if x.len() % n != 0 {
        return invalid!("{} entries are not a whole number of rows of length {n}", x.len());
    }
    check_reduced(x, p, "x")?;
    if on_gpu(n)? {
        return crate::gpu::ntt::ntt_many(x, x.len() / n, n, w, p, inverse);
    }
    if x.len() == n {
        // Pooled scratch: a fresh n-word buffer costs page faults and zeroing on every call.
        let mut tmp = take(n)?;
        if inverse {
            t.inverse(x, &mut tmp)
        } else {
            t.forward(x, &mut tmp)
        }
        give(tmp);
        return Ok(());
    }
    x.par_chunks_mut(n).try_for_each_init(
        || try_zeroed::<u64>(n),
        |tmp, row| {
            let tmp = tmp.as_mut().map_err(|e| e.clone())?;
            if inverse {
                t.inverse(row, tmp)
            } else {
                t.forward(row, tmp)
            }
            Ok(())
        },
    )
}

/// x ← (Σ_j x_j·w^(ij))_i in place, n = x.len() a power of two, w of exact order n mod p, every
/// x_j < p (else `InvalidArgument`, x untouched).
pub fn ntt(x: &mut [u64], w: u64, p: u64) -> Result<()> {
    rows(x, x.len(), w, p, false)
}

/// The inverse of [`ntt`] with the same w: x ← (n^(−1)·Σ_j x_j·w^(−ij))_i.
pub fn intt(x: &mut [u64], w: u64, p: u64) -> Result<()> {
    rows(x, x.len(), w, p, true)
}

/// [`ntt`] of each of the x.len()/n rows of x (row-major), rows in parallel.
pub fn ntt_many(x: &mut [u64], n: usize, w: u64, p: u64) -> Result<()> {
    rows(x, n, w, p, false)
}

#[cfg(test)]
mod tests {
    use super::super::prime::{fourier_primes, primitive_root_of_unity};
    use super::*;

    fn naive(x: &[u64], w: u64, p: u64) -> Vec<u64> {
        let n = x.len() as u64;
        (0..n)
            .map(|i| x.iter().enumerate().fold(0u64, |acc, (j, &v)| addmod(acc, mulmod(v, powmod(w, i * j as u64 % n, p), p), p)))
            .collect()
    }

    fn rand_vec(n: usize, p: u64, seed: u64) -> Vec<u64> {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|i| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                match i % 11 {
                    0 => p - 1,
                    1 => 0,
                    _ => s % p,
                }
            })
            .collect()
    }

    /// Primes: tiny and mid Fourier primes (7681 = 15·2^9+1 has exactly 2-adicity 9), the
    /// largest Fourier primes below 2^50, 2^62 and 2^63.
    fn primes() -> Vec<u64> {
        let mut v = vec![257, 7681, 12289, 998_244_353];
        v.extend(fourier_primes(50, 20, 1));
        v.extend(fourier_primes(62, 20, 1));
        v.extend(fourier_primes(63, 20, 2));
        v
    }

    #[test]
    fn matches_naive_dft() {
        for p in primes() {
            let k2 = (p - 1).trailing_zeros();
            for lg in 0..=8u32.min(k2) {
                let n = 1usize << lg;
                let w0 = primitive_root_of_unity(n as u64, p).unwrap();
                // Several roots of order n (odd powers of w0), so the exponent bookkeeping is exercised.
                for e in [1u64, 3, (n as u64).saturating_sub(1).max(1)] {
                    let w = powmod(w0, e, p);
                    let x = rand_vec(n, p, n as u64 + e + p);
                    let mut y = x.clone();
                    ntt(&mut y, w, p).unwrap();
                    assert_eq!(y, naive(&x, w, p), "p = {p}, n = {n}, w = {w}");
                    intt(&mut y, w, p).unwrap();
                    assert_eq!(y, x, "round trip p = {p}, n = {n}");
                }
            }
        }
    }

    #[test]
    fn round_trip_large_and_exact_2adicity() {
        // 7681 − 1 = 15·2^9: n = 512 uses all the 2-adicity.
        for (lg, p) in [(9u32, 7681u64), (16, fourier_primes(50, 20, 1)[0]), (17, fourier_primes(63, 20, 1)[0]), (15, fourier_primes(62, 20, 1)[0])] {
            let n = 1usize << lg;
            let w = primitive_root_of_unity(n as u64, p).unwrap();
            let x = rand_vec(n, p, lg as u64);
            let mut y = x.clone();
            ntt(&mut y, w, p).unwrap();
            // Spot-check a few outputs against the definition.
            for i in [0usize, 1, n / 2 + 3, n - 1] {
                let wi = powmod(w, i as u64, p);
                let mut acc = 0;
                let mut wij = 1;
                for &v in &x {
                    acc = addmod(acc, mulmod(v, wij, p), p);
                    wij = mulmod(wij, wi, p);
                }
                assert_eq!(y[i], acc, "p = {p}, n = {n}, i = {i}");
            }
            intt(&mut y, w, p).unwrap();
            assert_eq!(y, x, "p = {p}, n = {n}");
        }
    }

    #[test]
    fn four_step_matches_naive() {
        // The four-step path at sizes where the naive DFT is affordable (n1, n2 ≥ 16).
        for p in primes() {
            let k2 = (p - 1).trailing_zeros();
            for lg in 8..=10u32.min(k2) {
                let n = 1usize << lg;
                let w0 = primitive_root_of_unity(n as u64, p).unwrap();
                for e in [1u64, 3, n as u64 - 1] {
                    let w = powmod(w0, e, p);
                    let fs = FourStep::new(n, w, p).unwrap();
                    let x = rand_vec(n, p, n as u64 + e + p);
                    let (mut y, mut tmp) = (x.clone(), vec![0; n]);
                    fs.run(&mut y, &mut tmp, false);
                    assert_eq!(y, naive(&x, w, p), "p = {p}, n = {n}, w = {w}");
                    fs.run(&mut y, &mut tmp, true);
                    assert_eq!(y, x, "round trip p = {p}, n = {n}");
                }
            }
        }
    }

    #[test]
    fn many_matches_rows() {
        let p = fourier_primes(62, 20, 1)[0];
        for (n, count) in [(1usize, 5usize), (16, 3), (64, 7), (1024, 4)] {
            let w = primitive_root_of_unity(n as u64, p).unwrap();
            let x = rand_vec(n * count, p, 9);
            let mut y = x.clone();
            ntt_many(&mut y, n, w, p).unwrap();
            for (row, out) in x.chunks(n).zip(y.chunks(n)) {
                let mut r = row.to_vec();
                ntt(&mut r, w, p).unwrap();
                assert_eq!(r, out);
            }
        }
    }

    #[test]
    fn bad_inputs_are_rejected() {
        let p = 7681u64;
        let w = primitive_root_of_unity(8, p).unwrap();
        let mut x = vec![1u64; 8];
        assert!(ntt(&mut x, w, 7683).is_err()); // not prime
        assert!(ntt(&mut x, w, 2).is_err()); // even
        assert!(ntt(&mut x, mulmod(w, w, p), p).is_err()); // order 4, not 8
        assert!(ntt(&mut x, w + p, p).is_err()); // unreduced root
        assert!(ntt(&mut x[..6], w, p).is_err()); // not a power of two
        assert!(ntt(&mut [], 1, p).is_err());
        assert!(ntt(&mut x, 1 << 62, (1u64 << 63) + 29).is_err()); // p ≥ 2^63
        x[3] = p;
        assert!(ntt(&mut x, w, p).is_err()); // unreduced input
        assert_eq!(x[3], p);
        assert!(ntt_many(&mut x[..7], 4, powmod(w, 2, p), p).is_err());
    }
}
