//! AVX-512 batches of the base DFTs (size m ≤ 2k shift-only, m = 4k with products by ω_4k on a
//! quarter of the elements, [`dft8`]) of [`super::fft`] and of element
//! products (AVX-512 IFMA, [`lazy_mul`]; the twiddles of the six-step, fused into the base DFTs
//! that follow them, and [`Gfpf::mul_n`]): eight rows (elements) at once, one per lane,
//! digit-major (vector d holds digit d of one element of each of the eight rows).
//!
//! Lazy digits: a digit x_d < 2^64 is held as the pair (H, L) = (⌊x_d/2^32⌋, x_d mod 2^32) of
//! signed 64-bit lanes, value H·2^32 + L. A butterfly (a, b) ← (a + b·r^s, a − b·r^s) is exact in
//! Z[T]/(T^k + 1) at T = r: b·r^s rotates the digits by s mod k and negates the wrapped ones (all of
//! them when s ≥ k), so a level is 4k lane additions/subtractions and no carry; after log2 m ≤
//! log2 2k ≤ 6 levels |H|, |L| < 2^38 (|H| < 2^50 when the inputs are lazy products, |H| < 2^44;
//! a 4k-point base, k ≤ 16, has log2 4k ≤ 6 levels too).
//! Special inputs need no care (−1 is the digit r at the top).
//! Each output is normalised once ([`finish`]): every digit t = H·2^32 + L splits on its own as
//! q·r + s, the quotient estimated in f64 from H (2^32/r < 2^−8 for r ≥ 2^40, so off by at most
//! one: one correction each way), q moves one digit up (the top one to digit 0, negated: r^k ≡ −1);
//! only where that leaves a digit outside [0, r) (rare) does a serial carry pass run, and a lane
//! whose value then still carries out (it crossed 0 or r^k, e.g. the result −1, the special form)
//! is finished by the scalar [`Gfpf::sub_carry`].
use super::Gfpf;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Whether the AVX-512 paths may run (on by default; the benchmark turns them off to time the
/// scalar fallback in the same process).
static ENABLED: AtomicBool = AtomicBool::new(true);

/// Turns the AVX-512 paths of the GFPF DFT and `mul_n` on or off for the whole process (for
/// benchmarks).
#[doc(hidden)]
pub fn set_enabled(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
}

/// A cap on the base size of the DFT plans (0: none; for benchmarks).
static BASE_CAP: AtomicUsize = AtomicUsize::new(0);

/// Caps the base size of the GFPF DFT plans at `m` elements for the whole process (0: no cap;
/// for benchmarks that compare plans, e.g. 2k-point against 4k-point bases).
#[doc(hidden)]
pub fn set_base_cap(m: usize) {
    BASE_CAP.store(m, Ordering::Relaxed);
}

/// Whether [`lazy_mul`] may take its Karatsuba level (on by default; for benchmarks).
static KARATSUBA: AtomicBool = AtomicBool::new(true);

/// Turns the Karatsuba level of the IFMA element product on or off for the whole process (for
/// benchmarks that compare it with the schoolbook product; the results are the same).
#[doc(hidden)]
pub fn set_karatsuba(on: bool) {
    KARATSUBA.store(on, Ordering::Relaxed);
}

/// Whether the AVX-512 base DFTs run for this field on this CPU: enabled, k ∈ {8, 16, 32},
/// r ≥ 2^40 (the quotient estimate), AVX-512F, DQ and IFMA.
pub(super) fn available(f: &Gfpf) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        ENABLED.load(Ordering::Relaxed)
            && matches!(f.k, 8 | 16 | 32)
            && f.r >= 1 << 40
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512ifma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = f;
        false
    }
}

