//! Cyclic NTT over Z/pZ with a caller-given root: x_i ← Σ_j x_j·w^(ij), natural order in and out.
//!
//! n is a power of two, p an odd prime < 2^63 and w an element of exact order n. From n = 64 on
//! the transform is a four-step split ([Bailey 1990], "FFTs in external or hierarchical memory")
//! whose two passes are both *column* passes, vectorised across eight adjacent columns, so that
//! no pass needs a shuffle inside a butterfly and no pass a separate permutation:
//!
//! n = n1·n2 (any powers of two n1, n2 ≥ 8; [`split`] picks n1 = 2^⌊k/2⌋ ≤ n2, k = log2 n, but for
//! a measured exception), input index j = j1·n2 + j2, output index i = i1 + n1·i2, and
//!
//! X_(i1 + n1·i2) = Σ_j2 (w^n1)^(j2·i2) · [w^(i1·j2) · Σ_j1 (w^n2)^(j1·i1) · x_(j1·n2 + j2)].
//!
//! - Pass 1 (x → tmp), per strip of 8 columns j2: read the n1 lines x\[j1·n2 + j2 ..+8\] (the
//!   first radix-8 group of the DFT reads them in place), run the size-n1 DFT on whole lines into
//!   an L1/L2-resident buffer (lane c = column j2 + c), multiply by the twiddles w^(i1·j2) (IFMA
//!   arithmetic only, see below), and store through 8 × 8 in-register transposes, reading the
//!   DFT's bit-reversed slots in natural i1 order: the line holding i1 = 8g..8g+8 of column j2
//!   goes to line g·n2 + j2 of tmp, so that tmp holds the n1/8 strips of pass 2 one after the other.
//! - Pass 2 (tmp → x), per strip g (columns i1 = 8g..8g+8): read its n2 consecutive lines, run
//!   the size-n2 DFT, and let its last group write slot k to x\[rev(k)·n1 + 8g ..+8\], which is
//!   natural order. With the 64-bit products below [`STAGE_MIN_64`] the twiddles w^(i1·j2) are
//!   folded into this DFT's stage twiddles instead (column i1 evaluates Σ_j2 Y_j2·z^j2 on the
//!   coset w^i1·⟨w^n1⟩, see [`coset_twiddles`]): no product of their own, a per-lane 16n-byte
//!   table instead.
//! - From [`WIDE_MIN`] on ([`WIDE_MIN_IFMA`] with IFMA) both passes take [`WIDE`] adjacent strips
//!   at a time (at most min(n1, n2)/8): each row of x is read (pass 1) or written (pass 2) once
//!   for all of them, 8·WIDE contiguous words, through the strips' L2-resident buffers.
//!
//! The line DFT is radix-2 Cooley–Tukey with bit-reversed output and Harvey's lazy butterflies
//! (Harvey 2014: residues in [0, 4p), Shoup products with precomputed quotients), eight lanes at a
//! time in AVX-512 (IFMA 52-bit products for p < 2^50, 64-bit products built from 32-bit ones
//! otherwise, whose lazy butterflies use a quotient short of the low partial product,
//! `Lanes::mul_shoup_lazy`; for p ≥ 2^62, where 4p overflows, every butterfly reduces fully) or portable code
//! (`lanes`). For a cyclic DFT of size m at root u the block-k twiddle of every stage is
//! u^rev(k) (rev on log2(m/2) bits), so one half-size table serves all stages. The butterflies of
//! block 0 (twiddle u^0 = 1, m − 1 of a size-m DFT's) form no product (except in the coset
//! DFTs). Work: under n/2·log2 n butterfly products, plus 2n twiddle products (two per line) with
//! IFMA, and two passes over memory; the inverse is the same transform at w^(−1) with n^(−1)
//! folded into its twiddles (IFMA) or multiplied into its outputs. Below n = 64 a direct O(n²)
//! sum is used.
mod lanes;

use super::multimod::{give, take};
use super::prime::{addmod, check_modulus, check_reduced, invmod, mul_shoup, mulmod, powmod, shoup};
use crate::int::try_zeroed;
use crate::runtime;
use crate::{invalid, Result};
#[cfg(target_arch = "x86_64")]
use lanes::Avx;
use lanes::{shoup_s, Arith, Lanes, Line, Portable};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Sizes below this are done by the direct sum (the four-step needs n1, n2 ≥ 8).
const FOUR_STEP_MIN: usize = 64;
/// Below this size everything runs on the calling thread (64-bit products; with IFMA below
/// [`PAR_MIN_IFMA`]). Waking the pool's sleeping workers costs about as much as a task of a small
/// transform. Intel host, 2^15 (two tasks of [`TASK_MIN`] words a pass), gpmp/tfhe-ntt at 4 and 16
/// threads, parallel against serial: 50-bit 1.17–2.04 against 1.13–1.20 (the serial transform
/// takes about 90 us), 62-bit 0.68–1.02 against 0.96–1.01; at 2^16 parallel gains at both widths
/// (50-bit 0.67–1.04 at 4 and 16 threads against 1.22–1.33 on one).
const PAR_MIN: usize = 1 << 15;
/// [`PAR_MIN`] with IFMA products.
const PAR_MIN_IFMA: usize = 1 << 16;
/// Words per parallel task, at least.
const TASK_MIN: usize = 1 << 14;
/// Sizes from which each row visit of a pass serves [`WIDE`] strips of 8 columns, with the 64-bit
/// products (from 2^18 on a strip's rows are ≥ 4 KiB apart, so one strip at a time visits a page
/// per 64 bytes; measured on a Zen 4 core: 1.2–1.6× faster at 2^19..2^22, equal at 2^18, slower
/// below: 62-bit 2^16 1.35 → 1.48× tfhe-ntt).
const WIDE_MIN: usize = 1 << 18;
/// The same with IFMA products, whose cheaper butterflies leave the strided rows a larger share:
/// 50-bit, 1 thread, gpmp/tfhe-ntt with one strip → four: Intel host 2^16 1.14–1.42 → 1.24–1.35
/// (equal), 2^17 1.42–1.61 → 1.34–1.48 (better in 7 of 8 paired rounds, equal in one); Zen 5 core
/// 2^16 1.75 → 1.33, 2^17 1.63–1.68 → 1.26–1.27 (bench/results/cpu-fields.md, ntt12).
const WIDE_MIN_IFMA: usize = 1 << 16;
/// Rows ahead that the wide gather of pass 1 prefetches.
const PREFETCH: usize = 8;
/// Strips per row visit from [`WIDE_MIN`] / [`WIDE_MIN_IFMA`] on (a power of two).
const WIDE: usize = 4;
/// The size from which the 64-bit products, too, multiply by the four-step twiddles in a stage of
/// pass 1 instead of folding them into pass 2 (whose per-lane table, 16n bytes, is 2 MiB at 2^17:
/// a whole L2). 62-bit, 1 thread, gpmp/tfhe-ntt per-round medians, coset → stage: Intel host
/// 2^16 0.99–1.09 → 1.11–1.13, 2^17 1.17–1.29 → 1.23–1.30 and 2^18 1.13–1.28 → 1.27–1.30 (equal
/// within the host's spread), 2^19..2^22 1.18–1.38 → 1.14–1.30; Zen 5 core 2^17 1.44 → 1.29,
/// 2^18 1.53–1.57 → 1.03–1.19, 2^20 1.54–1.59 → 1.25–1.28 (bench/results/cpu-fields.md, ntt12).
const STAGE_MIN_64: usize = 1 << 17;
/// Lines per block from which the line DFT runs its remaining stages block by block (16 KiB, L1).
const LEAF: usize = 256;

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

