//! Eight-lane modular arithmetic for the NTT kernels (`nmod::ntt`): AVX-512 IFMA (52-bit Shoup
//! products, p < 2^50), AVX-512F/DQ (64-bit Shoup products with the high word built from four
//! 32×32-bit products, p < 2^63) and a portable fallback, chosen once at run time by [`Arith::detect`].
//!
//! Shoup's product (Shoup 2007; Harvey 2014, "Faster arithmetic for number-theoretic transforms",
//! §2): for w < p, ws = ⌊w·2^s/p⌋ and y < 2^s, q = ⌊y·ws/2^s⌋ gives y·w − q·p ∈ [0, 2p), with
//! s = 52 for IFMA (the products are 52 × 52-bit) and s = 64 otherwise.
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// One cache line of eight residues, the unit the kernels load and store.
#[repr(C, align(64))]
#[derive(Clone, Copy, Default)]
pub struct Line(pub [u64; 8]);

/// The arithmetic of eight independent lanes modulo p (the constants live in the implementor).
pub trait Lanes: Copy {
    type V: Copy;
    /// Reads eight words from `src` (any alignment).
    ///
    /// # Safety
    /// `src` is valid for reading eight words.
    unsafe fn load(self, src: *const u64) -> Self::V;
    /// Writes eight words to `dst` (any alignment).
    ///
    /// # Safety
    /// `dst` is valid for writing eight words.
    unsafe fn store(self, dst: *mut u64, v: Self::V);
    fn splat(self, x: u64) -> Self::V;
    /// Hints that the line at `src` will be read soon (no effect where there is no such hint).
    #[inline(always)]
    fn prefetch(self, src: *const u64) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch hint never faults, whatever the address.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(src as *const i8)
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = src;
    }
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    /// a − b + k·p where `kp` = k·p (wrapping; the caller keeps the result ≥ 0).
    fn sub_plus(self, a: Self::V, b: Self::V, kp: Self::V) -> Self::V;
    /// min(x, x − m) lane-wise (unsigned, wrapping): x mod m for x < 2m.
    fn fold(self, x: Self::V, m: Self::V) -> Self::V;
    /// y·w − ⌊y·ws/2^s⌋·p ∈ [0, 2p) lane-wise, for y < 2^s, w < p, ws = ⌊w·2^s/p⌋.
    fn mul_shoup(self, y: Self::V, w: Self::V, ws: Self::V) -> Self::V;
    /// [`Lanes::mul_shoup`]'s result class, in [0, 2p), by the cheapest route for y < 4p < 2^64
    /// (the lazy butterflies' product).
    #[inline(always)]
    fn mul_shoup_lazy(self, y: Self::V, w: Self::V, ws: Self::V) -> Self::V {
        self.mul_shoup(y, w, ws)
    }
    /// [`Lanes::mul_shoup`] for a result used only as the y of another `mul_shoup`: the same
    /// value in the bits that product reads (IFMA: the low 52, so the mask is left out).
    #[inline(always)]
    fn mul_shoup_into(self, y: Self::V, w: Self::V, ws: Self::V) -> Self::V {
        self.mul_shoup(y, w, ws)
    }
    /// max(a, b) lane-wise (unsigned): the running maximum by which pass 1 checks its input.
    fn max(self, a: Self::V, b: Self::V) -> Self::V;
    /// Whether some lane of v is ≥ p.
    fn any_at_least_p(self, v: Self::V) -> bool;
    /// p, 2p as vectors.
    fn p(self) -> Self::V;
    fn p2(self) -> Self::V;
    /// Transposes the 8 × 8 matrix whose rows are r\[0\] .. r\[7\].
    fn transpose(self, r: &mut [Self::V; 8]);
    /// Runs f in a frame compiled with these lanes' instructions (`#[target_feature]`), so that the
    /// `#[inline(always)]` kernels inlined into f become those instructions.
    fn enter<R>(self, f: impl FnOnce() -> R) -> R;
}

