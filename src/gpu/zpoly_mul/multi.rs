//! The Z\[x\] product over several devices (the device set, [`crate::gpu::device::devices`]): split by
//! primes for the transforms, then by blocks of coefficients for the CRT, the residues regrouped
//! between them by peer copies.
//!
//! 1. The inputs are staged once in host memory (limbs and sign bytes, in gpmp's pool, on the
//!    calling thread), chunk by chunk, and every device uploads each chunk as it is staged;
//! 2. device e computes h mod p_i for its share of the k primes (`shares(k, D)`: residues,
//!    transforms, pointwise products, inverse transforms), rows of hlen·T words;
//! 3. device e pulls, for its block of coefficients (`shares(hlen, D)`), the k residues of each of
//!    them from the devices that own the primes (`cuMemcpyPeerAsync`: NVLink or PCIe peer to peer
//!    where enabled, else staged by the driver through host memory);
//! 4. device e runs the CRT (and the recombination in split mode) on its block and downloads it
//!    into its part of the product.
//!
//! Every coefficient goes through the same kernels with the same primes as on one device, so the
//! product is bit-identical to one device's and to the CPU's.
//!
//! Why the CRT is split and not run on one device, counted for 2^22 × 2^22 with 1024-bit
//! coefficients: B = 2·1024 + 22 = 2070 bits, k = 34 primes of 62 bits, n = 2^23 transform points.
//! The residues are k·hlen words = 2.1 GiB, the product 33 limbs a coefficient = 2.1 GiB, the inputs
//! 1 GiB. Regrouping moves (1 − 1/D) of the residues: 1.06 GiB on 2 devices, 1.6 GiB on 4 (0.4 GiB
//! into each, in parallel): a few milliseconds over NVLink (≥ 150 GB/s a pair), about 16 ms over
//! PCIe 5.0 through host memory (25 GB/s a link). CRT on one device would instead take the same
//! 1.6 GiB over one link, run the whole quadratic CRT (k²/2·hlen ≈ 4.8·10^9 Shoup products, about
//! 50 ms on an H100) alone and download the whole 2.1 GiB product over one link (about 85 ms at
//! 25 GB/s), where the split CRT divides all three by D. What does not shrink with D: staging the
//! inputs on the host, their upload (1 GiB to each device, in parallel) and writing the product.
//!
//! Device memory: device e holds the inputs and (k_e + 1)·2n words of rows while transforming, then
//! its rows (until every device has pulled) and, for its block of b_e coefficients, k·b_e·T
//! residues and the CRT's scratch and output ([`split_fits`]): about 1/D of one device's need
//! beyond the inputs, so that a product larger than one device's memory runs on several. When a
//! share does not fit its device, the product runs on the first device, in parts.
use super::launch_err;
use super::memory::{free_bytes, split_fits, Shape};
use super::pipeline::{Job, Pace};
use super::primes::plan_shape;
use super::staging::HostProduct;
use crate::gpu::device::{self, Device};
use crate::gpu::shield;
use crate::int::{limbs_for_bits, IntRef};
use crate::{Error, Result};
use cudarc::driver::{result as cu, DevicePtr};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier, Condvar, Mutex};

/// Words per staging chunk (8 MiB): each device uploads a chunk while the next one is staged.
const CHUNK: usize = 1 << 20;
/// `staged` after a failure of the staging (a stop).
const STAGING_FAILED: usize = usize::MAX;

/// The shares of a split product: primes and coefficients per device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Split {
    pub(super) primes: Vec<Range<usize>>,
    pub(super) coefs: Vec<Range<usize>>,
}

/// The shares of k primes and hlen coefficients over `d` devices: `shares` of each.
pub(super) fn split(k: usize, hlen: usize, d: usize) -> Split {
    Split { primes: device::shares(k, d), coefs: device::shares(hlen, d) }
}

/// The devices' meetings between the phases (numbered from 0): every thread comes to every
/// meeting until one reports a failure, then every thread stops there (the first error is kept).
/// Each meeting has its own flag, so that a failure after meeting i is never seen at meeting i.
struct Meet {
    barrier: Barrier,
    failed: [AtomicBool; 2],
    first: Mutex<Option<Error>>,
}

