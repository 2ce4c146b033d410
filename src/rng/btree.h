/* A virtual Brownian tree: the Wiener path of a path's time line as a pure
 * function of (seed, path, base interval, node), for adaptive time steps
 * (issue 30).  Like rng/philox.h it compiles unchanged as C11, CUDA C++ and
 * under NVRTC (where philox.h has been pasted before it and nothing is
 * included).
 *
 * Construction (Levy's, as the virtual Brownian tree of Gaines & Lyons,
 * SIAM J. Appl. Math. 57, 1455 (1997), and Li, Wong, Chen & Duvenaud,
 * AISTATS 2020).  A path's time line is cut into base intervals of length
 * Delta, interval n being [n Delta, (n + 1) Delta]; within one, W(n Delta +
 * s Delta) - W(n Delta) = sqrt(Delta) B(s), s in [0, 1], with B a standard
 * Brownian motion on [0, 1] that is fixed at the dyadic points
 * s = i 2^-D, i = 0 .. 2^D (D = SDK_BTREE_DEPTH) by
 *   B(0) = 0,  B(1) = z_0,
 *   B(mid) = (B(lo) + B(hi)) / 2 + sqrt(hi - lo) / 2 * z_m
 * for the midpoint of the dyadic interval j of level l, [j 2^-l, (j+1) 2^-l]
 * (l = 0 .. D-1, node m = 2^l + j; the Brownian bridge: B(mid) given its
 * ends is Gaussian with their mean and variance (hi - lo) / 4).  The z_m
 * are independent standard Gaussians, so B has exactly the law of Brownian
 * motion at those points, base intervals and channels are independent, and
 * a value never depends on which others were asked for before: the
 * increment over a step [t, t + h] with dyadic ends is the same whether the
 * step was tried once or halved after rejections, on any thread, launch or
 * MPI rank.  A value at level l costs l + 1 Gaussians (the descent from the
 * root); an increment over an aligned dyadic step of length 2^-k costs at
 * most 2 k + 1 (the common part of the two descents is walked once).
 *
 * The depth limit: steps are multiples of Delta 2^-D, so the smallest step
 * an adaptive run may take (dt-min) is at least Delta 2^-D, Delta being the
 * base interval (the largest step, dt-max); the plan refuses a dt-min below.
 *
 * Random numbers (the stream contract of rng/philox.h): z_m of channel c
 * (of NW Wiener processes) in base interval n of path P is Gaussian
 *   k = (n 2^D + m) NW + c
 * of domain 0 offset by block SDK_BTREE_BLOCK0 = 2^62 + 2^61 + 2^60, i.e.
 * lane k & 3 of block SDK_BTREE_BLOCK0 + (k >> 2) of path P, drawn by
 * sdk_gauss2_d (its half (k >> 1) & 1).  The blocks stay in
 * [2^62 + 2^61 + 2^60, 2^63), which no other stream reaches, when
 * (n + 1) NW <= 2^(62 - D) (sdk_btree_fits).  Values are in double on
 * every backend, so a single-precision kernel takes the same increments,
 * rounded once.
 *
 * The root in single precision (SDK_BTREE_ROOT_F defined before this file:
 * the generated kernels of single-precision runs, issue 30's throughput).
 * A step of dt-max accepted at once needs z_0 alone, and a double Gaussian
 * (double log, sqrt and sincos, in software on a GPU) from a block of its
 * own costs more than the rest of the sub-step.  There z_0 of channel c in
 * base interval n is instead lane n & 3 of the four single-precision
 * Gaussians (sdk_gauss4_f) of block SDK_BTREE_ROOT0 + (n >> 2) NW + c =
 * 2^61 + 2^58 + ... of domain 0 (below 2^61 + 2^59 while sdk_btree_fits),
 * so one block serves four consecutive base intervals as one block serves
 * four fixed steps, and a GPU lane keeps it in registers for them
 * (codegen/adaptive.c).  It is converted to double exactly and the nodes
 * m >= 1 are unchanged, so the tree is the same pure function of (seed,
 * path, n, node) everywhere in a run; its root's Gaussian has float's
 * resolution and tails (|z_0| < 5.8), like the fixed steps' noise of such
 * a run. */
#ifndef SDK_RNG_BTREE_H
#define SDK_RNG_BTREE_H

#ifndef SDK_RNG_PHILOX_H
#include "philox.h" /* (its own folder: C, nvcc and the tests alike) */
#endif

/* Levels of the tree below the root: the finest step is Delta 2^-D. */
#define SDK_BTREE_DEPTH 24
/* The first Philox block of the tree's Gaussians (domain 0). */
#define SDK_BTREE_BLOCK0 0x7000000000000000ull

/* 1 when base intervals 0 .. nint - 1 of nw channels stay in the tree's
 * block range (see above). */
SDK_RNG_FN int sdk_btree_fits(sdk_u64 nint, sdk_u64 nw) {
  return nw >= 1u && nw <= (1ull << 20) && nint <= ((1ull << (62 - SDK_BTREE_DEPTH)) / nw);
}

