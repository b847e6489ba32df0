//! Test support for the whole crate, its tests and its benches: a deterministic generator (splitmix64),
//! generators of random and adversarial integers and polynomials, and GMP `mpz` oracles.
//! Library code never imports it (the layer test checks that).
pub mod gfpf;
mod mpz;
pub mod roots;
pub mod zpoly;

use crate::int::{IntRef, ZSlab};
use gmp_mpfr_sys::gmp;

/// Owned coefficient (sign, magnitude limbs).
pub type Coef = (bool, Vec<u64>);

/// Views of owned coefficients.
pub fn views(p: &[Coef]) -> Vec<IntRef<'_>> {
    p.iter().map(|(n, m)| IntRef::new(*n, m)).collect()
}

/// Holds the process-wide backend ([`crate::runtime::set_backend`]) for a test that switches it, so
/// that such tests switch it one at a time.
pub fn backend_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs the ignored unit test `name` (its full path, e.g. `gpu::zvec::gpu_tests::fault_child`) of
/// the running test binary alone in a child process with the extra environment `env`, and returns
/// its stdout and stderr; panics with that output when the child fails. For tests that need a fresh
/// process (an empty kernel cache, a device left unusable on purpose, settings read once).
pub fn run_in_child(name: &str, env: &[(&str, &str)]) -> String {
    let exe = std::env::current_exe().expect("the test binary");
    let out = std::process::Command::new(exe)
        .args([name, "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .envs(env.iter().copied())
        .output()
        .expect("the test binary runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && text.contains("1 passed"), "{name} in a child process failed:\n{text}");
    text
}

/// A small deterministic generator (splitmix64).
pub struct Rng(pub u64);

impl Rng {
    #[allow(clippy::should_implement_trait)] // an infinite stream: Iterator's Option would only be unwrapped
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A coefficient of exactly `bits` bits or fewer, of the given kind:
/// 0 random, 1 all ones (2^bits − 1), 2 a power of two 2^(bits−1), 3 zero; random sign.
pub fn coef(rng: &mut Rng, bits: u64, kind: u64) -> Coef {
    let n = bits.div_ceil(64) as usize;
    let mut m: Vec<u64> = match kind {
        0 => (0..n).map(|_| rng.next()).collect(),
        1 => vec![u64::MAX; n],
        2 => {
            let mut v = vec![0; n];
            if bits > 0 {
                v[n - 1] = 1 << ((bits - 1) % 64);
            }
            v
        }
        _ => vec![0; n],
    };
    if !bits.is_multiple_of(64) && n > 0 {
        m[n - 1] &= (1u64 << (bits % 64)) - 1;
    }
    let neg = rng.next() & 1 == 1;
    (neg && m.iter().any(|&l| l != 0), m)
}

/// A random polynomial of `len` coefficients of at most `bits` bits; `style` 0 random,
/// 1 all ones with random signs, 2 mixed kinds, 3 one huge coefficient among small ones.
pub fn poly(rng: &mut Rng, len: usize, bits: u64, style: u64) -> Vec<Coef> {
    let huge = rng.below(len as u64) as usize;
    (0..len)
        .map(|i| match style {
            0 => {
                let b = 1 + rng.below(bits.max(1));
                coef(rng, b, 0)
            }
            1 => coef(rng, bits, 1),
            2 => {
                let kind = rng.below(4);
                coef(rng, bits, kind)
            }
            _ => {
                if i == huge {
                    coef(rng, bits * 20, 0)
                } else {
                    let b = 1 + rng.below(8);
                    coef(rng, b, 0)
                }
            }
        })
        .collect()
}

pub use mpz::{Mpz, MpzView};

/// Conversions between the oracle's integers and coefficient views.
impl Mpz {
    pub fn from_coef(c: IntRef) -> Self {
        let mut z = Mpz::new();
        // SAFETY: import reads c.mag.len() limbs.
        unsafe {
            gmp::mpz_import(&mut z.0, c.mag.len(), -1, 8, 0, 0, c.mag.as_ptr().cast());
            if c.neg {
                gmp::mpz_neg(&mut z.0, &z.0);
            }
        }
        z
    }
    pub fn to_coef(&self) -> Coef {
        (self.neg(), self.mag().to_vec())
    }
}

/// The oracle: f·g by mpz_addmul, as normalized (sign, magnitude) pairs.
pub fn oracle(f: &[IntRef], g: &[IntRef]) -> Vec<Coef> {
    if f.is_empty() || g.is_empty() {
        return vec![];
    }
    let fz: Vec<Mpz> = f.iter().map(|&c| Mpz::from_coef(c)).collect();
    let gz: Vec<Mpz> = g.iter().map(|&c| Mpz::from_coef(c)).collect();
    let mut h: Vec<Mpz> = (0..f.len() + g.len() - 1).map(|_| Mpz::new()).collect();
    for (i, a) in fz.iter().enumerate() {
        for (j, b) in gz.iter().enumerate() {
            // SAFETY: all initialised.
            unsafe { gmp::mpz_addmul(&mut h[i + j].0, &a.0, &b.0) };
        }
    }
    h.iter().map(Mpz::to_coef).collect()
}

/// Normalized (sign, magnitude) pairs of a slab.
pub fn slab_coefs(h: &ZSlab) -> Vec<Coef> {
    h.views().iter().map(|v| (v.neg, v.mag.to_vec())).collect()
}
