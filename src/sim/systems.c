#include "sim/systems.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/registry.h"

/* a scheme that integrates systems (its row says so: euler, as the paper's
 * PROG2/PROG3) */
static sdk_err systems_scheme(const sdk_model *m, const sdk_scheme_type *scheme, int sums,
                              sdk_errbuf *eb) {
  if (sdk_scheme_takes_systems(scheme)) return SDK_OK;
  char with[256];
  return SDK_FAIL(
      eb, SDK_ERR_USAGE,
      "--scheme %s: %s are integrated with --scheme %s only (as the paper's "
      "PROG2/PROG3)",
      scheme->name,
      m->interacting ? "systems of interacting particles"
      : sums         ? "systems observed with --observe order"
                     : "systems of particles with [particle] parameters (--particles N > 1; "
                       "with one particle per path any scheme takes them)",
      sdk_registry_scheme_list(with, sizeof with, sdk_scheme_takes_systems, ", ", " or "));
}

/* the variable and period of the phase sums */
static sdk_err systems_sums(sdk_systems *sp, const sdk_model *m, const double *pvalues,
                            const int *scanned, sdk_errbuf *eb) {
  int v = sdk_model_first_periodic(m);
  if (v < 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--observe order needs a variable declared periodic in [model] (e.g. periodic "
                    "= x : 2*pi); model '%s' has none",
                    m->name);
  double P = sdk_var_period(m, v, pvalues, scanned);
  if (isnan(P))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--observe order: the period of '%s' cannot depend on a scanned parameter",
                    m->vars[v]);
  if (!(P > 0) || !isfinite(P))
    return SDK_FAIL(eb, SDK_ERR_USAGE, "%s:%d: the period of '%s' is %g; it must be > 0", m->path,
                    m->periodic_line, m->vars[v], P);
  sp->sums_var = v;
  sp->sums_period = P;
  sp->sums_factor = 2 * M_PI / P;
  return SDK_OK;
}

sdk_err sdk_systems_plan(sdk_systems *sp, const sdk_model *m, int64_t particles, int64_t paths,
                         const sdk_scheme_type *scheme, int sums, const double *pvalues,
                         const int *scanned, sdk_errbuf *eb) {
  memset(sp, 0, sizeof *sp);
  sp->sums_var = -1;
  if (particles < 0) return SDK_FAIL(eb, SDK_ERR_USAGE, "--particles must be at least 1");
  sp->particles = particles > 0 ? particles : 1;
  sp->systems = paths;
  if (m->interacting && sp->particles < 2)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "model '%s' couples its particles (%s): give --particles N with N >= 2 (every "
                    "path is then a system of N particles)",
                    m->name,
                    m->nmean && m->npair ? "[meanfield], [pair]"
                    : m->nmean           ? "[meanfield]"
                                         : "[pair]");
  /* |Z| of a system of one particle is 1 whatever its state: an r that says
   * nothing, so it is refused rather than reported */
  if (sums && sp->particles < 2)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--observe order needs systems of particles: give --particles N with N >= 2 "
                    "(the order parameter of a system of one particle is 1 whatever its state)");
  if (sums) SDK_CHECK(systems_sums(sp, m, pvalues, scanned, eb));
  /* per-particle parameters of systems of N > 1 particles live in the
   * system driver; with one particle per path they are per-path values of
   * the paths' own driver (codegen/codegen.h sdk_cg_ppar_row) */
  sp->on = m->interacting || sums || (m->npart > 0 && sp->particles > 1);
  if (sp->on) SDK_CHECK(systems_scheme(m, scheme, sums, eb));
  if (sp->particles > 1 && paths > ((int64_t)1 << 40) / sp->particles)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "too many particles (%lld paths x %lld particles)",
                    (long long)paths, (long long)sp->particles);
  return SDK_OK;
}

sdk_err sdk_systems_setup(sdk_systems *sp, int64_t ngrid, int64_t nsteps, int64_t every,
                          int64_t max_chunk, sdk_errbuf *eb) {
  sp->ngrid = ngrid;
  sp->every = every > 0 ? every : 1;
  sp->primed = 0;
  if (sp->sums_var < 0) return SDK_OK;
  sp->maxrows = (max_chunk > 0 ? max_chunk : nsteps) / sp->every + 2;
  sp->rows = malloc((size_t)(sp->maxrows * ngrid * 4) * sizeof(double));
  if (!sp->rows) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the order parameter");
  return SDK_OK;
}

/* hand one row of sums (the state at `step`) to every observable that takes them */
static sdk_err hand_over(int nobs, sdk_obs *obs, const sdk_obs_ctx *ctx, int64_t step,
                         const double *row, sdk_errbuf *eb) {
  for (int i = 0; i < nobs; i++)
    if (obs[i].type->sys_row)
      SDK_CHECK(obs[i].type->sys_row(ctx, obs[i].state, &obs[i].nsamples, step, row, eb));
  return SDK_OK;
}

sdk_err sdk_systems_advance(sdk_systems *sp, const sdk_backend *be, sdk_ensemble *ens, int64_t step,
                            int64_t n, uint64_t seed, int nobs, sdk_obs *obs,
                            const sdk_obs_ctx *ctx, sdk_errbuf *eb) {
  if (!be->advance_sys)
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "backend %s cannot integrate systems of particles",
                    be->name);
  int sums = sp->sums_var >= 0;
  if (!sp->primed) {
    /* the sums of the state at `step` (and its row when it is a sample step) */
    int rec = sums && step % sp->every == 0;
    SDK_CHECK(be->advance_sys(ens, step, 0, seed, sp->every, rec ? sp->rows : NULL, eb));
    if (rec) SDK_CHECK(hand_over(nobs, obs, ctx, step, sp->rows, eb));
    sp->primed = 1;
  }
  while (n > 0) {
    int64_t k = n;
    if (sums && k > (sp->maxrows - 2) * sp->every) k = (sp->maxrows - 2) * sp->every;
    if (k < 1) k = 1;
    SDK_CHECK(be->advance_sys(ens, step, k, seed, sp->every, sums ? sp->rows : NULL, eb));
    if (sums) {
      int64_t row = 0;
      for (int64_t s = (step / sp->every + 1) * sp->every; s <= step + k; s += sp->every)
        SDK_CHECK(hand_over(nobs, obs, ctx, s, sp->rows + (row++) * sp->ngrid * 4, eb));
    }
    step += k;
    n -= k;
  }
  return SDK_OK;
}

void sdk_systems_free(sdk_systems *sp) {
  free(sp->rows);
  sp->rows = NULL;
}
