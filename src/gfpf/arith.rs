//! Arithmetic on canonical digit vectors (k words each; see the module doc of [`super`]).
//!
//! - add/sub: Algorithm 2 with u64 carry-out handling (x_i + y_i can exceed 2^64 when r > 2^63)
//!   and the erratum fixed: a carry out of the top digit is worth r^k ≡ −1, so it is subtracted
//!   (both operands p − 1 give −2 = r^k − 1, all digits r − 1);
//! - mul_pow_r: x·r^s for 0 ≤ s < 2k is a shift by s mod k with the top digits wrapped to the
//!   bottom negated (one subtraction), negated once more when s ≥ k (r^k ≡ −1);
//! - mul_plain (what `mul` runs below k = [`GFPF_MUL_CRT_MIN_K`]; the FFT-based product is in
//!   [`super::crt_mul`]): the negacyclic product u_j = Σ_{i≤j} x_i y_{j−i} − Σ_{i>j} x_i y_{k+j−i}
//!   in 192-bit accumulators (|u_j| < k r², signed: erratum to Alg. 3), then a signed carry
//!   propagation in radix r by floor division; the final carry c is worth c·r^k ≡ −c.
use super::Gfpf;
use crate::tuning::GFPF_MUL_CRT_MIN_K;

/// Division by r with a precomputed reciprocal: Möller–Granlund 2-by-1 division by the normalized
/// d = r·2^sh with v = ⌊(2^128 − 1)/d⌋ − 2^64.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RDiv {
    r: u64,
    sh: u32,
    d: u64,
    v: u64,
}

impl RDiv {
    pub(crate) fn new(r: u64) -> Self {
        let sh = r.leading_zeros();
        let d = r << sh;
        let v = (u128::MAX / d as u128 - (1u128 << 64)) as u64;
        RDiv { r, sh, d, v }
    }

    /// (⌊(u1·2^64 + u0)/d⌋, remainder) for u1 < d.
    #[inline(always)]
    fn div_2by1(&self, u1: u64, u0: u64) -> (u64, u64) {
        let q = ((self.v as u128) * (u1 as u128)).wrapping_add(((u1 as u128) << 64) | u0 as u128);
        let mut q1 = ((q >> 64) as u64).wrapping_add(1);
        let mut rem = u0.wrapping_sub(q1.wrapping_mul(self.d));
        let mask = ((rem > q as u64) as u64).wrapping_neg(); // branch-free: taken half the time
        q1 = q1.wrapping_add(mask);
        rem = rem.wrapping_add(mask & self.d);
        if rem >= self.d {
            q1 += 1;
            rem -= self.d;
        }
        (q1, rem)
    }

    /// (⌊t/r⌋, t mod r) for 0 ≤ t < 2^192 with a quotient below 2^128.
    #[inline(always)]
    fn divmod3(&self, t: [u64; 3]) -> (u128, u64) {
        let sh = self.sh;
        let (n3, n2, n1, n0) = if sh == 0 {
            (0, t[2], t[1], t[0])
        } else {
            (t[2] >> (64 - sh), (t[2] << sh) | (t[1] >> (64 - sh)), (t[1] << sh) | (t[0] >> (64 - sh)), t[0] << sh)
        };
        // n3 < 2^sh ≤ d, so the top quotient word is 0 and the remainder starts at n3.
        let rem = if n3 == 0 && n2 < self.d {
            n2
        } else {
            let (q2, rem) = self.div_2by1(n3, n2);
            debug_assert_eq!(q2, 0, "quotient beyond 128 bits");
            rem
        };
        let (q1, rem) = self.div_2by1(rem, n1);
        let (q0, rem) = self.div_2by1(rem, n0);
        (((q1 as u128) << 64) | q0 as u128, rem >> sh)
    }

    /// (⌊t/r⌋, t mod r) for a signed 192-bit two's complement t with |t| < r·2^74, branch-free
    /// (the signs of the negacyclic sums are unpredictable): divide t + r·2^74 ∈ [0, r·2^75)
    /// and subtract 2^74 from the quotient.
    #[inline(always)]
    fn floor_divmod(&self, t: [u64; 3]) -> (i128, u64) {
        let (o1, o2) = (self.r << 10, self.r >> 54); // r·2^74 = (o2, o1, 0)
        let (t1, c) = t[1].overflowing_add(o1);
        let t2 = t[2].wrapping_add(o2).wrapping_add(c as u64);
        let (q, s) = self.divmod3([t[0], t1, t2]);
        (q as i128 - (1i128 << 74), s)
    }
}