/// Bit reversal of t on `bits` bits.
#[inline]
fn rev(t: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        t.reverse_bits() >> (usize::BITS - bits)
    }
}

/// The direct O(n²) transform for n < [`FOUR_STEP_MIN`].
struct Direct {
    p: u64,
    /// w^k and its Shoup constant, k < n.
    pw: Vec<(u64, u64)>,
    n_inv: (u64, u64),
}

impl Direct {
    fn new(n: usize, w: u64, p: u64) -> Self {
        let pw = (0..n as u64).map(|k| powmod(w, k, p)).map(|v| (v, shoup(v, p))).collect();
        let ni = invmod(n as u64 % p, p);
        Direct { p, pw, n_inv: (ni, shoup(ni, p)) }
    }

    fn run(&self, x: &mut [u64], inverse: bool) {
        let (n, p) = (x.len(), self.p);
        let mut out = [0u64; FOUR_STEP_MIN];
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

/// Twiddle tables of one direction (root r = w or w^(−1), scale c = 1 or n^(−1)), values with
/// their Shoup constants for the lanes' shift.
struct Dir {
    /// (r^n2)^rev(k), k < n1/2: the line DFT of pass 1.
    tw1: Vec<[u64; 2]>,
    /// The four-step twiddles r^(i1·j2) (and c).
    twist: Twist,
}

/// How the four-step twiddles r^(i1·j2) are applied (see [`FourStep::coset`]).
enum Twist {
    /// Folded into pass 2's stage twiddles: the table of [`coset_twiddles`] (16n bytes, entry
    /// t·n2 + 2^s + g the line of stage s, block g of strip t), and (c, Shoup constant) when
    /// c ≠ 1, by which pass 2 multiplies its outputs.
    Coset { tw: Vec<[Line; 2]>, scale: Option<[u64; 2]> },
    /// A twiddle stage at the end of pass 1, two products per line: c·r^(i1·j2) =
    /// lane\[i1\]\[j2 mod 8\] · row\[(j2/8)·n1 + i1\], i.e. c·r^(i1·(j2 mod 8)) (lines of values and
    /// Shoup constants, n1 of them) times r^(8·i1·(j2/8)) (n/8 scalars); pass 2 runs plain DFTs
    /// with the stage twiddles tw2 = (r^n1)^rev(k), k < n2/2.
    Stage { tw2: Vec<[u64; 2]>, lane: Vec<[Line; 2]>, row: Vec<[u64; 2]> },
}

/// u^rev(k) for k < m/2 with Shoup constants: the stage twiddles of a size-m DFT at u.
fn stage_twiddles(m: usize, u: u64, p: u64, s: u32) -> Vec<[u64; 2]> {
    let bits = (m / 2).trailing_zeros();
    (0..m / 2).map(|k| powmod(u, rev(k, bits) as u64, p)).map(|v| [v, shoup_s(v, p, s)]).collect()
}

/// The stage twiddles of pass 2 as coset DFTs: pass 2 column i1 evaluates Y(z) = Σ_j2 Y_j2·z^j2
/// (Y = pass 1's output) at the coset c·⟨v⟩, c = r^i1, v = r^n1, which *is* the four-step
/// twiddle multiply Y_j2 ← r^(i1·j2)·Y_j2 followed by the DFT at v. Radix-2 Cooley–Tukey on
/// z^m − c^m (m = n2): block g of stage s holds Y mod z^M − (c·v^rev_s(g))^M (M = m/2^s) and
/// splits it with the butterfly (x + A·y, x − A·y), A = (c·v^rev_s(g))^(M/2) =
/// c^(m/2^(s+1))·v^rev(g) (rev on log2(m/2) bits: the plain stage twiddle); slot k ends holding
/// Y(c·v^rev(k)). So the twiddle multiply costs no product at all, only this n-line table.
fn coset_twiddles(n1: usize, n2: usize, r: u64, p: u64, sh: u32) -> Result<Vec<[Line; 2]>> {
    let plain: Vec<u64> = stage_twiddles(n2, powmod(r, n1 as u64, p), p, 64).into_iter().map(|[v, _]| v).collect();
    let mut tw = try_zeroed::<[Line; 2]>(n1 / 8 * n2)?;
    tw.par_chunks_mut(n2).enumerate().for_each(|(t, strip)| {
        for c in 0..8 {
            let i1 = (8 * t + c) as u64;
            for s in 0..n2.trailing_zeros() {
                let a = powmod(r, i1 * (n2 >> (s + 1)) as u64, p);
                let a_sh = shoup(a, p);
                for g in 0..1usize << s {
                    let v = mul_shoup(plain[g], a, a_sh, p);
                    let e = &mut strip[(1 << s) + g];
                    (e[0].0[c], e[1].0[c]) = (v, shoup_s(v, p, sh));
                }
            }
        }
    });
    Ok(tw)
}

impl Dir {
    fn new(n1: usize, n2: usize, (r, c): (u64, u64), p: u64, s: u32, coset: bool) -> Result<Self> {
        let twist = if coset {
            Twist::Coset { tw: coset_twiddles(n1, n2, r, p, s)?, scale: (c != 1).then(|| [c, shoup_s(c, p, s)]) }
        } else {
            let mut row = try_zeroed::<[u64; 2]>(n1 * n2 / 8)?;
            row.par_chunks_mut(n1).enumerate().with_min_len(16).for_each(|(st, rows)| {
                let step = powmod(r, 8 * st as u64, p);
                let step_sh = shoup(step, p);
                let mut cur = 1;
                for e in rows {
                    *e = [cur, shoup_s(cur, p, s)];
                    cur = mul_shoup(cur, step, step_sh, p);
                }
            });
            let lane = (0..n1 as u64)
                .map(|i1| {
                    let v: [u64; 8] = std::array::from_fn(|l| mulmod(c, powmod(r, i1 * l as u64, p), p));
                    [Line(v), Line(v.map(|x| shoup_s(x, p, s)))]
                })
                .collect();
            Twist::Stage { tw2: stage_twiddles(n2, powmod(r, n1 as u64, p), p, s), lane, row }
        };
        Ok(Dir { tw1: stage_twiddles(n1, powmod(r, n2 as u64, p), p, s), twist })
    }
}

/// The four-step transform for n ≥ [`FOUR_STEP_MIN`] (see the module documentation).
struct FourStep {
    n1: usize,
    n2: usize,
    p: u64,
    w: u64,
    arith: Arith,
    /// Strips per row visit in both passes (see [`pass1`]): [`WIDE`] from [`WIDE_MIN`] (IFMA:
    /// [`WIDE_MIN_IFMA`]) on, else 1.
    wide: usize,
    /// Whether the four-step twiddles are folded into pass 2 ([`Twist::Coset`], no products, a
    /// 16n-byte table) rather than a twiddle stage of pass 1 ([`Twist::Stage`], two products per
    /// line, 2n bytes): with the 64-bit products below [`STAGE_MIN_64`], where their cost outweighs
    /// the table's memory traffic (62-bit p on a Zen 4 core: 1.15–1.3× faster), not with IFMA
    /// (50-bit p: 1.1–1.3× slower).
    coset: bool,
    /// rev(g) on log2(n1/8) bits, g < n1/8: where pass 1 finds the i1-groups of 8.
    rev1: Vec<u32>,
    /// rev(k) on log2 n2 bits, k < n2: where pass 2 writes slot k.
    rev2: Vec<u32>,
    /// Forward \[0\] and inverse \[1\] tables, built on first use.
    dirs: [OnceLock<Dir>; 2],
}

/// A raw pointer shared by the rayon tasks of a pass, each writing its own entries.
#[derive(Clone, Copy)]
struct SharedMut(*mut u64);
// SAFETY: only used where the tasks write disjoint index sets and nothing reads them meanwhile.
unsafe impl Send for SharedMut {}
unsafe impl Sync for SharedMut {}

/// rev on 3 bits.
const REV3: [usize; 8] = [0, 4, 2, 6, 1, 5, 3, 7];

/// The butterfly (x, y) ← (x + W·y, x − W·y) with W = (w, Shoup constant) splatted. Lazy (p < 2^62):
/// inputs and outputs in [0, 4p) (Harvey); otherwise canonical throughout.
/// With `ONE` the twiddle is W = 1 (block 0 of every stage, stage twiddle u^rev(0)) and no
/// product is formed: the lazy y is only folded into [0, 2p), as the product would have left it.
#[inline(always)]
fn bfly<L: Lanes, const LAZY: bool, const ONE: bool>(l: L, x: &mut L::V, y: &mut L::V, w: (L::V, L::V)) {
    if LAZY {
        let a = l.fold(*x, l.p2());
        let t = if ONE { l.fold(*y, l.p2()) } else { l.mul_shoup_lazy(*y, w.0, w.1) };
        *x = l.add(a, t);
        *y = l.sub_plus(a, t, l.p2());
    } else {
        let t = if ONE { *y } else { l.fold(l.mul_shoup(*y, w.0, w.1), l.p()) };
        let a = *x;
        *x = l.fold(l.add(a, t), l.p());
        *y = l.fold(l.sub_plus(a, t, l.p()), l.p());
    }
}

/// R = 1, 2 or 3 radix-2 stages at once on every block of 2t lines among lines lo..lo+len, the
/// 2^R lines i = lo + b·2t + j + k·(2t/2^R) of a block held in registers through all R stages, read
/// by `load(i)` and written by `store(i, v)`. Block b is block g = g0 + b of stage s, so its
/// twiddles are tw(s, g), then tw(s + 1, 2g..2g+2), then tw(s + 2, 4g..4g+4). `ONE0`: the
/// twiddles of block 0 of every stage are 1 (plain DFTs, not the coset ones).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn stages<L: Lanes, const LAZY: bool, const R: usize, const ONE0: bool>(
    l: L,
    (lo, len, t, s, g0): (usize, usize, usize, u32, usize),
    tw: impl Fn(u32, usize) -> (L::V, L::V),
    load: impl Fn(usize) -> L::V,
    store: impl Fn(usize, L::V),
) {
    let q = (2 * t) >> R;
    for b in 0..len / (2 * t) {
        let g = g0 + b;
        let w1 = tw(s, g);
        let mut w2 = [w1; 2];
        let mut w3 = [w1; 4];
        if R >= 2 {
            w2 = [tw(s + 1, 2 * g), tw(s + 1, 2 * g + 1)];
        }
        if R >= 3 {
            w3 = [tw(s + 2, 4 * g), tw(s + 2, 4 * g + 1), tw(s + 2, 4 * g + 2), tw(s + 2, 4 * g + 3)];
        }
        let base = lo + b * 2 * t;
        // Block 0: W = 1 for its first stage and for the first sub-block of the later ones.
        if ONE0 && g == 0 {
            block::<L, LAZY, R, true>(l, base, q, w1, w2, w3, &load, &store);
        } else {
            block::<L, LAZY, R, false>(l, base, q, w1, w2, w3, &load, &store);
        }
    }
}

/// The R stages of one block of [`stages`] (lines base + j + k·q); `ZERO`: it is block 0.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn block<L: Lanes, const LAZY: bool, const R: usize, const ZERO: bool>(
    l: L,
    base: usize,
    q: usize,
    w1: (L::V, L::V),
    w2: [(L::V, L::V); 2],
    w3: [(L::V, L::V); 4],
    load: &impl Fn(usize) -> L::V,
    store: &impl Fn(usize, L::V),
) {
    for j in 0..q {
        let mut v = [w1.0; 8];
        for (k, x) in v[..1 << R].iter_mut().enumerate() {
            *x = load(base + j + k * q);
        }
        let h = 1 << (R - 1);
        for k in 0..h {
            let (lo, hi) = v.split_at_mut(h);
            bfly::<L, LAZY, ZERO>(l, &mut lo[k], &mut hi[k], w1);
        }
        if R >= 2 {
            for (s, w) in w2.into_iter().enumerate() {
                let (lo, hi) = v[s * h..s * h + h].split_at_mut(h / 2);
                for k in 0..h / 2 {
                    if ZERO && s == 0 {
                        bfly::<L, LAZY, true>(l, &mut lo[k], &mut hi[k], w);
                    } else {
                        bfly::<L, LAZY, false>(l, &mut lo[k], &mut hi[k], w);
                    }
                }
            }
        }
        if R >= 3 {
            for (s, w) in w3.into_iter().enumerate() {
                let (lo, hi) = v[2 * s..2 * s + 2].split_at_mut(1);
                if ZERO && s == 0 {
                    bfly::<L, LAZY, true>(l, &mut lo[0], &mut hi[0], w);
                } else {
                    bfly::<L, LAZY, false>(l, &mut lo[0], &mut hi[0], w);
                }
            }
        }
        for (k, &x) in v[..1 << R].iter().enumerate() {
            store(base + j + k * q, x);
        }
    }
}

