#include "observe/tsvfmt.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The name of field k of a header (the scan names, then the columns). */
static const char *field(const sdk_results *R, char *const *col, int k) {
  int ns = sdk_results_nscan_params(R);
  return k < ns ? sdk_results_scan_param(R, k)->name : col[k - ns];
}

static void describe(const sdk_results *R, int k, char *out, size_t n) {
  if (k < sdk_results_nscan_params(R))
    snprintf(out, n, "the scanned parameter '%s'", sdk_results_scan_param(R, k)->name);
  else
    snprintf(out, n, "column %d", k + 1);
}

/* Two fields of one name would make the header ambiguous (gnuplot's
 * columnheader and a reader pick either): refused, naming both. */
static sdk_err check_unique(const sdk_results *R, const char *obs, char *const *col, int ncol,
                            sdk_errbuf *eb) {
  int n = sdk_results_nscan_params(R) + ncol;
  for (int j = 1; j < n; j++)
    for (int i = 0; i < j; i++) {
      if (strcmp(field(R, col, i), field(R, col, j))) continue;
      char a[96], b[96];
      describe(R, i, a, sizeof a);
      describe(R, j, b, sizeof b);
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "TSV output of --observe %s: %s and %s would both be named '%s' in its "
                      "header: rename %s (the HDF5 output keeps them apart)",
                      obs, a, b, field(R, col, i),
                      i < sdk_results_nscan_params(R) ? "the parameter"
                                                      : "a variable, observable or boundary");
    }
  return SDK_OK;
}

/* A run to a standard error or a total error (sim/target.c, sim/mlmc.c)
 * where some grid point stopped short of it: its target/status (or
 * mlmc/status), else NULL. */
static const sdk_dataset *bound_hit(const sdk_results *R) {
  const sdk_dataset *d = sdk_store_find(&R->store, "target/status");
  if (!d) d = sdk_store_find(&R->store, "mlmc/status");
  for (int64_t g = 0; d && g < R->ngrid; g++)
    if (sdk_ds_i64(d)[g] != 0) return d;
  return NULL;
}

sdk_err sdk_tsv_header(const sdk_results *R, FILE *f, const char *obs, sdk_errbuf *eb,
                       const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *cols = NULL;
  int len = vasprintf(&cols, fmt, ap);
  va_end(ap);
  if (len < 0) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  int ncol = 1;
  for (char *s = cols; *s; s++)
    ncol += *s == '\t';
  char **col = calloc((size_t)ncol, sizeof *col), *copy = sdk_strdup(cols);
  sdk_err e = col && copy ? SDK_OK : SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  if (e == SDK_OK) {
    char *s = copy;
    for (int k = 0; k < ncol; k++) {
      col[k] = s;
      s += strcspn(s, "\t");
      if (*s) *s++ = 0;
    }
    e = check_unique(R, obs, col, ncol, eb);
  }
  if (e == SDK_OK) {
    /* (what the status column's numbers mean: --target-se's and
     * --target-error's differ) */
    const sdk_dataset *st = bound_hit(R);
    const sdk_attr *m = st ? sdk_attr_find(st->attr, st->nattr, "meaning") : NULL;
    if (m && m->kind == SDK_ATTR_STR && m->s) fprintf(f, "# status: %s\n", m->s);
    fputs("# ", f);
    for (int i = 0; i < sdk_results_nscan_params(R); i++)
      fprintf(f, "%s\t", sdk_results_scan_param(R, i)->name);
    if (sdk_store_find(&R->store, "paths_used")) fputs("paths_used\t", f);
    if (bound_hit(R)) fputs("status\t", f);
    fprintf(f, "%s\n", cols);
  }
  free(col), free(copy), free(cols);
  return e;
}

sdk_err sdk_tsv_check_headers(const sdk_results *R, const sdk_obs_type *t, sdk_errbuf *eb) {
  if (!t->write_tsv) return SDK_OK;
  int64_t none = 0;
  sdk_results view = *R;
  view.ngrid = 0;
  view.nonfinite = &none;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err e = t->write_tsv(&view, f, eb);
  fclose(f);
  free(text);
  return e;
}

void sdk_tsv_coords(const sdk_results *R, int64_t g, FILE *f) {
  char b[32];
  for (int i = 0; i < sdk_results_nscan_params(R); i++) {
    const sdk_scan_axis *ax = sdk_results_scan_param(R, i);
    fputs(sdk_fmt_exact(b, ax->values[sdk_results_grid_index(R, g, ax->axis)]), f);
    fputc('\t', f);
  }
  /* runs in batches: the paths each grid point used, and where a bound
   * stopped some grid point, every one's status */
  const sdk_dataset *u = sdk_store_find(&R->store, "paths_used"), *st = bound_hit(R);
  if (u) fprintf(f, "%lld\t", (long long)sdk_ds_i64(u)[g]);
  if (st) fprintf(f, "%lld\t", (long long)sdk_ds_i64(st)[g]);
}