/* The first Philox block of the single-precision roots (domain 0). */
#define SDK_BTREE_ROOT0 0x2400000000000000ull

/* The block of channel c's single-precision roots of base intervals
 * 4 (n >> 2) .. 4 (n >> 2) + 3 (lane n & 3; see above). */
SDK_RNG_FN sdk_u64 sdk_btree_root_block(sdk_u64 n, sdk_u32 nw, sdk_u32 c) {
  return SDK_BTREE_ROOT0 + (n >> 2) * nw + c;
}

/* The single-precision root of channel c (of nw) in base interval n:
 * g[n & 3] of sdk_gauss4_f of its block, as its half (n >> 1) & 1 (the
 * same value; see above). */
SDK_RNG_FN double sdk_btree_root_f(sdk_u64 seed, sdk_u64 path, sdk_u64 n, sdk_u32 nw, sdk_u32 c) {
  float f[2];
  sdk_gauss2_f(seed, path, sdk_btree_root_block(n, nw, c), 0u, (sdk_u32)(n >> 1) & 1u, f);
  return (double)f[n & 1u];
}

/* z_m of channel c (of nw) in base interval n of path `path` (see above). */
SDK_RNG_FN double sdk_btree_z_(sdk_u64 seed, sdk_u64 path, sdk_u64 n, sdk_u32 nw, sdk_u32 c,
                               sdk_u64 m) {
#ifdef SDK_BTREE_ROOT_F
  if (m == 0u) return sdk_btree_root_f(seed, path, n, nw, c);
#endif
  const sdk_u64 k = ((n << SDK_BTREE_DEPTH) + m) * nw + c;
  double g[2];
  sdk_gauss2_d(seed, path, SDK_BTREE_BLOCK0 + (k >> 2), 0u, (sdk_u32)(k >> 1) & 1u, g);
  return g[k & 1u];
}

/* The standard deviation of the bridge at a midpoint of level l,
 * sqrt(2^-l) / 2, exact to rounding for every l (a power of two, times
 * sqrt(1/2) at odd levels). */
SDK_RNG_FN double sdk_btree_sd_(int l) {
  double p = 0.5;
  for (int i = 0; i < (l >> 1); i++)
    p *= 0.5;
  return (l & 1) ? p * 0.70710678118654752440 : p;
}

/* B at position i (units 2^-D) from a node of level l whose ends lo, hi
 * (units 2^-D) have the values blo, bhi, i in [lo, hi]. */
SDK_RNG_FN double sdk_btree_descend_(sdk_u64 seed, sdk_u64 path, sdk_u64 n, sdk_u32 nw, sdk_u32 c,
                                     sdk_u64 lo, sdk_u64 hi, double blo, double bhi, int l,
                                     sdk_u64 i) {
  while (i != lo && i != hi) {
    const sdk_u64 mid = (lo + hi) >> 1;
    const sdk_u64 m = (1ull << l) + (lo >> (SDK_BTREE_DEPTH - l));
    const double bm = 0.5 * (blo + bhi) + sdk_btree_sd_(l) * sdk_btree_z_(seed, path, n, nw, c, m);
    if (i < mid)
      hi = mid, bhi = bm;
    else
      lo = mid, blo = bm;
    l++;
  }
  return i == lo ? blo : bhi;
}

/* B(i 2^-D) of channel c (of nw) in base interval n of path `path`,
 * i in [0, 2^D]: the standard Brownian motion of the interval (multiply by
 * sqrt(Delta) for W). */
SDK_RNG_FN double sdk_btree_b(sdk_u64 seed, sdk_u64 path, sdk_u64 n, sdk_u32 nw, sdk_u32 c,
                              sdk_u64 i) {
  const double b1 = sdk_btree_z_(seed, path, n, nw, c, 0u);
  return sdk_btree_descend_(seed, path, n, nw, c, 0u, 1ull << SDK_BTREE_DEPTH, 0.0, b1, 0, i);
}

/* B(ib 2^-D) - B(ia 2^-D), 0 <= ia <= ib <= 2^D: the increment of the
 * standard Brownian motion of base interval n over [ia, ib] (units 2^-D),
 * bit for bit sdk_btree_b(ib) - sdk_btree_b(ia); the descents share their
 * common part. */
