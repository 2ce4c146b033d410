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

/* The most rows of one list that the functions below name. */
#define SDK_REGISTRY_MAX 64

/* For messages, help and listings, from the rows (never by literal names):
 * the names of the registered backends for which keep holds (NULL: every
 * one), in registry order, then `also` (e.g. "auto"; NULL: none), written
 * into buf as "cpu, cuda or auto": sep between two names, last before the
 * final one; returns buf. */
const char *sdk_registry_backend_names(char *buf, size_t size, int (*keep)(const sdk_backend *),
                                       const char *also, const char *sep, const char *last);
/* The same for the schemes whose row keep accepts, in alphabetical order
 * ("use a scheme that does (euler, milstein, srk2, weak2)"). */
const char *sdk_registry_scheme_list(char *buf, size_t size, int (*keep)(const sdk_scheme_type *),
                                     const char *sep, const char *last);

/* 1: the scheme's row says it integrates systems of particles (for
 * sdk_registry_scheme_list). */
int sdk_scheme_takes_systems(const sdk_scheme_type *s);

/* The first registered scheme whose limit is of this calculus for
 * state-dependent noise (it integrates such a model without a drift
 * correction); NULL if none. */
const sdk_scheme_type *sdk_native_scheme(sdk_calculus calculus);

/* The default scheme, from the rows: of those that take the model's noise
 * (additive, or state-dependent: diagonal) without asking more of it (not
 * commutative) and, for systems of particles, integrate systems, the ones of
 * the model's calculus when its noise is state-dependent (no drift
 * correction), then the highest weak order, then the first registered. */
const sdk_scheme_type *sdk_default_scheme(int multiplicative, sdk_calculus calculus, int systems);

#endif
