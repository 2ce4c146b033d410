#include "sim/registry.h"

#include <string.h>

/* The schemes, one line each (the file codegen/scheme_NAME.c defines
 * sdk_scheme_NAME). */
#define SDK_SCHEMES(X)                                                                             \
  X(euler)                                                                                         \
  X(srk2)

/* The noise sources (codegen/noise.h declares them). */
#define SDK_NOISES(X) X(gaussian)

#define SDK_DECLARE_SCHEME(n) extern const sdk_scheme_type sdk_scheme_##n;
SDK_SCHEMES(SDK_DECLARE_SCHEME)

#define SDK_SCHEME_ENTRY(n) &sdk_scheme_##n,
const sdk_scheme_type *const sdk_registry_schemes[] = {SDK_SCHEMES(SDK_SCHEME_ENTRY) NULL};

#define SDK_NOISE_ENTRY(n) &sdk_noise_##n,
const sdk_noise_type *const sdk_registry_noises[] = {SDK_NOISES(SDK_NOISE_ENTRY) NULL};

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

void sdk_registry_scheme_names(sdk_strbuf *b) {
  for (int i = 0; sdk_registry_schemes[i]; i++)
    sdk_sb_printf(b, "%s%s", i ? ", " : "", sdk_registry_schemes[i]->name);
}
