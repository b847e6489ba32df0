//! Operations on vectors and polynomials over a word-size prime field with a GPU path, and the
//! entries of the C layer's division and power series calls (CPU) and subproduct-tree calls
//! (multipoint evaluation and interpolation: CPU, or the device for Fourier primes, see
//! [`tree_on_gpu`]).
//!
//! [`poly_mul`]: h = f·g in Z/pZ\[x\] for an odd prime p < 2^63, on the CPU by
//! [`crate::nmod::poly_mul`] or on the GPU.
//! **GPU.** When [`gpu_wanted`] says so ([`super::route`]), the
//! entries are viewed as one-limb non-negative integers and multiplied exactly over Z by the GPU
//! multi-modular product [`crate::gpu::zpoly_mul`] (coefficients < m·2^(2·bits(p−1)), at most
//! 126 + ⌈log2 m⌉ bits: 2–3 limbs); each coefficient is then reduced mod p on the host
//! ([`Modulus::reduce_limbs`]).
use super::route::{route, route_on, Op, Where};
use crate::int::{limb_views, limbs_for_bits, product_bits, try_zeroed};
use crate::nmod::poly_mul::{check_args, poly_mul_into_checked};
use crate::nmod::prime::{mulmod, primitive_root_of_unity};
use crate::nmod::reduce::Modulus;
pub use crate::nmod::tree::Tree;
use crate::runtime::{self, Backend};
use crate::Result;
use rayon::prelude::*;

/// f·g mod p (flen + glen − 1 coefficients; empty when f or g is). Entries must be < p.
pub fn poly_mul(f: &[u64], g: &[u64], p: u64) -> Result<Vec<u64>> {
    let hlen = if f.is_empty() || g.is_empty() { 0 } else { f.len() + g.len() - 1 };
    let mut h = crate::nmod::scratch::fresh(hlen)?;
    poly_mul_into(f, g, p, &mut h)?;
    Ok(h)
}

/// h = f·g mod p into the caller's h (flen + glen − 1 entries; nothing when f or g is empty).
/// Entries of f, g must be < p. h is written only at the end, after every step that can fail.
/// Runs on the GPU when [`gpu_wanted`] under the current backend.
pub fn poly_mul_into(f: &[u64], g: &[u64], p: u64, h: &mut [u64]) -> Result<()> {
    poly_mul_into_on(f, g, p, h, runtime::backend())
}

/// [`poly_mul_into`] under the given backend.
fn poly_mul_into_on(f: &[u64], g: &[u64], p: u64, h: &mut [u64], backend: Backend) -> Result<()> {
    check_args(f, g, p)?;
    if f.is_empty() || g.is_empty() {
        return Ok(());
    }
    assert_eq!(h.len(), f.len() + g.len() - 1, "poly_mul_into: h must hold flen + glen − 1 entries");
    if let Some(bits) = gpu_bits(f.len(), g.len(), p, backend)? {
        return gpu_into(f, g, p, bits, h);
    }
    poly_mul_into_checked(f, g, p, h)
}

/// Whether f·g mod p (f, g of lengths flen, glen) runs on the GPU under `backend`: never with `Cpu`
/// or an empty factor, always with `Gpu` (`NoCudaDevice` when no GPU is usable), with `Auto` from
/// [`crate::tuning::NMOD_POLY_MUL_GPU_MIN_WORDS`] output words when a GPU is usable.
pub fn gpu_wanted(flen: usize, glen: usize, p: u64, backend: Backend) -> Result<bool> {
    Ok(gpu_bits(flen, glen, p, backend)?.is_some())
}

/// [`gpu_wanted`], with the bound handed to the GPU product when it is: `product_bits` of
/// entries of bits(p − 1) bits, ≤ 126 + ⌈log2 min(flen, glen)⌉.
fn gpu_bits(flen: usize, glen: usize, p: u64, backend: Backend) -> Result<Option<u64>> {
    if backend == Backend::Cpu || flen == 0 || glen == 0 || p < 3 {
        return Ok(None);
    }
    let b = 64 - (p - 1).leading_zeros() as u64;
    let bits = product_bits(b, b, flen, glen);
    if !crate::gpu::zpoly_mul::supports(bits) {
        return Ok(None);
    }
    let words = (flen + glen - 1) as u64 * limbs_for_bits(bits) as u64;
    Ok((route_on(backend, Op::NmodPolyMul, words)? == Where::Gpu).then_some(bits))
}

