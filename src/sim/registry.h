/* sdekit: the registry of schemes and noise sources, the only place that
 * looks one up by name (the CLI's --scheme through sim/run.c; tests iterate
 * the lists).  The types and their capabilities are codegen/scheme.h and
 * codegen/noise.h; adding one is its file plus one line in registry.c. */
#ifndef SDK_SIM_REGISTRY_H
#define SDK_SIM_REGISTRY_H

#include "codegen/scheme.h"
#include "core/strbuf.h"

/* NULL-terminated, in the order of messages and listings. */
extern const sdk_scheme_type *const sdk_registry_schemes[];
extern const sdk_noise_type *const sdk_registry_noises[];

/* By name; NULL if unknown. */
const sdk_scheme_type *sdk_find_scheme(const char *name);
const sdk_noise_type *sdk_find_noise(const char *name);

/* "euler, srk2": the registered scheme names, appended (for messages). */
void sdk_registry_scheme_names(sdk_strbuf *b);

#endif
