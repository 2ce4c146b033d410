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
 * The observables' state is generic (observe/observable.h): one record
 * "OBSN" per observable (u16 name length, name, i64 samples taken) and one
 * record "OBSD" per dataset with a sample axis (u16 path length, path, u8
 * type, u8 rank, rank x i64 dimensions, the data: its first `samples` along
 * the sample axis); these two tags may repeat, every other tag may not.
 *
 * A checkpoint is untrusted data (docs/SECURITY.md): the hash only detects
 * accidents, anyone can recompute it.  The reader therefore checks every
 * record (known tag, given once, exact size from the dimensions, no
 * overflow, strings without NUL bytes) and allocates nothing larger than the
 * file; the caller checks the dimensions against the model and the run, and
 * the stored model text goes through the model parser like any model file.
 *
 * Extending the format: a new record gets a new tag and a line in the
 * reader's table (checkpoint.c); a reader refuses tags it does not know, so
 * an older sdekit never drops state it cannot restore.  SDK_CKPT_FORMAT goes
 * up only when the meaning of an existing record changes.
 */
#ifndef SDK_CHECKPOINT_H
#define SDK_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* 4: the kernel hash (KHSH) is over the normalised source
 * (codegen/identity.h); format 3's was over the raw text, so a checkpoint
 * of format 3 is refused with its own message (no kernel of this build has
 * its hash: rerun it) */
#define SDK_CKPT_FORMAT 4
/* Limits on what a checkpoint may claim (larger: refused as corrupt). */
#define SDK_CKPT_MAX_BYTES ((uint64_t)1 << 40) /* 1 TiB */
#define SDK_CKPT_MAX_ARGS 4096
#define SDK_CKPT_MAX_VARS 65536

#define SDK_CKPT_MAX_NAME 255 /* observable names and dataset paths */
#define SDK_CKPT_MAX_RECORDS 4096
/* carried rows past the compensated update's (boundaries, accumulators) */
#define SDK_CKPT_MAX_EXTRA_ROWS 4096

typedef struct sdk_ckpt_obs {
  char *name;
  int64_t nsamples;
} sdk_ckpt_obs;

typedef struct sdk_ckpt_ds {
  char *path;
  int type; /* observe/store.h sdk_dtype */
  int rank;
  int64_t dims[8];
  void *data; /* product of dims x 8 bytes */
} sdk_ckpt_ds;

typedef struct sdk_ckpt {
  char *version;     /* sdekit version that wrote it */
  int64_t abi;       /* kernel ABI */
  char *build;       /* build id (sdk_ckpt_build_id) */
  char *kernel_hash; /* the kernel's identity (codegen/identity.h; 32 hex digits) */
  int argc;          /* the run's arguments (after "run"), as typed */
  char **argv;
  char *model_text;
  char *model_path;
  int64_t step; /* steps done */
  int64_t nvars, ngrid, ppg, nsamples, has_mark;
  double *state;        /* (nvars + 1) * ngrid * ppg: variables, then the drift mark */
  double *comp;         /* ncomp * ngrid * ppg: the carried rows, or NULL */
  int64_t ncomp;        /* the backend's carried rows (codegen.h, sdk_cg_rows): none, nvars (Kahan
                         * every step) or 2 nvars (deferred), then the boundary rows, then 2 per
                         * time average; at most 2 nvars + SDK_CKPT_MAX_EXTRA_ROWS */
  int64_t *sample_step; /* nsamples: the run's sample clock */
  /* the run's sample interval in steps (every multiple of it is a sample);
   * 0 where it has none (--sample-times, no sampling) or the file predates
   * the record */
  int64_t sample_every;
  /* the observables: samples taken, and their sampled datasets */
  int nobs;
  sdk_ckpt_obs *obs;
  int nds;
  sdk_ckpt_ds *ds;
  /* a run in batches of paths (sim/target.c; records CARY and TGTS): the
   * carried reductions (observe/paths.h sdk_carry_pack) and the driver's
   * state, or NULL.  Its state holds the current window's paths alone: ngrid
   * = 1 and ppg = the paths held, grid point by grid point in path order. */
  void *carry, *target;
  uint64_t ncarry, ntarget;
} sdk_ckpt;

/* The build id stored in and required of every checkpoint: version, kernel
 * ABI, checkpoint format, compiler. */
const char *sdk_ckpt_build_id(void);

sdk_err sdk_ckpt_write(const sdk_ckpt *c, const char *path, sdk_errbuf *eb);
/* Read and validate a checkpoint file (a regular file of at most
 * SDK_CKPT_MAX_BYTES; FIFOs and devices are refused without blocking). */
sdk_err sdk_ckpt_read(const char *path, sdk_ckpt **out, sdk_errbuf *eb);
/* The same from memory (the fuzzing entry point): `name` is used in messages
 * only.  Also refuses another version, ABI or build. */
sdk_err sdk_ckpt_parse(const void *buf, size_t len, const char *name, sdk_ckpt **out,
                       sdk_errbuf *eb);
void sdk_ckpt_destroy(sdk_ckpt **c);

#endif
