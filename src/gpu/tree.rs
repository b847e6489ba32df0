//! Multipoint evaluation and interpolation mod p on the device, over a subproduct tree
//! ([`crate::nmod::tree::Tree`], built on the host) kept resident on the device: the same
//! algorithms as [`crate::nmod::evaluate`] (the transposed remainder tree, [BLS] §3) and
//! [`crate::nmod::interpolate`] (Lagrange's linear combination, [FM] Algorithms 17–18), level by
//! level, every node of a level in one launch (`kernels/tree.cu`).
//!
//! **Supported:** primes with 2^(L+1) | p − 1, L = ⌈log2 n⌉ (the transforms are cyclic NTTs of
//! [`super::ntt`] of size up to 2^(L+1)); other primes stay on the CPU ([`supports`]). All words
//! are 64-bit (31-bit primes too).
//!
//! **Device copy** ([`DeviceTree`]): made at the first GPU call through a tree and kept with it
//! (freed with it). The subproduct tree is built again on the device from the leaves x − u_j, level
//! by level ([FM] Algorithm 9): levels 1 … H_GPU (log2 of [`GPU_NMOD_TREE_PLAIN_MAX_LEN`]) by
//! schoolbook, one thread per coefficient; above, the spectra at size 2^i of all nodes of level
//! i − 1 by one batched NTT, the products of sibling pairs, one batched inverse NTT and the monic
//! terms (the leading 1 dropped: AB = x^(dA+dB) + x^(dA)·b + x^(dB)·a + a·b). Its root is checked
//! against the host's. Kept: the coefficients of the levels below H_GPU (n words a level), the
//! spectra at size 2^(i+1) of the levels H_GPU ≤ i < L (2n words a level, in Montgomery form
//! s·2^64 mod p so that a pointwise product is one `mont_mul`) and the spectrum of 1/rev_n(m) at
//! size 2^(L+1) (uploaded, n words).
//!
//! **Evaluation**, levels L … H_GPU + 1: one batched forward NTT of size 2^i of all nodes'
//! rg_P, the 2 products per node with the siblings' spectra, one batched inverse NTT of twice as
//! many rows, one add; levels H_GPU … 1 by schoolbook (one thread per output, dA or dB products
//! each). The start rev(f mod m)·(1/rev_n(m)) mod x^n is one product of size 2^(L+1); f mod m for
//! flen > n runs on the host ([`crate::nmod::poly_divrem`]).
//! **Interpolation**: the weights 1/m′(u_i) by a GPU evaluation of m′ (kept with the tree, shared
//! with the CPU path), c_i = v_i/m′(u_i) on the host, then levels 1 … H_GPU by schoolbook and
//! H_GPU + 1 … L by one batched forward NTT of the 2·⌈n/2^i⌉ children, the products
//! a·I_B + b·I_A with the kept spectra, one batched inverse NTT and one add.
//! Every step is exact, so the values are the CPU path's, word for word.
use super::device::{self, Device};
use super::kernels::{Kernel, Spec};
use super::ntt::{cached_plan, Plan};
use super::{driver_err, shield};
use crate::nmod::prime::{check_reduced, mulmod, neg_inverse, primitive_root_of_unity};
use crate::nmod::tree::{depth, Tree};
use crate::tuning::GPU_NMOD_TREE_PLAIN_MAX_LEN;
use crate::{Error, Result};
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rayon::prelude::*;
use std::sync::Arc;
use std::time::Instant;

/// Threads per block (`NT` in the kernel).
const NT: u32 = 256;
/// H_GPU: levels up to it run by schoolbook.
const H: usize = GPU_NMOD_TREE_PLAIN_MAX_LEN.trailing_zeros() as usize;

/// `kernels/tree.cu`: spreading, pointwise and combining steps of the tree on the device.
pub static KERNEL: Kernel = Kernel { file: "tree.cu", source: include_str!("../../kernels/tree.cu"), int128: false, specs };

/// The specialisation of `kernels/tree.cu`.
pub fn specs() -> Vec<Spec> {
    vec![spec()]
}

