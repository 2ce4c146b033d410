/* Helpers for tests that run simulations through the library API. */
#ifndef SDK_SIMTEST_H
#define SDK_SIMTEST_H
#include "sim/run.h"

/* Backend named by $SDK_TEST_BACKEND (default "cpu"). */
const char *st_backend(void);
/* Write model text to a temporary .sde file; returns its path (static buffer per call index). */
const char *st_model_file(const char *text, int slot);
/* The backend's surroundings as the CLI fills them from the environment
 * (cli/env.h: the kernel cache $SDK_CACHE_DIR, the C compiler, NVRTC's
 * toolkit), so that tests build what the tool builds, in its cache. */
void st_env(sdk_backend_env *env);
/* Run (with st_env unless the configuration names a compiler); on failure
 * print the error and return NULL. */
sdk_run *st_run(const sdk_run_config *c);
/* Skip (exit 77) when the chosen backend cannot be opened. */
void st_require_backend(void);
#endif
