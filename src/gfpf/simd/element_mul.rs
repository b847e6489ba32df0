//! The element product x·y mod p in AVX-512 IFMA, eight elements at once ([`lazy_mul`], lazy
//! digits out), and [`Gfpf::mul_n`]'s batches of eight ([`mul8`]). Requires r ≥ 2^60
//! ([`super::mul_available`]).
#[cfg(target_arch = "x86_64")]
use super::digits::{finish, load8, Norm};
use super::{mul_available, Gfpf};
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;
#[cfg(target_arch = "x86_64")]
use std::sync::atomic::Ordering;

/// Constants of [`lazy_mul`]: 52-bit pieces of r = r1·2^52 + r0 and of σ = 2^104 mod r
/// (σ1·2^52 + σ0), ρ = ⌊2^104/r⌋ < 2^44, 1/r, 2^52, the bias B·r = b0 + b1·2^52 + b2·2^104
/// (b0, b1 ∈ [2^59, 2^59 + 2^52), b2 = 2^30) with B < 2^75 as the lazy pair (bh, bl), and whether
/// the Karatsuba level of [`lazy_mul`] applies.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(super) struct MulC {
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
    /// [`lazy_mul`]'s Karatsuba level may run ([`super::set_karatsuba`]).
    kara: bool,
    /// 2r ≥ 2^64 (P3): the digit sums of the Karatsuba level need 65 bits.
    wide: bool,
}

#[cfg(target_arch = "x86_64")]
impl MulC {
    #[target_feature(enable = "avx512f")]
    pub(super) fn new(r: u64) -> Self {
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
            kara: super::KARATSUBA.load(Ordering::Relaxed),
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
pub(super) fn lazy_mul<const K: usize>(mc: MulC, x: &[__m512i], y: &[__m512i], h: &mut [__m512i], l: &mut [__m512i]) {
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
pub(in crate::gfpf) unsafe fn mul8(f: &Gfpf, z: &mut [u64], y: &[*const u64; 8]) {
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
