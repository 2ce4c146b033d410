/* What --observe acf and psd share: the chosen variables, the sample clock,
 * the host rows and their sums (observe/obs_corr.h). */
#include "observe/obs_corr.h"

#include <stdlib.h>
#include <string.h>

#include "codegen/acf.h"
#include "core/strbuf.h"
#include "observe/tsvfmt.h"

/* paths per block of rows: whole chunks, about 2^22 values of work */
static int64_t block_of(int64_t rows) {
  int64_t b = ((int64_t)1 << 22) / (rows > 1 ? rows : 1);
  b = b / SDK_RED_CHUNK * SDK_RED_CHUNK;
  return b < SDK_RED_CHUNK ? SDK_RED_CHUNK : b;
}

static int64_t first_step(const sdk_results *R) {
  int64_t e = R->sample_every > 0 ? R->sample_every : 1;
  return (R->transient_steps + e - 1) / e * e;
}

static int64_t samples_after(const sdk_results *R) {
  int64_t e = R->sample_every, f = first_step(R);
  return e > 0 && f <= R->nsteps ? (R->nsteps - f) / e + 1 : 0;
}

/* quantity q of a name: variable v as v, user observable k ([observe]) as
 * nvars + k; -1 for neither */
static int quantity(const sdk_model *m, const char *name) {
  int v = sdk_model_var_index(m, name);
  if (v >= 0) return v;
  for (int k = 0; k < m->nobs; k++)
    if (!strcmp(m->obs_names[k], name)) return m->nvars + k;
  return -1;
}

/* the chosen quantities (--corr-vars NAME[,NAME...]: variables and user
 * observables; default: every variable); -1 for a name that is neither,
 * -2 for more than SDK_CORR_MAXQ names, -3 for a name given twice (its
 * datasets would be made twice), -4 for an empty list (which would read as
 * the default, while "," is refused) */
static int quantities(const sdk_obs_ctx *c, int *q, char *bad, size_t nbad) {
  const sdk_model *m = c->model;
  const char *s = c->opts->corr_vars;
  int n = 0;
  if (!s) {
    for (int v = 0; v < m->nvars && v < SDK_CORR_MAXQ; v++)
      q[n++] = v;
    return n;
  }
  if (!*s) return -4;
  int names = 1;
  for (const char *p = s; *p; p++)
    names += *p == ',';
  if (names > SDK_CORR_MAXQ) return -2;
  while (*s) {
    size_t len = strcspn(s, ",");
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(len < 127 ? len : 127), s);
    int v = quantity(m, name);
    snprintf(bad, nbad, "%s", name);
    if (v < 0) return -1;
    for (int j = 0; j < n; j++)
      if (q[j] == v) return -3;
    q[n++] = v;
    s += len + (s[len] == ',');
  }
  return n;
}

int64_t sdk_corr_max_lag(const sdk_obs_ctx *c) {
  if (c->opts->max_lag > 0) return c->opts->max_lag;
  int64_t h = samples_after(c->R) / 2;
  return h < 64 ? (h < 1 ? 1 : h) : 64;
}

int64_t sdk_corr_segment(const sdk_obs_ctx *c) {
  if (c->opts->psd_segment > 0) return c->opts->psd_segment;
  int64_t n = samples_after(c->R), m = 4;
  while (m * 2 <= n && m < 256)
    m *= 2;
  return m;
}

/* An option of acf or psd given to a run that computes neither would change
 * nothing and say nothing: the user meant something else (a typo in
 * --observe).  (One configuration that serves runs of acf and of psd alike,
 * with the options of both, is fine.) */
sdk_err sdk_corr_opts_check(const sdk_observe_opts *o, const sdk_results *R, sdk_errbuf *eb) {
  for (int i = 0; i < R->nobs; i++)
    if (!strcmp(R->obs[i], "acf") || !strcmp(R->obs[i], "psd")) return SDK_OK;
  const char *opt = o->max_lag > 0       ? "--max-lag"
                    : o->psd_segment > 0 ? "--psd-segment"
                    : o->psd_window == 1 ? "--psd-window rect"
                    : o->psd_host        ? "--psd-on-host"
                    : o->corr_vars       ? "--corr-vars"
                                         : NULL;
  if (!opt) return SDK_OK;
  return SDK_FAIL(eb, SDK_ERR_USAGE,
                  "%s applies to --observe acf and psd, and this run computes neither (add one "
                  "to --observe, or leave the option out)",
                  opt);
}

