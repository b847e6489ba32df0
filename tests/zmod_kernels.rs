//! kernels/zmod.cu without a GPU: tests/zmod_kernels/emulate.cpp runs its mulmod and powm kernels
//! on the host, thread by thread, against GMP (`g++ -std=c++17 -DL=<limbs>`, for L = 1, 2, 5 and 16,
//! with moduli of 1..L limbs padded to L). The device's PTX multiply-add is checked against the CPU
//! path by the `gpu-tests` of src/gpu/zmod.rs.
use std::path::Path;
use std::process::Command;

#[test]
fn zmod_kernels_emulated_on_the_host_match_gmp() {
    if !Command::new("g++").arg("--version").output().is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: no g++");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe_dir = std::env::current_exe().unwrap().parent().unwrap().join("zmod-kernels");
    std::fs::create_dir_all(&exe_dir).unwrap();
    for l in [1, 2, 5, 16] {
        let exe = exe_dir.join(format!("emulate-{l}"));
        let out = Command::new("g++")
            .args(["-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-Wno-unknown-pragmas", &format!("-DL={l}")])
            .arg(format!("-I{}", root.join("kernels").display()))
            .arg(root.join("tests/zmod_kernels/emulate.cpp"))
            .arg("-o")
            .arg(&exe)
            .arg("-lgmp")
            .output()
            .unwrap();
        assert!(out.status.success(), "g++ failed:\n{}", String::from_utf8_lossy(&out.stderr));
        let run = Command::new(&exe).output().unwrap();
        let text = String::from_utf8_lossy(&run.stdout);
        print!("{text}");
        assert!(run.status.success(), "L={l}:\n{text}");
    }
}
