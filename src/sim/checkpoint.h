/* sdekit: checkpoints.
 *
 * A checkpoint is the complete state of a run: how it was started (the
 * arguments and the model text), the step reached, every path's variables
 * and drift reference point, and the observables sampled so far.  Random
 * numbers are counter-based (rng/philox.h), so the step index is the whole
 * RNG state: a resumed run continues bit for bit as if never stopped.
 *
 * File format (little-endian): "SDEKITCP", u32 format version, then records
 * (4-byte tag, u64 length, payload), closed by a record "HASH" holding a
 * 128-bit hash of everything before it.  Written to a temporary file, synced,
 * then renamed over the target, so a crash never leaves a torn checkpoint.
 */
#ifndef SDK_CHECKPOINT_H
#define SDK_CHECKPOINT_H

#include <stdint.h>

#include "core/error.h"

#define SDK_CKPT_FORMAT 1

typedef struct sdk_ckpt {
  char *version; /* sdekit version that wrote it */
  int64_t abi;   /* kernel ABI */
  int argc;      /* the run's arguments (after "run"), as typed */
  char **argv;
  char *model_text;
  char *model_path;
  int64_t step; /* steps done */
  int64_t nvars, ngrid, ppg, nsaved, dbins, nsamples, has_mark;
  double *state;            /* (nvars + 1) * ngrid * ppg: variables, then the drift mark */
  int64_t *sample_step;     /* nsamples */
  double *mean, *var;       /* [g][s][v], may be NULL */
  double *paths;            /* [g][k][s][v], may be NULL */
  double *dlo, *dhi;        /* [g][s], may be NULL */
  double *dP;               /* [g][s][b] */
  uint64_t *dunder, *dover; /* [g][s] */
  /* order parameter (--observe order), when the run has it: nord samples */
  int64_t nord;
  int64_t *ord_step;                 /* [s], NULL without */
  double *ord_r, *ord_err, *ord_psi; /* [g][s] */
  /* single precision, compensated update (codegen.h): the carried error of
   * every variable, nvars * ngrid * ppg; NULL without */
  double *comp;
} sdk_ckpt;

sdk_err sdk_ckpt_write(const sdk_ckpt *c, const char *path, sdk_errbuf *eb);
sdk_err sdk_ckpt_read(const char *path, sdk_ckpt **out, sdk_errbuf *eb);
void sdk_ckpt_destroy(sdk_ckpt **c);

#endif
