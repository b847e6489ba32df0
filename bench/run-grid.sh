#!/usr/bin/env bash
# Runs the Z[x] poly-mul grid (gpmp vs FLINT 3 at 1, 2 and all threads) and prints it as a markdown
# section for bench/results/cpu-zpoly.md (date, machine, commit, command, tables) on stdout; progress
# goes to stderr.
#   bench/run-grid.sh                 (or: make -C bench grid)
#   bench/run-grid.sh --threads 1,2   (arguments go to gpmp-bench poly-mul)
set -euo pipefail
cd "$(dirname "$0")/.."
make -s -C bench >&2
args=(poly-mul "$@")
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
flags=$(for f in avx2 avx512f avx512ifma adx bmi2; do grep -qw "$f" /proc/cpuinfo && printf "%s " "$f"; done | sed "s/ $//")
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD -- src include 2>/dev/null || commit="$commit (src/ or include/ modified)"
cat <<MD
## The Z[x] grid: gpmp_poly_mul against FLINT fmpz_poly_mul

- Measured: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit, release build
- Machine: $cpu, $(nproc) logical cores (flags: ${flags:-none}); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)
- FLINT: ${FLINT_PREFIX:-$HOME/.cache/flint3-native/3.6.1} (native build with fft_small, bench/README.md)
- Command: \`bench/run-grid.sh $*\` = \`make -C bench\`, then \`bench/build/gpmp-bench ${args[*]}\`
- Inputs: splitmix64 (seed 42 unless --seed), signed coefficients of exactly b bits; every gpmp product
  checked coefficient by coefficient against FLINT's.

MD
bench/build/gpmp-bench "${args[@]}"
