/* The plan stage: everything derived from the configuration and the model
 * before a backend is touched (sim/run_internal.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/comm.h"
#include "core/strbuf.h"
#include "observe/obs_corr.h"
#include "observe/tsvfmt.h"
#include "sim/checkpoint.h"
#include "sim/registry.h"
#include "sim/run_internal.h"

/* the model, with the user observables of --observe-expr */
sdk_err sdk_plan_model(const sdk_run_config *c, sdk_model **m, sdk_errbuf *eb) {
  if (c->model_text)
    SDK_CHECK(sdk_model_parse(c->model_text, c->model_path ? c->model_path : c->model, m, eb));
  else
    SDK_CHECK(sdk_model_load_from(c->model, c->model_search_path, m, eb));
  if (c->calculus >= 0) (*m)->calculus = (sdk_calculus)c->calculus;
  for (int i = 0; i < c->nobs_expr; i++) {
    const char *eq = strchr(c->obs_expr[i], '=');
    char name[SDK_MODEL_MAX_NAME + 2];
    sdk_err e = SDK_OK;
    if (!eq || eq == c->obs_expr[i] || (size_t)(eq - c->obs_expr[i]) > SDK_MODEL_MAX_NAME)
      e = SDK_FAIL(eb, SDK_ERR_USAGE, "--observe-expr '%.80s': expected NAME=EXPR", c->obs_expr[i]);
    else {
      snprintf(name, sizeof name, "%.*s", (int)(eq - c->obs_expr[i]), c->obs_expr[i]);
      e = sdk_model_add_observe(*m, name, eq + 1, eb);
    }
    if (e != SDK_OK) {
      sdk_model_destroy(m);
      return e;
    }
  }
  return SDK_OK;
}

/* A scheme of the other calculus integrates state-dependent noise with the
 * drift corrected by +-1/2 b db/dx (codegen.c), which needs db/dx; where the
 * grammar cannot differentiate b, refuse and name a scheme that integrates
 * the model's calculus as it is. */
static sdk_err plan_calculus(const sdk_model *m, const sdk_scheme_type *s, sdk_errbuf *eb) {
  if (!m->multiplicative || m->calculus == s->calculus) return SDK_OK;
  const char *cname[] = {"ito", "stratonovich"};
  for (int v = 0; v < m->nvars; v++) {
    if (!m->noise[v]) continue;
    char where[512];
    snprintf(where, sizeof where, "%s:%d [noise] %s", m->path, m->noise_line[v], m->vars[v]);
    sdk_expr *db = NULL;
    sdk_errbuf why = {0};
    sdk_err e = sdk_expr_diff(m->noise[v], v, where, &db, &why);
    sdk_expr_destroy(&db);
    if (e == SDK_ERR_NOMEM) return SDK_FAIL(eb, e, "%s", why.msg);
    if (e == SDK_OK) continue;
    const sdk_scheme_type *own = sdk_native_scheme(m->calculus);
    const char *native = own ? own->name : NULL;
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s; scheme %s integrates %s noise with the drift corrected by 1/2 b db/dx, "
                    "which needs that derivative%s%s%s",
                    why.msg, s->name, cname[m->calculus], native ? ": --scheme " : "",
                    native ? native : "", native ? " integrates it without" : "");
  }
  return SDK_OK;
}

/* The default from the schemes' rows (sdk_default_scheme): today srk2, but
 * euler for systems of particles (sim/systems.h: interacting models, or
 * [particle] parameters with --particles N > 1; with one particle per path
 * they are per-path values of independent paths, any scheme) and for
 * state-dependent noise in the Ito sense (Euler-Maruyama's own;
 * Stratonovich noise stays with srk2, the Heun method's own). */
static sdk_err plan_scheme(const sdk_run_config *c, const sdk_model *m, int sums, sdk_plan *p,
                           sdk_errbuf *eb) {
  const char *sname = c->scheme;
  int systems = m->interacting || (m->npart > 0 && c->particles > 1) || sums;
  p->scheme =
      sname ? sdk_find_scheme(sname) : sdk_default_scheme(m->multiplicative, m->calculus, systems);
  /* a default that the model changes is recorded (results' scheme_why: the
   * root attribute scheme_default, the TSV header) and said by the CLI once
   * the run succeeded (cli/run.c), never silent */
  if (!sname && p->scheme && p->scheme != sdk_default_scheme(0, m->calculus, 0))
    p->scheme_why = systems ? "systems of particles" : "state-dependent noise in the Ito sense";
  if (!p->scheme) {
    sdk_strbuf b;
    sdk_sb_init(&b);
    sdk_registry_scheme_names(&b);
    sdk_err e = SDK_FAIL(eb, SDK_ERR_USAGE, "unknown scheme '%s' (known: %s)",
                         sname ? sname : "(default)", b.s ? b.s : "");
    sdk_sb_free(&b);
    return e;
  }
  if (!(p->scheme->noise_kinds & SDK_NOISE_DIAGONAL) && m->multiplicative)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "scheme %s assumes additive noise but model '%s' has state-dependent noise; "
                    "use --scheme %s (Ito interpretation)",
                    p->scheme->name, m->name, sdk_default_scheme(1, SDK_CALCULUS_ITO, 0)->name);
  if (c->paths <= 0) return SDK_FAIL(eb, SDK_ERR_USAGE, "--paths must be at least 1");
  if (c->noise) {
    p->noise = sdk_find_noise(c->noise);
    if (!p->noise) {
      sdk_strbuf b;
      sdk_sb_init(&b);
      for (int i = 0; sdk_registry_noises[i]; i++)
        sdk_sb_printf(&b, "%s%s", i ? ", " : "", sdk_registry_noises[i]->name);
      sdk_err e =
          SDK_FAIL(eb, SDK_ERR_USAGE, "unknown noise '%s' (known: %s)", c->noise, b.s ? b.s : "");
      sdk_sb_free(&b);
      return e;
    }
    if (p->noise == p->scheme->noise) p->noise = NULL;
    if (p->noise && m->nbound > 0)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--noise %s: model '%s' has [boundaries], whose Brownian-bridge correction "
                      "and hitting times need Brownian paths; use the scheme's Gaussian noise",
                      p->noise->name, m->name);
  }
  return plan_calculus(m, p->scheme, eb);
}