/// One group of r stages (1 ≤ r ≤ 3, see [`stages`]), reading through `first` when it is the DFT's
/// first group and writing through `last` when it is its last, else from and to `buf`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn group<L: Lanes, const LAZY: bool, const ONE0: bool>(
    l: L,
    (r, is_first, is_last): (u32, bool, bool),
    at: (usize, usize, usize, u32, usize),
    tw: impl Fn(u32, usize) -> (L::V, L::V) + Copy,
    buf: *mut u64,
    first: impl Fn(usize) -> L::V + Copy,
    last: impl Fn(usize, L::V) + Copy,
) {
    // SAFETY: the callers' line indices are < m, and buf holds m lines.
    let mload = move |i: usize| unsafe { l.load(buf.add(8 * i)) };
    let mstore = move |i: usize, v| unsafe { l.store(buf.add(8 * i), v) };
    macro_rules! go {
        ($ld:expr, $st:expr) => {
            match r {
                1 => stages::<L, LAZY, 1, ONE0>(l, at, tw, $ld, $st),
                2 => stages::<L, LAZY, 2, ONE0>(l, at, tw, $ld, $st),
                _ => stages::<L, LAZY, 3, ONE0>(l, at, tw, $ld, $st),
            }
        };
    }
    match (is_first, is_last) {
        (true, true) => go!(first, last),
        (true, false) => go!(first, mstore),
        (false, true) => go!(mload, last),
        (false, false) => go!(mload, mstore),
    }
}