/// Which lane arithmetic the CPU and p allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    /// AVX-512 IFMA, p < 2^50 (so residues < 4p fit the 52-bit multiplier).
    Ifma,
    /// AVX-512F + DQ, any p < 2^63.
    Avx512,
    /// Plain u64/u128 code.
    Portable,
}

impl Arith {
    /// The fastest arithmetic for p on this CPU.
    pub fn detect(p: u64) -> Arith {
        #[cfg(target_arch = "x86_64")]
        {
            let f = std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512dq");
            if f && p < 1 << 50 && std::arch::is_x86_feature_detected!("avx512ifma") {
                return Arith::Ifma;
            }
            if f {
                return Arith::Avx512;
            }
        }
        let _ = p;
        Arith::Portable
    }

    /// The Shoup shift s of this arithmetic.
    pub fn shift(self) -> u32 {
        if self == Arith::Ifma {
            52
        } else {
            64
        }
    }
}

/// Whether some x_i ≥ p (p < 2^63), branch-free so that it vectorises (AVX-512 where present):
/// x ≥ p exactly when bit 63 of ¬(x − p) ∨ x is set.
pub fn any_at_least(x: &[u64], p: u64) -> bool {
    #[inline(always)]
    fn scan(x: &[u64], p: u64) -> bool {
        x.iter().fold(0u64, |acc, &v| acc | !v.wrapping_sub(p) | v) >> 63 != 0
    }
    #[cfg(target_arch = "x86_64")]
    if Arith::detect(p) != Arith::Portable {
        // SAFETY: AVX-512F/DQ detected.
        return unsafe {
            in_avx512(
                #[inline(always)]
                || scan(x, p),
            )
        };
    }
    scan(x, p)
}

/// Shoup's constant ⌊w·2^s/p⌋ for w < p.
pub fn shoup_s(w: u64, p: u64, s: u32) -> u64 {
    (((w as u128) << s) / p as u128) as u64
}

/// Portable lanes: `[u64; 8]` with u128 products.
#[derive(Clone, Copy)]
pub struct Portable {
    p: u64,
}

impl Portable {
    pub fn new(p: u64) -> Self {
        Portable { p }
    }
}

impl Lanes for Portable {
    type V = [u64; 8];
    #[inline(always)]
    unsafe fn load(self, src: *const u64) -> Self::V {
        // SAFETY: the caller guarantees eight readable words.
        unsafe { (src as *const [u64; 8]).read_unaligned() }
    }
    #[inline(always)]
    unsafe fn store(self, dst: *mut u64, v: Self::V) {
        // SAFETY: the caller guarantees eight writable words.
        unsafe { (dst as *mut [u64; 8]).write_unaligned(v) }
    }
    #[inline(always)]
    fn splat(self, x: u64) -> Self::V {
        [x; 8]
    }
    #[inline(always)]
    fn add(self, a: Self::V, b: Self::V) -> Self::V {
        std::array::from_fn(|i| a[i].wrapping_add(b[i]))
    }
    #[inline(always)]
    fn sub_plus(self, a: Self::V, b: Self::V, kp: Self::V) -> Self::V {
        std::array::from_fn(|i| a[i].wrapping_sub(b[i]).wrapping_add(kp[i]))
    }
    #[inline(always)]
    fn fold(self, x: Self::V, m: Self::V) -> Self::V {
        std::array::from_fn(|i| x[i].min(x[i].wrapping_sub(m[i])))
    }
    #[inline(always)]
    fn mul_shoup(self, y: Self::V, w: Self::V, ws: Self::V) -> Self::V {
        std::array::from_fn(|i| {
            let q = ((y[i] as u128 * ws[i] as u128) >> 64) as u64;
            y[i].wrapping_mul(w[i]).wrapping_sub(q.wrapping_mul(self.p))
        })
    }
    #[inline(always)]
    fn max(self, a: Self::V, b: Self::V) -> Self::V {
        std::array::from_fn(|i| a[i].max(b[i]))
    }
    #[inline(always)]
    fn any_at_least_p(self, v: Self::V) -> bool {
        v.iter().any(|&x| x >= self.p)
    }
    #[inline(always)]
    fn p(self) -> Self::V {
        [self.p; 8]
    }
    #[inline(always)]
    fn p2(self) -> Self::V {
        [2 * self.p; 8]
    }
    #[inline(always)]
    fn enter<R>(self, f: impl FnOnce() -> R) -> R {
        f()
    }
    #[inline(always)]
    fn transpose(self, r: &mut [Self::V; 8]) {
        let s = *r;
        for (i, row) in r.iter_mut().enumerate() {
            for (j, v) in row.iter_mut().enumerate() {
                *v = s[j][i];
            }
        }
    }
}

