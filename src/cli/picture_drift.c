/* The drift picture: the drift <<v>> against the scanned parameter.  No
 * scan: the one value with its error bar (and written out); one scan axis: a
 * curve with error bars; two axes: a heat map, with the values printed in
 * the cells of small grids. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/picture.h"

int sdk_pic_has_drift(const sdk_plotfile *pf) {
  return sdk_pf_has(pf, "drift/value");
}

/* No scan: one point with its error bar, the value written above it. */
static void drift_point(sdk_plot *p, FILE *f, const char *dn, const char *vlab, const double *val,
                        const double *err) {
  sdk_strbuf *b = &p->gp;
  sdk_pic_put_num(f, val[0]);
  fputc(' ', f);
  sdk_pic_put_num(f, err[0]);
  fputc('\n', f);
  sdk_sb_printf(b, "set xrange [-1:1]\nunset xtics\nunset mxtics\nset ylabel \"%s\"\n", vlab);
  sdk_sb_printf(b, "set label 1 \"%s = ", vlab);
  sdk_gp_val_err(b, val[0], err[0]);
  sdk_sb_puts(b, "\" at graph 0.5, graph 0.9 center font ',18'\n");
  sdk_sb_puts(b, "set offsets 0, 0, graph 0.3, graph 0.3\n");
  sdk_sb_printf(b, "plot '%s' using (0):1:2 with yerrorbars pt 7 ps 2 lw 2 lc rgb '%s'\n", dn,
                sdk_gp_color(0));
}

/* One scan axis: the values with error bars, joined by a line. */
static void drift_curve(sdk_plot *p, FILE *f, const char *dn, const char *vlab, const double *val,
                        const double *err) {
  const sdk_plotfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
  for (int64_t k = 0; k < pf->axn[0]; k++) {
    sdk_pic_put_num(f, pf->ax[0][k]);
    fputc(' ', f);
    sdk_pic_put_num(f, val[k]);
    fputc(' ', f);
    sdk_pic_put_num(f, err[k]);
    fputc('\n', f);
  }
  sdk_sb_puts(b, "set xlabel \"");
  sdk_gp_sym(b, pf->axname[0]);
  sdk_sb_printf(b, "\"\nset ylabel \"%s\"\n", vlab);
  if (pf->axlog[0]) sdk_sb_puts(b, "set logscale x\n");
  if (pf->axn[0] > 40) sdk_sb_puts(b, "set bars small\n");
  sdk_sb_puts(b, "set xzeroaxis lt -1 lw 0.7\nset autoscale xfix\n"
                 "set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05\n");
  sdk_sb_printf(b,
                "plot '%s' using 1:2:3 with yerrorbars pt 7 ps %s lc rgb '%s', "
                "'' using 1:2 with lines lw 1 lc rgb '%s'\n",
                dn, pf->axn[0] > 40 ? "0.6" : "1.1", sdk_gp_color(0), sdk_gp_color(0));
}

/* Small two-axis grids: the values (with errors) printed in the cells, from
 * a data file of labels (white on the darkest cells); lo..hi is the range of
 * the values.  Appends the labels to the splot command. */
static sdekit_status drift_labels(sdk_plot *p, const double *val, const double *err, double lo,
                                  double hi) {
  const sdk_plotfile *pf = p->pf;
  int64_t n0 = pf->axn[0], n1 = pf->axn[1];
  char ln[32];
  FILE *lf = sdk_pic_data_open(p, ln);
  if (!lf) return SDEKIT_ERR_IO;
  double m = fmax(fabs(lo), fabs(hi));
  for (int64_t i = 0; i < n0; i++)
    for (int64_t j = 0; j < n1; j++) {
      int64_t k = i * n1 + j;
      /* value and error as text; white on the darkest cells */
      sdk_strbuf vt;
      sdk_sb_init(&vt);
      sdk_gp_val_err(&vt, val[k], err[k]);
      char *pm = vt.s ? strstr(vt.s, " ± ") : NULL;
      if (pm) *pm = 0;
      int dark =
          lo < 0 && hi > 0 ? fabs(val[k]) > 0.6 * m : hi > lo && val[k] < lo + 0.45 * (hi - lo);
      fprintf(lf, "%.9g %.9g %s %s %d\n", pf->ax[0][i], pf->ax[1][j], vt.s ? vt.s : "nan",
              pm ? pm + strlen(" ± ") : "nan", dark ? 0xffffff : 0);
      sdk_sb_free(&vt);
    }
  CLI_CHECK(sdk_pic_data_close(p, lf, ln));
  sdk_sb_printf(&p->gp,
                ", '%s' using 1:2:(0):(strcol(3).\"\\n± \".strcol(4)):5 with labels "
                "font ',13' tc rgb variable",
                ln);
  return SDEKIT_OK;
}

