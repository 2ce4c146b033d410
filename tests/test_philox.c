/* Philox4x32-10 against Random123's published known-answer vectors and, where
 * Debian's librandom123-dev is installed, against Random123 itself as an
 * oracle; then the stream contract of rng/philox.h (counter layout, uniform
 * conversions, Box-Muller) checked by hand. */
#include "rng/philox.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "testutil.h"

#if defined(__has_include)
#if __has_include(<Random123/philox.h>)
#include <Random123/philox.h>
#define HAVE_R123 1
#endif
#endif

static uint64_t sm_state = 0x0123456789abcdefull;
static uint64_t splitmix64(void) {
  uint64_t z = (sm_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

#ifdef HAVE_R123
static void r123_ref(const sdk_u32 c[4], sdk_u32 k0, sdk_u32 k1, sdk_u32 out[4]) {
  philox4x32_ctr_t ctr = {{c[0], c[1], c[2], c[3]}};
  philox4x32_key_t key = {{k0, k1}};
  philox4x32_ctr_t r = philox4x32_R(10, ctr, key);
  for (int i = 0; i < 4; i++)
    out[i] = r.v[i];
}
#endif

/* Random123 kat_vectors, philox4x32 with 10 rounds. */
static const struct {
  sdk_u32 ctr[4], key[2], out[4];
} kat[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}},
    {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
     {0xffffffffu, 0xffffffffu},
     {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}},
    {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
     {0xa4093822u, 0x299f31d0u},
     {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}},
};

static void test_kat(void) {
  for (unsigned i = 0; i < sizeof kat / sizeof kat[0]; i++) {
    sdk_u32 o[4];
    const sdk_u32 *c = kat[i].ctr;
    sdk_philox4x32_10(c[0], c[1], c[2], c[3], kat[i].key[0], kat[i].key[1], o);
    for (int j = 0; j < 4; j++)
      TU_CHECK(o[j] == kat[i].out[j], "kat %u word %d: got %08x want %08x", i, j, o[j],
               kat[i].out[j]);
#ifdef HAVE_R123
    sdk_u32 r[4];
    r123_ref(c, kat[i].key[0], kat[i].key[1], r);
    for (int j = 0; j < 4; j++)
      TU_CHECK(r[j] == kat[i].out[j], "oracle kat %u word %d: %08x vs %08x", i, j, r[j],
               kat[i].out[j]);
#endif
  }
}

static void test_oracle_random(void) {
#ifdef HAVE_R123
  const int n = 100000;
  int bad = 0;
  for (int i = 0; i < n; i++) {
    uint64_t a = splitmix64(), b = splitmix64(), k = splitmix64();
    sdk_u32 c[4] = {(sdk_u32)a, (sdk_u32)(a >> 32), (sdk_u32)b, (sdk_u32)(b >> 32)};
    sdk_u32 o[4], r[4];
    sdk_philox4x32_10(c[0], c[1], c[2], c[3], (sdk_u32)k, (sdk_u32)(k >> 32), o);
    r123_ref(c, (sdk_u32)k, (sdk_u32)(k >> 32), r);
    if (o[0] != r[0] || o[1] != r[1] || o[2] != r[2] || o[3] != r[3]) bad++;
  }
  TU_CHECK(bad == 0, "%d of %d random counters/keys differ from Random123", bad, n);
  printf("test_philox: %d random counters/keys compared with Random123, %d differ\n", n, bad);
#else
  printf("test_philox: Random123 headers not found; oracle comparison skipped\n");
#endif
}

/* The counter of the stream contract, built independently of the header. */
static void contract_words(uint64_t seed, uint64_t path, uint64_t block, unsigned domain,
                           sdk_u32 o[4]) {
  /* the domain's tag in the top bits of word 1: none, 1, 11, 111 (binary) */
  static const sdk_u32 tag[4] = {0, 0x80000000u, 0xc0000000u, 0xe0000000u};
  sdk_u32 c[4] = {(sdk_u32)(block & 0xffffffffu),
                  (sdk_u32)((block >> 32) & 0x7fffffffu) | tag[domain],
                  (sdk_u32)(path & 0xffffffffu), (sdk_u32)(path >> 32)};
#ifdef HAVE_R123
  r123_ref(c, (sdk_u32)seed, (sdk_u32)(seed >> 32), o);
#else
  sdk_philox4x32_10(c[0], c[1], c[2], c[3], (sdk_u32)seed, (sdk_u32)(seed >> 32), o);
#endif
}