static int on(const sdk_obs_ctx *c, const char *name) {
  for (int i = 0; i < c->R->nobs; i++)
    if (!strcmp(c->R->obs[i], name)) return 1;
  return 0;
}

int sdk_corr_kernel(const sdk_obs_ctx *c, int *q, int *nq, int64_t *first) {
  int qq[SDK_CORR_MAXQ];
  char bad[128];
  const sdk_results *R = c->R;
  int n = quantities(c, qq, bad, sizeof bad);
  int64_t K = sdk_corr_max_lag(c) + 1;
  /* (--adaptive switches its observable on: codegen/adaptive.c's steps take
   * no accumulators; the CPU driver resets [events] after its vector loop) */
  if (c->systems || !on(c, "acf") || on(c, "adaptive") || c->model->nevent > 0 || R->sample_times ||
      R->sample_every <= 0 || n <= 0 || K > SDK_CORR_KERNEL_LAGS || n * K > SDK_CORR_KERNEL_SUMS ||
      samples_after(R) < 2 || K > samples_after(R))
    return 0;
  for (int j = 0; q && j < n; j++)
    q[j] = qq[j];
  if (nq) *nq = n;
  if (first) *first = first_step(R);
  return (int)K;
}

int sdk_corr_psd_kernel(const sdk_obs_ctx *c, int *q, int *nq, int64_t *first) {
  int qq[SDK_CORR_MAXQ];
  char bad[128];
  const sdk_results *R = c->R;
  int n = quantities(c, qq, bad, sizeof bad);
  int64_t M = sdk_corr_segment(c);
  /* (the conditions of acf's, above; a segment that obs_psd.c refuses is
   * left to it, for its message) */
  if (c->systems || !on(c, "psd") || c->opts->psd_host || on(c, "adaptive") ||
      c->model->nevent > 0 || R->sample_times || R->sample_every <= 0 || n <= 0 ||
      n > SDK_CG_ACF_MAXQ || M < 4 || (M & (M - 1)) || M > SDK_CORR_KERNEL_SEGMENT ||
      M > samples_after(R))
    return 0;
  for (int j = 0; q && j < n; j++)
    q[j] = qq[j];
  if (nq) *nq = n;
  if (first) *first = first_step(R);
  return (int)M;
}

int sdk_corr_sampling(const sdk_obs_ctx *c, const sdk_obs *obs, int n) {
  int kernel = sdk_corr_kernel(c, NULL, NULL, NULL) > 0;
  int psd = sdk_corr_psd_kernel(c, NULL, NULL, NULL) > 0;
  for (int i = 0; i < n; i++)
    if ((obs[i].type->flags & SDK_OBS_SAMPLED) && !(kernel && !strcmp(obs[i].type->name, "acf")) &&
        !(psd && !strcmp(obs[i].type->name, "psd")))
      return 1;
  return 0;
}

static int block_rows(const sdk_obs_ctx *c, const char *name) {
  int q[SDK_CORR_MAXQ];
  char bad[128];
  int nq = quantities(c, q, bad, sizeof bad);
  if (nq <= 0 || !on(c, name)) return 0;
  int K = !strcmp(name, "acf") ? sdk_corr_kernel(c, NULL, NULL, NULL) : 0;
  if (K > 0) return nq * sdk_cg_acf_qrows(K, !strcmp(c->R->precision, "single"));
  if (!strcmp(name, "acf")) return 2 + nq * (4 * (int)(sdk_corr_max_lag(c) + 1) + 2);
  int64_t m = sdk_corr_segment(c);
  return 2 + nq * (int)(m + 2 * (m / 2 + 1));
}

