//! Word-size prime fields Z/pZ (p an odd prime < 2^63), exposed as `gpmp.nmod`: Fourier primes,
//! roots of unity, cyclic NTTs and polynomial products. Residues are in \[0, p); an unreduced input
//! raises ValueError (never reduced silently).
//!
//! Word vectors are lists of ints or objects with the buffer protocol holding uint64 (numpy
//! `uint64` arrays, `array.array("Q")`): a writable C-contiguous buffer is transformed in place (and
//! returned), a list gives a new list.
use crate::compute;
use gpmp::nmod::prime;
use gpmp::ops::nmod;
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList};

/// Words read from a Python object: a view of its buffer, or a copy of a sequence of ints.
pub enum Words {
    Buffer(PyBuffer<u64>),
    Owned(Vec<u64>),
}

/// A raw slice that may cross into the pool: the buffer it points to is kept alive (and, for a
/// writable one, not resized: a buffer export pins numpy arrays and bytearrays) by the
/// [`PyBuffer`] held meanwhile.
#[derive(Clone, Copy)]
struct Raw(*mut u64, usize);
// SAFETY: see above; each call uses the slice on one thread at a time (or in disjoint rows).
unsafe impl Send for Raw {}
unsafe impl Sync for Raw {}

impl Words {
    /// `x` as words: a uint64 buffer (C-contiguous) or a sequence of ints in \[0, 2^64).
    pub fn read(x: &Bound<'_, PyAny>, what: &str) -> PyResult<Words> {
        if !x.is_instance_of::<PyList>() {
            if let Ok(b) = PyBuffer::<u64>::get(x) {
                if !b.is_c_contiguous() {
                    return Err(PyValueError::new_err(format!("{what}: the buffer is not C-contiguous")));
                }
                return Ok(Words::Buffer(b));
            }
        }
        if x.is_instance_of::<PyInt>() {
            return Err(PyTypeError::new_err(format!("{what}: expected a sequence of words, got an integer")));
        }
        let mut v = Vec::with_capacity(x.len().unwrap_or(0));
        for e in x.try_iter()? {
            v.push(e?.extract::<u64>().map_err(|e| PyValueError::new_err(format!("{what}: {e}")))?);
        }
        Ok(Words::Owned(v))
    }

    pub fn len(&self) -> usize {
        match self {
            Words::Buffer(b) => b.item_count(),
            Words::Owned(v) => v.len(),
        }
    }

    fn raw(&mut self) -> Raw {
        match self {
            Words::Buffer(b) => Raw(b.buf_ptr().cast(), b.item_count()),
            Words::Owned(v) => Raw(v.as_mut_ptr(), v.len()),
        }
    }

    /// The words (valid while self is and nothing writes them).
    pub fn slice(&self) -> &[u64] {
        match self {
            Words::Buffer(b) if b.item_count() > 0 => unsafe { std::slice::from_raw_parts(b.buf_ptr().cast(), b.item_count()) },
            Words::Buffer(_) => &[],
            Words::Owned(v) => v,
        }
    }

    /// Runs `f` on the words in place (GIL released) and returns what the caller gets back: the same
    /// buffer object, or a new list.
    pub fn transform<'py>(
        mut self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        name: &str,
        f: impl FnOnce(&mut [u64]) -> gpmp::Result<()> + Send,
    ) -> PyResult<Bound<'py, PyAny>> {
        if let Words::Buffer(b) = &self {
            if b.readonly() {
                return Err(PyValueError::new_err(format!("{name}: the buffer is read-only")));
            }
        }
        let raw = self.raw();
        compute(py, name, move || {
            let raw = raw;
            // SAFETY: see `Raw`; the words are only used during this call.
            let s: &mut [u64] = if raw.1 == 0 { &mut [] } else { unsafe { std::slice::from_raw_parts_mut(raw.0, raw.1) } };
            f(s)
        })?;
        match self {
            Words::Buffer(_) => Ok(x.clone()),
            Words::Owned(v) => Ok(PyList::new(py, v)?.into_any()),
        }
    }
}

