//! GMP's products, quotients and square roots (`mpn_mul`, `mpn_sqr`, `mpn_tdiv_qr`, `mpn_sqrtrem`)
//! and modular powers (`mpz_powm`) within the sizes where their temporary space provably stays on
//! the stack, so that they may run on any thread.
//!
//! The rule: the host's GMP memory functions (`mp_set_memory_functions`: Julia's, Maple's, PARI's,
//! Sage's) are called only on the thread that called gpmp. Worker threads (gpmp's pool, GPU stages)
//! therefore call only GMP functions that never reach them: the `mpn` functions without temporary
//! space (`mpn_add`, `mpn_sub`, `mpn_mul_1`, `mpn_addmul_1`, `mpn_divrem_1`, `mpn_cmp`, the shifts)
//! anywhere, and the five below through these wrappers only, never another `mpz_` function.
//!
//! Why the bound holds ([GMP] 6.2.1 source, 64-bit limbs). GMP takes temporary space with
//! `TMP_SALLOC` (always the stack, `alloca`), `TMP_BALLOC` (always the memory functions) and
//! `TMP_ALLOC(n)`: the stack while n ≤ 0x7f00 bytes (4064 limbs), else the memory functions
//! (`gmp-impl.h`, `WANT_TMP_ALLOCA`, GMP's default `--enable-alloca=reentrant`; a GMP configured
//! with `--enable-alloca=malloc-*` or `debug` sends every block to the memory functions and no
//! bound exists). For operands of at most N = [`GMP_STACK_MAX_LIMBS`] = 1000 limbs:
//! - products (`mul.c`, `mul_n.c`, `sqr.c`, `toom*.c`): the FFT (`mpn_mul_fft`, `TMP_BALLOC`) is
//!   reached only from (un + vn)/2 or n ≥ MUL_FFT_THRESHOLD / SQR_FFT_THRESHOLD, ≥ 1728 / 1344
//!   in every 64-bit `gmp-mparam.h` (x86_64, arm64, power64, s390_64) and 3000 by default, and
//!   recursion only shortens operands. The `TMP_ALLOC` blocks are: Toom-X3 scratch 4vn + 64 ≤ 4064
//!   and 7vn/2; toom42 6n + 5 with n ≤ 1 + ⌊(N − 1)/2⌋ (3005); toom53 10(n + 1) with
//!   n ≤ 1 + ⌊(N − 1)/3⌋ (3350); toom8h `mpn_toom8_mul_n_itch(s)` ≤ 3s + 385 with
//!   s = 8⌊(un + vn)/14⌋ + 8 ≤ 1144 (3817) in `mpn_mul` and s = n in `mpn_mul_n`/`mpn_sqr` (3385).
//!   Toom-4 and Toom-6 scratch is `TMP_SALLOC`. A short operand of vn ≤ [`GMP_STACK_MAX_SHORT_LIMBS`]
//!   = 575 limbs keeps `mpn_mul` off the FFT for any un (3vn < 1728), in its Toom-X2 arm (`TMP_SALLOC`)
//!   or Toom-X3 arm: scratch 4vn + 64 ≤ 2364, 7vn/2 ≤ 2013, toom42 on 2vn × vn and on the rest
//!   un′ < 5vn/2 ≤ 1437 6n + 5 ≤ 2165, toom53 ≤ 2120, toom8h (un′ + vn < 1343) ≤ 2713, and products of
//!   at most 361 limbs below them.
//! - quotients (`tdiv_qr.c`, `dcpi1_div_qr.c`), numerator nn ≤ N ≥ dn: the copies take nn + 1, dn,
//!   2qn + 1 and dn limbs and `mpn_dcpi1_div_qr` dn plus products of at most dn limbs; the one
//!   larger block, `mpn_mu_div_qr`'s, needs nn ≥ 2·MU_DIV_QR_THRESHOLD or a quotient of
//!   qn ≥ MU_DIV_QR_THRESHOLD < nn/2 + 1 limbs, and MU_DIV_QR_THRESHOLD ≥ 807 everywhere.
//! - square roots (`sqrtrem.c`, a remainder wanted), nn ≤ 2N limbs: one `TMP_ALLOC` block of
//!   2tn + tn/2 + 1 ≤ 2501 limbs (tn = ⌈nn/2⌉ ≤ N), or tn/2 + 1; `mpn_dc_sqrtrem` then divides
//!   numerators of at most tn ≤ N limbs (`mpn_tdiv_qr`, as above) and squares at most tn/2 limbs.
//!
//! Larger products use gpmp's own ([`super::mul_into`]), larger remainders [`super::Divisor`],
//! other powers [`super::PowmModulus`]'s own exponentiation, larger square roots Newton's iteration
//! over [`super::div_rem_mag`].
use super::normalized;
use gmp_mpfr_sys::gmp;
use std::ffi::c_int;
use std::ptr::NonNull;