void sdk_corr_opts(const sdk_obs_ctx *c, int64_t every, sdk_codegen_opts *o) {
  o->host_rows = c->systems ? 0 : block_rows(c, "acf") + block_rows(c, "psd");
  o->acf_k = sdk_corr_kernel(c, o->acf_q, &o->acf_nq, &o->acf_first);
  o->acf_every = every;
  o->psd_m = c->systems ? 0 : sdk_corr_psd_kernel(c, o->psd_q, &o->psd_nq, &o->psd_first);
  o->psd_hann = c->opts->psd_window != 1;
  o->psd_row = block_rows(c, "acf") + 2; /* (past psd's count pair) */
}

int sdk_corr_row(const sdk_obs_ctx *c, const char *name) {
  return c->host_row + (strcmp(name, "psd") ? 0 : block_rows(c, "acf"));
}

sdk_err sdk_corr_setup(const sdk_obs_ctx *c, const char *name, sdk_corr *k, sdk_errbuf *eb) {
  const sdk_model *m = c->model;
  const sdk_results *R = c->R;
  char bad[128] = "";
  if (c->systems)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--observe %s: computed for independent paths only, not systems of particles",
                    name);
  for (int b = 0; b < m->nbound; b++)
    if (m->bound[b].kind == SDK_BOUND_ABSORB)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--observe %s: model '%s' has an absorbing boundary ('%s'): an absorbed "
                      "path stops, and its later samples would be a frozen value, not the process",
                      name, m->name, m->bound[b].name);
  SDK_CHECK(sdk_obs_no_windows(c, name,
                               "its per-path sums over time are folded over the paths once, at "
                               "the end; run it with --paths N",
                               eb));
  if (R->sample_times || R->sample_every <= 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--observe %s: needs equally spaced samples (--sample-every N), not "
                    "--sample-times",
                    name);
  k->nq = quantities(c, k->q, bad, sizeof bad);
  if (k->nq == -2)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--corr-vars: more than %d names", SDK_CORR_MAXQ);
  if (k->nq == -3) return SDK_FAIL(eb, SDK_ERR_USAGE, "--corr-vars: '%.100s' is given twice", bad);
  if (k->nq == -4)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--corr-vars: an empty list (leave the option out for every variable)");
  if (k->nq < 0) {
    char *known = sdk_model_var_list(m);
    sdk_strbuf obs;
    sdk_sb_init(&obs);
    for (int j = 0; j < m->nobs; j++)
      sdk_sb_printf(&obs, "%s%s", j ? ", " : "", m->obs_names[j]);
    sdk_err e = SDK_FAIL(eb, SDK_ERR_USAGE,
                         "--corr-vars: model '%s' has no variable or user observable '%.100s' "
                         "(variables: %s; user observables: %s)",
                         m->name, bad, known ? known : "?", obs.s ? obs.s : "none");
    sdk_sb_free(&obs);
    free(known);
    return e;
  }
  k->every = R->sample_every;
  k->first = first_step(R);
  k->nsmp = samples_after(R);
  k->block = block_of(block_rows(c, name));
  if (k->nsmp < 2)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--observe %s: the run takes %lld samples after the transient (every %lld "
                    "steps from step %lld to %lld); it needs at least 2: a longer --t-end or a "
                    "smaller --sample-every",
                    name, (long long)k->nsmp, (long long)k->every, (long long)k->first,
                    (long long)R->nsteps);
  return SDK_OK;
}

const char *sdk_corr_name(const sdk_obs_ctx *c, const sdk_corr *k, int j) {
  return sdk_obs_quantity_name(c->model, k->q[j]);
}

sdk_err sdk_corr_eval(const sdk_obs_ctx *c, const sdk_corr *k, int64_t step, sdk_errbuf *eb) {
  for (int j = 0; j < k->nq; j++)
    if (k->q[j] >= c->model->nvars)
      return sdk_paths_eval_observe(c->paths, step, c->model->nobs, eb);
  return SDK_OK;
}