fn spec() -> Spec {
    Spec { source: "tree.cu", defines: vec![("NT", NT as i64)] }
}

/// Whether the device serves a tree of n ≥ 1 points mod the odd prime p: 2^(L+1) | p − 1 (the
/// start's product has size 2^(L+1)).
pub fn supports(n: usize, p: u64) -> bool {
    let l = depth(n.max(1)) as u32;
    n >= 1 && p > 2 && p & 1 == 1 && (p - 1).trailing_zeros() > l
}

/// The kernels of `kernels/tree.cu`.
struct Funcs {
    spread: CudaFunction,
    mont: CudaFunction,
    mul: CudaFunction,
    eval_mul: CudaFunction,
    eval_add: CudaFunction,
    eval_plain: CudaFunction,
    interp_mul: CudaFunction,
    interp_add: CudaFunction,
    interp_plain: CudaFunction,
    tree_mul: CudaFunction,
    tree_add: CudaFunction,
    tree_plain: CudaFunction,
}

/// The device copy of a [`Tree`] (see the module doc), on one device.
pub struct DeviceTree {
    ordinal: usize,
    n: usize,
    l: usize,
    h: usize,
    p: u64,
    /// −p^(−1) mod 2^64 and 2^128 mod p (Montgomery).
    pinv: u64,
    r2: u64,
    /// levels\[i\], i < min(H, L): node coefficients (n words).
    levels: Vec<CudaSlice<u64>>,
    /// spectra\[i − h\], h ≤ i < L: level i at size 2^(i+1), node j at j·2^(i+1), Montgomery form.
    spectra: Vec<CudaSlice<u64>>,
    /// 1/rev_n(m) at size 2^(L+1), Montgomery form.
    root: CudaSlice<u64>,
    funcs: Funcs,
}

/// The time of one level of a profiled call: all its launches, and its NTTs alone (ms).
#[derive(Clone, Copy, Debug)]
pub struct LevelTime {
    pub level: usize,
    pub total_ms: f64,
    pub ntt_ms: f64,
}

/// Synchronising timer for [`evaluate_profiled`]: no-op when off.
struct Prof<'a> {
    out: Option<&'a mut Vec<LevelTime>>,
    t: Instant,
    ntt: f64,
}

impl Prof<'_> {
    fn sync(&self, s: &Arc<CudaStream>) -> Result<()> {
        if self.out.is_some() {
            s.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e))?;
        }
        Ok(())
    }
    fn start(&mut self, s: &Arc<CudaStream>) -> Result<()> {
        self.sync(s)?;
        self.t = Instant::now();
        self.ntt = 0.0;
        Ok(())
    }
    /// Runs a transform step, timing it when profiling.
    fn ntt<T>(&mut self, s: &Arc<CudaStream>, f: impl FnOnce() -> Result<T>) -> Result<T> {
        self.sync(s)?;
        let t = Instant::now();
        let r = f()?;
        self.sync(s)?;
        self.ntt += t.elapsed().as_secs_f64() * 1e3;
        Ok(r)
    }
    fn level(&mut self, s: &Arc<CudaStream>, level: usize) -> Result<()> {
        self.sync(s)?;
        let total_ms = self.t.elapsed().as_secs_f64() * 1e3;
        let ntt_ms = self.ntt;
        if let Some(out) = self.out.as_deref_mut() {
            out.push(LevelTime { level, total_ms, ntt_ms });
        }
        self.t = Instant::now();
        self.ntt = 0.0;
        Ok(())
    }
}

fn grid(m: usize) -> Result<LaunchConfig> {
    let x = m.div_ceil(NT as usize).max(1);
    if x > i32::MAX as usize {
        return Err(Error::SizeTooLarge(format!("a launch of {x} blocks")));
    }
    Ok(LaunchConfig { grid_dim: (x as u32, 1, 1), block_dim: (NT, 1, 1), shared_mem_bytes: 0 })
}

