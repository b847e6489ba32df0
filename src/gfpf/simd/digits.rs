//! Lazy digits and their normalisation.
//!
//! A digit x_d < 2^64 is held as the pair (H, L) = (⌊x_d/2^32⌋, x_d mod 2^32) of signed 64-bit
//! lanes, value H·2^32 + L. A butterfly (a, b) ← (a + b·r^s, a − b·r^s) is exact in
//! Z[T]/(T^k + 1) at T = r: b·r^s rotates the digits by s mod k and negates the wrapped ones (all
//! of them when s ≥ k), so a level is 4k lane additions/subtractions and no carry; after
//! log2 m ≤ log2 2k ≤ 6 levels |H|, |L| < 2^38 (|H| < 2^50 when the inputs are lazy products,
//! |H| < 2^44; a 4k-point base, k ≤ 16, has log2 4k ≤ 6 levels too). Special inputs need no care
//! (−1 is the digit r at the top).
//!
//! Each output is normalised once ([`finish`]): every digit t = H·2^32 + L splits on its own as
//! q·r + s, the quotient estimated in f64 from H (2^32/r < 2^−8 for r ≥ 2^40, so off by at most
//! one: one correction each way), q moves one digit up (the top one to digit 0, negated:
//! r^k ≡ −1); only where that leaves a digit outside [0, r) (rare) does a serial carry pass run,
//! and a lane whose value then still carries out (it crossed 0 or r^k, e.g. the result −1, the
//! special form) is finished by the scalar [`Gfpf::sub_carry`].
use super::Gfpf;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Transposes the 8 × 8 matrix of words whose rows are v[0..8] (three rounds of 2 × 2 block swaps:
/// blocks of 4 and 2 words with vpermt2q, single words with unpack).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn transpose8(v: &mut [__m512i; 8]) {
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
pub(super) struct Norm {
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
pub(super) unsafe fn load8<const K: usize>(p: &[*const u64; 8], v: &mut [__m512i]) {
    for blk in (0..K).step_by(8) {
        // SAFETY: K readable words at each p[l] (caller).
        let mut t: [__m512i; 8] = std::array::from_fn(|l| unsafe { _mm512_loadu_si512(p[l].add(blk).cast()) });
        transpose8(&mut t);
        v[blk..blk + 8].copy_from_slice(&t);
    }
}

/// The lazy (H, L) pair of digits x (see the module documentation).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn split_digits<const K: usize>(x: &[__m512i], h: &mut [__m512i], l: &mut [__m512i]) {
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
pub(super) unsafe fn finish<const K: usize>(f: &Gfpf, nm: Norm, hs: &mut [__m512i], ls: &mut [__m512i], p: &[*mut u64; 8], lanes: usize) {
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
    pub(super) fn new(r: u64) -> Self {
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
