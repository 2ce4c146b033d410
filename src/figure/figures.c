/* The figures of a result file (figure/figures.h): the table of pictures,
 * which of them a file holds, their descriptions as JSON, and the public
 * API's sdekit_figure_describe. */
#include "figure/figures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every picture, in the order they are drawn and listed. */
static const sdk_picture PICTURES[] = {
    {"drift", "<<v>> against the scanned parameter (a heat map for two scan axes)",
     sdk_pic_has_drift, sdk_pic_drift, NULL, 0},
    {"moments", "mean with bands of +- s.d. and +- s.e. over time, per variable",
     sdk_pic_has_moments, sdk_pic_moments, NULL, 1},
    {"expr", "user observables over time with s.e. bands; in a scan their last values",
     sdk_pic_has_expr, sdk_pic_expr, NULL, 0},
    {"cov", "covariance entries over time with s.e. bands; in a scan their last values",
     sdk_pic_has_cov, sdk_pic_cov, NULL, 1},
    {"diffusion", "D_eff(t) with its s.e. band; in a scan the long-time value",
     sdk_pic_has_diffusion, sdk_pic_diffusion, NULL, 0},
    {"fpt", "first-passage time histograms, survival S(t), splitting probabilities",
     sdk_pic_has_fpt, sdk_pic_fpt, NULL, 0},
    {"tavg", "time averages with error bars against the scanned parameter", sdk_pic_has_tavg,
     sdk_pic_tavg, NULL, 0},
    {"hist", "the final distribution, per variable", sdk_pic_has_hist, sdk_pic_hist, NULL, 0},
    {"density", "P(x, t) as a heat map (log colour scale), saved sample paths on top",
     sdk_pic_has_density, sdk_pic_density, NULL, 0},
    {"paths", "the saved sample paths over time", sdk_pic_has_paths, sdk_pic_paths, "density", 0},
    {"order", "the order parameter r(t) and the mean phase psi(t)", sdk_pic_has_order,
     sdk_pic_order, NULL, 0},
    {"acf", "autocovariance against the lag with s.e. bands, per variable", sdk_pic_has_acf,
     sdk_pic_acf, NULL, 0},
    {"psd", "power spectral density with s.e. bands on log-log axes, per variable", sdk_pic_has_psd,
     sdk_pic_psd, NULL, 0},
    {"events", "interval histograms between events; in a scan mean intervals and rates",
     sdk_pic_has_events, sdk_pic_events, NULL, 0},
};
#define NPIC ((int)(sizeof PICTURES / sizeof PICTURES[0]))
_Static_assert(sizeof PICTURES / sizeof PICTURES[0] <= SDK_FIGS_MAX, "SDK_FIGS_MAX too small");

/* --show NAME: not one of the pictures drawn by default (index NPIC). */
static int never(const sdk_plotfile *pf) {
  (void)pf;
  return 0;
}
static const sdk_picture SHOW = {"show", "", never, sdk_pic_show, NULL, 1};

int sdk_figs_count(void) {
  return NPIC;
}

const sdk_picture *sdk_figs_at(int k) {
  return k < NPIC ? &PICTURES[k] : &SHOW;
}

/* The picture called name, or -1. */
int sdk_figs_index(const char *name) {
  for (int k = 0; k < NPIC; k++)
    if (!strcmp(name, PICTURES[k].name)) return k;
  return -1;
}

/* The pictures' names: "drift, moments, ..." with `last` before the last. */
void sdk_figs_names(sdk_strbuf *b, const char *last) {
  for (int k = 0; k < NPIC; k++)
    sdk_sb_printf(b, "%s%s", k == 0 ? "" : k == NPIC - 1 ? last : ", ", PICTURES[k].name);
}

sdekit_status sdk_figs_check(const sdk_plotfile *pf, const sdekit_figure_options *pa,
                             sdekit_error *err) {
  if (pa->observable && sdk_figs_index(pa->observable) < 0) {
    sdk_strbuf names;
    sdk_sb_init(&names);
    sdk_figs_names(&names, " or ");
    sdekit_status e = CLI_RAISE(err, SDEKIT_ERR_USAGE, "observable '%s': expected %s",
                                pa->observable, names.s ? names.s : "");
    sdk_sb_free(&names);
    return e;
  }
  if (pa->var) {
    int found = 0;
    for (long v = 0; v < pf->nq; v++) /* a variable or a user observable */
      found |= !strcmp(pa->var, pf->qnames[v]);
    if (!found)
      return CLI_RAISE(err, SDEKIT_ERR_USAGE, "--var '%s': '%s' has no such variable", pa->var,
                       pf->path);
  }
  if (pa->grid >= pf->ngrid)
    return CLI_RAISE(err, SDEKIT_ERR_USAGE, "--grid %lld: '%s' has %lld grid point%s (0 .. %lld)",
                     (long long)pa->grid, pf->path, (long long)pf->ngrid, pf->ngrid == 1 ? "" : "s",
                     (long long)(pf->ngrid - 1));
  return SDEKIT_OK;
}