fn alloc(stream: &Arc<CudaStream>, len: usize) -> Result<CudaSlice<u64>> {
    // SAFETY: words have no invalid bit patterns; every word read is written first.
    unsafe { stream.alloc::<u64>(len.max(1)) }.map_err(|e| driver_err("cuMemAlloc", e))
}

/// The forward or inverse plan of size 2^logn.
fn plan(dev: &Device, stream: &Arc<CudaStream>, logn: usize, p: u64, inverse: bool) -> Result<Arc<Plan<u64>>> {
    let n = 1usize << logn;
    cached_plan::<u64>(dev, stream, n, primitive_root_of_unity(n as u64, p)?, p, inverse)
}

/// Runs `plan` on `count` rows of `a` (scratch `b`), the result left in `a`.
fn transform(plan: &Plan<u64>, stream: &Arc<CudaStream>, count: usize, a: &mut CudaSlice<u64>, b: &mut CudaSlice<u64>) -> Result<()> {
    if plan.run(stream, count, a, b)? {
        std::mem::swap(a, b);
    }
    Ok(())
}

impl DeviceTree {
    /// Uploads the plain levels and computes the spectra of `tree` on the current device.
    pub fn new(tree: &Tree) -> Result<DeviceTree> {
        let dev = device::current()?;
        shield("GPU tree", || {
            let stream = dev.stream()?;
            let t = DeviceTree::build(&dev, &stream, tree)?;
            stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e))?;
            Ok(t)
        })
    }

    fn build(dev: &Device, stream: &Arc<CudaStream>, tree: &Tree) -> Result<DeviceTree> {
        let (n, p) = (tree.len(), tree.p());
        if !supports(n, p) {
            return crate::invalid!("the GPU tree needs 2^(L+1) | p - 1 (n = {n}, p = {p})");
        }
        let l = tree.depth() - 1;
        let h = H.min(l);
        let module = super::compile::module(dev, &spec())?;
        let f = |name: &str| module.load_function(name).map_err(|e| driver_err("cuModuleGetFunction", e));
        let funcs = Funcs {
            spread: f("tr_spread")?,
            mont: f("tr_mont")?,
            mul: f("tr_mul")?,
            eval_mul: f("tr_eval_mul")?,
            eval_add: f("tr_eval_add")?,
            eval_plain: f("tr_eval_plain")?,
            interp_mul: f("tr_interp_mul")?,
            interp_add: f("tr_interp_add")?,
            interp_plain: f("tr_interp_plain")?,
            tree_mul: f("tr_tree_mul")?,
            tree_add: f("tr_tree_add")?,
            tree_plain: f("tr_tree_plain")?,
        };
        let r = ((u64::MAX % p) + 1) % p;
        let mut t = DeviceTree {
            ordinal: dev.ordinal,
            n,
            l,
            h,
            p,
            pinv: neg_inverse(p),
            r2: mulmod(r, r, p),
            levels: Vec::new(),
            spectra: Vec::new(),
            root: alloc(stream, 1)?,
            funcs,
        };
        let up = |x: &[u64]| stream.clone_htod(x).map_err(|e| driver_err("cuMemcpyHtoD", e));
        // Level by level from the leaves x − u_j: schoolbook up to h, above by the spectra of the
        // level below (kept) and one batched inverse NTT of all products of the level.
        let mut scratch = alloc(stream, 2 << l)?;
        let mut z = alloc(stream, 2 << l)?;
        let mut cur = up(&tree.levels[0])?;
        for i in 1..=l {
            let (w, c, nspec) = (1usize << i, n.div_ceil(1 << i), n.div_ceil(1 << (i - 1)));
            let mut next = alloc(stream, n)?;
            let (nu, lw) = (n as u64, i as u64);
            if i <= h {
                let mut b = stream.launch_builder(&t.funcs.tree_plain);
                b.arg(&cur).arg(&nu).arg(&lw).arg(&mut next).arg(&t.p).arg(&t.pinv).arg(&t.r2);
                // SAFETY: matches `tr_tree_plain`; cur and next hold n words.
                unsafe { b.launch(grid(n)?) }.map_err(|e| driver_err("tr_tree_plain launch", e))?;
            } else {
                let spec = t.spectrum(dev, stream, &cur, n, w / 2, i, nspec, false, &mut scratch)?;
                let (tu, ns) = ((c * w) as u64, nspec as u64);
                {
                    let mut b = stream.launch_builder(&t.funcs.tree_mul);
                    b.arg(&spec).arg(&ns).arg(&lw).arg(&mut z).arg(&tu).arg(&t.p).arg(&t.pinv);
                    // SAFETY: matches `tr_tree_mul`; spec holds nspec rows of w, z ≥ c·w words.
                    unsafe { b.launch(grid(c * w)?) }.map_err(|e| driver_err("tr_tree_mul launch", e))?;
                }
                transform(&*plan(dev, stream, i, p, true)?, stream, c, &mut z, &mut scratch)?;
                let mut b = stream.launch_builder(&t.funcs.tree_add);
                b.arg(&cur).arg(&z).arg(&nu).arg(&lw).arg(&mut next).arg(&t.p).arg(&t.pinv);
                // SAFETY: matches `tr_tree_add`; cur and next hold n words, z the c rows of w.
                unsafe { b.launch(grid(n)?) }.map_err(|e| driver_err("tr_tree_add launch", e))?;
                t.spectra.push(spec);
            }
            let done = std::mem::replace(&mut cur, next);
            if i - 1 < h {
                t.levels.push(done);
            }
        }
        // The root against the host's: one check of every level's products.
        let mut root = vec![0u64; n];
        stream.memcpy_dtoh(&cur, &mut root[..]).map_err(|e| driver_err("cuMemcpyDtoH", e))?;
        stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e))?;
        if root != tree.root() {
            return Err(Error::Internal("the device's subproduct tree differs from the host's".into()));
        }
        let src = up(&tree.root_inv)?;
        t.root = t.spectrum(dev, stream, &src, n, n, l + 1, 1, false, &mut scratch)?;
        Ok(t)
    }

    /// The Montgomery-form forward transforms of size 2^logrow of `rows` rows of `seg` words of
    /// src (n words; reversed when `rev`).
    #[allow(clippy::too_many_arguments)]
    fn spectrum(
        &self,
        dev: &Device,
        stream: &Arc<CudaStream>,
        src: &CudaSlice<u64>,
        n: usize,
        seg: usize,
        logrow: usize,
        rows: usize,
        rev: bool,
        scratch: &mut CudaSlice<u64>,
    ) -> Result<CudaSlice<u64>> {
        let total = rows << logrow;
        let mut out = alloc(stream, total.max(scratch.len()))?;
        self.spread(stream, src, n, seg, logrow, &mut out, total, rev)?;
        let fwd = plan(dev, stream, logrow, self.p, false)?;
        transform(&fwd, stream, rows, &mut out, scratch)?;
        self.mont(stream, &mut out, total)?;
        Ok(out)
    }

    #[allow(clippy::too_many_arguments)]
    fn spread(
        &self,
        stream: &Arc<CudaStream>,
        src: &CudaSlice<u64>,
        n: usize,
        seg: usize,
        logrow: usize,
        dst: &mut CudaSlice<u64>,
        total: usize,
        rev: bool,
    ) -> Result<()> {
        let (nu, su, lu, tu, r) = (n as u64, seg as u64, logrow as u64, total as u64, i32::from(rev));
        let mut b = stream.launch_builder(&self.funcs.spread);
        b.arg(src).arg(&nu).arg(&su).arg(&lu).arg(dst).arg(&tu).arg(&r);
        // SAFETY: matches `tr_spread`; src holds n words, dst ≥ total.
        unsafe { b.launch(grid(total)?) }.map_err(|e| driver_err("tr_spread launch", e))?;
        Ok(())
    }

    fn mont(&self, stream: &Arc<CudaStream>, x: &mut CudaSlice<u64>, total: usize) -> Result<()> {
        let tu = total as u64;
        let mut b = stream.launch_builder(&self.funcs.mont);
        b.arg(x).arg(&tu).arg(&self.p).arg(&self.pinv).arg(&self.r2);
        // SAFETY: matches `tr_mont`; x holds ≥ total words.
        unsafe { b.launch(grid(total)?) }.map_err(|e| driver_err("tr_mont launch", e))?;
        Ok(())
    }

    /// One node step of a level (`tr_eval_add`, `tr_interp_add`): out from g and z.
    fn add(
        &self,
        stream: &Arc<CudaStream>,
        f: &CudaFunction,
        g: &CudaSlice<u64>,
        z: &CudaSlice<u64>,
        i: usize,
        out: &mut CudaSlice<u64>,
    ) -> Result<()> {
        let (nu, lw) = (self.n as u64, i as u64);
        let mut b = stream.launch_builder(f);
        b.arg(g).arg(z).arg(&nu).arg(&lw).arg(out).arg(&self.p);
        // SAFETY: matches both kernels; g and out hold ≥ n words, z holds the level's rows.
        unsafe { b.launch(grid(self.n)?) }.map_err(|e| driver_err("tree add launch", e))?;
        Ok(())
    }

    /// One schoolbook level (`tr_eval_plain`, `tr_interp_plain`).
    fn plain(&self, stream: &Arc<CudaStream>, f: &CudaFunction, g: &CudaSlice<u64>, i: usize, out: &mut CudaSlice<u64>) -> Result<()> {
        let (nu, lw) = (self.n as u64, i as u64);
        let mut b = stream.launch_builder(f);
        b.arg(g).arg(&self.levels[i - 1]).arg(&nu).arg(&lw).arg(out).arg(&self.p).arg(&self.pinv).arg(&self.r2);
        // SAFETY: matches both kernels; g, out and the level hold n words.
        unsafe { b.launch(grid(self.n)?) }.map_err(|e| driver_err("tree plain launch", e))?;
        Ok(())
    }

    /// Pointwise products of a level (`tr_eval_mul`, `tr_interp_mul`): total words of out.
    #[allow(clippy::too_many_arguments)]
    fn products(
        &self,
        stream: &Arc<CudaStream>,
        f: &CudaFunction,
        s: &CudaSlice<u64>,
        i: usize,
        out: &mut CudaSlice<u64>,
        total: usize,
    ) -> Result<()> {
        let spec = &self.spectra[i - 1 - self.h];
        let nspec = self.n.div_ceil(1 << (i - 1)) as u64;
        let (lw, tu) = (i as u64, total as u64);
        let mut b = stream.launch_builder(f);
        b.arg(s).arg(spec).arg(&nspec).arg(&lw).arg(out).arg(&tu).arg(&self.p).arg(&self.pinv);
        // SAFETY: matches both kernels; s holds the level's forward rows, spec nspec rows of 2^i,
        // out ≥ total words.
        unsafe { b.launch(grid(total)?) }.map_err(|e| driver_err("tree products launch", e))?;
        Ok(())
    }

    /// rg_root (n words, in a buffer of 2^L) from r = f mod m (n words on the device).
    fn start(&self, dev: &Device, stream: &Arc<CudaStream>, r: &CudaSlice<u64>, bufs: &mut Bufs) -> Result<()> {
        let (l, n) = (self.l, self.n);
        let big = 2usize << l;
        self.spread(stream, r, n, n, l + 1, &mut bufs.x, big, true)?;
        transform(&*plan(dev, stream, l + 1, self.p, false)?, stream, 1, &mut bufs.x, &mut bufs.y)?;
        {
            let tu = big as u64;
            let mut b = stream.launch_builder(&self.funcs.mul);
            b.arg(&mut bufs.x).arg(&self.root).arg(&tu).arg(&self.p).arg(&self.pinv);
            // SAFETY: matches `tr_mul`; both hold 2^(L+1) words.
            unsafe { b.launch(grid(big)?) }.map_err(|e| driver_err("tr_mul launch", e))?;
        }
        transform(&*plan(dev, stream, l + 1, self.p, true)?, stream, 1, &mut bufs.x, &mut bufs.y)?;
        self.spread(stream, &bufs.x, n, n, l, &mut bufs.g, 1 << l, true)
    }

    /// values from r = f mod m (n words), levels L … 1.
    fn evaluate(&self, dev: &Device, stream: &Arc<CudaStream>, r: &[u64], prof: &mut Prof) -> Result<Vec<u64>> {
        let (n, l, h) = (self.n, self.l, self.h);
        let mut bufs = Bufs::new(stream, l)?;
        prof.start(stream)?;
        let dr = stream.clone_htod(r).map_err(|e| driver_err("cuMemcpyHtoD", e))?;
        self.start(dev, stream, &dr, &mut bufs)?;
        prof.level(stream, l + 1)?;
        for i in (h + 1..=l).rev() {
            let (w, c) = (1usize << i, n.div_ceil(1 << i));
            self.spread(stream, &bufs.g, n, w, i, &mut bufs.x, c * w, false)?;
            let (fwd, inv) = (plan(dev, stream, i, self.p, false)?, plan(dev, stream, i, self.p, true)?);
            prof.ntt(stream, || transform(&fwd, stream, c, &mut bufs.x, &mut bufs.y))?;
            self.products(stream, &self.funcs.eval_mul, &bufs.x, i, &mut bufs.z, 2 * c * w)?;
            prof.ntt(stream, || transform(&inv, stream, 2 * c, &mut bufs.z, &mut bufs.u))?;
            self.add(stream, &self.funcs.eval_add, &bufs.g, &bufs.z, i, &mut bufs.g2)?;
            std::mem::swap(&mut bufs.g, &mut bufs.g2);
            prof.level(stream, i)?;
        }
        for i in (1..=h).rev() {
            self.plain(stream, &self.funcs.eval_plain, &bufs.g, i, &mut bufs.g2)?;
            std::mem::swap(&mut bufs.g, &mut bufs.g2);
            prof.level(stream, i)?;
        }
        let mut out = vec![0u64; n];
        stream.memcpy_dtoh(&bufs.g.slice(0..n), &mut out[..]).map_err(|e| driver_err("cuMemcpyDtoH", e))?;
        stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e))?;
        prof.level(stream, 0)?;
        Ok(out)
    }

    /// The root's linear combination from c (n words), levels 1 … L.
    fn combine(&self, dev: &Device, stream: &Arc<CudaStream>, c: &[u64]) -> Result<Vec<u64>> {
        let (n, l, h) = (self.n, self.l, self.h);
        let mut bufs = Bufs::new(stream, l)?;
        stream.memcpy_htod(c, &mut bufs.g.slice_mut(0..n)).map_err(|e| driver_err("cuMemcpyHtoD", e))?;
        for i in 1..=h {
            self.plain(stream, &self.funcs.interp_plain, &bufs.g, i, &mut bufs.g2)?;
            std::mem::swap(&mut bufs.g, &mut bufs.g2);
        }
        for i in h + 1..=l {
            let (w, c, rows) = (1usize << i, n.div_ceil(1 << i), n.div_ceil(1 << (i - 1)));
            self.spread(stream, &bufs.g, n, w / 2, i, &mut bufs.x, rows * w, false)?;
            transform(&*plan(dev, stream, i, self.p, false)?, stream, rows, &mut bufs.x, &mut bufs.y)?;
            self.products(stream, &self.funcs.interp_mul, &bufs.x, i, &mut bufs.z, c * w)?;
            transform(&*plan(dev, stream, i, self.p, true)?, stream, c, &mut bufs.z, &mut bufs.u)?;
            self.add(stream, &self.funcs.interp_add, &bufs.g, &bufs.z, i, &mut bufs.g2)?;
            std::mem::swap(&mut bufs.g, &mut bufs.g2);
        }
        let mut out = vec![0u64; n];
        stream.memcpy_dtoh(&bufs.g.slice(0..n), &mut out[..]).map_err(|e| driver_err("cuMemcpyDtoH", e))?;
        stream.synchronize().map_err(|e| driver_err("cuStreamSynchronize", e))?;
        Ok(out)
    }
}

