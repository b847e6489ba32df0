//! Batched modular multiplication and exponentiation on the device, the GPU twin of
//! [`crate::int::batch`]'s mulmod and powm (`gpmp_zvec_mulmod`/`_powm` on device vectors, and
//! `gpmp_mpz_mulmod_n`/`_powm_n` when [`crate::ops::route`] sends them here) for an odd modulus m of
//! at most [`MAX_LIMBS`] limbs shared by the batch: `kernels/batch.cu`, Montgomery arithmetic
//! (\[Montgomery\], products by \[CIOS\], powm's squarings by separated operand scanning up to
//! [`GPU_ZMOD_SQR_MAX_LIMBS`], fixed windows of [`GPU_ZMOD_POWM_WINDOW_BITS`]) with R = 2^(64 L), one
//! thread per element, specialised per padded limb count L of m ([`spec_limbs`]).
//! Inputs of any sign and size are reduced on the device; results are canonical in [0, m), so
//! equal to the CPU path's ([`crate::int::batch`], GMP) bit for bit. Even m, or m above 4096 bits,
//! stays on the CPU (the callers check [`supports`]).
//!
//! Host side: M' = −m^(−1) mod 2^64 ([`neg_inverse`]) and the table R^(k+1) mod m ([`powers`]) that
//! the kernels use to reduce inputs of k·L limbs and more and to enter the Montgomery form, kept in
//! device memory per modulus ([`table`]).
use super::compile;
use super::kernels::{Kernel, Spec};
use super::zvec::DevVec;
use super::{driver_err, shield};
use crate::int::{mag_bits, normalized, rem_by_gmp};
use crate::nmod::prime::neg_inverse;
use crate::tuning::{GPU_ZMOD_MULMOD_TWO_PRODUCTS, GPU_ZMOD_POWM_WINDOW_BITS, GPU_ZMOD_SQR_MAX_LIMBS};
use crate::{invalid, Error, Result};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Threads per block (`NT` in the kernel).
const NT: u32 = 128;
/// Limbs of the largest modulus on the device (4096 bits).
pub const MAX_LIMBS: usize = 64;

/// The padded limb count L of the kernel for a modulus of `l` limbs: l up to 16, then the next
/// multiple of 4 up to 32 and of 8 up to 64 (so 24 specialisations); `None` above [`MAX_LIMBS`].
pub fn spec_limbs(l: usize) -> Option<usize> {
    match l {
        0..=16 => Some(l.max(1)),
        17..=32 => Some(l.next_multiple_of(4)),
        33..=MAX_LIMBS => Some(l.next_multiple_of(8)),
        _ => None,
    }
}

/// `kernels/batch.cu`: Montgomery mulmod and powm on word-major batches, one specialisation per padded modulus size.
pub static KERNEL: Kernel = Kernel { file: "batch.cu", source: include_str!("../../kernels/batch.cu"), int128: false, specs };

/// The specialisation for `l` padded limbs with powm windows of `w` bits, squaring by `mont_sqr` when
/// `sqr`, and mulmod by two Montgomery products when `mul2`.
fn spec_with(l: usize, w: usize, sqr: bool, mul2: bool) -> Spec {
    let d = [("L", l), ("NT", NT as usize), ("ZM_W", w), ("ZM_SQR", sqr as usize), ("ZM_MUL2", mul2 as usize)];
    Spec { source: "batch.cu", defines: d.iter().map(|&(k, v)| (k, v as i64)).collect() }
}

/// The library's specialisation for `l` padded limbs ([`GPU_ZMOD_POWM_WINDOW_BITS`],
/// [`GPU_ZMOD_SQR_MAX_LIMBS`], [`GPU_ZMOD_MULMOD_TWO_PRODUCTS`]).
fn spec(l: usize) -> Spec {
    let w = GPU_ZMOD_POWM_WINDOW_BITS.iter().find(|&&(lim, _)| l <= lim).map_or(4, |&(_, w)| w);
    spec_with(l, w, l <= GPU_ZMOD_SQR_MAX_LIMBS, GPU_ZMOD_MULMOD_TWO_PRODUCTS)
}

