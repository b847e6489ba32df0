//! The layer rule of `src/lib.rs` and `docs/ARCHITECTURE.md`, checked on the source: every `crate::`
//! path in library code (comments and test modules left out) points to the file's own layer or one
//! below it, the C layer reaches the device engines only through the operations, and no library
//! code uses the test support.
use std::path::{Path, PathBuf};

/// The layers, bottom to top.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Layer {
    /// error, runtime, tuning, and the GPU's shared infrastructure (gpu/mod.rs, device, compile,
    /// kernels, autotune).
    Infra,
    /// CPU arithmetic: int, nmod, gfpf.
    Core,
    /// Device engines: gpu::<engine>.
    Engine,
    /// Operations: ops (the routing point) and zpoly.
    Ops,
    /// The C ABI.
    Ffi,
    /// Test support (crate::testing): never imported by library code.
    Testing,
}

const GPU_INFRA: [&str; 6] = ["device", "compile", "kernels", "autotune", "driver_err", "shield"];

/// The layer of a module path given as its segments after `crate` (`["gpu", "ntt", ...]`).
fn layer_of(segs: &[&str]) -> Option<Layer> {
    Some(match *segs.first()? {
        "int" | "nmod" | "gfpf" => Layer::Core,
        "ops" | "zpoly" => Layer::Ops,
        "ffi" => Layer::Ffi,
        "testing" => Layer::Testing,
        "gpu" => match segs.get(1) {
            None => Layer::Infra,
            Some(s) if GPU_INFRA.contains(s) || s.chars().next().is_some_and(|c| c.is_uppercase()) => Layer::Infra,
            Some(_) => Layer::Engine,
        },
        // error, runtime, tuning, and the crate root's items (Error, Result, invalid!).
        _ => Layer::Infra,
    })
}

/// The layer of a source file, from its path below src/.
fn file_layer(rel: &Path) -> Layer {
    let mut segs: Vec<String> = rel.iter().map(|s| s.to_string_lossy().trim_end_matches(".rs").to_string()).collect();
    if segs.last().is_some_and(|s| s == "mod") {
        segs.pop();
    }
    let refs: Vec<&str> = segs.iter().map(String::as_str).collect();
    layer_of(&refs).unwrap_or(Layer::Infra)
}

/// The library code of a file: comments dropped, and the items under `#[cfg(test)]` (or any cfg
/// naming `test`) skipped up to their matching brace.
fn code(src: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut skip_next_item = false;
    let mut depth: i64 = 0;
    let mut skipping = false;
    for (i, raw) in src.lines().enumerate() {
        let line = match raw.find("//") {
            Some(c) if !raw[..c].contains('"') => &raw[..c],
            _ => raw,
        };
        let t = line.trim();
        if skipping {
            depth += t.matches('{').count() as i64 - t.matches('}').count() as i64;
            if depth <= 0 {
                skipping = false;
            }
            continue;
        }
        if t.starts_with("#[cfg(") && t.contains("test") {
            skip_next_item = true;
            continue;
        }
        if skip_next_item && !t.is_empty() && !t.starts_with("#[") {
            skip_next_item = false;
            depth = t.matches('{').count() as i64 - t.matches('}').count() as i64;
            skipping = depth > 0;
            continue;
        }
        out.push((i + 1, line.to_string()));
    }
    out
}

/// The module paths a line names: `crate::a::b`, and each item of `crate::{a, b::c}`.
fn crate_paths(line: &str) -> Vec<Vec<String>> {
    let mut v = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().last();
        rest = &rest[at + 7..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let segs: Vec<String> = item.trim().split("::").map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
                if !segs.is_empty() {
                    v.push(segs);
                }
            }
            continue;
        }
        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(rest.len());
        v.push(rest[..end].split("::").filter(|s| !s.is_empty()).map(String::from).collect());
    }
    v
}