/// z += w at the low digits (w.len() ≤ z.len(), all digits < r); returns the carry out of the top.
#[inline]
fn add_short(z: &mut [u64], w: &[u64], r: u64) -> bool {
    let mut c = false;
    for (i, zi) in z.iter_mut().enumerate() {
        let wi = match w.get(i) {
            Some(&d) => d,
            None if !c => return false,
            None => 0,
        };
        // The true sum is < 2r, so one subtraction of r suffices (wrapping when it passed 2^64).
        let (s, o1) = zi.overflowing_add(wi);
        let (s, o2) = s.overflowing_add(c as u64);
        c = o1 || o2 || s >= r;
        *zi = if c { s.wrapping_sub(r) } else { s };
    }
    c
}

/// z −= w at the low digits (w.len() ≤ z.len(), all digits < r); returns the borrow out of the top.
#[inline]
fn sub_short(z: &mut [u64], w: &[u64], r: u64) -> bool {
    let mut b = false;
    for (i, zi) in z.iter_mut().enumerate() {
        let wi = match w.get(i) {
            Some(&d) => d,
            None if !b => return false,
            None => 0,
        };
        let (s, o1) = zi.overflowing_sub(wi);
        let (s, o2) = s.overflowing_sub(b as u64);
        b = o1 || o2;
        *zi = if b { s.wrapping_add(r) } else { s };
    }
    b
}

impl Gfpf {
    /// z ← −1 (the special form x_{k−1} = r).
    #[inline]
    pub fn set_minus_one(&self, z: &mut [u64]) {
        z.fill(0);
        z[self.k - 1] = self.r;
    }

    /// z ← z + 1 for z canonical and not −1.
    #[inline]
    fn inc_plain(&self, z: &mut [u64]) {
        if add_short(z, &[1], self.r) {
            self.set_minus_one(z); // z was r^k − 1
        }
    }

    /// z ← z − 1 for z canonical and not −1.
    #[inline]
    fn dec_plain(&self, z: &mut [u64]) {
        if z.iter().all(|&d| d == 0) {
            self.set_minus_one(z);
        } else {
            sub_short(z, &[1], self.r);
        }
    }

    /// z ← z + w for z not −1 and w a short digit vector (digits < r, w.len() ≤ k).
    #[inline]
    fn add_plain(&self, z: &mut [u64], w: &[u64]) {
        // A carry out means z + w − r^k is held; the value is that − 1.
        if add_short(z, w, self.r) {
            self.dec_plain(z);
        }
    }

    /// z ← z − w for z not −1 and w a short digit vector (digits < r, w.len() ≤ k).
    #[inline]
    fn sub_plain(&self, z: &mut [u64], w: &[u64]) {
        // A borrow means z − w + r^k is held; the value wanted is z − w + p, that + 1.
        if sub_short(z, w, self.r) {
            self.inc_plain(z);
        }
    }

    /// z ← −z.
    #[inline]
    pub fn neg_assign(&self, z: &mut [u64]) {
        if self.is_minus_one(z) {
            z.fill(0);
            z[0] = 1;
        } else if z.iter().any(|&d| d != 0) {
            // p − z = (r^k − 1 − z) + 2, the first digit vector being the digit complement.
            for d in z.iter_mut() {
                *d = self.r - 1 - *d;
            }
            add_short(z, &[1], self.r);
            self.inc_plain(z);
        }
    }

    /// z ← z + y.
    #[inline]
    pub fn add_assign(&self, z: &mut [u64], y: &[u64]) {
        match (self.is_minus_one(z), self.is_minus_one(y)) {
            (false, false) => self.add_plain(z, y),
            (false, true) => self.dec_plain(z),
            (true, false) => {
                z.copy_from_slice(y);
                self.dec_plain(z);
            }
            (true, true) => z.fill(self.r - 1), // −2 = r^k − 1
        }
    }