/// Operand limbs (of the longer product operand, of a numerator) up to which GMP's temporary space
/// stays on the stack: the derivation is in the module comment.
pub const GMP_STACK_MAX_LIMBS: usize = 1000;

/// Limbs of the shorter product operand up to which GMP's temporary space stays on the stack
/// whatever the longer one's length (the module comment).
pub const GMP_STACK_MAX_SHORT_LIMBS: usize = 575;

/// The largest `TMP_ALLOC` block (limbs) that comes from the stack: 0x7f00 bytes.
const TMP_STACK_MAX_LIMBS: usize = 0x7f00 / 8;

/// The largest odd modulus (limbs) for which [`powm`] calls GMP.
pub const GMP_POWM_MAX_LIMBS: usize = 400;

/// GMP's window size for an exponent of `bits` ≥ 1 bits (`mpn/generic/powm.c`, `win_size`): the
/// smallest w with bits ≤ X\[w\], 10 above X\[9\].
pub fn win_size(bits: u64) -> usize {
    const X: [u64; 10] = [0, 7, 25, 81, 241, 673, 1793, 4609, 11521, 28161];
    X.iter().skip(1).position(|&x| bits <= x).map_or(10, |i| i + 1)
}

/// out = b^e mod m by GMP's `mpz_powm` when its temporary space provably stays on the stack, and
/// `true`; `false` (out untouched) otherwise. The domain: m odd of k ≤ [`GMP_POWM_MAX_LIMBS`] limbs,
/// 0 < b < m, e > 0, and k·2^(w−1) ≤ 4064 for GMP's window w of bits(e). Its blocks are then
/// ([GMP] `mpz/powm.c`, `mpn/generic/powm.c`, `redc_n.c`, `binvert.c`, `mullo_n.c`): the scratch
/// k + max(`mpn_binvert_itch`(k), 2k) ≤ 3.5k + 30, the inverse k, the table of 2^(w−1) powers
/// k·2^(w−1) ≤ 4064, `redcify`'s 3k + 1 with a quotient of 2k ≤ 800 limbs, `mpn_redc_n`'s
/// 4k + 25 and `mpn_mullo_n`'s 2k, and products of k limbs. `mpn_mulmod_bnm1` (in `mpn_redc_n` and
/// `mpn_binvert`'s Newton steps) works on at most k + 7 ≤ 407 limbs and multiplies halves, below
/// MUL_FFT_MODF_THRESHOLD ≥ 220 (x86_64, arm64, power64, s390_64): no FFT, no `TMP_BALLOC`. The
/// result goes straight into out through an `mpz_t` over its k limbs (alloc k): `mpz_powm` writes
/// at most SIZ(m) = k limbs, so it never grows that `mpz_t`.
pub fn powm(out: &mut [u64], b: &[u64], e: &[u64], m: &[u64]) -> bool {
    let (b, e, k) = (normalized(b), normalized(e), m.len());
    let bits = match e.last() {
        Some(&top) => e.len() as u64 * 64 - top.leading_zeros() as u64,
        None => return false,
    };
    let below_m = b.len() < k || (b.len() == k && b.iter().rev().cmp(m.iter().rev()) == std::cmp::Ordering::Less);
    if k == 0 || k > GMP_POWM_MAX_LIMBS || m[k - 1] == 0 || m[0] & 1 == 0 || b.is_empty() || !below_m || out.len() != k {
        return false;
    }
    if k << (win_size(bits) - 1) > TMP_STACK_MAX_LIMBS {
        return false;
    }
    let view = |x: &[u64]| gmp::mpz_t { alloc: 0, size: x.len() as c_int, d: NonNull::from(&x[0]) };
    let (bz, ez, mz) = (view(b), view(e), view(m));
    let mut r = gmp::mpz_t { alloc: k as c_int, size: 0, d: NonNull::from(&mut out[0]) };
    // SAFETY: bz, ez, mz are read-only views of live limbs (sources only); r has room for the k
    // limbs mpz_powm writes, so it is never reallocated; m > 1 is odd.
    unsafe { gmp::mpz_powm(&mut r, &bz, &ez, &mz) };
    debug_assert!(std::ptr::eq(r.d.as_ptr(), out.as_ptr()) && r.size >= 0 && r.size as usize <= k);
    let n = r.size as usize;
    out[n..].fill(0);
    true
}