/// Where the eight lanes (rows) of a batch of [`dft8`] read and write: lane l's element e is read
/// at `src[l] + e·src_step` and written at `dst[l] + e·dst_step` (words); lanes from `lanes` on
/// are padding (they repeat lane 0's input and are not stored). Reads may overlap the writes
/// of the same batch (in place): every input is loaded before the first store.
pub(super) struct Lanes {
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
pub(super) struct Twiddles {
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
/// elements in x (8·m·k words), as [`super::fft`]'s scalar base case computes them.
/// Requires [`available`]`(f)`.
pub(super) fn base8(f: &Gfpf, x: &mut [u64], m: usize, em: usize) {
    assert!(x.len() == 8 * m * f.k);
    let k = f.k;
    let src = std::array::from_fn(|l| x[l * m * k..].as_ptr());
    let dst = std::array::from_fn(|l| x[l * m * k..].as_mut_ptr());
    let io = Lanes { src, src_step: k, dst, dst_step: k, lanes: 8, next: 0 };
    // SAFETY: eight disjoint rows of m elements in x.
    unsafe { dft8(f, m, em, &io, None, None) };
}

/// Non-temporal copy of a staged batch: for e < m and lane l < `lanes`, the k words at
/// stage + (8·e + l)·k go to dst[l] + e·step through streaming stores (whole 64-byte lines
/// straight to memory: no read for ownership, no cache lines evicted for them), then a store
/// fence, so later (and other threads') reads see them.
///
/// # Safety
/// stage holds 8·m·k readable words; every dst[l] + e·step (l < lanes, e < m) is 64-byte
/// aligned and writable for k words; k is a multiple of 8; AVX-512F is available.
pub(super) unsafe fn stream_out(k: usize, stage: *const u64, dst: &[*mut u64; 8], lanes: usize, m: usize, step: usize) {
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn run(k: usize, stage: *const u64, dst: &[*mut u64; 8], lanes: usize, m: usize, step: usize) {
        for e in 0..m {
            for (l, &d) in dst.iter().enumerate().take(lanes) {
                for w in (0..k).step_by(8) {
                    // SAFETY: caller (readable stage words, aligned writable destination).
                    unsafe {
                        let v = _mm512_loadu_si512(stage.add((8 * e + l) * k + w).cast());
                        _mm512_stream_si512(d.add(e * step + w).cast(), v);
                    }
                }
            }
        }
        _mm_sfence();
    }
    #[cfg(target_arch = "x86_64")]
    // SAFETY: caller.
    unsafe {
        run(k, stage, dst, lanes, m, step)
    };
    #[cfg(not(target_arch = "x86_64"))]
    unreachable!("stream_out without AVX-512 ({k}, {stage:?}, {dst:?}, {lanes}, {m}, {step})");
}

/// The largest base size of [`dft8`] for this field: 4k where [`mul_available`]`(f)` and
/// k ≤ 16 (the 4k-point bases), else 2k.
pub(super) fn max_base(f: &Gfpf) -> usize {
    let m = if f.k <= 16 && mul_available(f) { 4 * f.k } else { 2 * f.k };
    match BASE_CAP.load(Ordering::Relaxed) {
        0 => m,
        cap => m.min(cap.max(2 * f.k)),
    }
}

/// The DFTs of size m of the rows of a batch ([`Lanes`]), as [`super::fft`]'s scalar base case
/// computes them: for m ≤ 2k at ω_m = r^em (em < 2k), shift-only; for m = 4k ≤ [`max_base`]`(f)`
/// at ω_m = `root` with ω_m² = r^em: two shift-only DFTs of size 2k (even and odd inputs, radix-2
/// DIT) and a last level X_j, X_(j+2k) = E_j ± ω_m^j·O_j, where ω_m^j = r^(em·⌊j/2⌋) is a shift for
/// even j and r^(em·⌊j/2⌋)·ω_m for odd j: the 2k/2 odd O_j are normalised and multiplied by ω_m
/// ([`lazy_mul`]), so a 4k-point base costs 1/4 product per element and replaces a pass.
/// With `tw`, the elements are first multiplied by their twiddles (the lazy product [`lazy_mul`]
/// feeds the butterflies, one normalisation for both; element 0 is taken as ω^0 = 1).
/// Requires [`available`]`(f)`, m a power of 2 ≤ [`max_base`]`(f)`, and [`mul_available`]`(f)`
/// with `tw`.
///
/// # Safety
/// The lanes below `io.lanes` read m canonical elements and write m elements as [`Lanes`] says,
/// the writes of different lanes disjoint; `tw`'s table holds its n elements; `root` holds k
/// words (a canonical element) when m > 2k.
pub(super) unsafe fn dft8(f: &Gfpf, m: usize, em: usize, io: &Lanes, tw: Option<&Twiddles>, root: Option<&[u64]>) {
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

/// Transposes the 8 × 8 matrix of words whose rows are v[0..8] (three rounds of 2 × 2 block swaps:
/// blocks of 4 and 2 words with vpermt2q, single words with unpack).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn transpose8(v: &mut [__m512i; 8]) {
    let lo4 = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0);
    let hi4 = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
    let lo2 = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
    let hi2 = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    for (b, lo, hi, rows) in [(4, lo4, hi4, [0, 1, 2, 3]), (2, lo2, hi2, [0, 1, 4, 5])] {
        for i in rows {
            let (a, c) = (v[i], v[i + b]);
            v[i] = _mm512_permutex2var_epi64(a, lo, c);
            v[i + b] = _mm512_permutex2var_epi64(a, hi, c);
        }
    }
    for i in [0, 2, 4, 6] {
        let (a, c) = (v[i], v[i + 1]);
        v[i] = _mm512_unpacklo_epi64(a, c);
        v[i + 1] = _mm512_unpackhi_epi64(a, c);
    }
}

/// Constants of the normalisation: r = rh·2^32 + rl, 2^32/r, the low-half mask.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Norm {
    rh: __m512i,
    rl: __m512i,
    inv: __m512d,
    mask: __m512i,
    /// rl = 0 (P3, P4: r = 2^w + 2^u with u ≥ 32).
    rl0: bool,
    /// 2^−5, the margin of the quotient estimate where rl = 0.
    delta: __m512d,
    /// r < 2^64 − 2^44 (the carries' range check is one comparison).
    narrow: bool,
}

#[cfg(target_arch = "x86_64")]
impl Norm {
    /// (h, l) ← (h + ⌊l/2^32⌋, l mod 2^32): the same value h·2^32 + l with 0 ≤ l < 2^32.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn split(self, h: __m512i, l: __m512i) -> (__m512i, __m512i) {
        (_mm512_add_epi64(h, _mm512_srai_epi64::<32>(l)), _mm512_and_si512(l, self.mask))
    }

    /// For s = h·2^32 + l ∈ [−r, 2r) (0 ≤ l < 2^32) and a quotient q: (s mod r as h·2^32 + l,
    /// q − 1 if s < 0, q + 1 if s ≥ r).
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn fix(self, h: __m512i, l: __m512i, q: __m512i) -> (__m512i, __m512i, __m512i) {
        let one = _mm512_set1_epi64(1);
        let neg = _mm512_cmplt_epi64_mask(h, _mm512_setzero_si512());
        let (h, l) = self.split(_mm512_mask_add_epi64(h, neg, h, self.rh), _mm512_mask_add_epi64(l, neg, l, self.rl));
        let q = _mm512_mask_sub_epi64(q, neg, q, one);
        let ge = _mm512_cmpgt_epi64_mask(h, self.rh) | (_mm512_cmpeq_epi64_mask(h, self.rh) & _mm512_cmpge_epi64_mask(l, self.rl));
        let (h, l) = self.split(_mm512_mask_sub_epi64(h, ge, h, self.rh), _mm512_mask_sub_epi64(l, ge, l, self.rl));
        (h, l, _mm512_mask_add_epi64(q, ge, q, one))
    }
}