/// The `index`-th (from 0) odd prime below 2^bits (bits in \[20, 63\]), ordered by the 2-adic
/// valuation k of p − 1 (descending), then by size (descending): p supports NTTs of every
/// power-of-two length up to 2^k.
#[pyfunction]
fn fourier_prime(bits: u32, index: usize) -> PyResult<u64> {
    prime::fourier_prime(bits, index).map_err(|e| crate::error("fourier_prime", e))
}

/// A primitive n-th root of unity mod p (n a power of two dividing p − 1): g^((p−1)/n) for the
/// smallest quadratic non-residue g.
#[pyfunction]
fn primitive_root(n: u64, p: u64) -> PyResult<u64> {
    prime::check_modulus(p).and_then(|_| prime::primitive_root_of_unity(n, p)).map_err(|e| crate::error("primitive_root", e))
}

/// x ← (Σ_j x_j·w^(ij) mod p)_i (natural order, no scaling); len(x) a power of two, w of exact
/// order len(x).
#[pyfunction]
fn ntt<'py>(py: Python<'py>, x: &Bound<'py, PyAny>, w: u64, p: u64) -> PyResult<Bound<'py, PyAny>> {
    let v = Words::read(x, "x")?;
    if v.len() == 0 {
        return Err(PyValueError::new_err("ntt: transform length 0"));
    }
    v.transform(py, x, "ntt", |s| nmod::ntt(s, w, p))
}

/// The inverse of `ntt` with the same w (scaled by 1/n).
#[pyfunction]
fn intt<'py>(py: Python<'py>, x: &Bound<'py, PyAny>, w: u64, p: u64) -> PyResult<Bound<'py, PyAny>> {
    let v = Words::read(x, "x")?;
    if v.len() == 0 {
        return Err(PyValueError::new_err("intt: transform length 0"));
    }
    v.transform(py, x, "intt", |s| nmod::intt(s, w, p))
}

/// `ntt` on each row of length n of x (len(x) a multiple of n; rows in parallel).
#[pyfunction]
fn ntt_many<'py>(py: Python<'py>, x: &Bound<'py, PyAny>, n: usize, w: u64, p: u64) -> PyResult<Bound<'py, PyAny>> {
    let v = Words::read(x, "x")?;
    if n == 0 || v.len() % n != 0 {
        return Err(PyValueError::new_err(format!("ntt_many: {} words are not rows of length {n}", v.len())));
    }
    v.transform(py, x, "ntt_many", |s| nmod::ntt_many(s, n, w, p))
}

/// f·g mod p for any odd prime p < 2^63 (entries < p). Returns a list, or writes `out` (a writable
/// uint64 buffer of len(f) + len(g) − 1 words) and returns it.
#[pyfunction]
#[pyo3(signature = (f, g, p, out = None))]
fn poly_mul<'py>(
    py: Python<'py>,
    f: &Bound<'py, PyAny>,
    g: &Bound<'py, PyAny>,
    p: u64,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let (fw, gw) = (Words::read(f, "f")?, Words::read(g, "g")?);
    let (fs, gs) = (fw.slice(), gw.slice());
    let hlen = if fs.is_empty() || gs.is_empty() { 0 } else { fs.len() + gs.len() - 1 };
    let h = compute(py, "poly_mul", || if hlen == 0 { Ok(Vec::new()) } else { nmod::poly_mul(fs, gs, p) })?;
    match out {
        None => Ok(PyList::new(py, h)?.into_any()),
        Some(o) => {
            let b = PyBuffer::<u64>::get(o)?;
            if b.readonly() || !b.is_c_contiguous() || b.item_count() != hlen {
                return Err(PyValueError::new_err(format!("poly_mul: out must be a writable C-contiguous uint64 buffer of {hlen} words")));
            }
            b.copy_from_slice(py, &h)?;
            Ok(o.clone())
        }
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let sub = PyModule::new(py, "nmod")?;
    sub.add_function(wrap_pyfunction!(fourier_prime, &sub)?)?;
    sub.add_function(wrap_pyfunction!(primitive_root, &sub)?)?;
    sub.add_function(wrap_pyfunction!(ntt, &sub)?)?;
    sub.add_function(wrap_pyfunction!(intt, &sub)?)?;
    sub.add_function(wrap_pyfunction!(ntt_many, &sub)?)?;
    sub.add_function(wrap_pyfunction!(poly_mul, &sub)?)?;
    m.add_submodule(&sub)?;
    Ok(())
}
