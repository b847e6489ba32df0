//! The kernel registry: every CUDA C file of `kernels/`, each declared as a [`Kernel`] by the engine
//! that launches it (its source, embedded at build time, and the specialisations the engine can
//! request), named once in [`ALL`]. [`super::compile`] takes the sources from here and imports no
//! engine; `gpmp_gpu_warmup` and the NVRTC test compile [`all_specs`].
//!
//! Every source is compiled as [`COMMON`] (`kernels/common.cuh`: the word types and the modular
//! arithmetic on one word that several kernels share) followed by the file itself.
use crate::{Error, Result};

/// `kernels/common.cuh`, prepended to every kernel file.
pub const COMMON: &str = include_str!("../../kernels/common.cuh");

/// One CUDA C file of `kernels/`.
pub struct Kernel {
    /// The file name, e.g. "ntt.cu" (what a [`Spec`] names).
    pub file: &'static str,
    /// Its text (`include_str!`).
    pub source: &'static str,
    /// Whether it uses `__int128` (then NVRTC needs `--device-int128`).
    pub int128: bool,
    /// Every specialisation its engine can request.
    pub specs: fn() -> Vec<Spec>,
}

/// A kernel file and its `-D` defines: one compiled module.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Spec {
    /// The [`Kernel::file`] it specialises.
    pub source: &'static str,
    pub defines: Vec<(&'static str, i64)>,
}

/// Every kernel file, one line per engine.
pub static ALL: &[&Kernel] = &[
    &crate::gpu::ntt::KERNEL,
    &crate::gpu::gfpf::KERNEL,
    &crate::gpu::zvec::KERNEL,
    &crate::gpu::batch::KERNEL,
    &crate::gpu::zpoly_mul::KERNEL,
    &crate::gpu::ntt_mul::KERNEL,
    &crate::gpu::tree::KERNEL,
];

/// The kernel file named `file`.
pub fn find(file: &str) -> Result<&'static Kernel> {
    ALL.iter().copied().find(|k| k.file == file).ok_or_else(|| Error::Internal(format!("no kernel source {file}")))
}

/// Every specialisation the library can request, kernel by kernel in the order of [`ALL`].
pub fn all_specs() -> Vec<Spec> {
    ALL.iter().flat_map(|k| (k.specs)()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_is_listed_once_and_its_specs_name_it() {
        for (i, k) in ALL.iter().enumerate() {
            assert!(ALL[..i].iter().all(|o| o.file != k.file), "{} listed twice", k.file);
            assert!(std::ptr::eq(find(k.file).unwrap(), *k));
            let specs = (k.specs)();
            assert!(!specs.is_empty() && specs.iter().all(|s| s.source == k.file), "{}", k.file);
            assert!(k.source.contains("extern \"C\" __global__"), "{}", k.file);
        }
        let Ok(dir) = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/kernels")) else {
            println!("skipped: kernels/ is not here (a test binary copied away from its source tree)");
            return;
        };
        let files: Vec<_> = dir.map(|e| e.unwrap().file_name().into_string().unwrap()).filter(|f| f.ends_with(".cu")).collect();
        assert_eq!(files.len(), ALL.len(), "every kernels/*.cu is registered: {files:?}");
        assert!(matches!(find("nope.cu"), Err(Error::Internal(_))));
    }
}