/* Two scan axes: cells coloured by <<v>>. */
static sdekit_status drift_heat(sdk_plot *p, FILE *f, const char *dn, const char *vlab,
                                const double *val, const double *err) {
  const sdk_plotfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
  sdekit_status e = SDEKIT_OK;
  int64_t n0 = pf->axn[0], n1 = pf->axn[1];
  double *xe = malloc((size_t)(n0 + 1) * sizeof *xe);
  double *ye = malloc((size_t)(n1 + 1) * sizeof *ye);
  if (!xe || !ye) {
    e = CLI_RAISE(p->err, SDEKIT_ERR_NOMEM, "out of memory");
    goto out;
  }
  sdk_pic_edges(pf->ax[0], n0, pf->axlog[0], xe);
  sdk_pic_edges(pf->ax[1], n1, pf->axlog[1], ye);
  sdk_pic_cells(f, n0, xe, n1, ye, 0, val, 0);
  double lo, hi;
  sdk_pic_minmax(val, (size_t)pf->ngrid, &lo, &hi);
  sdk_gp_heatmap(b);
  sdk_gp_cbrange(b, lo, hi);
  sdk_sb_puts(b, "set xlabel \"");
  sdk_gp_sym(b, pf->axname[0]);
  sdk_sb_puts(b, "\"\nset ylabel \"");
  sdk_gp_sym(b, pf->axname[1]);
  sdk_sb_printf(b, "\"\nset cblabel \"%s\"\n", vlab);
  if (pf->axlog[0]) sdk_sb_puts(b, "set logscale x\n");
  if (pf->axlog[1]) sdk_sb_puts(b, "set logscale y\n");
  sdk_sb_printf(b, "set xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n", xe[0], xe[n0], ye[0],
                ye[n1]);
  sdk_sb_printf(b, "splot '%s' using 1:2:3 with pm3d", dn);
  if (pf->ngrid <= SDK_PIC_LABEL_CELLS) CLI_TRY(e, drift_labels(p, val, err, lo, hi), out);
  sdk_sb_puts(b, "\n");
out:
  free(xe);
  free(ye);
  return e;
}

sdekit_status sdk_pic_drift(sdk_plot *p) {
  const sdk_plotfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
  sdekit_status e = SDEKIT_OK;
  int nt = 0;
  int64_t tail[SDEKIT_MAX_RANK];
  sdk_strbuf vl;
  sdk_sb_init(&vl);
  double *val = sdk_pf_block(pf, "drift/value", -1, &nt, tail, p->err);
  nt = 0;
  double *err = val ? sdk_pf_block(pf, "drift/error", -1, &nt, tail, p->err) : NULL;
  if (!val || !err) {
    e = SDEKIT_ERR_FORMAT;
    goto out;
  }
  char var[256] = "";
  sdk_pf_group_str(pf, "drift", "var", var, sizeof var);
  if (!var[0]) snprintf(var, sizeof var, "%s", pf->vars[0]);
  sdk_sb_puts(&vl, "⟨⟨{/:Italic v}_{");
  sdk_gp_sym(&vl, var);
  sdk_sb_puts(&vl, "}⟩⟩");
  const char *vlab = vl.s ? vl.s : "<<v>>";

  char dn[32];
  FILE *f = sdk_pic_data_open(p, dn);
  if (!f) {
    e = SDEKIT_ERR_IO;
    goto out;
  }
  sdk_gp_panel(b, 0, 1, pf->nscan == 2 ? SDK_GP_RIGHT_HEAT : SDK_GP_RIGHT_PLAIN, SDK_GP_GAP_SHARED);
  sdk_pic_multiplot_title(b, pf, -1, NULL);
  if (pf->nscan == 0)
    drift_point(p, f, dn, vlab, val, err);
  else if (pf->nscan == 1)
    drift_curve(p, f, dn, vlab, val, err);
  else
    e = drift_heat(p, f, dn, vlab, val, err);
  if (e != SDEKIT_OK) {
    fclose(f);
    goto out;
  }
  sdk_sb_puts(b, "unset multiplot\n");
  e = sdk_pic_data_close(p, f, dn);
out:
  sdk_sb_free(&vl);
  free(val);
  free(err);
  return e;
}