/// AVX-512 lanes; `IFMA` selects the 52-bit products. Only built by [`Avx::new`] after the
/// features were detected, which is what makes the intrinsics sound to call.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub struct Avx<const IFMA: bool> {
    p: __m512i,
    p2: __m512i,
    /// IFMA: 2^52 − p; otherwise p again (for the low products).
    negp: __m512i,
    /// IFMA: 2^52 − 1; otherwise 2^32 − 1.
    mask: __m512i,
}

#[cfg(target_arch = "x86_64")]
impl<const IFMA: bool> Avx<IFMA> {
    /// The lanes for p, or `None` when the CPU lacks the features (or p ≥ 2^50 with IFMA).
    pub fn new(p: u64) -> Option<Self> {
        let want = if IFMA { Arith::Ifma } else { Arith::Avx512 };
        let ok = Arith::detect(p) == want || (!IFMA && Arith::detect(p) == Arith::Ifma);
        if !ok {
            return None;
        }
        // SAFETY: AVX-512F was detected.
        unsafe {
            Some(if IFMA {
                Avx {
                    p: _mm512_set1_epi64(p as i64),
                    p2: _mm512_set1_epi64(2 * p as i64),
                    negp: _mm512_set1_epi64(((1u64 << 52) - p) as i64),
                    mask: _mm512_set1_epi64(((1u64 << 52) - 1) as i64),
                }
            } else {
                Avx {
                    p: _mm512_set1_epi64(p as i64),
                    p2: _mm512_set1_epi64((2 * p) as i64),
                    negp: _mm512_set1_epi64(p as i64),
                    mask: _mm512_set1_epi64(0xffff_ffff),
                }
            })
        }
    }