static sdk_err no_param(const sdk_model *m, const char *opt, const char *name, sdk_errbuf *eb) {
  char *known = sdk_model_param_list(m);
  sdk_err e =
      SDK_FAIL(eb, SDK_ERR_USAGE, "%s %s: model '%s' has no parameter '%s' (parameters: %s)", opt,
               name, m->name, name, known ? known : "?");
  free(known);
  return e;
}

/* parameter values: the model's defaults, then --set (derived parameters
 * follow once the scan is known: plan_scan) */
static sdk_err plan_params(const sdk_run_config *c, sdk_run *r, sdk_plan *p, sdk_errbuf *eb) {
  const sdk_model *m = r->model;
  r->param_values = malloc((size_t)(m->nparams + 1) * sizeof(double));
  r->result_param_values = malloc((size_t)(m->nparams + 1) * sizeof(double));
  r->param_names = malloc((size_t)(m->nparams + 1) * sizeof(char *));
  p->scan_column = malloc((size_t)(m->nparams + 1) * sizeof(int));
  p->given = calloc((size_t)(m->nparams + 1), 1);
  if (!r->param_values || !r->result_param_values || !r->param_names || !p->scan_column ||
      !p->given)
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int i = 0; i < m->nparams; i++) {
    r->param_values[i] = m->pvalues[i];
    r->param_names[i] = m->params[i];
    p->scan_column[i] = -1;
  }
  for (int i = 0; i < c->nset; i++) {
    int k = sdk_model_param_index(m, c->set_name[i]);
    if (k < 0) return no_param(m, "--set", c->set_name[i], eb);
    r->param_values[k] = c->set_value[i];
    p->given[k] = 1;
  }
  return SDK_OK;
}

/* The size of the grid, refused with its memory before anything is made: a
 * mistyped N or one axis too many must not start a run of years. */
static sdk_err grid_size(const sdk_run_config *c, const sdk_model *m, sdk_plan *p, sdk_errbuf *eb) {
  double pts = 1; /* counted in doubles: a product of axes cannot overflow */
  char dims[256] = "";
  size_t len = 0;
  for (int a = 0; a < c->nscan; a++)
    if (a == 0 || !c->scan[a].zip) {
      pts *= (double)c->scan[a].n;
      if (len < sizeof dims)
        len += (size_t)snprintf(dims + len, sizeof dims - len, "%s%lld", len ? " x " : "",
                                (long long)c->scan[a].n);
    }
  double paths = c->paths > 0 ? (double)c->paths : 1, word = c->single ? 4 : 8;
  double state = pts * paths * (double)(m->nvars > 0 ? m->nvars : 1) * word;
  double table = pts * (double)(c->nscan + m->nparams + 1) * 8;
  if (pts > (double)SDK_MAX_GRID || pts * paths > (double)((int64_t)1 << 40))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "too many paths or grid points: the scan grid has %.6g grid points (%s) x "
                    "%lld paths, more than the maximum "
                    "of %lld grid points or 2^40 paths; the paths' states alone would need "
                    "%.3g GiB and the per-point tables %.3g GiB: scan fewer points",
                    pts, dims, (long long)c->paths, (long long)SDK_MAX_GRID, state / 1073741824.0,
                    table / 1073741824.0);
  p->ngrid = (int64_t)pts;
  return SDK_OK;
}

/* One scanned parameter's values, into the results: copied from the
 * configuration, or filled from its range. */
static sdk_err scan_values(const sdk_scan_axis *in, sdk_scan_axis *ax, int axis, sdk_errbuf *eb) {
  *ax = *in;
  ax->values = NULL;
  ax->axis = axis;
  ax->zip = 0;
  if (!in->values) return sdk_scan_fill(ax, eb);
  ax->values = malloc((size_t)ax->n * sizeof(double));
  if (!ax->values) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  memcpy(ax->values, in->values, (size_t)ax->n * sizeof(double));
  return SDK_OK;
}

/* the grid of scan points, its size checked before any value is made; entries
 * of the same .axis (consecutive) are zipped: one dimension, as many points */
static sdk_err plan_scan(const sdk_run_config *c, sdk_run *r, sdk_plan *p, sdk_errbuf *eb) {
  const sdk_model *m = r->model;
  if (c->nscan > SDK_MAX_SCAN_PARAMS)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "at most %d scanned parameters", SDK_MAX_SCAN_PARAMS);
  for (int a = 0, axis = -1; a < c->nscan; a++) {
    const sdk_scan_axis *ax = &c->scan[a];
    int first = a == 0 || !ax->zip;
    if ((axis += first) >= SDK_MAX_SCAN)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--scan %s: at most %d scan axes (a grid of more dimensions is too large "
                      "to run; zip parameters that move together into one axis)",
                      ax->name, SDK_MAX_SCAN);
    if (!first && ax->n != c->scan[a - 1].n)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--scan %s: zipped with %s, it needs the same number of points (%lld, not "
                      "%lld)",
                      ax->name, c->scan[a - 1].name, (long long)c->scan[a - 1].n, (long long)ax->n);
    int k = sdk_model_param_index(m, ax->name);
    if (k < 0) return no_param(m, ax->origin[0] ? ax->origin : "--scan", ax->name, eb);
    SDK_CHECK(sdk_store_axis_name_free(ax->name, eb));
    if (p->scan_column[k] >= 0)
      return SDK_FAIL(eb, SDK_ERR_USAGE, "--scan %s given twice", ax->name);
    /* a fixed value and a scan of the same parameter: neither may win silently */
    for (int i = 0; i < c->nset; i++)
      if (!strcmp(c->set_name[i], ax->name))
        return SDK_FAIL(eb, SDK_ERR_USAGE,
                        "--set %s and --scan %s: parameter '%s' is either fixed or scanned, "
                        "give one of them",
                        ax->name, ax->name, ax->name);
    p->scan_column[k] = a;
    p->given[k] = 1;
  }
  SDK_CHECK(grid_size(c, m, p, eb));
  for (int a = 0; a < c->nscan; a++) {
    int first = a == 0 || !c->scan[a].zip;
    sdk_scan_axis *ax = first ? &r->r.scan[r->r.nscan++] : &r->r.zip[r->r.nzip++];
    SDK_CHECK(scan_values(&c->scan[a], ax, r->r.nscan - 1, eb));
    p->scan_col[a] = ax;
    r->param_values[sdk_model_param_index(m, ax->name)] = ax->values[0];
  }
  sdk_model_derive(m, p->given, r->param_values); /* the values at grid point 0 */
  return SDK_OK;
}

