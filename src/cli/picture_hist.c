/* The histogram picture: per variable (one panel each), the final
 * distribution of every grid point drawn as a curve (filled for a single
 * one), or, for more grid points, a heat map over (scan axis, value) with a
 * logarithmic colour scale. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/picture.h"

int sdk_pic_has_hist(const sdk_plotfile *pf) {
  return sdk_pf_any_var(pf, "hist/%s/density");
}

/* One variable's histograms: densities [grid][nb] over lo[g]..hi[g]. */
typedef struct hist {
  double *dens, *lo, *hi;
  int64_t nb;
} hist;

/* Curves: the histogram of every grid point drawn, into data file f (dn). */
static void hist_curves(sdk_plot *p, const sdk_curves *c, int k, const char *vn, FILE *f,
                        const char *dn, const hist *h) {
  const sdk_plotfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
  int64_t nb = h->nb;
  sdk_sb_puts(b, "set ylabel \"{/:Italic P}(");
  sdk_gp_sym(b, vn);
  sdk_sb_puts(b, ")\"\nplot ");
  for (int64_t q = 0; q < c->n; q++) {
    int64_t g = c->g[q];
    double w = (h->hi[g] - h->lo[g]) / (double)nb;
    for (int64_t j = 0; j < nb; j++) {
      sdk_pic_put_num(f, h->lo[g] + (j + 0.5) * w);
      fputc(' ', f);
      sdk_pic_put_num(f, h->dens[g * nb + j]);
      fputc('\n', f);
    }
    fputs("\n\n", f);
    const char *col = sdk_gp_color(q);
    if (c->n == 1)
      sdk_sb_printf(
          b, "'%s' index 0 using 1:2 with boxes fs transparent solid 0.22 noborder lc rgb '%s', ",
          dn, col);
    sdk_sb_printf(b, "%s'%s' index %lld using 1:2 with histeps lw 1.5 lc rgb '%s' title \"",
                  q ? ", " : "", dn, (long long)q, col);
    if (c->n == 1 && pf->nsteps > 0) {
      sdk_sb_puts(b, "at {/:Italic t} = ");
      sdk_gp_num(b, (double)pf->nsteps * pf->dt[g] * pf->tscale);
      if (pf->in_periods) sdk_sb_puts(b, " {/:Italic T}");
    } else if (c->n == 1) {
      sdk_sb_puts(b, "final distribution");
    } else {
      sdk_pic_grid_label(b, pf, g);
    }
    sdk_sb_puts(b, "\"");
  }
  sdk_sb_puts(b, "\n");
  if (k == 0 && c->n > 1) sdk_sb_puts(b, "unset key\n");
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

/* Heat map over (scan axis, value), into data file f (dn). */
static sdekit_status hist_heat(sdk_plot *p, const sdk_curves *c, const char *vn, FILE *f,
                               const char *dn, const hist *h) {
  const sdk_plotfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
  int64_t nx = pf->axn[c->hx], ny = 0;
  double *ye = NULL, *xe = malloc((size_t)(nx + 1) * sizeof *xe);
  double *z = xe ? hist_regrid(pf, c, h, nx, &ny, &ye) : NULL;
  if (!z) {
    free(xe);
    return CLI_RAISE(p->err, SDEKIT_ERR_NOMEM, "out of memory");
  }
  sdk_pic_edges(pf->ax[c->hx], nx, pf->axlog[c->hx], xe);
  double ylo = ye[0], yhi = ye[ny];
  /* log colour scale: distributions at different parameters differ a lot */
  double zlo, zhi, zminpos = INFINITY;
  sdk_pic_minmax(z, (size_t)(nx * ny), &zlo, &zhi);
  for (int64_t q = 0; q < nx * ny; q++)
    if (z[q] > 0 && z[q] < zminpos) zminpos = z[q];
  if (!(zhi > 0)) zhi = 1;
  double cbmin = fmax(zminpos, zhi * 1e-5);
  if (!(cbmin < zhi)) cbmin = zhi * 1e-3;
  sdk_pic_cells(f, nx, xe, ny, ye, 0, z, cbmin * 0.5);
  free(z);
  sdk_gp_palette(b, "density");
  sdk_sb_printf(
      b, "set logscale cb\nset format cb '10^{%%L}'\nunset mcbtics\nset cbrange [%.6g:%.6g]\n",
      cbmin, zhi);
  sdk_sb_puts(b, "set xlabel \"");
  sdk_gp_sym(b, pf->axname[c->hx]);
  sdk_sb_puts(b, "\"\nset ylabel \"");
  sdk_gp_sym(b, vn);
  sdk_sb_puts(b, "\"\nset cblabel \"{/:Italic P}(");
  sdk_gp_sym(b, vn);
  sdk_sb_puts(b, ")\"\n");
  if (pf->axlog[c->hx]) sdk_sb_puts(b, "set logscale x\n");
  sdk_sb_printf(b, "set xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n", xe[0], xe[nx], ylo, yhi);
  sdk_sb_printf(b, "splot '%s' using 1:2:3 with pm3d\n", dn);
  free(xe);
  free(ye);
  return SDEKIT_OK;
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
static sdekit_status hist_panel(sdk_plot *p, const sdk_curves *c, int k, int nv, double right,
                                const char *vn) {
  sdk_strbuf *b = &p->gp;
  hist h = {0};
  sdekit_status e = hist_read(p, vn, &h);
  char dn[32];
  FILE *f = e == SDEKIT_OK ? sdk_pic_data_open(p, dn) : NULL;
  if (e == SDEKIT_OK && !f) e = SDEKIT_ERR_IO;
  if (e != SDEKIT_OK) goto out;
  sdk_gp_panel(b, k, nv, right, SDK_GP_GAP_OWN_AXIS);
  sdk_sb_puts(b, "set xlabel \"");
  sdk_gp_sym(b, vn);
  sdk_sb_puts(b, "\"\n");
  if (!c->heat)
    hist_curves(p, c, k, vn, f, dn, &h);
  else
    e = hist_heat(p, c, vn, f, dn, &h);
  if (e == SDEKIT_OK)
    e = sdk_pic_data_close(p, f, dn);
  else
    fclose(f);
out:
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
  double right = sdk_pic_curves_begin(&p->gp, pf, &c, 0);
  for (int k = 0; k < nv && e == SDEKIT_OK; k++)
    e = hist_panel(p, &c, k, nv, right, pf->qnames[vi[k]]);
  sdk_sb_puts(&p->gp, "unset multiplot\n");
  return e;
}
