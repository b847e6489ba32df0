//! CUDA kernels without a GPU: tests/<kernel>_kernels/emulate.cpp runs a kernel file's device code on
//! the host (tests/emulate_cuda.h shims the CUDA built-ins and includes kernels/common.cuh, as NVRTC
//! sees it) and checks it against an independent host computation: GMP for zvec, batch and gfpf, a
//! recursive radix-2 NTT for ntt, GMP's tableau for the Taylor shift of zpoly_mul. Each is built with
//! `g++ -std=c++17` once per set of `-D` defines (for ntt and gfpf the library's own specialisations). The device's PTX forms (carry chains,
//! multiply-adds) are checked against the CPU path by the `gpu-tests` of src/gpu/.
use gpmp::gfpf::Gfpf;
use gpmp::gpu::kernels::Spec;
use std::path::Path;
use std::process::Command;

/// Builds tests/`dir`/emulate.cpp once per entry of `builds` (its defines, `NAME=VALUE`), with
/// kernels/ on the include path, and runs it; every build and run must succeed.
fn emulate(dir: &str, builds: &[Vec<String>]) {
    if !Command::new("g++").arg("--version").output().is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: no g++ to build the host emulation of the kernels");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe_dir = std::env::current_exe().unwrap().parent().unwrap().join(dir);
    std::fs::create_dir_all(&exe_dir).unwrap();
    for defines in builds {
        let exe = exe_dir.join(format!("emulate-{}", defines.join("-").replace('=', "")));
        let out = Command::new("g++")
            .args(["-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-Wno-unknown-pragmas"])
            .args(defines.iter().map(|d| format!("-D{d}")))
            .arg(format!("-I{}", root.join("kernels").display()))
            .arg(root.join("tests").join(dir).join("emulate.cpp"))
            .arg("-o")
            .arg(&exe)
            .arg("-lgmp")
            .output()
            .unwrap();
        assert!(out.status.success(), "g++ {defines:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
        let run = Command::new(&exe).output().unwrap();
        let text = String::from_utf8_lossy(&run.stdout);
        print!("{text}");
        assert!(run.status.success(), "{dir} {defines:?}:\n{text}");
    }
}

/// One build per value of `name`, with the `extra` defines.
fn each(name: &str, values: &[u32], extra: &[&str]) -> Vec<Vec<String>> {
    values.iter().map(|v| std::iter::once(format!("{name}={v}")).chain(extra.iter().map(|d| d.to_string())).collect()).collect()
}

/// The defines of a library specialisation.
fn defines(spec: &Spec) -> Vec<String> {
    spec.defines.iter().map(|(k, v)| format!("{k}={v}")).collect()
}

/// kernels/zvec.cu: add/sub and the products, C = 1, 3, 16 limbs: the register product, and chunks
/// of 1, 3 and 16 limbs for larger operands; zv_addsubv with one and two elements a thread in
/// register blocks of 1, 2 and 8 limbs (one block or many: the comparison pass).
#[test]
fn zvec_kernels_emulated_on_the_host_match_gmp() {
    emulate("zvec_kernels", &each("C", &[1, 3, 16], &[]));
    emulate("zvec_kernels", &each("ZA_K", &[1, 2, 8], &["C=1", "ZA_V=2"]));
    emulate("zvec_kernels", &each("ZA_K", &[8], &["C=2", "ZA_V=1"]));
}

/// kernels/zvec.cu's wide chunked product zv_mulw, chunks of CW = 2, 6 and 32 limbs (the 4096-bit
/// default: 2 chunks; the small ones: many chunks, short last chunks, every ragged block), in
/// groups of 8 columns (the default) with CW = 4, 12, 32 in units of 2 blocks and CW = 12 in
/// units of 1, and of 4 columns with CW = 2, 6, 32 in units of 4.
#[test]
fn zvec_wide_product_emulated_on_the_host_matches_gmp() {
    emulate("zvec_kernels", &each("CW", &[4, 12, 32], &[]));
    emulate("zvec_kernels", &each("CW", &[12], &["ZW_U=1"]));
    emulate("zvec_kernels", &each("CW", &[2, 6, 32], &["ZW_E=4", "ZW_U=4"]));
}

/// kernels/batch.cu: mulmod and powm for moduli of 1..L limbs padded to L = 1, 2, 5, 16: mulmod by
/// three Montgomery products, squares by the general product, 4-bit windows; mulmod of operands of
/// at most L limbs by two products, squares by `mont_sqr`, windows of 1, 3, 5 and 6 bits (windows
/// crossing limbs).
#[test]
fn batch_kernels_emulated_on_the_host_match_gmp() {
    emulate("batch_kernels", &each("L", &[1, 2, 5, 16], &["ZM_W=4", "ZM_SQR=0", "ZM_MUL2=0"]));
    emulate("batch_kernels", &each("L", &[1, 2, 5, 16], &["ZM_W=5", "ZM_SQR=1", "ZM_MUL2=1"]));
    emulate("batch_kernels", &each("ZM_W", &[1, 3, 6], &["L=3", "ZM_SQR=1", "ZM_MUL2=1"]));
}

/// kernels/ntt.cu, every specialisation the library compiles (64-bit words lazy and canonical,
/// 32-bit words): both pass kernels, one to three passes, forward and inverse, against a host NTT.
#[test]
fn ntt_kernels_emulated_on_the_host_match_a_host_ntt() {
    let specs = gpmp::gpu::ntt::specs();
    assert_eq!(specs.len(), 3);
    emulate("ntt_kernels", &specs.iter().map(defines).collect::<Vec<_>>());
}

/// kernels/gfpf.cu's field arithmetic (add, sub, mul, neg, multiplication by powers of r, the DFT
/// butterfly halves) for P3, P4, k = 2 and 4 (r close to 2^64) and r = 6, k = 2, each with the
/// library's specialisation of its field, against GMP modulo r^k + 1.
#[test]
fn gfpf_kernels_emulated_on_the_host_match_gmp() {
    let fields = [Gfpf::builtin(8), Gfpf::builtin(16), Gfpf::builtin(2), Gfpf::builtin(4), Gfpf::new(6, 2)];
    let builds: Vec<Vec<String>> =
        fields.iter().map(|f| f.as_ref().unwrap()).map(|f| defines(&gpmp::gpu::gfpf::spec(f.radix(), f.k()))).collect();
    emulate("gfpf_kernels", &builds);
}

/// kernels/zpoly_mul.cu's Taylor shift path (residues of f reversed, `shift_scale`, `shift_unscale`,
/// `garner`; the transforms replaced by a schoolbook convolution) against GMP's tableau, with the
/// library's block size and with NT = 32 (several indices a thread).
#[test]
fn zpoly_mul_shift_kernels_emulated_on_the_host_match_gmp() {
    let specs = gpmp::gpu::zpoly_mul::specs();
    assert_eq!(specs.len(), 1);
    emulate("zpoly_mul_kernels", &[defines(&specs[0]), vec!["NT=32".to_string()]]);
}

/// kernels/tree.cu, the library's specialisation: evaluation and interpolation through every kernel
/// in the engine's order (a naive DFT standing in for the NTT), against Horner and
/// interpolate∘evaluate = id, for a 30- and a 62-bit Fourier prime, n = 1 … 300 and plain levels up to
/// H = 0, 1, 2, 6.
#[test]
fn tree_kernels_emulated_on_the_host_match_horner() {
    emulate("tree_kernels", &gpmp::gpu::tree::specs().iter().map(defines).collect::<Vec<_>>());
}
