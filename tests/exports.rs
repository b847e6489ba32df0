//! The dynamic symbols of libgpmp.so are exactly the committed list `include/gpmp.exports` (no
//! accidental export, no silent removal), each `gpmp_`-prefixed and declared in one of the
//! installed headers. `GPMP_BLESS=1 cargo test --test exports` rewrites the list after a deliberate
//! change (commit it with the headers).
use std::path::{Path, PathBuf};
use std::process::Command;

/// The libgpmp.so that `cargo test` built for this run (next to this test, in target/<profile>/deps).
fn library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().join("libgpmp.so")
}

/// The defined dynamic symbols of the library, sorted.
fn exported(lib: &Path) -> Option<Vec<String>> {
    let out = Command::new("nm").args(["-D", "--defined-only"]).arg(lib).output().ok()?;
    assert!(out.status.success(), "nm -D {} failed: {}", lib.display(), String::from_utf8_lossy(&out.stderr));
    let mut names: Vec<String> =
        String::from_utf8(out.stdout).unwrap().lines().filter_map(|l| l.split_whitespace().last().map(str::to_string)).collect();
    names.sort();
    names.dedup();
    Some(names)
}

#[test]
fn exported_symbols_are_the_committed_list() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = library();
    assert!(lib.exists(), "{} not found: cargo builds it with the library", lib.display());
    let Some(names) = exported(&lib) else {
        eprintln!("skipped: nm (binutils) is not installed");
        return;
    };
    let list = root.join("include/gpmp.exports");
    let fresh: String = names.iter().map(|n| format!("{n}\n")).collect();
    if std::env::var_os("GPMP_BLESS").is_some() {
        std::fs::write(&list, &fresh).unwrap();
    }
    let committed = std::fs::read_to_string(&list).unwrap_or_default();
    let want: Vec<&str> = committed.lines().collect();
    let added: Vec<&String> = names.iter().filter(|n| !want.contains(&n.as_str())).collect();
    let removed: Vec<&&str> = want.iter().filter(|w| !names.iter().any(|n| n == **w)).collect();
    assert!(
        added.is_empty() && removed.is_empty(),
        "libgpmp.so exports differ from include/gpmp.exports: new {added:?}, missing {removed:?} \
         (after a deliberate change: GPMP_BLESS=1 cargo test --test exports, and commit the list)"
    );
    let headers: String =
        ["gpmp.h", "gpmp_bpas.h", "gpmp_cumodp.h"].iter().map(|h| std::fs::read_to_string(root.join("include").join(h)).unwrap()).collect();
    for n in &names {
        assert!(n.starts_with("gpmp_"), "{n} is exported without the gpmp_ prefix");
        assert!(
            headers.contains(&format!(" {n}(")) || headers.contains(&format!("*{n}(")),
            "{n} is exported but declared in no installed header"
        );
    }
}
