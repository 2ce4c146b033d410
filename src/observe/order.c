/* Systems of interacting particles in the run loop; the order parameter and
 * the density of periodic variables (see observe.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "observe/observe.h"

typedef struct {
  const double *pv;
  const int *scanned;
  int hit_scan;
} pctx;

static double pval(void *user, sdk_symkind k, int idx) {
  pctx *c = user;
  if (k != SDK_SYM_PARAM) return NAN;
  if (c->scanned && c->scanned[idx] >= 0) c->hit_scan = 1;
  return c->pv[idx];
}

double sdk_var_period(const sdk_model *m, int v, const double *pvalues, const int *scanned) {
  if (v < 0 || v >= m->nvars || !m->var_period || !m->var_period[v]) return 0;
  pctx c = {pvalues, scanned, 0};
  double p = sdk_expr_eval(m->var_period[v], pval, &c);
  return c.hit_scan ? NAN : p;
}

sdk_err sdk_sys_plan(sdk_sysplan *sp, const sdk_run_config *c, const sdk_model *m,
                     const double *pvalues, const int *scanned, sdk_errbuf *eb) {
  memset(sp, 0, sizeof *sp);
  sp->order_var = -1;
  if (c->particles < 0) return SDK_FAIL(eb, SDK_ERR_USAGE, "--particles must be at least 1");
  sp->particles = c->particles > 0 ? c->particles : 1;
  sp->systems = c->paths;
  int order = (c->observe & SDK_OBS_ORDER) != 0;
  if (m->interacting && sp->particles < 2)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "model '%s' couples its particles (%s): give --particles N with N >= 2 (every "
                    "path is then a system of N particles)",
                    m->name,
                    m->nmean && m->npair ? "[meanfield], [pair]"
                    : m->nmean           ? "[meanfield]"
                                         : "[pair]");
  if (order) {
    int v = sdk_model_first_periodic(m);
    if (v < 0)
      return SDK_FAIL(
          eb, SDK_ERR_USAGE,
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
    sp->order_var = v;
    sp->order_period = P;
    sp->order_factor = 2 * M_PI / P;
  }
  /* per-particle parameters live in the system driver too */
  sp->on = m->interacting || order || m->npart > 0;
  if (sp->on && c->scheme && strcmp(c->scheme, "euler"))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--scheme %s: %s are integrated with --scheme euler only (as the paper's "
                    "PROG2/PROG3)",
                    c->scheme,
                    m->interacting ? "systems of interacting particles"
                    : order        ? "systems observed with --observe order"
                                   : "models with [particle] parameters");
  if (sp->particles > 1 && c->paths > ((int64_t)1 << 40) / sp->particles)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "too many particles (%lld paths x %lld particles)",
                    (long long)c->paths, (long long)sp->particles);
  return SDK_OK;
}

sdk_err sdk_sys_setup(sdk_sysplan *sp, sdk_results *R, int64_t ngrid, int64_t nsteps, int64_t every,
                      int64_t max_chunk, sdk_errbuf *eb) {
  R->particles = sp->particles;
  sp->ngrid = ngrid;
  sp->every = every > 0 ? every : 1;
  sp->isample = 0;
  sp->primed = 0;
  if (sp->order_var < 0) return SDK_OK;
  sp->nmax = nsteps / sp->every + 1;
  sp->maxrows = (max_chunk > 0 ? max_chunk : nsteps) / sp->every + 2;
  sp->rows = malloc((size_t)(sp->maxrows * ngrid * 4) * sizeof(double));
  R->order_var = sp->order_var;
  R->order_period = sp->order_period;
  R->order_every = sp->every;
  R->order_step = calloc((size_t)sp->nmax, sizeof(int64_t));
  size_t n = (size_t)(ngrid * sp->nmax);
  R->order_r = calloc(n, sizeof(double));
  R->order_r_err = calloc(n, sizeof(double));
  R->order_psi = calloc(n, sizeof(double));
  if (!sp->rows || !R->order_step || !R->order_r || !R->order_r_err || !R->order_psi)
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for %lld order-parameter samples",
                    (long long)sp->nmax);
  return SDK_OK;
}

int sdk_sys_checks_nonfinite(const sdk_sysplan *sp) {
  return sp->on && sp->order_var >= 0;
}

/* Store one sample; SDK_ERR_NONFINITE when some particle of a grid point is
 * NaN/Inf (its system's Z, hence r, is then NaN). */
static sdk_err store(sdk_sysplan *sp, sdk_results *R, int64_t step, const double *row,
                     sdk_errbuf *eb) {
  for (int64_t g = 0; g < sp->ngrid; g++)
    if (!isfinite(row[g * 4]) || !isfinite(row[g * 4 + 2]) || !isfinite(row[g * 4 + 3]))
      return SDK_FAIL(eb, SDK_ERR_NONFINITE,
                      "particles became NaN/Inf at grid point %lld by step %lld (t = %g); a "
                      "smaller --dt may help",
                      (long long)g, (long long)step, (double)step * (R->dt ? R->dt[g] : 0));
  if (sp->isample >= sp->nmax) return SDK_OK;
  int64_t s = sp->isample++, M = sp->systems;
  R->order_step[s] = step;
  for (int64_t g = 0; g < sp->ngrid; g++) {
    const double *o = row + g * 4;
    double r = o[0] / (double)M,
           var = M > 1 ? (o[1] - o[0] * o[0] / (double)M) / (double)(M - 1) : 0;
    if (var < 0) var = 0;
    R->order_r[g * sp->nmax + s] = r;
    R->order_r_err[g * sp->nmax + s] = M > 1 ? sqrt(var / (double)M) : NAN;
    R->order_psi[g * sp->nmax + s] = atan2(o[3], o[2]);
  }
  return SDK_OK;
}

