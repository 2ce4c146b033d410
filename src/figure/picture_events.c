/* The events picture (--observe events): at one grid point (no scan, or
 * --grid) the distribution of the intervals between events, one colour per
 * event, as a density (the counts of events/hist divided by the intervals
 * and the bin widths: its bins widen two per octave, codegen/resets.c), up
 * to the last bin any event reached; in a scan the mean interval per event
 * against the scanned parameter with error bars, and the rate. */
#include <stdlib.h>
#include <string.h>

#include "figure/picture.h"

int sdk_pic_has_events(const sdk_plotfile *pf) {
  return sdk_pf_has(pf, "events/interval_mean");
}

/* the histograms as densities over the edges events/hist_edges */
static sdekit_status hist_panel(sdk_plot *p, sdk_pic_fig *fig, const sdk_pic_names *en) {
  const sdk_plotfile *pf = p->pf;
  int shared, nt = -1;
  int64_t ne, tail[SDEKIT_MAX_RANK];
  const double *edges = sdk_pic_fig_times(p, fig, "events/hist_edges", &shared, &ne);
  if (!edges) return SDEKIT_ERR_FORMAT;
  double *h = sdk_pic_fig_read(p, fig, "events/hist", &nt, tail);
  if (!h) return SDEKIT_ERR_FORMAT;
  if (nt != 2 || tail[1] + 1 != ne)
    return CLI_RAISE(p->err, SDEKIT_ERR_FORMAT,
                     "'%s': /events/hist is not [grid..., events, bins] over /events/hist_edges",
                     pf->path);
  int64_t nev = tail[0], nb = tail[1], used = 1;
  for (int64_t g = 0; g < pf->ngrid; g++) {
    const double *e = shared ? edges : edges + g * ne;
    for (int64_t k = 0; k < nev; k++) {
      double *v = h + (g * nev + k) * nb, n = 0;
      for (int64_t b = 0; b < nb; b++)
        n += v[b];
      for (int64_t b = 0; b < nb; b++) {
        if (v[b] > 0 && b + 1 > used) used = b + 1;
        v[b] = n > 0 && e[b + 1] > e[b] ? v[b] / (n * (e[b + 1] - e[b])) : 0;
      }
    }
  }
  sdk_pic_panel *pn = sdk_pic_fig_panel(fig, SDK_PANEL_HIST);
  if (!pn) return SDEKIT_OK;
  for (int64_t k = 0; k < nev; k++) {
    sdk_pic_line *l = sdk_pic_panel_line(pn);
    if (!l) break;
    l->v = h;
    l->gstride = nev * nb;
    l->sstride = 1;
    l->off = k * nb;
    sdk_pic_name_label(&l->label, en, (int)k, "event");
  }
  pn->x = edges; /* [nb + 1], or [grid][nb + 1] */
  pn->xshared = shared;
  pn->nx = used;
  sdk_lab_text(&pn->xlab, "interval between events");
  sdk_lab_text(&pn->ylab, "probability density");
  return SDEKIT_OK;
}

sdekit_status sdk_pic_events(sdk_plot *p) {
  const sdk_plotfile *pf = p->pf;
  if (p->stat == SDK_PIC_STAT_VARIANCE)
    return sdk_pic_no_variance(p, "events",
                               "counts, rates, mean intervals with their standard errors and "
                               "interval histograms");
  sdk_pic_names en;
  sdk_pic_read_names(pf, "events", "events", &en);
  sdk_pic_fig fig;
  memset(&fig, 0, sizeof fig);
  sdekit_status e = SDEKIT_OK;
  if (sdk_pic_over_time(p)) {
    if (sdk_pf_has(pf, "events/hist") && sdk_pf_has(pf, "events/hist_edges"))
      e = hist_panel(p, &fig, &en);
  } else {
    e = sdk_pic_per_name(p, &fig, SDK_PANEL_SCAN, "events/interval_mean",
                         "events/interval_mean_err", &en, "event", "mean interval", NULL, NULL);
    if (e == SDEKIT_OK && pf->nscan == 1 && sdk_pf_has(pf, "events/rate"))
      e = sdk_pic_per_name(p, &fig, SDK_PANEL_SCAN, "events/rate", "events/rate_err", &en, "event",
                           "rate", NULL, NULL);
  }
  if (e == SDEKIT_OK) e = sdk_pic_fig_draw(p, &fig, sdk_pic_time_grid(p), NULL);
  sdk_pic_fig_free(&fig);
  return e;
}
