/* Pieces the pictures of `sdekit plot` share: data files, heat-map cells,
 * curves per grid point, titles, saved paths (see picture.h). */
#include "figure/picture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------- data files ---------------- */

void sdk_pic_minmax(const double *v, size_t n, double *lo, double *hi) {
  *lo = INFINITY;
  *hi = -INFINITY;
  for (size_t i = 0; i < n; i++)
    if (isfinite(v[i])) {
      if (v[i] < *lo) *lo = v[i];
      if (v[i] > *hi) *hi = v[i];
    }
}

/* ---------------- heat maps ---------------- */

void sdk_pic_edges(const double *c, int64_t n, int lg, double *e) {
  if (n == 1) {
    double w = c[0] != 0 ? 0.1 * fabs(c[0]) : 0.5;
    if (lg && c[0] > 0) {
      e[0] = c[0] / 1.1;
      e[1] = c[0] * 1.1;
    } else {
      e[0] = c[0] - w / 2;
      e[1] = c[0] + w / 2;
    }
    return;
  }
  for (int64_t i = 1; i < n; i++)
    e[i] = lg && c[i - 1] > 0 && c[i] > 0 ? sqrt(c[i - 1] * c[i]) : 0.5 * (c[i - 1] + c[i]);
  if (lg && c[0] > 0 && c[1] > 0) {
    e[0] = c[0] * c[0] / e[1];
    e[n] = c[n - 1] * c[n - 1] / e[n - 1];
  } else {
    e[0] = c[0] - (e[1] - c[0]);
    e[n] = c[n - 1] + (c[n - 1] - e[n - 1]);
  }
}

double *sdk_pic_regrid(int64_t nx, int64_t nb, const double *lo, const double *hi,
                       const double *const *col, int64_t maxrows, int64_t *ny, double **ye) {
  double y0 = INFINITY, y1 = -INFINITY, w = INFINITY;
  for (int64_t i = 0; i < nx; i++)
    if (isfinite(lo[i]) && isfinite(hi[i]) && hi[i] > lo[i]) {
      y0 = fmin(y0, lo[i]);
      y1 = fmax(y1, hi[i]);
      w = fmin(w, (hi[i] - lo[i]) / (double)nb);
    }
  if (!(y1 > y0)) {
    y0 = 0;
    y1 = 1;
    w = 1.0 / (double)nb;
  }
  double nr = ceil((y1 - y0) / w - 1e-6);
  int64_t n = nr < 1 ? 1 : nr > (double)maxrows ? maxrows : (int64_t)nr;
  double W = (y1 - y0) / (double)n;
  double *z = calloc((size_t)(nx * n), sizeof *z), *e = malloc((size_t)(n + 1) * sizeof *e);
  int64_t *cnt = malloc((size_t)n * sizeof *cnt);
  if (!z || !e || !cnt) {
    free(z);
    free(e);
    free(cnt);
    return NULL;
  }
  for (int64_t r = 0; r <= n; r++)
    e[r] = y0 + (double)r * W;
  for (int64_t i = 0; i < nx; i++) {
    double bw = (hi[i] - lo[i]) / (double)nb, *zi = z + i * n;
    if (!(bw > 0) || !isfinite(lo[i])) continue;
    if (W >= bw * (1 - 1e-9)) {
      memset(cnt, 0, (size_t)n * sizeof *cnt);
      for (int64_t j = 0; j < nb; j++) {
        double r = floor((lo[i] + ((double)j + 0.5) * bw - y0) / W);
        int64_t ri = r < 0 ? 0 : r >= (double)n ? n - 1 : (int64_t)r;
        if (isfinite(col[i][j])) {
          zi[ri] += col[i][j];
          cnt[ri]++;
        }
      }
      for (int64_t r = 0; r < n; r++)
        if (cnt[r]) zi[r] /= (double)cnt[r];
    } else {
      for (int64_t r = 0; r < n; r++) {
        double yc = y0 + ((double)r + 0.5) * W;
        if (yc < lo[i] || yc >= hi[i]) continue;
        int64_t j = (int64_t)floor((yc - lo[i]) / bw);
        zi[r] = col[i][j < nb ? j : nb - 1];
      }
    }
  }
  free(cnt);
  *ny = n;
  *ye = e;
  return z;
}

