#!/bin/sh
# PARI/GP polrootsreal on the inputs of `roots-flint roots` (the same polynomials, written by
# `roots-flint dump`), at realprecision 16 (about 53 bits), one thread (gp is serial), CPU time.
#   bench/roots_pari.sh CASE...        e.g. cheb:512 mig:256:10 wilk:100 rand:1000:64
# Prints one table row per case: | case | roots | PARI s |. Needs gp (Debian: pari-gp) and
# bench/build/roots-flint (make -C bench roots-flint).
set -e
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/build/roots-flint
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| case | roots | PARI polrootsreal s |"
echo "|---|--:|--:|"
for c in "$@"; do
    "$bin" dump "$c" "$tmp/f.gp"
    cat > "$tmp/run.gp" <<GP
default(parisizemax, 8000000000);
default(realprecision, 16);
f = read("$tmp/f.gp");
gettime(); r = polrootsreal(f); t = gettime();
printf("| %s | %d | %.3f |\n", "$c", #r, t / 1000.);
quit;
GP
    gp -q -f "$tmp/run.gp" </dev/null 2>/dev/null | grep '^|' || echo "| $c | (failed) | |"
done