SDK_RNG_FN double sdk_btree_incr(sdk_u64 seed, sdk_u64 path, sdk_u64 n, sdk_u32 nw, sdk_u32 c,
                                 sdk_u64 ia, sdk_u64 ib) {
  sdk_u64 lo = 0u, hi = 1ull << SDK_BTREE_DEPTH;
  double blo = 0.0, bhi = sdk_btree_z_(seed, path, n, nw, c, 0u);
  int l = 0;
  if (ia == ib) return 0.0;
  for (;;) {
    if (ia == lo && ib == hi) return bhi - blo;
    const sdk_u64 mid = (lo + hi) >> 1;
    const sdk_u64 m = (1ull << l) + (lo >> (SDK_BTREE_DEPTH - l));
    const double bm = 0.5 * (blo + bhi) + sdk_btree_sd_(l) * sdk_btree_z_(seed, path, n, nw, c, m);
    if (ib <= mid)
      hi = mid, bhi = bm;
    else if (ia >= mid)
      lo = mid, blo = bm;
    else
      return sdk_btree_descend_(seed, path, n, nw, c, mid, hi, bm, bhi, l + 1, ib) -
             sdk_btree_descend_(seed, path, n, nw, c, lo, mid, blo, bm, l + 1, ia);
    l++;
  }
}

/* The cached walk (issue 30's throughput): a path steps forward through a
 * base interval, so the nodes its successive steps descend through are
 * nearly the same; sdk_btree_incr walks them again from the root every
 * time (l + 1 Gaussians for a step of level l).  The walk keeps, per
 * channel, B(pos) at its position pos and r[l] = B(hi_l) for the right end
 * hi_l of the level-l node [lo_l, hi_l) that holds pos, for l = 0 .. valid
 * (valid is the channels' common depth known).  Those values are the very
 * doubles sdk_btree_incr computes on its way down (a point's B is the same
 * expression of the same values whichever descent reaches it), so the
 * increments are bit for bit the stateless ones, for any sequence of tries
 * (tests/test_btree.c checks that over random accept/reject sequences).
 *
 *  - a try of level lev at pos (a multiple of 2^(D - lev)) descends left
 *    from the deepest known node, which starts at pos: one Gaussian for
 *    each level in valid .. lev - 1, none when lev <= valid (a retry of a
 *    rejected step at a finer level reuses everything drawn for it and
 *    draws only the levels below);
 *  - an accepted step moves pos to pos' = pos + 2^(D - lev): B(pos') = r[lev],
 *    the nodes of levels below k (pos' the midpoint of the level k - 1 node)
 *    still hold pos', and the level-k one is that node's right half, whose
 *    right end is r[k - 1]: nothing drawn.
 *
 * A run of steps of one level l thus draws each midpoint once, 2^l - 1 for
 * 2^l steps: amortised one Gaussian per step instead of l + 1.  Bounds: the
 * state is B(pos) and r[0 .. levmax] per channel (levmax the deepest level
 * the controller may use, <= D): (levmax + 2) doubles per channel, on the
 * stack of the step (no heap); on a GPU r is indexed by a run-time level,
 * so it lives in the thread's local memory (L1-cached, (levmax + 1) 8 bytes
 * per channel: 200 bytes at levmax = D), and only B(pos), pos, the level
 * and valid stay in registers. */

/* Starts the walk of channel c through base interval n: B(0) = 0, r[0] =
 * B(1) = z_0; valid = 0. */
SDK_RNG_FN void sdk_btree_walk_start(sdk_u64 seed, sdk_u64 path, sdk_u64 n, sdk_u32 nw, sdk_u32 c,
                                     double *b, double *r) {
  *b = 0.0;
  r[0] = sdk_btree_z_(seed, path, n, nw, c, 0u);
}

/* B(pos + 2^(D - lev)) - B(pos) of channel c for the walk at pos (b =
 * B(pos), r[0 .. valid] known; pos a multiple of 2^(D - lev)), bit for bit
 * sdk_btree_incr(pos, pos + 2^(D - lev)); r[valid + 1 .. lev] are drawn
 * (the caller then sets valid = lev when lev > valid). */
SDK_RNG_FN double sdk_btree_walk_incr(sdk_u64 seed, sdk_u64 path, sdk_u64 n, sdk_u32 nw, sdk_u32 c,
                                      sdk_u64 pos, int lev, int valid, double b, double *r) {
  for (int l = valid; l < lev; l++) {
    const sdk_u64 m = (1ull << l) + (pos >> (SDK_BTREE_DEPTH - l));
    r[l + 1] = 0.5 * (b + r[l]) + sdk_btree_sd_(l) * sdk_btree_z_(seed, path, n, nw, c, m);
  }
  return r[lev] - b;
}

/* The level k at which the walk's new position pos (0 < pos < 2^D, a
 * multiple of 2^(D - lev), lev the accepted step's) is first a node's end:
 * the new valid depth. */
SDK_RNG_FN int sdk_btree_walk_level(sdk_u64 pos, int lev) {
  int k = lev;
  while (k > 1 && (pos & ((1ull << (SDK_BTREE_DEPTH - k + 1)) - 1u)) == 0u)
    k--;
  return k;
}

/* Channel c's walk after an accepted step of level lev: B at the new
 * position, and the right end of its level-k node (k of
 * sdk_btree_walk_level; see above). */
SDK_RNG_FN void sdk_btree_walk_next(int lev, int k, double *b, double *r) {
  *b = r[lev];
  r[k] = r[k - 1];
}

#endif /* SDK_RNG_BTREE_H */
