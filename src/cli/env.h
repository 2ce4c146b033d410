/* sdekit: the environment variables the CLI reads.  This is the only place
 * that calls getenv(): the library takes everything as configuration (the
 * rule of docs/ARCHITECTURE.md), and every variable is documented in
 * `sdekit run --help` and the README. */
#ifndef SDK_CLI_ENV_H
#define SDK_CLI_ENV_H

#include "backend/backend.h"
#include "core/error.h"
#include "core/tuning.h"

/* Backend settings: kernel cache directory, CPU compiler and flags, CUDA
 * toolkit location (SDK_CACHE_DIR, XDG_CACHE_HOME, HOME, TMPDIR, SDEKIT_CC,
 * CC, SDEKIT_CFLAGS, CFLAGS, PATH, CUDA_HOME, CUDA_PATH). */
sdk_err sdk_cli_env_backend(sdk_backend_opts *o, sdk_errbuf *eb);

/* The SDK_SYS_* / SDK_RUN_MINB / SDK_BASELINE_CUBIN tuning knobs
 * (core/tuning.h); a malformed value is an error naming the variable. */
sdk_err sdk_cli_env_tuning(sdk_tuning *t, sdk_errbuf *eb);

/* SDEKIT_MODEL_PATH: ':'-separated directories searched for bare model names
 * before the built-in ones (NULL when unset). */
const char *sdk_cli_env_model_path(void);

#endif