/// Digit-major digits of eight elements: v[d] (d < K) holds digit d of the element at p[lane].
///
/// # Safety
/// Each p[lane] is readable for K words; AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn load8<const K: usize>(p: &[*const u64; 8], v: &mut [__m512i]) {
    for blk in (0..K).step_by(8) {
        // SAFETY: K readable words at each p[l] (caller).
        let mut t: [__m512i; 8] = std::array::from_fn(|l| unsafe { _mm512_loadu_si512(p[l].add(blk).cast()) });
        transpose8(&mut t);
        v[blk..blk + 8].copy_from_slice(&t);
    }
}

/// The lazy (H, L) pair of digits x (see the module doc).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn split_digits<const K: usize>(x: &[__m512i], h: &mut [__m512i], l: &mut [__m512i]) {
    let mask = _mm512_set1_epi64(0xFFFF_FFFF);
    for d in 0..K {
        h[d] = _mm512_srli_epi64::<32>(x[d]);
        l[d] = _mm512_and_si512(x[d], mask);
    }
}

/// Normalises the lazy elements (h, l) (|h| < 2^50, |l| < 2^41; see the module doc) and
/// stores them canonical at p[lane] (K words each). Every digit is split on its own,
/// t_d = q_d·r + s_d (quotient estimated, one correction each way; one upward only where
/// r mod 2^32 = 0, the estimate biased down), then digit d becomes
/// s_d + q_{d−1} (digit 0: s_0 − q_{k−1}, as r^k ≡ −1); |q| < 2^31 ≪ r, so that is a digit in
/// [0, r) in all but rare lanes, and then no carry moves. Otherwise (checked for the whole
/// batch) a serial pass with carries in {−1, 0, 1} runs, and lanes still carrying out of the top
/// are finished by [`Gfpf::sub_carry`].
///
/// # Safety
/// Each p[lane] for lane < `lanes` is writable for K words, these disjoint (the other lanes are
/// not stored); AVX-512F/DQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
#[inline]
unsafe fn finish<const K: usize>(f: &Gfpf, nm: Norm, hs: &mut [__m512i], ls: &mut [__m512i], p: &[*mut u64; 8], lanes: usize) {
    let zero = _mm512_setzero_si512();
    let mut q = [zero; K];
    if nm.rl0 {
        // r = rh·2^32: t/r ∈ [h/rh, h/rh + 2^−8) and the f64 estimate of h/rh is within 2^−9,
        // so q = ⌊h/rh − 2^−5⌋ (a fused multiply-subtract) is ⌊t/r⌋ or one less: t − q·r ∈
        // [0, 2r) with l unchanged, one correction.
        let one = _mm512_set1_epi64(1);
        for d in 0..K {
            let (h, l) = nm.split(hs[d], ls[d]);
            let y = _mm512_fmsub_pd(_mm512_cvtepi64_pd(h), nm.inv, nm.delta);
            let qd = _mm512_cvt_roundpd_epi64::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(y);
            let h = _mm512_sub_epi64(h, _mm512_mullo_epi64(qd, nm.rh));
            let ge = _mm512_cmpge_epi64_mask(h, nm.rh);
            hs[d] = _mm512_mask_sub_epi64(h, ge, h, nm.rh);
            ls[d] = l;
            q[d] = _mm512_mask_add_epi64(qd, ge, qd, one);
        }
    } else {
        for d in 0..K {
            let (h, l) = nm.split(hs[d], ls[d]);
            let y = _mm512_mul_pd(_mm512_cvtepi64_pd(h), nm.inv);
            let qd = _mm512_cvt_roundpd_epi64::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(y);
            let l = _mm512_sub_epi64(l, _mm512_mullo_epi64(qd, nm.rl));
            let (h, l) = nm.split(_mm512_sub_epi64(h, _mm512_mullo_epi64(qd, nm.rh)), l);
            (hs[d], ls[d], q[d]) = nm.fix(h, l, qd);
        }
    }
    let carry = |d: usize| {
        if d == 0 {
            _mm512_sub_epi64(zero, q[K - 1])
        } else {
            q[d - 1]
        }
    };
    let r = _mm512_set1_epi64(f.r as i64);
    let mut out = [zero; K];
    let mut bad: u8 = 0;
    for d in 0..K {
        let (c, sd) = (carry(d), _mm512_or_si512(_mm512_slli_epi64::<32>(hs[d]), ls[d]));
        let v = _mm512_add_epi64(sd, c);
        // 0 ≤ sd + c < r; where r + |c| < 2^64 (|c| < 2^43), sd + c wraps to ≥ r exactly when
        // it is out of range, so one unsigned comparison tells.
        let ok = if nm.narrow {
            _mm512_cmplt_epu64_mask(v, r)
        } else {
            let pos = _mm512_cmpge_epi64_mask(c, zero);
            (pos & _mm512_cmpge_epu64_mask(v, sd) & _mm512_cmplt_epu64_mask(v, r)) | (!pos & _mm512_cmple_epu64_mask(v, sd))
        };
        bad |= !ok;
        out[d] = v;
    }
    let mut c = zero;
    if bad != 0 {
        // Rare: the serial pass, carries in {−1, 0, 1}.
        for d in 0..K {
            let l = _mm512_add_epi64(ls[d], _mm512_add_epi64(carry(d), c));
            let (h, l) = nm.split(hs[d], l);
            let (h, l, qq) = nm.fix(h, l, zero);
            out[d] = _mm512_or_si512(_mm512_slli_epi64::<32>(h), l);
            c = qq;
        }
    }
    for blk in (0..K).step_by(8) {
        let mut v: [__m512i; 8] = std::array::from_fn(|j| out[blk + j]);
        transpose8(&mut v);
        for (l, &d) in v.iter().enumerate().take(lanes) {
            // SAFETY: K writable words at p[l] (caller).
            unsafe { _mm512_storeu_si512(p[l].add(blk).cast(), d) };
        }
    }
    // Lanes still carrying out: value + c·r^k ≡ value − c.
    if _mm512_cmpneq_epi64_mask(c, zero) != 0 {
        let mut cs = [0i64; 8];
        // SAFETY: eight writable words.
        unsafe { _mm512_storeu_si512(cs.as_mut_ptr().cast(), c) };
        for (l, &cl) in cs.iter().enumerate().take(lanes) {
            if cl != 0 {
                // SAFETY: K writable words at p[l], disjoint from the other lanes (caller).
                f.sub_carry(unsafe { std::slice::from_raw_parts_mut(p[l], K) }, cl as i128);
            }
        }
    }
}

