# gpmp from Maple (after `make -C bindings/maple MAPLE=<Maple's directory>`, from the checkout's root):
#   read "bindings/maple/gpmp.mpl";
lib := "bindings/maple/libgpmp_maple.so":
gpmp_polmul := define_external('gpmp_maple_polmul', MAPLE, THREAD_SAFE, LIB = lib):
gpmp_mul := define_external('gpmp_maple_mul', MAPLE, THREAD_SAFE, LIB = lib):
gpmp_powm := define_external('gpmp_maple_powm', MAPLE, THREAD_SAFE, LIB = lib):

# Polynomials go in and out as coefficient lists, low degree first.
PolMul := proc(f, g, x)
  local h;
  h := gpmp_polmul(PolynomialTools:-CoefficientList(f, x), PolynomialTools:-CoefficientList(g, x));
  PolynomialTools:-FromCoefficientList(h, x)
end proc:

f := randpoly(x, degree = 1000, coeffs = rand(-2^200 .. 2^200)):
g := randpoly(x, degree = 700, coeffs = rand(-2^200 .. 2^200)):
evalb(expand(PolMul(f, g, x) - expand(f*g)) = 0);           # true
evalb(gpmp_mul(3^100000, 7^50000) = 3^100000*7^50000);      # true
gpmp_powm([2, 3, 5], 65537, 2^127 - 1);                       # [2^65537 mod m, ...]
