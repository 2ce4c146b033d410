/* The order-parameter picture: r(t) and, below it, the mean phase psi(t)
 * (--observe order), a curve per grid point; for more grid points than
 * SDK_PIC_MAX_CURVES a handful spread over the grid.  A figure description
 * (cli/figure.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "figure/picture.h"

int sdk_pic_has_order(const sdk_plotfile *pf) {
  return sdk_pf_has(pf, "order/r");
}

/* The curves of panel o from values v [grid][ns] at times t: a curve per
 * grid point of c; `wrap`: a phase, its line broken where it wraps. */
static void order_curves(const sdk_plotfile *pf, sdk_figure *fig, sdk_fig_panel *o,
                         const sdk_curves *c, const double *t, const double *v, int64_t ns,
                         int wrap, int titled) {
  for (int64_t q = 0; q < c->n; q++) {
    int64_t g = c->g[q], n = ns;
    const double *vg = v + g * ns;
    for (int64_t s = 1; wrap && s < ns; s++)
      n += fabs(vg[s] - vg[s - 1]) > M_PI;
    sdk_fig_series *se = sdk_fig_series_new(fig, o, n, "xy");
    if (!se) return;
    se->color = (int)q;
    for (int64_t s = 0, k = 0; s < ns; s++) {
      if (wrap && s > 0 && fabs(vg[s] - vg[s - 1]) > M_PI) se->x[k] = se->y[k] = NAN, k++;
      se->x[k] = t[g * ns + s] * pf->tscale;
      se->y[k++] = vg[s];
    }
    if (titled && c->n > 1) sdk_pic_grid_lab(&se->title, pf, g);
  }
  o->key = titled && c->n > 1;
}

sdekit_status sdk_pic_order(sdk_plot *p) {
  const sdk_plotfile *pf = p->pf;
  sdekit_status e = SDEKIT_OK;
  sdk_curves c;
  sdk_pic_curves(p, &c);
  if (c.heat) {
    /* many grid points: a handful spread over the grid */
    c.heat = 0;
    c.n = SDK_PIC_MAX_CURVES;
    for (int64_t q = 0; q < c.n; q++)
      c.g[q] = q * (pf->ngrid - 1) / (c.n - 1);
  }
  int nt = 1;
  int64_t tail[SDEKIT_MAX_RANK];
  double *t = sdk_pf_block(pf, "order/t", -1, &nt, tail, p->err);
  if (!t) return SDEKIT_ERR_FORMAT;
  int64_t ns = (int64_t)tail[0];
  nt = 1;
  double *r = sdk_pf_block(pf, "order/r", -1, &nt, tail, p->err);
  double *psi = NULL;
  sdk_figure fig;
  memset(&fig, 0, sizeof fig);
  if (r && (int64_t)tail[0] != ns) {
    e = CLI_RAISE(p->err, SDEKIT_ERR_FORMAT, "'%s': /order/r and /order/t differ in length",
                  pf->path);
    goto out;
  }
  if (!r) {
    e = SDEKIT_ERR_FORMAT;
    goto out;
  }
  if (sdk_pf_has(pf, "order/psi")) {
    nt = 1;
    psi = sdk_pf_block(pf, "order/psi", -1, &nt, tail, p->err);
    if (!psi || (int64_t)tail[0] != ns) {
      e = psi ? CLI_RAISE(p->err, SDEKIT_ERR_FORMAT,
                          "'%s': /order/psi and /order/t differ in length", pf->path)
              : SDEKIT_ERR_FORMAT;
      goto out;
    }
  }
  sdk_pic_title(&fig.title, &fig.subtitle, pf, -1, NULL);
  int np = psi ? 2 : 1;
  for (int k = 0; k < np; k++) {
    sdk_fig_panel *o = sdk_fig_panel_new(&fig, SDK_FIG_LINES);
    /* one time axis, labelled below the lowest panel */
    sdk_fig_area(k, np, SDK_FIG_RIGHT_PLAIN, SDK_FIG_GAP_SHARED, &o->left, &o->right, &o->bottom,
                 &o->top);
    o->xtics = k == np - 1;
    if (o->xtics) sdk_pic_time_lab(&o->xlabel, pf);
    o->yset = 1;
    if (k == 0) {
      sdk_lab_text(&o->ylabel, "order parameter ");
      sdk_lab_italic(&o->ylabel, "r");
      o->ylo = 0;
      o->yhi = 1.05;
      order_curves(pf, &fig, o, &c, t, r, ns, 0, 1);
      o->ystep = sdk_pic_nice_step(0, 1.05, np == 2 ? 4 : 8);
    } else {
      sdk_lab_text(&o->ylabel, "mean phase ");
      sdk_lab_italic(&o->ylabel, "ψ");
      o->ylo = -M_PI;
      o->yhi = M_PI;
      sdk_pic_phase_tics(o, -M_PI, M_PI);
      order_curves(pf, &fig, o, &c, t, psi, ns, 1, 0);
    }
    if (p->log & SDK_PIC_LOG_X) o->xlog = 1;
  }
  sdk_pic_place_keys(&fig);
  e = sdk_pic_emit(p, &fig);
out:
  sdk_fig_free(&fig);
  free(t);
  free(r);
  free(psi);
  return e;
}