impl Norm {
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn new(r: u64) -> Self {
        Norm {
            rh: _mm512_set1_epi64((r >> 32) as i64),
            rl: _mm512_set1_epi64((r & 0xFFFF_FFFF) as i64),
            inv: _mm512_set1_pd(2f64.powi(32) / r as f64),
            mask: _mm512_set1_epi64(0xFFFF_FFFF),
            rl0: r & 0xFFFF_FFFF == 0,
            delta: _mm512_set1_pd(1.0 / 32.0),
            narrow: r < u64::MAX - (1 << 44),
        }
    }
}

/// Whether the AVX-512 IFMA element products run for this field on this CPU: [`available`] and
/// r ≥ 2^60 (the bounds of [`lazy_mul`]).
pub(super) fn mul_available(f: &Gfpf) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        available(f) && f.r >= 1 << 60
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = f;
        false
    }
}

/// Constants of [`lazy_mul`]: 52-bit pieces of r = r1·2^52 + r0 and of σ = 2^104 mod r
/// (σ1·2^52 + σ0), ρ = ⌊2^104/r⌋ < 2^44, 1/r, 2^52, the bias B·r = b0 + b1·2^52 + b2·2^104
/// (b0, b1 ∈ [2^59, 2^59 + 2^52), b2 = 2^30) with B < 2^75 as the lazy pair (bh, bl), and whether
/// the Karatsuba level of [`lazy_mul`] applies.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct MulC {
    m52: __m512i,
    r0: __m512i,
    r1: __m512i,
    s0: __m512i,
    s1: __m512i,
    rho: __m512i,
    inv: __m512d,
    two52: __m512d,
    b: [__m512i; 3],
    bh: __m512i,
    bl: __m512i,
    /// [`lazy_mul`]'s Karatsuba level may run ([`set_karatsuba`]).
    kara: bool,
    /// 2r ≥ 2^64 (P3): the digit sums of the Karatsuba level need 65 bits.
    wide: bool,
}

#[cfg(target_arch = "x86_64")]
impl MulC {
    #[target_feature(enable = "avx512f")]
    fn new(r: u64) -> Self {
        let m = (1u64 << 52) - 1;
        let (rho, sigma) = ((1u128 << 104) / r as u128, (1u128 << 104) % r as u128);
        let s = |v: u64| _mm512_set1_epi64(v as i64);
        // T = 2^59 + 2^59·2^52 + b2·2^104 = b2·ρ·r + T', T' = b2·σ + 2^111 + 2^59 < 2^112;
        // B = b2·ρ + ⌈T'/r⌉, δ = B·r − T < r goes into b0 and b1.
        let b2 = 1u128 << 30;
        let t = b2 * sigma + (1 << 111) + (1 << 59);
        let c = t.div_ceil(r as u128);
        let (bias, delta) = (b2 * rho + c, c * r as u128 - t);
        MulC {
            m52: s(m),
            r0: s(r & m),
            r1: s(r >> 52),
            s0: s(sigma as u64 & m),
            s1: s((sigma >> 52) as u64),
            rho: s(rho as u64),
            inv: _mm512_set1_pd(1.0 / r as f64),
            two52: _mm512_set1_pd(2f64.powi(52)),
            b: [s((1 << 59) + (delta as u64 & m)), s((1 << 59) + (delta >> 52) as u64), s(b2 as u64)],
            bh: s((bias >> 32) as u64),
            bl: s(bias as u64 & 0xFFFF_FFFF),
            kara: KARATSUBA.load(Ordering::Relaxed),
            wide: r >= 1 << 63,
        }
    }

