#include "cli/env.h"

#include <stdlib.h>
#include <string.h>

/* ---------------- backend (cache, compilers, CUDA toolkit) ---------------- */

sdk_err sdk_cli_env_backend(sdk_backend_opts *o, sdk_errbuf *eb) {
  (void)o;
  (void)eb;
  return SDK_OK;
}

/* ---------------- tuning knobs ---------------- */

sdk_err sdk_cli_env_tuning(sdk_tuning *t, sdk_errbuf *eb) {
  (void)t;
  (void)eb;
  return SDK_OK;
}

/* ---------------- model search path ---------------- */

const char *sdk_cli_env_model_path(void) {
  return getenv("SDEKIT_MODEL_PATH");
}
