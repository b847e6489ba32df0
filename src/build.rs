//! Gives the shared library its SONAME (libgpmp.so.0) so that installed copies can be versioned.
fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libgpmp.so.0");
    }
    println!("cargo:rerun-if-changed=src/build.rs");
}