    /// For v = a0 + a1·2^52 + a2·2^104 (a0, a1 < 2^60, a2 < 2^31 unsigned): the lazy pairs of ρ'
    /// and q with v = q·r + ρ', ρ' ∈ [−r, 2r) and q < 2^76 (q goes one digit up).
    ///
    /// a2·2^104 = a2·ρ·r + a2·σ; v' = a0 + a1·2^52 + a2·σ < 2^106 after a carry normalisation;
    /// q' = ⌊v'/r⌋ ± 1 from f64 (v' < 2^106 in two exact halves, quotient < 2^46: error ≪ 1);
    /// ρ' = v' − q'·r in 52-bit limbs, its H = ρ' >> 32 computed mod 2^64 (exact as |ρ'| < 2^65);
    /// q = q' + a2·ρ.
    #[target_feature(enable = "avx512f,avx512dq,avx512ifma")]
    #[inline]
    fn reduce(self, a: [__m512i; 3]) -> [__m512i; 4] {
        let z = _mm512_setzero_si512();
        let m32 = _mm512_set1_epi64(0xFFFF_FFFF);
        let a1 = _mm512_add_epi64(a[1], _mm512_srli_epi64::<52>(a[0]));
        let a0 = _mm512_and_si512(a[0], self.m52);
        let a2 = _mm512_add_epi64(a[2], _mm512_srli_epi64::<52>(a1));
        let a1 = _mm512_and_si512(a1, self.m52);
        let v0 = _mm512_madd52lo_epu64(a0, a2, self.s0);
        let v1 = _mm512_madd52lo_epu64(_mm512_madd52hi_epu64(a1, a2, self.s0), a2, self.s1);
        let vf = _mm512_fmadd_pd(_mm512_cvtepu64_pd(v1), self.two52, _mm512_cvtepu64_pd(v0));
        let q = _mm512_cvt_roundpd_epu64::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(_mm512_mul_pd(vf, self.inv));
        let t0 = _mm512_madd52lo_epu64(z, q, self.r0);
        let t1 = _mm512_madd52hi_epu64(_mm512_madd52lo_epu64(z, q, self.r1), q, self.r0);
        let e0 = _mm512_sub_epi64(v0, t0);
        let e1 = _mm512_sub_epi64(v1, t1);
        let qa = _mm512_madd52lo_epu64(q, a2, self.rho);
        let qb = _mm512_madd52hi_epu64(z, a2, self.rho);
        [
            _mm512_add_epi64(_mm512_srai_epi64::<32>(e0), _mm512_slli_epi64::<20>(e1)),
            _mm512_and_si512(e0, m32),
            _mm512_add_epi64(_mm512_srli_epi64::<32>(qa), _mm512_slli_epi64::<20>(qb)),
            _mm512_and_si512(qa, m32),
        ]
    }
}

/// The lazy pairs (h, l) (|h| < 2^44, 0 ≤ l < 2^32) of x·y for digit-major x, y (digits ≤ r,
/// r ≥ 2^60): the negacyclic sums u_j = P_j − N_j, P_j = Σ_{i≤j} x_i y_{j−i},
/// N_j = Σ_{i>j} x_i y_{k+j−i}. The digits split as x = a·2^52 + b (a < 2^12) and
/// y = c·2^40 + d (c < 2^24, d < 2^40), so that a·d < 2^52 and a·c < 2^36 need only the low
/// IFMA half: six 52 × 52-bit products per pair (lo(bd) at weight 2^0, lo(bc) at 2^40, hi(bd) and
/// lo(ad) at 2^52, hi(bc) and lo(ac) at 2^92), accumulated per sign ([`add_coeff`] takes the
/// signed weight sums from there).
///
/// With [`MulC`]`::kara`, one Karatsuba level ([`kara_mul`]) where 2r < 2^64 (P4, k = 16 and
/// k = 32) or k = 8 (P3, whose digit sums need 65 bits: y splits at 39 bits there).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512ifma")]
#[inline]
fn lazy_mul<const K: usize>(mc: MulC, x: &[__m512i], y: &[__m512i], h: &mut [__m512i], l: &mut [__m512i]) {
    let z = _mm512_setzero_si512();
    h[..K].fill(z);
    l[..K].fill(z);
    if mc.kara && !mc.wide {
        kara_mul::<K, 40, 12>(mc, x, y, h, l);
    } else if mc.kara && K == 8 {
        kara_mul::<K, 39, 13>(mc, x, y, h, l);
    } else {
        let m40 = _mm512_set1_epi64((1 << 40) - 1);
        let (mut xa, mut xb, mut yc, mut yd) = ([z; K], [z; K], [z; K], [z; K]);
        for d in 0..K {
            xa[d] = _mm512_srli_epi64::<52>(x[d]);
            xb[d] = _mm512_and_si512(x[d], mc.m52);
            yc[d] = _mm512_srli_epi64::<40>(y[d]);
            yd[d] = _mm512_and_si512(y[d], m40);
        }
        for j in 0..K {
            // Six independent accumulator chains per sign (the IFMA latency is hidden), summed
            // into the four weights afterwards.
            let (mut p, mut n) = ([z; 6], [z; 6]);
            // The two signs in separate loops, so that the accumulators stay in registers.
            macro_rules! pair {
                ($acc:ident, $i:expr, $t:expr) => {
                    let (i, t) = ($i, $t);
                    $acc[0] = _mm512_madd52lo_epu64($acc[0], xb[i], yd[t]);
                    $acc[1] = _mm512_madd52lo_epu64($acc[1], xb[i], yc[t]);
                    $acc[2] = _mm512_madd52hi_epu64($acc[2], xb[i], yd[t]);
                    $acc[3] = _mm512_madd52lo_epu64($acc[3], xa[i], yd[t]);
                    $acc[4] = _mm512_madd52hi_epu64($acc[4], xb[i], yc[t]);
                    $acc[5] = _mm512_madd52lo_epu64($acc[5], xa[i], yc[t]);
                };
            }
            for i in 0..=j {
                pair!(p, i, j - i);
            }
            for i in j + 1..K {
                pair!(n, i, K + j - i);
            }
            let w = [
                _mm512_sub_epi64(p[0], n[0]),
                _mm512_sub_epi64(p[1], n[1]),
                _mm512_sub_epi64(_mm512_add_epi64(p[2], p[3]), _mm512_add_epi64(n[2], n[3])),
                _mm512_sub_epi64(_mm512_add_epi64(p[4], p[5]), _mm512_add_epi64(n[4], n[5])),
            ];
            add_coeff::<K, 40, 12>(mc, j, w, h, l);
        }
    }
    // l may be negative now; move it into [0, 2^32) (the normaliser's split does the same).
    let m32 = _mm512_set1_epi64(0xFFFF_FFFF);
    for d in 0..K {
        h[d] = _mm512_add_epi64(h[d], _mm512_srai_epi64::<32>(l[d]));
        l[d] = _mm512_and_si512(l[d], m32);
    }
}