/// Cyclic DFT of m lines (lanes independent), slot k holding frequency rev(k), with the twiddle
/// tw(s, g) for block g of stage s (`ONE0`: those of block 0 are 1): line i is read by
/// `first(i)`, worked on in `buf` (m lines), and slot k written by `last(k, v)`. Radix-8 groups of
/// stages over all lines while blocks exceed [`LEAF`] lines, then block by block (each block in L1).
#[inline(always)]
fn line_dft<L: Lanes, const LAZY: bool, const ONE0: bool>(
    l: L,
    m: usize,
    tw: impl Fn(u32, usize) -> (L::V, L::V) + Copy,
    buf: *mut u64,
    first: impl Fn(usize) -> L::V + Copy,
    last: impl Fn(usize, L::V) + Copy,
) {
    let lg = m.trailing_zeros();
    let mut done = 0;
    while m >> done > LEAF {
        let r = 3.min(lg - done);
        group::<L, LAZY, ONE0>(l, (r, done == 0, done + r == lg), (0, m, m >> (done + 1), done, 0), tw, buf, first, last);
        done += r;
    }
    let size = m >> done;
    for h in 0..m / size {
        let mut d = done;
        while d < lg {
            let r = 3.min(lg - d);
            group::<L, LAZY, ONE0>(l, (r, d == 0, d + r == lg), (h * size, size, m >> (d + 1), d, h << (d - done)), tw, buf, first, last);
            d += r;
        }
    }
}

