/* density: the density of one variable, or one user observable ([observe],
 * --observe-expr: --density-var NAME; evaluated per path on the backend),
 * over the paths of each grid point at every sample time,
 * count / (paths x bin width).
 *
 *   density/step             [nsamples]
 *   density/t                [grid..., nsamples]
 *   density/VAR/P            [grid..., nsamples, bins] (the dimension "bin")
 *   density/VAR/lo, hi       [grid..., nsamples] the bins' range at each sample
 *   density/VAR/underflow, overflow [grid..., nsamples] (u64) paths outside it
 *   density/VAR              attributes coarse_grain, bin_width, var
 *   density/VAR/bin_width    [grid...] --coarse-grain with a period that differs between
 *                            grid points (the attribute bin_width is then NaN)
 *
 * The range: a fixed --hist-range; or bins exactly one period wide
 * (--coarse-grain: on the lattice k * width, centred on the data); or, for
 * systems of particles and a variable declared periodic, x mod period on
 * [0, period) (the Kuramoto phases); else the data's range at that sample. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "observe/observable.h"
#include "observe/tsvfmt.h"

typedef struct {
  int var; /* a variable, or nvars + k: user observable k (sdk_obs_quantity) */
  int64_t bins, ns;
  double coarse; /* > 0: bins this wide (at every grid point; NaN: per grid point, width) */
  double *width; /* [ngrid] the bins' width per grid point (--coarse-grain) */
  double mod;    /* > 0: x mod this period on [0, period) */
  int fixed;     /* --hist-range index, or -1 */
  double *lo, *hi;
  uint64_t *cnt, *un, *ov;
  double *P, *dlo, *dhi; /* the datasets */
  uint64_t *dun, *dov;
} state;

static void density_free(void *p) {
  state *st = p;
  if (!st) return;
  free(st->lo), free(st->hi), free(st->cnt), free(st->un), free(st->ov), free(st->width);
  free(st);
}

/* --coarse-grain without a width: one period of the variable, as the model
 * declares it, at each grid point (the period may depend on a scanned
 * parameter; where it is the same everywhere, st->coarse is that width) */
static sdk_err coarse_width(const sdk_obs_ctx *c, state *st, sdk_errbuf *eb) {
  const sdk_model *m = c->model;
  int v = st->var;
  int64_t ng = c->R->ngrid;
  st->coarse = c->opts->coarse_width;
  if (st->coarse == 0) return SDK_OK;
  if (!(st->width = malloc((size_t)ng * sizeof(double))))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the density");
  for (int64_t g = 0; g < ng && st->coarse > 0; g++)
    st->width[g] = st->coarse;
  if (st->coarse > 0) return SDK_OK;
  if (v >= m->nvars)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--coarse-grain: '%s' is a user observable, which has no period; give the "
                    "width as --coarse-grain=L",
                    m->obs_names[v - m->nvars]);
  if (!m->var_period || !m->var_period[v])
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--coarse-grain: model '%s' declares no period for '%s' ([model] periodic = "
                    "%s : L); give the width as --coarse-grain=L",
                    m->name, m->vars[v], m->vars[v]);
  double *pv = malloc((size_t)(m->nparams + 1) * sizeof(double));
  if (!pv) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the density");
  for (int64_t g = 0; g < ng; g++) {
    sdk_obs_grid_params(c, g, pv);
    double w = st->width[g] = sdk_var_period(m, v, pv, NULL);
    if (!(w > 0) || !isfinite(w)) {
      free(pv);
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--coarse-grain: the period of '%s' is %g at grid point %lld", m->vars[v], w,
                      (long long)g);
    }
    st->coarse = g == 0 || w == st->coarse ? w : NAN;
  }
  free(pv);
  return SDK_OK;
}

