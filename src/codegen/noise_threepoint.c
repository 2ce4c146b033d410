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

/* the arithmetic, once: dst = the value of word w */
static void three_value(sdk_emit *em, const char *w, const char *dst) {
  sdk_em_line(em,
              "%s = %s < 715827883u ? -(real)1.7320508075688772 : "
              "(%s >= 3579139413u ? (real)1.7320508075688772 : (real)0);",
              dst, w, w);
}

static void three_emit(sdk_emit *em, const sdk_noise_draw *d) {
  char w[64], v[80];
  switch (d->shape) {
  case SDK_DRAW_DEFS: break;
  case SDK_DRAW_BLOCK:
    sdk_em_block(em);
    sdk_noise_fetch(em, d, "sdk_o");
    for (int k = 0; k < 4; k++) {
      snprintf(w, sizeof w, "sdk_o[%d]", k);
      snprintf(v, sizeof v, "%s[%d]", d->dst, k);
      three_value(em, w, v);
    }
    sdk_em_close(em);
    break;
  case SDK_DRAW_HALF: /* values 2 half and 2 half + 1: the words of that half */
    sdk_noise_fetch(em, d, "sdk_w");
    for (int k = 0; k < 2; k++) {
      snprintf(w, sizeof w, "(%s ? sdk_w[%d] : sdk_w[%d])", d->half, 2 + k, k);
      snprintf(v, sizeof v, "%s[%d]", d->dst, k);
      three_value(em, w, v);
    }
    break;
  case SDK_DRAW_WORDS:
    for (int k = 0; k < 4; k++)
      three_value(em, d->w[k], d->dsts[k]);
    break;
  case SDK_DRAW_LANE:
    sdk_em_block(em);
    sdk_em_line(em, "const sdk_u32 sdk_o1 = (%s) == 0 ? %s : (%s) == 1 ? %s : (%s) == 2 ? %s : %s;",
                d->lane, d->w[0], d->lane, d->w[1], d->lane, d->w[2], d->w[3]);
    three_value(em, "sdk_o1", d->dst);
    sdk_em_close(em);
    break;
  }
}

const sdk_noise_type sdk_noise_three_point = {
    .name = "three-point",
    .description = "three-point values -sqrt(3), 0, sqrt(3) with probabilities 1/6, 2/3, 1/6 "
                   "(weak schemes; the moments of a Gaussian up to the fifth)",
    .values_per_block = 4,
    .halves = 1,
    .emit = three_emit,
};