static int uses_varying(const sdk_expr *e, const int *scan_column) {
  if (e->kind == SDK_E_SYM && e->sym == SDK_SYM_PARAM && scan_column[e->index] >= 0) return 1;
  for (int i = 0; i < e->nargs; i++)
    if (uses_varying(e->arg[i], scan_column)) return 1;
  return 0;
}

/* Derived parameters defined from a scanned one (through others or not)
 * vary over the grid: the kernels read them per grid point like a scanned
 * parameter, from the columns after the scan axes (plan_sv). */
static void plan_varying(const sdk_run_config *c, sdk_run *r, sdk_plan *p) {
  const sdk_model *m = r->model;
  p->nvary = 0;
  for (int i = 0; i < m->nparams; i++) /* in file order: a parameter uses only those above */
    if (m->pexpr && m->pexpr[i] && !p->given[i] && uses_varying(m->pexpr[i], p->scan_column))
      p->scan_column[i] = c->nscan + p->nvary++;
}

/* parameter values at grid point g: the values in force, the scanned ones
 * of g, and the derived ones from those */
void sdk_plan_grid_values(const sdk_plan *p, int64_t g, double *pv) {
  const sdk_run *r = p->run;
  const sdk_model *m = r->model;
  memcpy(pv, r->param_values, (size_t)m->nparams * sizeof(double));
  for (int j = 0; j < p->c->nscan; j++) {
    const sdk_scan_axis *ax = p->scan_col[j];
    pv[sdk_model_param_index(m, ax->name)] = ax->values[sdk_results_grid_index(&r->r, g, ax->axis)];
  }
  sdk_model_derive(m, p->given, pv);
}

static double eval_param(void *user, sdk_symkind k, int idx) {
  const double *pv = user;
  return k == SDK_SYM_PARAM ? pv[idx] : NAN;
}

static sdk_err time_options(const sdk_run_config *c, const sdk_model *m, sdk_errbuf *eb) {
  if (!m->period && (c->spp > 0 || c->periods > 0 || c->transient_periods >= 0))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "model '%s' has no period ([model] period = ...): use --dt, --t-end and "
                    "--transient instead of --spp, --periods and --transient-periods",
                    m->name);
  if (c->dt < 0 || (c->dt == 0 && c->dt != 0))
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--dt must be > 0");
  /* (--adaptive: --dt is the first try, the step dt-max = period / spp) */
  if (c->spp > 0 && c->dt > 0 && !c->adaptive)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "give --dt or --spp, not both");
  if (c->t_end > 0 && c->periods > 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "give --t-end or --periods, not both");
  if (c->transient >= 0 && c->transient_periods >= 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "give --transient or --transient-periods, not both");
  return SDK_OK;
}

/* dt of grid point g: period / spp for a periodic model (the period may depend on a
 * scanned parameter), else --dt */
static sdk_err grid_dt(const sdk_run_config *c, sdk_run *r, sdk_plan *p, int64_t g, double *pv,
                       sdk_errbuf *eb) {
  const sdk_model *m = r->model;
  if (!m->period) {
    r->dt[g] = c->adaptive && c->dt_max > 0 ? c->dt_max : c->dt > 0 ? c->dt : 0.01;
    return SDK_OK;
  }
  sdk_plan_grid_values(p, g, pv);
  double P = sdk_expr_eval(m->period, eval_param, pv);
  if (!isfinite(P) || P <= 0) {
    char gp[300];
    sdk_grid_point_name(&r->r, g, gp, sizeof gp);
    return SDK_FAIL(eb, SDK_ERR_USAGE, "%s:%d: period evaluates to %g at %s (must be > 0)", m->path,
                    m->period_line, P, gp);
  }
  if (g == 0) {
    p->period0 = P;
    if (c->dt > 0 && !c->adaptive) { /* (--adaptive: --dt is the first try) */
      /* a whole number of steps per period: the nearest to P / dt, said
       * (plan_notices) where it is not P / dt; counted in doubles first */
      double x = P / c->dt, s = floor(x + 0.5);
      if (c->dt > P * (1 + SDK_TIME_TOL))
        return SDK_FAIL(eb, SDK_ERR_USAGE,
                        "--dt %.15g is longer than the period %.15g of model '%s' (a step must "
                        "not pass over the driving): give --dt <= %.15g, or --spp N",
                        c->dt, P, m->name, P);
      if (!(x <= (double)SDK_MAX_STEPS))
        return SDK_FAIL(eb, SDK_ERR_USAGE,
                        "--dt %g gives %.4g steps per period %.15g, more than the maximum of %lld "
                        "(SDK_MAX_STEPS, 2^53): give a larger --dt or --spp N",
                        c->dt, x, P, (long long)SDK_MAX_STEPS);
      p->spp = s < 1 ? 1 : (int64_t)s;
      if (fabs(x - s) > SDK_TIME_TOL * x) p->dt_asked = c->dt;
    } else {
      p->spp = c->spp > 0 ? c->spp : 100;
    }
  }
  r->dt[g] = P / (double)p->spp;
  return SDK_OK;
}