/// The plain stage twiddles tw\[g\] (the same for every stage s), splatted.
#[inline(always)]
fn plain<'a, L: Lanes + 'a>(l: L, tw: &'a [[u64; 2]]) -> impl Fn(u32, usize) -> (L::V, L::V) + Copy + 'a {
    #[inline(always)]
    move |_, g| (l.splat(tw[g][0]), l.splat(tw[g][1]))
}

/// Pass 1 on the `f.wide` strips s0.. (columns 8s0..8(s0 + wide) of x as n1 × n2): x → tmp,
/// see the module docs. With one strip the DFT's first group reads x in place; with several, each
/// row of x is first visited once for all of them (8·wide contiguous words into the strips'
/// buffers, so one page visit and one prefetchable run of lines serve wide strips). Whether some
/// entry read is ≥ p: a running lane maximum of the lines as they are loaded, compared once.
///
/// # Safety
/// x and tmp hold n1·n2 words; no other task touches lines g·n2 + 8s0 .. g·n2 + 8(s0 + wide) of
/// tmp meanwhile; buf holds wide·n1 lines.
#[inline(always)]
unsafe fn pass1<L: Lanes, const LAZY: bool, const COSET: bool>(
    l: L,
    f: &FourStep,
    d: &Dir,
    x: *const u64,
    tmp: *mut u64,
    s0: usize,
    buf: &mut [Line],
) -> bool {
    let (n1, n2, wide) = (f.n1, f.n2, f.wide);
    let bp = buf.as_mut_ptr() as *mut u64;
    // SAFETY (closures): line k < n1 of strip c's buffer (wide·n1 lines); j1·n2 + 8(s0 + wide) ≤ n1·n2.
    let bload = move |c: usize| move |k: usize| unsafe { l.load(bp.add(8 * (c * n1 + k))) };
    let bstore = move |c: usize| move |k: usize, v| unsafe { l.store(bp.add(8 * (c * n1 + k)), v) };
    let top = if wide == 1 {
        // The DFT's first group reads every line once; the maximum lives in a register once inlined.
        let top = std::cell::Cell::new(l.splat(0));
        let top_ref = &top;
        let first = move |j1: usize| {
            let v = unsafe { l.load(x.add(j1 * n2 + 8 * s0)) };
            top_ref.set(l.max(top_ref.get(), v));
            v
        };
        line_dft::<L, LAZY, true>(l, n1, plain(l, &d.tw1), bp, first, bstore(0));
        top.get()
    } else {
        let mut top = l.splat(0);
        for j1 in 0..n1 {
            let src = unsafe { x.add(j1 * n2 + 8 * s0) };
            if j1 + PREFETCH < n1 {
                for c in 0..wide {
                    l.prefetch(src.wrapping_add(PREFETCH * n2 + 8 * c));
                }
            }
            for c in 0..wide {
                let v = unsafe { l.load(src.add(8 * c)) };
                top = l.max(top, v);
                bstore(c)(j1, v);
            }
        }
        for c in 0..wide {
            line_dft::<L, LAZY, true>(l, n1, plain(l, &d.tw1), unsafe { bp.add(8 * c * n1) }, bload(c), bstore(c));
        }
        top
    };
    let q = n1 / 8;
    for (g, &rg) in f.rev1.iter().enumerate() {
        for c in 0..wide {
            let s = s0 + c;
            let r = &mut std::array::from_fn(|rr| bload(c)(REV3[rr] * q + rg as usize));
            if let (false, Twist::Stage { lane, row, .. }) = (COSET, &d.twist) {
                // The eight i1 = 8g..8g+8 of this group, sliced once (no bounds check per line).
                let (lane, row) = (&lane[8 * g..8 * g + 8], &row[s * n1 + 8 * g..s * n1 + 8 * g + 8]);
                for ((x, [tw, ts]), &[rw, rs]) in r.iter_mut().zip(lane).zip(row) {
                    // SAFETY: lines of lane.
                    // Lazy: [0, 2p) is a valid input of pass 2's butterflies, so no final fold.
                    *x = unsafe {
                        let v = l.mul_shoup_into(*x, l.load(tw.0.as_ptr()), l.load(ts.0.as_ptr()));
                        let v = l.mul_shoup(v, l.splat(rw), l.splat(rs));
                        if LAZY {
                            v
                        } else {
                            l.fold(v, l.p())
                        }
                    };
                }
            }
            l.transpose(r);
            for (cc, &v) in r.iter().enumerate() {
                // SAFETY: line (g, 8s + cc) of tmp (n1/8 strips of n2 lines), inside its n1·n2 words.
                unsafe { l.store(tmp.add(8 * (g * n2 + 8 * s + cc)), v) };
            }
        }
    }
    l.any_at_least_p(top)
}

/// A pass-2 output v (< 4p lazy, else < p) to [0, p), times the scale (n^(−1) in the inverse)
/// where there is one.
#[inline(always)]
fn finish<L: Lanes, const LAZY: bool>(l: L, scale: Option<(L::V, L::V)>, v: L::V) -> L::V {
    match scale {
        Some((c, cs)) => l.fold(l.mul_shoup(v, c, cs), l.p()),
        None if LAZY => l.fold(l.fold(v, l.p2()), l.p()),
        None => v,
    }
}

/// Pass 2 on the `f.wide` strips t0.. (strip t = lines t·n2 .. (t+1)·n2 of tmp): tmp → x in
/// natural order. With several strips the outputs wait in the buffers and each row of x is then
/// written once for all of them (8·wide contiguous words), rows in increasing order.
///
/// # Safety
/// x and tmp hold n1·n2 words; no other task touches columns 8t0..8(t0 + wide) of x (as n2 × n1)
/// meanwhile; buf holds wide·n2 lines.
#[inline(always)]
unsafe fn pass2<L: Lanes, const LAZY: bool, const COSET: bool>(
    l: L,
    f: &FourStep,
    d: &Dir,
    tmp: *const u64,
    x: *mut u64,
    t0: usize,
    buf: &mut [Line],
) {
    let (n1, n2, wide, rev2) = (f.n1, f.n2, f.wide, &f.rev2[..]);
    let bp = buf.as_mut_ptr() as *mut u64;
    for c in 0..wide {
        let t = t0 + c;
        // SAFETY: line t·n2 + j2 < n/8 of tmp for j2 < n2; rev2[k] < n2; line k < n2 of strip c's buffer.
        let first = move |j2: usize| unsafe { l.load(tmp.add(8 * (t * n2 + j2))) };
        let bc = unsafe { bp.add(8 * c * n2) };
        let dst = move |k: usize| unsafe {
            if wide == 1 {
                x.add(*rev2.get_unchecked(k) as usize * n1 + 8 * t)
            } else {
                bc.add(8 * k)
            }
        };
        match (COSET, &d.twist) {
            (true, Twist::Coset { tw, scale }) => {
                let ct = &tw[t * n2..(t + 1) * n2];
                // SAFETY: lines of the table.
                let tw = move |s: u32, g: usize| unsafe {
                    let [w, ws] = &ct[(1 << s) + g];
                    (l.load(w.0.as_ptr()), l.load(ws.0.as_ptr()))
                };
                let scale = scale.map(|[c, cs]| (l.splat(c), l.splat(cs)));
                line_dft::<L, LAZY, false>(
                    l,
                    n2,
                    tw,
                    bc,
                    first,
                    #[inline(always)]
                    move |k, v| unsafe { l.store(dst(k), finish::<L, LAZY>(l, scale, v)) },
                );
            }
            (false, Twist::Stage { tw2, .. }) => {
                line_dft::<L, LAZY, true>(
                    l,
                    n2,
                    plain(l, tw2),
                    bc,
                    first,
                    #[inline(always)]
                    move |k, v| unsafe { l.store(dst(k), finish::<L, LAZY>(l, None, v)) },
                );
            }
            _ => unreachable!("the tables of the other twiddle scheme"),
        }
    }
    if wide > 1 {
        // Row i2 of x holds slot rev(i2) (rev is an involution).
        for (i2, &k) in rev2.iter().enumerate() {
            let dst = unsafe { x.add(i2 * n1 + 8 * t0) };
            for c in 0..wide {
                // SAFETY: row i2 < n2 of x, columns 8t0 .. 8(t0 + wide) ≤ n1; line k of strip c's buffer.
                unsafe { l.store(dst.add(8 * c), l.load(bp.add(8 * (c * n2 + k as usize)))) };
            }
        }
    }
}

/// f(buf, i) for i < count, in parallel when `par`, each task with its own `len`-line buffer.
fn strips(count: usize, len: usize, par: bool, f: impl Fn(&mut [Line], usize) + Sync) {
    if par {
        let min = (TASK_MIN / (8 * len)).max(1);
        (0..count).into_par_iter().with_min_len(min).for_each_init(|| vec![Line::default(); len], |buf, i| f(buf, i));
    } else {
        let mut buf = vec![Line::default(); len];
        (0..count).for_each(|i| f(&mut buf, i));
    }
}

/// n1 of the split n = n1·n2 (n ≥ [`FOUR_STEP_MIN`], k = log2 n): 2^⌊k/2⌋ (n1 ≤ n2), except
/// n1 = 2^7 (n2 = 2^9) at n = 2^16. Every split 2^(⌊k/2⌋−4) .. 2^(⌊k/2⌋+2) was timed at 2^16..2^22
/// on the Intel host (1 thread, bench/results/cpu-fields.md, nttcpu7): at 2^16 n1 = 2^7 was faster
/// at 50 bits in every round (median 1.07 against 1.19 × tfhe-ntt; 62-bit 1.02 against 1.04; on a
/// Zen 4 core 0.02 slower), elsewhere no split beat 2^⌊k/2⌋ beyond the host's noise and n1 ≤ 2^(⌊k/2⌋−2)
/// was slower (up to 1.2× from 2^18).
fn split(n: usize) -> usize {
    let k = n.trailing_zeros();
    1 << if k == 16 { 7 } else { k / 2 }
}

impl FourStep {
    fn new(n: usize, w: u64, p: u64) -> Self {
        Self::with_split(n, split(n), w, p)
    }

    /// The four-step with n = n1·n2 for any powers of two n1, n2 ≥ 8.
    fn with_split(n: usize, n1: usize, w: u64, p: u64) -> Self {
        let n2 = n / n1;
        debug_assert!(n1.is_power_of_two() && n1 >= 8 && n2 >= 8 && n1 * n2 == n);
        let (b1, b2) = ((n1 / 8).trailing_zeros(), n2.trailing_zeros());
        let rev1 = (0..n1 / 8).map(|g| rev(g, b1) as u32).collect();
        let rev2 = (0..n2).map(|k| rev(k, b2) as u32).collect();
        let arith = Arith::detect(p);
        // Both passes take `wide` strips at a time: it divides n2/8 (pass 1) and n1/8 (pass 2).
        let wide_min = if arith == Arith::Ifma { WIDE_MIN_IFMA } else { WIDE_MIN };
        let wide = if n >= wide_min { WIDE.min(n1.min(n2) / 8) } else { 1 };
        let coset = arith != Arith::Ifma && n < STAGE_MIN_64;
        FourStep { n1, n2, p, w, arith, wide, coset, rev1, rev2, dirs: [OnceLock::new(), OnceLock::new()] }
    }

    /// The tables of one direction, built on first use.
    fn dir(&self, inverse: bool) -> Result<&Dir> {
        let cell = &self.dirs[inverse as usize];
        if let Some(d) = cell.get() {
            return Ok(d);
        }
        let (n1, n2, p) = (self.n1, self.n2, self.p);
        let (r, c) = if inverse { (invmod(self.w, p), invmod((n1 * n2) as u64 % p, p)) } else { (self.w, 1) };
        let d = Dir::new(n1, n2, (r, c), p, self.arith.shift(), self.coset)?;
        let _ = cell.set(d);
        Ok(cell.get().expect("set above"))
    }

    /// Both passes with lanes l; false, with x untouched (pass 2 not run), when pass 1 read an
    /// entry ≥ p.
    fn passes<L: Lanes + Send + Sync, const LAZY: bool, const COSET: bool>(&self, l: L, d: &Dir, x: &mut [u64], tmp: &mut [u64]) -> bool {
        let (n1, n2) = (self.n1, self.n2);
        let par = n1 * n2 >= if self.arith == Arith::Ifma { PAR_MIN_IFMA } else { PAR_MIN };
        let (xp, tp) = (SharedMut(x.as_mut_ptr()), SharedMut(tmp.as_mut_ptr()));
        // SAFETY: strip s writes lines g·n2 + 8s ..+8 (g < n1/8) of tmp only, and reads x, which nobody writes.
        let wide = self.wide;
        let unreduced = AtomicBool::new(false);
        strips(n2 / 8 / wide, wide * n1, par, |buf, s| {
            if l.enter(
                #[inline(always)]
                || unsafe { pass1::<L, LAZY, COSET>(l, self, d, { xp }.0, { tp }.0, s * wide, buf) },
            ) {
                unreduced.store(true, Ordering::Relaxed);
            }
        });
        if unreduced.into_inner() {
            return false;
        }
        // SAFETY: strip t writes columns 8t..8t+8 of x only, and reads tmp, which nobody writes.
        strips(n1 / 8 / wide, wide * n2, par, |buf, t| {
            l.enter(
                #[inline(always)]
                || unsafe { pass2::<L, LAZY, COSET>(l, self, d, { tp }.0, { xp }.0, t * wide, buf) },
            )
        });
        true
    }

    /// The transform of x in place (tmp: n words of scratch); `InvalidArgument`, x untouched, when
    /// some x_j ≥ p.
    fn run(&self, x: &mut [u64], tmp: &mut [u64], inverse: bool) -> Result<()> {
        let d = self.dir(inverse)?;
        let (p, lazy) = (self.p, self.p < 1 << 62);
        // Each twiddle scheme is its own instantiation: with the other scheme's code compiled into
        // the same kernels (a run-time branch), the 62-bit transform ran 10–20 % slower.
        macro_rules! go {
            ($l:expr, $lazy:literal) => {
                if self.coset {
                    self.passes::<_, $lazy, true>($l, d, x, tmp)
                } else {
                    self.passes::<_, $lazy, false>($l, d, x, tmp)
                }
            };
        }
        let reduced = match self.arith {
            #[cfg(target_arch = "x86_64")]
            Arith::Ifma => go!(Avx::<true>::new(p).expect("detected"), true),
            #[cfg(target_arch = "x86_64")]
            Arith::Avx512 if lazy => go!(Avx::<false>::new(p).expect("detected"), true),
            #[cfg(target_arch = "x86_64")]
            Arith::Avx512 => go!(Avx::<false>::new(p).expect("detected"), false),
            _ if lazy => go!(Portable::new(p), true),
            _ => go!(Portable::new(p), false),
        };
        if !reduced {
            // Pass 1 saw an entry ≥ p and stopped before pass 2: the scan that names it.
            return Err(check_reduced(x, p, "x").expect_err("pass 1 read an entry ≥ p"));
        }
        Ok(())
    }
}

impl Ntt {
    fn new(n: usize, w: u64, p: u64) -> Result<Self> {
        check_modulus(p)?;
        check_root(n, w, p)?;
        let kind = if n >= FOUR_STEP_MIN { Kind::FourStep(Box::new(FourStep::new(n, w, p))) } else { Kind::Direct(Direct::new(n, w, p)) };
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

/// Where host-resident transforms run: always on the GPU with `Backend::Gpu` (`NoCudaDevice` when
/// none is usable), never with `Backend::Auto`. Measured end to end on an H100 host (16 cores,
/// bench/results/gpu-h100.md, kernel v6 section): the CPU wins at every size from 2^10 × 4 to
/// 2^24 × 1 (CPU/GPU 0.1–0.8): the kernels take 0.3–0.6 ms of the GPU's 100–190 ms at 2^24, the
/// rest is pageable transfers (16 bytes a point). AUTO sends these calls to the GPU only once the
/// copies are pinned and overlapped.
pub(crate) fn on_gpu() -> Result<bool> {
    runtime::on_gpu(false)
}

/// Forward or inverse transform of every row of length n of x, rows in parallel, on the backend's
/// device (the GPU transform computes the same residues: both are exact).
fn rows(x: &mut [u64], n: usize, w: u64, p: u64, inverse: bool) -> Result<()> {
    let t = ntt_plan(n, w, p)?;
    if x.len() % n != 0 {
        return invalid!("{} entries are not a whole number of rows of length {n}", x.len());
    }
    let gpu = on_gpu();
    // A single row on the CPU is checked by the transform as it reads x (`Ntt::forward`). Else a
    // vectorised maximum first (so that no row fails after others were transformed, and before
    // the GPU's copies); the scan that names the offending entry only when it fails.
    if (x.len() != n || !matches!(gpu, Ok(false))) && lanes::any_at_least(x, p) {
        check_reduced(x, p, "x")?;
    }
    if gpu? {
        return crate::gpu::ntt::ntt_many(x, x.len() / n, n, w, p, inverse);
    }
    // Tables first, so that no row fails after others were transformed.
    t.prepare(inverse)?;
    let run = |row: &mut [u64], tmp: &mut [u64]| {
        if inverse {
            t.inverse(row, tmp)
        } else {
            t.forward(row, tmp)
        }
    };
    if x.len() == n {
        // Pooled scratch: a fresh n-word buffer costs page faults and zeroing on every call.
        let mut tmp = take(n)?;
        let r = run(x, &mut tmp);
        give(tmp);
        return r;
    }
    x.par_chunks_mut(n).try_for_each_init(
        || try_zeroed::<u64>(n),
        |tmp, row| {
            let tmp = tmp.as_mut().map_err(|e| e.clone())?;
            run(row, tmp)
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
        for (lg, p) in
            [(9u32, 7681u64), (16, fourier_primes(50, 20, 1)[0]), (17, fourier_primes(63, 20, 1)[0]), (15, fourier_primes(62, 20, 1)[0])]
        {
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

    /// Every arithmetic this CPU has for p, the portable one included.
    fn ariths(p: u64) -> Vec<Arith> {
        let mut v = vec![Arith::Portable];
        if Arith::detect(p) != Arith::Portable {
            v.push(Arith::Avx512);
        }
        if Arith::detect(p) == Arith::Ifma {
            v.push(Arith::Ifma);
        }
        v
    }

    /// Every strip count per row visit that the four-step of size n with split n1 can take (1 up
    /// to min(n1, n2)/8, [`WIDE`] among them where that allows), the default first.
    fn widths(n: usize, n1: usize) -> Vec<usize> {
        let f = FourStep::with_split(n, n1, 1, 257);
        let mut v = vec![f.wide];
        v.extend((0..).map(|k| 1 << k).take_while(|&w| w <= (n1.min(n / n1) / 8).min(2 * WIDE)).filter(|&w| w != f.wide));
        v
    }

    /// Every split n1 (8 ≤ n1 ≤ n/8) of the four-step of size n, the default first.
    fn splits(n: usize) -> Vec<usize> {
        let mut v = vec![split(n)];
        v.extend((3..=n.trailing_zeros() - 3).map(|l| 1 << l).filter(|&n1| n1 != split(n)));
        v
    }

    /// (arithmetic, split n1, strips per row visit, coset twiddles): every four-step variant of size n for p.
    fn variants(n: usize, p: u64) -> impl Iterator<Item = (Arith, usize, usize, bool)> {
        ariths(p).into_iter().flat_map(move |a| {
            splits(n).into_iter().flat_map(move |n1| widths(n, n1).into_iter().flat_map(move |wd| [(a, n1, wd, false), (a, n1, wd, true)]))
        })
    }

    #[test]
    fn four_step_matches_naive() {
        // The four-step path at sizes where the naive DFT is affordable, with every lane arithmetic,
        // split n1·n2 and strip width, and both twiddle schemes.
        for p in primes() {
            let k2 = (p - 1).trailing_zeros();
            for lg in 6..=10u32.min(k2) {
                let n = 1usize << lg;
                let w0 = primitive_root_of_unity(n as u64, p).unwrap();
                for e in [1u64, 3, n as u64 - 1] {
                    let w = powmod(w0, e, p);
                    let x = rand_vec(n, p, n as u64 + e + p);
                    let want = naive(&x, w, p);
                    for (a, n1, wide, coset) in variants(n, p) {
                        let mut fs = FourStep::with_split(n, n1, w, p);
                        (fs.arith, fs.wide, fs.coset) = (a, wide, coset);
                        let (mut y, mut tmp) = (x.clone(), vec![0; n]);
                        fs.run(&mut y, &mut tmp, false).unwrap();
                        assert_eq!(y, want, "p = {p}, n = {n}, w = {w}, {a:?}, n1 {n1}, wide {wide}, coset {coset}");
                        fs.run(&mut y, &mut tmp, true).unwrap();
                        assert_eq!(y, x, "round trip p = {p}, n = {n}, {a:?}, n1 {n1}, wide {wide}, coset {coset}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_power_of_two_round_trips() {
        // n = 1 .. 2^k for a p < 2^50, a p in [2^62, 2^63) (the non-lazy path; 2^17 has n2 > LEAF) and p = 7681 (2^9 | p − 1
        // exactly), with every lane arithmetic, split and strip width and both twiddle schemes; the forward result spot-checked
        // against the definition.
        for (p, kmax) in [(fourier_primes(50, 20, 1)[0], 17u32), (fourier_primes(63, 20, 1)[0], 17), (7681, 9)] {
            for lg in 0..=kmax {
                let n = 1usize << lg;
                let w = primitive_root_of_unity(n as u64, p).unwrap();
                let x = rand_vec(n, p, lg as u64 + 77);
                let mut want = None;
                let cases: Vec<_> = if n >= FOUR_STEP_MIN { variants(n, p).collect() } else { vec![(Arith::Portable, 0, 1, false)] };
                for (a, n1, wide, coset) in cases {
                    let mut y = x.clone();
                    if n >= FOUR_STEP_MIN {
                        let mut fs = FourStep::with_split(n, n1, w, p);
                        (fs.arith, fs.wide, fs.coset) = (a, wide, coset);
                        let mut tmp = vec![0; n];
                        fs.run(&mut y, &mut tmp, false).unwrap();
                        for i in [0usize, 1, n / 2 + 3, n - 1] {
                            let wi = powmod(w, i as u64, p);
                            let acc = x.iter().rev().fold(0u64, |acc, &v| addmod(mulmod(acc, wi, p), v, p));
                            assert_eq!(y[i], acc, "p = {p}, n = {n}, i = {i}, {a:?}, n1 {n1}, wide {wide}, coset {coset}");
                        }
                        let z = y.clone();
                        fs.run(&mut y, &mut tmp, true).unwrap();
                        assert_eq!(y, x, "round trip p = {p}, n = {n}, {a:?}, n1 {n1}, wide {wide}, coset {coset}");
                        assert_eq!(
                            *want.get_or_insert(z.clone()),
                            z,
                            "variants disagree, p = {p}, n = {n}, {a:?}, n1 {n1}, wide {wide}, coset {coset}"
                        );
                    } else {
                        ntt(&mut y, w, p).unwrap();
                        assert_eq!(y, naive(&x, w, p));
                        intt(&mut y, w, p).unwrap();
                        assert_eq!(y, x);
                    }
                }
            }
        }
    }

    #[test]
    fn extreme_inputs() {
        // All entries p − 1 (the largest lazy intermediates), a single 1 (the powers of w), zeros.
        for p in [fourier_primes(50, 20, 1)[0], fourier_primes(62, 20, 1)[0], fourier_primes(63, 20, 1)[0]] {
            let n = 1 << 12;
            let w = primitive_root_of_unity(n as u64, p).unwrap();
            let mut y = vec![p - 1; n];
            ntt(&mut y, w, p).unwrap();
            assert_eq!(y[0], mulmod(p - 1, n as u64, p));
            assert!(y[1..].iter().all(|&v| v == 0), "p = {p}");
            let mut e = vec![0; n];
            e[1] = 1;
            ntt(&mut e, w, p).unwrap();
            assert!(e.iter().enumerate().all(|(i, &v)| v == powmod(w, i as u64, p)));
            intt(&mut e, w, p).unwrap();
            assert!(e.iter().enumerate().all(|(i, &v)| v == (i == 1) as u64));
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

    /// x with `bad` at the first, a middle and the last index (each case its own copy).
    fn unreduced(x: &[u64], p: u64) -> impl Iterator<Item = (usize, u64, Vec<u64>)> + '_ {
        let n = x.len();
        [0, (n / 2 + 5) % n, n - 1].into_iter().flat_map(move |i| {
            [p, p + 1, u64::MAX].into_iter().map(move |bad| {
                let mut y = x.to_vec();
                y[i] = bad;
                (i, bad, y)
            })
        })
    }

    /// The error of an unreduced entry, naming it, and x untouched.
    fn assert_rejected(r: Result<()>, y: &[u64], want: &[u64], i: usize, what: &str) {
        match r {
            Err(crate::Error::InvalidArgument(m)) => assert!(m.contains(&format!("x[{i}] = {}", want[i])), "{what}: {m}"),
            other => panic!("{what}: {other:?}"),
        }
        assert!(y == want, "{what}: x changed");
    }

    #[test]
    fn unreduced_entries_are_rejected_untouched() {
        // The four-step checks x while pass 1 reads it: every arithmetic (lazy and not), one strip
        // and several per row visit, both twiddle schemes, both directions, and the entry ≥ p
        // first, in the middle or last.
        let n = 1 << 10;
        for p in [fourier_primes(50, 20, 1)[0], fourier_primes(62, 20, 1)[0], fourier_primes(63, 20, 1)[0]] {
            let w = primitive_root_of_unity(n as u64, p).unwrap();
            let x = rand_vec(n, p, 5);
            for a in ariths(p) {
                for (n1, wide, coset) in [(split(n), 1, a != Arith::Ifma), (32, 4, false), (64, 2, true)] {
                    let mut fs = FourStep::with_split(n, n1, w, p);
                    (fs.arith, fs.wide, fs.coset) = (a, wide, coset);
                    let mut tmp = vec![0; n];
                    for (i, bad, y) in unreduced(&x, p) {
                        for inverse in [false, true] {
                            let mut z = y.clone();
                            let what = format!("p = {p}, {a:?}, n1 {n1}, wide {wide}, coset {coset}, inverse {inverse}, x[{i}] = {bad}");
                            assert_rejected(fs.run(&mut z, &mut tmp, inverse), &z, &y, i, &what);
                        }
                    }
                    // And the same tables still transform reduced input.
                    let mut z = x.clone();
                    fs.run(&mut z, &mut tmp, false).unwrap();
                    fs.run(&mut z, &mut tmp, true).unwrap();
                    assert_eq!(z, x, "p = {p}, {a:?}, n1 {n1}, wide {wide}");
                }
            }
            // Through the API: the direct sum (n < 64), the four-step, several rows (none transformed).
            for m in [8usize, 32, 1 << 12] {
                let w = primitive_root_of_unity(m as u64, p).unwrap();
                for (i, bad, y) in unreduced(&rand_vec(m, p, 6), p) {
                    let mut z = y.clone();
                    assert_rejected(ntt(&mut z, w, p), &z, &y, i, &format!("ntt p = {p}, n = {m}, x[{i}] = {bad}"));
                    assert_rejected(intt(&mut z, w, p), &z, &y, i, &format!("intt p = {p}, n = {m}, x[{i}] = {bad}"));
                }
            }
            let w = primitive_root_of_unity(64, p).unwrap();
            for (i, bad, y) in unreduced(&rand_vec(3 * 64, p, 7), p) {
                let mut z = y.clone();
                assert_rejected(ntt_many(&mut z, 64, w, p), &z, &y, i, &format!("ntt_many p = {p}, x[{i}] = {bad}"));
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
