#!/usr/bin/env bash
# The GPU benchmarks and device tests, run on a CUDA machine from the folder that bench/gpu/pack.sh
# filled (.gpu/ at the repository root; no Rust toolchain needed there, only the NVIDIA driver,
# libnvrtc 12 or 13 and the packed libraries).
#
#   usage: bench/gpu/run.sh MODE [OUTDIR]
#     tests   the device tests: the library's tests whose name contains gpu or zvec
#     suite   every test of the library, CPU and GPU (about 7 minutes at 8 threads on a 16-core host)
#     ntt     gpu_ntt: kernel-only NTT table (every pass structure, the autotuner's pick marked) at
#             2^20, 2^22, 2^24, then end to end (host words) GPU against the CPU
#     gfpf    gpu_gfpf: GFPF DFT kernel-only table with bounds, mul_n/add_n, end to end
#     zvec    gpu_zvec: device-resident zvec mul/add/sub at 2^20 elements against CGBN, end to end
#     zmod    gpu_zmod: Montgomery mulmod/powm at 1024 and 2048 bits, and the mpz_*_n route
#     bigmul  gpu_bigmul (one big-integer product, kernel-only and limbs to limbs, 2^20..2^30 bits);
#             with FLINT: gpmp_mpz_mul on the GPU against FLINT fmpz_mul at 1 thread, and the AUTO
#             crossover (GPU, CPU and AUTO backends at 2^16..2^22 bits)
#     poly    gpu_poly (Z[x] product: kernel-only, GPU end to end, CPU path); with FLINT:
#             gpmp_poly_mul (AUTO) against FLINT on all cores, gpmp_nmod_poly_mul (CPU and GPU)
#             against FLINT nmod_poly_mul
#     tree    gpu_tree: multipoint evaluation and interpolation mod p on the GPU against gpmp's CPU
#             path at 2^16..2^22 points, tree built apart, and the time of each level against its NTTs
#     multi   gpu_multi: the Z[x] product 2^22 x 2^22 (1024-bit) and powm_n 2^20 (1024-bit) end to
#             end on 1, 2, 4 and all devices, speedups against one device (under 4 minutes)
#     cold    first use in a fresh process: gpu_coldstart (context, first and second 2^16 x 2^16
#             product; gpmp_gpu_warmup) and small runs of gpu_ntt, gpu_zvec, gpu_zmod, gpu_bigmul
#             and gpu_poly, each once with an empty kernel cache (NVRTC compiles) and once more with
#             the cache it left; GPMP_LOG=debug shows each module's compile and load time
#     all     tests, then every benchmark above and cold (about 8 minutes on an H100 host)
#
# Logs go to OUTDIR (else $OUT, else gpu-logs/): device.md (date, GPU, driver, CPU, what was
# packed), one MODE.md per mode, summary.md (each step's exit status and seconds). Every step has
# its own time limit. DRY_RUN=1 prints the commands instead of running them. GPU_DIR names another
# packed folder. The kernel cache lives in $XDG_CACHE_HOME/gpmp (default here: /tmp/gpmp-cache), so
# that the benchmarks after `tests` find their kernels compiled. The library reads only the
# documented variables (GPMP_BACKEND, GPMP_NUM_THREADS, GPMP_KERNEL_CACHE, GPMP_AUTOTUNE,
# GPMP_CUDA_DEVICES, GPMP_CUDA_DEVICE, GPMP_LOG, GPMP_SYNC); this script sets GPMP_BACKEND for single commands only.
set -u
mode=${1:-}
last=""
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
H=${GPU_DIR:-$top/.gpu}
out=${2:-${OUT:-$PWD/gpu-logs}}
dry=${DRY_RUN:-}
modes="tests suite ntt gfpf zvec zmod bigmul poly tree multi cold all"
case " $modes " in *" $mode "*) ;; *)
  sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2;; esac
if [ -z "$dry" ] && [ ! -d "$H/bin" ]; then
  echo "no packed build in $H: run bench/gpu/pack.sh on the build machine and copy .gpu/ here" >&2; exit 2
fi
mkdir -p "$out"
threads=$(nproc)

nv=$(find /usr /opt -name 'libnvrtc.so.13' -o -name 'libnvrtc.so.12' 2>/dev/null | head -1)
export LD_LIBRARY_PATH="$H/lib${nv:+:$(dirname "$nv")}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/gpmp-cache}

# step LOG SECONDS CMD...: runs CMD (with env assignments in front if given) under a time limit,
# appends its output to LOG.md with the command line, and records status and seconds in summary.md.
step() {
  local log=$out/$1.md limit=$2; shift 2
  echo "\$ $*" | tee -a "$log"
  if [ -n "$dry" ]; then return 0; fi
  local s=$(date +%s%N) rc
  timeout "$limit" env "$@" >> "$log" 2>&1; rc=$?
  local ms=$(( ($(date +%s%N) - s) / 1000000 ))
  local dt=$((ms / 1000)).$(printf %03d $((ms % 1000)))
  printf '| %s | %s | %s | %s |\n' "$(basename "$log" .md)" "$*" "$rc" "$dt" >> "$out/summary.md"
  [ $rc = 124 ] && echo "(stopped at the ${limit} s limit)" >> "$log"
  echo >> "$log"
  echo "[rc=$rc ${dt}s]"
  last="$dt (rc $rc)"
}
# have BIN: whether the packed program exists (prints why a step is skipped otherwise).
have() {
  [ -n "$dry" ] || [ -x "$H/bin/$1" ] && return 0
  echo "skipped: $1 is not packed (pack.sh found no FLINT 3)" | tee -a "$out/$2.md"; return 1
}

