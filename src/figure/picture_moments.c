/* The moments picture: per variable (one panel each), the mean over time
 * with a band of +- one standard deviation and, inside it, a darker one of
 * +- the standard error of the mean (files that have mean_err_VAR) for every
 * grid point drawn as a curve, or, for more grid points, the mean as a heat
 * map over (scan axis, time).  --stat variance draws the variance instead
 * (no bands).  A figure description (cli/figure.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "figure/picture.h"

int sdk_pic_has_moments(const sdk_plotfile *pf) {
  return sdk_pf_has(pf, "moments/t");
}

/* One variable's moments: [grid][ns] each. */
typedef struct moments {
  const double *t, *mean, *var, *err; /* var, err: NULL for none */
  int64_t ns;
  int variance; /* mean holds the variance (--stat variance) */
} moments;

/* Curves: mean and bands per grid point (c->n of them) into panel o. */
static void moments_curves(const sdk_plotfile *pf, sdk_figure *fig, sdk_fig_panel *o,
                           const sdk_curves *c, const moments *mo) {
  int64_t ns = mo->ns;
  o->band_alpha = c->n > 2 ? 0.12 : 0.22;
  if (c->n == 1 && mo->var) sdk_lab_text(&o->band, "mean ± s.d.");
  if (c->n == 1 && mo->err) sdk_lab_text(&o->band2, "mean ± s.e.");
  for (int64_t q = 0; q < c->n; q++) {
    int64_t g = c->g[q];
    sdk_fig_series *s = sdk_fig_series_new(fig, o, ns,
                                           mo->err   ? "xylhLH"
                                           : mo->var ? "xylh"
                                                     : "xy");
    if (!s) return;
    s->color = (int)q;
    for (int64_t k = 0; k < ns; k++) {
      double m = mo->mean[g * ns + k], v = mo->var ? mo->var[g * ns + k] : 0;
      double se = mo->err ? mo->err[g * ns + k] : 0;
      s->x[k] = mo->t[g * ns + k] * pf->tscale;
      s->y[k] = m;
      if (s->lo) s->lo[k] = v > 0 ? m - sqrt(v) : m, s->hi[k] = v > 0 ? m + sqrt(v) : m;
      if (s->lo2) s->lo2[k] = se > 0 ? m - se : m, s->hi2[k] = se > 0 ? m + se : m;
    }
    if (c->n == 1)
      sdk_lab_text(&s->title, mo->variance ? "variance" : "mean");
    else
      sdk_pic_grid_lab(&s->title, pf, g);
  }
  o->key = 1;
  o->xlog = pf->tlog;
}

/* Heat-map cells of the mean: column i is the i-th value of the heat axis,
 * its rows edged around that grid point's sample times (ye: nx blocks of
 * ns + 1 edges); the time range drawn goes to tr[2]. */
static void moments_cells(const sdk_plotfile *pf, const sdk_curves *c, const moments *mo,
                          int64_t nx, double *z, double *ye, double tr[2]) {
  const double *t = mo->t;
  int64_t ns = mo->ns;
  tr[0] = INFINITY;
  tr[1] = -INFINITY;
  for (int64_t i = 0; i < nx; i++) {
    int64_t g = sdk_pic_heat_grid(pf, c, i);
    double tc[2];
    for (int64_t s = 0; s < ns; s++)
      z[i * ns + s] = mo->mean[g * ns + s];
    /* row edges around the sample times */
    double *y = ye + i * (ns + 1);
    for (int64_t s = 1; s < ns; s++)
      y[s] = 0.5 * (t[g * ns + s - 1] + t[g * ns + s]) * pf->tscale;
    tc[0] = t[g * ns] * pf->tscale;
    tc[1] = t[g * ns + ns - 1] * pf->tscale;
    y[0] = ns > 1 ? tc[0] - (y[1] - tc[0]) : tc[0] - 0.5;
    y[ns] = ns > 1 ? tc[1] + (tc[1] - y[ns - 1]) : tc[1] + 0.5;
    if (y[0] < tr[0]) tr[0] = y[0];
    if (y[ns] > tr[1]) tr[1] = y[ns];
  }
}

/* Heat map of the mean of variable vn over (scan axis, t) into panel o. */
static void moments_heat(const sdk_plotfile *pf, sdk_figure *fig, sdk_fig_panel *o,
                         const sdk_curves *c, const char *vn, const moments *mo) {
  int64_t nx = pf->axn[c->hx], ns = mo->ns;
  o->xe = malloc((size_t)(nx + 1) * sizeof *o->xe);
  o->ye = malloc((size_t)nx * (size_t)(ns + 1) * sizeof *o->ye);
  o->z = malloc((size_t)nx * (size_t)ns * sizeof *o->z);
  if (!o->xe || !o->ye || !o->z) {
    fig->oom = 1;
    return;
  }
  o->nx = nx;
  o->ny = ns;
  o->ye_stride = ns + 1;
  sdk_pic_edges(pf->ax[c->hx], nx, pf->axlog[c->hx], o->xe);
  double tr[2];
  moments_cells(pf, c, mo, nx, o->z, o->ye, tr);
  double lo, hi;
  sdk_pic_minmax(o->z, (size_t)(nx * ns), &lo, &hi);
  o->palette = SDK_PAL_SEQUENTIAL;
  if (hi == lo) o->cbset = 1, o->cblo = lo - 1, o->cbhi = hi + 1;
  /* x: the scan axis; y: time; colour: the mean */
  if (o->xtics) sdk_lab_sym(&o->xlabel, pf->axname[c->hx]);
  sdk_lab_italic(&o->ylabel, "t");
  if (pf->in_periods) {
    sdk_lab_text(&o->ylabel, " / ");
    sdk_lab_italic(&o->ylabel, "T");
  }
  sdk_lab_text(&o->cblabel, mo->variance ? "variance of " : "mean of ");
  sdk_lab_sym(&o->cblabel, vn);
  o->xlog = pf->axlog[c->hx];
  o->yset = 1;
  o->ylo = tr[0];
  o->yhi = tr[1];
}

