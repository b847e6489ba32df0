//! How fast an interrupted call returns: Z\[x\] products through the C API, stopped by the calling
//! thread's interrupt handler `after` ms into the call; prints the time from the handler's "stop" to
//! the call's return (median of 3), next to the time of the whole product.
//!
//! `cargo run --release --example interrupt -- [cpu|gpu] [after_ms]`
use gpmp::ffi::poly::{gpmp_mul_alg, gpmp_poly_mul_alg, RawMulAlg};
use gpmp::ffi::runtime::{gpmp_set_backend, gpmp_set_interrupt_handler, RawBackend};
use gpmp::ffi::status::gpmp_status;
use gpmp::int::IntRef;
use gpmp::testing::Mpz;
use gpmp::testing::{coef, Rng};
use std::ffi::{c_int, c_void};
use std::sync::Mutex;
use std::time::{Duration, Instant};

struct Stop {
    start: Instant,
    after: Duration,
    at: Mutex<Option<Instant>>,
}

unsafe extern "C" fn stop(data: *mut c_void) -> c_int {
    let s = &*(data as *const Stop);
    if s.start.elapsed() < s.after {
        return 0;
    }
    s.at.lock().unwrap().get_or_insert_with(Instant::now);
    1
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let gpu = args.get(1).is_some_and(|a| a == "gpu");
    let after = Duration::from_millis(args.get(2).and_then(|a| a.parse().ok()).unwrap_or(200));
    if gpu && gpmp_set_backend(RawBackend(2)) != gpmp_status::GPMP_SUCCESS {
        println!("skipped: no usable CUDA device");
        return;
    }
    if !gpu {
        gpmp_set_backend(RawBackend(1));
    }
    let mut rng = Rng(1);
    println!("| product | algorithm | whole product (ms) | stop → return (ms, median of 3) |");
    println!("|---|---|---|---|");
    let cases: &[(usize, u64, gpmp_mul_alg)] = if gpu {
        &[(1 << 22, 1024, gpmp_mul_alg::GPMP_MUL_AUTO), (1 << 23, 256, gpmp_mul_alg::GPMP_MUL_AUTO)]
    } else {
        &[
            (1 << 14, 256, gpmp_mul_alg::GPMP_MUL_SCHOOLBOOK),
            (1 << 16, 1024, gpmp_mul_alg::GPMP_MUL_AUTO),
            (1 << 18, 1024, gpmp_mul_alg::GPMP_MUL_AUTO),
            (1 << 20, 256, gpmp_mul_alg::GPMP_MUL_AUTO),
            (1 << 22, 64, gpmp_mul_alg::GPMP_MUL_AUTO),
        ]
    };
    for &(len, bits, alg) in cases {
        let make = |rng: &mut Rng| -> Vec<Mpz> {
            (0..len)
                .map(|_| {
                    let (neg, mag) = coef(rng, bits, 0);
                    Mpz::from_coef(IntRef::new(neg, &mag))
                })
                .collect()
        };
        let (f, g) = (make(&mut rng), make(&mut rng));
        let mut h: Vec<Mpz> = (0..2 * len - 1).map(|_| Mpz::new()).collect();
        let run = |h: &mut Vec<Mpz>| {
            // SAFETY: arrays of the stated lengths.
            unsafe { gpmp_poly_mul_alg(h.as_mut_ptr().cast(), f.as_ptr().cast(), len, g.as_ptr().cast(), len, RawMulAlg(alg as c_int)) }
        };
        let t0 = Instant::now();
        assert_eq!(run(&mut h), gpmp_status::GPMP_SUCCESS);
        let whole = t0.elapsed();
        let mut late = Vec::new();
        for _ in 0..3 {
            let s = Stop { start: Instant::now(), after, at: Mutex::new(None) };
            gpmp_set_interrupt_handler(Some(stop), &s as *const Stop as *mut c_void);
            let st = run(&mut h);
            let end = Instant::now();
            gpmp_set_interrupt_handler(None, std::ptr::null_mut());
            let at = *s.at.lock().unwrap();
            match (st, at) {
                (gpmp_status::GPMP_INTERRUPTED, Some(at)) => late.push((end - at).as_secs_f64() * 1e3),
                (st, _) => println!("  (not interrupted: {st:?}; the product took less than {after:?})"),
            }
        }
        late.sort_by(|a, b| a.total_cmp(b));
        let med = late.get(late.len() / 2).map_or("—".to_string(), |m| format!("{m:.1}"));
        println!(
            "| 2^{} × 2^{}, {bits} bits | {alg:?} | {:.0} | {med} |",
            len.trailing_zeros(),
            len.trailing_zeros(),
            whole.as_secs_f64() * 1e3
        );
    }
}
