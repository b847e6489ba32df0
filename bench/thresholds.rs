//! The CPU crossovers of the Z\[x\] dispatcher (`zpoly::choose`) and of the integer product
//! (`int::mul_mag`), measured on this machine and printed as Rust constants in the format of
//! `src/tuning.rs` (each with a one-line reason: the measurement at the crossover). It prints what it
//! measures next to what the library uses now; it edits nothing.
//!
//!   usage: thresholds [--quick] [--threads LIST] [--min-time S]
//!          (`make -C bench thresholds`, `make -C bench thresholds ARGS=--quick`)
//!
//! Measured, per thread count (default 1):
//! - per coefficient class (≤ 128, ≤ 512, ≤ 2048, ≤ 8192, > 8192 bits; measured at 64, 256, 1024,
//!   4096, 16384 bits, as the dispatcher's table was), balanced operands of length m: from which m
//!   Kronecker substitution replaces schoolbook (m = 2..32), and from which m the class's fast
//!   algorithm (small-prime NTT up to 512 bits, two-convolution above) replaces Kronecker (m = 2^k
//!   and 3·2^(k−1) from 16 to 2^14);
//! - unbalanced products at 64 bits (short length 16): from which long length n the small-prime NTT
//!   replaces Kronecker;
//! - integers: from which balanced size (limbs) the multi-modular NTT product (`int::ntt_mul`)
//!   replaces GMP's `mpn_mul`; from which odd modulus (limbs) modular powers reduce by Montgomery's
//!   REDC by products rather than one limb at a time (`int::PowmModulus`).
//!
//! Both sides are timed at every scanned length (until both pass a time cap); the threshold printed
//! is the one a one-threshold dispatcher should use: the length from which taking the faster-growing
//! side costs least over the scan, each length's time relative to its best (transform lengths jump at
//! powers of two, so the winner can alternate near a crossover). Times: best of runs adding up to
//! `--min-time` (0.05 s; at least 3 runs), process CPU time at 1 thread (on a shared machine this
//! counts only this process's work), wall time above. `--quick`: 0.01 s, fewer small lengths and a
//! lower cap, about a minute on a 2-core machine; the full run takes a few minutes.
#[path = "common.rs"]
mod common;
use gpmp::int::{IntRef, PowmModulus, PowmReduction, PowmScratch};
use gpmp::runtime::{self, Backend};
use gpmp::testing::{coef, views, Coef, Rng};
use gpmp::tuning::{INT_MUL_NTT_MIN_LIMBS as NTT_MUL_MIN_LIMBS, POWM_REDC_MULLO_MIN_LIMBS};
use gpmp::zpoly::{self, Alg};
use std::hint::black_box;

struct Opts {
    quick: bool,
    min_time: f64,
}

/// Best time of `f` in ms over runs adding up to `min_time` seconds (at least 3 runs, at most 1000).
fn best_ms(min_time: f64, f: impl FnMut()) -> f64 {
    common::best_s(3, min_time, 1000, f) * 1e3
}

fn random_poly(rng: &mut Rng, len: usize, bits: u64) -> Vec<Coef> {
    (0..len).map(|_| coef(rng, bits, 0)).collect()
}

/// Time of the Z\[x\] product f·g by `alg` (f of length `m`, g of length `n`, `bits`-bit coefficients).
fn time_poly(o: &Opts, alg: Alg, m: usize, n: usize, bits: u64) -> f64 {
    let mut rng = Rng(42 ^ (m as u64) << 20 ^ n as u64 ^ bits << 40);
    let (f, g) = (random_poly(&mut rng, m, bits), random_poly(&mut rng, n, bits));
    let (fv, gv) = (views(&f), views(&g));
    runtime::install(|| best_ms(o.min_time, || drop(black_box(zpoly::mul(&fv, &gv, alg).unwrap()))))
}

/// A measured crossover: the scanned length from which `fast` is taken, with both times there, and
/// at how many of the scanned lengths from there on `fast` was the faster.
struct Crossing {
    at: Option<usize>,
    slow_ms: f64,
    fast_ms: f64,
    wins: usize,
    from_there: usize,
    last: usize,
}