/* Read the mean, variance and standard error of vn (the caller frees the
 * three; the error is NULL in files without mean_err_VAR), of mo->ns
 * samples per grid point, into mo: with --stat variance the variance is
 * drawn (as mo->mean) without bands. */
static sdekit_status moments_read(sdk_plot *p, const char *vn, moments *mo, double **mean,
                                  double **var, double **err) {
  const sdk_plotfile *pf = p->pf;
  char path[300];
  int nt = 1;
  int64_t tail[SDEKIT_MAX_RANK];
  snprintf(path, sizeof path, "moments/mean_%s", vn);
  *mean = sdk_pf_block(pf, path, -1, &nt, tail, p->err);
  int64_t mean_ns = *mean ? tail[0] : 0;
  snprintf(path, sizeof path, "moments/var_%s", vn);
  nt = 1;
  if (*mean) *var = sdk_pf_block(pf, path, -1, &nt, tail, p->err);
  if (!*mean || !*var) return SDEKIT_ERR_FORMAT;
  if ((int64_t)mean_ns != mo->ns || (int64_t)tail[0] != mo->ns)
    return CLI_RAISE(p->err, SDEKIT_ERR_FORMAT,
                     "'%s': /moments/mean_%s or var_%s and /moments/t differ in length", pf->path,
                     vn, vn);
  snprintf(path, sizeof path, "moments/mean_err_%s", vn);
  if (sdk_pf_has(pf, path)) {
    nt = 1;
    *err = sdk_pf_block(pf, path, -1, &nt, tail, p->err);
    if (!*err) return SDEKIT_ERR_FORMAT;
    if ((int64_t)tail[0] != mo->ns)
      return CLI_RAISE(p->err, SDEKIT_ERR_FORMAT,
                       "'%s': /moments/mean_err_%s and /moments/t differ in length", pf->path, vn);
  }
  mo->variance = p->stat == SDK_PIC_STAT_VARIANCE;
  mo->mean = mo->variance ? *var : *mean;
  mo->var = mo->variance ? NULL : *var;
  mo->err = mo->variance ? NULL : *err;
  return SDEKIT_OK;
}

/* Panel k of nv: variable vn. */
static sdekit_status moments_panel(sdk_plot *p, sdk_figure *fig, const sdk_curves *c, int k, int nv,
                                   const char *vn, moments *mo) {
  const sdk_plotfile *pf = p->pf;
  double *mean = NULL, *var = NULL, *err = NULL;
  sdekit_status e = moments_read(p, vn, mo, &mean, &var, &err);
  sdk_fig_panel *o =
      e == SDEKIT_OK ? sdk_fig_panel_new(fig, c->heat ? SDK_FIG_MAP : SDK_FIG_LINES) : NULL;
  if (o) {
    /* one time axis (curves) or scan axis (maps), labelled below the lowest */
    sdk_fig_area(k, nv, c->heat ? SDK_FIG_RIGHT_HEAT : SDK_FIG_RIGHT_PLAIN, SDK_FIG_GAP_SHARED,
                 &o->left, &o->right, &o->bottom, &o->top);
    o->xtics = k == nv - 1;
    if (c->heat) {
      moments_heat(pf, fig, o, c, vn, mo);
    } else {
      if (o->xtics) sdk_pic_time_lab(&o->xlabel, pf);
      if (mo->variance) sdk_lab_text(&o->ylabel, "var ");
      sdk_lab_sym(&o->ylabel, vn);
      moments_curves(pf, fig, o, c, mo);
      sdk_pic_scales(p, o, 0, 0, 1, nv >= 3 ? 3 : nv == 2 ? 4 : 8);
    }
  }
  free(mean);
  free(var);
  free(err);
  return e;
}

sdekit_status sdk_pic_moments(sdk_plot *p) {
  const sdk_plotfile *pf = p->pf;
  sdekit_status e = SDEKIT_OK;
  int vi[SDK_PIC_MAX_PANELS], nv = sdk_pic_vars(p, vi);
  if (nv == 0) /* --var named a user observable */
    return CLI_RAISE(p->err, SDEKIT_ERR_USAGE, "'%s' has no moments of %s", pf->path, p->var);
  sdk_curves c;
  sdk_pic_curves(p, &c);
  int nt = 1;
  int64_t tail[SDEKIT_MAX_RANK];
  double *t = sdk_pf_block(pf, "moments/t", -1, &nt, tail, p->err);
  if (!t) return SDEKIT_ERR_FORMAT;
  moments mo = {.t = t, .ns = (int64_t)tail[0]};
  if (mo.ns < 1) {
    free(t);
    return CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': the moments have no samples", pf->path);
  }
  sdk_figure fig;
  sdk_pic_curves_figure(&fig, pf, &c);
  for (int k = 0; k < nv && e == SDEKIT_OK; k++)
    e = moments_panel(p, &fig, &c, k, nv, pf->vars[vi[k]], &mo);
  free(t);
  if (e != SDEKIT_OK) {
    sdk_fig_free(&fig);
    return e;
  }
  sdk_pic_place_keys(&fig);
  return sdk_pic_emit(p, &fig);
}
