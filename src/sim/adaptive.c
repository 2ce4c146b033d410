/* --adaptive in the plan (issue 30): the options' checks, the levels of
 * the dyadic sub-steps, and the refusals of what the adaptive steps cannot
 * integrate (the generator's, codegen/adaptive.c, asked here so that a run
 * stops before it starts).  The run's time grid has the step dt-max (the
 * base interval of the Brownian tree, rng/btree.h); a step n of it is taken
 * as sub-steps dt-max 2^-l, l in [lev0, levmax]: lev0 the first try (--dt,
 * rounded down to such a step), levmax that of --dt-min (rounded up). */
#include <math.h>

#include "codegen/adaptive.h"
#include "rng/btree.h"
#include "sim/run_internal.h"

/* 1e-12: a step given as dt-max 2^-l in decimal is that level */
#define LEVEL_TOL 1e-12

/* the level of the largest dyadic step dt 2^-l at most h */
static int level_below(double dt, double h) {
  int l = 0;
  while (l < 64 && ldexp(dt, -l) > h * (1 + LEVEL_TOL))
    l++;
  return l;
}

static void levels(const sdk_plan *p, int *lev0, int *levmax) {
  const sdk_run_config *c = p->c;
  const double dt = p->run->dt[0];
  *lev0 = c->dt > 0 ? level_below(dt, c->dt) : 0;
  *levmax = SDK_BTREE_DEPTH;
  if (c->dt_min > 0) { /* the deepest level whose step is at least dt-min */
    int l = level_below(dt, c->dt_min);
    *levmax = ldexp(dt, -l) < c->dt_min * (1 - LEVEL_TOL) ? l - 1 : l;
  }
}

void sdk_plan_adaptive_opts(const sdk_plan *p, sdk_codegen_opts *o) {
  const sdk_run_config *c = p->c;
  o->adaptive = c->adaptive;
  if (!c->adaptive) return;
  levels(p, &o->adapt_lev0, &o->adapt_levmax);
  /* (a path takes few sub-steps per step of dt: the state's update is not
   * compensated, so that a rejected sub-step has only the state to undo) */
  o->compensate = o->comp_defer = 0;
  o->rtol = c->rtol > 0 ? c->rtol : 1e-3;
  o->atol = c->atol > 0 ? c->atol : 1e-6;
}

sdk_err sdk_adaptive_config(const sdk_run_config *c, sdk_errbuf *eb) {
  if (!c->adaptive) {
    if (c->rtol > 0 || c->atol > 0 || c->dt_min > 0 || c->dt_max > 0)
      return SDK_FAIL(eb, SDK_ERR_USAGE, "--rtol, --atol, --dt-min and --dt-max need --adaptive");
    return SDK_OK;
  }
  const char *other = c->mlmc > 0                             ? "--mlmc"
                      : c->target_error > 0                   ? "--target-error"
                      : c->target_se > 0 || c->target_rse > 0 ? "--target-se/--target-rse"
                      : c->dt_check                           ? "--dt-check"
                      : c->window                             ? "windows of paths"
                                                              : NULL;
  if (other)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--adaptive cannot be combined with %s (yet)", other);
  return SDK_OK;
}

