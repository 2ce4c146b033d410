/* Three-point noise for weak schemes: each Philox word o gives one value
 *   -sqrt(3) if o < T,  +sqrt(3) if o >= 2^32 - T,  else 0,
 * T = 715827883 = round(2^32 / 6): probabilities 1/6, 2/3, 1/6 up to
 * 2^-32 (exactly symmetric, so every odd moment is exactly 0; E z^2 and
 * E z^4 / 3 are 1 + 4e-10).  Its moments up to the fifth are those of a
 * standard Gaussian, which is all a weak order 2 scheme needs (Kloeden &
 * Platen 1992, Sec. 14.2); no logarithm or square root per value.  Not for
 * paths (strong convergence) or for the Brownian-bridge correction of
 * absorbing boundaries, which the plan refuses with it. */
#include <stdio.h>

#include "codegen/noise.h"

static void three_defs(sdk_emit *em, int words) {
  (void)em, (void)words;
}

/* dst = the value of word w */
static void three_value(sdk_emit *em, const char *w, const char *dst) {
  sdk_em_line(em,
              "%s = %s < 715827883u ? -(real)1.7320508075688772 : "
              "(%s >= 3579139413u ? (real)1.7320508075688772 : (real)0);",
              dst, w, w);
}

static void three_block(sdk_emit *em, const char *seed, const char *path, const char *block,
                        int domain, const char *dst) {
  sdk_em_block(em);
  sdk_em_line(em, "sdk_u32 sdk_o[4];");
  sdk_em_line(em, "sdk_philox_block(%s, %s, %s, %d, sdk_o);", seed, path, block, domain);
  for (int k = 0; k < 4; k++) {
    char w[16], d[80];
    snprintf(w, sizeof w, "sdk_o[%d]", k);
    snprintf(d, sizeof d, "%s[%d]", dst, k);
    three_value(em, w, d);
  }
  sdk_em_close(em);
}

static void three_words(sdk_emit *em, const char *const w[4], const char *const dst[4]) {
  for (int k = 0; k < 4; k++)
    three_value(em, w[k], dst[k]);
}

static void three_word_lane(sdk_emit *em, const char *const w[4], const char *lane,
                            const char *dst) {
  sdk_em_block(em);
  sdk_em_line(em, "const sdk_u32 sdk_o1 = (%s) == 0 ? %s : (%s) == 1 ? %s : (%s) == 2 ? %s : %s;",
              lane, w[0], lane, w[1], lane, w[2], w[3]);
  three_value(em, "sdk_o1", dst);
  sdk_em_close(em);
}

/* values 2 half and 2 half + 1: the words of that half */
static void three_block_half(sdk_emit *em, const char *seed, const char *path, const char *block,
                             int domain, const char *half, const char *dst) {
  sdk_em_line(em, "sdk_u32 sdk_w[4];");
  sdk_em_line(em, "sdk_philox_block(%s, %s, %s, %d, sdk_w);", seed, path, block, domain);
  char w0[64], w1[64], d0[80], d1[80];
  snprintf(w0, sizeof w0, "(%s ? sdk_w[2] : sdk_w[0])", half);
  snprintf(w1, sizeof w1, "(%s ? sdk_w[3] : sdk_w[1])", half);
  snprintf(d0, sizeof d0, "%s[0]", dst);
  snprintf(d1, sizeof d1, "%s[1]", dst);
  three_value(em, w0, d0);
  three_value(em, w1, d1);
}

const sdk_noise_type sdk_noise_three_point = {
    .name = "three-point",
    .description = "three-point values -sqrt(3), 0, sqrt(3) with probabilities 1/6, 2/3, 1/6 "
                   "(weak schemes; the moments of a Gaussian up to the fifth)",
    .values_per_block = 4,
    .emit_defs = three_defs,
    .emit_block = three_block,
    .emit_words = three_words,
    .emit_word_lane = three_word_lane,
    .emit_block_half = three_block_half,
};
