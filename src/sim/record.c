/* The record stage: the observables' sample axes cut to the samples taken,
 * their final computations, and grid points whose paths blew up
 * (sim/run_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "sim/run_internal.h"

/* Grid points whose paths blew up: every statistic of theirs becomes NaN (a
 * partial number would look right), their count of non-finite paths goes to
 * R->nonfinite and a message naming them to r->problem. */
static sdk_err mark_bad_points(sdk_plan *p, sdk_errbuf *eb) {
  sdk_run *r = p->run;
  sdk_results *R = &r->r;
  int64_t ng = R->ngrid, nbad = 0;
  for (int64_t g = 0; g < ng; g++)
    nbad += p->bad[g] > 0;
  if (!nbad) return SDK_OK;
  if (!(R->nonfinite = malloc((size_t)ng * sizeof *R->nonfinite)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_strbuf m;
  sdk_sb_init(&m);
  int64_t listed = 0;
  for (int64_t g = 0; g < ng; g++) {
    R->nonfinite[g] = p->bad[g];
    if (!p->bad[g]) continue;
    sdk_store_nan_grid_point(&R->store, ng, g);
    if (listed++ < 3) {
      char gp[300];
      sdk_grid_point_name(R, g, gp, sizeof gp);
      sdk_sb_printf(&m, "%s%lld of %lld paths became NaN/Inf at %s by step %lld (t = %g)",
                    listed > 1 ? "; " : "", (long long)p->bad[g],
                    (long long)sdk_paths_used(&p->paths, g), gp, (long long)p->bad_step[g],
                    (double)p->bad_step[g] * R->dt[g]);
    }
  }
  if (listed > 3) sdk_sb_printf(&m, "; and %lld more grid points", (long long)(listed - 3));
  sdk_sb_printf(&m,
                "; %s written as NaN with the count of non-finite paths, the other %lld of %lld "
                "grid points are complete; %s may help",
                nbad > 1 ? "these are" : "it is", (long long)(ng - nbad), (long long)ng,
                sdk_plan_smaller_step(p));
  snprintf(r->problem, sizeof r->problem, "%s", m.s && !m.oom ? m.s : "paths became NaN/Inf");
  sdk_sb_free(&m);
  return SDK_OK;
}

/* A window of the paths with a carry (run.h): the blown-up paths of the
 * earlier windows count with this one's; the carry takes this window's
 * paths and tally.  The paths each grid point's results stand for go to
 * `paths_used` [grid...], and the results' paths to the most of them. */
static sdk_err carry_window(sdk_plan *p, sdk_errbuf *eb) {
  const sdk_run_config *c = p->c;
  sdk_results *R = &p->run->r;
  int64_t *used = c->carry ? sdk_carry_used(c->carry) : NULL;
  int64_t *bad = c->carry ? sdk_carry_bad(c->carry) : NULL;
  int64_t *bad_step = c->carry ? sdk_carry_bad_step(c->carry) : NULL;
  sdk_obs_ctx oc = p->octx;
  sdk_dataset *d;
  SDK_CHECK(sdk_obs_dataset(&oc, "paths_used", SDK_I64, 0, NULL, -1, 0, &d, eb));
  R->paths = 0;
  for (int64_t g = 0; g < p->ngrid; g++) {
    int64_t n = sdk_paths_used(&p->paths, g);
    if (bad && bad[g] > 0) {
      if (!p->bad[g]) p->bad_step[g] = bad_step[g];
      p->bad[g] += bad[g];
    }
    if (used) used[g] = n, bad[g] = p->bad[g], bad_step[g] = p->bad_step[g];
    sdk_ds_i64(d)[g] = n;
    if (n > R->paths) R->paths = n;
  }
  return SDK_OK;
}

sdk_err sdk_record(sdk_plan *p, sdk_errbuf *eb) {
  sdk_store *S = &p->run->r.store;
  if (p->c->carry && p->c->window) sdk_carry_step(p->c->carry, p->nsteps);
  for (int i = 0; i < p->nobs; i++) {
    char prefix[80];
    snprintf(prefix, sizeof prefix, "%s/", p->obs[i].type->name);
    sdk_store_trim(S, prefix, p->obs[i].nsamples);
  }
  for (int i = 0; i < p->nobs; i++)
    if (p->obs[i].type->finish) SDK_CHECK(p->obs[i].type->finish(&p->octx, p->obs[i].state, eb));
  if (p->c->window) SDK_CHECK(carry_window(p, eb));
  SDK_CHECK(sdk_record_final(p, eb));
  return mark_bad_points(p, eb);
}
