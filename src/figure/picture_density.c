/* The density picture: P(x, t) of one variable (--var, else the first with
 * a density) at one grid point (--grid, else 0) as a heat map over time,
 * with a logarithmic colour scale when it spans decades, and the saved
 * sample paths of that variable in a panel below on the same axes (drawn
 * on top they hid the density).  A figure description (cli/figure.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "figure/picture.h"

int sdk_pic_has_density(const sdk_plotfile *pf) {
  return sdk_pf_any_var(pf, "density/%s/P");
}

/* The density of one variable at one grid point: ns samples at times t of
 * nb bins over lo..hi (one range, or one per sample). */
typedef struct density {
  double *t, *P, *lo, *hi;
  int64_t ns, nb;
  int per_sample;
  int coarse; /* bins one period of the potential wide */
} density;

/* The heat map: nx columns (samples) of ny rows, edges xe, ye, values z;
 * the colour scale's top and bottom. */
typedef struct cells {
  int64_t nx, ny;
  double *xe, *ye, *z;
  double zmax, cbmin;
} cells;

static void density_free(density *d, cells *c) {
  free(d->t);
  free(d->P);
  free(d->lo);
  free(d->hi);
  free(c->xe);
  free(c->ye);
  free(c->z);
}

/* Read the density of vn at grid point g and check its shapes. */
static sdekit_status density_read(sdk_plot *p, const char *vn, int64_t g, density *d) {
  const sdk_plotfile *pf = p->pf;
  char path[300];
  int nt = 1, ntl = -1, nth = -1;
  int64_t tail[SDEKIT_MAX_RANK], tl[SDEKIT_MAX_RANK], th[SDEKIT_MAX_RANK];
  d->t = sdk_pf_block(pf, "density/t", g, &nt, tail, p->err);
  if (!d->t) return SDEKIT_ERR_FORMAT;
  d->ns = (int64_t)tail[0];
  nt = 2;
  snprintf(path, sizeof path, "density/%s/P", vn);
  d->P = sdk_pf_block(pf, path, g, &nt, tail, p->err);
  snprintf(path, sizeof path, "density/%s/lo", vn);
  if (d->P) d->lo = sdk_pf_block(pf, path, g, &ntl, tl, p->err);
  snprintf(path, sizeof path, "density/%s/hi", vn);
  if (d->lo) d->hi = sdk_pf_block(pf, path, g, &nth, th, p->err);
  if (!d->hi) return SDEKIT_ERR_FORMAT;
  int64_t ns = d->ns;
  d->nb = (int64_t)tail[1];
  /* lo/hi: one range per grid point, or one per sample */
  d->per_sample = ntl == 1;
  if ((int64_t)tail[0] != ns || d->nb < 1 || ntl != nth || ntl > 1 ||
      (d->per_sample && ((int64_t)tl[0] != ns || (int64_t)th[0] != ns)))
    return CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': the density of %s has inconsistent shapes",
                     pf->path, vn);
  if (ns < 1)
    return CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': the density has no samples", pf->path);
  double cg = 0;
  snprintf(path, sizeof path, "density/%s", vn);
  if (sdk_pf_object_num(pf, path, "coarse_grain", &cg) == 0) d->coarse = cg != 0;
  return SDEKIT_OK;
}

/* The heat-map cells: columns every ck-th sample (at most SDK_PIC_MAX_COLS),
 * rows one grid for all (at most SDK_PIC_MAX_ROWS); the colour scale from
 * the largest value down to the smallest positive one (at most 6 decades). */
