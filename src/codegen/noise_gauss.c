/* Gaussian noise: rng/philox.h's Box-Muller transform of the word pairs
 * (o0,o1) -> values 0, 1 and (o2,o3) -> values 2, 3 of a block
 * (sdk_gauss4 for a whole block drawn by position in the stream,
 * sdk_boxmuller2 from words a driver computed itself).  sdk_gauss4 is bound
 * to sdk_gauss4_f or _d by the prelude (common.c), sdk_boxmuller2 by
 * SDK_DRAW_DEFS below. */
#include <stdio.h>

#include "codegen/noise.h"

/* the arithmetic, once: values 2h, 2h + 1 of a block from its words (a, b)
 * of half h into out[0], out[1] (fn: sdk_boxmuller2 or its _f/_d form) */
static void gauss_pair(sdk_emit *em, const char *fn, const char *a, const char *b,
                       const char *out) {
  sdk_em_line(em, "%s(%s, %s, %s);", fn, a, b, out);
}

static void gauss_emit(sdk_emit *em, const sdk_noise_draw *d) {
  char a[96], b[96], fn[24];
  snprintf(fn, sizeof fn, "sdk_boxmuller2_%c", em->single ? 'f' : 'd');
  switch (d->shape) {
  case SDK_DRAW_DEFS:
    if (d->words) sdk_em_line(em, "#define sdk_boxmuller2 %s", fn);
    break;
  case SDK_DRAW_BLOCK: /* sdk_gauss4: both pairs of the block (rng/philox.h) */
    if (d->keys)
      sdk_em_line(em, "sdk_gauss4k(&%s, %s, %s, %d, %s);", d->keys, d->path, d->block, d->domain,
                  d->dst);
    else
      sdk_em_line(em, "sdk_gauss4(%s, %s, %s, %d, %s);", d->seed, d->path, d->block, d->domain,
                  d->dst);
    break;
  case SDK_DRAW_HALF: /* the pair of that half */
    sdk_noise_fetch(em, d, "sdk_w");
    snprintf(a, sizeof a, "%s ? sdk_w[2] : sdk_w[0]", d->half);
    snprintf(b, sizeof b, "%s ? sdk_w[3] : sdk_w[1]", d->half);
    gauss_pair(em, fn, a, b, d->dst);
    break;
  case SDK_DRAW_WORDS:
    sdk_em_line(em, "real sdk_g2[2];");
    for (int h = 0; h < 2; h++) {
      gauss_pair(em, "sdk_boxmuller2", d->w[2 * h], d->w[2 * h + 1], "sdk_g2");
      sdk_em_line(em, "%s = sdk_g2[0]; %s = sdk_g2[1];", d->dsts[2 * h], d->dsts[2 * h + 1]);
    }
    break;
  case SDK_DRAW_LANE: /* the pair of the lane's half, then its value of the pair */
    sdk_em_line(em, "real sdk_g2[2];");
    snprintf(a, sizeof a, "%s & 2 ? %s : %s", d->lane, d->w[2], d->w[0]);
    snprintf(b, sizeof b, "%s & 2 ? %s : %s", d->lane, d->w[3], d->w[1]);
    gauss_pair(em, "sdk_boxmuller2", a, b, "sdk_g2");
    sdk_em_line(em, "%s = %s & 1 ? sdk_g2[1] : sdk_g2[0];", d->dst, d->lane);
    break;
  }
}

const sdk_noise_type sdk_noise_gaussian = {
    .name = "gaussian",
    .description = "standard Gaussian increments (Box-Muller on Philox4x32-10, rng/philox.h)",
    .values_per_block = 4,
    .halves = 1,
    .continuous = 1,
    .emit = gauss_emit,
};
