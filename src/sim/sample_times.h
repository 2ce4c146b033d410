/* --sample-times (issue 28): the observables sample at the times given,
 * each a step boundary, instead of every sample_every steps.
 *
 *   LIST           t1,t2,...  increasing times >= 0 (0: the initial state)
 *   lin:A:B:N      N >= 2 evenly spaced times from A >= 0 to B
 *   log:A:B:N      N >= 2 log-spaced times from A > 0 to B
 *   lin:...:round, log:...:round   each time rounded to the nearest step
 *                  boundary (only when asked: two that round alike are
 *                  refused)
 *
 * lin and log values are rounded to 15 significant digits with the exact
 * end point, as a --scan's (sdk_scan_fill).  The step is never changed to
 * fit a time: a time that is not a whole number of steps (SDK_TIME_TOL) is
 * refused naming the nearest boundaries; where dt is free (no --dt nor
 * --spp) the plan chooses the largest dt up to the default of which every
 * time is a whole number of steps (sdk_sample_times_dt).  Without --t-end
 * (--periods) the run ends at the last time. */
#ifndef SDK_SAMPLE_TIMES_H
#define SDK_SAMPLE_TIMES_H

#include <stdint.h>

#include "core/error.h"

/* at most this many times (the sample axis of every observable) */
#define SDK_MAX_SAMPLE_TIMES 10000000
/* dt chosen for the times is at least (the last time) / this: below it
 * the times have no common step worth the name (and at 1/SDK_TIME_TOL steps
 * any time would pass for a whole number of them) */
#define SDK_SAMPLE_TIMES_MAX_UNITS 1e8

typedef struct sdk_sample_times {
  double *t;
  int64_t n;
  int round; /* :round, lin and log only */
  int log;   /* log: spacing (plots may use a log time axis) */
} sdk_sample_times;

/* Parse spec strictly (the messages name --sample-times); st->t owned. */
sdk_err sdk_sample_times_parse(const char *spec, sdk_sample_times *st, sdk_errbuf *eb);
void sdk_sample_times_free(sdk_sample_times *st);

/* The largest dt <= dmax of which every time of st and `also[0..nalso)`
 * (those > 0: the period, --t-end, --transient, named by also_what) is a whole number of steps, of
 * 2 dt with `even` (--dt-check); SDK_ERR_USAGE saying why none is where there is none
 * (incommensurate times: log spacing) and what to give instead. */
sdk_err sdk_sample_times_dt(const sdk_sample_times *st, const double *also, int nalso,
                            const char *also_what, double dmax, int even, double *dt,
                            sdk_errbuf *eb);

#endif