/* the time step of every grid point */
static sdk_err plan_dt(const sdk_run_config *c, sdk_run *r, sdk_plan *p, sdk_errbuf *eb) {
  const sdk_model *m = r->model;
  SDK_CHECK(time_options(c, m, eb));
  r->dt = malloc((size_t)p->ngrid * sizeof(double));
  double *pv = malloc((size_t)(m->nparams + 1) * sizeof(double));
  sdk_err e = !r->dt || !pv ? SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory") : SDK_OK;
  int varies = 0;
  for (int64_t g = 0; g < p->ngrid && e == SDK_OK; g++) {
    e = grid_dt(c, r, p, g, pv, eb);
    if (e == SDK_OK && g > 0 && r->dt[g] != r->dt[0]) varies = 1;
  }
  free(pv);
  SDK_CHECK(e);
  if (varies && (c->t_end > 0 || c->transient > 0))
    return SDK_FAIL(
        eb, SDK_ERR_USAGE,
        "the period depends on a scanned parameter, so dt differs between grid "
        "points: give --periods and --transient-periods instead of --t-end/--transient");
  if (varies && c->dt > 0) p->dt_asked = c->dt; /* the step is period/spp at every grid point */
  p->nsv = c->nscan + p->nvary + (varies ? 1 : 0);
  p->dt_column = varies ? c->nscan + p->nvary : -1;
  if (!m->period) p->spp = 0, p->period0 = 0;
  return SDK_OK;
}

/* A length of time T in steps of dt, counted in doubles first so that no
 * product can overflow: *n the nearest whole number, *whole whether T is one
 * (to SDK_TIME_TOL); `what` names T in the error of a run too long. */
static sdk_err time_steps(double T, double dt, const char *what, double *n, int *whole,
                          sdk_errbuf *eb) {
  double x = T / dt;
  if (!(x <= (double)SDK_MAX_STEPS))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s would take %.4g steps, more than the maximum of %lld (SDK_MAX_STEPS, "
                    "2^53): give fewer --periods, a shorter --t-end or a larger --dt",
                    what, x, (long long)SDK_MAX_STEPS);
  *n = floor(x + 0.5);
  *whole = fabs(x - *n) <= SDK_TIME_TOL * x;
  return SDK_OK;
}

/* A time the user gave on a model without a period is never changed: one
 * that is not a whole number of steps of dt is refused with the nearest
 * that are (and the dt that would fit it). */
static sdk_err not_whole(const char *opt, double T, double dt, int dt_given, sdk_errbuf *eb) {
  double x = T / dt, lo = floor(x), hi = ceil(x);
  char near[64] = "";
  if (lo >= 1) snprintf(near, sizeof near, "%.15g or ", lo * dt);
  return SDK_FAIL(eb, SDK_ERR_USAGE,
                  "%s %.15g is not a whole number of steps of %s %.15g (%.15g steps): give %s "
                  "%s%.15g, or --dt %.15g (%.15g steps)",
                  opt, T, dt_given ? "--dt" : "the default dt", dt, x, opt, near, hi * dt, T / hi,
                  hi);
}

/* steps of the run and of the transient */
static sdk_err plan_steps(const sdk_run_config *c, sdk_run *r, sdk_plan *p, sdk_errbuf *eb) {
  const int periodic = r->model->period != NULL;
  double nst = 0, dt = r->dt[0];
  int whole = 1;
  /* --sample-times without --t-end (--periods): the run ends at the last */
  const double last = r->sample_times ? r->sample_times[p->times.n - 1] : 0;
  if (periodic && c->t_end <= 0 && !(last > 0 && c->periods <= 0)) {
    nst = (double)(c->periods > 0 ? c->periods : 100) * (double)p->spp;
    if (!(nst <= (double)SDK_MAX_STEPS))
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "the run would take %.4g steps, more than the maximum of %lld "
                      "(SDK_MAX_STEPS, 2^53): give fewer --periods or fewer --spp",
                      nst, (long long)SDK_MAX_STEPS);
  } else {
    double T = c->t_end > 0 ? c->t_end : last > 0 ? last : 10.0;
    SDK_CHECK(time_steps(T, dt, "the run", &nst, &whole, eb));
    if (nst < 1)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--t-end %.15g is shorter than half a time step (dt = %.15g)", T, dt);
    /* on a periodic model the step is period/spp: the run ends at the step
     * nearest to --t-end, and says so; without a period a --t-end given is
     * kept exactly or refused, the default one (10) ends at the nearest step */
    if (!whole && !periodic && c->t_end > 0) return not_whole("--t-end", T, dt, c->dt > 0, eb);
    if (!whole) p->t_end_asked = T;
  }
  p->nsteps = (int64_t)nst;
  double tst = 0;
  if (c->transient_periods >= 0) {
    tst = (double)c->transient_periods * (double)p->spp;
    if (!(tst <= (double)SDK_MAX_STEPS))
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "the transient would take %.4g steps, more than the maximum of %lld "
                      "(SDK_MAX_STEPS, 2^53)",
                      tst, (long long)SDK_MAX_STEPS);
  } else if (c->transient > 0) {
    SDK_CHECK(time_steps(c->transient, dt, "the transient", &tst, &whole, eb));
    if (!whole && !periodic) return not_whole("--transient", c->transient, dt, c->dt > 0, eb);
    if (!whole) p->transient_asked = c->transient;
  }
  p->transient_steps = (int64_t)tst;
  if (p->transient_steps >= p->nsteps)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "the transient (%lld steps) must be shorter than the run (%lld steps)",
                    (long long)p->transient_steps, (long long)p->nsteps);
  if (c->sample_every < 0) return SDK_FAIL(eb, SDK_ERR_USAGE, "--sample-every must be >= 1");
  p->sample_every = c->sample_every > 0 ? c->sample_every
                    : p->spp > 0        ? p->spp
                                        : (p->nsteps >= 100 ? p->nsteps / 100 : 1);
  /* resumed with another --t-end: the default sample interval (1/100 of the
   * run) would change half way; keep the one the checkpoint was sampled at
   * (its record; a file without it: from its first two samples) */
  const struct sdk_ckpt *k = c->resume;
  if (k && c->sample_every == 0 && !c->sample_times) {
    if (k->sample_every > 0)
      p->sample_every = k->sample_every;
    else if (k->nsamples >= 2 && k->sample_step[1] > k->sample_step[0])
      p->sample_every = k->sample_step[1] - k->sample_step[0];
  }
  return SDK_OK;
}