/// [`lazy_mul`]'s Karatsuba level, y split at YS = 52 − CUT bits: with x = X0 + T^h·X1,
/// y = Y0 + T^h·Y1 (h = k/2) and A = X0·Y0, B = X1·Y1, C = (X0 + X1)(Y0 + Y1) (polynomials of
/// degree ≤ 2h − 2), xy ≡ A − B + T^h·(C − A − B) mod T^k + 1, so for j < h
/// u_j = (A_j + A_(j+h) + B_(j+h)) − (B_j + C_(j+h)) and
/// u_(j+h) = (A_(j+h) + C_j) − (A_j + B_(j+h) + B_j):
/// 3h² digit pairs instead of k², each term of A and B computed once for both coefficients
/// (five accumulator sets of four weights, in registers). Every sign sum has ≤ k pairs.
///
/// The digits and the digit sums (< 2r ≤ 2^65, formed from the pieces, never as one word) split
/// as a·2^52 + b and c·2^YS + d (b < 2^52, d < 2^YS): YS = 40, CUT = 12 needs 2r < 2^64
/// (a < 2^12, c < 2^24); YS = 39, CUT = 13 takes sums < 2^65 (a < 2^13, c < 2^26); so a·d < 2^52 and a·c < 2^52 need only the low IFMA half; the
/// weights are 2^0 (lo bd), 2^YS (lo bc), 2^52 (hi bd, lo ad), 2^(52+YS) (hi bc, lo ac).
/// YS = 39 only for k = 8: per sign ≤ 8 pairs, |w0|, |w1| < 2^55, |w2| < 8(2^52 + 2^39) < 2^55.01,
/// |w3| < 8(2^26 + 2^39) < 2^42.01, within [`add_coeff`]'s bounds for CUT = 13.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512ifma")]
#[inline]
fn kara_mul<const K: usize, const YS: u32, const CUT: u32>(mc: MulC, x: &[__m512i], y: &[__m512i], h: &mut [__m512i], l: &mut [__m512i]) {
    let z = _mm512_setzero_si512();
    let mys = _mm512_set1_epi64((1 << YS) - 1);
    let (mut xa, mut xb, mut yc, mut yd) = ([z; K], [z; K], [z; K], [z; K]);
    for d in 0..K {
        xa[d] = _mm512_srli_epi64::<52>(x[d]);
        xb[d] = _mm512_and_si512(x[d], mc.m52);
        yc[d] = _mm512_srli_epi64::<YS>(y[d]);
        yd[d] = _mm512_and_si512(y[d], mys);
    }
    let hk = K / 2;
    // The sums X0 + X1 and Y0 + Y1: one word where 2r < 2^64 (YS = 40); else from the
    // pieces, low parts added, their carry moved up.
    let (mut sa, mut sb, mut tc, mut td) = ([z; K], [z; K], [z; K], [z; K]);
    for d in 0..hk {
        if YS == 40 {
            let (u, v) = (_mm512_add_epi64(x[d], x[d + hk]), _mm512_add_epi64(y[d], y[d + hk]));
            sa[d] = _mm512_srli_epi64::<52>(u);
            sb[d] = _mm512_and_si512(u, mc.m52);
            tc[d] = _mm512_srli_epi64::<YS>(v);
            td[d] = _mm512_and_si512(v, mys);
            continue;
        }
        let b = _mm512_add_epi64(xb[d], xb[d + hk]);
        sa[d] = _mm512_add_epi64(_mm512_add_epi64(xa[d], xa[d + hk]), _mm512_srli_epi64::<52>(b));
        sb[d] = _mm512_and_si512(b, mc.m52);
        let e = _mm512_add_epi64(yd[d], yd[d + hk]);
        tc[d] = _mm512_add_epi64(_mm512_add_epi64(yc[d], yc[d + hk]), _mm512_srli_epi64::<YS>(e));
        td[d] = _mm512_and_si512(e, mys);
    }
    // One digit pair into an accumulator set of the four weights.
    macro_rules! pair {
        ($acc:expr, $xa:ident, $xb:ident, $i:expr, $yc:ident, $yd:ident, $t:expr) => {
            let (i, t) = ($i, $t);
            $acc[0] = _mm512_madd52lo_epu64($acc[0], $xb[i], $yd[t]);
            $acc[1] = _mm512_madd52lo_epu64($acc[1], $xb[i], $yc[t]);
            $acc[2] = _mm512_madd52hi_epu64($acc[2], $xb[i], $yd[t]);
            $acc[3] = _mm512_madd52hi_epu64($acc[3], $xb[i], $yc[t]);
            $acc[2] = _mm512_madd52lo_epu64($acc[2], $xa[i], $yd[t]);
            $acc[3] = _mm512_madd52lo_epu64($acc[3], $xa[i], $yc[t]);
        };
    }
    for j in 0..hk {
        // Sets: A_j + B_(j+h), A_(j+h), B_j, C_j, C_(j+h).
        let mut s = [[z; 4]; 5];
        for i in 0..=j {
            pair!(s[0], xa, xb, i, yc, yd, j - i);
            pair!(s[2], xa, xb, hk + i, yc, yd, hk + j - i);
            pair!(s[3], sa, sb, i, tc, td, j - i);
        }
        for i in j + 1..hk {
            pair!(s[0], xa, xb, hk + i, yc, yd, K + j - i);
            pair!(s[1], xa, xb, i, yc, yd, hk + j - i);
            pair!(s[4], sa, sb, i, tc, td, hk + j - i);
        }
        let comb = |p: [usize; 2], n: [usize; 2]| {
            std::array::from_fn(|w| _mm512_sub_epi64(_mm512_add_epi64(s[p[0]][w], s[p[1]][w]), _mm512_add_epi64(s[n[0]][w], s[n[1]][w])))
        };
        add_coeff::<K, YS, CUT>(mc, j, comb([0, 1], [2, 4]), h, l);
        add_coeff::<K, YS, CUT>(mc, j + hk, comb([1, 3], [0, 2]), h, l);
    }
}

