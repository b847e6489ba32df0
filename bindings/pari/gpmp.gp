\\ gpmp for PARI/GP. From the checkout's root, after `make -C bindings/pari`:
\\   gp> read("bindings/pari/gpmp.gp");
\\   gp> gpmp_polmul(x^2 + 3*x - 1, 2*x - 5)
\\ Coefficients are read in place (PARI's integers are GMP limb arrays); Ctrl-C stops a running call.
install("gpmp_pari_polmul", "GG", "gpmp_polmul", "./bindings/pari/libgpmp_pari.so");
install("gpmp_pari_polsqr", "G", "gpmp_polsqr", "./bindings/pari/libgpmp_pari.so");
install("gpmp_pari_mul", "GG", "gpmp_mul", "./bindings/pari/libgpmp_pari.so");
install("gpmp_pari_powm", "GGG", "gpmp_powm", "./bindings/pari/libgpmp_pari.so");
addhelp(gpmp_polmul, "gpmp_polmul(f, g): f*g for polynomials with integer coefficients (gpmp's parallel product).");
addhelp(gpmp_polsqr, "gpmp_polsqr(f): f^2 for a polynomial with integer coefficients.");
addhelp(gpmp_mul, "gpmp_mul(a, b): a*b for integers (gpmp's NTT product above its crossover).");
addhelp(gpmp_powm, "gpmp_powm(v, e, m): [lift(Mod(v[i], m)^e[i])] for a vector v, e an integer or a vector of integers >= 0, m > 1.");
