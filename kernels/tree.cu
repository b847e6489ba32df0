// Subproduct-tree evaluation and interpolation mod one prime p < 2^63 on the device
// (src/gpu/tree.rs), one thread per output word. Level i of the tree has nodes of width w = 2^i;
// node j of a length-n vector covers positions [j w, min((j+1) w, n)), d = its length,
// da = min(w/2, d) the length of its left child and db = d - da of its right one (db = 0: a lone
// child, copied). Tree nodes are monic and stored without their leading 1 (n words a level).
//
// Products: the NTT levels multiply in the transform domain with spectra kept in Montgomery form
// (s 2^64 mod p), so that mont_mul(x, s 2^64) = x s mod p; the plain levels sum
// mont_mul(a, b) = a b 2^(-64) and multiply the sum by r2 = 2^128 mod p once (Montgomery 1985).
//   tr_spread:   rows of 2^logrow words, row r = src[r seg .. r seg + seg) (zeros past n and past
//                seg), or reversed: src[n - 1 - (r seg + k)];
//   tr_mont:     x = x r2 2^(-64) (into Montgomery form);
//   tr_mul:      x = x y 2^(-64), y in Montgomery form;
//   tr_eval_mul: the two products of each node of the transposed remainder tree: row r of out is
//                row r/2 of s times the spectrum of the sibling r ^ 1;
//   tr_eval_add: rg_A = rg_P[..dA] + (b rg_P)[dB .. d), rg_B = rg_P[..dB] + (a rg_P)[dA .. d)
//                (src/nmod/evaluate.rs) from the inverse transforms z of tr_eval_mul;
//   tr_eval_plain: the same step by schoolbook, from the children's coefficients;
//   tr_interp_mul: a I_B + b I_A for each node from the forward transforms f of I_A, I_B;
//   tr_interp_add: I_P = (a I_B + b I_A) + x^dB I_A + x^dA I_B (src/nmod/interpolate.rs);
//   tr_interp_plain: the same step by schoolbook;
//   tr_tree_mul: the tree's products a b of sibling pairs from their Montgomery-form spectra
//                (a 2^64 b 2^64 2^(-64) = a b 2^64, taken back by tr_tree_add);
//   tr_tree_add: P = A B without its leading 1: a b + x^dB a + x^dA b (src/nmod/tree.rs);
//   tr_tree_plain: the same by schoolbook.
#ifndef NT
#define NT 256
#endif

__device__ __forceinline__ u64 tr_index() { return (u64)blockIdx.x * NT + threadIdx.x; }

extern "C" __global__ void __launch_bounds__(NT) tr_spread(
    const u64* __restrict__ src, u64 n, u64 seg, u64 logrow, u64* __restrict__ dst, u64 total, int rev)
{
    const u64 q = tr_index();
    if (q >= total) return;
    const u64 r = q >> logrow, k = q & ((1ull << logrow) - 1), s = r * seg + k;
    dst[q] = k < seg && s < n ? src[rev ? n - 1 - s : s] : 0;
}

extern "C" __global__ void __launch_bounds__(NT) tr_mont(u64* x, u64 total, u64 p, u64 pinv, u64 r2)
{
    const u64 q = tr_index();
    if (q >= total) return;
    x[q] = mont_mul(x[q], r2, p, pinv);
}

extern "C" __global__ void __launch_bounds__(NT) tr_mul(u64* x, const u64* __restrict__ y, u64 total, u64 p, u64 pinv)
{
    const u64 q = tr_index();
    if (q >= total) return;
    x[q] = mont_mul(x[q], y[q], p, pinv);
}

// total = 2 c w words of out (c nodes of level logw), spec holds nspec rows of w (level logw - 1).
extern "C" __global__ void __launch_bounds__(NT) tr_eval_mul(
    const u64* __restrict__ s, const u64* __restrict__ spec, u64 nspec, u64 logw, u64* __restrict__ out, u64 total, u64 p,
    u64 pinv)
{
    const u64 q = tr_index();
    if (q >= total) return;
    const u64 r = q >> logw, k = q & ((1ull << logw) - 1), o = r ^ 1;
    out[q] = o < nspec ? mont_mul(s[((r >> 1) << logw) | k], spec[(o << logw) | k], p, pinv) : 0;
}