device_info() {
  [ -n "$dry" ] && return 0
  { echo "# GPU run, $(date -u '+%Y-%m-%d %H:%M UTC')"; echo
    echo '```'
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1
    echo "nvrtc: ${nv:-not found}"
    lscpu | grep -E "Model name|^CPU\(s\)"
    cat "$H/PACKED" 2>/dev/null
    echo '```'; } > "$out/device.md"
  cat "$out/device.md"
}

# run_tests LOG FILTER...: the library's test executable (gpmp-lib) with the filters (none: every
# test), then each other packed test executable with the filter `gpu` (the integration tests in
# tests/ are host checks that need the source tree, a C compiler and gmp.h: CI runs them).
run_tests() {
  local log=$1; shift
  step "$log" 420 "$H/tests/gpmp-lib" --test-threads=8 "$@"
  for t in "$H"/tests/*; do
    [ "$(basename "$t")" = gpmp-lib ] || step "$log" 120 "$t" --test-threads=8 gpu
  done
  [ -z "$dry" ] && grep -hE "^test result|panicked|FAILED|^failures:" "$out/$log.md" | tail -20
}

run_mode() {
  case $1 in
  tests) run_tests tests gpu zvec ;;
  suite) run_tests suite ;;
  ntt)
    step ntt 120 "$H/bin/gpu_ntt" 10 20 22 24
    step ntt 120 "$H/bin/gpu_ntt" e2e 3 ;;
  gfpf)
    step gfpf 120 "$H/bin/gpu_gfpf" 10 ;;
  zvec)
    step zvec 150 "$H/bin/gpu_zvec" 5 20 ;;
  zmod)
    step zmod 150 "$H/bin/gpu_zmod" 5 20 20 18 ;;
  bigmul)
    step bigmul 90 "$H/bin/gpu_bigmul" 20 24 26 28 30
    if have mpz-flint bigmul; then
      step bigmul 90 BENCH_THREADS="$threads" BENCH_WARMUP=1 BENCH_SKIP_GMP=1 GPMP_BACKEND=gpu \
        "$H/bin/mpz-flint" "$threads" 2 26 30
      for b in gpu cpu auto; do
        step bigmul 60 BENCH_THREADS="$threads" BENCH_WARMUP=1 BENCH_SKIP_GMP=1 GPMP_BACKEND=$b \
          "$H/bin/mpz-flint" "$threads" 5 16 17 18 19 20 22
      done
    fi ;;
  poly)
    step poly 150 "$H/bin/gpu_poly" 5
    if have gpmp-bench poly; then
      step poly 150 BENCH_WARMUP=1 "$H/bin/gpmp-bench" poly-mul --threads "$threads" \
        --cases 2^16:256,2^17:64,2^20:64,2^20x2^4:64,2^20:256,2^22:64 --min-time 0.2
    fi
    if have nmod-flint poly; then
      for b in cpu gpu; do
        step poly 90 BENCH_CLOCK=wall GPMP_BACKEND=$b "$H/bin/nmod-flint" "$threads"
      done
    fi ;;
  tree)
    step tree 180 "$H/bin/gpu_tree" 5 ;;
  multi)
    step multi 240 "$H/bin/gpu_multi" 22 20 ;;
  cold)
    # One process per program and cache state; the wall time of the whole process is the number.
    local c=/tmp/gpmp-cold-cache rows="" empty
    for p in "gpu_coldstart first" "gpu_coldstart warmup" "gpu_ntt 1 16" "gpu_zvec kernels" "gpu_zmod 1 10 10 10 resident" "gpu_bigmul 20" \
             "gpu_poly 1 2^14:64"; do
      [ -z "$dry" ] && rm -rf "$c"
      step cold 300 GPMP_LOG=debug XDG_CACHE_HOME=$c $H/bin/$p; empty=$last
      step cold 120 GPMP_LOG=debug XDG_CACHE_HOME=$c $H/bin/$p
      rows+="| $p | $empty | $last |"$'\n'
    done
    [ -z "$dry" ] && rm -rf "$c"
    [ -z "$dry" ] && printf '| program | empty cache: s | filled cache: s |\n|---|--:|--:|\n%s' "$rows" | tee -a "$out/cold.md" ;;
  esac
}

device_info
[ -f "$out/summary.md" ] || printf '| log | command | status | seconds |\n|---|---|---|--:|\n' > "$out/summary.md"
if [ "$mode" = all ]; then
  for m in tests ntt gfpf zvec zmod bigmul poly tree cold; do echo "== $m"; run_mode $m; done
else
  run_mode "$mode"
fi
[ -z "$dry" ] && cat "$out/summary.md"
exit 0