static sdk_err density_datasets(const sdk_obs_ctx *c, state *st, sdk_errbuf *eb) {
  char g[96], p[128];
  sdk_dataset *d;
  const char *q = sdk_obs_quantity_name(c->model, st->var);
  /* density/Q is a group beside the datasets density/step and density/t */
  if (!strcmp(q, "step") || !strcmp(q, "t"))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--observe density of '%s': the group 'density/%s' would clash with the "
                    "sample %s 'density/%s': rename '%s' (docs/API.md, names the results make)",
                    q, q, q[0] == 's' ? "steps" : "times", q, q);
  snprintf(g, sizeof g, "density/%s", q);
  SDK_CHECK(sdk_obs_times(c, "density", st->ns, eb));
  int64_t sb[2] = {st->ns, st->bins};
  snprintf(p, sizeof p, "%s/P", g);
  SDK_CHECK(sdk_obs_dataset(c, p, SDK_F64, 2, sb, 0, SDK_DS_COMPRESS, &d, eb));
  SDK_CHECK(sdk_ds_dim_name(d, d->rank - 1, "bin", eb));
  st->P = sdk_ds_f64(d);
  const char *part[4] = {"lo", "hi", "underflow", "overflow"};
  void **dst[4] = {(void **)&st->dlo, (void **)&st->dhi, (void **)&st->dun, (void **)&st->dov};
  for (int k = 0; k < 4; k++) {
    snprintf(p, sizeof p, "%s/%s", g, part[k]);
    SDK_CHECK(sdk_obs_dataset(c, p, k < 2 ? SDK_F64 : SDK_U64, 1, &st->ns, 0, 0, &d, eb));
    *dst[k] = d->data;
  }
  SDK_CHECK(sdk_store_group_i64(c->store, g, "coarse_grain", st->coarse != 0, eb));
  SDK_CHECK(sdk_store_group_f64(c->store, g, "bin_width", st->coarse, eb));
  if (isnan(st->coarse)) { /* the width of every grid point */
    snprintf(p, sizeof p, "%s/bin_width", g);
    SDK_CHECK(sdk_obs_dataset(c, p, SDK_F64, 0, NULL, -1, 0, &d, eb));
    memcpy(d->data, st->width, (size_t)c->R->ngrid * sizeof(double));
  }
  return sdk_store_group_str(c->store, g, "var", sdk_obs_quantity_name(c->model, st->var), eb);
}

static sdk_err density_setup(const sdk_obs_ctx *c, void **out, sdk_errbuf *eb) {
  int64_t ng = c->R->ngrid;
  state *st = calloc(1, sizeof *st);
  *out = st;
  if (!st) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  st->bins = c->opts->bins;
  st->ns = c->nsamples_max;
  SDK_CHECK(sdk_obs_check_size(c, "density", (double)st->bins, eb));
  SDK_CHECK(sdk_obs_quantity(c, "--density-var", c->opts->density_var, &st->var, eb));
  if (st->var >= c->model->nvars && c->systems)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--density-var %s: user observables are computed for independent paths only, "
                    "not systems of particles",
                    c->opts->density_var);
  SDK_CHECK(coarse_width(c, st, eb));
  st->fixed = -1;
  for (int i = 0; i < c->opts->nhist_range; i++)
    if (!strcmp(c->opts->hist_range_var[i], sdk_obs_quantity_name(c->model, st->var)))
      st->fixed = i;
  if (st->fixed < 0)
    SDK_CHECK(sdk_obs_no_windows(c, "density",
                                 "its bins would follow the range of each batch's data; give "
                                 "--hist-range VAR=LO:HI for its variable",
                                 eb));
  if (st->coarse == 0 && c->systems && st->fixed < 0) {
    st->mod = sdk_var_period(c->model, st->var, c->param_values, c->scan_column);
    if (!(st->mod > 0) || !isfinite(st->mod)) st->mod = 0; /* scanned or bad: the data's range */
  }
  st->lo = malloc((size_t)ng * sizeof(double)), st->hi = malloc((size_t)ng * sizeof(double));
  st->cnt = malloc((size_t)(ng * st->bins) * sizeof(uint64_t));
  st->un = malloc((size_t)ng * sizeof(uint64_t)), st->ov = malloc((size_t)ng * sizeof(uint64_t));
  if (!st->lo || !st->hi || !st->cnt || !st->un || !st->ov)
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the density");
  return density_datasets(c, st, eb);
}

/* The bins' range at grid point g from the data's [lo, hi]. */
static void range_of(const sdk_obs_ctx *c, const state *st, int64_t g) {
  double lo = st->lo[g], hi = st->hi[g];
  int64_t nb = st->bins;
  if (st->fixed >= 0)
    lo = c->opts->hist_range_lo[st->fixed], hi = c->opts->hist_range_hi[st->fixed];
  if (st->coarse != 0) {
    /* bins exactly one period wide, on the lattice k * width, centred on the data */
    double w = st->width[g];
    if (st->fixed < 0) {
      double mid = 0.5 * (lo + hi);
      lo = w * floor(mid / w) - w * (double)(nb / 2);
    } else {
      lo = w * floor(lo / w);
    }
    hi = lo + w * (double)nb;
  } else if (!(hi > lo)) {
    double e = fabs(lo) > 0 ? 1e-6 * fabs(lo) : 1e-6;
    lo -= e, hi += e;
  }
  st->lo[g] = lo, st->hi[g] = hi;
  /* a NaN range keeps NaN paths out of the bin arithmetic */
  if (c->bad[g]) st->lo[g] = st->hi[g] = NAN;
}