/// Whether a module of layer `from` may name one of layer `to`.
fn allowed(from: Layer, to: Layer) -> bool {
    match (from, to) {
        (_, Layer::Testing) => from == Layer::Testing,
        (Layer::Testing, _) => true,
        (Layer::Ffi, Layer::Engine) => false,
        _ => to <= from,
    }
}

/// Every violation in one file's source, as "file:line: from -> path (layer)".
fn violations(rel: &Path, src: &str) -> Vec<String> {
    let from = file_layer(rel);
    let mut bad = Vec::new();
    for (no, line) in code(src) {
        for segs in crate_paths(&line) {
            let refs: Vec<&str> = segs.iter().map(String::as_str).collect();
            // The kernel list (infrastructure) names each engine's kernel declaration: the one
            // exception, so that compile.rs reaches the kernels without naming an engine.
            if rel == Path::new("gpu/kernels.rs") && refs.last() == Some(&"KERNEL") {
                continue;
            }
            if let Some(to) = layer_of(&refs) {
                if !allowed(from, to) {
                    bad.push(format!("{}:{no}: {from:?} names crate::{} ({to:?})", rel.display(), segs.join("::")));
                }
            }
        }
    }
    bad
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_module_imports_only_its_layer_and_those_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    assert!(files.len() > 50, "found only {} source files", files.len());
    let mut bad = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        // The build script, and test modules kept in a file of their own (`#[cfg(test)] mod tests;`).
        if rel == Path::new("build.rs") || rel.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        bad.extend(violations(rel, &std::fs::read_to_string(f).unwrap()));
    }
    assert!(bad.is_empty(), "layer rule broken ({} places):\n{}", bad.len(), bad.join("\n"));
}

/// The checker itself: a deliberate bad import in each direction is caught, and what the rule
/// allows is not.
#[test]
fn the_checker_catches_deliberate_bad_imports() {
    let core = Path::new("nmod/ntt.rs");
    assert_eq!(violations(core, "use crate::gpu::ntt;\n").len(), 1, "core -> engine");
    assert_eq!(violations(core, "fn f() { crate::ops::route(x) }\n").len(), 1, "core -> ops");
    assert_eq!(violations(core, "use crate::{int::IntRef, zpoly::mul, Result};\n").len(), 1, "core -> ops in a group");
    assert_eq!(violations(Path::new("gpu/ntt.rs"), "use crate::zpoly::Alg;\n").len(), 1, "engine -> ops");
    assert_eq!(violations(Path::new("ffi/poly.rs"), "use crate::gpu::zpoly_mul::HostProduct;\n").len(), 1, "ffi -> engine");
    assert_eq!(violations(Path::new("runtime.rs"), "use crate::int::IntRef;\n").len(), 1, "infra -> core");
    assert_eq!(violations(Path::new("int/mul.rs"), "use crate::testing::Rng;\n").len(), 1, "library -> test support");
    // Allowed: downward, sideways, infra from anywhere, test modules and comments.
    assert!(violations(core, "use crate::int::IntRef;\nuse crate::{invalid, Error, Result};\nuse crate::runtime;\n").is_empty());
    assert!(violations(Path::new("gpu/batch.rs"), "use crate::gpu::zvec::DevVec;\nuse super::device;\nuse crate::int::ZList;\n").is_empty());
    assert!(violations(Path::new("ffi/gpu.rs"), "use crate::gpu::device;\nuse crate::gpu::compile::warmup;\n").is_empty());
    assert!(violations(Path::new("ops/int.rs"), "use crate::gpu::ntt_mul;\n").is_empty());
    assert!(violations(Path::new("gpu/kernels.rs"), "pub static ALL: [&Kernel; 1] = [&crate::gpu::ntt::KERNEL];\n").is_empty());
    assert_eq!(violations(Path::new("gpu/kernels.rs"), "use crate::gpu::ntt::launch;\n").len(), 1, "the list names only KERNEL");
    assert!(violations(
        core,
        "/// See [`crate::gpu::ntt`].\n#[cfg(test)]\nmod tests {\n    use crate::gpu::ntt;\n    fn f() { let s = format!(\"{x}\"); }\n}\n"
    )
    .is_empty());
    assert_eq!(violations(core, "#[cfg(test)]\nmod tests {\n}\nuse crate::gpu::ntt;\n").len(), 1, "code after a test module");
}