sdk_err sdk_tsv_grid_rows(const sdk_results *R, FILE *f, const char *obs, int ncol,
                          const char *const *names, const double *const *cols, sdk_errbuf *eb) {
  sdk_strbuf h;
  sdk_sb_init(&h);
  for (int k = 0; k < ncol; k++)
    sdk_sb_printf(&h, "%s%s", k ? "\t" : "", names[k]);
  sdk_err e = h.oom ? SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory")
                    : sdk_tsv_header(R, f, obs, eb, "%s", h.s ? h.s : "");
  sdk_sb_free(&h);
  SDK_CHECK(e);
  char num[64];
  for (int64_t g = 0; g < R->ngrid; g++) {
    sdk_tsv_grid_break(R, g, f);
    sdk_tsv_coords(R, g, f);
    for (int k = 0; k < ncol; k++)
      fprintf(f, "%s%c", sdk_fmt_stat(num, cols[k][g]), k + 1 < ncol ? '\t' : '\n');
  }
  return SDK_OK;
}

void sdk_tsv_grid_break(const sdk_results *R, int64_t g, FILE *f) {
  int last = R->nscan - 1;
  if (R->nscan == 2 && g > 0 && g % R->scan[1].n == 0) fputc('\n', f);
  if (R->nscan <= 2 || g % R->scan[last].n != 0) return;
  char b[32];
  if (g > 0) fputs("\n\n", f);
  fputs("# block:", f);
  for (int i = 0; i < sdk_results_nscan_params(R); i++) {
    const sdk_scan_axis *ax = sdk_results_scan_param(R, i);
    if (ax->axis == last) continue;
    fprintf(f, " %s=%s", ax->name,
            sdk_fmt_exact(b, ax->values[sdk_results_grid_index(R, g, ax->axis)]));
  }
  fputc('\n', f);
}

double sdk_tsv_bin_edge(double lo, double hi, int64_t e, int64_t bins) {
  return e == bins ? hi : lo + (hi - lo) * ((double)e / (double)bins);
}

sdk_err sdk_tsv_time_hists(const sdk_results *R, FILE *f, const char *obs, const char *label,
                           char names[][64], int n, const sdk_dataset *hist, const double *edges,
                           sdk_errbuf *eb) {
  int64_t bins = hist->dims[hist->rank - 1];
  const uint64_t *cnt = (const uint64_t *)hist->data;
  char num[64];
  SDK_CHECK(sdk_tsv_header(R, f, obs, eb, "%s\tt_lo\tt_hi\tcount", label));
  for (int64_t g = 0; g < R->ngrid; g++)
    for (int i = 0; i < n; i++) {
      if (g > 0 || i > 0) fprintf(f, "\n\n");
      for (int64_t k = 0; k < bins; k++) {
        sdk_tsv_coords(R, g, f);
        fprintf(f, "%s\t", names[i]);
        fprintf(f, "%s\t", sdk_fmt_stat(num, edges[g * (bins + 1) + k]));
        fprintf(f, "%s\t%llu\n", sdk_fmt_stat(num, edges[g * (bins + 1) + k + 1]),
                (unsigned long long)cnt[(g * n + i) * bins + k]);
      }
    }
  return SDK_OK;
}

int sdk_tsv_bias_cols(const sdk_results *R, const char *group, const char *name,
                      const double **bias, const double **err) {
  *bias = sdk_ds_f64(sdk_store_findf(&R->store, "%s/bias_%s", group, name));
  *err = sdk_ds_f64(sdk_store_findf(&R->store, "%s/bias_err_%s", group, name));
  return *bias && *err;
}

sdk_err sdk_tsv_series(const sdk_results *R, FILE *f, const char *obs, const char *sep, int64_t ns,
                       const double *t, int ncol, const char *const *names,
                       const double *const *cols, sdk_errbuf *eb) {
  char b[32];
  /* --dt-check: each column with a bias gets bias_NAME and bias_err_NAME
   * after all the others (observe/bias.h) */
  const double **bc = calloc((size_t)(2 * ncol + 1), sizeof *bc);
  if (!bc) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_strbuf h;
  sdk_sb_init(&h);
  sdk_sb_puts(&h, "t");
  for (int k = 0; k < ncol; k++)
    sdk_sb_printf(&h, "\t%s", names[k]);
  for (int k = 0; k < ncol; k++)
    if (sdk_tsv_bias_cols(R, obs, names[k], &bc[2 * k], &bc[2 * k + 1]))
      sdk_sb_printf(&h, "\tbias_%s\tbias_err_%s", names[k], names[k]);
  sdk_err e = h.oom || !h.s ? SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory")
                            : sdk_tsv_header(R, f, obs, eb, "%s", h.s);
  sdk_sb_free(&h);
  for (int64_t g = 0; g < R->ngrid && e == SDK_OK; g++) {
    if (g > 0) fputs(sep, f);
    for (int64_t s = 0; s < ns; s++) {
      sdk_tsv_coords(R, g, f);
      fputs(sdk_fmt_stat(b, t[g * ns + s]), f);
      for (int k = 0; k < ncol; k++)
        fprintf(f, "\t%s", sdk_fmt_stat(b, cols[k][g * ns + s]));
      for (int k = 0; k < 2 * ncol; k++)
        if (bc[k]) fprintf(f, "\t%s", sdk_fmt_stat(b, bc[k][g * ns + s]));
      fputc('\n', f);
    }
  }
  free(bc);
  return e;
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
  if (e == SDK_OK)
    e = sdk_tsv_series(R, f, group, "\n\n", t->dims[t->rank - 1], sdk_ds_f64(t), nc, np, cols, eb);
  free(names), free(np), free(cols);
  return e;
}
