/* The progress of a run over windows of paths (sim/window_progress.h). */
#include "sim/window_progress.h"

/* A window's fraction f of its steps is f of its work: every path of a
 * window takes the same steps.  Below 1 until the driver ends (a caller's bar
 * closes at 1, and a later check may find more work). */
static void window_hook(void *user, double f, double sps) {
  sdk_window_progress *w = user;
  w->sps = sps;
  if (!w->on || !(w->total > 0)) return;
  double frac = (w->done + f * w->cur) / w->total;
  if (frac > 0.999) frac = 0.999;
  if (frac < 0) frac = 0;
  w->fn(w->user, frac, sps);
}

void sdk_window_progress_attach(sdk_window_progress *w, sdk_run_config *c) {
  if (!w->fn) {
    c->progress = NULL;
    return;
  }
  c->progress = window_hook;
  c->progress_user = w;
}

void sdk_window_progress_end(sdk_window_progress *w) {
  if (w->fn) w->fn(w->user, 1.0, w->sps);
}