    /// ⌊a·b/2^64⌋ lane-wise from four 32 × 32-bit products.
    #[inline(always)]
    fn mulhi64(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY (all intrinsics below): `Avx` exists only when AVX-512F/DQ(/IFMA) were detected.
        unsafe {
            let ah = _mm512_srli_epi64::<32>(a);
            let bh = _mm512_srli_epi64::<32>(b);
            let ll = _mm512_mul_epu32(a, b);
            let lh = _mm512_mul_epu32(a, bh);
            let hl = _mm512_mul_epu32(ah, b);
            let hh = _mm512_mul_epu32(ah, bh);
            // lh + ⌊ll/2^32⌋ < 2^64; its low half joins hl, its high half and the carry join hh.
            let s = _mm512_add_epi64(lh, _mm512_srli_epi64::<32>(ll));
            let m = _mm512_add_epi64(hl, _mm512_and_si512(s, self.mask));
            _mm512_add_epi64(_mm512_add_epi64(hh, _mm512_srli_epi64::<32>(s)), _mm512_srli_epi64::<32>(m))
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl<const IFMA: bool> Lanes for Avx<IFMA> {
    type V = __m512i;
    #[inline(always)]
    unsafe fn load(self, src: *const u64) -> Self::V {
        // SAFETY: eight readable words (caller); AVX-512F present (constructor).
        unsafe { _mm512_loadu_si512(src as *const _) }
    }
    #[inline(always)]
    unsafe fn store(self, dst: *mut u64, v: Self::V) {
        // SAFETY: eight writable words (caller); AVX-512F present (constructor).
        unsafe { _mm512_storeu_si512(dst as *mut _, v) }
    }
    #[inline(always)]
    fn splat(self, x: u64) -> Self::V {
        // SAFETY: AVX-512F present (constructor).
        unsafe { _mm512_set1_epi64(x as i64) }
    }
    #[inline(always)]
    fn add(self, a: Self::V, b: Self::V) -> Self::V {
        // SAFETY: AVX-512F present (constructor).
        unsafe { _mm512_add_epi64(a, b) }
    }
    #[inline(always)]
    fn sub_plus(self, a: Self::V, b: Self::V, kp: Self::V) -> Self::V {
        // SAFETY: AVX-512F present (constructor).
        unsafe { _mm512_add_epi64(_mm512_sub_epi64(a, b), kp) }
    }
    #[inline(always)]
    fn fold(self, x: Self::V, m: Self::V) -> Self::V {
        // SAFETY: AVX-512F present (constructor).
        unsafe { _mm512_min_epu64(x, _mm512_sub_epi64(x, m)) }
    }
    #[inline(always)]
    fn mul_shoup(self, y: Self::V, w: Self::V, ws: Self::V) -> Self::V {
        // SAFETY: AVX-512F/DQ, and IFMA when IFMA, present (constructor).
        unsafe {
            if IFMA {
                let z = _mm512_setzero_si512();
                let q = _mm512_madd52hi_epu64(z, y, ws);
                // lo52(y·w) + lo52(q·(2^52 − p)) ≡ y·w − q·p (mod 2^52), and y·w − q·p < 2p < 2^52.
                let t = _mm512_madd52lo_epu64(_mm512_madd52lo_epu64(z, y, w), q, self.negp);
                _mm512_and_si512(t, self.mask)
            } else {
                let q = self.mulhi64(y, ws);
                _mm512_sub_epi64(_mm512_mullo_epi64(y, w), _mm512_mullo_epi64(q, self.negp))
            }
        }
    }
    #[inline(always)]
    fn mul_shoup_into(self, y: Self::V, w: Self::V, ws: Self::V) -> Self::V {
        if !IFMA {
            return self.mul_shoup(y, w, ws);
        }
        // SAFETY: AVX-512F/IFMA present (constructor).
        unsafe {
            // lo52(y·w) + lo52(q·(2^52 − p)) < 2^53: its low 52 bits are mul_shoup's result.
            let z = _mm512_setzero_si512();
            let q = _mm512_madd52hi_epu64(z, y, ws);
            _mm512_madd52lo_epu64(_mm512_madd52lo_epu64(z, y, w), q, self.negp)
        }
    }
    #[inline(always)]
    fn mul_shoup_lazy(self, y: Self::V, w: Self::V, ws: Self::V) -> Self::V {
        if IFMA {
            return self.mul_shoup(y, w, ws);
        }
        // SAFETY: AVX-512F/DQ present (constructor).
        unsafe {
            // q' = yh·wh + ⌊yh·wl/2^32⌋ + ⌊yl·wh/2^32⌋ drops yl·wl and two carries, so
            // q − 2 ≤ q' ≤ q for the Shoup quotient q = ⌊y·ws/2^64⌋: y·w − q'·p ∈ [0, 4p) (4p < 2^64
            // for p < 2^62), folded once by 2p. Three 32 × 32-bit products instead of four.
            let (yh, wh) = (_mm512_srli_epi64::<32>(y), _mm512_srli_epi64::<32>(ws));
            let a = _mm512_srli_epi64::<32>(_mm512_mul_epu32(yh, ws));
            let b = _mm512_srli_epi64::<32>(_mm512_mul_epu32(y, wh));
            let q = _mm512_add_epi64(_mm512_mul_epu32(yh, wh), _mm512_add_epi64(a, b));
            let r = _mm512_sub_epi64(_mm512_mullo_epi64(y, w), _mm512_mullo_epi64(q, self.negp));
            self.fold(r, self.p2)
        }
    }
    #[inline(always)]
    fn max(self, a: Self::V, b: Self::V) -> Self::V {
        // SAFETY: AVX-512F present (constructor).
        unsafe { _mm512_max_epu64(a, b) }
    }
    #[inline(always)]
    fn any_at_least_p(self, v: Self::V) -> bool {
        // SAFETY: AVX-512F present (constructor).
        unsafe { _mm512_cmpge_epu64_mask(v, self.p) != 0 }
    }
    #[inline(always)]
    fn p(self) -> Self::V {
        self.p
    }
    #[inline(always)]
    fn p2(self) -> Self::V {
        self.p2
    }
    #[inline(always)]
    fn enter<R>(self, f: impl FnOnce() -> R) -> R {
        // SAFETY: `Avx` exists only when these features were detected.
        unsafe {
            if IFMA {
                in_ifma(f)
            } else {
                in_avx512(f)
            }
        }
    }
    #[inline(always)]
    fn transpose(self, r: &mut [Self::V; 8]) {
        // Three rounds of 2 × 2 block swaps (blocks of 4, 2, 1 words): rows (i, i + b) exchange
        // their off-diagonal b-blocks (vpermt2q for b = 4, 2; unpack for b = 1).
        // SAFETY: AVX-512F present (constructor).
        unsafe {
            let swap = |r: &mut [__m512i; 8], i: usize, b: usize, lo: __m512i, hi: __m512i| {
                let (a, c) = (r[i], r[i + b]);
                r[i] = _mm512_permutex2var_epi64(a, lo, c);
                r[i + b] = _mm512_permutex2var_epi64(a, hi, c);
            };
            let (lo4, hi4) = (_mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0), _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4));
            swap(r, 0, 4, lo4, hi4);
            swap(r, 1, 4, lo4, hi4);
            swap(r, 2, 4, lo4, hi4);
            swap(r, 3, 4, lo4, hi4);
            let (lo2, hi2) = (_mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2));
            swap(r, 0, 2, lo2, hi2);
            swap(r, 1, 2, lo2, hi2);
            swap(r, 4, 2, lo2, hi2);
            swap(r, 5, 2, lo2, hi2);
            for i in [0, 2, 4, 6] {
                let (a, c) = (r[i], r[i + 1]);
                r[i] = _mm512_unpacklo_epi64(a, c);
                r[i + 1] = _mm512_unpackhi_epi64(a, c);
            }
        }
    }
}

