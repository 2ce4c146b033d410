#include "sim/registry.h"

#include <string.h>

/* The schemes, one line each (the file codegen/scheme_NAME.c defines
 * sdk_scheme_NAME). */
#define SDK_SCHEMES(X)                                                                             \
  X(euler)                                                                                         \
  X(srk2)                                                                                          \
  X(milstein)                                                                                      \
  X(weak2)

/* The noise sources (codegen/noise.h declares them). */
#define SDK_NOISES(X) X(gaussian) X(three_point)

/* The observables (observe/obs_NAME.c defines sdk_obs_NAME), in the order
 * results are written. */
#define SDK_OBSERVABLES(X)                                                                         \
  X(drift)                                                                                         \
  X(moments)                                                                                       \
  X(cov)                                                                                           \
  X(diffusion)                                                                                     \
  X(hist)                                                                                          \
  X(density)                                                                                       \
  X(paths)                                                                                         \
  X(order)                                                                                         \
  X(range)                                                                                         \
  X(expr)                                                                                          \
  X(tavg)                                                                                          \
  X(fpt)

/* The backends (backend/NAME.c defines sdk_backend_NAME). */
#define SDK_BACKENDS(X)                                                                            \
  X(cpu)                                                                                           \
  X(cuda)

#define SDK_DECLARE_SCHEME(n) extern const sdk_scheme_type sdk_scheme_##n;
SDK_SCHEMES(SDK_DECLARE_SCHEME)

#define SDK_SCHEME_ENTRY(n) &sdk_scheme_##n,
const sdk_scheme_type *const sdk_registry_schemes[] = {SDK_SCHEMES(SDK_SCHEME_ENTRY) NULL};

#define SDK_DECLARE_NOISE(n) extern const sdk_noise_type sdk_noise_##n;
SDK_NOISES(SDK_DECLARE_NOISE)
#define SDK_NOISE_ENTRY(n) &sdk_noise_##n,
const sdk_noise_type *const sdk_registry_noises[] = {SDK_NOISES(SDK_NOISE_ENTRY) NULL};

#define SDK_DECLARE_OBS(n) extern const sdk_obs_type sdk_obs_##n;
SDK_OBSERVABLES(SDK_DECLARE_OBS)
#define SDK_OBS_ENTRY(n) &sdk_obs_##n,
const sdk_obs_type *const sdk_registry_observables[] = {SDK_OBSERVABLES(SDK_OBS_ENTRY) NULL};

#define SDK_DECLARE_BACKEND(n) extern const sdk_backend sdk_backend_##n;
SDK_BACKENDS(SDK_DECLARE_BACKEND)
#define SDK_BACKEND_ENTRY(n) &sdk_backend_##n,
const sdk_backend *const sdk_registry_backends[] = {SDK_BACKENDS(SDK_BACKEND_ENTRY) NULL};

const sdk_scheme_type *sdk_find_scheme(const char *name) {
  for (int i = 0; name && sdk_registry_schemes[i]; i++)
    if (!strcmp(sdk_registry_schemes[i]->name, name)) return sdk_registry_schemes[i];
  return NULL;
}

const sdk_noise_type *sdk_find_noise(const char *name) {
  for (int i = 0; name && sdk_registry_noises[i]; i++)
    if (!strcmp(sdk_registry_noises[i]->name, name)) return sdk_registry_noises[i];
  return NULL;
}

const sdk_obs_type *sdk_find_observable(const char *name) {
  for (int i = 0; name && sdk_registry_observables[i]; i++)
    if (!strcmp(sdk_registry_observables[i]->name, name)) return sdk_registry_observables[i];
  return NULL;
}

const sdk_backend *sdk_find_backend(const char *name) {
  for (int i = 0; name && sdk_registry_backends[i]; i++)
    if (!strcmp(sdk_registry_backends[i]->name, name)) return sdk_registry_backends[i];
  return NULL;
}

void sdk_registry_scheme_names(sdk_strbuf *b) {
  for (int i = 0; sdk_registry_schemes[i]; i++)
    sdk_sb_printf(b, "%s%s", i ? ", " : "", sdk_registry_schemes[i]->name);
}