    /// z ← z − y.
    #[inline]
    pub fn sub_assign(&self, z: &mut [u64], y: &[u64]) {
        match (self.is_minus_one(z), self.is_minus_one(y)) {
            (false, false) => self.sub_plain(z, y),
            (false, true) => self.inc_plain(z),
            (true, false) => {
                // −1 − y = r^k − y = (r^k − 1 − y) + 1; −1 − 0 stays −1.
                if y.iter().any(|&d| d != 0) {
                    for (d, &w) in z.iter_mut().zip(y) {
                        *d = self.r - 1 - w;
                    }
                    add_short(z, &[1], self.r);
                }
            }
            (true, true) => z.fill(0),
        }
    }

    /// z = x + y.
    pub fn add(&self, z: &mut [u64], x: &[u64], y: &[u64]) {
        z.copy_from_slice(x);
        self.add_assign(z, y);
    }

    /// z = x − y.
    pub fn sub(&self, z: &mut [u64], x: &[u64], y: &[u64]) {
        z.copy_from_slice(x);
        self.sub_assign(z, y);
    }

    /// z = −x.
    pub fn neg(&self, z: &mut [u64], x: &[u64]) {
        z.copy_from_slice(x);
        self.neg_assign(z);
    }

    /// z = x·r^s for 0 ≤ s < 2k (MulPowR): O(k), no multiplication.
    #[inline]
    pub fn mul_pow_r(&self, z: &mut [u64], x: &[u64], s: usize) {
        let (k, r) = (self.k, self.r);
        debug_assert!(s < 2 * k);
        if self.is_minus_one(x) {
            // −r^s: r^s = e_s for s < k, −e_{s−k} otherwise.
            z.fill(0);
            if s < k {
                z[s] = 1;
                self.neg_assign(z);
            } else {
                z[s - k] = 1;
            }
            return;
        }
        let (neg, s) = (s >= k, s % k);
        if s == 0 {
            z.copy_from_slice(x);
        } else {
            // z = A − B, A_j = x_{j−s} (j ≥ s), B_j = x_{k−s+j} (j < s), with borrow.
            let mut b = 0u64;
            for j in 0..s {
                let w = x[k - s + j] + b; // ≤ r
                (z[j], b) = if w == 0 { (0, 0) } else { (r - w, 1) };
            }
            for j in s..k {
                let w = x[j - s];
                (z[j], b) = if w >= b { (w - b, 0) } else { (r - 1, 1) };
            }
            if b != 0 {
                self.inc_plain(z);
            }
        }
        if neg {
            self.neg_assign(z);
        }
    }

    /// z = x·y: the plain negacyclic product below k = [`GFPF_MUL_CRT_MIN_K`], the FFT-based two/three-prime
    /// CRT product ([`Gfpf::mul_crt`]) from there on (the faster one at each k, measured).
    #[inline]
    pub fn mul(&self, z: &mut [u64], x: &[u64], y: &[u64]) {
        if self.k >= GFPF_MUL_CRT_MIN_K {
            self.mul_crt(z, x, y)
        } else {
            self.mul_plain(z, x, y)
        }
    }

    /// z_i = x_i·y_i for the n elements of x, y, z (n·k words each): eight elements per AVX-512
    /// IFMA batch where the CPU and field allow it ([`super::simd::mul8`]), [`Gfpf::mul`] for the
    /// others; parallel (rayon) over chunks.
    pub fn mul_n(&self, z: &mut [u64], x: &[u64], y: &[u64]) {
        use rayon::prelude::*;
        let k = self.k;
        assert!(x.len() == z.len() && y.len() == z.len() && z.len().is_multiple_of(k));
        let simd = super::simd::mul_available(self);
        z.par_chunks_mut(8 * k).zip(x.par_chunks(8 * k).zip(y.par_chunks(8 * k))).with_min_len(32).for_each(|(zc, (xc, yc))| {
            if simd && zc.len() == 8 * k {
                zc.copy_from_slice(xc);
                let w = std::array::from_fn(|l| yc[l * k..].as_ptr());
                // SAFETY: yc holds eight elements.
                unsafe { super::simd::mul8(self, zc, &w) };
            } else {
                for ((ze, xe), ye) in zc.chunks_exact_mut(k).zip(xc.chunks_exact(k)).zip(yc.chunks_exact(k)) {
                    self.mul(ze, xe, ye);
                }
            }
        });
    }

