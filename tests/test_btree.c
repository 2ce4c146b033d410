/* The virtual Brownian tree of rng/btree.h: its keying by hand against the
 * stream contract (known answers), its law (variances of increments and of
 * the bridge, independence of disjoint steps, channels, base intervals and
 * paths: fixed seeds, k sigma of the computed standard errors), additivity
 * over unions of steps, that a value never depends on what was asked
 * for before, and that the cached walk (sdk_btree_walk_*) gives bit for bit
 * the stateless increments over random sequences of accepted and rejected
 * steps, in double and rounded to single precision.  test_btree_f.c runs
 * it all once more with the single-precision root (SDK_BTREE_ROOT_F). */
#include "rng/btree.h"

#include <math.h>
#include <stdint.h>

#include "testutil.h"

#define D SDK_BTREE_DEPTH
#define ONE (1ull << D)
#define KSIG 5.0

static const sdk_u64 seed = 0x5eed0030c0ffeeull;

/* Known answers: the root and the first midpoint from the documented
 * Gaussians k = (n 2^D + m) NW + c of block 2^62 + 2^61 + 2^60 + (k >> 2). */
static void test_keying(void) {
  const sdk_u64 p = 12345, n = 7;
  const sdk_u32 nw = 3, c = 2;
  double g[2];
  sdk_u64 k = ((n << D) + 0) * nw + c;
#ifdef SDK_BTREE_ROOT_F
  /* the single-precision root: lane n & 3 of the four Gaussians of block
   * 2^61 + 2^58 + (n >> 2) NW + c */
  float f4[4];
  sdk_gauss4_f(seed, p, 0x2400000000000000ull + (n >> 2) * nw + c, 0, f4);
  const double z0 = f4[n & 3];
  /* the block range: below 2^61 + 2^59 for the largest tree that fits */
  TU_CHECK(sdk_btree_root_block((1ull << (62 - D)) - 1, 1, 0) < 0x2800000000000000ull,
           "root blocks below 2^61 + 2^59");
#else
  sdk_gauss2_d(seed, p, 0x7000000000000000ull + (k >> 2), 0, (k >> 1) & 1, g);
  const double z0 = g[k & 1];
#endif
  k = ((n << D) + 1) * nw + c;
  sdk_gauss2_d(seed, p, 0x7000000000000000ull + (k >> 2), 0, (k >> 1) & 1, g);
  const double z1 = g[k & 1];
  k = ((n << D) + 3) * nw + c; /* level 1, j = 1: the midpoint of [1/2, 1] */
  sdk_gauss2_d(seed, p, 0x7000000000000000ull + (k >> 2), 0, (k >> 1) & 1, g);
  const double z3 = g[k & 1];
  const double bhalf = 0.5 * z0 + 0.5 * z1;
  const double b34 = 0.5 * (bhalf + z0) + 0.5 * sqrt(0.5) * z3;
  TU_CHECK(sdk_btree_b(seed, p, n, nw, c, ONE) == z0, "B(1) is z_0");
  TU_NEAR(sdk_btree_b(seed, p, n, nw, c, ONE / 2), bhalf, 1e-15, "B(1/2)");
  TU_NEAR(sdk_btree_b(seed, p, n, nw, c, 3 * ONE / 4), b34, 1e-15, "B(3/4)");
  TU_CHECK(sdk_btree_b(seed, p, n, nw, c, 0) == 0.0, "B(0) = 0");
  /* the bridge's standard deviations sqrt(2^-l) / 2 */
  for (int l = 0; l < D; l++)
    TU_NEAR(sdk_btree_sd_(l), 0.5 * sqrt(ldexp(1.0, -l)), 1e-16, "bridge sd");
  /* the block range: the last Gaussian of the largest tree that fits */
  const sdk_u64 nwmax = 5, nint = (1ull << (62 - D)) / nwmax;
  TU_CHECK(sdk_btree_fits(nint, nwmax) && !sdk_btree_fits(nint + 1, nwmax), "fits boundary");
  k = ((nint - 1) << D) * nwmax + (ONE - 1) * nwmax + nwmax - 1;
  TU_CHECK(0x7000000000000000ull + (k >> 2) < (1ull << 63), "last block below 2^63");
  TU_CHECK(!sdk_btree_fits(1, 0), "no channels");
}

/* Mean and variance of a sample, with the standard errors of both. */
typedef struct {
  double n, s1, s2, s4;
} moments;
static void mom_add(moments *m, double x) {
  m->n += 1, m->s1 += x, m->s2 += x * x, m->s4 += x * x * x * x;
}
/* The sample's mean is 0 and its second moment `var` within KSIG SE. */
static void mom_check(const moments *m, double var, const char *what) {
  const double mean = m->s1 / m->n, m2 = m->s2 / m->n;
  const double se_mean = sqrt(m2 / m->n);
  const double se_m2 = sqrt((m->s4 / m->n - m2 * m2) / m->n);
  TU_NEAR(mean, 0.0, KSIG * se_mean, what);
  TU_NEAR(m2, var, KSIG * se_m2, what);
}

