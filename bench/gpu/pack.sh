#!/usr/bin/env bash
# Builds, on a machine with the Rust toolchain (no GPU needed), everything bench/gpu/run.sh runs on a
# CUDA machine that has no toolchain, and gathers it in the git-ignored folder .gpu/ at the
# repository root:
#   .gpu/lib/     libgpmp.so and libgpmp.so.0 (the SONAME), libgmp.so.10; with FLINT also
#                 libflint.so.* and libmpfr.so.*
#   .gpu/tests/   the test executables built with --features gpu-tests: gpmp-lib (the library's unit
#                 tests) and one per tests/*.rs, named after the test target
#   .gpu/bin/     the release examples of bench/ (gpu_ntt, gpu_gfpf, gpu_zvec, gpu_zmod, gpu_bigmul,
#                 gpu_poly, nmod_bench, gfpf_bench, thresholds); with FLINT also the C comparisons
#                 gpmp-bench, mpz-flint and nmod-flint (make -C bench)
#   .gpu/run-tests.sh  runs every packed test executable (arguments go to each, e.g. a name filter)
#   .gpu/PACKED   commit, date, features and what was packed (copied into every run's logs)
#
#   usage: bench/gpu/pack.sh
# The C comparisons need FLINT 3 in $FLINT_PREFIX (default ~/.cache/flint3-native/3.6.1, as for
# bench/Makefile); without it they are left out and run.sh skips their rows. Debug information is
# stripped so that the folder stays small (about 20 MB).
set -euo pipefail
top=$(git rev-parse --show-toplevel)
cd "$top"
features=gpu-tests
flint=${FLINT_PREFIX:-$HOME/.cache/flint3-native/3.6.1}
strip_to() { cp "$1" "$2" && { strip --strip-debug "$2" 2>/dev/null || true; }; }

rm -rf .gpu && mkdir -p .gpu/lib .gpu/tests .gpu/bin

# 1. The C comparisons against FLINT (their make step builds the release library).
if [ -f "$flint/include/flint/flint.h" ]; then
  make -C bench FLINT_PREFIX="$flint" all "$top/bench/build/mpz-flint" "$top/bench/build/nmod-flint" >&2
  for b in gpmp-bench mpz-flint nmod-flint; do strip_to "bench/build/$b" ".gpu/bin/$b"; done
  cp -L "$flint"/lib/libflint.so.[0-9]* .gpu/lib/
  mpfr=$(ldd bench/build/gpmp-bench | awk '/libmpfr/ {print $3}')
  [ -n "$mpfr" ] && cp -L "$mpfr" .gpu/lib/
  with_flint=yes
else
  echo "pack: FLINT 3 not found in $flint: gpmp-bench, mpz-flint and nmod-flint are not packed" >&2
  with_flint=no
fi

# 2. The library and the examples of bench/, then the test executables with the GPU tests compiled in
#    (the feature adds tests only: the library itself is the same).
cargo build --release --lib --examples >&2
examples=$(cargo metadata --no-deps --format-version 1 |
  python3 -c 'import sys, json
for p in json.load(sys.stdin)["packages"]:
    for t in p["targets"]:
        if "example" in t["kind"]: print(t["name"])')
for e in $examples; do strip_to "target/release/examples/$e" ".gpu/bin/$e"; done
cargo test --release --features "$features" --no-run --message-format=json 2>/dev/null |
  python3 -c 'import sys, json
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m.get("profile", {}).get("test"):
        t = m["target"]
        name = "gpmp-lib" if "lib" in t["kind"] or "cdylib" in t["kind"] else t["name"]
        print(name, m["executable"])' |
  while read -r name exe; do strip_to "$exe" ".gpu/tests/$name"; done

# 3. The library.
strip_to target/release/libgpmp.so .gpu/lib/libgpmp.so
ln -s libgpmp.so .gpu/lib/libgpmp.so.0
gmp=$(ldd target/release/libgpmp.so | awk '/libgmp/ {print $3}')
[ -n "$gmp" ] && cp -L "$gmp" .gpu/lib/

cat > .gpu/run-tests.sh <<'RUN'
#!/usr/bin/env bash
# Runs every packed test executable with the packed libraries on the library path; arguments go to
# each (a name filter, --test-threads=N, ...). Exit status 1 when any of them fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fail=0
for t in "$here"/tests/*; do
  echo "== $(basename "$t")"
  "$t" "$@" || fail=1
done
exit $fail
RUN
chmod +x .gpu/run-tests.sh

{
  echo "commit: $(git describe --always --dirty)"
  echo "packed: $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -n)"
  echo "features: $features"
  echo "flint: $with_flint"
  echo "tests: $(ls .gpu/tests | tr '\n' ' ')"
  echo "bin: $(ls .gpu/bin | tr '\n' ' ')"
} > .gpu/PACKED
cat .gpu/PACKED
du -sh .gpu