// The lengths of node j of width w = 2^logw in a vector of n: d, da, db.
__device__ __forceinline__ void tr_node(u64 j, u64 logw, u64 n, u64* d, u64* da, u64* db) {
    const u64 w = 1ull << logw, left = n - (j << logw);
    *d = left < w ? left : w;
    *da = *d < w / 2 ? *d : w / 2;
    *db = *d - *da;
}

extern "C" __global__ void __launch_bounds__(NT) tr_eval_add(
    const u64* __restrict__ g, const u64* __restrict__ z, u64 n, u64 logw, u64* __restrict__ out, u64 p)
{
    const u64 q = tr_index();
    if (q >= n) return;
    const u64 j = q >> logw, t = q & ((1ull << logw) - 1), base = j << logw;
    u64 d, da, db;
    tr_node(j, logw, n, &d, &da, &db);
    if (db == 0) {
        out[q] = g[q];
    } else if (t < da) {
        out[q] = add_mod(g[q], z[((2 * j) << logw) + db + t], p);
    } else {
        const u64 u = t - da;
        out[q] = add_mod(g[base + u], z[((2 * j + 1) << logw) + da + u], p);
    }
}

// lev: level logw - 1 (node c at c w/2).
extern "C" __global__ void __launch_bounds__(NT) tr_eval_plain(
    const u64* __restrict__ g, const u64* __restrict__ lev, u64 n, u64 logw, u64* __restrict__ out, u64 p, u64 pinv, u64 r2)
{
    const u64 q = tr_index();
    if (q >= n) return;
    const u64 j = q >> logw, t = q & ((1ull << logw) - 1), base = j << logw, h = 1ull << (logw - 1);
    u64 d, da, db;
    tr_node(j, logw, n, &d, &da, &db);
    if (db == 0) {
        out[q] = g[q];
        return;
    }
    // rg_A[t] = rg[t] + sum_(i<dB) b_i rg[dB + t - i]; rg_B[u] = rg[u] + sum_(i<dA) a_i rg[dA + u - i].
    const bool left = t < da;
    const u64 u = left ? t : t - da, len = left ? db : da, off = left ? db : da;
    const u64* c = lev + (left ? base + h : base);
    u64 acc = 0;
    for (u64 i = 0; i < len; i++) acc = add_mod(acc, mont_mul(c[i], g[base + off + u - i], p, pinv), p);
    out[q] = add_mod(g[base + u], mont_mul(acc, r2, p, pinv), p);
}

// total = c w words of out; f holds the forward transforms of I_A, I_B as rows 2j, 2j + 1; spec
// holds nspec rows (level logw - 1).
extern "C" __global__ void __launch_bounds__(NT) tr_interp_mul(
    const u64* __restrict__ f, const u64* __restrict__ spec, u64 nspec, u64 logw, u64* __restrict__ out, u64 total, u64 p,
    u64 pinv)
{
    const u64 q = tr_index();
    if (q >= total) return;
    const u64 j = q >> logw, k = q & ((1ull << logw) - 1), ra = ((2 * j) << logw) | k, rb = ((2 * j + 1) << logw) | k;
    out[q] = 2 * j + 1 < nspec ? add_mod(mont_mul(f[rb], spec[ra], p, pinv), mont_mul(f[ra], spec[rb], p, pinv), p) : 0;
}

extern "C" __global__ void __launch_bounds__(NT) tr_interp_add(
    const u64* __restrict__ g, const u64* __restrict__ z, u64 n, u64 logw, u64* __restrict__ out, u64 p)
{
    const u64 q = tr_index();
    if (q >= n) return;
    const u64 j = q >> logw, k = q & ((1ull << logw) - 1), base = j << logw;
    u64 d, da, db;
    tr_node(j, logw, n, &d, &da, &db);
    if (db == 0) {
        out[q] = g[q];
        return;
    }
    // I_A[k] = g[base + k] (k < dA), I_B[k] = g[base + dA + k] (k < dB).
    u64 v = k + 1 < d ? z[q] : 0;
    if (k >= db && k - db < da) v = add_mod(v, g[base + k - db], p);
    if (k >= da) v = add_mod(v, g[q], p);
    out[q] = v;
}