/// Times `slow` and `fast` (`time(is_fast, len)`) at every length of `lens` (ascending) until both
/// pass `cap_ms`, and picks the threshold a one-threshold dispatcher should use: the length from
/// which taking `fast` costs least over the scanned lengths, each weighted by its best time (so a
/// length where the two are close counts little; ties keep the slower algorithm longer).
fn crossing(lens: &[usize], cap_ms: f64, mut time: impl FnMut(bool, usize) -> f64) -> Crossing {
    let mut pts: Vec<(usize, f64, f64)> = Vec::new();
    for &len in lens {
        let (s, f) = (time(false, len), time(true, len));
        if std::env::var_os("BENCH_DEBUG").is_some() {
            eprintln!("  len {len}: {s:.4} ms against {f:.4} ms");
        }
        pts.push((len, s, f));
        if s.min(f) > cap_ms {
            break;
        }
    }
    // cost(i): fast from pts[i] on (i = pts.len(): never), in units of each length's best time.
    let cost = |i: usize| -> f64 { pts.iter().enumerate().map(|(j, &(_, s, f))| if j < i { s } else { f } / s.min(f)).sum() };
    let best = (0..=pts.len()).rev().min_by(|&x, &y| cost(x).total_cmp(&cost(y))).unwrap();
    let last = pts.last().map_or(0, |p| p.0);
    match pts.get(best) {
        Some(&(at, s, f)) => Crossing {
            at: Some(at),
            slow_ms: s,
            fast_ms: f,
            wins: pts[best..].iter().filter(|p| p.2 < p.1).count(),
            from_there: pts.len() - best,
            last,
        },
        None => Crossing { at: None, slow_ms: f64::NAN, fast_ms: f64::NAN, wins: 0, from_there: 0, last },
    }
}

/// The least n in lo..=hi with `pred(n)`, for a predicate that is false below some n and true from
/// it on (binary search); `None` when `pred(hi)` is false.
fn first_true(lo: usize, hi: usize, pred: impl Fn(usize) -> bool) -> Option<usize> {
    if !pred(hi) {
        return None;
    }
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

/// What the dispatcher picks for lengths m (short) and n (long) with `bits`-bit coefficients (one
/// coefficient shared by every position: `choose` reads only the lengths and the largest size).
fn dispatch(m: usize, n: usize, bits: u64) -> Alg {
    let c = coef(&mut Rng(1), bits, 1);
    let (f, g) = (vec![views(std::slice::from_ref(&c))[0]; n], vec![views(std::slice::from_ref(&c))[0]; m]);
    zpoly::choose(&f, &g)
}

/// The first balanced length from which the dispatcher's pick satisfies `pred`.
fn current(bits: u64, pred: impl Fn(Alg) -> bool) -> Option<usize> {
    first_true(1, 1 << 16, |m| pred(dispatch(m, m, bits)))
}

/// The first long length (short length `m`, 64-bit coefficients) from which the dispatcher picks
/// the small-prime NTT.
fn current_unbalanced(m: usize) -> Option<usize> {
    first_true(m, 1 << 16, |n| dispatch(m, n, 64) == Alg::SmallPrimeNtt)
}

fn fmt_len(v: Option<usize>) -> String {
    v.map_or("never".into(), |m| m.to_string())
}

/// A time given in ms, to three significant digits, in µs below 1 ms.
fn fmt_time(ms: f64) -> String {
    let (v, unit) = if ms < 1.0 { (ms * 1e3, "µs") } else { (ms, "ms") };
    let decimals = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.decimals$} {unit}")
}

/// The reason line of one crossover (`prefix` "///" before a constant, "//" inside a table).
fn reason(prefix: &str, what: &str, c: &Crossing, slow: &str, fast: &str, now: Option<usize>) -> String {
    match c.at {
        Some(at) => format!(
            "{prefix} {what}: {fast} over {slow} from {at} ({} against {}; faster at {} of {} lengths from there); library now {}.",
            fmt_time(c.fast_ms),
            fmt_time(c.slow_ms),
            c.wins,
            c.from_there,
            fmt_len(now)
        ),
        None => format!("{prefix} {what}: {slow} throughout (scanned up to {}); library now {}.", c.last, fmt_len(now)),
    }
}

/// The measured value (`usize::MAX` when the faster algorithm never won in the scan).
fn value(c: &Crossing) -> String {
    c.at.map_or("usize::MAX".to_string(), |at| at.to_string())
}

