//! The base DFTs of the six-step ([`super::super::fft`]), eight rows per batch: size m ≤ 2k at a
//! root r^em, shift-only butterflies on lazy digits ([`super::digits`]); size m = 4k at a root
//! ω_4k with ω_4k² = r^em, one more radix-2 level with products by ω_4k on a quarter of the
//! elements ([`dft8`]). The six-step twiddles are IFMA products fused into the load.
#[cfg(target_arch = "x86_64")]
use super::digits::{finish, load8, split_digits, Norm};
#[cfg(target_arch = "x86_64")]
use super::element_mul::{lazy_mul, MulC};
use super::{available, max_base, mul_available, Gfpf};
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Where the eight lanes (rows) of a batch of [`dft8`] read and write: lane l's element e is read
/// at `src[l] + e·src_step` and written at `dst[l] + e·dst_step` (words); lanes from `lanes` on
/// are padding (they repeat lane 0's input and are not stored). Reads may overlap the writes
/// of the same batch (in place): every input is loaded before the first store.
pub(in crate::gfpf) struct Lanes {
    pub src: [*const u64; 8],
    pub src_step: usize,
    pub dst: [*mut u64; 8],
    pub dst_step: usize,
    pub lanes: usize,
    /// Words from each lane's input to the next batch's (prefetched while this one loads;
    /// 0: none).
    pub next: usize,
}

/// The twiddles of a batch of [`dft8`]: element e of lane l is first multiplied by
/// ω^i, i = step[l]·e < n (ω^−i when `inverse`), read from `table` (ω^i at i·k, i < n).
pub(in crate::gfpf) struct Twiddles {
    pub table: *const u64,
    pub step: [usize; 8],
    pub n: usize,
    pub inverse: bool,
    /// The next batch's steps are step[l] + next (its twiddles are prefetched; 0: none).
    pub next: usize,
}

impl Twiddles {
    /// The k words of lane l's twiddle for element e.
    fn ptr(&self, l: usize, e: usize, k: usize) -> *const u64 {
        self.ptr_at(self.step[l], e, k)
    }

    /// The k words of ω^(±step·e) (step·e taken mod n).
    fn ptr_at(&self, step: usize, e: usize, k: usize) -> *const u64 {
        let i = (step * e) & (self.n - 1);
        let i = if self.inverse { (self.n - i) & (self.n - 1) } else { i };
        // SAFETY: i < n, the table holds n elements (caller of dft8).
        unsafe { self.table.add(i * k) }
    }
}

/// In place, the DFTs of size m ≤ 2k at ω_m = r^em (em < 2k) of the eight consecutive rows of m
/// elements in x (8·m·k words), as [`super::super::fft`]'s scalar base case computes them.
/// Requires [`available`]`(f)`.
pub(in crate::gfpf) fn base8(f: &Gfpf, x: &mut [u64], m: usize, em: usize) {
    assert!(x.len() == 8 * m * f.k);
    let k = f.k;
    let src = std::array::from_fn(|l| x[l * m * k..].as_ptr());
    let dst = std::array::from_fn(|l| x[l * m * k..].as_mut_ptr());
    let io = Lanes { src, src_step: k, dst, dst_step: k, lanes: 8, next: 0 };
    // SAFETY: eight disjoint rows of m elements in x.
    unsafe { dft8(f, m, em, &io, None, None) };
}

