/* The part of a draw that is the same for every noise source (noise.h). */
#include "codegen/noise.h"

void sdk_noise_fetch(sdk_emit *em, const sdk_noise_draw *d, const char *var) {
  sdk_em_line(em, "sdk_u32 %s[4];", var);
  sdk_em_line(em, "sdk_philox_block(%s, %s, %s, %d, %s);", d->seed, d->path, d->block, d->domain,
              var);
}
