/* The moments picture: per variable (one panel each), the mean over time
 * with a band of +- one standard deviation and, inside it, a darker one of
 * +- the standard error of the mean (files that have mean_err_VAR) for every
 * grid point drawn as a curve, or, for more grid points, the mean as a heat
 * map over (scan axis, time).  --stat variance draws the variance instead
 * (no bands). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/picture.h"

int sdk_pic_has_moments(const sdk_plotfile *pf) {
  return sdk_pf_has(pf, "moments/t");
}

/* One variable's moments: [grid][ns] each. */
typedef struct moments {
  const double *t, *mean, *var, *err; /* var, err: NULL for none */
  int64_t ns;
  int variance; /* mean holds the variance (--stat variance) */
} moments;

/* Curves: mean and band per grid point, into data file f (dn). */
static void moments_curves(sdk_plot *p, const sdk_curves *c, int k, FILE *f, const char *dn,
                           const moments *mo) {
  const sdk_plotfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
  int64_t ns = mo->ns;
  sdk_sb_puts(b, "plot ");
  for (int64_t q = 0; q < c->n; q++) {
    int64_t g = c->g[q];
    for (int64_t s = 0; s < ns; s++) {
      double m = mo->mean[g * ns + s], v = mo->var ? mo->var[g * ns + s] : 0;
      double se = mo->err ? mo->err[g * ns + s] : 0;
      sdk_pic_put_num(f, mo->t[g * ns + s] * pf->tscale);
      fputc(' ', f);
      sdk_pic_put_num(f, m);
      fputc(' ', f);
      sdk_pic_put_num(f, v > 0 ? m - sqrt(v) : m);
      fputc(' ', f);
      sdk_pic_put_num(f, v > 0 ? m + sqrt(v) : m);
      fputc(' ', f);
      sdk_pic_put_num(f, se > 0 ? m - se : m);
      fputc(' ', f);
      sdk_pic_put_num(f, se > 0 ? m + se : m);
      fputc('\n', f);
    }
    fputs("\n\n", f);
    const char *col = sdk_gp_color(q);
    if (q) sdk_sb_puts(b, ", ");
    if (mo->var)
      sdk_sb_printf(b,
                    "'%s' index %lld using 1:3:4 with filledcurves fs transparent solid %s "
                    "noborder lc rgb '%s'%s, ",
                    dn, (long long)q, c->n > 2 ? "0.12" : "0.22", col,
                    c->n == 1 ? " title 'mean ± s.d.'" : "");
    if (mo->err)
      sdk_sb_printf(b,
                    "'%s' index %lld using 1:5:6 with filledcurves fs transparent solid 0.45 "
                    "noborder lc rgb '%s'%s, ",
                    dn, (long long)q, col, c->n == 1 ? " title 'mean ± s.e.'" : "");
    sdk_sb_printf(b, "'%s' index %lld using 1:2 with lines lw 1.5 lc rgb '%s' title \"", dn,
                  (long long)q, col);
    if (c->n == 1)
      sdk_sb_puts(b, mo->variance ? "variance" : "mean");
    else
      sdk_pic_grid_label(b, pf, g);
    sdk_sb_puts(b, "\"");
  }
  sdk_sb_puts(b, "\n");
  if (k == 0 && c->n > 1) sdk_sb_puts(b, "unset key\n");
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

/* Heat map of the mean of variable vn over (scan axis, t), into f (dn). */
static sdekit_status moments_heat(sdk_plot *p, const sdk_curves *c, int k, int nv, const char *vn,
                                  FILE *f, const char *dn, const moments *mo) {
  const sdk_plotfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
  sdekit_status e = SDEKIT_OK;
  int64_t nx = pf->axn[c->hx], ns = mo->ns;
  double *xe = malloc((size_t)(nx + 1) * sizeof *xe);
  double *ye = malloc((size_t)nx * (size_t)(ns + 1) * sizeof *ye);
  double *z = malloc((size_t)nx * (size_t)ns * sizeof *z);
  if (!xe || !ye || !z) {
    e = CLI_RAISE(p->err, SDEKIT_ERR_NOMEM, "out of memory");
    goto out;
  }
  sdk_pic_edges(pf->ax[c->hx], nx, pf->axlog[c->hx], xe);
  double tr[2];
  moments_cells(pf, c, mo, nx, z, ye, tr);
  sdk_pic_cells(f, nx, xe, ns, ye, ns + 1, z, 0);
  double lo, hi;
  sdk_pic_minmax(z, (size_t)(nx * ns), &lo, &hi);
  sdk_gp_palette(b, "sequential");
  sdk_sb_puts(b, "unset logscale cb\nset format cb '%g'\nset cbrange [*:*]\n");
  if (hi == lo) sdk_sb_printf(b, "set cbrange [%.9g:%.9g]\n", lo - 1, hi + 1);
  /* x: the scan axis; y: time; colour: the mean */
  sdk_sb_puts(b, "set xlabel ");
  if (k == nv - 1) {
    sdk_sb_puts(b, "\"");
    sdk_gp_sym(b, pf->axname[c->hx]);
    sdk_sb_puts(b, "\"");
  } else {
    sdk_sb_puts(b, "''");
  }
  sdk_sb_puts(b, pf->in_periods ? "\nset ylabel \"{/:Italic t} / {/:Italic T}\""
                                : "\nset ylabel \"{/:Italic t}\"");
  sdk_sb_puts(b, mo->variance ? "\nset cblabel \"variance of " : "\nset cblabel \"mean of ");
  sdk_gp_sym(b, vn);
  sdk_sb_puts(b, "\"\n");
  if (pf->axlog[c->hx]) sdk_sb_puts(b, "set logscale x\n");
  sdk_sb_printf(b, "set xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n", xe[0], xe[nx], tr[0], tr[1]);
  sdk_sb_printf(b, "splot '%s' using 1:2:3 with pm3d\n", dn);
out:
  free(xe);
  free(ye);
  free(z);
  return e;
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
static sdekit_status moments_panel(sdk_plot *p, const sdk_curves *c, int k, int nv, double right,
                                   const char *vn, moments *mo) {
  const sdk_plotfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
  double *mean = NULL, *var = NULL, *err = NULL;
  sdekit_status e = moments_read(p, vn, mo, &mean, &var, &err);
  char dn[32];
  FILE *f = e == SDEKIT_OK ? sdk_pic_data_open(p, dn) : NULL;
  if (e == SDEKIT_OK && !f) e = SDEKIT_ERR_IO;
  if (e != SDEKIT_OK) goto out;
  sdk_gp_panel(b, k, nv, right, SDK_GP_GAP_SHARED);
  sdk_sb_puts(b, "set xlabel ");
  if (k == nv - 1)
    sdk_pic_time_label(b, pf);
  else
    sdk_sb_puts(b, "''");
  sdk_sb_puts(b, mo->variance ? "\nset ylabel \"var " : "\nset ylabel \"");
  sdk_gp_sym(b, vn);
  sdk_sb_puts(b, "\"\n");
  if (k == nv - 1)
    sdk_sb_puts(b, "set format x '%g'\n");
  else
    sdk_sb_puts(b, "set format x ''\n");
  if (!c->heat && pf->tlog) sdk_sb_puts(b, "set logscale x\n");
  if (!c->heat)
    moments_curves(p, c, k, f, dn, mo);
  else
    e = moments_heat(p, c, k, nv, vn, f, dn, mo);
  if (e == SDEKIT_OK)
    e = sdk_pic_data_close(p, f, dn);
  else
    fclose(f);
out:
  free(mean);
  free(var);
  free(err);
  return e;
}

sdekit_status sdk_pic_moments(sdk_plot *p) {
  const sdk_plotfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
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
  double right = sdk_pic_curves_begin(b, pf, &c, 1);
  for (int k = 0; k < nv && e == SDEKIT_OK; k++)
    e = moments_panel(p, &c, k, nv, right, pf->vars[vi[k]], &mo);
  sdk_sb_puts(b, "unset multiplot\n");
  free(t);
  return e;
}