impl Meet {
    fn new(n: usize) -> Meet {
        Meet { barrier: Barrier::new(n), failed: Default::default(), first: Mutex::new(None) }
    }

    /// Waits for every device at meeting `i`; `r` when no device brought a failure, else an error.
    fn at<T>(&self, i: usize, r: Result<T>) -> Result<T> {
        if let Err(e) = &r {
            self.failed[i].store(true, Ordering::SeqCst);
            self.first.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert_with(|| e.clone());
        }
        self.barrier.wait();
        if self.failed[i].load(Ordering::SeqCst) {
            return Err(Error::Internal("another device's share failed".into()));
        }
        r
    }

    /// The first error a device reported (else `e`).
    fn error(&self, e: Error) -> Error {
        self.first.lock().unwrap_or_else(|p| p.into_inner()).take().unwrap_or(e)
    }
}

/// A device row: its address and the context it lives in (read by the other devices' pulls).
#[derive(Clone, Copy)]
struct RowPtr {
    ptr: u64,
    ctx: usize,
}

/// f·g on the devices `devs` (at least two) as [`super::mul_host_limbs`]; `None` when a device's
/// share does not fit its free memory (the caller then runs it on one device).
pub(super) fn mul(devs: &[usize], f: &[IntRef], g: &[IntRef], bits: u64, limbs: usize) -> Result<Option<HostProduct>> {
    let hlen = f.len() + g.len() - 1;
    let l = limbs.max(1);
    let stride = limbs_for_bits(bits);
    let (primes, t, d) = plan_shape(bits, f.len(), g.len(), l)?;
    let k = primes.len();
    let square = std::ptr::eq(f, g);
    let ops: &[&[IntRef]] = if square { &[f] } else { &[f, g] };
    let total: usize = ops.iter().map(|o| o.len()).sum();
    let shape = Shape { k, n: (hlen * t).next_power_of_two().max(2), inputs: total, l, hlen, stride, t, d, table: 0 };
    let w = crate::nmod::crt::prime_product(&primes).len();
    let sp = split(k, hlen, devs.len());
    let dev: Vec<Arc<Device>> = devs.iter().map(|&o| device::get(o as i64)).collect::<Result<_>>()?;
    let mut free = Vec::with_capacity(dev.len());
    for dv in &dev {
        dv.ctx.bind_to_thread().map_err(launch_err("cuCtxSetCurrent"))?;
        free.push(free_bytes()?);
    }
    if !split_fits(&shape, w, &sp, &free) {
        return Ok(None);
    }
    // 1. the inputs, staged here chunk by chunk while the devices set up and upload each chunk
    let in_words = total * l;
    let mut out = HostProduct::new(Some(&dev[0]), hlen, stride, in_words + total.div_ceil(8))?;
    let lens: Vec<usize> = ops.iter().map(|o| o.len()).collect();
    // The buffer holds the inputs (limbs, then sign bytes) until the second meeting and the
    // product after it: shared as addresses, each range made a slice only while it is in use.
    let base = out.host.slice()?.as_mut_ptr() as usize;
    let parts = {
        let (mags, signs) = out.parts_mut()?;
        let (mp, spp) = (mags.as_mut_ptr() as usize, signs.as_mut_ptr() as usize);
        sp.coefs.iter().map(|c| Mutex::new(Some((mp + 8 * c.start * stride, spp + c.start)))).collect::<Vec<_>>()
    };
    let (words_at, signs_at) = (base, base + 8 * in_words);
    let staged = (Mutex::new(0usize), Condvar::new());
    let meet = Meet::new(dev.len());
    let rows_of: Mutex<Vec<Vec<RowPtr>>> = Mutex::new(vec![Vec::new(); dev.len()]);
    let sp = &sp;
    let per = (CHUNK / l).max(1);
    let stage = || -> Result<()> {
        let r = (|| {
            let mut at = 0;
            for op in ops {
                for src in op.chunks(per) {
                    // SAFETY: coefficients at..at + src.len() of the input part, written only here
                    // and read by the devices only after `staged` passes them.
                    let (dst, sg) = unsafe {
                        (
                            std::slice::from_raw_parts_mut((words_at as *mut u64).add(at * l), src.len() * l),
                            std::slice::from_raw_parts_mut((signs_at as *mut u8).add(at), src.len()),
                        )
                    };
                    dst.par_chunks_mut(l).zip(sg.par_iter_mut()).zip(src.par_iter()).with_min_len(1024).for_each(|((d, s), x)| {
                        d[..x.mag.len()].copy_from_slice(x.mag);
                        d[x.mag.len()..].fill(0);
                        *s = u8::from(x.neg);
                    });
                    crate::interrupt::checkpoint()?;
                    at += src.len();
                    *staged.0.lock().unwrap_or_else(|p| p.into_inner()) = at;
                    staged.1.notify_all();
                }
            }
            Ok(())
        })();
        if r.is_err() {
            *staged.0.lock().unwrap_or_else(|p| p.into_inner()) = STAGING_FAILED;
            staged.1.notify_all();
        }
        r
    };
    let r = device::on_each_while(
        devs,
        |e, _| {
            let dv = &dev[e];
            // phase 1: upload as the chunks come, this device's primes
            let mine = meet.at(
                0,
                shield("GPU poly_mul share", || {
                    let job = Job::part(dv, &primes, shape, square)?;
                    let stream = Arc::clone(&job.stream);
                    let d_limbs = job.alloc(in_words)?;
                    let d_signs = job.bytes(total)?;
                    {
                        let (lp, _a) = d_limbs.device_ptr(&stream);
                        let (sptr, _b) = d_signs.device_ptr(&stream);
                        let mut done = 0;
                        while done < total {
                            let now = {
                                let mut g = staged.0.lock().unwrap_or_else(|p| p.into_inner());
                                while *g == done {
                                    g = staged.1.wait(g).unwrap_or_else(|p| p.into_inner());
                                }
                                *g
                            };
                            if now == STAGING_FAILED {
                                // The uploads queued so far read the buffer: wait for them.
                                stream.synchronize().map_err(launch_err("cuStreamSynchronize"))?;
                                return Err(Error::Interrupted("the inputs were not staged".into()));
                            }
                            // SAFETY: staged coefficients, not written again before the second
                            // meeting; the device range lies inside `d_limbs`; the stream is
                            // synchronised before this phase ends.
                            unsafe {
                                let src = std::slice::from_raw_parts((words_at as *const u64).add(done * l), (now - done) * l);
                                cu::memcpy_htod_async(lp + (8 * done * l) as u64, src, stream.cu_stream())
                                    .map_err(launch_err("cuMemcpyHtoD"))?;
                            }
                            done = now;
                        }
                        // SAFETY: as above, the `total` sign bytes.
                        unsafe {
                            let src = std::slice::from_raw_parts(signs_at as *const u8, total);
                            cu::memcpy_htod_async(sptr, src, stream.cu_stream()).map_err(launch_err("cuMemcpyHtoD"))?;
                        }
                    }
                    let ps = sp.primes[e].clone();
                    let rows = if ps.is_empty() {
                        Vec::new()
                    } else {
                        job.convolve(&d_limbs, &d_signs, &lens, ps, &mut Pace { stream: &stream, prev: None })?
                    };
                    drop((d_limbs, d_signs));
                    stream.synchronize().map_err(launch_err("cuStreamSynchronize"))?;
                    let ctx = dv.ctx.cu_ctx() as usize;
                    let ptrs = rows.iter().map(|r| RowPtr { ptr: r.device_ptr(&stream).0, ctx }).collect();
                    rows_of.lock().unwrap_or_else(|p| p.into_inner())[e] = ptrs;
                    Ok((job, rows))
                }),
            )?;
            let (job, rows) = mine;
            // phase 2: pull the residues of this device's coefficients
            let c = sp.coefs[e].clone();
            let pos = c.len() * t;
            let pulled = meet.at(
                1,
                shield("GPU poly_mul regroup", || {
                    let stream = &job.stream;
                    let all = rows_of.lock().unwrap_or_else(|p| p.into_inner()).clone();
                    for (o, od) in dev.iter().enumerate() {
                        if o != e {
                            device::enable_peer(dv, od);
                        }
                    }
                    dv.ctx.bind_to_thread().map_err(launch_err("cuCtxSetCurrent"))?;
                    let recv = (0..k).map(|_| job.alloc(pos)).collect::<Result<Vec<_>>>()?;
                    let src_rows = all.iter().flat_map(|r| r.iter().copied());
                    for (dst, src) in recv.iter().zip(src_rows) {
                        if pos == 0 {
                            break;
                        }
                        let (dp, _g) = dst.device_ptr(stream);
                        let from = src.ptr + (c.start * t * 8) as u64;
                        // SAFETY: the source row holds hlen·T ≥ c.end·T words and stays alive until the
                        // next meeting; the destination holds pos words.
                        unsafe {
                            if src.ctx == dv.ctx.cu_ctx() as usize {
                                cu::memcpy_dtod_async(dp, from, pos * 8, stream.cu_stream()).map_err(launch_err("cuMemcpyDtoD"))?;
                            } else {
                                cu::memcpy_peer_async(
                                    dv.ctx.cu_ctx(),
                                    dp,
                                    src.ctx as cudarc::driver::sys::CUcontext,
                                    from,
                                    pos * 8,
                                    stream.cu_stream(),
                                )
                                .map_err(launch_err("cuMemcpyPeer"))?;
                            }
                        }
                    }
                    stream.synchronize().map_err(launch_err("cuStreamSynchronize"))?;
                    Ok(recv)
                }),
            )?;
            drop(rows);
            // phase 3: the CRT of this device's block, downloaded into its part of the product
            shield("GPU poly_mul CRT", || {
                let stream = &job.stream;
                let part = parts[e].lock().unwrap_or_else(|p| p.into_inner()).take();
                let Some((mp, spp)) = part else { return Err(Error::Internal("a product block taken twice".into())) };
                if c.is_empty() {
                    return Ok(());
                }
                // SAFETY: this device's disjoint block of the product's magnitudes and signs.
                let (mags, signs) = unsafe {
                    (
                        std::slice::from_raw_parts_mut(mp as *mut u64, c.len() * stride),
                        std::slice::from_raw_parts_mut(spp as *mut u8, c.len()),
                    )
                };
                let (d_out, d_neg) = job.crt(pulled, c.len(), stride, &mut Pace { stream, prev: None })?;
                job.download(&d_out, &d_neg, 0, stride, mags, signs)?;
                stream.synchronize().map_err(launch_err("cuStreamSynchronize"))?;
                Ok(())
            })
        },
        stage,
    );
    match r {
        Ok(_) => {
            crate::interrupt::checkpoint()?;
            Ok(Some(out))
        }
        Err(e) => Err(meet.error(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primes_and_coefficients_are_shared_in_order() {
        let s = split(34, (1 << 23) - 1, 4);
        assert_eq!(s.primes, [0..9, 9..18, 18..26, 26..34]);
        assert_eq!(s.coefs.iter().map(Range::len).sum::<usize>(), (1 << 23) - 1);
        let s = split(3, 10, 4);
        assert_eq!(s.primes, [0..1, 1..2, 2..3, 3..3], "fewer primes than devices: one idles in the transforms");
        assert_eq!(s.coefs, [0..3, 3..6, 6..8, 8..10]);
    }

    #[test]
    fn a_failed_share_stops_every_device_at_its_meeting() {
        let run = |fail: Option<(usize, usize)>| -> (Vec<Result<usize>>, Meet) {
            let meet = Meet::new(3);
            let r = std::thread::scope(|s| {
                let hs: Vec<_> = (0..3)
                    .map(|i| {
                        let meet = &meet;
                        s.spawn(move || {
                            let r = |m: usize| if fail == Some((i, m)) { Err(Error::OutOfMemory(format!("share {i}"))) } else { Ok(i) };
                            meet.at(0, r(0))?;
                            meet.at(1, r(1))
                        })
                    })
                    .collect();
                hs.into_iter().map(|h| h.join().unwrap()).collect()
            });
            (r, meet)
        };
        for at in [0, 1] {
            let (r, meet) = run(Some((1, at)));
            assert!(r.iter().all(Result::is_err), "a failure at meeting {at} stops every device");
            assert!(matches!(meet.error(Error::Internal("x".into())), Error::OutOfMemory(_)));
        }
        let (r, _) = run(None);
        assert_eq!(r.into_iter().collect::<Result<Vec<_>>>().unwrap(), [0, 1, 2]);
    }
}
