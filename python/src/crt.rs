//! The multi-modular phases (`gpmp.mod_primes`, `gpmp.crt`, `gpmp.poly_mul_primes`): integers to
//! residues modulo word-size primes, residues back to integers by the Chinese remainder theorem,
//! and the primes of gpmp's Z\[x\] product; the pieces of `gpmp.distributed`. Residues are
//! prime-major: residues\[j·n + i\] is element i modulo primes\[j\].
use crate::compute;
use crate::ints::{new_list, Ints};
use crate::nmod::Words;
use gpmp::ops::crt as phases;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

/// Writes a\[i\] mod primes\[j\] (in [0, p), any sign of a\[i\]) to out\[j·len(a) + i\]: `out` a
/// writable C-contiguous uint64 buffer of len(primes)·len(a) words (returned). The primes: distinct
/// odd primes below 2^63.
#[pyfunction]
fn mod_primes_into<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    primes: &Bound<'py, PyAny>,
    out: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let ai = Ints::from_seq(a, "a")?;
    let av = ai.views();
    let pw = Words::read(primes, "primes")?;
    let ps = pw.slice();
    let ow = Words::read(out, "out")?;
    let need = ps.len() * av.len();
    if ow.len() != need || (need > 0 && !matches!(ow, Words::Buffer(_))) {
        return Err(PyValueError::new_err(format!("mod_primes: out must be a writable uint64 buffer of {} words", ps.len() * av.len())));
    }
    ow.transform(py, out, "mod_primes", |s| phases::mod_primes_into(&av, ps, s))
}

/// The n integers x_i ≡ residues\[j·n + i\] (mod primes\[j\]) for every j, in (−M/2, M/2) when
/// `signed`, else in [0, M), M = Π primes (all 0 without primes). `residues`: a list of ints or a
/// uint64 buffer of len(primes)·n words, each < its prime.
#[pyfunction]
#[pyo3(signature = (residues, n, primes, signed = true))]
fn crt<'py>(
    py: Python<'py>,
    residues: &Bound<'py, PyAny>,
    n: usize,
    primes: &Bound<'py, PyAny>,
    signed: bool,
) -> PyResult<Bound<'py, PyList>> {
    let rw = Words::read(residues, "residues")?;
    let pw = Words::read(primes, "primes")?;
    let (rs, ps) = (rw.slice(), pw.slice());
    let x = compute(py, "crt", || phases::crt(rs, n, ps, signed))?;
    new_list(py, x.len(), |i| x.get(i))
}

/// The primes of gpmp's multi-modular product of f (flen coefficients of at most fbits bits) and
/// g (glen, gbits): 50-bit Fourier primes with Π p > 2^(fbits + gbits + ⌈log2 min(flen, glen)⌉ + 1),
/// the same on every machine; [] for an empty or zero product. f·g mod each (`nmod.poly_mul`) and
/// a signed `crt` give f·g.
#[pyfunction]
fn poly_mul_primes(flen: usize, fbits: u64, glen: usize, gbits: u64) -> PyResult<Vec<u64>> {
    phases::poly_mul_primes(flen, fbits, glen, gbits).map_err(|e| crate::error("poly_mul_primes", e))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(mod_primes_into, m)?)?;
    m.add_function(wrap_pyfunction!(crt, m)?)?;
    m.add_function(wrap_pyfunction!(poly_mul_primes, m)?)?;
    Ok(())
}
