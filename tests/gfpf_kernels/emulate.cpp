// Runs the device arithmetic of kernels/gfpf.cu on the host (tests/emulate_cuda.h; the PTX carry
// chains in their portable __int128 form): add, sub, mul, mul_pow_r, neg and the DFT butterfly
// halves on edge and random elements, against GMP modulo p = r^k + 1. Built by
// tests/kernel_emulation.rs with the defines of src/gpu/gfpf.rs's specialisation of each field
// (KD, LOGK, R_HI/R_LO, V_HI/V_LO, SH).
#include "../emulate_cuda.h"
#include "gfpf.cu"

typedef std::vector<u64> El;
static mpz_t P;

static void value(mpz_t z, const El& x) {
    mpz_set_ui(z, 0);
    mpz_t t; mpz_init(t);
    for (int j = KD - 1; j >= 0; --j) {
        mpz_set_ui(t, R); mpz_mul(z, z, t);
        mpz_set_ui(t, x[j]); mpz_add(z, z, t);
    }
    mpz_mod(z, z, P);
    mpz_clear(t);
}
static El digits(const mpz_t a) {
    El x(KD, 0);
    mpz_t z, pm1, q; mpz_inits(z, pm1, q, NULL);
    mpz_mod(z, a, P);
    mpz_sub_ui(pm1, P, 1);
    if (mpz_cmp(z, pm1) == 0) { x[KD - 1] = R; }
    else for (int j = 0; j < KD; ++j) x[j] = mpz_fdiv_q_ui(z, z, R);
    mpz_clears(z, pm1, q, NULL);
    return x;
}
static int fails = 0;
static void check(const char* what, const El& got, const mpz_t want, const El& x, const El& y, int s) {
    El w = digits(want);
    if (got != w) {
        if (fails++ < 10) {
            printf("FAIL %s s=%d\n  x:", what, s);
            for (u64 d : x) printf(" %llx", d);
            printf("\n  y:");
            for (u64 d : y) printf(" %llx", d);
            printf("\n  got:");
            for (u64 d : got) printf(" %llx", d);
            printf("\n  want:");
            for (u64 d : w) printf(" %llx", d);
            printf("\n");
        }
    }
}

int main() {
    mpz_init(P);
    mpz_t r; mpz_init_set_ui(r, R);
    mpz_pow_ui(P, r, KD); mpz_add_ui(P, P, 1);
    std::vector<El> els;
    El z(KD, 0);
    els.push_back(z);
    El one = z; one[0] = 1; els.push_back(one);
    El two = z; two[0] = 2 % R; if (R > 2) els.push_back(two);
    El m1 = z; m1[KD - 1] = R; els.push_back(m1);
    els.push_back(El(KD, R - 1));
    El e1 = z; e1[1] = 1; els.push_back(e1);
    El top = z; top[KD - 1] = 1; els.push_back(top);
    El alt = z; for (int j = 1; j < KD; j += 2) alt[j] = R - 1; els.push_back(alt);
    El lo = z; lo[0] = R - 1; els.push_back(lo);
    El tp = z; tp[KD - 1] = R - 1; els.push_back(tp);
    for (int i = 0; i < 40; ++i) {
        El x(KD);
        for (int j = 0; j < KD; ++j) x[j] = (i % 3 == 0) ? R - 1 - rnd() % 3 : rnd() % R;
        els.push_back(x);
    }
    mpz_t vx, vy, w, rs; mpz_inits(vx, vy, w, rs, NULL);
    long checks = 0;
    for (auto& x : els) {
        value(vx, x);
        for (auto& y : els) {
            value(vy, y);
            El a = x; add_assign(a.data(), y.data()); mpz_add(w, vx, vy); mpz_mod(w, w, P); check("add", a, w, x, y, -1);
            El b = x; sub_assign(b.data(), y.data()); mpz_sub(w, vx, vy); mpz_mod(w, w, P); check("sub", b, w, x, y, -1);
            El c(KD); gmul(c.data(), x.data(), y.data()); mpz_mul(w, vx, vy); mpz_mod(w, w, P); check("mul", c, w, x, y, -1);
            checks += 3;
            for (unsigned s = 0; s < 2 * KD; s += (KD > 8 ? 3 : 1)) {
                mpz_powm_ui(rs, r, s, P);
                for (int up = 0; up < 2; ++up) {
                    // lane holding x as its own element, partner y
                    El own = up ? y : x, par = up ? x : y;  // upper: own = b = y, partner a = x
                    half_butterfly(own.data(), par.data(), up, s);
                    mpz_mul(w, vy, rs);
                    if (up) mpz_sub(w, vx, w); else mpz_add(w, vx, w);
                    mpz_mod(w, w, P);
                    check(up ? "bfly-" : "bfly+", own, w, x, y, s);
                    checks++;
                }
            }
        }
        for (unsigned s = 0; s < 2 * KD; ++s) {
            El t(KD); mul_pow_r(t.data(), x.data(), s);
            mpz_powm_ui(rs, r, s, P); mpz_mul(w, vx, rs); mpz_mod(w, w, P); check("mul_pow_r", t, w, x, x, s);
        }
        El n = x; neg_assign(n.data()); mpz_neg(w, vx); mpz_mod(w, w, P); check("neg", n, w, x, x, -1);
    }
    printf("r=%llu k=%d: %ld checks, %d failures\n", (unsigned long long)R, KD, checks, fails);
    return fails != 0;
}