/// The powm kernel chosen by [`set_powm_kernel`]: 0 the library's, else 1 + 2·window + squaring.
static POWM_KERNEL: AtomicUsize = AtomicUsize::new(0);

/// Selects the powm kernel of this process, for benchmarks that compare them in one run: windows of
/// `window` bits (1..=6) and squarings by `mont_sqr` (`sqr`) or by the general product; `window` 0
/// restores the library's choice. Compiled on first use (not part of [`specs`]).
pub fn set_powm_kernel(window: usize, sqr: bool) {
    POWM_KERNEL.store(if (1..=6).contains(&window) { 1 + 2 * window + sqr as usize } else { 0 }, Ordering::Relaxed);
}

/// The mulmod kernel chosen by [`set_mulmod_kernel`]: 0 the library's, 1 three products, 2 two.
static MULMOD_KERNEL: AtomicUsize = AtomicUsize::new(0);

/// Selects the mulmod kernel of this process, for benchmarks that compare them in one run: operands
/// of at most L limbs by two Montgomery products (`Some(true)`) or three (`Some(false)`, as larger
/// ones); `None` restores the library's choice. Compiled on first use (not part of [`specs`]).
pub fn set_mulmod_kernel(two: Option<bool>) {
    MULMOD_KERNEL.store(two.map_or(0, |t| 1 + t as usize), Ordering::Relaxed);
}

/// The specialisation `name` runs with for `l` padded limbs.
fn spec_for(name: &str, l: usize) -> Spec {
    let mut s = match POWM_KERNEL.load(Ordering::Relaxed) {
        v if v > 0 && name == "zm_powm" => spec_with(l, (v - 1) / 2, (v - 1) % 2 == 1, GPU_ZMOD_MULMOD_TWO_PRODUCTS),
        _ => spec(l),
    };
    match MULMOD_KERNEL.load(Ordering::Relaxed) {
        v if v > 0 && name == "zm_mulmod" => s.defines.iter_mut().filter(|d| d.0 == "ZM_MUL2").for_each(|d| d.1 = (v - 1) as i64),
        _ => (),
    }
    s
}

/// Every specialisation this module can request.
pub fn specs() -> Vec<Spec> {
    let mut ls: Vec<usize> = (1..=MAX_LIMBS).filter_map(spec_limbs).collect();
    ls.dedup();
    ls.into_iter().map(spec).collect()
}

/// Whether the device path takes the modulus m > 1 (normalized magnitude): odd, at most
/// [`MAX_LIMBS`] limbs.
pub fn supports(m: &[u64]) -> bool {
    m.first().is_some_and(|&w| w & 1 == 1) && spec_limbs(m.len()).is_some()
}

/// `rows` rows of `l` limbs: row k = R^(k+1) mod m, R = 2^(64 l), for m > 1 of at most l limbs.
pub fn powers(m: &[u64], l: usize, rows: usize) -> Result<Vec<u64>> {
    let m = normalized(m);
    let ml = m.len();
    if ml == 0 || ml > l || m == [1] {
        return Err(Error::Internal(format!("Montgomery powers of a {ml}-limb modulus for {l} limbs")));
    }
    let mut out = vec![0u64; rows * l];
    // num = prev·R (prev = 1 for row 0), then num mod m into the row.
    let mut num = vec![0u64; l + ml];
    let mut q = Vec::new();
    let mut prev = vec![0u64; ml];
    prev[0] = 1;
    for row in out.chunks_mut(l) {
        num.fill(0);
        num[l..l + ml].copy_from_slice(&prev);
        // GMP's quotient (2l ≤ 128 limbs) takes no memory from the host's GMP memory functions.
        rem_by_gmp(&mut prev, &num, m, &mut q);
        row[..ml].copy_from_slice(&prev);
    }
    Ok(out)
}

/// Device tables R^(k+1) mod m ([`powers`]) of recent moduli: (device, padded limbs, m, rows, table).
type Tables = Mutex<Vec<(usize, usize, Vec<u64>, usize, Arc<CudaSlice<u64>>)>>;
static TABLES: Tables = Mutex::new(Vec::new());
/// Moduli whose tables [`TABLES`] keeps (the most recently used).
const TABLES_MAX: usize = 4;

