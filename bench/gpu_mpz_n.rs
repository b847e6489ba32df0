//! `gpmp_mpz_mul_n` end to end from host `mpz_t` arrays, as a CAS calls it: n products of 1024- and
//! 4096-bit operands (random full-size magnitudes, random signs) on the GPU backend and on the CPU
//! backend (GMP per element on every core), with outputs already sized (room for the product) and
//! with fresh outputs (`mpz_init`: every output grown by the call, on the calling thread). The floor
//! of fresh outputs is the caller-thread allocation alone: a loop of `mpz_realloc2` + limb copy of
//! the products into fresh `mpz_t`. Median of `reps` calls after one warm-up call (the kernels
//! compiled or loaded, the pinned staging allocated); every GPU result is checked against the CPU
//! backend's. Then one GPU call per size with the stage timers on (`GPMP_LOG=debug`, on stderr).
//!   usage: gpu_mpz_n [reps] [log2 n]     (default 5 reps, n = 2^20)
use gmp_mpfr_sys::gmp::{self, mpz_t};
use gpmp::ffi::gpmp_status;
use gpmp::ffi::mpz_n::gpmp_mpz_mul_n;
use gpmp::runtime::{self, Backend};
use gpmp::testing::Rng;
use std::mem::MaybeUninit;

#[path = "common.rs"]
mod common;
#[path = "zvec_common.rs"]
mod zvec_common;
use common::median_ms;
use zvec_common::device_or_exit;

/// n initialised `mpz_t` with room for `bits` bits each (0: fresh, `mpz_init`).
fn ints(n: usize, bits: u64) -> Vec<mpz_t> {
    (0..n)
        .map(|_| {
            let mut z = MaybeUninit::uninit();
            // SAFETY: initialises z.
            unsafe {
                if bits == 0 {
                    gmp::mpz_init(z.as_mut_ptr());
                } else {
                    gmp::mpz_init2(z.as_mut_ptr(), bits);
                }
                z.assume_init()
            }
        })
        .collect()
}

fn clear(v: &mut [mpz_t]) {
    for z in v {
        // SAFETY: initialised by `ints`.
        unsafe { gmp::mpz_clear(z) };
    }
}

/// n random integers of exactly `bits` bits (a multiple of 64), random signs.
fn random(rng: &mut Rng, n: usize, bits: u64) -> Vec<mpz_t> {
    let l = (bits / 64) as usize;
    let mut v = ints(n, bits);
    for z in v.iter_mut() {
        // SAFETY: z has room for l limbs.
        unsafe {
            let d = gmp::mpz_limbs_write(z, l as _);
            for j in 0..l {
                *d.add(j) = rng.next() | if j == l - 1 { 1 << 63 } else { 0 };
            }
            let s = if rng.next() & 1 == 1 { -(l as i64) } else { l as i64 };
            gmp::mpz_limbs_finish(z, s as _);
        }
    }
    v
}

fn mul_n(r: &mut [mpz_t], a: &[mpz_t], b: &[mpz_t]) {
    // SAFETY: arrays of n initialised mpz_t.
    let st = unsafe { gpmp_mpz_mul_n(r.as_mut_ptr(), a.as_ptr(), b.as_ptr(), a.len()) };
    if st != gpmp_status::GPMP_SUCCESS {
        // SAFETY: a NUL-terminated message valid until the next call.
        let e = unsafe { std::ffi::CStr::from_ptr(gpmp::ffi::runtime::gpmp_last_error()) };
        panic!("gpmp_mpz_mul_n: {st:?}: {}", e.to_string_lossy());
    }
}

/// Median ms of `reps` calls of `f` on fresh outputs (made and cleared outside the timing).
fn median_fresh_ms(reps: usize, n: usize, mut f: impl FnMut(&mut [mpz_t])) -> f64 {
    let mut times = Vec::new();
    for rep in 0..=reps {
        let mut r = ints(n, 0);
        let t = std::time::Instant::now();
        f(&mut r);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if rep > 0 {
            times.push(ms);
        }
        clear(&mut r);
    }
    times.sort_by(|x, y| x.partial_cmp(y).unwrap());
    times[times.len() / 2]
}

fn set_backend(b: Backend) {
    runtime::set_backend(b).unwrap();
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|s| s.parse().ok()).collect();
    let reps = args.first().copied().unwrap_or(5).max(1);
    let n = 1usize << args.get(1).copied().unwrap_or(20);
    device_or_exit();
    let mut rng = Rng(3);
    println!("gpmp_mpz_mul_n from host mpz_t arrays, n = {n}, median of {reps} calls (ms):\n");
    println!("| bits | CPU sized | GPU sized | CPU / GPU sized | CPU fresh | GPU fresh | floor (realloc2 + copy) | GPU fresh / floor |");
    println!("|---|---|---|---|---|---|---|---|");
    let mut stage_runs = Vec::new();
    for bits in [1024u64, 4096] {
        let (a, b) = (random(&mut rng, n, bits), random(&mut rng, n, bits));
        let mut want = ints(n, 2 * bits);
        let mut got = ints(n, 2 * bits);
        set_backend(Backend::Cpu);
        let cpu_sized = median_ms(reps, || mul_n(&mut want, &a, &b));
        let cpu_fresh = median_fresh_ms(reps, n, |r| mul_n(r, &a, &b));
        set_backend(Backend::Gpu);
        let gpu_sized = median_ms(reps, || mul_n(&mut got, &a, &b));
        let gpu_fresh = median_fresh_ms(reps, n, |r| {
            mul_n(r, &a, &b);
            for i in (0..n).step_by(997) {
                // SAFETY: initialised mpz_t.
                assert_eq!(unsafe { gmp::mpz_cmp(&r[i], &want[i]) }, 0, "{bits} bits, fresh outputs: element {i}");
            }
        });
        for i in 0..n {
            // SAFETY: initialised mpz_t.
            assert_eq!(unsafe { gmp::mpz_cmp(&got[i], &want[i]) }, 0, "{bits} bits: element {i}");
        }
        // The floor: grow fresh mpz_t and copy the products' limbs, on this thread.
        let floor = median_fresh_ms(reps, n, |r| {
            for (z, w) in r.iter_mut().zip(&want) {
                // SAFETY: initialised mpz_t; z grown to hold w's limbs.
                unsafe {
                    let l = w.size.unsigned_abs() as usize;
                    gmp::mpz_realloc2(z, 64 * l as gmp::bitcnt_t);
                    std::ptr::copy_nonoverlapping(w.d.as_ptr(), z.d.as_ptr(), l);
                    z.size = w.size;
                }
            }
        });
        println!(
            "| {bits} | {cpu_sized:.1} | {gpu_sized:.1} | {:.1} | {cpu_fresh:.1} | {gpu_fresh:.1} | {floor:.1} | {:.2} |",
            cpu_sized / gpu_sized,
            gpu_fresh / floor
        );
        stage_runs.push((bits, a, b, want, got));
    }
    println!("\nStage timers of one GPU call per size, sized outputs then fresh (stderr, `mpz products`):");
    gpmp::log::set_level(Some(gpmp::log::Level::Debug));
    for (bits, a, b, mut want, mut got) in stage_runs {
        eprintln!("{bits} bits, sized outputs:");
        mul_n(&mut got, &a, &b);
        eprintln!("{bits} bits, fresh outputs:");
        median_fresh_ms(1, n, |r| mul_n(r, &a, &b));
        for mut v in [a, b] {
            clear(&mut v);
        }
        clear(&mut want);
        clear(&mut got);
    }
    gpmp::log::set_level(None);
    set_backend(Backend::Auto);
}
