/* The saved-paths picture: per variable (one panel each), the sample paths
 * saved with --save-paths at one grid point (--grid, else 0) over time; the
 * density picture draws them in a panel of their own below the density
 * (on top of it they hid it).  A figure description (cli/figure.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "figure/picture.h"

int sdk_pic_has_paths(const sdk_plotfile *pf) {
  return sdk_pf_any_var(pf, "paths/%s");
}

/* "path 12": the index of the q-th saved path (paths/index), or q. */
static void path_title(sdk_label *l, const double *idx, int64_t nidx, int64_t q) {
  char buf[48];
  snprintf(buf, sizeof buf, "path %lld", (long long)(idx && q < nidx ? sdk_pf_count(idx[q]) : q));
  sdk_lab_text(l, buf);
}

sdekit_status sdk_pic_paths_panel(sdk_plot *p, sdk_figure *fig, sdk_fig_panel *o, const char *vn,
                                  int64_t g, int64_t *npaths) {
  const sdk_plotfile *pf = p->pf;
  char path[300];
  int nt = 1;
  int64_t tail[SDEKIT_MAX_RANK], nidx = 0;
  double *t = sdk_pf_block(pf, "paths/t", g, &nt, tail, p->err), *x = NULL, *idx = NULL;
  int64_t ns = t ? tail[0] : 0;
  snprintf(path, sizeof path, "paths/%s", vn);
  nt = 2;
  if (t) x = sdk_pf_block(pf, path, g, &nt, tail, p->err);
  sdekit_status e = x ? SDEKIT_OK : SDEKIT_ERR_FORMAT;
  if (e == SDEKIT_OK && tail[1] != ns)
    e = CLI_RAISE(p->err, SDEKIT_ERR_FORMAT,
                  "'%s': /%s and /paths/t disagree in the number of samples", pf->path, path);
  if (e == SDEKIT_OK && sdk_pf_has(pf, "paths/index"))
    idx = sdk_pf_1d(pf, "paths/index", &nidx, p->err);
  int64_t np = e == SDEKIT_OK ? tail[0] : 0;
  *npaths = np;
  double tlo = INFINITY, thi = -INFINITY;
  for (int64_t q = 0; q < np && q < SDK_FIG_MAX_SERIES; q++) {
    sdk_fig_series *s = sdk_fig_series_new(fig, o, ns, "xy");
    if (!s) break;
    s->color = (int)q;
    s->thin = 1;
    for (int64_t k = 0; k < ns; k++) {
      s->x[k] = t[k] * pf->tscale;
      s->y[k] = x[q * ns + k];
      tlo = fmin(tlo, s->x[k]);
      thi = fmax(thi, s->x[k]);
    }
    if (np <= 10) path_title(&s->title, idx, nidx, q);
  }
  o->key = np <= 10 && np > 0;
  if (tlo <= thi) {
    o->xset = 1;
    o->xlo = tlo;
    o->xhi = thi > tlo ? thi : tlo + 1;
  }
  o->xlog = pf->tlog && tlo > 0;
  sdk_lab_sym(&o->ylabel, vn);
  free(t);
  free(x);
  free(idx);
  return e;
}

sdekit_status sdk_pic_paths(sdk_plot *p) {
  const sdk_plotfile *pf = p->pf;
  sdekit_status e = SDEKIT_OK;
  int vi[SDK_PIC_MAX_PANELS], nv = 0;
  for (int k = 0, m = sdk_pic_vars(p, vi); k < m; k++)
    if (sdk_pf_has_f(pf, "paths/%s", pf->vars[vi[k]])) vi[nv++] = vi[k];
  if (nv == 0)
    return CLI_RAISE(p->err, SDEKIT_ERR_USAGE, "'%s' has no saved paths of %s", pf->path,
                     p->var ? p->var : "any variable");
  int64_t g = p->grid >= 0 ? p->grid : 0;
  sdk_figure fig;
  memset(&fig, 0, sizeof fig);
  int64_t np = 0;
  for (int k = 0; k < nv && e == SDEKIT_OK; k++) {
    sdk_fig_panel *o = sdk_fig_panel_new(&fig, SDK_FIG_LINES);
    sdk_fig_area(k, nv, SDK_FIG_RIGHT_PLAIN, SDK_FIG_GAP_SHARED, &o->left, &o->right, &o->bottom,
                 &o->top);
    /* one time axis, labelled below the lowest panel */
    o->xtics = k == nv - 1;
    if (o->xtics) sdk_pic_time_lab(&o->xlabel, pf);
    e = sdk_pic_paths_panel(p, &fig, o, pf->vars[vi[k]], g, &np);
    if (e == SDEKIT_OK && !o->xlog) o->xstep = sdk_pic_xstep(o, 8);
    if (e == SDEKIT_OK) o->ystep = sdk_pic_ystep(o, nv >= 3 ? 3 : nv == 2 ? 4 : 8);
  }
  if (e != SDEKIT_OK) {
    sdk_fig_free(&fig);
    return e;
  }
  sdk_label note = {0};
  sdk_pic_paths_note(&note, np);
  sdk_pic_title(&fig.title, &fig.subtitle, pf, g, &note);
  sdk_lab_free(&note);
  sdk_pic_place_keys(&fig);
  return sdk_pic_emit(p, &fig);
}

void sdk_pic_paths_note(sdk_label *l, int64_t np) {
  char buf[96];
  if (np > SDK_FIG_MAX_SERIES)
    snprintf(buf, sizeof buf, "the first %d of %lld saved sample paths", SDK_FIG_MAX_SERIES,
             (long long)np);
  else
    snprintf(buf, sizeof buf, "saved sample paths");
  sdk_lab_text(l, buf);
}