/// Prints one constant: its reason line, then the declaration.
fn print_const(name: &str, what: &str, c: &Crossing, slow: &str, fast: &str, now: Option<usize>) {
    println!("{}", reason("///", what, c, slow, fast, now));
    println!("pub const {name}: usize = {};", value(c));
}

/// The algorithm's name in the reason lines.
fn alg_name(a: Alg) -> &'static str {
    match a {
        Alg::Schoolbook => "schoolbook",
        Alg::Kronecker => "Kronecker",
        Alg::SmallPrimeNtt => "the small-prime NTT",
        Alg::TwoConvolution => "two-convolution",
        _ => "another algorithm",
    }
}

fn zpoly_table(o: &Opts) {
    println!("// ---- Z[x] multiplication ----");
    let small: Vec<usize> = if o.quick { vec![2, 3, 4, 6, 8, 12, 16, 24, 32] } else { (2..=32).collect() };
    let large: Vec<usize> = (4..=14).flat_map(|k| [1usize << k, 3 << (k - 1)]).filter(|&m| m <= 1 << 14).collect();
    // (class name, class bound, measured bits, fast algorithm, its name in the constants)
    let classes: [(&str, &str, u64, Alg, &str); 5] = [
        ("128", "≤ 128", 64, Alg::SmallPrimeNtt, "NTT"),
        ("512", "≤ 512", 256, Alg::SmallPrimeNtt, "NTT"),
        ("2048", "≤ 2048", 1024, Alg::TwoConvolution, "TWO_CONVOLUTION"),
        ("8192", "≤ 8192", 4096, Alg::TwoConvolution, "TWO_CONVOLUTION"),
        ("ABOVE", "> 8192", 16384, Alg::TwoConvolution, "TWO_CONVOLUTION"),
    ];
    let mut rows = Vec::new();
    for (class, bound, bits, fast, _) in classes {
        eprintln!("zpoly: {bits}-bit coefficients");
        let what = format!("{bound}-bit coefficients (at {bits}), balanced, shorter length");
        let ks = crossing(&small, 50.0, |f, m| time_poly(o, if f { Alg::Kronecker } else { Alg::Schoolbook }, m, m, bits));
        println!("{}", reason("//", &what, &ks, "schoolbook", "Kronecker", current(bits, |a| a != Alg::Schoolbook)));
        let lens: Vec<usize> = large.iter().copied().filter(|&m| m >= ks.at.unwrap_or(2)).collect();
        let cap = if o.quick { 100.0 } else { 300.0 };
        let fc = crossing(&lens, cap, |f, m| time_poly(o, if f { fast } else { Alg::Kronecker }, m, m, bits));
        println!("{}", reason("//", &what, &fc, "Kronecker", alg_name(fast), current(bits, |a| a == fast)));
        let max_bits = if class == "ABOVE" { "u64::MAX".to_string() } else { class.to_string() };
        let school = ks.at.map_or("usize::MAX".to_string(), |at| (at - 1).to_string());
        rows.push(format!("    ZpolyMulRow {{ max_bits: {max_bits}, schoolbook_max_len: {school}, fast_min_len: {} }},", value(&fc)));
    }
    println!("pub const ZPOLY_MUL_ROWS: [ZpolyMulRow; {}] = [", rows.len());
    rows.iter().for_each(|r| println!("{r}"));
    println!("];");
    eprintln!("zpoly: unbalanced");
    let m = 16;
    let longs: Vec<usize> = (6..=14).flat_map(|k| [1usize << k, 3 << (k - 1)]).collect();
    let ub = crossing(&longs, 300.0, |f, n| time_poly(o, if f { Alg::SmallPrimeNtt } else { Alg::Kronecker }, m, n, 64));
    print_const(
        "ZPOLY_MUL_UNBALANCED_NTT_MIN_LONG_LEN",
        &format!("64-bit coefficients, shorter length {m}, longer length"),
        &ub,
        "Kronecker",
        alg_name(Alg::SmallPrimeNtt),
        current_unbalanced(m),
    );
}

