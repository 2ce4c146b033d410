/* The histogram picture: per variable (one panel each: stacked for two,
 * in two columns for more, each with its own x axis and room for its tick
 * labels), the final distribution of every grid point drawn as a curve
 * (filled for a single one), or, for more grid points, a heat map over
 * (scan axis, value) with a logarithmic colour scale.  A figure
 * description (cli/figure.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "figure/picture.h"

int sdk_pic_has_hist(const sdk_plotfile *pf) {
  return sdk_pf_any_var(pf, "hist/%s/density");
}

/* One variable's histograms: densities [grid][nb] over lo[g]..hi[g]. */
typedef struct hist {
  double *dens, *lo, *hi;
  int64_t nb;
} hist;

/* The title of the curve of grid point g (c->n curves). */
static void curve_title(sdk_label *t, const sdk_plotfile *pf, const sdk_curves *c, int64_t g) {
  if (c->n == 1 && pf->nsteps > 0) {
    sdk_lab_text(t, "at ");
    sdk_lab_italic(t, "t");
    sdk_lab_text(t, " = ");
    sdk_lab_num(t, (double)pf->nsteps * pf->dt[g] * pf->tscale);
    if (pf->in_periods) {
      sdk_lab_text(t, " ");
      sdk_lab_italic(t, "T");
    }
  } else if (c->n == 1) {
    sdk_lab_text(t, "final distribution");
  } else {
    sdk_pic_grid_lab(t, pf, g);
  }
}

/* Curves: the histogram of every grid point drawn, as steps. */
static void hist_curves(sdk_figure *fig, sdk_fig_panel *o, const sdk_plotfile *pf,
                        const sdk_curves *c, const char *vn, const hist *h) {
  int64_t nb = h->nb;
  sdk_lab_italic(&o->ylabel, "P");
  sdk_lab_text(&o->ylabel, "(");
  sdk_lab_sym(&o->ylabel, vn);
  sdk_lab_text(&o->ylabel, ")");
  for (int64_t q = 0; q < c->n; q++) {
    int64_t g = c->g[q];
    double w = (h->hi[g] - h->lo[g]) / (double)nb;
    sdk_fig_series *s = sdk_fig_series_new(fig, o, nb, "xy");
    if (!s) return;
    s->color = (int)q;
    s->steps = 1;
    s->fill = c->n == 1;
    for (int64_t j = 0; j < nb; j++) {
      s->x[j] = h->lo[g] + (j + 0.5) * w;
      s->y[j] = h->dens[g * nb + j];
    }
    curve_title(&s->title, pf, c, g);
  }
  o->key = 1;
}

/* The histograms along the heat axis on one grid of rows (sdk_pic_regrid):
 * z [nx][*ny] and the row edges *ye, or NULL when out of memory. */
static double *hist_regrid(const sdk_plotfile *pf, const sdk_curves *c, const hist *h, int64_t nx,
                           int64_t *ny, double **ye) {
  double *cl = malloc((size_t)nx * sizeof *cl), *ch = malloc((size_t)nx * sizeof *ch), *z = NULL;
  const double **cols = malloc((size_t)nx * sizeof *cols);
  if (cl && ch && cols) {
    for (int64_t i = 0; i < nx; i++) {
      int64_t g = sdk_pic_heat_grid(pf, c, i);
      cl[i] = h->lo[g];
      ch[i] = h->hi[g];
      cols[i] = h->dens + g * h->nb;
    }
    z = sdk_pic_regrid(nx, h->nb, cl, ch, cols, SDK_PIC_MAX_ROWS, ny, ye);
  }
  free(cl);
  free(ch);
  free(cols);
  return z;
}

/* Heat map over (scan axis, value), the colour logarithmic: distributions
 * at different parameters differ a lot. */
static void hist_heat(sdk_figure *fig, sdk_fig_panel *o, const sdk_plotfile *pf,
                      const sdk_curves *c, const char *vn, const hist *h) {
  int64_t nx = pf->axn[c->hx], ny = 0;
  o->xe = malloc((size_t)(nx + 1) * sizeof *o->xe);
  o->z = o->xe ? hist_regrid(pf, c, h, nx, &ny, &o->ye) : NULL;
  if (!o->z) {
    fig->oom = 1;
    return;
  }
  o->nx = nx;
  o->ny = ny;
  sdk_pic_edges(pf->ax[c->hx], nx, pf->axlog[c->hx], o->xe);
  double zlo, zhi, zminpos = INFINITY;
  sdk_pic_minmax(o->z, (size_t)(nx * ny), &zlo, &zhi);
  for (int64_t q = 0; q < nx * ny; q++)
    if (o->z[q] > 0 && o->z[q] < zminpos) zminpos = o->z[q];
  if (!(zhi > 0)) zhi = 1;
  double cbmin = fmax(zminpos, zhi * 1e-5);
  if (!(cbmin < zhi)) cbmin = zhi * 1e-3;
  o->zfloor = cbmin * 0.5;
  o->palette = SDK_PAL_DENSITY;
  o->cblog = 1;
  o->cbset = 1;
  o->cblo = cbmin;
  o->cbhi = zhi;
  sdk_lab_free(&o->xlabel);
  sdk_lab_sym(&o->xlabel, pf->axname[c->hx]);
  o->xlog = pf->axlog[c->hx];
  sdk_lab_sym(&o->ylabel, vn);
  sdk_lab_italic(&o->cblabel, "P");
  sdk_lab_text(&o->cblabel, "(");
  sdk_lab_sym(&o->cblabel, vn);
  sdk_lab_text(&o->cblabel, ")");
}