/* The law: increments over dyadic steps at shallow and deep levels have
 * variance = length; disjoint steps, channels, base intervals and paths are
 * uncorrelated; the bridge B(1/2) - B(1)/2 has variance 1/4. */
static void test_law(void) {
  enum { NP = 40000 };
  const sdk_u64 steps[][2] = {
      {0, ONE},                                         /* the root */
      {ONE / 4, ONE / 2},                               /* level 2 */
      {ONE / 3 & ~0xffull, (ONE / 3 & ~0xffull) + 256}, /* level D - 8, off any power */
      {ONE - 1, ONE},                                   /* the finest step */
      {12345, 12345 + 3 * 64},                          /* three level D-6 steps: no aligned node */
  };
  const int ns = (int)(sizeof steps / sizeof steps[0]);
  moments inc[5] = {{0}}, cross[4] = {{0}}, bridge = {0};
  for (sdk_u64 p = 0; p < NP; p++) {
    double x[5];
    for (int s = 0; s < ns; s++) {
      x[s] = sdk_btree_incr(seed, p, 3, 2, 0, steps[s][0], steps[s][1]);
      mom_add(&inc[s], x[s] / sqrt((double)(steps[s][1] - steps[s][0]) / (double)ONE));
    }
    const double a = sdk_btree_incr(seed, p, 3, 2, 0, 0, ONE / 2);
    const double b = sdk_btree_incr(seed, p, 3, 2, 0, ONE / 2, ONE);
    const double other_c = sdk_btree_incr(seed, p, 3, 2, 1, 0, ONE);
    const double other_n = sdk_btree_incr(seed, p, 4, 2, 0, 0, ONE);
    const double other_p = sdk_btree_incr(seed, p + NP, 3, 2, 0, 0, ONE);
    /* products of unit-variance values: mean 0, second moment 1 */
    mom_add(&cross[0], 2.0 * a * b);
    mom_add(&cross[1], x[0] * other_c);
    mom_add(&cross[2], x[0] * other_n);
    mom_add(&cross[3], x[0] * other_p);
    mom_add(&bridge, 2.0 * (sdk_btree_b(seed, p, 3, 2, 0, ONE / 2) - 0.5 * x[0]));
  }
  const char *names[] = {"root", "level 2", "level D-8", "finest", "three steps"};
  for (int s = 0; s < ns; s++)
    mom_check(&inc[s], 1.0, names[s]);
  mom_check(&cross[0], 1.0, "disjoint halves");
  mom_check(&cross[1], 1.0, "channels");
  mom_check(&cross[2], 1.0, "base intervals");
  mom_check(&cross[3], 1.0, "paths");
  mom_check(&bridge, 1.0, "bridge at 1/2");
  printf("btree law: var(root) %.4f var(finest)/h %.4f bridge 4 var %.4f (%d paths)\n",
         inc[0].s2 / inc[0].n, inc[3].s2 / inc[3].n, bridge.s2 / bridge.n, NP);
}

/* Additivity, the joint descent against two single ones bit for bit, and
 * independence of the order of evaluation. */
static void test_union_and_order(void) {
  uint64_t st = 0x9e3779b97f4a7c15ull;
  double worst = 0.0;
  for (int trial = 0; trial < 20000; trial++) {
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    sdk_u64 a = (st >> 20) & (ONE - 1), b = (st >> 40) & (ONE - 1), c;
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    c = (st >> 30) % (ONE + 1);
    if (a > b) {
      sdk_u64 t = a;
      a = b, b = t;
    }
    if (b > c) {
      sdk_u64 t = b;
      b = c, c = t;
    }
    if (a > b) {
      sdk_u64 t = a;
      a = b, b = t;
    }
    const sdk_u64 p = st & 1023;
    const double ab = sdk_btree_incr(seed, p, 0, 1, 0, a, b);
    const double bc = sdk_btree_incr(seed, p, 0, 1, 0, b, c);
    const double ac = sdk_btree_incr(seed, p, 0, 1, 0, a, c);
    const double d = fabs(ab + bc - ac);
    worst = d > worst ? d : worst;
    const double direct = sdk_btree_b(seed, p, 0, 1, 0, c) - sdk_btree_b(seed, p, 0, 1, 0, a);
    if (ac != direct) TU_CHECK(ac == direct, "joint descent %.17g != %.17g", ac, direct);
  }
  TU_CHECK(worst < 1e-13, "union: worst |ab + bc - ac| = %.3g", worst);
  /* an adaptive step's story: try [0, 1/2], reject, try [0, 1/4] and
   * [1/4, 3/8]; the increment over [1/4, 3/8] is what a fresh evaluation
   * says (pure functions: nothing was cached or consumed) */
  const double fresh = sdk_btree_incr(seed, 77, 5, 1, 0, ONE / 4, 3 * ONE / 8);
  (void)sdk_btree_incr(seed, 77, 5, 1, 0, 0, ONE / 2);
  (void)sdk_btree_incr(seed, 77, 5, 1, 0, 0, ONE / 4);
  TU_CHECK(sdk_btree_incr(seed, 77, 5, 1, 0, ONE / 4, 3 * ONE / 8) == fresh, "order");
  printf("btree union: worst |dW(a,b) + dW(b,c) - dW(a,c)| = %.3g\n", worst);
}

