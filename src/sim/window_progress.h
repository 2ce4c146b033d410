/* The progress of a run over windows of paths (--target-se batches,
 * --mlmc and --target-error rounds): each window is a run of its own whose
 * hook reports the fraction of its steps; the caller wants the fraction of
 * the whole run's work.  That whole is not known in advance: the driver's
 * estimate after each check (the paths the standard errors predict, the
 * round its statistics plan), so the fraction reported may go back when a
 * check finds more work.  Internal to sim/. */
#ifndef SDK_SIM_WINDOW_PROGRESS_H
#define SDK_SIM_WINDOW_PROGRESS_H

#include "sim/run.h"

typedef struct sdk_window_progress {
  void (*fn)(void *user, double frac, double steps_per_s); /* the caller's hook */
  void *user;
  int on;       /* an estimate of the whole exists (none before the first check) */
  double done;  /* work of the windows run so far (any unit: path-steps, paths) */
  double cur;   /* of the window now running */
  double total; /* the estimate of the whole run's */
  double sps;   /* the last rate reported */
} sdk_window_progress;

/* c's hook in w, and c's replaced by the window's (NULL where c has none). */
void sdk_window_progress_attach(sdk_window_progress *w, sdk_run_config *c);
/* the driver's end: 1 (the caller's bar closes) */
void sdk_window_progress_end(sdk_window_progress *w);

#endif