/* What the time grid changed of what was asked (plan_dt, plan_steps),
 * said once (rank 0) as a note at the warning level (the run is not quite
 * what was asked: a caller's default logging shows it); the results record
 * it too (plan_results). */
static void plan_notices(const sdk_run_config *c, const sdk_run *r, const sdk_plan *p) {
  if (sdk_comm_rank(c->comm) != 0 || !sdk_log_on(c->logger, SDK_LOG_WARN)) return;
  if (c->env_note) sdk_log(c->logger, SDK_LOG_WARN, "sdekit: note: %s\n", c->env_note);
  double dt = r->dt[0];
  if (p->dt_default > 0)
    sdk_log(c->logger, SDK_LOG_WARN,
            "sdekit: note: dt %.15g (not the default %.15g), so that every --sample-times time "
            "is a step boundary\n",
            dt, p->dt_default);
  if (c->paths_from_data && p->sys.on && p->sys.particles > 1)
    sdk_log(c->logger, SDK_LOG_WARN,
            "sdekit: note: %lld systems of %lld particles per grid point, the number the data "
            "give (--init-from, --path-params; no --paths)\n",
            (long long)c->paths, (long long)p->sys.particles);
  else if (c->paths_from_data)
    sdk_log(c->logger, SDK_LOG_WARN,
            "sdekit: note: %lld paths per grid point, the number the data give (--init-from, "
            "--path-params; no --paths)\n",
            (long long)c->paths);
  if (r->sample_times && c->t_end <= 0 && c->periods <= 0)
    sdk_log(c->logger, SDK_LOG_WARN,
            "sdekit: note: no --t-end: the run ends at the last sample time, t = %.15g\n",
            (double)p->nsteps * dt);
  if (p->dt_asked > 0 && p->dt_column >= 0)
    sdk_log(c->logger, SDK_LOG_WARN,
            "sdekit: note: --dt %.15g gives %lld steps per period at grid point 0; the period "
            "depends on a scanned parameter, so the step is period/%lld at every grid point "
            "(%.15g here; scan/dt has them all)\n",
            p->dt_asked, (long long)p->spp, (long long)p->spp, dt);
  else if (p->dt_asked > 0)
    sdk_log(c->logger, SDK_LOG_WARN,
            "sdekit: note: --dt %.15g does not divide the period %.15g (%.15g steps): the step "
            "is period/%lld = %.15g\n",
            p->dt_asked, p->period0, p->period0 / p->dt_asked, (long long)p->spp, dt);
  if (p->t_end_asked > 0)
    sdk_log(c->logger, SDK_LOG_WARN,
            "sdekit: note: %s %.15g is not a whole number of steps of dt %.15g: the run ends at "
            "t = %.15g (%lld steps)\n",
            c->t_end > 0 ? "--t-end" : "the default t_end", p->t_end_asked, dt,
            (double)p->nsteps * dt, (long long)p->nsteps);
  if (p->transient_asked > 0)
    sdk_log(c->logger, SDK_LOG_WARN,
            "sdekit: note: --transient %.15g is not a whole number of steps of dt %.15g: the "
            "transient ends at t = %.15g (%lld steps)\n",
            p->transient_asked, dt, (double)p->transient_steps * dt, (long long)p->transient_steps);
  sdk_plan_model_notes(c, r, p);
}

/* a derived parameter that is not finite where the run would use it */
static sdk_err derived_check(const sdk_run *r, const sdk_plan *p, const double *pv, int64_t g,
                             sdk_errbuf *eb) {
  const sdk_model *m = r->model;
  for (int i = 0; m->pexpr && i < m->nparams; i++) {
    if (!m->pexpr[i] || p->given[i] || isfinite(pv[i]) || (g >= 0) != (p->scan_column[i] >= 0))
      continue;
    char gp[300] = "with the values given";
    if (g >= 0) {
      char name[280];
      sdk_grid_point_name(&r->r, g, name, sizeof name);
      snprintf(gp, sizeof gp, "at %s", name);
    }
    return SDK_FAIL(eb, SDK_ERR_USAGE, "%s:%d: [params] %s evaluates to %g %s (must be finite)",
                    m->path, m->param_line[i], m->params[i], pv[i], gp);
  }
  return SDK_OK;
}

/* per-grid-point values of the kernels: the scanned parameters, the derived
 * ones that vary (plan_varying), then dt when it varies */