/// Work buffers of one call: x, y (forward rows and scratch), z, u (products and scratch), each
/// 2^(L+1) words; g, g2 (the level's vector, ping-pong), 2^L words.
struct Bufs {
    x: CudaSlice<u64>,
    y: CudaSlice<u64>,
    z: CudaSlice<u64>,
    u: CudaSlice<u64>,
    g: CudaSlice<u64>,
    g2: CudaSlice<u64>,
}

impl Bufs {
    fn new(stream: &Arc<CudaStream>, l: usize) -> Result<Bufs> {
        let big = 2usize << l;
        Ok(Bufs {
            x: alloc(stream, big)?,
            y: alloc(stream, big)?,
            z: alloc(stream, big)?,
            u: alloc(stream, big)?,
            g: alloc(stream, big / 2)?,
            g2: alloc(stream, big / 2)?,
        })
    }
}

/// The device copy of `tree` on the current device: the one kept with the tree when it is on this
/// device (made now at the first call), else a fresh one for this call.
fn device_tree(tree: &Tree) -> Result<(Arc<Device>, Arc<DeviceTree>)> {
    let dev = device::current()?;
    let mut slot = tree.device.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = slot.as_ref().and_then(|a| Arc::clone(a).downcast::<DeviceTree>().ok()) {
        if t.ordinal == dev.ordinal {
            return Ok((dev, t));
        }
        drop(slot);
        return Ok((dev, Arc::new(DeviceTree::new(tree)?)));
    }
    let t = Arc::new(DeviceTree::new(tree)?);
    *slot = Some(Arc::clone(&t) as Arc<dyn std::any::Any + Send + Sync>);
    Ok((dev, t))
}

