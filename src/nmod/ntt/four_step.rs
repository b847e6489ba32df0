//! The four-step transform for n ≥ 64 ([Bailey 1990], "FFTs in external or hierarchical memory"),
//! whose two passes are both *column* passes, vectorised across eight adjacent columns, so that
//! no pass needs a shuffle inside a butterfly and no pass a separate permutation:
//!
//! n = n1·n2 (any powers of two n1, n2 ≥ 8; [`split`] picks n1 = 2^⌊k/2⌋ ≤ n2, k = log2 n, but for
//! one exception), input index j = j1·n2 + j2, output index i = i1 + n1·i2, and
//!
//! X_(i1 + n1·i2) = Σ_j2 (w^n1)^(j2·i2) · [w^(i1·j2) · Σ_j1 (w^n2)^(j1·i1) · x_(j1·n2 + j2)].
//!
//! - Pass 1 (x → tmp), per strip of 8 columns j2: read the n1 lines x\[j1·n2 + j2 ..+8\] (the
//!   first radix-8 group of the DFT reads them in place), run the size-n1 line DFT into an
//!   L1/L2-resident buffer (lane c = column j2 + c), multiply by the twiddles w^(i1·j2) (see
//!   below), and store through 8 × 8 in-register transposes, reading the DFT's bit-reversed slots
//!   in natural i1 order: the line holding i1 = 8g..8g+8 of column j2 goes to line g·n2 + j2 of
//!   tmp, so that tmp holds the n1/8 strips of pass 2 one after the other.
//! - Pass 2 (tmp → x), per strip g (columns i1 = 8g..8g+8): read its n2 consecutive lines, run
//!   the size-n2 line DFT, and let its last group write slot k to x\[rev(k)·n1 + 8g ..+8\], which
//!   is natural order. With the 64-bit products below [`NTT_TWIDDLE_STAGE_MIN_N`] the twiddles
//!   w^(i1·j2) are folded into this DFT's stage twiddles instead (column i1 evaluates
//!   Σ_j2 Y_j2·z^j2 on the coset w^i1·⟨w^n1⟩, see [`super::twiddles`]): no product of their own,
//!   a per-lane 16n-byte table instead.
//! - From [`NTT_WIDE_STRIPS_MIN_N`] on ([`NTT_IFMA_WIDE_STRIPS_MIN_N`] with IFMA) both passes
//!   take [`WIDE`] adjacent strips at a time (at most min(n1, n2)/8): each row of x is read
//!   (pass 1) or written (pass 2) once for all of them, 8·WIDE contiguous words, through the
//!   strips' L2-resident buffers.
//!
//! The inverse is the same transform at w^(−1) with n^(−1) folded into its twiddles (twiddle
//! stage) or multiplied into its outputs (coset twiddles). Pass 1 checks its input as it reads
//! it: an entry ≥ p stops the transform before pass 2, x untouched.
#[cfg(target_arch = "x86_64")]
use super::lanes::Avx;
use super::lanes::{Arith, Lanes, Line, Portable};
use super::line_dft::{line_dft, plain, rev};
use super::twiddles::{Dir, Twist};
use crate::nmod::prime::{check_reduced, invmod};
use crate::tuning::{
    NTT_IFMA_PARALLEL_MIN_N, NTT_IFMA_WIDE_STRIPS_MIN_N, NTT_PARALLEL_MIN_N, NTT_PARALLEL_TASK_MIN_WORDS, NTT_TWIDDLE_STAGE_MIN_N,
    NTT_WIDE_STRIPS_MIN_N,
};
use crate::Result;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Rows ahead that the wide gather of pass 1 prefetches.
const PREFETCH: usize = 8;
/// Strips per row visit from [`NTT_WIDE_STRIPS_MIN_N`] / [`NTT_IFMA_WIDE_STRIPS_MIN_N`] on (a
/// power of two).
pub(super) const WIDE: usize = 4;