sdekit_status sdk_figs_choose(const sdk_plotfile *pf, const sdekit_figure_options *pa, int *todo,
                              int *ntodo, sdekit_error *err) {
  char held[160] = "";
  int want = pa->observable ? sdk_figs_index(pa->observable) : -1;
  *ntodo = 0;
  if (pa->show) {
    todo[(*ntodo)++] = NPIC;
    return sdk_pic_show_check(pf, pa->show, err);
  }
  /* --stat variance without --observable: the pictures that have a variance */
  int only_var = pa->stat == SDK_PIC_STAT_VARIANCE && want < 0, skipped = 0;
  for (int k = 0; k < NPIC; k++)
    if (PICTURES[k].present(pf)) {
      snprintf(held + strlen(held), sizeof held - strlen(held), "%s%s", held[0] ? ", " : "",
               PICTURES[k].name);
      int on = PICTURES[k].on ? sdk_figs_index(PICTURES[k].on) : -1;
      if (want < 0 && on >= 0 && PICTURES[on].present(pf)) continue;
      if (only_var && !PICTURES[k].variance) {
        skipped++;
        continue;
      }
      if (want < 0 || want == k) todo[(*ntodo)++] = k;
    }
  if (*ntodo > 0) return SDEKIT_OK;
  if (want >= 0)
    return CLI_RAISE(err, SDEKIT_ERR_USAGE, "'%s' has no %s results (it holds: %s)", pf->path,
                     PICTURES[want].name, held[0] ? held : "nothing to plot");
  if (skipped)
    return CLI_RAISE(err, SDEKIT_ERR_USAGE,
                     "--stat variance: '%s' holds no results with a variance (it holds: %s; the "
                     "variance is held by moments and cov)",
                     pf->path, held);
  return CLI_RAISE(err, SDEKIT_ERR_USAGE, "'%s' holds no results to plot", pf->path);
}

/* A panel with no finite value (a variance of one path is NaN) drawn empty
 * on fixed ranges: a renderer cannot scale an axis to no points. */
static void empty_panels(sdk_figure *fig) {
  for (int k = 0; k < fig->npanels; k++) {
    sdk_fig_panel *o = &fig->p[k];
    double xl = INFINITY, xh = -INFINITY;
    int finite = 0;
    for (int q = 0; q < o->nseries; q++)
      for (int64_t i = 0; i < o->s[q].n; i++) {
        finite |= isfinite(o->s[q].y[i]) != 0;
        if (isfinite(o->s[q].x[i])) xl = fmin(xl, o->s[q].x[i]), xh = fmax(xh, o->s[q].x[i]);
      }
    if (finite || o->kind == SDK_FIG_MAP) continue;
    if (!o->yset || !(o->yhi > o->ylo)) o->yset = 1, o->ylo = -1, o->yhi = 1, o->ylog = 0;
    if (!o->xset || !(o->xhi > o->xlo))
      o->xset = 1, o->xlo = xh > xl ? xl : 0, o->xhi = xh > xl ? xh : 1, o->xlog = 0;
  }
}

sdekit_status sdk_figs_describe(const sdk_plotfile *pf, const sdekit_figure_options *o, int k,
                                sdk_figure *fig, sdekit_error *err) {
  memset(fig, 0, sizeof *fig);
  fig->name = sdk_figs_at(k)->name;
  sdk_plot p = {.pf = pf,
                .grid = o->grid,
                .var = o->var,
                .stat = o->stat,
                .show = o->show,
                .log = o->log,
                .spec = fig,
                .err = err};
  sdekit_status e = sdk_figs_at(k)->draw(&p);
  if (e == SDEKIT_OK && fig->npanels == 0)
    e = CLI_RAISE(err, SDEKIT_ERR_INTERNAL, "the %s picture described no panel", fig->name);
  if (e == SDEKIT_OK) empty_panels(fig);
  return e;
}

sdekit_status sdk_figs_json(const sdk_plotfile *pf, const sdekit_figure_options *o, const int *todo,
                            int ntodo, sdk_strbuf *b, sdekit_error *err) {
  sdk_sb_puts(b, "{\"file\": ");
  sdk_fig_json_str(b, pf->path);
  sdk_sb_puts(b, ", \"figures\": [");
  sdekit_status e = SDEKIT_OK;
  for (int k = 0; k < ntodo && e == SDEKIT_OK; k++) {
    sdk_figure fig;
    if (k) sdk_sb_puts(b, ",\n");
    e = sdk_figs_describe(pf, o, todo[k], &fig, err);
    if (e == SDEKIT_OK) sdk_fig_json(b, &fig);
    sdk_fig_free(&fig);
  }
  sdk_sb_puts(b, "]}\n");
  if (e == SDEKIT_OK && b->oom) e = CLI_RAISE(err, SDEKIT_ERR_NOMEM, "out of memory");
  return e;
}

sdekit_status sdekit_figure_describe(const sdekit_result *r, const char *name,
                                     const sdekit_figure_options *opts, char **json,
                                     sdekit_error *err) {
  static const sdekit_figure_options none = {.grid = -1};
  const sdekit_figure_options *o = opts ? opts : &none;
  if (err) memset(err, 0, sizeof *err);
  if (!json || !r)
    return CLI_RAISE(err, SDEKIT_ERR_USAGE, "sdekit_figure_describe: r and json are required");
  *json = NULL;
  sdk_plotfile pf;
  int todo[NPIC + 1], ntodo = 0;
  sdk_strbuf b;
  sdk_sb_init(&b);
  memset(&pf, 0, sizeof pf);
  sdekit_status e = sdk_pf_attach(&pf, name ? name : "results", r, err);
  if (e == SDEKIT_OK) e = sdk_figs_check(&pf, o, err);
  if (e == SDEKIT_OK) e = sdk_figs_choose(&pf, o, todo, &ntodo, err);
  if (e == SDEKIT_OK) e = sdk_figs_json(&pf, o, todo, ntodo, &b, err);
  if (e == SDEKIT_OK && !(*json = sdk_sb_take(&b)))
    e = CLI_RAISE(err, SDEKIT_ERR_NOMEM, "out of memory");
  sdk_sb_free(&b);
  sdk_pf_close(&pf);
  return e;
}