/* Read the histograms of vn into h (the caller frees its arrays). */
static sdekit_status hist_read(sdk_plot *p, const char *vn, hist *h) {
  const sdk_plotfile *pf = p->pf;
  char path[300];
  int nt = 1;
  int64_t tail[SDEKIT_MAX_RANK];
  snprintf(path, sizeof path, "hist/%s/density", vn);
  h->dens = sdk_pf_block(pf, path, -1, &nt, tail, p->err);
  h->nb = h->dens ? (int64_t)tail[0] : 0;
  nt = 0;
  snprintf(path, sizeof path, "hist/%s/lo", vn);
  if (h->dens) h->lo = sdk_pf_block(pf, path, -1, &nt, tail, p->err);
  nt = 0;
  snprintf(path, sizeof path, "hist/%s/hi", vn);
  if (h->lo) h->hi = sdk_pf_block(pf, path, -1, &nt, tail, p->err);
  if (!h->hi) return SDEKIT_ERR_FORMAT;
  if (h->nb < 1)
    return CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': histogram of %s has no bins", pf->path, vn);
  return SDEKIT_OK;
}

/* Panel k of nv: variable vn. */
static sdekit_status hist_panel(sdk_plot *p, sdk_figure *fig, const sdk_curves *c, int k, int nv,
                                const char *vn) {
  const sdk_plotfile *pf = p->pf;
  hist h = {0};
  sdekit_status e = hist_read(p, vn, &h);
  sdk_fig_panel *o =
      e == SDEKIT_OK ? sdk_fig_panel_new(fig, c->heat ? SDK_FIG_MAP : SDK_FIG_LINES) : NULL;
  if (o) {
    /* curves have a key, right of the panels */
    sdk_fig_grid_area(k, nv, c->heat ? SDK_FIG_RIGHT_HEAT : SDK_FIG_RIGHT_KEY, &o->left, &o->right,
                      &o->bottom, &o->top);
    sdk_lab_sym(&o->xlabel, vn);
    if (!c->heat)
      hist_curves(fig, o, pf, c, vn, &h);
    else
      hist_heat(fig, o, pf, c, vn, &h);
    if (p->log & SDK_PIC_LOG_X) o->xlog = 1;
    if (!c->heat && (p->log & SDK_PIC_LOG_Y)) o->ylog = 1;
    /* few tick labels in small panels: they must not run into each other */
    int rows = nv > 2 ? (nv + 1) / 2 : nv, narrow = nv > 2;
    if (!c->heat && !o->ylog) o->ystep = sdk_pic_ystep(o, rows > 1 ? 4 : 8);
    if (!c->heat && !o->xlog) o->xstep = sdk_pic_xstep(o, narrow ? 4 : 8);
  }
  free(h.dens);
  free(h.lo);
  free(h.hi);
  return e;
}

sdekit_status sdk_pic_hist(sdk_plot *p) {
  const sdk_plotfile *pf = p->pf;
  sdekit_status e = SDEKIT_OK;
  int vi[SDK_PIC_MAX_PANELS], nv = 0;
  /* variables and user observables (their histograms look the same) */
  for (long q = 0; q < pf->nq && nv < SDK_PIC_MAX_PANELS; q++)
    if ((!p->var || !strcmp(p->var, pf->qnames[q])) &&
        sdk_pf_has_f(pf, "hist/%s/density", pf->qnames[q]))
      vi[nv++] = (int)q;
  if (nv == 0)
    return CLI_RAISE(p->err, SDEKIT_ERR_USAGE, "'%s' has no histogram of %s", pf->path,
                     p->var ? p->var : "any variable");
  sdk_curves c;
  sdk_pic_curves(p, &c);
  sdk_figure fig;
  sdk_pic_curves_figure(&fig, pf, &c);
  for (int k = 0; k < nv && e == SDEKIT_OK; k++)
    e = hist_panel(p, &fig, &c, k, nv, pf->qnames[vi[k]]);
  if (e != SDEKIT_OK) {
    sdk_fig_free(&fig);
    return e;
  }
  sdk_pic_place_keys(&fig);
  return sdk_pic_emit(p, &fig);
}