    /// z = x·y (plain negacyclic product, Θ(k²) word products; see the module doc).
    pub fn mul_plain(&self, z: &mut [u64], x: &[u64], y: &[u64]) {
        // Constant k for P3/P4-sized fields lets the compiler unroll the k² products.
        match self.k {
            8 => self.mul_k(z, x, y, 8),
            16 => self.mul_k(z, x, y, 16),
            k => self.mul_k(z, x, y, k),
        }
    }

    /// The negacyclic sum u_j as 192-bit two's complement (positive and negative parts summed
    /// separately, each < k·r² < 2^136).
    #[inline(always)]
    fn negacyclic_sum(x: &[u64], y: &[u64], j: usize) -> [u64; 3] {
        let (mut plo, mut phi) = (0u128, 0u64);
        for (&a, &b) in x[..=j].iter().zip(y[..=j].iter().rev()) {
            let (s, o) = plo.overflowing_add(a as u128 * b as u128);
            plo = s;
            phi += o as u64;
        }
        let (mut nlo, mut nhi) = (0u128, 0u64);
        for (&a, &b) in x[j + 1..].iter().zip(y[j + 1..].iter().rev()) {
            let (s, o) = nlo.overflowing_add(a as u128 * b as u128);
            nlo = s;
            nhi += o as u64;
        }
        let (lo, b) = plo.overflowing_sub(nlo);
        [lo as u64, (lo >> 64) as u64, phi.wrapping_sub(nhi).wrapping_sub(b as u64)]
    }

    #[inline(always)]
    fn mul_k(&self, z: &mut [u64], x: &[u64], y: &[u64], k: usize) {
        if self.is_minus_one(x) {
            self.neg(z, y);
            return;
        }
        if self.is_minus_one(y) {
            self.neg(z, x);
            return;
        }
        let (x, y) = (&x[..k], &y[..k]);
        self.carry_sums(&mut z[..k], |j| Self::negacyclic_sum(x, y, j));
    }

    /// z = Σ_j u_j r^j mod p, canonical, for the negacyclic sums u_j = `u(j)` (192-bit two's
    /// complement, |u_j| < k r²): the serial signed carry t_j = u_j + c_j,
    /// (c_{j+1}, z_j) = floor-divmod(t_j, r), where |t_j| < k r² + k r + 2 < r·2^74 as
    /// [`RDiv::floor_divmod`] requires (k ≤ 256, r < 2^64); the final carry c is worth −c.
    #[inline(always)]
    pub(super) fn carry_sums(&self, z: &mut [u64], mut u: impl FnMut(usize) -> [u64; 3]) {
        let mut carry: i128 = 0;
        for (j, zj) in z.iter_mut().enumerate() {
            // t = u_j + carry, 192-bit two's complement.
            let [l0, l1, hi] = u(j);
            let lo = (l1 as u128) << 64 | l0 as u128;
            let (lo, c) = lo.overflowing_add(carry as u128);
            let hi = hi.wrapping_add(c as u64).wrapping_add(if carry < 0 { u64::MAX } else { 0 });
            let (q, s) = self.div.floor_divmod([lo as u64, (lo >> 64) as u64, hi]);
            *zj = s;
            carry = q;
        }
        self.sub_carry(z, carry);
    }

    /// z ← z − c·(1 − … ) i.e. z + c·r^k ≡ z − c, for z with digits < r and a signed carry c.
    #[inline]
    pub(super) fn sub_carry(&self, z: &mut [u64], c: i128) {
        if c == 0 {
            return;
        }
        let (mut sub, mut m) = (c > 0, c.unsigned_abs());
        let r = self.r as u128;
        if m < r {
            if sub {
                self.sub_plain(z, &[m as u64]);
            } else {
                self.add_plain(z, &[m as u64]);
            }
            return;
        }
        if m < r * r {
            let (q, s) = self.div.divmod3([m as u64, (m >> 64) as u64, 0]);
            let w = [s, q as u64];
            if sub {
                self.sub_plain(z, &w);
            } else {
                self.add_plain(z, &w);
            }
            return;
        }
        // Tiny r: m = w + m'·r^k with w < r^k, and m'·r^k ≡ −m' flips the operation.
        let mut w = vec![0u64; self.k];
        while m != 0 {
            for d in w.iter_mut() {
                *d = (m % r) as u64;
                m /= r;
            }
            if sub {
                self.sub_assign(z, &w);
            } else {
                self.add_assign(z, &w);
            }
            sub = !sub;
        }
    }

