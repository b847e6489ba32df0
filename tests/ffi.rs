//! The C ABI from C and C++: builds every ffi-tests/*.c (`gcc -std=c11 -Wall -Wextra -Werror`) and
//! ffi-tests/*.cpp (`g++ -std=c++17 -Wall -Wextra -Werror`) against include/ and the libgpmp.so that
//! `cargo test` built for this run, and runs them; runs ffi-tests/bpas.c and zvec.c under valgrind
//! when installed; installs into a temporary prefix with examples-c/Makefile and builds and runs the examples with
//! `cc prog.c $(pkg-config --cflags --libs gpmp)`.
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// target/<profile>/deps/, where this test is and where `cargo test` builds the libgpmp.so and
/// libgpmp.a it was linked with (only `cargo build` copies them up to target/<profile>/).
fn built_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().expect("target/<profile>/deps/<test>").to_path_buf()
}

/// A fresh scratch directory target/<profile>/ffi-tests/<name>.
fn scratch(name: &str) -> PathBuf {
    let d = built_dir().parent().unwrap().join("ffi-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A directory holding libgpmp.so under its link name and its SONAME (libgpmp.so.0).
fn lib_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let so = built_dir().join("libgpmp.so");
        assert!(so.exists(), "{} not found: cargo builds it with the library", so.display());
        let d = scratch("lib");
        for name in ["libgpmp.so", "libgpmp.so.0"] {
            std::os::unix::fs::symlink(&so, d.join(name)).unwrap();
        }
        d
    })
}

fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// `program` with GPMP_BACKEND and GPMP_NUM_THREADS unset.
fn command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut cmd = Command::new(program);
    cmd.env_remove("GPMP_BACKEND").env_remove("GPMP_NUM_THREADS");
    cmd
}

/// Runs `cmd` and asserts exit status 0; returns its output.
fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{cmd:?} failed ({}):\n{text}", out.status);
    print!("{text}");
    out
}

/// Compiles the C (.c) or C++ (.cpp) program `src` against include/ and libgpmp into `dir`.
fn compile(src: &Path, dir: &Path) -> PathBuf {
    let exe = dir.join(src.file_stem().unwrap());
    let (cc, std) = match src.extension().and_then(|e| e.to_str()) {
        Some("cpp") => ("g++", "-std=c++17"),
        _ => ("gcc", "-std=c11"),
    };
    let lib = lib_dir();
    run(command(cc)
        .args([std, "-Wall", "-Wextra", "-Werror", "-O1", "-g", "-pthread"])
        .arg(format!("-I{}", root().join("include").display()))
        .arg(format!("-DGPMP_EXPECTED_VERSION=\"{}\"", env!("CARGO_PKG_VERSION")))
        .arg(src)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(["-lgpmp", "-lgmp"]));
    exe
}

#[test]
fn c_and_cxx_programs() {
    let dir = scratch("programs");
    let mut srcs: Vec<PathBuf> = std::fs::read_dir(root().join("ffi-tests"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("c" | "cpp")))
        .collect();
    srcs.sort();
    assert!(srcs.len() >= 3, "ffi-tests/ has api.c, bpas.c and cxx.cpp");
    for src in srcs {
        run(&mut command(compile(&src, &dir)));
    }
}

#[test]
fn defaults_from_environment() {
    let exe = compile(&root().join("ffi-tests/api.c"), &scratch("env"));
    run(command(exe).env("GPMP_NUM_THREADS", "3").env("GPMP_BACKEND", "cpu"));
}

/// Runs ffi-tests/`src` under valgrind (memcheck, leaks), when installed.
fn valgrind_clean(src: &str) {
    if !have("valgrind") {
        eprintln!("valgrind is not installed: skipped");
        return;
    }
    let name = src.trim_end_matches(".c");
    let exe = compile(&root().join("ffi-tests").join(src), &scratch(&format!("valgrind-{name}")));
    // Definite leaks only: gpmp keeps process-lifetime caches (NTT plans, CRT constants) behind
    // statics, which valgrind reports as "possibly lost" through their interior pointers.
    run(command("valgrind")
        .args(["--error-exitcode=1", "--leak-check=full", "--errors-for-leak-kinds=definite", "-q"])
        .arg(format!("--suppressions={}", root().join("ffi-tests/valgrind.supp").display()))
        .arg(exe));
}

#[test]
fn bpas_layer_is_valgrind_clean() {
    valgrind_clean("bpas.c");
}

#[test]
fn zvec_lifecycle_is_valgrind_clean() {
    valgrind_clean("zvec.c");
}

#[test]
fn install_and_pkg_config() {
    if !have("make") || !have("pkg-config") {
        eprintln!("make or pkg-config is not installed: skipped");
        return;
    }
    let dir = scratch("install");
    let prefix = dir.join("prefix");
    run(command("make")
        .arg("-C")
        .arg(root().join("examples-c"))
        .arg("install")
        .arg(format!("PREFIX={}", prefix.display()))
        .arg(format!("GPMP_LIB_DIR={}", built_dir().display())));
    let libdir = prefix.join("lib");
    for f in ["libgpmp.so", "libgpmp.so.0", "libgpmp.a", "pkgconfig/gpmp.pc"] {
        assert!(libdir.join(f).exists(), "{f} not installed");
    }
    for h in ["gpmp.h", "gpmp_bpas.h", "gpmp_cumodp.h"] {
        assert!(prefix.join("include").join(h).exists(), "{h} not installed");
    }
    // The installed library: SONAME libgpmp.so.0, no debug info; gpmp.pc requires gmp.
    if have("readelf") {
        let dynamic = run(command("readelf").arg("-d").arg(libdir.join("libgpmp.so.0")));
        assert!(String::from_utf8_lossy(&dynamic.stdout).contains("Library soname: [libgpmp.so.0]"), "SONAME is not libgpmp.so.0");
        let sections = run(command("readelf").arg("-S").arg(libdir.join("libgpmp.so.0")));
        assert!(!String::from_utf8_lossy(&sections.stdout).contains(".debug_info"), "the installed library has debug info");
    } else {
        eprintln!("readelf is not installed: SONAME and debug-info checks skipped");
    }
    let requires = run(command("pkg-config").args(["--print-requires", "gpmp"]).env("PKG_CONFIG_PATH", libdir.join("pkgconfig")));
    assert!(String::from_utf8_lossy(&requires.stdout).split_whitespace().any(|r| r == "gmp"), "gpmp.pc does not require gmp");
    for (example, args) in [("poly_mul", &["300", "200"][..]), ("bpas_drop_in", &[][..])] {
        let exe = dir.join(example);
        let src = root().join("examples-c").join(format!("{example}.c"));
        run(command("sh")
            .arg("-c")
            .arg(r#"cc -std=c11 -Wall -Wextra -Werror "$1" -o "$2" $(pkg-config --cflags --libs gpmp)"#)
            .arg("sh")
            .arg(&src)
            .arg(&exe)
            .env("PKG_CONFIG_PATH", libdir.join("pkgconfig")));
        run(command(&exe).args(args).env("LD_LIBRARY_PATH", &libdir));
    }
}