sdk_err sdk_plan_adaptive(sdk_plan *p, sdk_errbuf *eb) {
  const sdk_run_config *c = p->c;
  SDK_CHECK(sdk_adaptive_config(c, eb));
  if (!c->adaptive) return SDK_OK;
  if (p->run->model->period && c->dt_max > 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--adaptive on model '%s' (periodic): its largest step is period / N, given "
                    "as --spp N, not --dt-max",
                    p->run->model->name);
  const double dt = p->run->dt[0], finest = ldexp(dt, -SDK_BTREE_DEPTH);
  if (c->dt_max > 0 && dt != c->dt_max) /* (--sample-times chose another time grid) */
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--dt-max %.15g: the --sample-times are not whole steps of it (dt-max "
                    "%.15g would be)",
                    c->dt_max, dt);
  if (c->dt_max > 0 && c->dt > c->dt_max)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--dt %.15g (the first try) is larger than --dt-max %.15g",
                    c->dt, c->dt_max);
  if (c->dt_min > 0 && c->dt_min > dt)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--dt-min %.15g is larger than the largest step, %s %.15g",
                    c->dt_min,
                    c->dt_max > 0           ? "--dt-max"
                    : p->run->model->period ? "the period / --spp"
                                            : "dt-max (--dt-max, else --dt)",
                    dt);
  /* (a tolerance below what the precision resolves is never met: every
   * sub-step went down to dt-min, 2^24 of them a step, for minutes) */
  const double floor_rtol = 16 * (c->single ? 0x1p-23 : 0x1p-52);
  if (c->rtol > 0 && c->rtol < floor_rtol)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--rtol %g is below what %s precision resolves (16 x its epsilon, %.3g)%s",
                    c->rtol, c->single ? "single" : "double", floor_rtol,
                    c->single ? ": give --precision double or a larger --rtol" : "");
  /* (the sub-steps shrink near an absorbing level by the bridge's crossing
   * probability: without the bridge they shrink only where a crossing
   * lands on a sub-step's end, and the exit times follow dt-max, not the
   * tolerance: 0.55 for an exact 0.21 at dt-max 0.25) */
  for (int k = 0; c->no_bridge_correction && k < p->run->model->nbound; k++)
    if (p->run->model->bound[k].kind == SDK_BOUND_ABSORB)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--adaptive with absorbing [boundaries] shortens its steps near a level by "
                      "the Brownian bridge's crossing probability: leave out "
                      "--no-bridge-correction");
  if (c->dt_min > 0 && c->dt_min < finest * (1 - LEVEL_TOL))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--dt-min %.15g is below the Brownian tree's finest step, dt-max 2^-%d = "
                    "%.15g (rng/btree.h): give a larger --dt-min or --dt-max",
                    c->dt_min, SDK_BTREE_DEPTH, finest);
  sdk_codegen_opts o;
  sdk_plan_codegen_opts(p, SDK_TARGET_CPU, &o);
  if (o.adapt_lev0 > o.adapt_levmax)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--dt %.15g (the first try) is below --dt-min %.15g", c->dt,
                    c->dt_min);
  if (!sdk_btree_fits((sdk_u64)p->nsteps, (sdk_u64)(o.model->nnoise > 0 ? o.model->nnoise : 1)))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--adaptive: %lld steps of dt-max with %d noises exceed the Brownian tree's "
                    "random numbers (at most 2^%d steps x noises): give a larger --dt-max",
                    (long long)p->nsteps, o.model->nnoise, 62 - SDK_BTREE_DEPTH);
  if (o.model->nbound > 0 && p->nsteps > (1ll << 28)) /* (boundary.c: the bridge's uniforms) */
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--adaptive with [boundaries]: %lld steps of dt-max exceed the bridge "
                    "draws' random numbers (at most 2^28 steps): give a larger --dt-max",
                    (long long)p->nsteps);
  SDK_CHECK(sdk_cg_adaptive_check(&o, eb));
  /* the settings the run used, as /adaptive's attributes (sdekit info):
   * the tolerances with their defaults, and the steps as the levels made
   * them (dt-max, the first try and the smallest allowed) */
  sdk_store *S = &p->run->r.store;
  SDK_CHECK(sdk_store_group_f64(S, "adaptive", "rtol", o.rtol, eb));
  SDK_CHECK(sdk_store_group_f64(S, "adaptive", "atol", o.atol, eb));
  SDK_CHECK(sdk_store_group_f64(S, "adaptive", "dt_max", dt, eb));
  SDK_CHECK(sdk_store_group_f64(S, "adaptive", "dt_first", ldexp(dt, -o.adapt_lev0), eb));
  SDK_CHECK(sdk_store_group_f64(S, "adaptive", "dt_min_allowed", ldexp(dt, -o.adapt_levmax), eb));
  return SDK_OK;
}

const char *sdk_plan_smaller_step(const sdk_plan *p) {
  if (p->c->adaptive) return "a smaller --dt-min or tighter --rtol/--atol";
  /* a path outside both reflecting walls of a variable after its mirrors is
   * NaN (codegen/boundary.c): a step wider than the gap (a start there is
   * refused: boundaries.c, pathdata.c) */
  const sdk_model *m = p->run->model;
  for (int v = 0; v < m->nvars; v++)
    if (sdk_model_reflect_both(m, v))
      return "a smaller --dt (or more --spp), or starts between the reflecting walls (a path "
             "outside both after a step's mirrors is NaN)";
  return "a smaller --dt (or more --spp)";
}