sdk_err sdk_corr_values(const sdk_obs_ctx *c, const sdk_corr *k, int j, int64_t first, int64_t n,
                        double *buf, sdk_errbuf *eb) {
  int q = k->q[j], nv = c->model->nvars;
  return sdk_paths_rows(c->paths, q < nv ? q : -1 - (q - nv), first, n, buf, 0, eb);
}

void sdk_corr_split(double s, double *hi, double *lo) {
  *hi = (double)(float)s;
  *lo = s - *hi; /* exact: s and its float rounding share their leading bits */
}

sdk_err sdk_corr_pair(const sdk_paths *p, int row, int64_t first, int64_t n, double *sum,
                      double *hi, double *lo, int write, sdk_errbuf *eb) {
  if (write)
    for (int64_t i = 0; i < n; i++)
      sdk_corr_split(sum[i], &hi[i], &lo[i]);
  SDK_CHECK(sdk_paths_rows(p, row, first, n, hi, write, eb));
  SDK_CHECK(sdk_paths_rows(p, row + 1, first, n, lo, write, eb));
  if (!write)
    for (int64_t i = 0; i < n; i++)
      sum[i] = hi[i] + lo[i];
  return SDK_OK;
}

sdk_err sdk_corr_count(const sdk_paths *p, int row, int64_t *n, int write, sdk_errbuf *eb) {
  double s = (double)*n, hi, lo;
  SDK_CHECK(sdk_corr_pair(p, row, 0, 1, &s, &hi, &lo, write, eb));
  if (!write) *n = (int64_t)s;
  return SDK_OK;
}

sdk_err sdk_corr_tsv(const sdk_results *R, FILE *f, const char *group, const char *x, const char *y,
                     sdk_errbuf *eb) {
  char b[32];
  const sdk_group_attrs *ga = sdk_store_group(&R->store, group);
  const sdk_attr *a = ga ? sdk_attr_find(ga->attr, ga->nattr, "names") : NULL;
  const sdk_dataset *xd = sdk_store_findf(&R->store, "%s/%s", group, x);
  if (!a || a->kind != SDK_ATTR_STRS || !xd || !sdk_ds_f64(xd))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "%s: incomplete results", group);
  int nq = (int)a->nstr;
  int64_t nk = xd->dims[xd->rank - 1];
  const double **val = calloc((size_t)nq + 1, sizeof *val),
               **err = calloc((size_t)nq + 1, sizeof *err);
  sdk_err e = val && err ? SDK_OK : SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_strbuf h;
  sdk_sb_init(&h);
  sdk_sb_printf(&h, "%s", x);
  for (int j = 0; j < nq && e == SDK_OK; j++) {
    val[j] = sdk_ds_f64(sdk_store_findf(&R->store, "%s/%s_%s", group, y, a->strs[j]));
    err[j] = sdk_ds_f64(sdk_store_findf(&R->store, "%s/err_%s", group, a->strs[j]));
    if (!val[j] || !err[j]) e = SDK_FAIL(eb, SDK_ERR_INTERNAL, "%s: no %s", group, a->strs[j]);
    sdk_sb_printf(&h, "\t%s_%s\terr_%s", y, a->strs[j], a->strs[j]);
  }
  if (e == SDK_OK)
    e = h.oom ? SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory")
              : sdk_tsv_header(R, f, group, eb, "%s", h.s ? h.s : "");
  sdk_sb_free(&h);
  for (int64_t g = 0; e == SDK_OK && g < R->ngrid; g++) {
    if (g > 0) fputs("\n\n", f); /* every grid point its own gnuplot index */
    for (int64_t k = 0; k < nk; k++) {
      sdk_tsv_coords(R, g, f);
      fputs(sdk_fmt_stat(b, sdk_ds_f64(xd)[g * nk + k]), f);
      for (int j = 0; j < nq; j++) {
        fprintf(f, "\t%s", sdk_fmt_stat(b, val[j][g * nk + k]));
        fprintf(f, "\t%s", sdk_fmt_stat(b, err[j][g * nk + k]));
      }
      fputc('\n', f);
    }
  }
  free(val), free(err);
  return e;
}
