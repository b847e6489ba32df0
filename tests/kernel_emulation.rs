//! CUDA kernels without a GPU: tests/<kernel>_kernels/emulate.cpp runs a kernel file's entry points
//! on the host, thread by thread, against GMP (`g++ -std=c++17 -D<macro>=<limbs>`). The device's
//! PTX multiply-adds are checked against the CPU path by the `gpu-tests` of src/gpu/.
use std::path::Path;
use std::process::Command;

/// Builds tests/`dir`/emulate.cpp once per value of `macro` (with kernels/ on the include path and
/// the `extra` defines, `NAME=VALUE`) and runs it; every build and run must succeed.
fn emulate(dir: &str, macro_name: &str, values: &[u32], extra: &[&str]) {
    if !Command::new("g++").arg("--version").output().is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: no g++");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe_dir = std::env::current_exe().unwrap().parent().unwrap().join(dir);
    std::fs::create_dir_all(&exe_dir).unwrap();
    for v in values {
        let exe = exe_dir.join(format!("emulate-{macro_name}{v}{}", extra.join("-")));
        let out = Command::new("g++")
            .args(["-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-Wno-unknown-pragmas", &format!("-D{macro_name}={v}")])
            .args(extra.iter().map(|d| format!("-D{d}")))
            .arg(format!("-I{}", root.join("kernels").display()))
            .arg(root.join("tests").join(dir).join("emulate.cpp"))
            .arg("-o")
            .arg(&exe)
            .arg("-lgmp")
            .output()
            .unwrap();
        assert!(out.status.success(), "g++ failed:\n{}", String::from_utf8_lossy(&out.stderr));
        let run = Command::new(&exe).output().unwrap();
        let text = String::from_utf8_lossy(&run.stdout);
        print!("{text}");
        assert!(run.status.success(), "{macro_name}={v}:\n{text}");
    }
}

/// kernels/zvec.cu: add/sub and the products, C = 1, 3, 16 limbs: the register product, and chunks
/// of 1, 3 and 16 limbs for larger operands.
#[test]
fn zvec_kernels_emulated_on_the_host_match_gmp() {
    emulate("zvec_kernels", "C", &[1, 3, 16], &[]);
}

/// kernels/zvec.cu's wide chunked product zv_mulw, chunks of CW = 2, 6 and 32 limbs (the 4096-bit
/// default: 2 chunks; the small ones: many chunks, short last chunks, every ragged block), in
/// groups of 8 columns (the default) with CW = 4, 12, 32 in units of 2 blocks and CW = 12 in
/// units of 1, and of 4 columns with CW = 2, 6, 32 in units of 4.
#[test]
fn zvec_wide_product_emulated_on_the_host_matches_gmp() {
    emulate("zvec_kernels", "CW", &[4, 12, 32], &[]);
    emulate("zvec_kernels", "CW", &[12], &["ZW_U=1"]);
    emulate("zvec_kernels", "CW", &[2, 6, 32], &["ZW_E=4", "ZW_U=4"]);
}

/// kernels/zmod.cu: mulmod and powm for moduli of 1..L limbs padded to L = 1, 2, 5, 16.
#[test]
fn zmod_kernels_emulated_on_the_host_match_gmp() {
    emulate("zmod_kernels", "L", &[1, 2, 5, 16], &[]);
}