/// GMP functions that take no temporary memory (no `TMP_ALLOC`, no memory function): library code
/// may call them on any thread. The others (`mpz_*`, `mpn_mul`, `mpn_sqr`, `mpn_tdiv_qr`, `mpn_powm`,
/// ...) are named only by the C layer, on the caller's thread, and by `int/mpn.rs`, which calls them
/// within the sizes where their temporary space stays on the stack (the rule of `src/int/mpn.rs`).
const GMP_WITHOUT_MEMORY: [&str; 17] = [
    "mpn_add",
    "mpn_add_1",
    "mpn_add_n",
    "mpn_sub",
    "mpn_sub_1",
    "mpn_sub_n",
    "mpn_neg",
    "mpn_mul_1",
    "mpn_addmul_1",
    "mpn_submul_1",
    "mpn_divrem_1",
    "mpn_divexact_1",
    "mpn_lshift",
    "mpn_rshift",
    "mpn_cmp",
    "mpn_zero",
    "mpn_copyi",
];

/// Every call of a GMP function that may take memory outside the C layer and `int/mpn.rs`, as
/// "file:line: gmp::name" (types, such as `gmp::mpz_t`, are not calls).
fn gmp_memory_calls(rel: &Path, src: &str) -> Vec<String> {
    // Gfpf::new's primality test (mpz_probab_prime_p) runs on the caller's thread: gpmp_gfpf_new
    // calls it outside gpmp's pool.
    let allowed_here: &[&str] = if rel == Path::new("gfpf/field.rs") { &["mpz_roinit_n", "mpz_probab_prime_p"] } else { &[] };
    if rel.starts_with("ffi") || rel == Path::new("int/mpn.rs") {
        return Vec::new();
    }
    let mut bad = Vec::new();
    for (no, line) in code(src) {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("gmp::") {
            rest = &rest[at + 5..];
            let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
            let (name, after) = rest.split_at(end);
            let call = after.trim_start().starts_with('(');
            if call && !GMP_WITHOUT_MEMORY.contains(&name) && !allowed_here.contains(&name) {
                bad.push(format!("{}:{no}: gmp::{name}", rel.display()));
            }
        }
    }
    bad
}

#[test]
fn library_code_calls_gmp_functions_that_take_memory_only_where_allowed() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut bad = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        if rel.starts_with("testing") || rel.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        bad.extend(gmp_memory_calls(rel, &std::fs::read_to_string(f).unwrap()));
    }
    assert!(bad.is_empty(), "GMP functions that may take memory called outside the C layer and int/mpn.rs:\n{}", bad.join("\n"));
    // The checker itself.
    let core = Path::new("int/batch.rs");
    assert_eq!(gmp_memory_calls(core, "unsafe { gmp::mpn_mul(r, a, 1, b, 1) };\n").len(), 1);
    assert_eq!(gmp_memory_calls(core, "gmp::mpz_powm (r, b, e, m);\n").len(), 1);
    assert!(gmp_memory_calls(
        core,
        "gmp::mpn_add_n(r, a, b, n); let z: gmp::mpz_t;\n#[cfg(test)]\nmod tests {\n fn f() { gmp::mpz_mul(a, b, c) }\n}\n"
    )
    .is_empty());
    assert!(gmp_memory_calls(Path::new("int/mpn.rs"), "gmp::mpn_tdiv_qr(q, r, 0, n, 1, d, 1);\n").is_empty());
}
