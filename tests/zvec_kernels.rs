//! kernels/zvec.cu without a GPU: tests/zvec_kernels/emulate.cpp runs its add/sub and product kernels
//! on the host, thread by thread, against GMP (`g++ -std=c++17 -DC=<limbs>`, for C = 1, 3 and 16:
//! the register product, and chunks of 1, 3 and 16 limbs for larger operands). The device's PTX
//! multiply-accumulate is checked against the same results by the `gpu-tests`.
use std::path::Path;
use std::process::Command;

#[test]
fn zvec_kernels_emulated_on_the_host_match_gmp() {
    if !Command::new("g++").arg("--version").output().is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: no g++");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe_dir = std::env::current_exe().unwrap().parent().unwrap().join("zvec-kernels");
    std::fs::create_dir_all(&exe_dir).unwrap();
    for c in [1, 3, 16] {
        let exe = exe_dir.join(format!("emulate-{c}"));
        let out = Command::new("g++")
            .args(["-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-Wno-unknown-pragmas", &format!("-DC={c}")])
            .arg(format!("-I{}", root.join("kernels").display()))
            .arg(root.join("tests/zvec_kernels/emulate.cpp"))
            .arg("-o")
            .arg(&exe)
            .arg("-lgmp")
            .output()
            .unwrap();
        assert!(out.status.success(), "g++ failed:\n{}", String::from_utf8_lossy(&out.stderr));
        let run = Command::new(&exe).output().unwrap();
        let text = String::from_utf8_lossy(&run.stdout);
        print!("{text}");
        assert!(run.status.success(), "C={c}:\n{text}");
    }
}