/// Makes the device copy of `tree` now (the first GPU call would), for timing it apart.
pub fn upload(tree: &Tree) -> Result<()> {
    device_tree(tree).map(|_| ())
}

/// values\[i\] = f(u_i) at the tree's points on the device (tree supported: [`supports`]); f of any
/// length, entries < p (else `InvalidArgument`).
pub fn evaluate(tree: &Tree, f: &[u64]) -> Result<Vec<u64>> {
    evaluate_profiled(tree, f, None)
}

/// [`evaluate`], recording each level's time (the start as level L + 1, the download as level 0)
/// and its NTTs' time when `prof` is given (every step is then synchronised).
pub fn evaluate_profiled(tree: &Tree, f: &[u64], prof: Option<&mut Vec<LevelTime>>) -> Result<Vec<u64>> {
    check_reduced(f, tree.p(), "f")?;
    let r = crate::nmod::evaluate::reduce_by_root(tree, f)?;
    let (dev, t) = device_tree(tree)?;
    let mut prof = Prof { out: prof, t: Instant::now(), ntt: 0.0 };
    shield("GPU tree evaluation", || {
        let stream = dev.stream()?;
        t.evaluate(&dev, &stream, &r, &mut prof)
    })
}

/// The n coefficients of the f of degree < n with f(u_i) = values\[i\], on the device (tree
/// supported: [`supports`]; n values < p, else `InvalidArgument`).
pub fn interpolate(tree: &Tree, values: &[u64]) -> Result<Vec<u64>> {
    if values.len() != tree.len() {
        return crate::invalid!("{} values for a tree of {} points", values.len(), tree.len());
    }
    check_reduced(values, tree.p(), "values")?;
    let w = crate::nmod::interpolate::weights_with(tree, evaluate)?;
    let m = crate::nmod::reduce::Modulus::new(tree.p());
    let c: Vec<u64> = values.par_iter().zip(w.par_iter()).with_min_len(1 << 14).map(|(&v, &x)| m.mul_shoup(v, x, m.shoup(x))).collect();
    let (dev, t) = device_tree(tree)?;
    shield("GPU tree interpolation", || {
        let stream = dev.stream()?;
        t.combine(&dev, &stream, &c)
    })
}