/// h = f·g mod p by the GPU product over Z (f, g non-empty, entries < p, `bits` from [`gpu_bits`]),
/// then h_k = (Σ_j limb_j·2^(64j)) mod p per coefficient on the host, in parallel.
fn gpu_into(f: &[u64], g: &[u64], p: u64, bits: u64, h: &mut [u64]) -> Result<()> {
    let fv = limb_views(f)?;
    let gv = if std::ptr::eq(f, g) { None } else { Some(limb_views(g)?) };
    let prod = crate::gpu::zpoly_mul::mul_bits(&fv, gv.as_deref().unwrap_or(&fv), bits)?;
    let m = Modulus::new(p);
    let w = m.limb_weights(prod.stride());
    h.par_iter_mut().enumerate().with_min_len(1 << 12).for_each(|(k, hk)| {
        let c = prod.get(k);
        debug_assert!(!c.neg, "a product of non-negative polynomials");
        *hk = m.reduce_limbs(c.mag, &w);
    });
    Ok(())
}

/// Forward cyclic NTT of x in place (x_i ← Σ_j x_j·w^(ij), natural order; n = x.len() a power of two,
/// w of exact order n mod p, every x_j < p, else `InvalidArgument` and x untouched), on the CPU
/// ([`crate::nmod::ntt`]) or the GPU ([`crate::gpu::ntt`]) by [`route`]; both are exact, so the
/// words are the same.
pub fn ntt(x: &mut [u64], w: u64, p: u64) -> Result<()> {
    rows(x, x.len(), w, p, false)
}

/// The inverse of [`ntt`] with the same w: x ← (n^(−1)·Σ_j x_j·w^(−ij))_i.
pub fn intt(x: &mut [u64], w: u64, p: u64) -> Result<()> {
    rows(x, x.len(), w, p, true)
}

/// [`ntt`] of each of the x.len()/n rows of x (row-major): rows in parallel, or one batch on the GPU.
pub fn ntt_many(x: &mut [u64], n: usize, w: u64, p: u64) -> Result<()> {
    rows(x, n, w, p, false)
}

/// The routed transform of every row of length n of x.
fn rows(x: &mut [u64], n: usize, w: u64, p: u64, inverse: bool) -> Result<()> {
    use crate::nmod::ntt::check_rows;
    check_rows(x, n, w, p)?;
    if route(Op::NmodNtt, x.len() as u64)? == Where::Gpu {
        // The engine checks every entry as it packs them, before it writes x.
        return crate::gpu::ntt::ntt_many(x, x.len() / n, n, w, p, inverse);
    }
    crate::nmod::ntt::rows(x, n, w, p, inverse)
}

/// f·g mod p (f, g non-empty, entries < p) as CUMODP's `fftmul_uni`: by cyclic NTTs of length
/// N = 2^⌈log2(len f + len g − 1)⌉ when [`route`] puts transforms of 2N words on the GPU and N divides
/// p − 1 (both forward transforms as one batch of two rows, the pointwise product on the host, the
/// inverse), else [`poly_mul`].
pub fn poly_mul_cumodp(f: &[u64], g: &[u64], p: u64) -> Result<Vec<u64>> {
    let len = f.len() + g.len() - 1;
    let n = len.next_power_of_two();
    if route(Op::NmodNtt, 2 * n as u64)? == Where::Cpu || !(p - 1).is_multiple_of(n as u64) {
        return poly_mul(f, g, p);
    }
    let w = primitive_root_of_unity(n as u64, p)?;
    let mut rows = try_zeroed::<u64>(2 * n)?;
    rows[..f.len()].copy_from_slice(f);
    rows[n..n + g.len()].copy_from_slice(g);
    ntt_many(&mut rows, n, w, p)?;
    let (a, b) = rows.split_at_mut(n);
    a.par_iter_mut().zip(b.par_iter()).for_each(|(x, &y)| *x = mulmod(*x, y, p));
    intt(a, w, p)?;
    rows.truncate(len);
    Ok(rows)
}

