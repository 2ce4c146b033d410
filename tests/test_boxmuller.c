/* Statistics of the Gaussians of rng/philox.h (mean, variance, fourth moment
 * of 2^22 numbers each in double and float), the open-interval uniform
 * conversions at their extremes, and independence of domains, paths, seeds
 * and blocks (streams that must differ do). */
#include "rng/philox.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "testutil.h"

enum { NPATH = 1 << 14, NBLOCK = 1 << 6, N = NPATH * NBLOCK * 4 }; /* N = 2^22 */

static void check_moments(const char *what, double s1, double s2, double s4) {
  double n = N, mean = s1 / n, var = s2 / n - mean * mean, m4 = s4 / n;
  double se_mean = 1 / sqrt(n), se_var = sqrt(2 / n), se_m4 = sqrt(96 / n);
  printf("test_boxmuller: %s n=%d mean %+.6f (%.2f SE) var %.6f (%.2f SE) "
         "E[x^4] %.5f (%.2f SE)\n",
         what, N, mean, mean / se_mean, var, (var - 1) / se_var, m4, (m4 - 3) / se_m4);
  TU_NEAR(mean, 0.0, 5 * se_mean, what);
  TU_NEAR(var, 1.0, 5 * se_var, what);
  TU_NEAR(m4, 3.0, 5 * se_m4, what);
}

static void test_moments(void) {
  const sdk_u64 seed = 20240611u;
  double a1 = 0, a2 = 0, a4 = 0, b1 = 0, b2 = 0, b4 = 0;
  int nonfinite = 0;
  for (sdk_u64 p = 0; p < NPATH; p++) {
    for (sdk_u64 b = 0; b < NBLOCK; b++) {
      double g[4];
      float f[4];
      /* Paths spread over the 64-bit range, blocks over the low and high
       * words, so that all counter words take part. */
      sdk_u64 path = p * 0x9e3779b97f4a7c15ull, block = b | (b << 40);
      sdk_gauss4_d(seed, path, block, 0, g);
      sdk_gauss4_f(seed, path, block, 0, f);
      for (int j = 0; j < 4; j++) {
        double x = g[j], y = f[j], x2 = x * x, y2 = y * y;
        if (!isfinite(x) || !isfinite(y)) nonfinite++;
        a1 += x, a2 += x2, a4 += x2 * x2;
        b1 += y, b2 += y2, b4 += y2 * y2;
      }
    }
  }
  TU_CHECK(nonfinite == 0, "%d non-finite Gaussians", nonfinite);
  check_moments("gauss4_d", a1, a2, a4);
  check_moments("gauss4_f", b1, b2, b4);
}

static void test_uniform_extremes(void) {
  double d0 = sdk_u01_d(0), d1 = sdk_u01_d(0xffffffffu);
  float f0 = sdk_u01_f(0), f1 = sdk_u01_f(0xffffffffu);
  printf("test_boxmuller: u01_d(0)=%.17g u01_d(max)=%.17g u01_f(0)=%.9g u01_f(max)=%.9g\n", d0, d1,
         (double)f0, (double)f1);
  TU_CHECK(d0 > 0 && d0 < 1 && d1 > 0 && d1 < 1, "u01_d extremes %g %g", d0, d1);
  TU_CHECK(f0 > 0 && f0 < 1 && f1 > 0 && f1 < 1, "u01_f extremes %g %g", (double)f0, (double)f1);
  TU_CHECK(d0 == 0x1p-33 && d1 == 1 - 0x1p-33, "u01_d endpoints");
  TU_CHECK(f0 == 0x1p-24f && f1 == 1 - 0x1p-24f, "u01_f endpoints");
  /* Every float value (they depend on o >> 9 only) is exact and inside (0,1),
   * and the map is strictly increasing. */
  int bad = 0;
  float prev = 0;
  for (sdk_u32 m = 0; m < (1u << 23); m++) {
    float lo = sdk_u01_f(m << 9), hi = sdk_u01_f((m << 9) | 0x1ffu);
    if (lo != hi || !(lo > prev) || !(lo < 1) || (double)lo != (m + 0.5) * 0x1p-23) bad++;
    prev = lo;
  }
  TU_CHECK(bad == 0, "%d bad float uniforms", bad);
  /* Gaussians at the extreme uniforms stay finite. */
  TU_CHECK(isfinite(sqrt(-2 * log(d0))) && sqrt(-2 * log(d1)) > 0, "double radius at extremes");
  TU_CHECK(isfinite(sqrtf(-2 * logf(f0))) && sqrtf(-2 * logf(f1)) > 0, "float radius at extremes");
}

/* Streams that must be distinct: count equal words among many blocks. */
static int same_block(sdk_u64 s1, sdk_u64 p1, sdk_u64 b1, sdk_u32 d1, sdk_u64 s2, sdk_u64 p2,
                      sdk_u64 b2, sdk_u32 d2) {
  double g[4], h[4];
  sdk_gauss4_d(s1, p1, b1, d1, g);
  sdk_gauss4_d(s2, p2, b2, d2, h);
  int same = 0;
  for (int j = 0; j < 4; j++)
    same += g[j] == h[j];
  return same;
}

static void test_streams_differ(void) {
  int dom = 0, path = 0, pathhi = 0, seedhi = 0, blockhi = 0, total = 0;
  for (sdk_u64 p = 0; p < 256; p++) {
    for (sdk_u64 b = 0; b < 16; b++) {
      dom += same_block(7, p, b, 0, 7, p, b, 1);
      path += same_block(7, p, b, 0, 7, p + 1, b, 0);
      pathhi += same_block(7, p, b, 0, 7, p + (1ull << 32), b, 0);
      seedhi += same_block(7, p, b, 0, 7 + (1ull << 32), p, b, 0);
      blockhi += same_block(7, p, b, 0, 7, p, b + (1ull << 32), 0);
      total += 4;
    }
  }
  printf("test_boxmuller: equal Gaussians out of %d: domain %d path %d path-high %d "
         "seed-high %d block-high %d\n",
         total, dom, path, pathhi, seedhi, blockhi);
  TU_CHECK(dom == 0, "domains 0 and 1 share %d numbers", dom);
  TU_CHECK(path == 0, "paths p and p+1 share %d numbers", path);
  TU_CHECK(pathhi == 0, "paths p and p+2^32 share %d numbers", pathhi);
  TU_CHECK(seedhi == 0, "seeds differing in the high word share %d numbers", seedhi);
  TU_CHECK(blockhi == 0, "blocks b and b+2^32 share %d numbers", blockhi);

  /* The same (seed, path, block, domain) always gives the same numbers, and
   * the float and double versions come from the same bits. */
  double g[4], h[4];
  float f[4];
  sdk_gauss4_d(99, 5, 3, 1, g);
  sdk_gauss4_d(99, 5, 3, 1, h);
  sdk_gauss4_f(99, 5, 3, 1, f);
  TU_CHECK(memcmp(g, h, sizeof g) == 0, "stream not reproducible");
  for (int j = 0; j < 4; j++)
    TU_NEAR(f[j], g[j], 1e-4 * (1 + fabs(g[j])), "float vs double");
}

int main(void) {
  test_uniform_extremes();
  test_streams_differ();
  test_moments();
  return tu_finish("test_boxmuller");
}
