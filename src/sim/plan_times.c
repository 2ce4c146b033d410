/* The plan's part of --sample-times (sim/sample_times.h): the step that
 * fits the times where dt is free, and the step of every time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/run_internal.h"

/* After the time step of every grid point (plan_dt): read the times and,
 * where neither --dt nor --spp is given, make the step the largest up to
 * the default of which every time is a whole number (the period too, on a
 * periodic model: dt = period / spp). */
sdk_err sdk_plan_sample_dt(const sdk_run_config *c, sdk_run *r, sdk_plan *p, sdk_errbuf *eb) {
  if (!c->sample_times) return SDK_OK;
  if (c->sample_every > 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "give --sample-times or --sample-every, not both");
  if (p->dt_column >= 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--sample-times: the period depends on a scanned parameter, so the step "
                    "differs between grid points and no time is a step boundary at all of them");
  sdk_sample_times *st = &p->times;
  SDK_CHECK(sdk_sample_times_parse(c->sample_times, st, eb));
  r->sample_times = st->t; /* (the results' copy: they outlive the plan) */
  st->t = NULL;
  const int periodic = r->model->period != NULL;
  if (c->dt > 0 || c->spp > 0 || st->round) return SDK_OK;
  double also[2] = {0, 0}, dt;
  int nalso = 0;
  if (periodic)
    also[nalso++] = p->period0;
  else {
    if (c->t_end > 0) also[nalso++] = c->t_end;
    if (c->transient > 0) also[nalso++] = c->transient;
  }
  sdk_sample_times tt = {.t = r->sample_times, .n = st->n};
  const char *what = periodic ? "the period" : "--t-end and --transient";
  SDK_CHECK(sdk_sample_times_dt(&tt, also, nalso, what, r->dt[0], c->dt_check, &dt, eb));
  if (periodic) {
    p->spp = (int64_t)floor(p->period0 / dt + 0.5);
    dt = p->period0 / (double)p->spp;
  }
  if (dt != r->dt[0]) p->dt_default = r->dt[0]; /* (said: plan.c plan_notices) */
  for (int64_t g = 0; g < p->ngrid; g++)
    r->dt[g] = dt;
  return SDK_OK;
}

/* "dt 0.01 (--dt)" for messages */
static const char *dt_origin(const sdk_run_config *c, const sdk_plan *p) {
  if (c->dt > 0) return p->spp > 0 ? "--dt, made period/spp" : "--dt";
  if (c->spp > 0) return "period/--spp";
  return p->times.round ? "the default" : "chosen for the sample times";
}

/* a time that is no step boundary: the nearest that are */
static sdk_err not_boundary(const sdk_run_config *c, const sdk_plan *p, int64_t i, double t,
                            double dt, sdk_errbuf *eb) {
  double x = t / dt, lo = floor(x), hi = ceil(x);
  return SDK_FAIL(eb, SDK_ERR_USAGE,
                  "--sample-times: time %lld, t = %.15g, is not a step boundary of dt %.15g "
                  "(%s): it is %.15g steps; the nearest boundaries are t = %.15g (step %.0f) and "
                  "t = %.15g (step %.0f); give times on step boundaries, another %s%s",
                  (long long)i + 1, t, dt, dt_origin(c, p), x, lo * dt, lo, hi * dt, hi,
                  c->spp > 0 ? "--spp" : "--dt",
                  c->sample_times && (!strncmp(c->sample_times, "lin:", 4) ||
                                      !strncmp(c->sample_times, "log:", 4))
                      ? ", or append :round to round each time to the nearest step"
                      : "");
}

/* After the steps of the run (plan_steps): the step of every time, within
 * the run, increasing; with --dt-check an even step (the path at 2 dt is
 * there only then). */
sdk_err sdk_plan_sample_steps(const sdk_run_config *c, sdk_run *r, sdk_plan *p, sdk_errbuf *eb) {
  /* The samples are the multiples of the interval up to the end: past it
   * t = 0 alone is sampled, a series of one point that says nothing of
   * why.  A note, not a refusal: a configuration reused with a shorter
   * --t-end (an API caller's) stays valid. */
  if (!c->sample_times && p->sampling && c->sample_every > p->nsteps && sdk_comm_rank(c->comm) == 0)
    sdk_log(c->logger, SDK_LOG_WARN,
            "sdekit: note: --sample-every %lld is more than the run's %lld steps: t = 0 is its "
            "only sample (give at most %lld, or a longer --t-end)\n",
            (long long)c->sample_every, (long long)p->nsteps, (long long)p->nsteps);
  if (!c->sample_times) return SDK_OK;
  const int64_t n = p->times.n;
  double *t = r->sample_times, dt = r->dt[0];
  if (!p->sampling)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--sample-times: none of the observables asked for samples (--observe drift, "
                    "hist and tavg are of the whole run): add one that does, e.g. --observe "
                    "moments, or --save-paths");
  for (int i = 0; i < p->nobs; i++)
    if ((p->obs[i].type->flags & SDK_OBS_SYSTEM_SUMS) && c->obs.order_every <= 0)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--sample-times: --observe %s samples every --order-every steps, its own "
                      "clock: give --order-every N",
                      p->obs[i].type->name);
  if (!(p->sample_steps = malloc((size_t)n * sizeof(int64_t))))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int64_t i = 0; i < n; i++) {
    double x = t[i] / dt, k = floor(x + 0.5);
    if (k > (double)p->nsteps)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--sample-times: time %lld, t = %.15g, is after the end of the run (t_end = "
                      "%.15g, %lld steps): give a later --t-end%s, or leave it out (the run then "
                      "ends at the last time)",
                      (long long)i + 1, t[i], (double)p->nsteps * dt, (long long)p->nsteps,
                      p->spp > 0 ? " or more --periods" : "");
    if (!p->times.round && fabs(x - k) > SDK_TIME_TOL * x)
      return not_boundary(c, p, i, t[i], dt, eb);
    if (p->times.round && t[i] > 0 && k < 1)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--sample-times: time %lld, t = %.15g, rounds to t = 0 (less than half a "
                      "step of dt %.15g): give a later first time or a smaller --dt",
                      (long long)i + 1, t[i], dt);
    p->sample_steps[i] = (int64_t)k;
    if (i > 0 && p->sample_steps[i] == p->sample_steps[i - 1])
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--sample-times: times %lld and %lld (t = %.15g and %.15g) round to the same "
                      "step %lld of dt %.15g: give fewer times or a smaller --dt",
                      (long long)i, (long long)i + 1, t[i - 1], t[i], (long long)k, dt);
    if (c->dt_check && p->sample_steps[i] % 2)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--dt-check: sample time %lld, t = %.15g, is an odd number of steps (%lld) "
                      "of dt %.15g: the path at 2 dt is there only after an even number of steps; "
                      "give times on even steps, or leave --dt out to have it chosen",
                      (long long)i + 1, t[i], (long long)k, dt);
    if (p->times.round) t[i] = (double)p->sample_steps[i] * dt;
  }
  p->sample_every = 0;
  r->r.sample_times = t;
  r->r.nsample_times = n;
  r->r.sample_spacing = p->times.log                           ? "log"
                        : !strncmp(c->sample_times, "lin:", 4) ? "lin"
                                                               : "list";
  return SDK_OK;
}