/// At least `rows` rows of R^(k+1) mod m for `l` padded limbs in the memory of device `ordinal`,
/// uploaded on `s` (the zvec stream, which orders every kernel that reads them) at the first use of
/// m and kept, so that a chain of mulmod and powm calls with one modulus computes and uploads them once.
fn table(s: &Arc<CudaStream>, ordinal: usize, m: &[u64], l: usize, rows: usize) -> Result<Arc<CudaSlice<u64>>> {
    let mut t = TABLES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(k) = t.iter().position(|e| e.0 == ordinal && e.1 == l && e.2 == m && e.3 >= rows) {
        let e = t.remove(k);
        let d = Arc::clone(&e.4);
        t.push(e);
        return Ok(d);
    }
    let pw = powers(m, l, rows)?;
    let d = Arc::new(s.clone_htod(&pw[..]).map_err(|e| driver_err("cuMemcpyHtoD", e))?);
    t.retain(|e| !(e.0 == ordinal && e.1 == l && e.2 == m));
    t.push((ordinal, l, m.to_vec(), rows, Arc::clone(&d)));
    if t.len() > TABLES_MAX {
        t.remove(0);
    }
    Ok(d)
}

/// Runs `name` (zm_mulmod or zm_powm, same signature) on x and y into a new vector of `bits` bits:
/// `Error::SizeTooLarge` when a result does not fit, `InvalidArgument` on a negative exponent
/// (powm). `check` asks for the flag to be read (a synchronisation); it must be set when a result
/// may not fit or (powm) an exponent may be negative.
fn launch(name: &'static str, x: &DevVec, y: &DevVec, m: &[u64], bits: u64, check: bool) -> Result<DevVec> {
    DevVec::check_pair(x, y)?;
    let m = normalized(m);
    let l =
        spec_limbs(m.len()).filter(|_| supports(m)).ok_or_else(|| Error::Internal("zmod: modulus not supported on the device".into()))?;
    let r = super::zvec::attributed("zvec mulmod or powm", DevVec::alloc(Arc::clone(&x.dev), x.len(), bits))?;
    let n = x.len();
    if n == 0 {
        return Ok(r);
    }
    let (lx, ly) = (x.limbs(), y.limbs());
    // rows k ≤ ⌈lx/L⌉ (x enters the Montgomery form) and k < ⌈ly/L⌉ (mulmod: y reduced plainly)
    // (at least 2: mulmod's two-product path reads R² mod m)
    let rows = (lx as usize).div_ceil(l).max((ly as usize).div_ceil(l)).max(1) + 1;
    let mut p = [0u64; MAX_LIMBS + 1];
    p[0] = neg_inverse(m[0]);
    p[1..=m.len()].copy_from_slice(m);
    let f = compile::module(&x.dev, &spec_for(name, l))?.load_function(name).map_err(|e| driver_err("cuModuleGetFunction", e))?;
    let blocks = n.div_ceil(NT as usize);
    if blocks > i32::MAX as usize {
        return Err(Error::SizeTooLarge(format!("{n} elements in one launch")));
    }
    let cfg = LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (NT, 1, 1), shared_mem_bytes: 0 };
    let what = if name == "zm_powm" { "zvec powm" } else { "zvec mulmod" };
    let flag = super::zvec::attributed(
        what,
        shield("zmod", || {
            let s = Arc::clone(&r.stream);
            let dpw = table(&s, x.dev.ordinal, m, l, rows)?;
            let dpw = &*dpw;
            let mut flag = s.alloc_zeros::<u32>(1).map_err(|e| driver_err("cuMemAllocAsync", e))?;
            let (nw, lr, rtop) = (n as u64, r.limbs(), (bits % 64) as u32);
            let ((rd, rs, _), (xd, xs, _), (yd, ys, _)) = (r.ptrs(), x.ptrs(), y.ptrs());
            let mut b = s.launch_builder(&f);
            b.arg(&rd).arg(&rs).arg(&xd).arg(&xs).arg(&yd).arg(&ys);
            b.arg(&nw).arg(&lx).arg(&ly).arg(&lr).arg(&rtop).arg(dpw).arg(&p).arg(&mut flag);
            // SAFETY: arguments match zm_mulmod/zm_powm of spec L: r, x, y hold n·(lr, lx, ly) limbs
            // and n signs, dpw rows·L limbs covering every chunk of x and y, p = (M', m padded to L),
            // of which the kernel reads the first L + 1 words.
            unsafe { b.launch(cfg) }.map_err(|e| driver_err("zmod launch", e))?;
            let mut h = [0u32];
            if check {
                s.memcpy_dtoh(&flag, &mut h[..]).map_err(|e| driver_err("cuMemcpyDtoH", e))?;
                super::zvec::waited(what, s.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e)))?;
            } else {
                super::zvec::queued(what, &s)?;
            }
            Ok(h[0])
        }),
    )?;
    if flag & 2 != 0 {
        return invalid!("powm: an exponent is negative");
    }
    if flag & 1 != 0 {
        return Err(Error::SizeTooLarge(format!("a residue of a {}-bit modulus does not fit in {bits} bits", mag_bits(m))));
    }
    Ok(r)
}

