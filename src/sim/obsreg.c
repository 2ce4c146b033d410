#include "sim/obsreg.h"

#include <string.h>

extern const sdk_obs_type sdk_obs_drift, sdk_obs_moments, sdk_obs_hist, sdk_obs_density,
    sdk_obs_paths, sdk_obs_order;

const sdk_obs_type *const sdk_registry_observables[] = {
    &sdk_obs_drift, &sdk_obs_moments, &sdk_obs_hist, &sdk_obs_density,
    &sdk_obs_paths, &sdk_obs_order,   NULL};

const sdk_obs_type *sdk_find_observable(const char *name) {
  for (int i = 0; name && sdk_registry_observables[i]; i++)
    if (!strcmp(sdk_registry_observables[i]->name, name)) return sdk_registry_observables[i];
  return NULL;
}