/* the next value of a 64-bit LCG (fixed seeds: the same sequences always) */
static uint64_t lcg(uint64_t *st) {
  *st = *st * 6364136223846793005ull + 1442695040888963407ull;
  return *st >> 33;
}

/* The cached walk against sdk_btree_incr: random controllers (a first
 * level, accept with probability 1/2 .. 7/8, a rejection refines by 1..4
 * levels, an acceptance moves the level by -2..+1, aligned as
 * kernels/adapt_step.h does) over base intervals of NW channels up to
 * levmax; each increment equal bit for bit, in double and rounded to
 * float.  Deep levels stop after `tries` steps of an interval (the walk's
 * state there is what counts). */
static void test_walk(void) {
  uint64_t st = 0x30b30b30b30ull;
  long steps = 0, incs = 0, drawn = 0, walked = 0, bad = 0;
  for (int trial = 0; trial < 3000; trial++) {
    const sdk_u32 nw = 1 + (sdk_u32)(lcg(&st) % 3);
    const int levmax = trial % 5 == 0 ? D : 1 + (int)(lcg(&st) % 12);
    const sdk_u64 p = lcg(&st) & 0xffff, n = lcg(&st) % 1000;
    const int pacc = 4 + (int)(lcg(&st) % 4); /* accept: pacc / 8 */
    double b[3], r[3][D + 1];
    for (sdk_u32 c = 0; c < nw; c++)
      sdk_btree_walk_start(seed, p, n, nw, c, &b[c], r[c]);
    int lev = (int)(lcg(&st) % (sdk_u64)(levmax + 1)), valid = 0;
    sdk_u64 pos = 0;
    for (int t = 0; t < 400 && pos < ONE; t++) {
      while (lev < levmax && (pos & ((1ull << (D - lev)) - 1u)) != 0u)
        lev++;
      const sdk_u64 hu = 1ull << (D - lev);
      for (sdk_u32 c = 0; c < nw; c++) {
        const double w = sdk_btree_walk_incr(seed, p, n, nw, c, pos, lev, valid, b[c], r[c]);
        const double s = sdk_btree_incr(seed, p, n, nw, c, pos, pos + hu);
        if ((w != s || (float)w != (float)s) && bad++ == 0)
          TU_CHECK(0, "walk %.17g != incr %.17g (nw %u, lev %d, pos %llu)", w, s, nw, lev,
                   (unsigned long long)pos);
        drawn += lev + 1, walked += lev > valid ? lev - valid : 0, incs++;
      }
      if (lev > valid) valid = lev;
      steps++;
      if ((int)(lcg(&st) % 8) < pacc || lev == levmax) { /* accepted */
        pos += hu;
        if (pos < ONE) {
          valid = sdk_btree_walk_level(pos, lev);
          for (sdk_u32 c = 0; c < nw; c++)
            sdk_btree_walk_next(lev, valid, &b[c], r[c]);
        }
        lev += (int)(lcg(&st) % 4) - 2;
        lev = lev < 0 ? 0 : lev > levmax ? levmax : lev;
      } else { /* rejected: 1..4 levels finer */
        lev += 1 + (int)(lcg(&st) % 4);
        lev = lev > levmax ? levmax : lev;
      }
    }
  }
  TU_CHECK(bad == 0, "cached walk: %ld of the increments differ", bad);
  printf("btree walk: %ld tries bit for bit; tree levels descended %.2f per increment cached "
         "(%.2f from the root)\n",
         steps, (double)walked / (double)incs, (double)drawn / (double)incs);
}

int main(void) {
  test_keying();
  test_law();
  test_union_and_order();
  test_walk();
#ifdef SDK_BTREE_ROOT_F
  return tu_finish("test_btree_f");
#else
  return tu_finish("test_btree");
#endif
}
