//! The line DFT: a cyclic DFT of m lines of eight residues (lanes independent), radix-2
//! Cooley–Tukey with bit-reversed output and Harvey's lazy butterflies (Harvey 2014, "Faster
//! arithmetic for number-theoretic transforms": residues in [0, 4p), Shoup products with
//! precomputed quotients). For p ≥ 2^62, where 4p overflows, every butterfly reduces fully.
//!
//! For a cyclic DFT of size m at root u the block-k twiddle of every stage is u^rev(k) (rev on
//! log2(m/2) bits), so one half-size table serves all stages. The butterflies of block 0 (twiddle
//! u^0 = 1, m − 1 of a size-m DFT's) form no product (except in the coset DFTs, whose twiddles are
//! not 1). Stages run in groups of up to three (radix 8) held in registers: over all lines while
//! blocks exceed [`NTT_LEAF_MAX_LINES`] lines, then block by block, each block in L1.
use super::lanes::Lanes;
use crate::tuning::NTT_LEAF_MAX_LINES;

/// Bit reversal of t on `bits` bits.
#[inline]
pub(super) fn rev(t: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        t.reverse_bits() >> (usize::BITS - bits)
    }
}

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
/// stages over all lines while blocks exceed [`NTT_LEAF_MAX_LINES`] lines, then block by block (each block in L1).
#[inline(always)]
pub(super) fn line_dft<L: Lanes, const LAZY: bool, const ONE0: bool>(
    l: L,
    m: usize,
    tw: impl Fn(u32, usize) -> (L::V, L::V) + Copy,
    buf: *mut u64,
    first: impl Fn(usize) -> L::V + Copy,
    last: impl Fn(usize, L::V) + Copy,
) {
    let lg = m.trailing_zeros();
    let mut done = 0;
    while m >> done > NTT_LEAF_MAX_LINES {
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
pub(super) fn plain<'a, L: Lanes + 'a>(l: L, tw: &'a [[u64; 2]]) -> impl Fn(u32, usize) -> (L::V, L::V) + Copy + 'a {
    #[inline(always)]
    move |_, g| (l.splat(tw[g][0]), l.splat(tw[g][1]))
}
