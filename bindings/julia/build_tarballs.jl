# A sketch of a BinaryBuilder recipe (Julia's binary package registry, Yggdrasil:
# G/Gpmp/build_tarballs.jl) producing Gpmp_jll with libgpmp for Gpmp.jl. Not run here: fill in the
# release's URL and hash, then `julia build_tarballs.jl --debug --verbose` in a Yggdrasil checkout.
using BinaryBuilder

name = "Gpmp"
version = v"0.1.0"

sources = [
    GitSource("https://example.invalid/gpmp.git", "0000000000000000000000000000000000000000"),  # the release commit
]

# libgpmp links the GMP of GMP_jll (the one Julia's BigInt uses), so that mpz_t pass between them.
script = raw"""
cd ${WORKSPACE}/srcdir/gpmp
export GMP_MPFR_SYS_CACHE=no
cargo build --release --target ${rust_target}
make -C examples-c install PREFIX=${prefix} LIBDIR=${libdir} GPMP_LIB_DIR=target/${rust_target}/release
install_license LICENSE*
"""

platforms = [Platform("x86_64", "linux"; libc = "glibc"), Platform("aarch64", "linux"; libc = "glibc")]

products = [LibraryProduct("libgpmp", :libgpmp)]

dependencies = [Dependency("GMP_jll"; compat = "6.2")]

build_tarballs(ARGS, name, version, sources, script, platforms, products, dependencies;
               compilers = [:c, :rust], julia_compat = "1.6", preferred_gcc_version = v"10")
