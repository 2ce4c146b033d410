/* (merged into sim/registry.h once the registries meet) */
#ifndef SDK_OBSREG_H
#define SDK_OBSREG_H
#include "observe/observable.h"

/* Every observable, NULL-terminated, in the order results are written. */
extern const sdk_obs_type *const sdk_registry_observables[];
const sdk_obs_type *sdk_find_observable(const char *name);

#endif