static void test_contract(void) {
  static const struct {
    uint64_t seed, path, block;
    unsigned domain;
  } cases[] = {
      {0, 0, 0, 0},
      {1, 0, 0, 1},
      {0x0123456789abcdefull, 42, 7, 0},
      {0xfedcba9876543210ull, 0x00000001ffffffffull, 0x000000017fffffffull, 1},
      {12345, 0xdeadbeefcafef00dull, 0x7fffffff12345678ull, 0},
      {12345, 0xdeadbeefcafef00dull, 0x7fffffff12345678ull, 1},
      {7, 1000, 3, 2},                                       /* a particle parameter */
      {7, 1000, 3, 3},                                       /* system noise: same block, path */
      {99, 0x0000000100000003ull, 0x1fffffff00000001ull, 3}, /* highest domain-3 blocks */
  };
  const double pi = 3.14159265358979323846;
  for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    sdk_u32 o[4], ob[4];
    double g[4], ud[4];
    float gf[4], uf[4];
    contract_words(cases[i].seed, cases[i].path, cases[i].block, cases[i].domain, o);
    sdk_philox_block(cases[i].seed, cases[i].path, cases[i].block, cases[i].domain, ob);
    for (int j = 0; j < 4; j++)
      TU_CHECK(ob[j] == o[j], "case %u block word %d", i, j);

    sdk_gauss4_d(cases[i].seed, cases[i].path, cases[i].block, cases[i].domain, g);
    sdk_gauss4_f(cases[i].seed, cases[i].path, cases[i].block, cases[i].domain, gf);
    sdk_uniform4_d(cases[i].seed, cases[i].path, cases[i].block, cases[i].domain, ud);
    sdk_uniform4_f(cases[i].seed, cases[i].path, cases[i].block, cases[i].domain, uf);
    for (int j = 0; j < 4; j++) {
      TU_CHECK(ud[j] == (o[j] + 0.5) / 4294967296.0, "case %u uniform_d %d", i, j);
      TU_CHECK(uf[j] == (float)(((o[j] >> 9) + 0.5) / 8388608.0), "case %u uniform_f %d", i, j);
    }
    for (int h = 0; h < 2; h++) {
      /* Box-Muller by hand, in double (and in double for the float version). */
      double u = (o[2 * h] + 0.5) / 4294967296.0, v = (o[2 * h + 1] + 0.5) / 4294967296.0;
      double r = sqrt(-2.0 * log(u));
      TU_NEAR(g[2 * h], r * cos(2 * pi * v), 1e-13, "gauss_d cos");
      TU_NEAR(g[2 * h + 1], r * sin(2 * pi * v), 1e-13, "gauss_d sin");
      double uf1 = ((o[2 * h] >> 9) + 0.5) / 8388608.0,
             vf = ((o[2 * h + 1] >> 9) + 0.5) / 8388608.0;
      double rf = sqrt(-2.0 * log(uf1));
      TU_NEAR(gf[2 * h], rf * cos(2 * pi * vf), 4e-6 * (1 + rf), "gauss_f cos");
      TU_NEAR(gf[2 * h + 1], rf * sin(2 * pi * vf), 4e-6 * (1 + rf), "gauss_f sin");
    }
    if (i == 2)
      printf("test_philox: seed %llx path %llu block %llu: o = %08x %08x %08x %08x, "
             "g = %.17g %.17g %.17g %.17g\n",
             (unsigned long long)cases[i].seed, (unsigned long long)cases[i].path,
             (unsigned long long)cases[i].block, o[0], o[1], o[2], o[3], g[0], g[1], g[2], g[3]);
  }
}