sdk_err sdk_sys_advance(sdk_sysplan *sp, sdk_results *R, const sdk_backend *be, sdk_ensemble *ens,
                        int64_t step, int64_t n, uint64_t seed, sdk_errbuf *eb) {
  if (!be->advance_sys)
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "backend %s cannot integrate systems of particles",
                    be->name);
  int order = sp->order_var >= 0;
  if (!sp->primed) {
    /* the sums of the state at `step` (and its order parameter when sampled) */
    int rec = order && step % sp->every == 0 &&
              (sp->isample == 0 || R->order_step[sp->isample - 1] < step); /* resumed there */
    SDK_CHECK(be->advance_sys(ens, step, 0, seed, sp->every, rec ? sp->rows : NULL, eb));
    if (rec) SDK_CHECK(store(sp, R, step, sp->rows, eb));
    sp->primed = 1;
  }
  while (n > 0) {
    int64_t k = n;
    if (order && k > (sp->maxrows - 2) * sp->every) k = (sp->maxrows - 2) * sp->every;
    if (k < 1) k = 1;
    SDK_CHECK(be->advance_sys(ens, step, k, seed, sp->every, order ? sp->rows : NULL, eb));
    if (order) {
      int64_t row = 0;
      for (int64_t s = (step / sp->every + 1) * sp->every; s <= step + k; s += sp->every)
        SDK_CHECK(store(sp, R, s, sp->rows + (row++) * sp->ngrid * 4, eb));
    }
    step += k;
    n -= k;
  }
  return SDK_OK;
}

/* Copy samples 0..n-1 of every grid point between [g][stride] layouts (dst
 * may be src with a smaller stride: compaction). */
static void order_copy(double *const dst[3], int64_t dstride, const double *const src[3],
                       int64_t sstride, int64_t ng, int64_t n) {
  for (int64_t g = 0; g < ng; g++)
    for (int64_t s = 0; s < n; s++)
      for (int k = 0; k < 3; k++)
        dst[k][g * dstride + s] = src[k][g * sstride + s];
}

int64_t sdk_sys_order_count(const sdk_sysplan *sp, const sdk_results *R) {
  return sp->order_var >= 0 && R->order_r ? sp->isample : -1;
}

void sdk_sys_order_save(const sdk_sysplan *sp, const sdk_results *R, int64_t *step, double *r,
                        double *r_err, double *psi) {
  int64_t n = sdk_sys_order_count(sp, R);
  if (n <= 0) return;
  double *const dst[3] = {r, r_err, psi};
  const double *const src[3] = {R->order_r, R->order_r_err, R->order_psi};
  memcpy(step, R->order_step, (size_t)n * sizeof(int64_t));
  order_copy(dst, n, src, sp->nmax, sp->ngrid, n);
}

sdk_err sdk_sys_order_restore(sdk_sysplan *sp, sdk_results *R, int64_t n, const int64_t *step,
                              const double *r, const double *r_err, const double *psi,
                              int64_t at_step, sdk_errbuf *eb) {
  if (sp->order_var < 0) return SDK_OK;
  if (!step || n > sp->nmax || (n > 0 && step[n - 1] > at_step))
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "the checkpoint does not match this run's layout (order parameter)");
  double *const dst[3] = {R->order_r, R->order_r_err, R->order_psi};
  const double *const src[3] = {r, r_err, psi};
  memcpy(R->order_step, step, (size_t)n * sizeof(int64_t));
  order_copy(dst, sp->nmax, src, n, sp->ngrid, n);
  sp->isample = n;
  return SDK_OK;
}

void sdk_sys_finish(sdk_sysplan *sp, sdk_results *R) {
  if (sp->order_var >= 0 && R->order_r) {
    int64_t ns = sp->isample;
    double *const a[3] = {R->order_r, R->order_r_err, R->order_psi};
    if (ns < sp->nmax) order_copy(a, ns, (const double *const *)a, sp->nmax, sp->ngrid, ns);
    R->order_nsamples = ns;
  }
  sdk_sys_free(sp);
}

void sdk_sys_free(sdk_sysplan *sp) {
  free(sp->rows);
  sp->rows = NULL;
}

void sdk_sys_results_free(sdk_results *R) {
  free(R->order_step);
  free(R->order_r);
  free(R->order_r_err);
  free(R->order_psi);
  R->order_step = NULL;
  R->order_r = R->order_r_err = R->order_psi = NULL;
}

sdk_err sdk_observe_density_mod(const sdk_backend *be, sdk_ensemble *ens, int var, double period,
                                int64_t ngrid, int64_t bins, double *lo, double *hi,
                                uint64_t *counts, uint64_t *under, uint64_t *over, sdk_errbuf *eb) {
  if (!be->histogram_mod)
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "backend %s has no periodic histogram", be->name);
  SDK_CHECK(be->histogram_mod(ens, var, bins, period, counts, eb));
  for (int64_t g = 0; g < ngrid; g++) {
    lo[g] = 0;
    hi[g] = period;
    under[g] = over[g] = 0;
  }
  return SDK_OK;
}