fn int_table(o: &Opts) {
    println!("// ---- Integers ----");
    eprintln!("int: balanced products");
    let sizes: Vec<usize> = if o.quick {
        vec![256, 512, 768, 1024, 1536, 2048, 4096]
    } else {
        vec![256, 320, 384, 448, 512, 640, 768, 896, 1024, 1280, 1536, 2048, 3072, 4096]
    };
    let mut rng = Rng(3);
    let c = crossing(&sizes, 100.0, |ntt, n| {
        let a: Vec<u64> = (0..n).map(|_| rng.next()).collect();
        let b: Vec<u64> = (0..n).map(|_| rng.next()).collect();
        let mut r = vec![0u64; 2 * n];
        if ntt {
            runtime::install(|| best_ms(o.min_time, || gpmp::int::ntt_mul(&a, &b, &mut r).unwrap()))
        } else {
            // SAFETY: r has room for the 2n limbs of the product; a and b hold n limbs each.
            best_ms(o.min_time, || unsafe {
                gmp_mpfr_sys::gmp::mpn_mul(r.as_mut_ptr(), a.as_ptr(), n as _, b.as_ptr(), n as _);
            })
        }
    });
    print_const("INT_MUL_NTT_MIN_LIMBS", "Balanced integer products, limbs", &c, "GMP mpn_mul", "the NTT product", Some(NTT_MUL_MIN_LIMBS));
    eprintln!("int: modular powers");
    let sizes: Vec<usize> =
        if o.quick { vec![16, 32, 48, 64, 96, 128] } else { vec![16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 112, 128, 160] };
    let c = crossing(&sizes, 50.0, |products, k| {
        let mut m: Vec<u64> = (0..k).map(|_| rng.next()).collect();
        m[0] |= 1;
        m[k - 1] |= 1 << 63;
        let base: Vec<u64> = (0..k).map(|_| rng.next()).collect();
        let exp: Vec<u64> = (0..4).map(|_| rng.next()).collect();
        let reduction = if products { PowmReduction::RedcMullo } else { PowmReduction::Redc1 };
        let pm = PowmModulus::with_reduction(&m, k, reduction).unwrap();
        let (mut out, mut s) = (vec![0u64; k], PowmScratch::default());
        best_ms(o.min_time, || pm.powm_into(&mut out, IntRef::new(false, &base), &exp, &mut s, &gpmp::interrupt::current()).unwrap())
    });
    print_const(
        "POWM_REDC_MULLO_MIN_LIMBS",
        "Powers modulo an odd m (256-bit exponents), limbs of m",
        &c,
        "REDC one limb at a time",
        "REDC by products",
        Some(POWM_REDC_MULLO_MIN_LIMBS),
    );
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).and_then(|l| l.split_once(':')).map(|(_, v)| v.trim().to_string()))
        .unwrap_or_else(|| "unknown CPU".into());
    format!("{cpu}, {} cores", runtime::available_cores())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut o = Opts { quick: false, min_time: 0.05 };
    let mut threads = vec![1usize];
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--quick" => {
                o.quick = true;
                o.min_time = o.min_time.min(0.01);
            }
            "--threads" => {
                i += 1;
                threads = args[i].split(',').map(|t| t.trim().parse().expect("--threads LIST")).collect();
            }
            "--min-time" => {
                i += 1;
                o.min_time = args[i].parse().expect("--min-time SECONDS");
            }
            a => {
                eprintln!("unknown argument {a}; usage: thresholds [--quick] [--threads LIST] [--min-time S]");
                std::process::exit(2);
            }
        }
        i += 1;
    }
    runtime::set_backend(Backend::Cpu).unwrap();
    let commit = std::process::Command::new("git")
        .args(["describe", "--always", "--dirty"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map_or("unknown".into(), |out| String::from_utf8_lossy(&out.stdout).trim().to_string());
    let date = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .map_or("unknown".into(), |out| String::from_utf8_lossy(&out.stdout).trim().to_string());
    for t in threads {
        runtime::set_num_threads(t).unwrap();
        let clock = if t == 1 { "process CPU time" } else { "wall time" };
        println!(
            "// Measured by `thresholds{}` on {date}, commit {commit}, {}; {t} thread(s), {clock}, best of runs adding up to {} s.",
            if o.quick { " --quick" } else { "" },
            machine(),
            o.min_time
        );
        zpoly_table(&o);
        int_table(&o);
        println!();
    }
}
