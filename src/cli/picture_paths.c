/* The saved-paths picture: per variable (one panel each), the sample paths
 * saved with --save-paths at one grid point (--grid, else 0) over time. */
#include <stdlib.h>
#include <string.h>

#include "cli/picture.h"

int sdk_pic_has_paths(const sdk_plotfile *pf) {
  return sdk_pf_any_var(pf, "paths/%s");
}

sdekit_status sdk_pic_paths(sdk_plot *p) {
  const sdk_plotfile *pf = p->pf;
  sdk_strbuf *b = &p->gp;
  sdekit_status e = SDEKIT_OK;
  int vi[SDK_PIC_MAX_PANELS], nv = 0;
  for (int k = 0, m = sdk_pic_vars(p, vi); k < m; k++)
    if (sdk_pf_has_f(pf, "paths/%s", pf->vars[vi[k]])) vi[nv++] = vi[k];
  if (nv == 0)
    return CLI_RAISE(p->err, SDEKIT_ERR_USAGE, "'%s' has no saved paths of %s", pf->path,
                     p->var ? p->var : "any variable");
  int64_t g = p->grid >= 0 ? p->grid : 0;
  double *idx = NULL;
  int64_t nidx = 0;
  if (sdk_pf_has(pf, "paths/index")) idx = sdk_pf_1d(pf, "paths/index", &nidx, p->err);
  sdk_pic_multiplot_title(b, pf, g, "saved sample paths");
  for (int k = 0; k < nv && e == SDEKIT_OK; k++) {
    const char *vn = pf->vars[vi[k]];
    char dn[32];
    int64_t np;
    double tlo, thi;
    if ((e = sdk_pic_write_paths(p, vn, g, dn, &np, &tlo, &thi, NULL)) != SDEKIT_OK) break;
    sdk_gp_panel(b, k, nv, np <= 10 ? SDK_GP_RIGHT_KEY : SDK_GP_RIGHT_PLAIN, SDK_GP_GAP_SHARED);
    sdk_sb_puts(b, "set xlabel ");
    if (k == nv - 1)
      sdk_pic_time_label(b, pf);
    else
      sdk_sb_puts(b, "''");
    sdk_sb_printf(b, "\nset format x %s\nset ylabel \"", k == nv - 1 ? "'%g'" : "''");
    sdk_gp_sym(b, vn);
    sdk_sb_printf(b, "\"\nset xrange [%.9g:%.9g]\n%s", tlo, thi > tlo ? thi : tlo + 1,
                  pf->tlog && tlo > 0 ? "set logscale x\n" : "");
    if (np <= 10)
      sdk_sb_puts(
          b,
          k == 0
              ? "set key at screen 0.79, screen 0.865 left top vertical Left reverse font ',12'\n"
              : "unset key\n");
    else
      sdk_sb_puts(b, "unset key\n");
    sdk_sb_puts(b, "plot ");
    for (int64_t q = 0; q < np; q++) {
      sdk_sb_printf(b, "%s'%s' index %lld using 1:2 with lines lw 1.2 lc rgb '%s'", q ? ", " : "",
                    dn, (long long)q, sdk_gp_color(q));
      if (np <= 10)
        sdk_sb_printf(b, " title 'path %lld'",
                      (long long)(idx && q < nidx ? sdk_pf_count(idx[q]) : q));
    }
    sdk_sb_puts(b, "\n");
  }
  sdk_sb_puts(b, "unset multiplot\n");
  free(idx);
  return e;
}