static sdk_err plan_sv(const sdk_run_config *c, sdk_run *r, sdk_plan *p, sdk_errbuf *eb) {
  const sdk_model *m = r->model;
  SDK_CHECK(derived_check(r, p, r->param_values, -1, eb)); /* the fixed ones */
  p->sv = calloc((size_t)p->ngrid * (size_t)(p->nsv > 0 ? p->nsv : 1), sizeof(double));
  double *pv = malloc((size_t)(m->nparams + 1) * sizeof(double));
  if (!p->sv || !pv) {
    free(pv);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  sdk_err e = SDK_OK;
  for (int64_t g = 0; g < p->ngrid && e == SDK_OK; g++) {
    for (int j = 0; j < c->nscan; j++) {
      const sdk_scan_axis *ax = p->scan_col[j];
      p->sv[g * p->nsv + j] = ax->values[sdk_results_grid_index(&r->r, g, ax->axis)];
    }
    if (p->nvary > 0) {
      sdk_plan_grid_values(p, g, pv);
      for (int i = 0; i < m->nparams; i++)
        if (p->scan_column[i] >= c->nscan) p->sv[g * p->nsv + p->scan_column[i]] = pv[i];
      e = derived_check(r, p, pv, g, eb);
    }
    if (p->dt_column >= 0) p->sv[g * p->nsv + p->dt_column] = r->dt[g];
  }
  free(pv);
  return e;
}

/* noise coefficients, correlations, jumps, dichotomous, Levy noises, boundary
 * levels per grid point */
static sdk_err plan_noises(const sdk_run *r, const sdk_plan *p, sdk_errbuf *eb) {
  const sdk_model *m = r->model;
  if (m->nnoise == 0 && m->njump == 0 && m->ndich == 0 && m->nbound == 0 && m->nevent == 0 &&
      m->ncolored == 0 && m->nlevy == 0)
    return SDK_OK;
  double *pv = malloc((size_t)(m->nparams + 1) * sizeof(double));
  if (!pv) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err e = SDK_OK;
  for (int64_t g = 0; g < p->ngrid && e == SDK_OK; g++) {
    sdk_plan_grid_values(p, g, pv);
    char why[400];
    double dt = r->dt[p->dt_column >= 0 ? g : 0];
    if (sdk_model_check_noises(m, pv, dt, p->nsteps, why, sizeof why) ||
        sdk_model_check_levy_dt(m, dt, p->c->single, why, sizeof why) ||
        sdk_model_check_boundaries(m, pv, why, sizeof why) ||
        (!sdk_init_given(p->c) && sdk_model_check_init_bounds(m, pv, why, sizeof why)) ||
        sdk_model_check_events(m, pv, p->nsteps, why, sizeof why)) {
      char name[280];
      sdk_grid_point_name(&r->r, g, name, sizeof name);
      e = SDK_FAIL(eb, SDK_ERR_USAGE, "%s (at %s)", why, name);
    }
  }
  free(pv);
  return e;
}

/* The observables a configuration asks for (c->observe, and paths with
 * --save-paths), in the registry's order. */
sdk_err sdk_run_config_observables(const sdk_run_config *c, const sdk_obs_type **out, int *n,
                                   sdk_errbuf *eb) {
  int want[SDK_MAX_OBSERVABLES] = {0};
  const char *s = c->observe ? c->observe : "drift";
  while (*s) {
    size_t len = strcspn(s, ",");
    int k = 0;
    for (; sdk_registry_observables[k]; k++) {
      const sdk_obs_type *t = sdk_registry_observables[k];
      if (strlen(t->name) == len && !strncmp(t->name, s, len) && !(t->flags & SDK_OBS_BY_OPTION))
        break;
    }
    if (!sdk_registry_observables[k] || len == 0) {
      sdk_strbuf b;
      sdk_sb_init(&b);
      for (int i = 0; sdk_registry_observables[i]; i++)
        if (!(sdk_registry_observables[i]->flags & SDK_OBS_BY_OPTION))
          sdk_sb_printf(&b, "%s%s", b.len ? ", " : "", sdk_registry_observables[i]->name);
      sdk_err e = SDK_FAIL(eb, SDK_ERR_USAGE, "--observe: unknown observable '%.*s' (known: %s)",
                           (int)len, s, b.s ? b.s : "");
      sdk_sb_free(&b);
      return e;
    }
    want[k] = 1;
    s += len + (s[len] == ',');
  }
  *n = 0;
  for (int k = 0; sdk_registry_observables[k]; k++) {
    const sdk_obs_type *t = sdk_registry_observables[k];
    if (t->flags & SDK_OBS_BY_OPTION)
      want[k] = (!strcmp(t->name, "paths") && c->obs.nsave > 0) ||
                (!strcmp(t->name, "adaptive") && c->adaptive);
    if (want[k]) out[(*n)++] = t;
  }
  return SDK_OK;
}

static sdk_err plan_observe_list(const sdk_run_config *c, const sdk_model *m, sdk_plan *p,
                                 sdk_errbuf *eb) {
  const sdk_obs_type *t[SDK_MAX_OBSERVABLES];
  int n = 0;
  SDK_CHECK(sdk_run_config_observables(c, t, &n, eb));
  if (m->nobs > 0) { /* user observables switch theirs on, in the registry's order */
    int k = 0, on = 0;
    for (int i = 0; i < n; i++)
      on |= (t[i]->flags & SDK_OBS_BY_MODEL) != 0;
    for (int r = 0; !on && sdk_registry_observables[r] && n < SDK_MAX_OBSERVABLES; r++) {
      const sdk_obs_type *x = sdk_registry_observables[r];
      if (k < n && t[k] == x)
        k++;
      else if (x->flags & SDK_OBS_BY_MODEL) {
        memmove(t + k + 1, t + k, (size_t)(n - k) * sizeof *t);
        t[k++] = x;
        n++;
        on = 1;
      }
    }
  }
  p->nobs = 0;
  for (int i = 0; i < n; i++) {
    p->obs[p->nobs++] = (sdk_obs){.type = t[i]};
    if (t[i]->flags & SDK_OBS_SAMPLED) p->sampling = 1;
  }
  return SDK_OK;
}

static int wants_sums(const sdk_plan *p) {
  for (int i = 0; i < p->nobs; i++)
    if (p->obs[i].type->flags & SDK_OBS_SYSTEM_SUMS) return 1;
  return 0;
}

/* what was run, for the results and the observables */
static sdk_err plan_results(const sdk_run_config *c, sdk_run *r, sdk_plan *p, sdk_errbuf *eb) {
  sdk_results *R = &r->r;
  const sdk_model *m = r->model;
  snprintf(r->version, sizeof r->version, "%s", SDK_VERSION);
  R->version = r->version;
  R->model_name = m->name;
  R->model_path = m->file ? m->file : m->path; /* which file was used, resolved */
  R->model_text = m->text;
  R->nvars = m->nvars;
  R->var_names = (const char *const *)m->vars;
  R->nparams = m->nparams;
  R->param_names = r->param_names;
  /* the values in force; NaN where they vary over the grid (scanned: their
   * values are the scan axis; derived from a scanned one) */
  for (int i = 0; i < m->nparams; i++)
    r->result_param_values[i] = p->scan_column[i] >= 0 ? NAN : r->param_values[i];
  SDK_CHECK(sdk_pathdata_results(p, eb));
  R->param_values = r->result_param_values;
  R->ngrid = p->ngrid;
  R->paths = p->ppg;
  R->particles = p->sys.particles;
  R->seed = c->seed;
  R->scheme = p->scheme->name;
  R->scheme_why = p->scheme_why;
  R->noise = p->noise ? p->noise->name : NULL;
  R->calculus = !m->multiplicative                         ? NULL
                : m->calculus == SDK_CALCULUS_STRATONOVICH ? "stratonovich"
                                                           : "ito";
  R->precision = c->single ? "single" : "double";
  /* the results outlive the configuration: their own copy */
  r->command_line = strdup(c->command_line ? c->command_line : "");
  R->command_line = r->command_line ? r->command_line : "";
  R->period = p->dt_column >= 0 ? NAN : p->period0; /* (a scanned period: spp x dt) */
  R->spp = p->spp;
  R->dt = r->dt;
  R->nsteps = p->nsteps;
  R->transient_steps = p->transient_steps;
  R->sample_every = p->sample_every;
  R->dt_asked = p->dt_asked;
  R->t_end_asked = p->t_end_asked;
  R->t_end = p->t_end_asked > 0 ? (double)p->nsteps * r->dt[0] : 0;
  R->transient_asked = p->transient_asked;
  for (int i = 0; i < p->nobs; i++)
    R->obs[R->nobs++] = p->obs[i].type->name;
  return SDK_OK;
}

/* the observables' view of the run, and their setup */
sdk_err sdk_plan_observables(sdk_plan *p, sdk_errbuf *eb) {
  const sdk_run_config *c = p->c;
  sdk_run *r = p->run;
  SDK_CHECK(sdk_observe_opts_check(&c->obs, r->model, &r->r, eb));
  sdk_obs_ctx *o = &p->octx;
  o->model = r->model;
  o->opts = &c->obs;
  o->R = &r->r;
  o->store = &r->r.store;
  o->paths = &p->paths;
  o->param_values = r->param_values;
  o->scan_column = p->scan_column;
  o->sv = p->sv;
  o->nsv = p->nsv;
  o->ppg = p->ppg;
  o->windowed = c->window != NULL;
  o->systems = p->sys.on;
  o->systems_per_grid = p->sys.systems;
  p->sampling = sdk_corr_sampling(o, p->obs, p->nobs); /* (acf in the kernel samples nothing) */
  p->nsamples_max = !p->sampling      ? 0
                    : p->sample_steps ? p->times.n
                                      : p->nsteps / p->sample_every + 1;
  o->nsamples_max = p->nsamples_max;
  o->path_param = p->pp_param;
  o->sums_var = p->sys.sums_var;
  o->sums_period = p->sys.sums_period;
  o->sums_every = c->obs.order_every > 0 ? c->obs.order_every : p->sample_every;
  for (int i = 0; i < p->nobs; i++) {
    const sdk_obs_type *t = p->obs[i].type;
    if ((t->flags & SDK_OBS_SYSTEMS_ONLY) && !p->sys.on)
      return SDK_FAIL(eb, SDK_ERR_INTERNAL, "--observe %s needs systems of particles", t->name);
    SDK_CHECK(t->setup(o, &p->obs[i].state, eb));
  }
  /* a TSV header naming two columns alike would fail its write after the
   * whole run: refused now, from the datasets just made */
  for (int i = 0; c->tsv && i < p->nobs; i++)
    SDK_CHECK(sdk_tsv_check_headers(&r->r, p->obs[i].type, eb));
  return SDK_OK;
}

/* A window of the paths (run.h sdk_path_window): whole fold units (whole
 * chunks with w->chunks) of grid points of key_ppg paths (whole fold units),
 * independent paths only; the key's paths of all
 * grid points at most 2^38, so that a GPU's chunk ids g * nch + c stay below
 * 2^31 (backend/cuda.c). */
static sdk_err plan_window(const sdk_run_config *c, sdk_plan *p, sdk_errbuf *eb) {
  const sdk_path_window *w = c->window;
  const int64_t u = SDK_PATH_WINDOW_UNIT;
  if (p->sys.on)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "systems of particles (--particles, [meanfield], [pair]) cannot be run in "
                    "batches of paths (--target-se, --target-rse, --mlmc): their particles "
                    "interact within a system; give --paths");
  if (w->key_ppg < u || w->key_ppg % u || !w->first || !w->count ||
      w->key_ppg > ((int64_t)1 << 38) / p->ngrid)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL,
                    "a window of paths needs a key of a multiple of %lld paths per grid point, "
                    "at most 2^38 paths in all (%lld grid points x %lld)",
                    (long long)u, (long long)p->ngrid, (long long)w->key_ppg);
  const int64_t wu = w->chunks ? SDK_RED_CHUNK : u;
  for (int64_t g = 0; g < p->ngrid; g++)
    if (w->first[g] < 0 || w->count[g] < 0 || w->first[g] % wu || w->count[g] % wu ||
        w->first[g] > w->key_ppg - w->count[g])
      return SDK_FAIL(eb, SDK_ERR_INTERNAL,
                      "the window of paths of grid point %lld ([%lld, +%lld) of %lld) is not "
                      "made of whole units of %lld paths",
                      (long long)g, (long long)w->first[g], (long long)w->count[g],
                      (long long)w->key_ppg, (long long)wu);
  p->ppg = w->key_ppg;
  return SDK_OK;
}