/* The pieces generated kernels call (the systems' noise): the counter of a
 * stream position, and several blocks under one key schedule, agree with
 * sdk_philox_block block by block. */
static void test_blocks(void) {
  static const uint64_t seeds[] = {0, 1, 0x0123456789abcdefull, 0xfedcba9876543210ull};
  for (unsigned s = 0; s < sizeof seeds / sizeof seeds[0]; s++)
    for (int n = 1; n <= 4; n++) {
      sdk_u32 x[4][4], o[4];
      uint64_t path[4], block[4];
      unsigned domain[4];
      for (int i = 0; i < n; i++) {
        path[i] = 0x0000000100000003ull * (uint64_t)(i + 1) + s;
        block[i] = (i & 1) ? 0x1fffffff00000001ull - (uint64_t)i : (uint64_t)(7 * i + (int)s);
        domain[i] = (unsigned)(i + (int)s) & 3u;
        sdk_philox_counter(x[i], path[i], block[i], domain[i]);
        sdk_u32 c[4] = {(sdk_u32)block[i], 0, (sdk_u32)path[i], (sdk_u32)(path[i] >> 32)};
        static const sdk_u32 tag[4] = {0, 0x80000000u, 0xc0000000u, 0xe0000000u};
        c[1] = (sdk_u32)((block[i] >> 32) & 0x7fffffffu) | tag[domain[i]];
        for (int j = 0; j < 4; j++)
          TU_CHECK(x[i][j] == c[j], "seed %u counter %d word %d", s, i, j);
      }
      sdk_philox_blocks(x, n, seeds[s]);
      for (int i = 0; i < n; i++) {
        sdk_philox_block(seeds[s], path[i], block[i], domain[i], o);
        for (int j = 0; j < 4; j++)
          TU_CHECK(x[i][j] == o[j], "seed %u, %d blocks: block %d word %d", s, n, i, j);
      }
    }
}

/* The key schedule (sdk_philox_keys_of) gives every block's bits and Gaussians
 * exactly as the seed does: the GPU step loops draw through it. */
static void test_keys(void) {
  static const sdk_u64 seeds[] = {0, 1, 0xa4093822299f31d0ull, ~0ull, 0x0123456789abcdefull};
  static const sdk_u64 path[] = {0, 7, 0xffffffffull, 0x123456789ull};
  static const sdk_u64 block[] = {0, 3, 0x7fffffffull, 0x1234567890ull};
  for (int s = 0; s < 5; s++) {
    sdk_philox_keys ks;
    sdk_philox_keys_of(seeds[s], &ks);
    TU_CHECK(ks.k[0] == (sdk_u32)seeds[s] && ks.k[1] == (sdk_u32)(seeds[s] >> 32) &&
                 ks.k[19] == (sdk_u32)((sdk_u32)(seeds[s] >> 32) + 9u * SDK_PHILOX_W1),
             "seed %d: schedule", s);
    for (int p = 0; p < 4; p++)
      for (int b = 0; b < 4; b++)
        for (sdk_u32 d = 0; d < 4; d++) {
          sdk_u32 o[4], ok[4];
          sdk_philox_block(seeds[s], path[p], block[b], d, o);
          sdk_philox_block_k(&ks, path[p], block[b], d, ok);
          float gf[4], gkf[4];
          double gd[4], gkd[4];
          sdk_gauss4_f(seeds[s], path[p], block[b], d, gf);
          sdk_gauss4k_f(&ks, path[p], block[b], d, gkf);
          sdk_gauss4_d(seeds[s], path[p], block[b], d, gd);
          sdk_gauss4k_d(&ks, path[p], block[b], d, gkd);
          for (int j = 0; j < 4; j++)
            TU_CHECK(o[j] == ok[j] && memcmp(&gf[j], &gkf[j], sizeof(float)) == 0 &&
                         memcmp(&gd[j], &gkd[j], sizeof(double)) == 0,
                     "seed %d path %d block %d domain %u value %d", s, p, b, d, j);
        }
  }
}

int main(void) {
  test_kat();
  test_oracle_random();
  test_contract();
  test_blocks();
  test_keys();
  return tu_finish("test_philox");
}