static sdekit_status density_cells(sdk_plot *p, const density *d, cells *c) {
  int64_t ns = d->ns, nb = d->nb;
  int64_t ck = (ns + SDK_PIC_MAX_COLS - 1) / SDK_PIC_MAX_COLS;
  int64_t nx = (ns + ck - 1) / ck;
  c->nx = nx;
  c->xe = malloc((size_t)(nx + 1) * sizeof *c->xe);
  double *tc = malloc((size_t)nx * sizeof *tc), *cl = malloc((size_t)nx * sizeof *cl),
         *ch = malloc((size_t)nx * sizeof *ch);
  const double **cols = malloc((size_t)nx * sizeof *cols);
  if (c->xe && tc && cl && ch && cols) {
    for (int64_t i = 0; i < nx; i++) {
      int64_t s = i * ck;
      tc[i] = d->t[s] * p->pf->tscale;
      cl[i] = d->per_sample ? d->lo[s] : d->lo[0];
      ch[i] = d->per_sample ? d->hi[s] : d->hi[0];
      cols[i] = d->P + s * nb;
    }
    c->z = sdk_pic_regrid(nx, nb, cl, ch, cols, SDK_PIC_MAX_ROWS, &c->ny, &c->ye);
  }
  free(cl);
  free(ch);
  free(cols);
  if (!c->z) {
    free(tc);
    return CLI_RAISE(p->err, SDEKIT_ERR_NOMEM, "out of memory");
  }
  double zmax = 0, zminpos = INFINITY;
  for (int64_t q = 0; q < nx * c->ny; q++)
    if (isfinite(c->z[q])) {
      if (c->z[q] > zmax) zmax = c->z[q];
      if (c->z[q] > 0 && c->z[q] < zminpos) zminpos = c->z[q];
    }
  sdk_pic_edges(tc, nx, 0, c->xe);
  if (nx > 1 && c->xe[0] < 0 && tc[0] >= 0) c->xe[0] = tc[0]; /* do not start before t = 0 */
  free(tc);
  if (!(zmax > 0)) zmax = 1;
  c->cbmin = fmax(zminpos, zmax * 1e-6);
  if (!(c->cbmin < zmax)) c->cbmin = zmax * 1e-3;
  c->zmax = zmax;
  return SDEKIT_OK;
}

/* The y range y[2]: where the density is visible, and the paths (range pr). */
static void density_yrange(const cells *c, const double pr[2], double y[2]) {
  int64_t nx = c->nx, ny = c->ny;
  const double *ye = c->ye;
  y[0] = ye[0];
  y[1] = ye[ny];
  double oy[2] = {pr[0], pr[1]};
  for (int64_t i = 0; i < nx; i++)
    for (int64_t j = 0; j < ny; j++)
      if (c->z[i * ny + j] >= c->cbmin) {
        if (ye[j] < oy[0]) oy[0] = ye[j];
        if (ye[j + 1] > oy[1]) oy[1] = ye[j + 1];
      }
  if (oy[0] < oy[1]) {
    /* a margin where the density does not reach the edge of the bins */
    double pad = 0.06 * (oy[1] - oy[0]), full[2] = {y[0], y[1]};
    y[0] = fmin(fmax(oy[0] - pad, full[0]), oy[0]);
    y[1] = fmax(fmin(oy[1] + pad, full[1]), oy[1]);
    if (pr[0] < y[0]) y[0] = pr[0] - pad;
    if (pr[1] > y[1]) y[1] = pr[1] + pad;
  }
}

/* The density map (cells c, moved into the panel) with y range y[2]. */
static void density_map(sdk_fig_panel *o, const sdk_plotfile *pf, const char *vn, int coarse,
                        cells *c, const double y[2]) {
  o->nx = c->nx;
  o->ny = c->ny;
  o->xe = c->xe;
  o->ye = c->ye;
  o->z = c->z;
  c->xe = c->ye = c->z = NULL;
  o->zfloor = c->cbmin * 0.5;
  o->palette = SDK_PAL_DENSITY;
  /* log colour scale when the density spans decades, else linear */
  o->cblog = c->zmax / c->cbmin > 100;
  o->cbset = 1;
  o->cblo = o->cblog ? c->cbmin : 0;
  o->cbhi = c->zmax;
  o->yset = 1;
  o->ylo = y[0];
  o->yhi = y[1];
  sdk_pic_phase_tics(o, y[0], y[1]);
  sdk_lab_sym(&o->ylabel, vn);
  if (coarse) sdk_lab_text(&o->cblabel, "coarse-grained ");
  sdk_lab_italic(&o->cblabel, "P");
  sdk_lab_text(&o->cblabel, "(");
  sdk_lab_sym(&o->cblabel, vn);
  sdk_lab_text(&o->cblabel, ", ");
  sdk_lab_italic(&o->cblabel, "t");
  sdk_lab_text(&o->cblabel, ")");
  (void)pf;
}

