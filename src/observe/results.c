#include "observe/results.h"

#include <string.h>

int sdk_results_has(const sdk_results *R, const char *name) {
  for (int i = 0; R && i < R->nobs; i++)
    if (!strcmp(R->obs[i], name)) return 1;
  return 0;
}

const double *sdk_results_f64(const sdk_results *R, const char *path) {
  return R ? sdk_ds_f64(sdk_store_find(&R->store, path)) : NULL;
}
