/* The order-parameter picture: r(t) and, below it, the mean phase psi(t)
 * (--observe order), a curve per grid point; for more grid points than
 * SDK_PIC_MAX_CURVES a handful spread over the grid. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/picture.h"

int sdk_pic_has_order(const sdk_plotfile *pf) {
  return sdk_pf_has(pf, "order/r");
}

sdekit_status sdk_pic_order(sdk_plot *p) {
  const sdk_plotfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
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
  char dn[32];
  FILE *f = sdk_pic_data_open(p, dn);
  if (!f) {
    e = SDEKIT_ERR_IO;
    goto out;
  }
  for (int64_t q = 0; q < c.n; q++) {
    int64_t g = c.g[q];
    for (int64_t s = 0; s < ns; s++) {
      double ps = psi ? psi[g * ns + s] : NAN;
      /* break the psi line where it wraps around */
      if (psi && s > 0 && fabs(ps - psi[g * ns + s - 1]) > M_PI) fputc('\n', f);
      sdk_pic_put_num(f, t[g * ns + s] * pf->tscale);
      fputc(' ', f);
      sdk_pic_put_num(f, r[g * ns + s]);
      fputc(' ', f);
      sdk_pic_put_num(f, ps);
      fputc('\n', f);
    }
    fputs("\n\n", f);
  }
  if ((e = sdk_pic_data_close(p, f, dn)) != SDEKIT_OK) goto out;
  sdk_pic_multiplot_title(b, pf, -1, NULL);
  if (c.n > 1)
    sdk_sb_puts(b,
                "set key at screen 0.79, screen 0.865 left top vertical Left reverse font ',12'\n");
  else
    sdk_sb_puts(b, "unset key\n");
  for (int panel = 0; panel < (psi ? 2 : 1); panel++) {
    int last = panel == (psi ? 1 : 0);
    sdk_gp_panel(b, panel, psi ? 2 : 1, c.n > 1 ? SDK_GP_RIGHT_KEY : SDK_GP_RIGHT_PLAIN,
                 SDK_GP_GAP_SHARED);
    sdk_sb_puts(b, "set xlabel ");
    if (last)
      sdk_pic_time_label(b, pf);
    else
      sdk_sb_puts(b, "''");
    sdk_sb_printf(b, "\nset format x %s\n", last ? "'%g'" : "''");
    if (panel == 0)
      sdk_sb_puts(b, "set ylabel \"order parameter {/:Italic r}\"\nset yrange [0:1.05]\n");
    else
      sdk_sb_puts(b, "set ylabel \"mean phase {/:Italic ψ}\"\nset yrange [-pi:pi]\n"
                     "set ytics ('−π' -pi, '−π/2' -pi/2, '0' 0, 'π/2' pi/2, 'π' pi)\n"
                     "unset key\n");
    sdk_sb_puts(b, "plot ");
    for (int64_t q = 0; q < c.n; q++) {
      sdk_sb_printf(b, "%s'%s' index %lld using 1:%d with lines lw 1.5 lc rgb '%s'", q ? ", " : "",
                    dn, (long long)q, panel == 0 ? 2 : 3, sdk_gp_color(q));
      if (c.n > 1 && panel == 0) {
        sdk_sb_puts(b, " title \"");
        sdk_pic_grid_label(b, pf, c.g[q]);
        sdk_sb_puts(b, "\"");
      }
    }
    sdk_sb_puts(b, "\n");
  }
  sdk_sb_puts(b, "unset multiplot\n");
out:
  free(t);
  free(r);
  free(psi);
  return e;
}
