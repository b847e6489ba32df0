//! `poly_mul`, `poly_sqr`: dense products in Z\[x\] of lists of integers (low degree first).
use crate::ints::{new_list, Ints};
use crate::{compute, error};
use gpmp::int::{max_bits, IntRef, ZSlab};
use gpmp::zpoly::{self, Alg, HostProduct};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

/// The algorithm named `name` (the `GPMP_MUL_*` names, lower case, without the prefix).
fn alg_of(name: &str) -> PyResult<Alg> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "auto" => Alg::Auto,
        "schoolbook" => Alg::Schoolbook,
        "kronecker" => Alg::Kronecker,
        "divide_conquer" => Alg::DivideConquer,
        "toom4" => Alg::Toom4,
        "toom8" => Alg::Toom8,
        "two_convolution" => Alg::TwoConvolution,
        "small_prime_ntt" => Alg::SmallPrimeNtt,
        "big_prime_fft" => Alg::BigPrimeFft,
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown algorithm {name:?} (auto, schoolbook, kronecker, divide_conquer, toom4, toom8, two_convolution, small_prime_ntt, big_prime_fft)"
            )))
        }
    })
}

/// A product in host memory: a slab, or the GPU's result as it came from the device.
enum Product {
    Slab(ZSlab),
    Gpu(HostProduct),
}

/// f·g by `alg`; AUTO's GPU products stay in host memory.
fn product(py: Python<'_>, name: &str, f: &[IntRef], g: &[IntRef], alg: Alg) -> PyResult<Product> {
    if alg == Alg::Auto && zpoly::runs_inline(f, g) {
        return zpoly::mul(f, g, alg).map(Product::Slab).map_err(|e| error(name, e));
    }
    compute(py, name, || {
        if alg == Alg::Auto {
            let bits = rayon::join(|| max_bits(f), || max_bits(g));
            if let Some(h) = zpoly::mul_on_gpu(f, g, Some(bits))? {
                return Ok(Product::Gpu(h));
            }
        }
        zpoly::mul(f, g, alg).map(Product::Slab)
    })
}

fn to_list<'py>(py: Python<'py>, name: &str, h: Product) -> PyResult<Bound<'py, PyList>> {
    match h {
        Product::Slab(h) => new_list(py, h.len(), |i| h.get(i)),
        Product::Gpu(mut h) => {
            let (len, stride) = (h.len(), h.stride());
            let (mags, neg) = h.parts().map_err(|e| error(name, e))?;
            new_list(py, len, |i| HostProduct::coef(mags, neg, stride, i))
        }
    }
}

/// The coefficients of f·g (lists of ints, low degree first; f and g are sequences of int or
/// gmpy2.mpz). `alg`: "auto" (by size, on the GPU where the backend sends it) or one algorithm,
/// always on the CPU: "schoolbook", "kronecker", "divide_conquer", "toom4", "toom8",
/// "two_convolution", "small_prime_ntt", "big_prime_fft". An empty f or g gives [].
#[pyfunction]
#[pyo3(signature = (f, g, alg = "auto"))]
fn poly_mul<'py>(py: Python<'py>, f: &Bound<'py, PyAny>, g: &Bound<'py, PyAny>, alg: &str) -> PyResult<Bound<'py, PyList>> {
    let alg = alg_of(alg)?;
    let (fi, gi) = (Ints::from_seq(f, "f")?, Ints::from_seq(g, "g")?);
    let (fv, gv) = (fi.views(), gi.views());
    let h = product(py, "poly_mul", &fv, &gv, alg)?;
    to_list(py, "poly_mul", h)
}

/// The coefficients of f².
#[pyfunction]
fn poly_sqr<'py>(py: Python<'py>, f: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let fi = Ints::from_seq(f, "f")?;
    let fv = fi.views();
    let h = product(py, "poly_sqr", &fv, &fv, Alg::Auto)?;
    to_list(py, "poly_sqr", h)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(poly_mul, m)?)?;
    m.add_function(wrap_pyfunction!(poly_sqr, m)?)?;
    Ok(())
}
