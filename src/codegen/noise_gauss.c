/* Gaussian noise: rng/philox.h's Box-Muller transform of the word pairs
 * (o0,o1) -> values 0, 1 and (o2,o3) -> values 2, 3 of a block
 * (sdk_gauss4 for a whole block drawn by position in the stream,
 * sdk_boxmuller2 from words a driver computed itself).  sdk_gauss4 is bound
 * to sdk_gauss4_f or _d by the prelude (common.c), sdk_boxmuller2 below. */
#include "codegen/noise.h"

static void gauss_defs(sdk_emit *em, int words) {
  if (words) sdk_em_line(em, "#define sdk_boxmuller2 sdk_boxmuller2_%c", em->single ? 'f' : 'd');
}

static void gauss_block(sdk_emit *em, const char *seed, const char *path, const char *block,
                        int domain, const char *dst) {
  sdk_em_line(em, "sdk_gauss4(%s, %s, %s, %d, %s);", seed, path, block, domain, dst);
}

/* one Box-Muller pair: sdk_boxmuller2 is sdk_gauss4's expressions for a pair */
static void gauss_block_half(sdk_emit *em, const char *seed, const char *path, const char *block,
                             int domain, const char *half, const char *dst) {
  sdk_em_line(em, "sdk_u32 sdk_w[4];");
  sdk_em_line(em, "sdk_philox_block(%s, %s, %s, %d, sdk_w);", seed, path, block, domain);
  sdk_em_line(em, "sdk_boxmuller2_%c(%s ? sdk_w[2] : sdk_w[0], %s ? sdk_w[3] : sdk_w[1], %s);",
              em->single ? 'f' : 'd', half, half, dst);
}

static void gauss_words(sdk_emit *em, const char *const w[4], const char *const dst[4]) {
  sdk_em_line(em, "real sdk_g2[2];");
  for (int h = 0; h < 2; h++) {
    sdk_em_line(em, "sdk_boxmuller2(%s, %s, sdk_g2);", w[2 * h], w[2 * h + 1]);
    sdk_em_line(em, "%s = sdk_g2[0]; %s = sdk_g2[1];", dst[2 * h], dst[2 * h + 1]);
  }
}

static void gauss_word_lane(sdk_emit *em, const char *const w[4], const char *lane,
                            const char *dst) {
  sdk_em_line(em, "real sdk_g2[2];");
  /* the pair of the lane's half, then its value of the pair */
  sdk_em_line(em, "sdk_boxmuller2(%s & 2 ? %s : %s, %s & 2 ? %s : %s, sdk_g2);", lane, w[2], w[0],
              lane, w[3], w[1]);
  sdk_em_line(em, "%s = %s & 1 ? sdk_g2[1] : sdk_g2[0];", dst, lane);
}

const sdk_noise_type sdk_noise_gaussian = {
    .name = "gaussian",
    .description = "standard Gaussian increments (Box-Muller on Philox4x32-10, rng/philox.h)",
    .values_per_block = 4,
    .emit_defs = gauss_defs,
    .emit_block = gauss_block,
    .emit_words = gauss_words,
    .emit_word_lane = gauss_word_lane,
    .emit_block_half = gauss_block_half,
};