sdk_err sdk_plan_make(const sdk_run_config *c, sdk_run *r, sdk_plan *p, sdk_errbuf *eb) {
  memset(p, 0, sizeof *p);
  p->c = c;
  p->run = r;
  sdk_store_init(&r->r.store);
  SDK_CHECK(sdk_plan_model(c, &r->model, eb));
  SDK_CHECK(plan_observe_list(c, r->model, p, eb));
  int sums = wants_sums(p);
  SDK_CHECK(plan_scheme(c, r->model, sums, p, eb));
  SDK_CHECK(plan_params(c, r, p, eb));
  SDK_CHECK(plan_scan(c, r, p, eb));
  plan_varying(c, r, p);
  SDK_CHECK(plan_dt(c, r, p, eb));
  SDK_CHECK(sdk_plan_sample_dt(c, r, p, eb));
  SDK_CHECK(plan_steps(c, r, p, eb));
  SDK_CHECK(sdk_plan_sample_steps(c, r, p, eb));
  SDK_CHECK(plan_sv(c, r, p, eb));
  SDK_CHECK(plan_noises(r, p, eb));
  SDK_CHECK(sdk_systems_plan(&p->sys, r->model, c->particles, c->paths, p->scheme, sums,
                             r->param_values, p->scan_column, eb));
  p->ppg = p->sys.particles > 1 ? c->paths * p->sys.particles : c->paths;
  if (c->window) SDK_CHECK(plan_window(c, p, eb));
  SDK_CHECK(sdk_plan_path_params(p, eb));
  SDK_CHECK(sdk_plan_adaptive(p, eb));
  SDK_CHECK(sdk_plan_dt_check(p, eb));
  SDK_CHECK(sdk_plan_path_data(p, eb));
  plan_notices(c, r, p);
  SDK_CHECK(plan_results(c, r, p, eb));
  return SDK_OK;
}