/// Adds u_j = w[0] + w[1]·2^YS + w[2]·2^52 + w[3]·2^(52+YS) (YS = 52 − CUT; a coefficient of
/// [`lazy_mul`]'s product: signed sums of ≤ k pairs per sign) to the lazy digits: cut into
/// 52-bit weights (w[1] and w[3] split at bit CUT), made non-negative by the bias B·r of [`MulC`]
/// (< 2^60, < 2^31), reduced once to ρ' + q·r ([`MulC::reduce`]): digit j gets ρ', digit
/// j + 1 gets q − B (digit k wraps to −digit 0). Bounds: YS = 40 (k ≤ 32): |w[0]|, |w[1]| <
/// 2^57, |w[2]| < 2^57.01, |w[3]| < 2^41, so |a0|, |a1| < 2^57.1, |a2| < 2^29.1; YS = 39 (k = 8,
/// [`kara_mul`]): |w[0]|, |w[1]| < 2^55, |w[2]| < 2^55.01, |w[3]| < 2^42.01, so |a0|, |a1| <
/// 2^55.3, |a2| < 2^29.01; in both the biased words lie in [0, 2^60) and [0, 2^31).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512ifma")]
#[inline]
fn add_coeff<const K: usize, const YS: u32, const CUT: u32>(mc: MulC, j: usize, w: [__m512i; 4], h: &mut [__m512i], l: &mut [__m512i]) {
    debug_assert!(YS + CUT == 52);
    let mcut = _mm512_set1_epi64((1 << CUT) - 1);
    let lo = |v: __m512i| _mm512_slli_epi64::<YS>(_mm512_and_si512(v, mcut));
    let u = [
        _mm512_add_epi64(_mm512_add_epi64(w[0], lo(w[1])), mc.b[0]),
        _mm512_add_epi64(_mm512_add_epi64(w[2], _mm512_srai_epi64::<CUT>(w[1])), _mm512_add_epi64(lo(w[3]), mc.b[1])),
        _mm512_add_epi64(_mm512_srai_epi64::<CUT>(w[3]), mc.b[2]),
    ];
    let [rh, rl, qh, ql] = mc.reduce(u);
    h[j] = _mm512_add_epi64(h[j], rh);
    l[j] = _mm512_add_epi64(l[j], rl);
    let (qh, ql) = (_mm512_sub_epi64(qh, mc.bh), _mm512_sub_epi64(ql, mc.bl));
    if j + 1 < K {
        h[j + 1] = _mm512_add_epi64(h[j + 1], qh);
        l[j + 1] = _mm512_add_epi64(l[j + 1], ql);
    } else {
        h[0] = _mm512_sub_epi64(h[0], qh);
        l[0] = _mm512_sub_epi64(l[0], ql);
    }
}