/// The four-step transform for n ≥ [`crate::tuning::NTT_FOUR_STEP_MIN_N`] (see the module
/// documentation).
pub(super) struct FourStep {
    n1: usize,
    n2: usize,
    p: u64,
    w: u64,
    pub(super) arith: Arith,
    /// Strips per row visit in both passes (see [`pass1`]): [`WIDE`] from [`NTT_WIDE_STRIPS_MIN_N`]
    /// (IFMA: [`NTT_IFMA_WIDE_STRIPS_MIN_N`]) on, else 1.
    pub(super) wide: usize,
    /// Whether the four-step twiddles are folded into pass 2 ([`Twist::Coset`], no products, a
    /// 16n-byte table) rather than a twiddle stage of pass 1 ([`Twist::Stage`], two products per
    /// line, 2n bytes): with the 64-bit products below [`NTT_TWIDDLE_STAGE_MIN_N`], where their
    /// cost outweighs the table's memory traffic; never with IFMA, whose products are cheaper.
    pub(super) coset: bool,
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
        let min = (NTT_PARALLEL_TASK_MIN_WORDS / (8 * len)).max(1);
        (0..count).into_par_iter().with_min_len(min).for_each_init(|| vec![Line::default(); len], |buf, i| f(buf, i));
    } else {
        let mut buf = vec![Line::default(); len];
        (0..count).for_each(|i| f(&mut buf, i));
    }
}

/// n1 of the split n = n1·n2 (n ≥ 64, k = log2 n): 2^⌊k/2⌋ (n1 ≤ n2), except
/// n1 = 2^7 (n2 = 2^9) at n = 2^16, the faster split there with 50-bit p. Among the splits
/// 2^(⌊k/2⌋−4) .. 2^(⌊k/2⌋+2) timed at 2^16..2^22 no other beat 2^⌊k/2⌋, and n1 ≤ 2^(⌊k/2⌋−2)
/// was slower.
pub(super) fn split(n: usize) -> usize {
    let k = n.trailing_zeros();
    1 << if k == 16 { 7 } else { k / 2 }
}

impl FourStep {
    pub(super) fn new(n: usize, w: u64, p: u64) -> Self {
        Self::with_split(n, split(n), w, p)
    }

    /// The four-step with n = n1·n2 for any powers of two n1, n2 ≥ 8.
    pub(super) fn with_split(n: usize, n1: usize, w: u64, p: u64) -> Self {
        let n2 = n / n1;
        debug_assert!(n1.is_power_of_two() && n1 >= 8 && n2 >= 8 && n1 * n2 == n);
        let (b1, b2) = ((n1 / 8).trailing_zeros(), n2.trailing_zeros());
        let rev1 = (0..n1 / 8).map(|g| rev(g, b1) as u32).collect();
        let rev2 = (0..n2).map(|k| rev(k, b2) as u32).collect();
        let arith = Arith::detect(p);
        // Both passes take `wide` strips at a time: it divides n2/8 (pass 1) and n1/8 (pass 2).
        let wide_min = if arith == Arith::Ifma { NTT_IFMA_WIDE_STRIPS_MIN_N } else { NTT_WIDE_STRIPS_MIN_N };
        let wide = if n >= wide_min { WIDE.min(n1.min(n2) / 8) } else { 1 };
        let coset = arith != Arith::Ifma && n < NTT_TWIDDLE_STAGE_MIN_N;
        FourStep { n1, n2, p, w, arith, wide, coset, rev1, rev2, dirs: [OnceLock::new(), OnceLock::new()] }
    }

    /// The tables of one direction, built on first use.
    pub(super) fn dir(&self, inverse: bool) -> Result<&Dir> {
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
        let par = n1 * n2 >= if self.arith == Arith::Ifma { NTT_IFMA_PARALLEL_MIN_N } else { NTT_PARALLEL_MIN_N };
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
    pub(super) fn run(&self, x: &mut [u64], tmp: &mut [u64], inverse: bool) -> Result<()> {
        let d = self.dir(inverse)?;
        let (p, lazy) = (self.p, self.p < 1 << 62);
        // Each twiddle scheme is its own instantiation: a run-time branch between them inside the
        // kernels slows the 62-bit transform by 10–20 %.
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