/* ---------------- curves per grid point ---------------- */

void sdk_pic_curves(const sdk_plot *p, sdk_curves *c) {
  const sdk_plotfile *pf = p->pf;
  memset(c, 0, sizeof *c);
  if (pf->ngrid <= SDK_PIC_MAX_CURVES) {
    c->n = pf->ngrid;
    for (int64_t g = 0; g < pf->ngrid; g++)
      c->g[g] = g;
    return;
  }
  c->heat = 1;
  c->hx = pf->nscan == 2 && pf->axn[1] > pf->axn[0] ? 1 : 0;
  if (pf->nscan == 2) {
    int64_t idx[2];
    sdk_pf_grid_index(pf, p->grid >= 0 ? p->grid : 0, idx);
    c->fixed = idx[1 - c->hx];
  }
}

int64_t sdk_pic_heat_grid(const sdk_plotfile *pf, const sdk_curves *c, int64_t k) {
  if (pf->nscan < 2) return k;
  return c->hx == 0 ? k * pf->axn[1] + c->fixed : c->fixed * pf->axn[1] + k;
}

void sdk_pic_curves_figure(sdk_figure *f, const sdk_plotfile *pf, const sdk_curves *c) {
  sdk_label note = {0};
  memset(f, 0, sizeof *f);
  if (pf->nscan == 2 && c->heat) {
    /* a heat map over one axis of a two-axis scan: the other is fixed */
    int o = 1 - c->hx;
    sdk_lab_sym(&note, pf->axname[o]);
    sdk_lab_text(&note, " = ");
    sdk_lab_num(&note, pf->ax[o][c->fixed]);
  }
  sdk_pic_title(&f->title, &f->subtitle, pf, -1, &note);
  sdk_lab_free(&note);
}

int sdk_pic_vars(const sdk_plot *p, int *vi) {
  const sdk_plotfile *pf = p->pf;
  int n = 0;
  for (long v = 0; v < pf->nvars && n < SDK_PIC_MAX_PANELS; v++)
    if (!p->var || !strcmp(p->var, pf->vars[v])) vi[n++] = (int)v;
  return n;
}

/* ---------------- titles and labels ---------------- */

void sdk_pic_grid_lab(sdk_label *l, const sdk_plotfile *pf, int64_t g) {
  int64_t idx[2];
  sdk_pf_grid_index(pf, g, idx);
  for (int i = 0; i < pf->nscan; i++) {
    if (i) sdk_lab_text(l, ", ");
    sdk_lab_sym(l, pf->axname[i]);
    sdk_lab_text(l, " = ");
    sdk_lab_num(l, pf->ax[i][idx[i]]);
  }
}

static int is_scanned(const sdk_plotfile *pf, const char *name) {
  for (int i = 0; i < pf->nscan; i++)
    if (!strcmp(pf->axname[i], name)) return 1;
  return 0;
}

/* "model, scheme, N paths, dt = ..., precision" (dt-max = ... for --adaptive). */
static void title_line(sdk_label *b, const sdk_plotfile *pf, int64_t g) {
  sdk_lab_text(b, pf->model);
  if (pf->scheme[0]) {
    sdk_lab_text(b, ", ");
    sdk_lab_text(b, pf->scheme);
  }
  if (pf->particles > 1) {
    /* interacting systems: paths = particles x systems */
    sdk_lab_text(b, ", ");
    sdk_lab_count(b, pf->particles, "particle");
    int64_t sys = pf->paths / pf->particles;
    if (sys > 1) {
      sdk_lab_text(b, " × ");
      sdk_lab_count(b, sys, "system");
    }
  } else if (pf->paths > 0) {
    sdk_lab_text(b, ", ");
    sdk_lab_count(b, pf->paths, "path");
  }
  double lo = pf->dt[0], hi = pf->dt[0];
  if (g >= 0) {
    lo = hi = pf->dt[g];
  } else {
    for (int64_t k = 1; k < pf->ngrid; k++) {
      if (pf->dt[k] < lo) lo = pf->dt[k];
      if (pf->dt[k] > hi) hi = pf->dt[k];
    }
  }
  sdk_lab_text(b, ", ");
  sdk_lab_italic(b, "dt");
  /* --adaptive (whose runs always have the adaptive group: sim/plan.c):
   * the step recorded is dt-max, the longest a step may be */
  if (sdk_pf_has(pf, "adaptive")) sdk_lab_text(b, "-max");
  sdk_lab_text(b, " = ");
  sdk_lab_num(b, lo);
  if (hi != lo) {
    sdk_lab_text(b, " … ");
    sdk_lab_num(b, hi);
  }
  if (pf->precision[0]) {
    sdk_lab_text(b, ", ");
    sdk_lab_text(b, pf->precision);
  }
}

