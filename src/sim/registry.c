#include "sim/registry.h"

#include <stdio.h>
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
  X(fpt)                                                                                           \
  X(acf)                                                                                           \
  X(psd)                                                                                           \
  X(adaptive)                                                                                      \
  X(events)

/* The backends (backend/NAME.c defines sdk_backend_NAME).  A test program
 * may compile this file with rows of its own (tests/backend_row.c). */
#ifdef SDK_EXTRA_BACKEND
#define SDK_APPLY(X, n) X(n) /* (expands n first) */
#define SDK_EXTRA_BACKENDS(X) SDK_APPLY(X, SDK_EXTRA_BACKEND)
#else
#define SDK_EXTRA_BACKENDS(X)
#endif
#define SDK_BACKENDS(X)                                                                            \
  X(cpu)                                                                                           \
  X(cuda)                                                                                          \
  SDK_EXTRA_BACKENDS(X)

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

/* names[0 .. n) as "a, b or c" into buf: sep between two, last before the
 * final one (cut short at n - 1 bytes) */
static const char *join(char *buf, size_t size, const char *const *names, int n, const char *sep,
                        const char *last) {
  size_t at = 0;
  buf[0] = 0;
  for (int i = 0; i < n && at < size; i++) {
    int k = snprintf(buf + at, size - at, "%s%s", i == 0 ? "" : i == n - 1 ? last : sep, names[i]);
    at += k > 0 ? (size_t)k : 0;
  }
  return buf;
}

const char *sdk_registry_backend_names(char *buf, size_t size, int (*keep)(const sdk_backend *),
                                       const char *also, const char *sep, const char *last) {
  const char *names[SDK_REGISTRY_MAX + 1];
  int n = 0;
  for (int i = 0; sdk_registry_backends[i] && n < SDK_REGISTRY_MAX; i++)
    if (!keep || keep(sdk_registry_backends[i])) names[n++] = sdk_registry_backends[i]->name;
  if (also) names[n++] = also;
  return join(buf, size, names, n, sep, last);
}

const char *sdk_registry_scheme_list(char *buf, size_t size, int (*keep)(const sdk_scheme_type *),
                                     const char *sep, const char *last) {
  const char *names[SDK_REGISTRY_MAX];
  int n = 0;
  for (int i = 0; sdk_registry_schemes[i] && n < SDK_REGISTRY_MAX; i++)
    if (!keep || keep(sdk_registry_schemes[i])) {
      int k = n++; /* insertion in name order */
      for (; k > 0 && strcmp(names[k - 1], sdk_registry_schemes[i]->name) > 0; k--)
        names[k] = names[k - 1];
      names[k] = sdk_registry_schemes[i]->name;
    }
  return join(buf, size, names, n, sep, last);
}

const sdk_scheme_type *sdk_native_scheme(sdk_calculus calculus) {
  for (int i = 0; sdk_registry_schemes[i]; i++)
    if (sdk_registry_schemes[i]->calculus == calculus &&
        (sdk_registry_schemes[i]->noise_kinds & SDK_NOISE_DIAGONAL))
      return sdk_registry_schemes[i];
  return NULL;
}

const sdk_scheme_type *sdk_default_scheme(int multiplicative, sdk_calculus calculus, int systems) {
  const sdk_scheme_type *best = NULL;
  int best_calc = 0;
  for (int i = 0; sdk_registry_schemes[i]; i++) {
    const sdk_scheme_type *s = sdk_registry_schemes[i];
    unsigned kind = multiplicative ? SDK_NOISE_DIAGONAL : SDK_NOISE_ADDITIVE;
    if (s->commutative || !(s->noise_kinds & kind)) continue;
    if (systems && !(s->features & SDK_FEATURE_SYSTEMS)) continue;
    int calc = multiplicative && s->calculus == calculus; /* no correction of the drift */
    if (!best || calc > best_calc || (calc == best_calc && s->weak_order > best->weak_order))
      best = s, best_calc = calc;
  }
  return best;
}

int sdk_scheme_takes_systems(const sdk_scheme_type *s) {
  return (s->features & SDK_FEATURE_SYSTEMS) != 0;
}
