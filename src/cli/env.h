/* sdekit: the environment variables the CLI reads.  This is the only place
 * that calls getenv(): the library takes everything as configuration (the
 * rule of docs/ARCHITECTURE.md), and every variable is documented in
 * `sdekit run --help` and the README. */
#ifndef SDK_CLI_ENV_H
#define SDK_CLI_ENV_H

#include <stddef.h>

#include "backend/backend.h"
#include "core/error.h"
#include "core/tuning.h"
#include "sim/run.h"

/* The persistent kernel cache named by the environment: $SDK_CACHE_DIR,
 * else $XDG_CACHE_HOME/sdekit (an absolute XDG_CACHE_HOME only), else
 * $HOME/.cache/sdekit, into out; 0 when none applies (or the name does not
 * fit): a run then uses a private directory, removed at its end. */
int sdk_cli_env_cache_dir(char *out, size_t n);

/* Backend settings (backend.h: sdk_backend_env): kernel cache directory, CPU
 * compiler and flags, CUDA toolkit location (SDK_CACHE_DIR, XDG_CACHE_HOME,
 * HOME, TMPDIR, SDEKIT_CC, CC, SDEKIT_CFLAGS, CFLAGS, PATH, CUDA_HOME,
 * CUDA_PATH).  The strings point into the environment, or for the cache
 * directory into storage of env.c that the next call overwrites. */
sdk_err sdk_cli_env_backend(sdk_backend_env *e, sdk_errbuf *eb);

/* The SDK_SYS_* / SDK_RUN_MINB / SDK_BASELINE_CUBIN tuning knobs
 * (core/tuning.h); unset or empty: 0 / NULL (choose).  A malformed value is
 * an error naming the variable (SDK_ERR_USAGE). */
sdk_err sdk_cli_env_tuning(sdk_tuning *t, sdk_errbuf *eb);

/* Both of the above into a run's configuration (c->env, c->tuning). */
sdk_err sdk_cli_env_run(sdk_run_config *c, sdk_errbuf *eb);

/* SDEKIT_MODEL_PATH: ':'-separated directories searched for bare model names
 * before the built-in ones (NULL when unset). */
const char *sdk_cli_env_model_path(void);

/* The environment as the library takes it (sdekit_config_set_environment). */
const char *const *cli_environ(void);

/* TMPDIR (where `sdekit plot` makes its scratch directory) and
 * SDEKIT_CACHE_MAX (the kernel cache's cap): NULL when unset. */
const char *sdk_cli_env_tmpdir(void);
const char *sdk_cli_env_cache_max(void);

#endif
