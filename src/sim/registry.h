/* sdekit: the registry: every scheme, noise source, observable and backend,
 * and the only place that looks one up by name (--scheme, --observe,
 * --backend; the tests iterate the lists).  Their types are codegen/scheme.h,
 * codegen/noise.h, observe/observable.h and backend/backend.h; adding one is
 * its own file plus one line in registry.c (docs/ARCHITECTURE.md). */
#ifndef SDK_SIM_REGISTRY_H
#define SDK_SIM_REGISTRY_H

#include "backend/backend.h"
#include "codegen/scheme.h"
#include "core/strbuf.h"
#include "observe/observable.h"

/* NULL-terminated, in the order of messages and listings. */
extern const sdk_scheme_type *const sdk_registry_schemes[];
extern const sdk_noise_type *const sdk_registry_noises[];

/* Every observable, in the order results are written. */
extern const sdk_obs_type *const sdk_registry_observables[];
extern const sdk_backend *const sdk_registry_backends[];

/* By name; NULL if unknown. */
const sdk_scheme_type *sdk_find_scheme(const char *name);
const sdk_noise_type *sdk_find_noise(const char *name);
const sdk_obs_type *sdk_find_observable(const char *name);
const sdk_backend *sdk_find_backend(const char *name);

/* "euler, srk2": the registered scheme names, appended (for messages). */
void sdk_registry_scheme_names(sdk_strbuf *b);

#endif
