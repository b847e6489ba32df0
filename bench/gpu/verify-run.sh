#!/usr/bin/env bash
# The lead's verification of a merged main on the device machine, run from the checkout root over a packed
# release build in $GPU_DIR (default .gpu-final/):
#   lib/   libgpmp.so.0, libflint.so.24 (FLINT 3 native, stripped), libmpfr.so.6
#   tests/ gpmp-lib      (cargo test --release --features gpu-tests --lib --no-run)
#   bin/   gpu_ntt gpu_gfpf gpu_zvec gpu_zmod gpu_bigmul gpu_poly nmod_bench gfpf_bench (cargo build --release --examples),
#          gpmp-bench mpz-flint nmod-flint (make -C bench all build/mpz-flint build/nmod-flint)
# PHASE=gpu: every library test (CPU and GPU; TEST_S bounds the main part) and the GPU tables (SKIP_BENCH=1: the tests and the
# nmod_poly_mul table only; BENCH="ntt gfpf zvec zmod bigmul poly nmod" picks tables); PHASE=cpu: the 1- and 2-thread CPU
# comparisons of issues 3 and 5 on the quiet 16-core host (CPU_BENCH="nmod mpz ntt gfpf" picks them,
# GFPF_N the largest gfpf_bench size). Logs under $OUT.
set -u
. "$(dirname "$0")/device-env.sh" .gpu-final
if [ "${PHASE:-gpu}" = gpu ]; then
  # The GPU big-integer product tests first and alone (they would start last, behind the long GPU
  # NTT checks), then the rest of the suite.
  big="gpu::bigmul int::mul::tests::gpu"
  t timeout 120 $H/tests/gpmp-lib $big --test-threads=8 > $OUT/tests-bigmul.log 2>&1
  t timeout ${TEST_S:-450} $H/tests/gpmp-lib --test-threads=8 $(printf -- "--skip %s " $big) > $OUT/tests.log 2>&1
  grep -hE "test result|panicked|FAILED|failed" $OUT/tests-bigmul.log $OUT/tests.log | tail -15
  B=${BENCH:-ntt gfpf zvec zmod bigmul poly nmod}
  [ -n "${SKIP_BENCH:-}" ] && B=nmod
  on() { case " $B " in *" $1 "*) return 0;; esac; return 1; }
  if on ntt; then t timeout 60 $H/bin/gpu_ntt 20 16 18 20 22 24 > $OUT/ntt.md 2>&1; grep -E "\| 24 \| 1 \|" $OUT/ntt.md; fi
  if on gfpf; then t timeout 60 $H/bin/gpu_gfpf 20 > $OUT/gfpf.md 2>&1; grep -E "\| 20 \|" $OUT/gfpf.md | head -4; fi
  if on zvec; then t timeout 60 $H/bin/gpu_zvec 10 20 > $OUT/zvec.md 2>&1; head -30 $OUT/zvec.md; fi
  if on zmod; then t timeout 90 $H/bin/gpu_zmod 5 20 20 18 > $OUT/zmod.md 2>&1; head -40 $OUT/zmod.md; fi
  if on bigmul; then
  t timeout 40 $H/bin/gpu_bigmul 20 24 26 28 30 > $OUT/bigmul.md 2>&1; cat $OUT/bigmul.md
  t env BENCH_THREADS=$(nproc) BENCH_WARMUP=1 BENCH_SKIP_GMP=1 GPMP_BACKEND=gpu timeout 60 $H/bin/mpz-flint 16 2 26 30 \
    > $OUT/mpz-gpu.md 2>&1; cat $OUT/mpz-gpu.md
  fi
  if on poly; then
  cases=2^14:64,2^17:64,2^20:64,2^12:1024,2^16:256,2^10:16384,2^20x2^4:64,2^20:256,2^22:64
  t env BENCH_WARMUP=1 timeout 110 $H/bin/gpmp-bench poly-mul --threads $(nproc) --cases "$cases" --min-time 0.2 \
    > $OUT/poly.md 2> $OUT/poly.err
  sed -n '/threads/,$p' $OUT/poly.md | tail -16
  fi
  if on nmod; then
  for b in cpu gpu; do  # gpmp_nmod_poly_mul on 16 cores and on the GPU, FLINT on 16 cores, wall clock
    t env BENCH_CLOCK=wall GPMP_BACKEND=$b timeout 90 $H/bin/nmod-flint $(nproc) > $OUT/nmod-$b.md 2>&1; cat $OUT/nmod-$b.md
  done
  fi
else
  export GPMP_BACKEND=cpu  # AUTO would send the large products to the GPU
  C=${CPU_BENCH:-nmod mpz ntt gfpf}
  on() { case " $C " in *" $1 "*) return 0;; esac; return 1; }
  if on nmod; then t timeout 120 $H/bin/nmod-flint 1 > $OUT/nmod-flint.md 2>&1; cat $OUT/nmod-flint.md; fi
  if on mpz; then t timeout 150 $H/bin/mpz-flint 2 5 > $OUT/mpz-flint.md 2>&1; cat $OUT/mpz-flint.md; fi
  if on ntt; then t env GPMP_NUM_THREADS=1 timeout 120 $H/bin/nmod_bench 1 ntt > $OUT/nmod-ntt.md 2>&1; cat $OUT/nmod-ntt.md; fi
  if on gfpf; then
  t env GPMP_NUM_THREADS=1 timeout 200 $H/bin/gfpf_bench ${GFPF_N:-18} > $OUT/gfpf-cpu.md 2>&1; tail -25 $OUT/gfpf-cpu.md
  fi
fi