/// The DFTs of size m of the rows of a batch ([`Lanes`]), as [`super::super::fft`]'s scalar base case
/// computes them: for m ≤ 2k at ω_m = r^em (em < 2k), shift-only; for m = 4k ≤ [`max_base`]`(f)`
/// at ω_m = `root` with ω_m² = r^em: two shift-only DFTs of size 2k (even and odd inputs, radix-2
/// DIT) and a last level X_j, X_(j+2k) = E_j ± ω_m^j·O_j, where ω_m^j = r^(em·⌊j/2⌋) is a shift for
/// even j and r^(em·⌊j/2⌋)·ω_m for odd j: the 2k/2 odd O_j are normalised and multiplied by ω_m
/// ([`super::element_mul::lazy_mul`]), so a 4k-point base costs 1/4 product per element and replaces a pass.
/// With `tw`, the elements are first multiplied by their twiddles (the lazy product [`super::element_mul::lazy_mul`]
/// feeds the butterflies, one normalisation for both; element 0 is taken as ω^0 = 1).
/// Requires [`available`]`(f)`, m a power of 2 ≤ [`max_base`]`(f)`, and [`mul_available`]`(f)`
/// with `tw`.
///
/// # Safety
/// The lanes below `io.lanes` read m canonical elements and write m elements as [`Lanes`] says,
/// the writes of different lanes disjoint; `tw`'s table holds its n elements; `root` holds k
/// words (a canonical element) when m > 2k.
pub(in crate::gfpf) unsafe fn dft8(f: &Gfpf, m: usize, em: usize, io: &Lanes, tw: Option<&Twiddles>, root: Option<&[u64]>) {
    assert!(available(f) && m <= max_base(f) && m.is_power_of_two() && (1..=8).contains(&io.lanes));
    assert!(tw.is_none() || mul_available(f));
    assert!(m <= 2 * f.k || root.is_some_and(|w| w.len() == f.k));
    #[cfg(target_arch = "x86_64")]
    // SAFETY: AVX-512F/DQ/IFMA detected (available), the pointers (caller).
    unsafe {
        match f.k {
            8 => dft8_k::<8>(f, m, em, io, tw, root),
            16 => dft8_k::<16>(f, m, em, io, tw, root),
            _ => dft8_k::<32>(f, m, em, io, tw, root),
        }
    }
}

#[cfg(target_arch = "x86_64")]
thread_local! {
    /// The lazy digits of one batch: element e at [e·2k, e·2k + k) (H) and [e·2k + k, (e+1)·2k) (L).
    static BUF: std::cell::RefCell<Vec<__m512i>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// (a, b) ← (a + b·r^sh, a − b·r^sh) for the lazy elements at pa and pb of buf ((H, L) pairs:
/// K vectors of H then K of L; sh < 2K). Digit d of b·r^s is ±b_i with d = (i + s) mod K,
/// negated when i + s ≥ K (the wrapped digits) xor sh ≥ K. Per half, b's K vectors are read
/// first (constant indices, so they stay in registers for K ≤ 16) and the outputs go to the
/// digits d, so the in-place update needs no copy of b; the sign is a masked negation of b_i
/// (no branch), and the bounds are asserted once.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn butterfly<const K: usize>(buf: &mut [__m512i], pa: usize, pb: usize, sh: usize) {
    assert!(pa.max(pb) + 2 * K <= buf.len() && pa.abs_diff(pb) >= 2 * K);
    let (neg, s) = (sh >= K, sh % K);
    let (zero, p) = (_mm512_setzero_si512(), buf.as_mut_ptr());
    for part in [0, K] {
        // SAFETY: pb + part + i < buf.len() (asserted).
        let t: [__m512i; K] = std::array::from_fn(|i| unsafe { *p.add(pb + part + i) });
        for (i, &ti) in t.iter().enumerate() {
            let d = (i + s) % K;
            let m = (((i + s >= K) != neg) as __mmask8).wrapping_neg();
            let ti = _mm512_mask_sub_epi64(ti, m, zero, ti);
            // SAFETY: pa + part + d and pb + part + d < buf.len(), the runs disjoint (asserted).
            unsafe {
                let a = *p.add(pa + part + d);
                *p.add(pa + part + d) = _mm512_add_epi64(a, ti);
                *p.add(pb + part + d) = _mm512_sub_epi64(a, ti);
            }
        }
    }
}