/// a·b mod m into a new vector of `bits` bits (m > 1 odd, [`supports`]).
pub fn mulmod(a: &DevVec, b: &DevVec, m: &[u64], bits: u64) -> Result<DevVec> {
    launch("zm_mulmod", a, b, m, bits, bits < mag_bits(m))
}

/// base^exp mod m into a new vector of `bits` bits (m > 1 odd, [`supports`]; exp ≥ 0, else
/// `InvalidArgument`). Synchronises (to read the sign check).
pub fn powm(base: &DevVec, exp: &DevVec, m: &[u64], bits: u64) -> Result<DevVec> {
    launch("zm_powm", base, exp, m, bits, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::int::IntRef;
    use crate::testing::Mpz;
    use gmp_mpfr_sys::gmp;

    #[test]
    fn specialisations_cover_every_modulus_size() {
        let specs = specs();
        assert_eq!(specs.len(), 24);
        for l in 1..=MAX_LIMBS {
            let s = spec_limbs(l).unwrap();
            assert!(s >= l && s <= l + 7 && specs.contains(&spec(s)), "{l}");
        }
        assert_eq!(spec_limbs(MAX_LIMBS + 1), None);
        assert!(supports(&[3]) && supports(&[u64::MAX; MAX_LIMBS]));
        assert!(!supports(&[2]) && !supports(&[]) && !supports(&[1, 1 << 63].repeat(MAX_LIMBS / 2 + 1)));
    }

    #[test]
    fn negative_inverse_is_exact() {
        let mut rng = crate::testing::Rng(0x1234_5678_9abc_def1);
        for m0 in [1u64, 3, 5, u64::MAX, 1 << 63 | 1].into_iter().chain((0..1000).map(|_| rng.next() | 1)) {
            assert_eq!(m0.wrapping_mul(neg_inverse(m0)), u64::MAX, "{m0:#x}"); // m0·M' ≡ −1
        }
    }

    /// Row k = R^(k+1) mod m against GMP's mpz_powm, for padded and unpadded moduli.
    #[test]
    fn powers_of_r_match_gmp() {
        let cases: Vec<(Vec<u64>, usize)> = vec![
            (vec![3], 1),
            (vec![3], 4),
            (vec![u64::MAX; 3], 3),
            (vec![0x1234_5678_9abc_def1, 0, 1 << 63], 3),
            (vec![0xdead_beef_0000_0001, 77], 5),
            (vec![5, 0, 0, 9, 1], 8),
        ];
        for (m, l) in cases {
            let rows = 4;
            let got = powers(&m, l, rows).unwrap();
            let mz = Mpz::from_coef(IntRef::new(false, &m));
            for k in 0..rows {
                let mut want = Mpz::new();
                let mut two = Mpz::new();
                // SAFETY: initialised integers; m > 1.
                unsafe {
                    gmp::mpz_set_ui(two.as_mut_ptr(), 2);
                    gmp::mpz_powm_ui(want.as_mut_ptr(), two.as_ptr(), (64 * l * (k + 1)) as _, mz.as_ptr());
                }
                let row = &got[k * l..(k + 1) * l];
                assert_eq!(normalized(row), want.mag(), "m={m:x?} l={l} k={k}");
            }
        }
        assert!(powers(&[1], 1, 1).is_err() && powers(&[3, 3], 1, 1).is_err());
    }

    #[cfg(feature = "gpu-tests")]
    mod gpu {
        use super::*;
        use crate::int::batch as cpu;
        use crate::int::max_bits;
        use crate::ops::int::on_device as batch;
        use crate::ops::zvec::ZVec;
        use crate::testing::{coef, views, Coef, Rng};

        /// Moduli: 3, 2^64k − 1, top bit set, random odd, of 1..=64 limbs across the padded
        /// specialisations; and even ones (CPU fallback).
        fn moduli(rng: &mut Rng) -> Vec<Vec<u64>> {
            let mut v = vec![vec![3], vec![u64::MAX], vec![u64::MAX; 16], vec![u64::MAX; 33], vec![1000], vec![0, 1]];
            for l in [1usize, 2, 5, 16, 17, 31, 32, 40, 64] {
                let mut m: Vec<u64> = (0..l).map(|_| rng.next()).collect();
                m[0] |= 1;
                m[l - 1] |= 1 << 63;
                v.push(m.clone());
                m[l - 1] >>= 1 + rng.below(62);
                m[l - 1] |= 1;
                v.push(m);
            }
            v
        }

        /// n values: 0, ±1, m − 1, ±m, random of up to 3·|m| + 2 limbs with random signs.
        fn inputs(rng: &mut Rng, n: usize, m: &[u64]) -> Vec<Coef> {
            let mut m1 = m.to_vec();
            for w in m1.iter_mut() {
                let (d, borrow) = w.overflowing_sub(1);
                *w = d;
                if !borrow {
                    break;
                }
            }
            let m1 = normalized(&m1).to_vec();
            (0..n)
                .map(|_| match rng.below(8) {
                    0 => (false, vec![]),
                    1 => (rng.below(2) == 1, vec![1]),
                    2 => (false, m1.clone()),
                    3 => (rng.below(2) == 1, m.to_vec()),
                    _ => {
                        let (b, k) = (1 + rng.below(64 * (3 * m.len() as u64 + 2)), rng.below(4));
                        let c = coef(rng, b, k);
                        (rng.below(2) == 1 && c.1.iter().any(|&w| w != 0), c.1)
                    }
                })
                .collect()
        }

        fn dev(x: &[Coef], bits: u64) -> ZVec {
            let mut v = ZVec::zeros_on(x.len(), bits, true).unwrap();
            v.set(&views(x)).unwrap();
            v
        }

        /// ZVec::mulmod/powm on device vectors and batch::mulmod_n/powm_n's GPU route against the
        /// CPU path (GMP: mpn_mul + mpn_tdiv_qr, mpz_powm), element by element, for every modulus
        /// and batch sizes 0, 1 and across blocks; exponents 0, 1, 2^k − 1, random of mixed sizes
        /// up to |m| bits; aliasing (r = base); destinations too small.
        #[test]
        fn device_mulmod_and_powm_match_gmp() {
            let mut rng = Rng(51);
            for (t, m) in moduli(&mut rng).into_iter().enumerate() {
                let mv = IntRef::new(false, &m);
                let mb = mag_bits(&m);
                let n = [0usize, 1, 129, 1000, 4099][t % 5];
                let (x, y) = (inputs(&mut rng, n, &m), inputs(&mut rng, n, &m));
                let e: Vec<Coef> = (0..n)
                    .map(|i| match i % 5 {
                        0 => (false, vec![rng.below(3)]),
                        1 => {
                            let b = 1 + rng.below(200);
                            (false, coef(&mut rng, b, 1).1)
                        }
                        _ => {
                            let b = rng.below(mb.min(1100) + 1);
                            (false, coef(&mut rng, b, 0).1)
                        }
                    })
                    .collect();
                let bits = |c: &[Coef]| max_bits(&views(c)).max(1);
                let (a, b, ev) = (dev(&x, bits(&x)), dev(&y, bits(&y)), dev(&e, bits(&e)));
                let r = ZVec::zeros_on(n, mb, true).unwrap();
                let want = cpu::mulmod(&views(&x), &views(&y), mv).unwrap();
                let got = ZVec::mulmod(&r, &a, &b, mv).unwrap();
                assert!(got.on_device());
                assert_eq!(got.to_list().unwrap().views(), want.views(), "mulmod m={m:x?} n={n}");
                let want = cpu::powm(&views(&x), &views(&e), mv).unwrap();
                let got = ZVec::powm(&r, &a, &ev, mv).unwrap();
                assert_eq!(got.to_list().unwrap().views(), want.views(), "powm m={m:x?} n={n}");
                // aliasing: r = base, as the FFI does for gpmp_zvec_powm(v, v, e, m)
                let mut al = ZVec::zeros_on(n, mb.max(bits(&x)), true).unwrap();
                al.set(&views(&x)).unwrap();
                al = ZVec::powm(&al, &al, &ev, mv).unwrap();
                assert_eq!(al.to_list().unwrap().views(), want.views(), "aliased powm m={m:x?}");
                // the mpz_*_n GPU route
                assert_eq!(batch(&views(&x), &views(&e), &m, true).unwrap().views(), want.views());
                let sq = cpu::mulmod(&views(&x), &views(&x), mv).unwrap();
                assert_eq!(batch(&views(&x), &views(&x), &m, false).unwrap().views(), sq.views());
                // a destination of mb − 1 bits: SIZE_TOO_LARGE exactly when a residue needs mb
                if n > 0 && mb > 1 {
                    let small = ZVec::zeros_on(n, mb - 1, true).unwrap();
                    let fits = want.views().iter().all(|z| z.bits() < mb);
                    match ZVec::powm(&small, &a, &ev, mv) {
                        Ok(g) => {
                            assert!(fits);
                            assert_eq!(g.to_list().unwrap().views(), want.views());
                        }
                        Err(Error::SizeTooLarge(_)) => assert!(!fits),
                        Err(e) => panic!("{e}"),
                    }
                }
            }
        }

        /// Every mulmod kernel (two or three Montgomery products for operands of at most L limbs)
        /// and every powm kernel (windows of 1 to 6 bits; squares by the general product and by
        /// `mont_sqr`) against GMP's products and mpz_powm: moduli of 4, 16, 17 and 32 limbs (top bit set, and
        /// 2^64l − 1), bases 0, 1, m − 1, m, random of up to twice the modulus, signed; exponents 0,
        /// 1, 2^k − 1 and random full-size; odd and even n.
        #[test]
        fn every_mulmod_and_powm_kernel_matches_gmp() {
            let mut rng = Rng(53);
            for (k, l) in [4usize, 16, 17, 32].into_iter().enumerate() {
                let mut m: Vec<u64> = (0..l).map(|_| rng.next()).collect();
                m[0] |= 1;
                m[l - 1] |= 1 << 63;
                if k == 1 {
                    m = vec![u64::MAX; l];
                }
                let mv = IntRef::new(false, &m);
                let n = [129usize, 256][k % 2];
                let x = inputs(&mut rng, n, &m);
                let e: Vec<Coef> = (0..n)
                    .map(|i| match i % 6 {
                        0 => (false, vec![rng.below(2)]),
                        1 => (false, normalized(&[u64::MAX >> rng.below(64), u64::MAX]).to_vec()),
                        _ => (false, coef(&mut rng, 64 * l as u64, 0).1),
                    })
                    .collect();
                let bits = |c: &[Coef]| max_bits(&views(c)).max(1);
                let (a, ev) = (dev(&x, bits(&x)), dev(&e, bits(&e)));
                let r = ZVec::zeros_on(n, 64 * l as u64, true).unwrap();
                let want = cpu::powm(&views(&x), &views(&e), mv).unwrap();
                let (y, sq) = (inputs(&mut rng, n, &m), cpu::mulmod(&views(&x), &views(&x), mv).unwrap());
                let b = dev(&y, bits(&y));
                let prod = cpu::mulmod(&views(&x), &views(&y), mv).unwrap();
                for two in [Some(false), Some(true), None] {
                    set_mulmod_kernel(two);
                    assert_eq!(ZVec::mulmod(&r, &a, &b, mv).unwrap().to_list().unwrap().views(), prod.views(), "{l} limbs, {two:?}");
                    assert_eq!(ZVec::mulmod(&r, &a, &a, mv).unwrap().to_list().unwrap().views(), sq.views(), "{l} limbs, {two:?}");
                    // operands of at most L limbs (the two-product path): residues and their
                    // negatives, and all-ones limbs (≥ m unless m = 2^64l − 1)
                    let small: Vec<Coef> = want
                        .views()
                        .iter()
                        .enumerate()
                        .map(
                            |(i, z)| {
                                if i % 5 == 1 {
                                    (i % 2 == 0, vec![u64::MAX; l])
                                } else {
                                    (i % 3 == 0 && z.bits() > 0, z.mag.to_vec())
                                }
                            },
                        )
                        .collect();
                    let s = dev(&small, 64 * l as u64);
                    let want2 = cpu::mulmod(&views(&small), &views(&x), mv).unwrap();
                    let xs = dev(&x, bits(&x));
                    assert_eq!(ZVec::mulmod(&r, &s, &xs, mv).unwrap().to_list().unwrap().views(), want2.views(), "{l} limbs, {two:?}");
                    let want3 = cpu::mulmod(&views(&small), &views(&small), mv).unwrap();
                    assert_eq!(ZVec::mulmod(&r, &s, &s, mv).unwrap().to_list().unwrap().views(), want3.views(), "{l} limbs, {two:?}");
                }
                // every window on the smallest modulus; the others: the previous kernel, mont_sqr
                // with 5- and 6-bit windows, the library's (each variant is one NVRTC compile)
                let variants: &[(usize, bool)] = if l <= 4 {
                    &[(1, true), (2, false), (3, true), (4, false), (4, true), (5, true), (6, true), (0, false)]
                } else {
                    &[(4, false), (5, true), (6, true), (0, false)]
                };
                for &(w, sqr) in variants {
                    set_powm_kernel(w, sqr);
                    let got = ZVec::powm(&r, &a, &ev, mv).unwrap();
                    assert_eq!(got.to_list().unwrap().views(), want.views(), "{l} limbs, window {w}, mont_sqr {sqr}");
                }
            }
        }

        /// Full-size exponents and a negative one (refused, like the CPU path).
        #[test]
        fn device_powm_full_exponents_and_errors() {
            let mut rng = Rng(52);
            for l in [16usize, 32] {
                let mut m: Vec<u64> = (0..l).map(|_| rng.next()).collect();
                m[0] |= 1;
                m[l - 1] |= 1 << 63;
                let mv = IntRef::new(false, &m);
                let n = 300;
                let x: Vec<Coef> = (0..n).map(|_| coef(&mut rng, 64 * l as u64, 0)).collect();
                let e: Vec<Coef> = (0..n).map(|_| (false, coef(&mut rng, 64 * l as u64, 0).1)).collect();
                let bits = 64 * l as u64;
                let (a, ev) = (dev(&x, bits), dev(&e, bits));
                let r = ZVec::zeros_on(n, bits, true).unwrap();
                let want = cpu::powm(&views(&x), &views(&e), mv).unwrap();
                assert_eq!(ZVec::powm(&r, &a, &ev, mv).unwrap().to_list().unwrap().views(), want.views());
                let mut neg = e.clone();
                neg[n / 2] = (true, vec![3]);
                let en = dev(&neg, bits);
                assert!(matches!(ZVec::powm(&r, &a, &en, mv), Err(Error::InvalidArgument(_))));
            }
        }
    }
}
