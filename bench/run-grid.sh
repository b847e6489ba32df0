#!/usr/bin/env bash
# Runs the issue-2 poly-mul grid (gpmp vs FLINT 3, 1 thread and all threads) and prints the
# markdown for bench/results/cpu-zpoly.md on stdout; progress goes to stderr.
#   bench/run-grid.sh > bench/results/cpu-zpoly.md          (or: make -C bench grid)
#   bench/run-grid.sh --alg auto,ntt                          (extra arguments go to gpmp-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
make -s -C bench >&2
args=(poly-mul "$@")
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
flags=$(for f in avx2 avx512f avx512ifma adx bmi2; do grep -qw "$f" /proc/cpuinfo && printf "%s " "$f"; done | sed "s/ $//")
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD -- src include 2>/dev/null || commit="$commit (src/ or include/ modified)"
cat <<MD
# gpmp vs FLINT 3: dense Z[x] multiplication on the CPU

- Date: $(date -u '+%Y-%m-%d %H:%M UTC')
- CPU: $cpu, $(nproc) logical cores (flags: ${flags:-none}); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)
- gpmp commit: $commit, release build (\`cargo build --release\`)
- FLINT: ${FLINT_PREFIX:-$HOME/.cache/flint3-native/3.6.1} (built by \`shared/bench/build-flint3.sh\`, native, fft_small)
- Thread counts: 1, 2 and all $(nproc) cores unless --threads says otherwise (gpmp_set_num_threads / flint_set_num_threads)
- Command: \`bench/run-grid.sh $*\` = \`make -C bench\` then \`bench/build/gpmp-bench ${args[*]}\`
- Inputs: deterministic (splitmix64, seed 42 unless --seed) signed coefficients of exactly b bits; every gpmp
  product was checked coefficient by coefficient against FLINT's.

MD
bench/build/gpmp-bench "${args[@]}"