/// [`dft8`] for k = K.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512ifma")]
unsafe fn dft8_k<const K: usize>(f: &Gfpf, m: usize, em: usize, io: &Lanes, tw: Option<&Twiddles>, root: Option<&[u64]>) {
    BUF.with_borrow_mut(|buf| {
        let w = 2 * K;
        if buf.len() < m * w {
            buf.resize(m * w, _mm512_setzero_si512());
        }
        let buf = &mut buf[..m * w];
        let lg = m.trailing_zeros();
        let zero = _mm512_setzero_si512();
        let mc = MulC::new(f.r);
        // Padding lanes read lane 0.
        let lane = |l: usize| if l < io.lanes { l } else { 0 };
        // One twiddle for all lanes (same step): broadcast instead of a transposed load.
        let uniform = tw.is_some_and(|t| t.step.iter().all(|&s| s == t.step[0]));
        let (mut xd, mut yd) = ([zero; K], [zero; K]);
        // Load in bit-reversed order, transposed to digit-major, as lazy pairs (H, L), times
        // the twiddles if any.
        for e in 0..m {
            let pe = if lg == 0 { 0 } else { e.reverse_bits() >> (usize::BITS - lg) };
            // SAFETY: lane l's element e (caller).
            let xp: [*const u64; 8] = std::array::from_fn(|l| unsafe { io.src[lane(l)].add(e * io.src_step) });
            if io.next != 0 {
                for p in xp {
                    for line in (0..K).step_by(8) {
                        _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(io.next + line).cast());
                    }
                }
            }
            // SAFETY: as above.
            unsafe { load8::<K>(&xp, &mut xd) };
            let (hs, ls) = buf[pe * w..(pe + 1) * w].split_at_mut(K);
            match tw {
                Some(t) if e > 0 => {
                    if uniform {
                        let p = t.ptr(0, e, K);
                        for (d, y) in yd.iter_mut().enumerate() {
                            // SAFETY: K words of the table (Twiddles).
                            *y = _mm512_set1_epi64(unsafe { *p.add(d) } as i64);
                        }
                    } else {
                        let yp: [*const u64; 8] = std::array::from_fn(|l| t.ptr(lane(l), e, K));
                        if t.next != 0 {
                            for l in 0..8 {
                                let p = t.ptr_at(t.step[lane(l)] + t.next, e, K);
                                for line in (0..K).step_by(8) {
                                    _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(line).cast());
                                }
                            }
                        }
                        // SAFETY: each twiddle pointer holds K words (Twiddles).
                        unsafe { load8::<K>(&yp, &mut yd) };
                    }
                    lazy_mul::<K>(mc, &xd, &yd, hs, ls);
                }
                _ => split_digits::<K>(&xd, hs, ls),
            }
        }
        // Radix-2 levels, lazily (see [`super::digits`]): the shift-only ones up to size mm.
        let k2 = 2 * K;
        let mm = m.min(k2);
        let mut len = 2;
        while len <= mm {
            let (half, step) = (len / 2, em * (mm / len) % k2);
            for blk in (0..m).step_by(len) {
                for j in 0..half {
                    let sh = (step * j) & (k2 - 1);
                    butterfly::<K>(buf, (blk + j) * w, (blk + j + half) * w, sh);
                }
            }
            len *= 2;
        }
        let nm = Norm::new(f.r);
        if m > mm {
            // The last level of a 4k-point base: the odd O_j normalised and times ω_m, then
            // butterflies with the shifts r^(em·⌊j/2⌋).
            let Some(root) = root else { unreachable!("dft8 asserts root for m > 2k") };
            let cd: [__m512i; K] = std::array::from_fn(|d| _mm512_set1_epi64(root[d] as i64));
            let mut tmp = [[0u64; K]; 8];
            let tp: *mut u64 = tmp.as_mut_ptr().cast();
            // SAFETY: eight disjoint runs of K words in tmp.
            let (tw8, tr8): ([*mut u64; 8], [*const u64; 8]) =
                (std::array::from_fn(|l| unsafe { tp.add(l * K) }), std::array::from_fn(|l| unsafe { tp.add(l * K).cast_const() }));
            for j in (1..mm).step_by(2) {
                let (hs, ls) = buf[(mm + j) * w..(mm + j + 1) * w].split_at_mut(K);
                // SAFETY: tmp holds the eight lanes' K words; they are read back at once.
                unsafe {
                    finish::<K>(f, nm, hs, ls, &tw8, 8);
                    load8::<K>(&tr8, &mut xd);
                }
                lazy_mul::<K>(mc, &xd, &cd, hs, ls);
            }
            for j in 0..mm {
                butterfly::<K>(buf, j * w, (mm + j) * w, (em * (j / 2)) & (k2 - 1));
            }
        }
        // Normalise and store.
        for e in 0..m {
            let (hs, ls) = buf[e * w..(e + 1) * w].split_at_mut(K);
            // SAFETY: lane l's output element e (caller); padding lanes are not stored.
            let dp: [*mut u64; 8] = std::array::from_fn(|l| unsafe { io.dst[lane(l)].add(e * io.dst_step) });
            // SAFETY: the lanes' outputs are disjoint (caller).
            unsafe { finish::<K>(f, nm, hs, ls, &dp, io.lanes) };
        }
    });
}
