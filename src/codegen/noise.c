/* The part of a draw that is the same for every noise source (noise.h). */
#include "codegen/noise.h"

void sdk_noise_fetch(sdk_emit *em, const sdk_noise_draw *d, const char *var) {
  sdk_em_line(em, "sdk_u32 %s[4];", var);
  if (d->keys)
    sdk_em_line(em, "sdk_philox_block_k(&%s, %s, %s, %d, %s);", d->keys, d->path, d->block,
                d->domain, var);
  else
    sdk_em_line(em, "sdk_philox_block(%s, %s, %s, %d, %s);", d->seed, d->path, d->block, d->domain,
                var);
}