void sdk_plan_codegen_opts(const sdk_plan *p, sdk_target t, sdk_codegen_opts *o) {
  const sdk_run_config *c = p->c;
  memset(o, 0, sizeof *o);
  o->model = p->run->model;
  o->scheme = p->scheme;
  o->target = t;
  o->single = c->single, o->fast_math = c->fast_math;
  o->pvalues = p->run->param_values;
  o->scan_column = p->scan_column;
  o->nsv = p->nsv, o->sv = p->sv;
  o->dt_column = p->dt_column;
  o->dt = p->run->dt[0];
  o->spp = p->spp;
  o->ngrid = p->ngrid;
  o->sysmode = p->sys.on;
  o->order_var = p->sys.on ? p->sys.sums_var : -1;
  o->order_factor = p->sys.sums_factor;
  o->particles = p->sys.particles;
  o->compensate = c->single && !c->no_compensation && !p->sys.on;
  o->comp_defer = o->compensate && t == SDK_TARGET_CUDA;
  o->comp_all = c->compensate_all;
  o->bridge = !c->no_bridge_correction;
  o->noise = p->noise;
  const sdk_scheme_type *own = sdk_native_scheme(o->model->calculus);
  o->own_scheme = own ? own->name : NULL;
  o->schemes = sdk_registry_schemes;
  o->tuning = &c->tuning;
  o->cancel = c->cancel;
  o->cancel_user = c->cancel_user;
  for (int i = 0; i < p->nobs; i++)
    if (p->obs[i].type->flags & SDK_OBS_TIME_AVERAGES) o->tavg = 1;
  if (o->tavg) o->tavg_from = p->transient_steps;
  sdk_obs_ctx oc = p->octx; /* (as sdk_plan_observables will set it: codegen alone does not) */
  oc.model = p->run->model, oc.opts = &p->c->obs, oc.R = &p->run->r, oc.systems = p->sys.on;
  sdk_corr_opts(&oc, p->sample_every, o); /* (host_rows, acf in the kernel) */
  o->dt_check = c->dt_check && !p->sys.on;
  o->dtc_mark = p->transient_steps;
  o->path_param = p->pp_param;
  o->path_part = p->pp_part;
  o->init_given = sdk_init_given(c);
  sdk_plan_adaptive_opts(p, o);
}

void sdk_grid_point_name(const sdk_results *R, int64_t g, char *buf, size_t n) {
  if (R->nscan == 0) {
    snprintf(buf, n, "grid point 0");
    return;
  }
  size_t len = (size_t)snprintf(buf, n, "grid point %lld (", (long long)g);
  for (int j = 0; j < sdk_results_nscan_params(R) && len < n; j++) {
    const sdk_scan_axis *ax = sdk_results_scan_param(R, j);
    len += (size_t)snprintf(buf + len, n - len, "%s%s=%g", j ? ", " : "", ax->name,
                            ax->values[sdk_results_grid_index(R, g, ax->axis)]);
  }
  if (len < n) snprintf(buf + len, n - len, ")");
}

void sdk_plan_free(sdk_plan *p) {
  for (int i = 0; i < p->nobs; i++)
    if (p->obs[i].type->free) p->obs[i].type->free(p->obs[i].state);
  p->nobs = 0;
  for (int s = 0; p->be && s < p->nshards; s++)
    if (p->shards[s].ens) p->be->free(&p->shards[s].ens);
  free(p->shards);
  free(p->owner);
  free(p->xchunks);
  if (p->be && p->mod) p->be->module_free(&p->mod);
  if (p->be && p->ctx) p->be->close(&p->ctx);
  free(p->src);
  free(p->scan_column);
  free(p->given);
  free(p->pp_param);
  free(p->pp_part);
  free(p->sv);
  free(p->mom);
  free(p->omom);
  free(p->nonfinite);
  free(p->bad);
  free(p->bad_step);
  free(p->sample_step);
  free(p->sample_steps);
  sdk_sample_times_free(&p->times);
  sdk_systems_free(&p->sys);
  memset(p, 0, sizeof *p);
}