/// (q, r) with a = q·b + r, deg r < deg b, in Z/pZ\[x\] ([`crate::nmod::poly_divrem`]).
pub fn poly_divrem(a: &[u64], b: &[u64], p: u64) -> Result<(Vec<u64>, Vec<u64>)> {
    crate::nmod::poly_divrem::poly_divrem(a, b, p)
}

/// 1/f mod x^n in Z/pZ\[\[x\]\] ([`crate::nmod::inv_series`]).
pub fn inv_series(f: &[u64], n: usize, p: u64) -> Result<Vec<u64>> {
    crate::nmod::inv_series::inv_series(f, n, p)
}

/// The subproduct tree of n distinct points mod p ([`crate::nmod::tree`]).
pub fn tree_new(points: &[u64], p: u64) -> Result<Tree> {
    Tree::new(points, p)
}

/// Whether a tree call of n points mod p runs on the device under `backend`: only for trees
/// [`crate::gpu::tree::supports`] (other primes run on the CPU under every backend), then by
/// [`route_on`] with n points ([`Op::NmodTree`]).
pub fn tree_on_gpu(n: usize, p: u64, backend: Backend) -> Result<bool> {
    if backend == Backend::Cpu || !crate::gpu::tree::supports(n, p) {
        return Ok(false);
    }
    Ok(route_on(backend, Op::NmodTree, n as u64)? == Where::Gpu)
}

/// f(u_i) at the tree's points: on the device ([`crate::gpu::tree`]) when [`tree_on_gpu`], else
/// [`crate::nmod::evaluate`]; the same words.
pub fn evaluate(tree: &Tree, f: &[u64]) -> Result<Vec<u64>> {
    evaluate_on(tree, f, runtime::backend())
}

/// [`evaluate`] under the given backend.
fn evaluate_on(tree: &Tree, f: &[u64], backend: Backend) -> Result<Vec<u64>> {
    if tree_on_gpu(tree.len(), tree.p(), backend)? {
        return crate::gpu::tree::evaluate(tree, f);
    }
    crate::nmod::evaluate::evaluate(tree, f)
}

/// The f of degree < n with f(u_i) = values\[i\]: on the device when [`tree_on_gpu`], else
/// [`crate::nmod::interpolate`]; the same words.
pub fn interpolate(tree: &Tree, values: &[u64]) -> Result<Vec<u64>> {
    interpolate_on(tree, values, runtime::backend())
}

/// [`interpolate`] under the given backend.
fn interpolate_on(tree: &Tree, values: &[u64], backend: Backend) -> Result<Vec<u64>> {
    if tree_on_gpu(tree.len(), tree.p(), backend)? {
        return crate::gpu::tree::interpolate(tree, values);
    }
    crate::nmod::interpolate::interpolate(tree, values)
}

/// f(u_i) at n points that may repeat, without a kept tree: through a tree built for the call on
/// the device when [`tree_on_gpu`] (repeated points need no distinct ones to evaluate), else
/// [`crate::nmod::evaluate::evaluate_vec`].
pub fn evaluate_vec(f: &[u64], points: &[u64], p: u64) -> Result<Vec<u64>> {
    if !points.is_empty() && tree_on_gpu(points.len(), p, runtime::backend())? {
        crate::nmod::tree::check_points(points, p)?;
        crate::nmod::prime::check_reduced(f, p, "f")?;
        let tree = Tree::build(points, p, None)?;
        return crate::gpu::tree::evaluate(&tree, f);
    }
    crate::nmod::evaluate::evaluate_vec(f, points, p)
}