sdekit_status sdk_pic_density(sdk_plot *p) {
  const sdk_plotfile *pf = p->pf;
  const char *vn = NULL;
  for (long v = 0; v < pf->nq && !vn; v++) /* a variable or a user observable */
    if ((!p->var || !strcmp(p->var, pf->qnames[v])) &&
        sdk_pf_has_f(pf, "density/%s/P", pf->qnames[v]))
      vn = pf->qnames[v];
  if (!vn)
    return CLI_RAISE(p->err, SDEKIT_ERR_USAGE, "'%s' has no density of %s", pf->path,
                     p->var ? p->var : "any variable");
  int64_t g = p->grid >= 0 ? p->grid : 0;
  density d = {0};
  cells c = {0};
  sdk_figure fig;
  memset(&fig, 0, sizeof fig);
  sdekit_status e;
  CLI_TRY(e, density_read(p, vn, g, &d), out);
  CLI_TRY(e, density_cells(p, &d, &c), out);
  /* the saved paths in a panel of their own below, on the same axes: on
   * top of the density they hid it */
  int paths = sdk_pf_has_f(pf, "paths/%s", vn) && sdk_pf_has(pf, "paths/t");
  sdk_fig_panel *m = sdk_fig_panel_new(&fig, SDK_FIG_MAP), *o = NULL;
  double y[2], pr[2] = {INFINITY, -INFINITY};
  int64_t np = 0;
  sdk_fig_area(0, paths ? 2 : 1, SDK_FIG_RIGHT_HEAT, SDK_FIG_GAP_SHARED, &m->left, &m->right,
               &m->bottom, &m->top);
  if (paths) {
    o = sdk_fig_panel_new(&fig, SDK_FIG_LINES);
    sdk_fig_area(1, 2, SDK_FIG_RIGHT_HEAT, SDK_FIG_GAP_SHARED, &o->left, &o->right, &o->bottom,
                 &o->top);
    CLI_TRY(e, sdk_pic_paths_panel(p, &fig, o, vn, g, &np), out);
    for (int q = 0; q < o->nseries; q++)
      for (int64_t k = 0; k < o->s[q].n; k++)
        if (isfinite(o->s[q].y[k]))
          pr[0] = fmin(pr[0], o->s[q].y[k]), pr[1] = fmax(pr[1], o->s[q].y[k]);
  }
  density_yrange(&c, pr, y);
  density_map(m, pf, vn, d.coarse, &c, y);
  m->xtics = !paths;
  if (!paths) sdk_pic_time_lab(&m->xlabel, pf);
  if (o) {
    sdk_pic_time_lab(&o->xlabel, pf);
    o->xset = 1; /* the map's time range */
    o->xlo = m->xe[0];
    o->xhi = m->xe[m->nx];
    o->yset = 1;
    o->ylo = y[0];
    o->yhi = y[1];
    sdk_pic_phase_tics(o, y[0], y[1]);
    if (!o->nyt) o->ystep = sdk_pic_nice_step(y[0], y[1], 4);
  }
  sdk_label note = {0};
  if (d.coarse) sdk_lab_text(&note, "coarse-grained: bins one period of the potential wide");
  if (paths) {
    if (d.coarse) sdk_lab_text(&note, "; ");
    sdk_pic_paths_note(&note, np);
  }
  sdk_pic_title(&fig.title, &fig.subtitle, pf, g, &note);
  sdk_lab_free(&note);
  sdk_pic_place_keys(&fig);
  e = sdk_pic_emit(p, &fig);
out:
  sdk_fig_free(&fig);
  density_free(&d, &c);
  return e;
}