/// z_i ← z_i·y_i for eight consecutive elements z (8·k words) and one element per pointer y,
/// through [`lazy_mul`] and [`finish`]. Requires [`mul_available`]`(f)`.
///
/// # Safety
/// Each y[lane] holds k readable words.
pub(super) unsafe fn mul8(f: &Gfpf, z: &mut [u64], y: &[*const u64; 8]) {
    assert!(mul_available(f) && z.len() == 8 * f.k);
    #[cfg(target_arch = "x86_64")]
    // SAFETY: IFMA etc. detected (mul_available); the sizes (asserted, caller).
    unsafe {
        match f.k {
            8 => mul8_k::<8>(f, z, y),
            16 => mul8_k::<16>(f, z, y),
            _ => mul8_k::<32>(f, z, y),
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512ifma")]
unsafe fn mul8_k<const K: usize>(f: &Gfpf, z: &mut [u64], y: &[*const u64; 8]) {
    let zero = _mm512_setzero_si512();
    let (mut xd, mut yd, mut h, mut l) = ([zero; K], [zero; K], [zero; K], [zero; K]);
    let xp: [*const u64; 8] = std::array::from_fn(|i| z[i * K..].as_ptr());
    // SAFETY: sizes (caller).
    unsafe {
        load8::<K>(&xp, &mut xd);
        load8::<K>(y, &mut yd);
    }
    lazy_mul::<K>(MulC::new(f.r), &xd, &yd, &mut h, &mut l);
    let zp: [*mut u64; 8] = std::array::from_fn(|i| z[i * K..].as_mut_ptr());
    // SAFETY: eight disjoint runs of K words in z.
    unsafe { finish::<K>(f, Norm::new(f.r), &mut h, &mut l, &zp, 8) };
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
        // Radix-2 levels, lazily (see the module doc): the shift-only ones up to size mm.
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

#[cfg(test)]
mod tests {
    use super::super::Gfpf;
    use crate::testing::gfpf::elements;
    use crate::testing::Rng;

    /// X_i = Σ_j x_j r^(em·i·j) by shifts and additions (the definition, no butterflies).
    fn naive_shift_dft(f: &Gfpf, x: &[u64], m: usize, em: usize) -> Vec<u64> {
        let k = f.k();
        let mut out = vec![0u64; m * k];
        let mut t = vec![0u64; k];
        for i in 0..m {
            let z = &mut out[i * k..(i + 1) * k];
            for j in 0..m {
                f.mul_pow_r(&mut t, &x[j * k..(j + 1) * k], em * i * j % (2 * k));
                f.add_assign(z, &t);
            }
        }
        out
    }

    /// r = 2^64 − 207·2^32 (r^8 + 1 prime), k = 8: r mod 2^32 = 0 and r > 2^64 − 2^44, so
    /// [`super::finish`] checks the carries' range with the three comparisons.
    fn wide_field() -> Gfpf {
        let f = Gfpf::new(0xFFFF_FF31_0000_0000, 8).unwrap();
        assert!(f.radix() > u64::MAX - (1 << 44));
        f
    }

    /// mul_n (eight elements per IFMA batch, scalar tails) against GMP on every pair of edge
    /// elements (0, ±1, p − 2, r, r^(k−1), the special −1, all digits r − 1, halves of r − 1
    /// and 0, …) and random ones,
    /// for P3, P4, k = 32 (the AVX-512 path) and fields where only the scalar path runs; products
    /// landing on −1 and 0 (the sub_carry finish and the sign crossings) are among them.
    #[test]
    fn mul_n_matches_gmp() {
        use crate::testing::gfpf::{digits, fields, p_mpz, value};
        use crate::testing::Mpz;
        use gmp_mpfr_sys::gmp;
        let mut rng = Rng(0x1F3A);
        let mut fs = fields();
        fs.push(Gfpf::builtin(32).unwrap());
        fs.push(wide_field());
        for f in fs {
            let k = f.k();
            let mut els = elements(&f, &mut rng, 6);
            // Halves of digits r − 1 and 0: the Karatsuba digit sums and differences extreme.
            let (h, r) = (k / 2, f.radix());
            els.push((0..k).map(|i| if i < h { r - 1 } else { 0 }).collect());
            els.push((0..k).map(|i| if i < h { 0 } else { r - 1 }).collect());
            els.push((0..k).map(|i| if i % 4 < 2 { r - 1 } else { 0 }).collect());
            let mut m1 = vec![0u64; k];
            f.set_minus_one(&mut m1);
            let (mut x, mut y) = (vec![], vec![]);
            for a in &els {
                for b in &els {
                    x.extend_from_slice(a);
                    y.extend_from_slice(b);
                }
            }
            // −1 = (−1)·1, 1 = (−1)(−1), and a tail that is not a multiple of 8.
            for (a, b) in [(&m1, &f.from_u64(1)), (&m1, &m1), (&els[4], &els[4])] {
                x.extend_from_slice(a);
                y.extend_from_slice(b);
            }
            // The Karatsuba level (P3, P4, k = 32) and the schoolbook product.
            let mut z = vec![0u64; x.len()];
            super::set_karatsuba(false);
            f.mul_n(&mut z, &x, &y);
            let school = z.clone();
            super::set_karatsuba(true);
            f.mul_n(&mut z, &x, &y);
            assert_eq!(z, school, "k = {k}");
            let p = p_mpz(&f);
            for ((ze, xe), ye) in z.chunks(k).zip(x.chunks(k)).zip(y.chunks(k)) {
                let mut want = Mpz::new();
                // SAFETY: initialised.
                unsafe {
                    gmp::mpz_mul(&mut want.0, &value(&f, xe).0, &value(&f, ye).0);
                    gmp::mpz_mod(&mut want.0, &want.0, &p.0);
                }
                assert_eq!(ze, &digits(&f, &want)[..], "r = {} k = {k}: {xe:?} {ye:?}", f.radix());
            }
            if k == 8 || k == 16 {
                assert_eq!(super::mul_available(&f), super::available(&f));
            }
        }
    }

    /// The batched base DFTs against the definition for every size m ≤ 2k and several primitive
    /// roots r^em, on rows of edge elements (0, ±1, p − 2, r, r^(k−1), …), random elements, and the
    /// rows whose outputs are all −1 (the impulse −1: every lane goes through the scalar
    /// `sub_carry` finish) or all 0 and r − 1 digits.
    #[test]
    fn base8_matches_definition() {
        let mut rng = Rng(0x51D);
        let fs = [8, 16, 32].map(|k| Gfpf::builtin(k).unwrap());
        for f in fs.into_iter().chain([wide_field()]) {
            let k = f.k();
            if !super::available(&f) {
                eprintln!("no AVX-512F/DQ: base8 not tested for k = {k}");
                continue;
            }
            let els = elements(&f, &mut rng, 4);
            let mut m1 = vec![0u64; k];
            f.set_minus_one(&mut m1);
            let mut m = 2;
            while m <= 2 * k {
                for u in [1usize, 3, 2 * k / m - 1 + (2 * k / m) % 2] {
                    let em = (2 * k / m) * u % (2 * k);
                    for trial in 0..6 {
                        let mut x = vec![0u64; 8 * m * k];
                        for (l, row) in x.chunks_exact_mut(m * k).enumerate() {
                            for (j, e) in row.chunks_exact_mut(k).enumerate() {
                                let src = match (trial + l) % 6 {
                                    0 if j == 0 => &m1, // impulse −1
                                    0 => &els[0],       // zeros
                                    1 => &m1,           // all −1
                                    2 => &els[4],       // all digits r − 1
                                    _ => &els[(j * 7 + l * 3 + trial) % els.len()],
                                };
                                e.copy_from_slice(src);
                            }
                        }
                        let want: Vec<u64> = x.chunks_exact(m * k).flat_map(|row| naive_shift_dft(&f, row, m, em)).collect();
                        super::base8(&f, &mut x, m, em);
                        assert!(f.check_vec(&x, "x").is_ok(), "k = {k} m = {m} em = {em}");
                        assert_eq!(x, want, "k = {k} m = {m} em = {em} trial {trial}");
                    }
                }
                m *= 2;
            }
        }
    }
}