/// f() in an AVX-512F/DQ/IFMA frame.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512ifma")]
unsafe fn in_ifma<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// f() in an AVX-512F/DQ frame.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn in_avx512<R>(f: impl FnOnce() -> R) -> R {
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<L: Lanes<V = V>, V: Copy>(l: L, p: u64, s: u32, to: impl Fn(V) -> [u64; 8], from: impl Fn([u64; 8]) -> V) {
        let mut seed = 0x1234_5678_9abc_def1u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for t in 0..200 {
            // y < 4p (the lazy range) with the extremes in the first rounds: the top of the range,
            // then w at its top, then the fold's boundaries (0, p − 1, p, 2p − 1, 2p, 4p − 1) with
            // the twiddles 0, 1, p − 1.
            let edge = [0, 1, p - 1, p, 2 * p - 1, 2 * p, 4 * p - 2, 4 * p - 1];
            let y: [u64; 8] = std::array::from_fn(|i| match t {
                0 => 4 * p - 1 - i as u64,
                2 => edge[i],
                _ => next() % (4 * p).min(u64::MAX / 2),
            });
            let w: [u64; 8] = std::array::from_fn(|i| match t {
                1 => p - 1 - i as u64,
                2 => [0, 1, p - 1][i % 3],
                _ => next() % p,
            });
            let ws = w.map(|v| shoup_s(v, p, s));
            let got = to(l.mul_shoup(from(y), from(w), from(ws)));
            // The lazy product only for p < 2^62 (y < 4p < 2^64).
            let lazy = (p < 1 << 62).then(|| to(l.mul_shoup_lazy(from(y), from(w), from(ws))));
            for i in 0..8 {
                let want = (y[i] as u128 * w[i] as u128 % p as u128) as u64;
                assert!(got[i] < 2 * p && got[i] % p == want, "p = {p}, y = {}, w = {}", y[i], w[i]);
                assert!(lazy.is_none_or(|z| z[i] < 2 * p && z[i] % p == want), "lazy: p = {p}, y = {}, w = {}", y[i], w[i]);
            }
            // The chained product (its result only feeds another product's y).
            let chained = to(l.mul_shoup(l.mul_shoup_into(from(y), from(w), from(ws)), from(w), from(ws)));
            for i in 0..8 {
                let want = (y[i] as u128 * w[i] as u128 % p as u128 * w[i] as u128 % p as u128) as u64;
                assert!(chained[i] < 2 * p && chained[i] % p == want, "chained: p = {p}, y = {}, w = {}", y[i], w[i]);
            }
            let f = to(l.fold(from(y), l.p2()));
            assert!(f.iter().zip(&y).all(|(&a, &b)| a == if b >= 2 * p { b - 2 * p } else { b }));
        }
        let m: [V; 8] = std::array::from_fn(|i| from(std::array::from_fn(|j| (8 * i + j) as u64)));
        let mut mt = m;
        l.transpose(&mut mt);
        for (i, &row) in mt.iter().enumerate() {
            assert_eq!(to(row), std::array::from_fn(|j| (8 * j + i) as u64));
        }
    }

    /// The input check of pass 1 (a running [`Lanes::max`], then [`Lanes::any_at_least_p`]) at
    /// the edges: p − 1 and below pass, p, p + 1, 2p, 2^63 and u64::MAX fail, in every lane.
    fn check_input<L: Lanes<V = V>, V: Copy>(l: L, p: u64, to: impl Fn(V) -> [u64; 8], from: impl Fn([u64; 8]) -> V) {
        let ok = [0, 1, p / 2, p - 1, p - 2, 0, p - 1, 1];
        assert!(!l.any_at_least_p(from(ok)) && !l.any_at_least_p(from([p - 1; 8])), "p = {p}");
        assert!(!l.any_at_least_p(l.max(from(ok), from([p - 1; 8]))), "p = {p}");
        for bad in [p, p + 1, 2 * p, 1 << 63, u64::MAX - 1, u64::MAX] {
            for i in 0..8 {
                let mut v = ok;
                v[i] = bad;
                assert!(l.any_at_least_p(from(v)), "p = {p}, lane {i} = {bad}");
                assert_eq!(to(l.max(from(ok), from(v))), std::array::from_fn(|j| ok[j].max(v[j])), "p = {p}");
                assert!(l.any_at_least_p(l.max(from(v), from(ok))) && l.any_at_least_p(l.max(from(ok), from(v))), "p = {p}");
            }
        }
    }

    #[test]
    fn input_check_edges() {
        let big = crate::nmod::prime::fourier_primes(63, 20, 1)[0];
        assert!(big >= 1 << 62);
        for p in [7681u64, (1 << 50) - 27, 1_108_307_720_798_209, (1 << 62) - 57, big] {
            check_input(Portable::new(p), p, |v| v, |v| v);
            #[cfg(target_arch = "x86_64")]
            {
                let to = |v: __m512i| unsafe { std::mem::transmute::<__m512i, [u64; 8]>(v) };
                let from = |v: [u64; 8]| unsafe { std::mem::transmute::<[u64; 8], __m512i>(v) };
                if let Some(l) = Avx::<true>::new(p) {
                    check_input(l, p, to, from);
                }
                if let Some(l) = Avx::<false>::new(p) {
                    check_input(l, p, to, from);
                }
            }
        }
    }

    #[test]
    fn lanes_match_u128() {
        for p in [7681u64, (1 << 50) - 27, 1_108_307_720_798_209, 4_179_340_454_199_820_289, (1 << 62) - 57] {
            check(Portable::new(p), p, 64, |v| v, |v| v);
            #[cfg(target_arch = "x86_64")]
            {
                let to = |v: __m512i| unsafe { std::mem::transmute::<__m512i, [u64; 8]>(v) };
                let from = |v: [u64; 8]| unsafe { std::mem::transmute::<[u64; 8], __m512i>(v) };
                if let Some(l) = Avx::<true>::new(p) {
                    check(l, p, 52, to, from);
                }
                if let Some(l) = Avx::<false>::new(p) {
                    check(l, p, 64, to, from);
                }
            }
        }
    }
}