#[cfg(all(test, feature = "gpu-tests"))]
mod tests {
    use super::*;
    use crate::nmod::evaluate::tests::{horner_oracle, points};
    use crate::nmod::poly_mul::tests::rand_vec;
    use crate::nmod::prime::fourier_primes;
    use crate::testing::Rng;

    /// GPU against the CPU path word for word and against Horner (sampled), then interpolation
    /// back, for n = 1, 2, 3, 255, 256, 257, 4097 and a random n, points including 0 and p − 1,
    /// 62- and 31-bit Fourier primes, f shorter than, as long as and longer than n, of random
    /// entries and of all p − 1; the device copy is kept with the tree and reused.
    #[test]
    fn gpu_tree_matches_the_cpu_path_and_horner() {
        let mut rng = Rng(2323);
        for p in [fourier_primes(62, 30, 1)[0], fourier_primes(31, 24, 1)[0]] {
            let mut ns = vec![1usize, 2, 3, 255, 256, 257, 4097];
            ns.push(1 + rng.below(30000) as usize);
            for &n in &ns {
                assert!(supports(n, p), "p = {p}, n = {n}");
                let pts = points(n, p, 7 * n as u64 + 1);
                let tree = Tree::new(&pts, p).unwrap();
                for (k, &fl) in [n, 0, 1, n / 2 + 1, 2 * n + 5].iter().enumerate() {
                    let f = if k == 1 { vec![p - 1; n] } else { rand_vec(fl, p, fl as u64 + 3 * n as u64) };
                    let cpu = crate::nmod::evaluate::evaluate(&tree, &f).unwrap();
                    let gpu = evaluate(&tree, &f).unwrap_or_else(|e| panic!("p = {p}, n = {n}, flen {}: {e}", f.len()));
                    if let Some(i) = (0..n).find(|&i| cpu[i] != gpu[i]) {
                        panic!("p = {p}, n = {n}, flen {}: value {i}: GPU {} against CPU {}", f.len(), gpu[i], cpu[i]);
                    }
                    for i in (0..n).step_by((n / 64).max(1)).chain([n - 1]) {
                        assert_eq!(gpu[i], horner_oracle(&f, pts[i], p), "Horner, p = {p}, n = {n}, point {i}");
                    }
                    if f.len() == n {
                        let back = interpolate(&tree, &gpu).unwrap();
                        assert!(back == f, "interpolation, p = {p}, n = {n}, kind {k}");
                        let cpu_back = crate::nmod::interpolate::interpolate(&tree, &gpu).unwrap();
                        assert!(back == cpu_back, "interpolation GPU against CPU, p = {p}, n = {n}");
                    }
                }
                assert!(tree.device.lock().unwrap().is_some(), "the device copy is kept with the tree");
            }
        }
    }

    /// The worked example (p = 257: 2^(L+1) = 16 divides p − 1).
    #[test]
    fn worked_example_p257_on_the_gpu() {
        let tree = Tree::new(&[63, 100, 148, 113, 109, 26, 39, 206], 257).unwrap();
        assert!(supports(8, 257));
        let f = [250, 161, 179, 170, 82, 24, 89, 92];
        assert_eq!(evaluate(&tree, &f).unwrap(), vec![75, 101, 49, 74, 55, 159, 26, 169]);
        assert_eq!(interpolate(&tree, &[75, 101, 49, 74, 55, 159, 26, 169]).unwrap(), f.to_vec());
    }

    #[test]
    fn unsupported_primes_and_bad_inputs() {
        assert!(!supports(1 << 20, (1 << 63) - 25), "not a Fourier prime");
        assert!(supports(128, 257) && !supports(129, 257), "2^8 | 256, 2^9 does not");
        let p = fourier_primes(62, 30, 1)[0];
        let tree = Tree::new(&[1, 2, 3], p).unwrap();
        assert!(matches!(evaluate(&tree, &[p]), Err(Error::InvalidArgument(_))));
        assert!(matches!(interpolate(&tree, &[1, 2]), Err(Error::InvalidArgument(_))));
    }
}
