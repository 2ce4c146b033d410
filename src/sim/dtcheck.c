/* --dt-check in the plan: what it refuses, and the observables' view of it
 * (codegen/codegen.h: the coupled coarse path; observe/bias.h: the bias). */
#include "codegen/codegen.h"
#include "codegen/events.h"
#include "sim/registry.h"
#include "sim/run_internal.h"

/* a number of fine steps the coarse path must also end on */
static sdk_err even(int64_t n, const char *what, const char *option, sdk_errbuf *eb) {
  if (n % 2 == 0) return SDK_OK;
  return SDK_FAIL(eb, SDK_ERR_USAGE,
                  "--dt-check: %s is %lld steps, an odd number: the path at 2 dt is only where "
                  "the path at dt is after an even number of steps; change %s",
                  what, (long long)n, option);
}

static int has_weak_order(const sdk_scheme_type *s) {
  return s->weak_order >= 1;
}

sdk_err sdk_plan_dt_check(sdk_plan *p, sdk_errbuf *eb) {
  const sdk_run_config *c = p->c;
  const sdk_model *m = p->run->model;
  if (c->extrapolate && !c->dt_check)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--extrapolate needs --dt-check (the bias it takes off is measured by it)");
  if (!c->dt_check) return SDK_OK;
  const sdk_scheme_type *s = p->scheme;
  char does[256];
  if (s->weak_order < 1)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--dt-check: scheme %s declares no weak order (the Richardson estimate "
                    "divides by 2^p - 1); use a scheme that does (%s)",
                    s->name,
                    sdk_registry_scheme_list(does, sizeof does, has_weak_order, ", ", ", "));
  if (p->sys.on)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--dt-check: model '%s' is run as systems of interacting particles "
                    "(--particles): the coupled path at 2 dt is made for independent paths only",
                    m->name);
  if (m->nevent > 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--dt-check: model '%s' has [events]: a reset is not a function of the "
                    "coarse path's steps, which could not share it; run without --dt-check",
                    m->name);
  if (m->ncolored + m->nlevy > 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--dt-check: model '%s' has [colored] or [levy] noise: the coarse path at 2 dt "
                    "could not share it (a coloured noise moves after the steps; stable increments "
                    "do not add as Gaussian ones); run without --dt-check",
                    m->name);
  if (sdk_cg_has_events(m))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--dt-check: model '%s' has [jumps] or [dichotomous] events: their times do "
                    "not fall on the coarse path's steps, which could not share them; run without "
                    "--dt-check",
                    m->name);
  /* With [boundaries] the coarse path has its own boundary rows
   * (codegen.h dtc_bound), so first passage gets its bias (obs_fpt.c, of
   * order 1 with the bridge correction, 1/2 without); the other values of a
   * reflected or stopped path have no such known order: refused. */
  for (int i = 0; m->nbound > 0 && i < p->nobs; i++)
    if (!(p->obs[i].type->flags & SDK_OBS_BOUNDARIES))
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--dt-check: model '%s' has [boundaries]: the time-step bias of --observe "
                      "%s is not of the scheme's weak order for reflected or absorbed paths; with "
                      "[boundaries] --dt-check measures the first-passage values: --observe fpt",
                      m->name, p->obs[i].type->name);
  SDK_CHECK(even(p->nsteps, "the run", "--t-end (or --dt, --periods, --spp)", eb));
  SDK_CHECK(even(p->transient_steps, "the transient", "--transient (or --transient-periods)", eb));
  for (int i = 0; i < p->nobs; i++)
    if (!(p->obs[i].type->flags & SDK_OBS_BIAS))
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--dt-check: --observe %s has no value whose time-step bias it measures "
                      "(it does for moments, expr, drift and tavg): leave %s out of --observe",
                      p->obs[i].type->name, p->obs[i].type->name);
  /* the default interval (a period, 1/100 of the run) rounded up to even */
  if (c->sample_every == 0 && p->sample_every % 2) {
    p->sample_every++;
    if (sdk_comm_rank(c->comm) == 0)
      sdk_log(c->logger, SDK_LOG_WARN,
              "sdekit: note: --dt-check: the default sample interval is rounded up to %lld "
              "steps (the path at 2 dt is there after an even number of steps)\n",
              (long long)p->sample_every);
  }
  if (p->sampling) SDK_CHECK(even(p->sample_every, "the sample interval", "--sample-every", eb));
  p->octx.dt_check = 1;
  p->octx.weak_order = s->weak_order;
  p->octx.extrapolate = c->extrapolate;
  p->octx.bridge = !c->no_bridge_correction;
  return SDK_OK;
}

void sdk_plan_dt_check_rows(sdk_plan *p, const sdk_codegen_opts *o) {
  if (!o->dt_check) return;
  sdk_cg_row_layout l;
  sdk_cg_rows(o, &l);
  /* (sdk_paths_rows counts the drift mark as row nvars) */
  p->octx.nobs_eval = p->paths.nobs_eval = sdk_cg_nobs_eval(o);
  p->octx.dtc_row = l.dtc + 1;
  p->octx.dtc_tavg_row = l.dtc_tavg >= 0 ? l.dtc_tavg + 1 : -1;
  p->octx.dtc_bound_row = l.dtc_bound >= 0 ? l.dtc_bound + 1 : -1;
}