static sdk_err density_sample(const sdk_obs_ctx *c, void *p, int64_t s, int64_t step,
                              sdk_errbuf *eb) {
  state *st = p;
  int64_t ng = c->R->ngrid, nb = st->bins;
  if (st->var >= c->model->nvars)
    SDK_CHECK(sdk_paths_eval_observe(c->paths, step, c->model->nobs, eb));
  if (st->mod > 0) {
    SDK_CHECK(sdk_paths_histogram_mod(c->paths, st->var, nb, st->mod, st->cnt, eb));
    for (int64_t g = 0; g < ng; g++)
      st->lo[g] = 0, st->hi[g] = st->mod, st->un[g] = st->ov[g] = 0;
  } else {
    SDK_CHECK(sdk_paths_minmax(c->paths, st->var, st->lo, st->hi, eb));
    for (int64_t g = 0; g < ng; g++)
      range_of(c, st, g);
    SDK_CHECK(
        sdk_paths_histogram(c->paths, st->var, nb, st->lo, st->hi, st->cnt, st->un, st->ov, eb));
  }
  for (int64_t g = 0; g < ng; g++) {
    int64_t k = g * st->ns + s;
    st->dlo[k] = st->lo[g], st->dhi[k] = st->hi[g];
    st->dun[k] = st->un[g], st->dov[k] = st->ov[g];
    double w = (st->hi[g] - st->lo[g]) / (double)nb;
    for (int64_t b = 0; b < nb; b++)
      st->P[k * nb + b] = (double)st->cnt[g * nb + b] / ((double)sdk_paths_used(c->paths, g) * w);
  }
  sdk_obs_time_at(c, "density", s, step);
  return SDK_OK;
}

static sdk_err density_tsv(const sdk_results *R, FILE *f, sdk_errbuf *eb) {
  char b0[32], b1[32], b2[32], b3[32];
  const sdk_store *S = &R->store;
  const sdk_group_attrs *ga = NULL;
  const char *vn = NULL;
  for (int v = 0; v < R->nvars && !ga; v++) { /* the variable is the group's name */
    char g[96];
    snprintf(g, sizeof g, "density/%s", R->var_names[v]);
    if ((ga = sdk_store_group(S, g))) vn = R->var_names[v];
  }
  /* a user observable's: the group density/NAME whose attribute var is NAME */
  for (int i = 0; i < S->ngroups && !ga; i++) {
    const sdk_attr *a = sdk_attr_find(S->groups[i].attr, S->groups[i].nattr, "var");
    if (a && a->kind == SDK_ATTR_STR && !strncmp(S->groups[i].path, "density/", 8) &&
        !strcmp(S->groups[i].path + 8, a->s))
      ga = &S->groups[i], vn = a->s;
  }
  const sdk_dataset *P = vn ? sdk_store_findf(S, "density/%s/P", vn) : NULL;
  const double *t = sdk_ds_f64(sdk_store_find(S, "density/t"));
  const double *lo = vn ? sdk_ds_f64(sdk_store_findf(S, "density/%s/lo", vn)) : NULL;
  const double *hi = vn ? sdk_ds_f64(sdk_store_findf(S, "density/%s/hi", vn)) : NULL;
  if (!P || !t || !lo || !hi) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "density: incomplete results");
  int64_t ns = P->dims[P->rank - 2], nb = P->dims[P->rank - 1];
  int coarse = 0;
  for (int i = 0; i < ga->nattr; i++)
    if (!strcmp(ga->attr[i].name, "coarse_grain")) coarse = ga->attr[i].i != 0;
  fprintf(f, "# density of: %s%s\n", vn, coarse ? " (coarse-grained: bins one period wide)" : "");
  SDK_CHECK(sdk_tsv_header(R, f, "density", eb, "t\t%s_lo\t%s_hi\tdensity", vn, vn));
  for (int64_t g = 0; g < R->ngrid; g++) {
    if (g > 0) fputs("\n\n", f);
    for (int64_t s = 0; s < ns; s++) {
      if (s > 0) fputc('\n', f);
      int64_t k = g * ns + s;
      sdk_fmt_stat(b0, t[k]);
      for (int64_t b = 0; b < nb; b++) {
        sdk_tsv_coords(R, g, f);
        fprintf(f, "%s\t%s\t%s\t%s\n", b0, sdk_fmt_stat(b1, sdk_tsv_bin_edge(lo[k], hi[k], b, nb)),
                sdk_fmt_stat(b2, sdk_tsv_bin_edge(lo[k], hi[k], b + 1, nb)),
                sdk_fmt_stat(b3, sdk_ds_f64(P)[k * nb + b]));
      }
    }
  }
  return SDK_OK;
}

const sdk_obs_type sdk_obs_density = {
    .name = "density",
    .description = "density of one variable at every sample time",
    .flags = SDK_OBS_SAMPLED,
    .setup = density_setup,
    .sample = density_sample,
    .free = density_free,
    .write_tsv = density_tsv,
};
