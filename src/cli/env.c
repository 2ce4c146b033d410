#include "cli/env.h"

#include <stdlib.h>

/* ---------------- model search path ---------------- */

const char *sdk_cli_env_model_path(void) {
  return getenv("SDEKIT_MODEL_PATH");
}

/* ---------------- the whole environment, for the library ---------------- */

extern char **environ;

const char *const *cli_environ(void) {
  return (const char *const *)environ;
}

/* ---------------- the CLI's own ---------------- */

const char *sdk_cli_env_tmpdir(void) {
  return getenv("TMPDIR");
}

const char *sdk_cli_env_cache_max(void) {
  return getenv("SDEKIT_CACHE_MAX");
}