/// r = x·y by GMP (`mpn_sqr` when x and y are the same slice). x.len() ≥ y.len() ≥ 1 with
/// x.len() ≤ [`GMP_STACK_MAX_LIMBS`] or y.len() ≤ [`GMP_STACK_MAX_SHORT_LIMBS`] (not a square then);
/// r has x.len() + y.len() limbs; high zero limbs are allowed.
pub fn mul(r: &mut [u64], x: &[u64], y: &[u64]) {
    let square = std::ptr::eq(x, y);
    let fits = x.len() <= GMP_STACK_MAX_LIMBS || (y.len() <= GMP_STACK_MAX_SHORT_LIMBS && !square);
    assert!(x.len() >= y.len() && !y.is_empty() && fits && r.len() == x.len() + y.len());
    // SAFETY: the sizes as asserted; r is a distinct mutable slice, so it overlaps neither operand.
    unsafe {
        if square {
            gmp::mpn_sqr(r.as_mut_ptr(), x.as_ptr(), x.len() as _);
        } else {
            gmp::mpn_mul(r.as_mut_ptr(), x.as_ptr(), x.len() as _, y.as_ptr(), y.len() as _);
        }
    }
}

/// q = ⌊n/d⌋, r = n mod d by GMP's `mpn_tdiv_qr`. n.len() ≤ [`GMP_STACK_MAX_LIMBS`], d's top limb
/// nonzero, n.len() ≥ d.len(); q has n.len() − d.len() + 1 limbs, r d.len().
pub fn tdiv_qr(q: &mut [u64], r: &mut [u64], n: &[u64], d: &[u64]) {
    let (nn, dn) = (n.len(), d.len());
    assert!(nn <= GMP_STACK_MAX_LIMBS && dn >= 1 && nn >= dn && d[dn - 1] != 0 && q.len() == nn - dn + 1 && r.len() == dn);
    // SAFETY: the sizes as asserted; q and r are distinct mutable slices.
    unsafe { gmp::mpn_tdiv_qr(q.as_mut_ptr(), r.as_mut_ptr(), 0, n.as_ptr(), nn as _, d.as_ptr(), dn as _) };
}

/// The longest operand (limbs) of [`sqrtrem`]: 2·[`GMP_STACK_MAX_LIMBS`] (the module comment).
pub const GMP_SQRTREM_MAX_LIMBS: usize = 2 * GMP_STACK_MAX_LIMBS;

/// s = ⌊√x⌋ and r = x − s² by GMP's `mpn_sqrtrem`; returns r's limbs without high zeros.
/// 1 ≤ x.len() ≤ [`GMP_SQRTREM_MAX_LIMBS`], x's top limb nonzero; s has ⌈x.len()/2⌉ limbs, r x.len().
pub fn sqrtrem(s: &mut [u64], r: &mut [u64], x: &[u64]) -> usize {
    let n = x.len();
    assert!((1..=GMP_SQRTREM_MAX_LIMBS).contains(&n) && x[n - 1] != 0 && s.len() == n.div_ceil(2) && r.len() == n);
    // SAFETY: the sizes as asserted; s and r are distinct mutable slices, so they overlap neither x.
    unsafe { gmp::mpn_sqrtrem(s.as_mut_ptr(), r.as_mut_ptr(), x.as_ptr(), n as _) as usize }
}