extern "C" __global__ void __launch_bounds__(NT) tr_interp_plain(
    const u64* __restrict__ g, const u64* __restrict__ lev, u64 n, u64 logw, u64* __restrict__ out, u64 p, u64 pinv, u64 r2)
{
    const u64 q = tr_index();
    if (q >= n) return;
    const u64 j = q >> logw, k = q & ((1ull << logw) - 1), base = j << logw, h = 1ull << (logw - 1);
    u64 d, da, db;
    tr_node(j, logw, n, &d, &da, &db);
    if (db == 0) {
        out[q] = g[q];
        return;
    }
    const u64 *a = lev + base, *b = lev + base + h, *ia = g + base, *ib = g + base + da;
    u64 acc = 0;
    // a I_B: i < dA, k - i < dB; b I_A: i < dB, k - i < dA (empty at k = d - 1).
    for (u64 i = k + 1 > db ? k + 1 - db : 0; i <= k && i < da; i++) acc = add_mod(acc, mont_mul(a[i], ib[k - i], p, pinv), p);
    for (u64 i = k + 1 > da ? k + 1 - da : 0; i <= k && i < db; i++) acc = add_mod(acc, mont_mul(b[i], ia[k - i], p, pinv), p);
    u64 v = mont_mul(acc, r2, p, pinv);
    if (k >= db && k - db < da) v = add_mod(v, ia[k - db], p);
    if (k >= da) v = add_mod(v, g[q], p);
    out[q] = v;
}

// total = c w words of out; spec holds nspec rows (level logw - 1, Montgomery form).
extern "C" __global__ void __launch_bounds__(NT) tr_tree_mul(
    const u64* __restrict__ spec, u64 nspec, u64 logw, u64* __restrict__ out, u64 total, u64 p, u64 pinv)
{
    const u64 q = tr_index();
    if (q >= total) return;
    const u64 j = q >> logw, k = q & ((1ull << logw) - 1);
    out[q] = 2 * j + 1 < nspec ? mont_mul(spec[((2 * j) << logw) | k], spec[((2 * j + 1) << logw) | k], p, pinv) : 0;
}

// The node of level logw at q: its children a, b in lev (level logw - 1), its product's low part
// (k < d - 1) v (zero at k = d - 1).
__device__ __forceinline__ u64 tr_tree_shifts(u64 v, const u64* lev, u64 base, u64 k, u64 da, u64 db, u64 h, u64 p) {
    if (k >= db && k - db < da) v = add_mod(v, lev[base + k - db], p);
    if (k >= da) v = add_mod(v, lev[base + h + k - da], p);
    return v;
}

// z: the inverse transforms of tr_tree_mul (a b 2^64 mod p), one row of w per node.
extern "C" __global__ void __launch_bounds__(NT) tr_tree_add(
    const u64* __restrict__ lev, const u64* __restrict__ z, u64 n, u64 logw, u64* __restrict__ out, u64 p, u64 pinv)
{
    const u64 q = tr_index();
    if (q >= n) return;
    const u64 j = q >> logw, k = q & ((1ull << logw) - 1), base = j << logw, h = 1ull << (logw - 1);
    u64 d, da, db;
    tr_node(j, logw, n, &d, &da, &db);
    if (db == 0) {
        out[q] = lev[q];
        return;
    }
    out[q] = tr_tree_shifts(k + 1 < d ? mont_mul(z[q], 1, p, pinv) : 0, lev, base, k, da, db, h, p);
}

extern "C" __global__ void __launch_bounds__(NT) tr_tree_plain(
    const u64* __restrict__ lev, u64 n, u64 logw, u64* __restrict__ out, u64 p, u64 pinv, u64 r2)
{
    const u64 q = tr_index();
    if (q >= n) return;
    const u64 j = q >> logw, k = q & ((1ull << logw) - 1), base = j << logw, h = 1ull << (logw - 1);
    u64 d, da, db;
    tr_node(j, logw, n, &d, &da, &db);
    if (db == 0) {
        out[q] = lev[q];
        return;
    }
    const u64 *a = lev + base, *b = lev + base + h;
    u64 acc = 0;
    // a_i b_(k-i): i < dA, k - i < dB (empty at k = d - 1).
    for (u64 i = k + 1 > db ? k + 1 - db : 0; i <= k && i < da; i++) acc = add_mod(acc, mont_mul(a[i], b[k - i], p, pinv), p);
    out[q] = tr_tree_shifts(mont_mul(acc, r2, p, pinv), lev, base, k, da, db, h, p);
}