    /// (a, b) ← (a + b·r^s, a − b·r^s), the shift-only butterfly; `t` is scratch of k words.
    ///
    /// b·r^s is the signed digit vector T_j = ±b_{(j−s) mod k} (minus for the wrapped digits, all
    /// negated when s ≥ k), so both outputs come from one pass of signed digit additions with
    /// carries in {−1, 0, 1}; a final carry c at r^k is worth −c.
    #[inline]
    pub fn butterfly(&self, a: &mut [u64], b: &mut [u64], s: usize, t: &mut [u64]) {
        match self.k {
            8 => self.butterfly_k(a, b, s, t, 8),
            16 => self.butterfly_k(a, b, s, t, 16),
            k => self.butterfly_k(a, b, s, t, k),
        }
    }

    #[inline(always)]
    fn butterfly_k(&self, a: &mut [u64], b: &mut [u64], s: usize, t: &mut [u64], k: usize) {
        let r = self.r;
        let (a, b, t) = (&mut a[..k], &mut b[..k], &mut t[..k]);
        if self.is_minus_one(a) || self.is_minus_one(b) {
            self.mul_pow_r(t, b, s);
            b.copy_from_slice(a);
            self.sub_assign(b, t);
            self.add_assign(a, t);
            return;
        }
        t.copy_from_slice(b);
        let (neg, s) = (s >= k, s % k);
        let ri = r as i128;
        let (mut ca, mut cb) = (0i128, 0i128);
        // d ∈ [−r, 2r) → (d mod r, carry), branch-free (the carries are unpredictable).
        let norm = |d: i128| {
            let (ge, lt) = ((d >= ri) as i128, (d < 0) as i128);
            (d - (ri & -ge) + (ri & -lt), ge - lt)
        };
        let mut step = |j: usize, tj: i128| {
            let aj = a[j] as i128;
            let (da, c) = norm(aj + tj + ca);
            ca = c;
            let (db, c) = norm(aj - tj + cb);
            cb = c;
            a[j] = da as u64;
            b[j] = db as u64;
        };
        // j < s: T_j = −b_{k−s+j}; j ≥ s: T_j = b_{j−s}; all negated when s ≥ k.
        for j in 0..s {
            let m = t[k - s + j] as i128;
            step(j, if neg { m } else { -m });
        }
        for j in s..k {
            let m = t[j - s] as i128;
            step(j, if neg { -m } else { m });
        }
        for (z, c) in [(a, ca), (b, cb)] {
            match c {
                1 => self.dec_plain(z),
                -1 => self.inc_plain(z),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::gfpf::{digits, elements, eq, fields, p_mpz, value};
    use crate::testing::{Mpz, Rng};
    use gmp_mpfr_sys::gmp;

    /// Every operation on every pair of edge/random elements against GMP mod p.
    #[test]
    fn ops_match_gmp_mod_p() {
        let mut rng = Rng(0x6F9F);
        for f in fields() {
            check_ops(&f, &mut rng, 12);
        }
    }

    /// The large-k rows of Table 2.1 (k = 32, 64, 128; r close to 2^64 for k = 128), and k = 256
    /// with the largest even radix r = 2^64 − 2 (r^256 + 1 need not be prime for the ring
    /// arithmetic; this stresses the bound |u_j| < k r² of both products and of the CRT).
    #[test]
    fn ops_match_gmp_mod_p_large_k() {
        let mut rng = Rng(0x6FA0);
        for k in [32, 64, 128] {
            check_ops(&super::Gfpf::builtin(k).unwrap(), &mut rng, 2);
        }
        check_ops(&super::Gfpf::new_unchecked(u64::MAX - 1, 256), &mut rng, 1);
    }

    /// Both products against GMP on many random pairs of every field (the CRT product needs
    /// k ≥ 16, below that it is the plain one), including the largest radices.
    #[test]
    fn products_match_gmp_on_random_pairs() {
        let mut rng = Rng(0x6FA1);
        let mut fs = crate::testing::gfpf::fields();
        fs.push(super::Gfpf::new_unchecked(u64::MAX - 1, 16));
        fs.push(super::Gfpf::new_unchecked(u64::MAX - 1, 64));
        for f in fs {
            let (k, p) = (f.k(), p_mpz(&f));
            let mut z = vec![0u64; k];
            for t in 0..200 {
                let x = crate::testing::gfpf::random(&f, &mut rng);
                let y = if t % 4 == 0 { vec![f.radix() - 1; k] } else { crate::testing::gfpf::random(&f, &mut rng) };
                let mut want = Mpz::new();
                // SAFETY: initialised.
                unsafe {
                    gmp::mpz_mul(&mut want.0, &value(&f, &x).0, &value(&f, &y).0);
                    gmp::mpz_mod(&mut want.0, &want.0, &p.0);
                }
                let want = digits(&f, &want);
                f.mul_plain(&mut z, &x, &y);
                assert_eq!(z, want, "mul_plain r = {} k = {k}", f.radix());
                f.mul_crt(&mut z, &x, &y);
                assert_eq!(z, want, "mul_crt r = {} k = {k}", f.radix());
            }
        }
    }

    fn check_ops(f: &super::Gfpf, rng: &mut Rng, nrandom: usize) {
        let (k, r) = (f.k(), f.radix());
        let p = p_mpz(f);
        let els = elements(f, rng, nrandom);
        let mut z = vec![0u64; k];
        for x in &els {
            let vx = value(f, x);
            assert_eq!(digits(f, &vx), *x, "round trip of the oracle, r = {r}");
            for y in &els {
                let vy = value(f, y);
                let mut want = Mpz::new();
                type Op = unsafe extern "C" fn(*mut gmp::mpz_t, *const gmp::mpz_t, *const gmp::mpz_t);
                type Core = fn(&super::Gfpf, &mut [u64], &[u64], &[u64]);
                let ops: [(&str, Core, Op); 5] = [
                    ("add", super::Gfpf::add, gmp::mpz_add),
                    ("sub", super::Gfpf::sub, gmp::mpz_sub),
                    ("mul", super::Gfpf::mul, gmp::mpz_mul),
                    ("mul_plain", super::Gfpf::mul_plain, gmp::mpz_mul),
                    ("mul_crt", super::Gfpf::mul_crt, gmp::mpz_mul),
                ];
                for (name, op, gop) in ops {
                    op(f, &mut z, x, y);
                    // SAFETY: initialised.
                    unsafe {
                        gop(&mut want.0, &vx.0, &vy.0);
                        gmp::mpz_mod(&mut want.0, &want.0, &p.0);
                    }
                    assert!(f.is_canonical(&z), "{name} not canonical, r = {r} k = {k}: {x:?} {y:?} -> {z:?}");
                    assert_eq!(z, digits(f, &want), "{name}, r = {r} k = {k}: {x:?} {y:?}");
                }
            }
            // x·r^s for every s < 2k, and −x.
            for s in 0..2 * k {
                f.mul_pow_r(&mut z, x, s);
                let mut want = Mpz::new();
                // SAFETY: initialised.
                unsafe {
                    gmp::mpz_set_ui(&mut want.0, r);
                    gmp::mpz_pow_ui(&mut want.0, &want.0, s as _);
                    gmp::mpz_mul(&mut want.0, &want.0, &vx.0);
                    gmp::mpz_mod(&mut want.0, &want.0, &p.0);
                }
                assert!(eq(&value(f, &z), &want) && f.is_canonical(&z), "mul_pow_r s = {s}, r = {r} k = {k}: {x:?} -> {z:?}");
            }
            f.neg(&mut z, x);
            let mut want = Mpz::new();
            // SAFETY: initialised.
            unsafe {
                gmp::mpz_neg(&mut want.0, &vx.0);
                gmp::mpz_mod(&mut want.0, &want.0, &p.0);
            }
            assert_eq!(z, digits(f, &want), "neg r = {r}");
        }
    }

    /// The fused butterfly against mul_pow_r + add + sub, for all shifts and edge operands.
    #[test]
    fn butterfly_matches_shift_add_sub() {
        let mut rng = Rng(0xB0);
        for f in fields() {
            let k = f.k();
            let els = elements(&f, &mut rng, 6);
            let mut t = vec![0u64; k];
            for x in &els {
                for y in &els {
                    for s in 0..2 * k {
                        let (mut a, mut b) = (x.clone(), y.clone());
                        f.butterfly(&mut a, &mut b, s, &mut t);
                        let mut ys = vec![0u64; k];
                        f.mul_pow_r(&mut ys, y, s);
                        let (mut wa, mut wb) = (vec![0u64; k], vec![0u64; k]);
                        f.add(&mut wa, x, &ys);
                        f.sub(&mut wb, x, &ys);
                        assert_eq!((a, b), (wa, wb), "r = {} s = {s}: {x:?} {y:?}", f.radix());
                    }
                }
            }
        }
    }

    /// The erratum case: (p − 1) + (p − 1) = p − 2, all digits r − 1; and (p − 1)² = 1.
    #[test]
    fn both_operands_minus_one() {
        for f in fields() {
            let k = f.k();
            let mut m1 = vec![0u64; k];
            f.set_minus_one(&mut m1);
            let mut z = vec![0u64; k];
            f.add(&mut z, &m1, &m1);
            assert_eq!(z, vec![f.radix() - 1; k]);
            f.mul(&mut z, &m1, &m1);
            assert_eq!(z, f.from_u64(1));
            f.sub(&mut z, &m1, &m1);
            assert_eq!(z, vec![0; k]);
        }
    }

    /// from_limbs / to_limbs against GMP for any sign and size, including multiples of p.
    #[test]
    fn conversions_match_gmp() {
        let mut rng = Rng(0xC0);
        for f in fields() {
            let p = p_mpz(&f);
            let pl = f.prime().len();
            for t in 0..40 {
                let n = [0, 1, pl - 1, pl, pl + 1, 3 * pl][t % 6];
                let mut mag: Vec<u64> = (0..n).map(|_| rng.next()).collect();
                if t % 7 == 3 {
                    mag = f.prime().to_vec(); // p itself, and p − 1 below
                }
                if t % 7 == 4 {
                    mag = f.prime().to_vec();
                    mag[0] -= 1;
                }
                let neg = t % 3 == 1;
                let mut z = vec![0u64; f.k()];
                f.from_limbs(&mut z, neg, &mag);
                let mut a = crate::testing::gfpf::limbs_mpz(&mag);
                // SAFETY: initialised.
                unsafe {
                    if neg {
                        gmp::mpz_neg(&mut a.0, &a.0);
                    }
                }
                assert_eq!(z, digits(&f, &a), "from_limbs r = {} t = {t}", f.radix());
                let mut back = vec![0u64; pl];
                f.to_limbs(&mut back, &z);
                // SAFETY: initialised.
                unsafe { gmp::mpz_mod(&mut a.0, &a.0, &p.0) };
                assert!(eq(&crate::testing::gfpf::limbs_mpz(&back), &a), "to_limbs t = {t}");
            }
        }
    }

    #[test]
    fn validation() {
        use super::super::Gfpf;
        assert!(Gfpf::new(6, 2).is_ok()); // 37
        assert!(Gfpf::new(8, 2).is_err()); // 65 = 5·13
        assert!(Gfpf::new(7, 2).is_err()); // odd r
        assert!(Gfpf::new(0, 2).is_err() && Gfpf::new(1, 2).is_err());
        assert!(Gfpf::new(6, 3).is_err() && Gfpf::new(6, 1).is_err() && Gfpf::new(2, 512).is_err());
        let f = Gfpf::builtin(8).unwrap();
        let mut bad = vec![0u64; 8];
        bad[0] = f.radix();
        assert!(!f.is_canonical(&bad));
        bad[0] = 0;
        bad[7] = f.radix();
        assert!(f.is_canonical(&bad));
        bad[3] = 1;
        assert!(!f.is_canonical(&bad));
        assert!(f.check_vec(&[vec![0; 8], bad].concat(), "x").is_err());
    }
}
