\\ Tests of the gpmp shim against PARI's own * and Mod(a, m)^e, on random and edge inputs; gpmp's
\\ outputs are allocated through PARI's GMP memory functions. Run from the checkout's root:
\\   make -C bindings/pari test
read("bindings/pari/gpmp.gp");
setrand(42);
npass = 0; nfail = 0;
check(name, got, want) = if (got === want, npass++, nfail++; print("FAIL ", name, ": got ", got, ", want ", want));
\\ A random polynomial in variable v with n coefficients of up to b bits, random signs, some edge values.
rint(b) = my(r = random(4)); if (r == 0, [0, 1, -1, 2^64 - 1, -(2^64 - 1), 2^b - 1, -(2^b - 1)][random(7) + 1], (random(2^b) - 2^(b - 1)));
rpol(n, b, v = 'x) = Pol(vector(n, i, rint(b)), v);

\\ Z[x] products
edges = [0, 1, -1, 7, x, -x, x + 1, x - 1, (2^64 - 1)*x^3 - 2^64, (2^192 - 1)*(x^5 + x + 1), -(2^128)*x^2 + 3];
for (i = 1, #edges, for (j = 1, #edges, check(Str("edge ", i, " ", j), gpmp_polmul(edges[i], edges[j]), edges[i] * edges[j])));
for (i = 1, #edges, check(Str("sqr edge ", i), gpmp_polsqr(edges[i]), edges[i]^2));
foreach ([[1, 1, 64], [3, 7, 30], [17, 33, 64], [64, 64, 256], [100, 3, 1000], [300, 257, 130], [40, 40, 5000], [2000, 2000, 64], [5000, 5000, 256]], c, \
  my(f = rpol(c[1], c[3]), g = rpol(c[2], c[3])); \
  check(Str("polmul ", c), gpmp_polmul(f, g), f * g); \
  check(Str("polmul same ", c), gpmp_polmul(f, f), f^2); \
  check(Str("polsqr ", c), gpmp_polsqr(g), g^2));
f = rpol(50, 100, 'y); check("variable y", gpmp_polmul(f, 'y + 2), f * ('y + 2));
check("constant times poly", gpmp_polmul(5, f), 5 * f);
check("zero", gpmp_polmul(0, f) == 0 && gpmp_polmul(f, Pol(0, 'y)) == 0, 1);

\\ integer products (GMP below gpmp's crossover, its NTT product above)
ints = [0, 1, -1, 2^63, -(2^64 - 1), 2^64, -(2^64), 2^(64*5) - 1];
for (i = 1, #ints, for (j = 1, #ints, check(Str("mul ", i, " ", j), gpmp_mul(ints[i], ints[j]), ints[i] * ints[j])));
foreach ([100, 5000, 60000, 300000, 10^6], b, my(a = rint(b), c = rint(b \ 2 + 1)); check(Str("mul ", b), gpmp_mul(a, c), a * c); check(Str("mul sqr ", b), gpmp_mul(a, a), a^2));

\\ vector powm against Mod(v, m)^e (lifted, then reduced: for a power-of-two m PARI 2.15 can lift
\\ a zero power to m itself, e.g. lift(Mod(-120051531365351456621064130902555080, 2^64)^434583387971073826324125))
foreach ([2, 3, 2^64 - 59, 2^64, 2^127 - 1, 2^256, 2^521 - 1, nextprime(2^1000), 3^700], m, \
  my(n = 100, v = vector(n, i, rint(exponent(m) + 51)), e = vector(n, i, random(2^80))); \
  v = concat(v, [0, -1, m - 1, m, -m, m + 1]); e = concat(e, [0, 1, 2, m, 2^64, 3]); \
  check(Str("powm ", m), gpmp_powm(v, e, m), vector(#v, i, lift(Mod(v[i], m)^e[i]) % m)); \
  check(Str("powm scalar exponent ", m), gpmp_powm(v, 65537, m), vector(#v, i, lift(Mod(v[i], m)^65537) % m)); \
  check(Str("powm column ", m), gpmp_powm(v~, e, m), vector(#v, i, lift(Mod(v[i], m)^e[i]) % m)~));
check("powm empty", gpmp_powm([], 3, 7), []);

\\ errors become PARI errors (and leave GP usable)
errs = 0;
iferr(gpmp_polmul(x + 1, x/2 + 1), E, errs++);
iferr(gpmp_polmul(x + 1, y + 1), E, errs++);
iferr(gpmp_mul(1/2, 3), E, errs++);
iferr(gpmp_powm([2], 3, 1), E, errs++; if (#Str(E) < 10, nfail++));
iferr(gpmp_powm([2], -1, 7), E, errs++);
iferr(gpmp_powm([2, 3], [1], 7), E, errs++);
check("errors raised", errs, 6);
check("after the errors", gpmp_polmul(x + 1, x - 1), x^2 - 1);

print("pari: ", npass, " passed, ", nfail, " failed");
quit(nfail > 0);
