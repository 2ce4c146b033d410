#include "observe/tsvfmt.h"

#include <stdlib.h>

void sdk_tsv_header_start(const sdk_results *R, FILE *f) {
  fputs("# ", f);
  for (int i = 0; i < R->nscan; i++)
    fprintf(f, "%s\t", R->scan[i].name);
}

void sdk_tsv_coords(const sdk_results *R, int64_t g, FILE *f) {
  char b[32];
  int64_t idx[SDK_MAX_SCAN] = {0};
  if (R->nscan == 2) {
    idx[0] = g / R->scan[1].n;
    idx[1] = g % R->scan[1].n;
  } else if (R->nscan == 1) {
    idx[0] = g;
  }
  for (int i = 0; i < R->nscan; i++) {
    fputs(sdk_fmt_exact(b, R->scan[i].values[idx[i]]), f);
    fputc('\t', f);
  }
}

double sdk_tsv_bin_edge(double lo, double hi, int64_t e, int64_t bins) {
  return e == bins ? hi : lo + (hi - lo) * ((double)e / (double)bins);
}

void sdk_tsv_series(const sdk_results *R, FILE *f, const char *sep, int64_t ns, const double *t,
                    int ncol, const char *const *names, const double *const *cols) {
  char b[32];
  sdk_tsv_header_start(R, f);
  fputs("t", f);
  for (int k = 0; k < ncol; k++)
    fprintf(f, "\t%s", names[k]);
  fputc('\n', f);
  for (int64_t g = 0; g < R->ngrid; g++) {
    if (g > 0) fputs(sep, f);
    for (int64_t s = 0; s < ns; s++) {
      sdk_tsv_coords(R, g, f);
      fputs(sdk_fmt_stat(b, t[g * ns + s]), f);
      for (int k = 0; k < ncol; k++)
        fprintf(f, "\t%s", sdk_fmt_stat(b, cols[k][g * ns + s]));
      fputc('\n', f);
    }
  }
}

sdk_err sdk_tsv_var_pairs(const sdk_results *R, FILE *f, const char *group, const char *a,
                          const char *b, sdk_errbuf *eb) {
  return sdk_tsv_var_cols(R, f, group, a, b, NULL, eb);
}

sdk_err sdk_tsv_var_cols(const sdk_results *R, FILE *f, const char *group, const char *a,
                         const char *b, const char *c, sdk_errbuf *eb) {
  const sdk_dataset *t = sdk_store_findf(&R->store, "%s/t", group);
  /* results without the third statistic (files of older versions): the pairs */
  if (c && R->nvars > 0 && !sdk_store_findf(&R->store, "%s/%s_%s", group, c, R->var_names[0]))
    c = NULL;
  int nvar = R->nvars > 0 ? R->nvars : 0, np2 = 2 * nvar, nc = np2 + (c ? nvar : 0);
  char(*names)[80] = calloc((size_t)nc, sizeof *names);
  const char **np = calloc((size_t)nc, sizeof *np);
  const double **cols = calloc((size_t)nc, sizeof *cols);
  sdk_err e = t && names && np && cols
                  ? SDK_OK
                  : SDK_FAIL(eb, SDK_ERR_INTERNAL, "%s: incomplete results", group);
  for (int k = 0; k < nc && e == SDK_OK; k++) {
    /* the pairs first, then the third statistic: the pairs' columns stay put */
    const char *stat = k >= np2 ? c : k % 2 ? b : a;
    snprintf(names[k], sizeof names[k], "%s_%s", stat, R->var_names[k >= np2 ? k - np2 : k / 2]);
    np[k] = names[k];
    if (!(cols[k] = sdk_ds_f64(sdk_store_findf(&R->store, "%s/%s", group, names[k]))))
      e = SDK_FAIL(eb, SDK_ERR_INTERNAL, "%s: no %s", group, names[k]);
  }
  if (e == SDK_OK) sdk_tsv_series(R, f, "\n\n", t->dims[t->rank - 1], sdk_ds_f64(t), nc, np, cols);
  free(names), free(np), free(cols);
  return e;
}
