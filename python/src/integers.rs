//! One big product (`mul`, `sqr`) and element-wise operations over lists of integers
//! (`add_n`, `sub_n`, `mul_n`, `addmul_n`, `addmod_n`, `submod_n`, `mulmod_n`, `powm_n`).
use crate::compute;
use crate::ints::{new_int, new_list, Ints};
use gpmp::int::{batch, try_zeroed_words, IntRef, ZList};
use gpmp::ops::int::{mul_mag_start, mulmod_n, powm_n, MagProduct};
use gpmp::Error;
use pyo3::prelude::*;
use pyo3::types::PyList;

/// |a|·|b| as limbs (on the GPU where `ops::route` sends it).
fn product(a: &[u64], b: &[u64]) -> gpmp::Result<Vec<u64>> {
    match mul_mag_start(a, b)? {
        MagProduct::Host(p) => Ok(p),
        MagProduct::Device(job) => {
            let mut out =
                try_zeroed_words(a.len() + b.len()).map_err(|_| Error::OutOfMemory(format!("a product of {} limbs", a.len() + b.len())))?;
            job.finish(&mut out)?;
            Ok(out)
        }
    }
}

/// a·b for two integers (int or gmpy2.mpz): GMP below gpmp's crossover, gpmp's multi-threaded
/// NTT product above it, or the GPU's where the backend sends it.
#[pyfunction]
fn mul<'py>(py: Python<'py>, a: &Bound<'py, PyAny>, b: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let (x, y) = (Ints::one(a, "a")?, Ints::one(b, "b")?);
    let (x, y) = (x.get(0), y.get(0));
    let p = compute(py, "mul", || product(x.mag, y.mag))?;
    new_int(py, IntRef::new(x.neg != y.neg, &p))
}

/// a².
#[pyfunction]
fn sqr<'py>(py: Python<'py>, a: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let x = Ints::one(a, "a")?;
    let x = x.get(0);
    let p = compute(py, "sqr", || product(x.mag, x.mag))?;
    new_int(py, IntRef::new(false, &p))
}

/// The list of r\[i\], computed by `op` from the views of the argument lists (read in order).
fn elementwise<'py>(
    py: Python<'py>,
    name: &str,
    args: &[(&Bound<'py, PyAny>, &str)],
    op: impl FnOnce(&[Vec<IntRef>]) -> gpmp::Result<ZList> + Send,
) -> PyResult<Bound<'py, PyList>> {
    let ints = args.iter().map(|(a, what)| Ints::from_seq(a, what)).collect::<PyResult<Vec<_>>>()?;
    let views: Vec<Vec<IntRef>> = ints.iter().map(Ints::views).collect();
    let r = compute(py, name, || op(&views))?;
    new_list(py, r.len(), |i| r.get(i))
}

/// The modulus argument.
fn modulus<'py>(m: &Bound<'py, PyAny>) -> PyResult<Ints<'py>> {
    Ints::one(m, "m")
}

/// \[a\[i\] + b\[i\]\] (lists of equal length).
#[pyfunction]
fn add_n<'py>(py: Python<'py>, a: &Bound<'py, PyAny>, b: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    elementwise(py, "add_n", &[(a, "a"), (b, "b")], |v| batch::add(&v[0], &v[1]))
}

/// \[a\[i\] − b\[i\]\].
#[pyfunction]
fn sub_n<'py>(py: Python<'py>, a: &Bound<'py, PyAny>, b: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    elementwise(py, "sub_n", &[(a, "a"), (b, "b")], |v| batch::sub(&v[0], &v[1]))
}

/// \[a\[i\]·b\[i\]\].
#[pyfunction]
fn mul_n<'py>(py: Python<'py>, a: &Bound<'py, PyAny>, b: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    elementwise(py, "mul_n", &[(a, "a"), (b, "b")], |v| batch::mul(&v[0], &v[1]))
}

/// \[r\[i\] + a\[i\]·b\[i\]\] (a new list; r is not changed).
#[pyfunction]
fn addmul_n<'py>(py: Python<'py>, r: &Bound<'py, PyAny>, a: &Bound<'py, PyAny>, b: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    elementwise(py, "addmul_n", &[(r, "r"), (a, "a"), (b, "b")], |v| batch::addmul(&v[0], &v[1], &v[2]))
}

/// \[(a\[i\] + b\[i\]) mod m\], results in \[0, m), m > 1 (ValueError otherwise).
#[pyfunction]
fn addmod_n<'py>(py: Python<'py>, a: &Bound<'py, PyAny>, b: &Bound<'py, PyAny>, m: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let m = modulus(m)?;
    let m = m.get(0);
    elementwise(py, "addmod_n", &[(a, "a"), (b, "b")], |v| batch::addmod(&v[0], &v[1], m))
}

/// \[(a\[i\] − b\[i\]) mod m\].
#[pyfunction]
fn submod_n<'py>(py: Python<'py>, a: &Bound<'py, PyAny>, b: &Bound<'py, PyAny>, m: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let m = modulus(m)?;
    let m = m.get(0);
    elementwise(py, "submod_n", &[(a, "a"), (b, "b")], |v| batch::submod(&v[0], &v[1], m))
}

/// \[a\[i\]·b\[i\] mod m\] (on the GPU for an odd m where the backend sends it).
#[pyfunction]
#[pyo3(name = "mulmod_n")]
fn mulmod_n_py<'py>(py: Python<'py>, a: &Bound<'py, PyAny>, b: &Bound<'py, PyAny>, m: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let m = modulus(m)?;
    let m = m.get(0);
    elementwise(py, "mulmod_n", &[(a, "a"), (b, "b")], |v| mulmod_n(&v[0], &v[1], m))
}

/// \[base\[i\]^exp\[i\] mod m\], every exp\[i\] ≥ 0 (on the GPU for an odd m where the backend sends it).
#[pyfunction]
#[pyo3(name = "powm_n")]
fn powm_n_py<'py>(
    py: Python<'py>,
    base: &Bound<'py, PyAny>,
    exp: &Bound<'py, PyAny>,
    m: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let m = modulus(m)?;
    let m = m.get(0);
    elementwise(py, "powm_n", &[(base, "base"), (exp, "exp")], |v| powm_n(&v[0], &v[1], m))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(mul, m)?)?;
    m.add_function(wrap_pyfunction!(sqr, m)?)?;
    m.add_function(wrap_pyfunction!(add_n, m)?)?;
    m.add_function(wrap_pyfunction!(sub_n, m)?)?;
    m.add_function(wrap_pyfunction!(mul_n, m)?)?;
    m.add_function(wrap_pyfunction!(addmul_n, m)?)?;
    m.add_function(wrap_pyfunction!(addmod_n, m)?)?;
    m.add_function(wrap_pyfunction!(submod_n, m)?)?;
    m.add_function(wrap_pyfunction!(mulmod_n_py, m)?)?;
    m.add_function(wrap_pyfunction!(powm_n_py, m)?)?;
    Ok(())
}