/// The f of degree < n through (u_i, v_i), n distinct points, without a kept tree (the tree's
/// calls routed as [`interpolate`]).
pub fn interpolate_vec(points: &[u64], values: &[u64], p: u64) -> Result<Vec<u64>> {
    if !points.is_empty() && tree_on_gpu(points.len(), p, runtime::backend())? {
        if points.len() != values.len() {
            return crate::invalid!("{} points but {} values", points.len(), values.len());
        }
        crate::nmod::tree::check_points(points, p)?;
        crate::nmod::prime::check_reduced(values, p, "values")?;
        let tree = Tree::new(points, p)?;
        return crate::gpu::tree::interpolate(&tree, values);
    }
    crate::nmod::interpolate::interpolate_vec(points, values, p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nmod::poly_mul::tests::{naive, rand_vec};
    use crate::nmod::prime::fourier_primes;

    /// The routing needs no GPU to say no: the CPU backend never routes, AUTO not below the size
    /// rule, and an empty factor never.
    #[test]
    fn gpu_routing_on_the_cpu_side() {
        let big = (1usize << 17, 1usize << 17);
        for p in [3u64, fourier_primes(50, 30, 1)[0], (1 << 63) - 25] {
            assert!(!gpu_wanted(big.0, big.1, p, Backend::Cpu).unwrap(), "p = {p}");
            assert!(!gpu_wanted(1, 2, p, Backend::Cpu).unwrap());
            assert!(!gpu_wanted(100, 100, p, Backend::Auto).unwrap(), "small under AUTO, p = {p}");
            assert!(!gpu_wanted(0, 5, p, Backend::Gpu).unwrap());
        }
        // Under the CPU backend the product is the CPU one.
        let p = (1u64 << 63) - 25;
        let f = rand_vec(300, p, 9);
        let mut h = vec![0; 599];
        poly_mul_into_on(&f, &f, p, &mut h, Backend::Cpu).unwrap();
        assert_eq!(h, naive(&f, &f, p));
    }

    /// The GPU route gives the CPU path's words exactly (the routing decision is passed explicitly,
    /// so these tests do not touch the process-wide backend).
    #[cfg(feature = "gpu-tests")]
    mod gpu {
        use super::*;

        fn both(f: &[u64], g: &[u64], p: u64, what: &str) {
            let hlen = f.len() + g.len() - 1;
            let (mut cpu, mut gpu) = (vec![u64::MAX; hlen], vec![u64::MAX - 1; hlen]);
            poly_mul_into_on(f, g, p, &mut cpu, Backend::Cpu).unwrap();
            poly_mul_into_on(f, g, p, &mut gpu, Backend::Gpu).unwrap_or_else(|e| panic!("{what}: {e}"));
            if let Some(k) = (0..hlen).find(|&k| cpu[k] != gpu[k]) {
                panic!("{what}: coefficient {k}: GPU {} against CPU {}", gpu[k], cpu[k]);
            }
        }

        /// p = 2^63 − 25 (CRT on the CPU), a 50-bit Fourier prime (one NTT on the CPU), p = 3;
        /// lengths 1, 2, unbalanced 5 × 70000 both ways, 2^17 × 2^17; random entries, all 0,
        /// all p − 1 (the bound case), squares through one slice.
        #[test]
        fn gpu_matches_the_cpu_path() {
            let lens = [(1usize, 1usize), (1, 2), (2, 1), (2, 2), (5, 70_000), (70_000, 5), (1 << 17, 1 << 17)];
            for p in [(1u64 << 63) - 25, fourier_primes(50, 30, 1)[0], 3] {
                // The bound handed to the GPU: 2·bits(p − 1) + 17 (143 bits, 3 limbs, for 2^63 − 25).
                let b = 64 - (p - 1).leading_zeros() as u64;
                assert_eq!(gpu_bits(1 << 17, 1 << 17, p, Backend::Gpu).unwrap(), Some(2 * b + 17));
                for &(fl, gl) in &lens {
                    for kind in 0..3 {
                        let make = |n: usize, seed: u64| match kind {
                            0 => rand_vec(n, p, seed),
                            1 => vec![0; n],
                            _ => vec![p - 1; n],
                        };
                        let (f, g) = (make(fl, fl as u64 + p), make(gl, 3 * gl as u64 + 1));
                        both(&f, &g, p, &format!("p = {p}, {fl} x {gl}, kind {kind}"));
                        if fl == gl {
                            both(&f, &f, p, &format!("square, p = {p}, {fl}, kind {kind}"));
                        }
                    }
                }
                // Mixed 0 / p − 1 entries.
                let f: Vec<u64> = (0..5000).map(|i| if i % 3 == 0 { 0 } else { p - 1 }).collect();
                let g: Vec<u64> = (0..7000).map(|i| if i % 5 == 2 { 0 } else { p - 1 }).collect();
                both(&f, &g, p, &format!("mixed 0 / p − 1, p = {p}"));
            }
            // AUTO above the size rule takes the GPU when one is usable.
            assert!(gpu_wanted(1 << 17, 1 << 17, (1 << 63) - 25, Backend::Auto).unwrap());
        }

        /// The routed tree calls under the GPU backend give the CPU backend's words (62- and
        /// 31-bit Fourier primes, n across the plain/NTT levels), and AUTO above the crossover
        /// takes the device.
        #[test]
        fn tree_calls_on_the_gpu_match_the_cpu() {
            for p in [fourier_primes(62, 30, 1)[0], fourier_primes(31, 24, 1)[0]] {
                for n in [1usize, 2, 3, 255, 256, 257, 4097, 70_001] {
                    let pts = crate::nmod::evaluate::tests::points(n, p, n as u64);
                    let tree = Tree::new(&pts, p).unwrap();
                    let f = rand_vec(n, p, 3 * n as u64);
                    let cpu = evaluate_on(&tree, &f, Backend::Cpu).unwrap();
                    assert!(tree_on_gpu(n, p, Backend::Gpu).unwrap(), "p = {p}, n = {n}");
                    assert!(evaluate_on(&tree, &f, Backend::Gpu).unwrap() == cpu, "evaluate, p = {p}, n = {n}");
                    assert!(interpolate_on(&tree, &cpu, Backend::Gpu).unwrap() == f, "interpolate, p = {p}, n = {n}");
                }
            }
            let p = fourier_primes(62, 30, 1)[0];
            assert!(tree_on_gpu(crate::tuning::NMOD_TREE_GPU_MIN_N as usize, p, Backend::Auto).unwrap());
        }
    }

    /// Tree calls: the CPU backend never routes; primes the device does not serve (2^(L+1) ∤ p − 1)
    /// stay on the CPU under every backend, so they need no device even under `Gpu`.
    #[test]
    fn tree_routing_on_the_cpu_side() {
        let f62 = fourier_primes(62, 30, 1)[0];
        assert!(!tree_on_gpu(1 << 20, f62, Backend::Cpu).unwrap());
        assert!(!tree_on_gpu(100, f62, Backend::Auto).unwrap(), "small under AUTO");
        assert!(!tree_on_gpu(1 << 20, (1 << 63) - 25, Backend::Gpu).unwrap(), "not a Fourier prime");
        assert!(!tree_on_gpu(5, 11, Backend::Gpu).unwrap(), "2^4 does not divide 10");
        let tree = Tree::new(&[1, 2, 3, 4, 5], 11).unwrap();
        let v = evaluate_on(&tree, &[1, 1, 1], Backend::Gpu).unwrap();
        assert_eq!(v, vec![3, 7, 2, 10, 9]);
        assert_eq!(interpolate_on(&tree, &v, Backend::Gpu).unwrap(), vec![1, 1, 1, 0, 0]);
    }

    #[test]
    fn bad_inputs_are_rejected() {
        assert!(poly_mul(&[1], &[1], 15).is_err());
        assert!(poly_mul(&[1], &[1], 2).is_err());
        assert!(poly_mul(&[1], &[1], (1 << 63) + 29).is_err());
        assert!(poly_mul(&[7], &[1], 7).is_err());
        assert!(poly_mul(&[1], &[1, 2, 9], 7).is_err());
    }
}
