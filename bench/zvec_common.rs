//! What the zvec timing programs (gpu_zvec, gpu_zmod) share besides common.rs: random operands,
//! their views and vectors, and the per-call timer of back-to-back device operations. Included with
//! `#[path = "zvec_common.rs"] mod zvec_common;`.
#![allow(dead_code)]
use gpmp::gpu::device::{self, Device};
use gpmp::int::IntRef;
use gpmp::ops::zvec::ZVec;
use gpmp::runtime;
use gpmp::testing::Rng;
use std::sync::Arc;
use std::time::Instant;

/// n random full-size magnitudes of `bits` bits (a multiple of 64), signs random when `signed`:
/// limbs and signs.
pub fn random(rng: &mut Rng, n: usize, bits: u64, signed: bool) -> (Vec<u64>, Vec<bool>) {
    let l = (bits / 64) as usize;
    let mag: Vec<u64> = (0..n * l).map(|_| rng.next()).collect();
    let neg = (0..n).map(|_| signed && rng.next() & 1 == 1).collect();
    (mag, neg)
}

pub fn views<'a>(mag: &'a [u64], neg: &[bool], l: usize) -> Vec<IntRef<'a>> {
    mag.chunks(l).zip(neg).map(|(m, &s)| IntRef::new(s, m)).collect()
}

pub fn vec_on(x: &[IntRef], bits: u64, dev: bool) -> ZVec {
    let mut v = ZVec::zeros_on(x.len(), bits, dev).unwrap();
    v.set(x).unwrap();
    v
}

/// Seconds per call of f, over `reps` calls after two warm-up calls (so that the zvec buffer
/// cache holds the two destinations a back-to-back loop alternates between), with `sync` after
/// the last; and the host's share: seconds per call until the last call returned (enqueue time).
pub fn per_call_host<T>(reps: usize, mut f: impl FnMut() -> T, sync: impl Fn(&T)) -> (f64, f64) {
    let w = (f(), f());
    sync(&w.1);
    drop(w);
    let s = Instant::now();
    let mut last = None;
    for _ in 0..reps {
        last = Some(f());
    }
    let host = s.elapsed().as_secs_f64() / reps as f64;
    sync(last.as_ref().unwrap());
    (s.elapsed().as_secs_f64() / reps as f64, host)
}

/// Seconds per call of f (see [`per_call_host`]).
pub fn per_call<T>(reps: usize, f: impl FnMut() -> T, sync: impl Fn(&T)) -> f64 {
    per_call_host(reps, f, sync).0
}

/// The current CUDA device, its description printed; exits with status 2 when there is none.
pub fn device_or_exit() -> Arc<Device> {
    let dev = match device::current() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("no GPU: {e}");
            std::process::exit(2);
        }
    };
    println!(
        "device: {} (sm_{}{}), driver {}, {} host threads\n",
        dev.name,
        dev.cc.0,
        dev.cc.1,
        dev.driver_version,
        runtime::num_threads()
    );
    dev
}
