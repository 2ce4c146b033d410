#include "observe/results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sdk_results_has(const sdk_results *R, const char *name) {
  for (int i = 0; R && i < R->nobs; i++)
    if (!strcmp(R->obs[i], name)) return 1;
  return 0;
}

const double *sdk_results_f64(const sdk_results *R, const char *path) {
  return R ? sdk_ds_f64(sdk_store_find(&R->store, path)) : NULL;
}

int sdk_results_nscan_params(const sdk_results *R) {
  return R->nscan + R->nzip;
}

const sdk_scan_axis *sdk_results_scan_param(const sdk_results *R, int j) {
  for (int a = 0; a < R->nscan; a++) {
    if (j-- == 0) return &R->scan[a];
    for (int z = 0; z < R->nzip; z++)
      if (R->zip[z].axis == a && j-- == 0) return &R->zip[z];
  }
  return NULL;
}

int64_t sdk_results_grid_index(const sdk_results *R, int64_t g, int a) {
  for (int b = R->nscan - 1; b > a; b--)
    g /= R->scan[b].n;
  return g % R->scan[a].n;
}

double sdk_scan_point(const sdk_scan_axis *a, int64_t i) {
  double u = a->n > 1 ? (double)i / (double)(a->n - 1) : 0;
  /* (a log scan in decades: 1e-3:1e3:7:log is exactly 1e-3 ... 1e3, where
   * exp(log) gave 9.99999999999999 for 10) */
  double v = a->log ? pow(10, log10(a->start) + u * (log10(a->stop) - log10(a->start)))
                    : a->start + u * (a->stop - a->start);
  /* rounded to 15 significant digits, so that 4.2 + 6*1.1 prints as 10.8:
   * the grid is what the user typed, not its binary rounding error */
  char buf[40];
  snprintf(buf, sizeof buf, "%.15g", v);
  double r = strtod(buf, NULL);
  return isfinite(r) ? r : v; /* (near the largest double, rounding up overflows) */
}

int sdk_results_same_dt(const sdk_results *R) {
  for (int64_t g = 1; g < R->ngrid; g++)
    if (R->dt[g] != R->dt[0]) return 0;
  return 1;
}

int sdk_scan_is_range(const sdk_scan_axis *a) {
  for (int64_t i = 0; a->values && i < a->n; i++)
    if (a->values[i] != sdk_scan_point(a, i)) return 0;
  return 1;
}