/* The parameters (with the scanned ones at grid point g when g >= 0); the
 * number of entries. */
static int param_line(sdk_label *l2, const sdk_plotfile *pf, int64_t g) {
  int n = 0;
  for (long p = 0; p < pf->nparams; p++) {
    if (is_scanned(pf, pf->pnames[p]) || isnan(pf->pvals[p])) continue; /* varies: NaN */
    if (n++) sdk_lab_text(l2, ", ");
    sdk_lab_sym(l2, pf->pnames[p]);
    sdk_lab_text(l2, " = ");
    sdk_lab_num(l2, pf->pvals[p]);
  }
  if (g >= 0 && pf->nscan) {
    if (n++) sdk_lab_text(l2, ", ");
    sdk_pic_grid_lab(l2, pf, g);
  }
  return n;
}

void sdk_pic_title(sdk_label *title, sdk_label *sub, const sdk_plotfile *pf, int64_t g,
                   const sdk_label *note) {
  title_line(title, pf, g);
  int n = param_line(sub, pf, g);
  if (note && !sdk_lab_empty(note)) {
    if (n) sdk_lab_text(sub, "; ");
    sdk_lab_cat(sub, note);
  }
}

void sdk_pic_time_lab(sdk_label *l, const sdk_plotfile *pf) {
  sdk_lab_text(l, "time ");
  sdk_lab_italic(l, "t");
  if (pf->in_periods) {
    sdk_lab_text(l, " / ");
    sdk_lab_italic(l, "T");
    sdk_lab_text(l, "  (periods of the driving)");
  }
}

/* A phase (a range of 2 pi from 0 or -pi): y ticks in units of pi. */
void sdk_pic_phase_tics(sdk_fig_panel *o, double ylo, double yhi) {
  static const char *const POS[] = {"0", "π/2", "π", "3π/2", "2π"};
  static const char *const SYM[] = {"−π", "−π/2", "0", "π/2", "π"};
  if (!(fabs(yhi - ylo - 2 * M_PI) < 1e-6 && (fabs(ylo) < 1e-9 || fabs(ylo + M_PI) < 1e-9))) return;
  for (int k = 0; k < 5; k++) {
    o->ytv[k] = (ylo > -1 ? 0 : -M_PI) + k * M_PI / 2;
    sdk_lab_text(&o->ytl[k], ylo > -1 ? POS[k] : SYM[k]);
  }
  o->nyt = 5;
}

void sdk_pic_read_names(const sdk_plotfile *pf, const char *group, const char *attr,
                        sdk_pic_names *nm) {
  memset(nm, 0, sizeof *nm);
  sdk_pf_group_str(pf, group, attr, nm->buf, sizeof nm->buf);
  char *s = nm->buf;
  for (int k = 0; k < SDK_PIC_MAX_LINES && s && *s; k++) {
    nm->name[k] = s;
    s = strchr(s, ',');
    if (s) *s++ = 0;
  }
}

void sdk_pic_name_label(sdk_label *out, const sdk_pic_names *nm, int k, const char *what) {
  char buf[48];
  snprintf(buf, sizeof buf, "%s %d", what, k);
  sdk_lab_text(out, nm->name[k] && nm->name[k][0] ? nm->name[k] : buf);
}
