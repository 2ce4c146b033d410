/* sdekit bench's timing of the backend's advance alone (sim/run.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "sim/run_internal.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* `repeats` timed launches of nsteps steps into t[] (seconds) */
static sdk_err time_launches(const sdk_plan *p, int64_t nsteps, int repeats, double *t,
                             sdk_bench_timing *out, sdk_errbuf *eb) {
  const sdk_backend *be = p->be;
  sdk_ensemble *ens = p->shards[0].ens;
  uint64_t seed = p->c->seed;
  /* warm-up: first-touch of memory, module load, clocks */
  SDK_CHECK(be->advance(ens, 0, nsteps / 10 > 0 ? nsteps / 10 : 1, seed, eb));
  SDK_CHECK(be->minmax(ens, 0, &out->check_lo, &out->check_hi, eb)); /* synchronises */
  int64_t step = nsteps;
  for (int i = 0; i < repeats; i++) {
    double t0 = sdk_now_s();
    SDK_CHECK(be->advance(ens, step, nsteps, seed, eb));
    double ms = be->last_advance_ms ? be->last_advance_ms(ens) : -1;
    if (ms >= 0) { /* device timers (CUDA events) */
      t[i] = ms * 1e-3;
    } else {
      double lo, hi;
      SDK_CHECK(be->minmax(ens, 0, &lo, &hi, eb)); /* waits for the device */
      t[i] = sdk_now_s() - t0;
    }
    step += nsteps;
  }
  return SDK_OK;
}

sdk_err sdk_run_time_advance(const sdk_run_config *c, int64_t nsteps, int repeats,
                             sdk_bench_timing *out, sdk_errbuf *eb) {
  memset(out, 0, sizeof *out);
  if (repeats < 1) repeats = 1;
  double *t = calloc((size_t)repeats, sizeof(double));
  sdk_run *r = calloc(1, sizeof *r);
  sdk_plan p;
  memset(&p, 0, sizeof p);
  sdk_err err = !t || !r ? SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory") : SDK_OK;
  if (err == SDK_OK) err = sdk_plan_make(c, r, &p, eb);
  if (err == SDK_OK) err = sdk_program_make(&p, eb);
  if (err == SDK_OK) {
    snprintf(out->device, sizeof out->device, "%s", r->device);
    err = time_launches(&p, nsteps, repeats, t, out, eb);
  }
  if (err == SDK_OK) {
    qsort(t, (size_t)repeats, sizeof *t, cmp_double);
    out->median_s = t[repeats / 2];
    out->min_s = t[0];
    out->max_s = t[repeats - 1];
    out->path_steps = (double)nsteps * (double)(p.ngrid * p.ppg);
  }
  free(t);
  sdk_plan_free(&p);
  sdk_run_destroy(&r);
  return err;
}
