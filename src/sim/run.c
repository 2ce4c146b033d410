#include "sim/run.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "codegen/codegen.h"
#include "core/strbuf.h"
#include "model/model.h"
#include "observe/observe.h"
#include "sim/checkpoint.h"
#include "sim/registry.h"

void sdk_run_config_defaults(sdk_run_config *c) {
  memset(c, 0, sizeof *c);
  c->paths = 1024;
  c->transient = -1;
  c->transient_periods = -1;
  c->scheme = NULL; /* srk2, or euler for multiplicative noise */
  c->seed = 1;
  c->backend = "cpu";
  c->single = 1;
  c->fast_math = 1;
  c->observe = SDK_OBS_DRIFT;
  c->bins = 100;
  c->checkpoint_every = -1;
}

void sdk_scan_free(sdk_scan_axis *ax) {
  free(ax->values);
  ax->values = NULL;
}

sdk_err sdk_scan_parse(const char *spec, sdk_scan_axis *ax, sdk_errbuf *eb) {
  memset(ax, 0, sizeof *ax);
  const char *eq = strchr(spec, '=');
  if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof ax->name)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--scan '%s': expected NAME=START:STOP:N[:log]", spec);
  snprintf(ax->name, sizeof ax->name, "%.*s", (int)(eq - spec), spec);
  char *rest = sdk_strdup(eq + 1);
  if (!rest) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  char *f[5] = {0};
  int nf = 0;
  char *save = NULL;
  /* strtok would merge empty fields; split by hand so "1::3" is an error */
  char *p = rest;
  while (nf < 5) {
    f[nf++] = p;
    char *c = strchr(p, ':');
    if (!c) break;
    *c = 0;
    p = c + 1;
  }
  (void)save;
  sdk_err err = SDK_OK;
  double n;
  if (nf < 3 || nf > 4 || (nf == 4 && strcmp(f[3], "log") && strcmp(f[3], "lin")) ||
      !sdk_parse_number(f[0], &ax->start) || !sdk_parse_number(f[1], &ax->stop) ||
      !sdk_parse_number(f[2], &n) || n < 1 || n != floor(n) || n > 1e7) {
    err = SDK_FAIL(eb, SDK_ERR_USAGE,
                   "--scan '%s': expected NAME=START:STOP:N[:log] with numbers START, STOP and "
                   "a whole number N >= 1",
                   spec);
    goto out;
  }
  ax->n = (int64_t)n;
  ax->log = nf == 4 && !strcmp(f[3], "log");
  if (ax->log && (ax->start <= 0 || ax->stop <= 0)) {
    err = SDK_FAIL(eb, SDK_ERR_USAGE, "--scan '%s': a log scan needs START and STOP > 0", spec);
    goto out;
  }
out:
  free(rest);
  return err;
}

/* The grid values are made only once the run has checked its size: a mistyped
 * --scan of 1e7 points is refused at once instead of after seconds of filling. */
sdk_err sdk_scan_fill(sdk_scan_axis *ax, sdk_errbuf *eb) {
  if (ax->values) return SDK_OK;
  ax->values = malloc((size_t)ax->n * sizeof(double));
  if (!ax->values) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int64_t i = 0; i < ax->n; i++) {
    double u = ax->n > 1 ? (double)i / (double)(ax->n - 1) : 0;
    ax->values[i] = ax->log ? exp(log(ax->start) + u * (log(ax->stop) - log(ax->start)))
                            : ax->start + u * (ax->stop - ax->start);
  }
  /* round to 15 significant digits so that 4.2 + 6*1.1 prints as 10.8:
   * the grid is what the user typed, not its binary rounding error */
  for (int64_t i = 0; i < ax->n; i++) {
    char buf[40];
    snprintf(buf, sizeof buf, "%.15g", ax->values[i]);
    ax->values[i] = strtod(buf, NULL);
  }
  if (ax->n > 1) ax->values[ax->n - 1] = ax->stop; /* exact end point */
  return SDK_OK;
}

struct sdk_run {
  sdk_results r;
  sdk_model *model;
  char *var_names_store;
  const char **var_names;
  const char **param_names;
  double *param_values;
  double *dt;
  double seconds, path_steps;
  char device[256];
  char version[32];
  char problem[1024]; /* results complete but some grid points NaN (sdk_run_problem) */
};

const sdk_results *sdk_run_results(const sdk_run *r) {
  return &r->r;
}
double sdk_run_seconds(const sdk_run *r) {
  return r->seconds;
}
double sdk_run_path_steps(const sdk_run *r) {
  return r->path_steps;
}
const char *sdk_run_device(const sdk_run *r) {
  return r->device;
}

void sdk_run_destroy(sdk_run **rp) {
  if (!rp || !*rp) return;
  sdk_run *r = *rp;
  for (int i = 0; i < r->r.nscan; i++)
    sdk_scan_free(&r->r.scan[i]);
  free(r->r.drift);
  free(r->r.drift_err);
  free(r->r.sample_step);
  free(r->r.mean);
  free(r->r.var);
  free(r->r.hist_lo);
  free(r->r.hist_hi);
  free(r->r.density);
  free(r->r.hist_under);
  free(r->r.hist_over);
  free(r->var_names);
  free(r->param_names);
  free(r->param_values);
  free(r->dt);
  free(r->r.saved_index);
  free(r->r.saved);
  free(r->r.dlo);
  free(r->r.dhi);
  free(r->r.dP);
  free(r->r.dunder);
  free(r->r.dover);
  free(r->r.nonfinite);
  sdk_sys_results_free(&r->r);
  sdk_model_destroy(&r->model);
  free(r);
  *rp = NULL;
}

/* Values of parameters at grid point g, for evaluating the period. */
typedef struct {
  const double *pv;
} eval_ctx;

static double eval_param(void *user, sdk_symkind k, int idx) {
  eval_ctx *c = user;
  return k == SDK_SYM_PARAM ? c->pv[idx] : NAN;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Everything derived from the config before any backend is touched. */
typedef struct plan {
  int *scan_column; /* per param */
  int nsv;
  int dt_column;
  double *sv; /* ngrid * nsv */
  int64_t ngrid;
  int64_t spp;
  double period0;
  int64_t nsteps, transient_steps, sample_every;
  const sdk_scheme_type *scheme;
  int drift_var;
  sdk_sysplan sys; /* systems of interacting particles (observe/observe.h) */
} plan;

static void plan_free(plan *p) {
  free(p->scan_column);
  free(p->sv);
  sdk_sys_free(&p->sys);
  memset(p, 0, sizeof *p);
}

static void grid_params(const sdk_results *c, int64_t g, char *buf, size_t n) {
  buf[0] = 0;
  int64_t rem = g;
  char part[2][128] = {"", ""};
  for (int a = c->nscan - 1; a >= 0; a--) {
    snprintf(part[a], sizeof part[a], "%s=%g", c->scan[a].name,
             c->scan[a].values[rem % c->scan[a].n]);
    rem /= c->scan[a].n;
  }
  if (c->nscan == 0)
    snprintf(buf, n, "grid point 0");
  else if (c->nscan == 1)
    snprintf(buf, n, "grid point %lld (%s)", (long long)g, part[0]);
  else
    snprintf(buf, n, "grid point %lld (%s, %s)", (long long)g, part[0], part[1]);
}

static sdk_err make_plan(const sdk_run_config *c, sdk_run *r, plan *p, sdk_errbuf *eb) {
  sdk_model *m = r->model;
  memset(p, 0, sizeof *p);
  /* euler for multiplicative noise and for systems of particles (observe/observe.h) */
  const char *sname =
      c->scheme ? c->scheme
      : (m->multiplicative || m->interacting || m->npart > 0 || (c->observe & SDK_OBS_ORDER))
          ? "euler"
          : "srk2";
  p->scheme = sdk_find_scheme(sname);
  if (!p->scheme) {
    sdk_strbuf b;
    sdk_sb_init(&b);
    sdk_registry_scheme_names(&b);
    sdk_err e =
        SDK_FAIL(eb, SDK_ERR_USAGE, "unknown scheme '%s' (known: %s)", sname, b.s ? b.s : "");
    sdk_sb_free(&b);
    return e;
  }
  if (!(p->scheme->noise_kinds & SDK_NOISE_DIAGONAL) && m->multiplicative)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "scheme %s assumes additive noise but model '%s' has state-dependent noise; "
                    "use --scheme euler (Ito interpretation)",
                    p->scheme->name, m->name);
  if (c->paths <= 0) return SDK_FAIL(eb, SDK_ERR_USAGE, "--paths must be at least 1");

  /* parameters: defaults, --set */
  r->param_values = malloc((size_t)(m->nparams + 1) * sizeof(double));
  r->param_names = malloc((size_t)(m->nparams + 1) * sizeof(char *));
  p->scan_column = malloc((size_t)(m->nparams + 1) * sizeof(int));
  if (!r->param_values || !r->param_names || !p->scan_column)
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int i = 0; i < m->nparams; i++) {
    r->param_values[i] = m->pvalues[i];
    r->param_names[i] = m->params[i];
    p->scan_column[i] = -1;
  }
  for (int i = 0; i < c->nset; i++) {
    int k = sdk_model_param_index(m, c->set_name[i]);
    if (k < 0) {
      char *known = sdk_model_param_list(m);
      sdk_err e =
          SDK_FAIL(eb, SDK_ERR_USAGE, "--set %s: model '%s' has no parameter '%s' (parameters: %s)",
                   c->set_name[i], m->name, c->set_name[i], known ? known : "?");
      free(known);
      return e;
    }
    r->param_values[k] = c->set_value[i];
  }
  /* scans */
  if (c->nscan > SDK_MAX_SCAN)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "at most %d --scan axes", SDK_MAX_SCAN);
  p->ngrid = 1;
  for (int a = 0; a < c->nscan; a++) {
    int k = sdk_model_param_index(m, c->scan[a].name);
    if (k < 0) {
      char *known = sdk_model_param_list(m);
      sdk_err e = SDK_FAIL(eb, SDK_ERR_USAGE,
                           "--scan %s: model '%s' has no parameter '%s' (parameters: %s)",
                           c->scan[a].name, m->name, c->scan[a].name, known ? known : "?");
      free(known);
      return e;
    }
    if (p->scan_column[k] >= 0)
      return SDK_FAIL(eb, SDK_ERR_USAGE, "--scan %s given twice", c->scan[a].name);
    p->scan_column[k] = a;
    p->ngrid *= c->scan[a].n;
  }
  if (p->ngrid > (int64_t)1 << 40 || c->paths > ((int64_t)1 << 40) / p->ngrid)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "too many paths (%lld grid points x %lld paths)",
                    (long long)p->ngrid, (long long)c->paths);
  for (int a = 0; a < c->nscan; a++) {
    sdk_scan_axis *ax = &r->r.scan[a];
    *ax = c->scan[a];
    ax->values = NULL;
    r->r.nscan = a + 1;
    if (c->scan[a].values) {
      ax->values = malloc((size_t)ax->n * sizeof(double));
      if (!ax->values) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
      memcpy(ax->values, c->scan[a].values, (size_t)ax->n * sizeof(double));
    } else {
      SDK_CHECK(sdk_scan_fill(ax, eb));
    }
    r->param_values[sdk_model_param_index(m, ax->name)] = ax->values[0];
  }

  /* time step: per grid point when the period depends on a scanned parameter */
  r->dt = malloc((size_t)p->ngrid * sizeof(double));
  double *pv = malloc((size_t)(m->nparams + 1) * sizeof(double));
  if (!r->dt || !pv) {
    free(pv);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  int periodic = m->period != NULL;
  if (!periodic && (c->spp > 0 || c->periods > 0 || c->transient_periods >= 0)) {
    free(pv);
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "model '%s' has no period ([model] period = ...): use --dt, --t-end and "
                    "--transient instead of --spp, --periods and --transient-periods",
                    m->name);
  }
  if (c->dt < 0 || (c->dt == 0 && c->dt != 0)) {
    free(pv);
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--dt must be > 0");
  }
  if (c->spp > 0 && c->dt > 0) {
    free(pv);
    return SDK_FAIL(eb, SDK_ERR_USAGE, "give --dt or --spp, not both");
  }
  if (c->t_end > 0 && c->periods > 0) {
    free(pv);
    return SDK_FAIL(eb, SDK_ERR_USAGE, "give --t-end or --periods, not both");
  }
  if (c->transient >= 0 && c->transient_periods >= 0) {
    free(pv);
    return SDK_FAIL(eb, SDK_ERR_USAGE, "give --transient or --transient-periods, not both");
  }
  int dt_varies = 0;
  for (int64_t g = 0; g < p->ngrid; g++) {
    memcpy(pv, r->param_values, (size_t)m->nparams * sizeof(double));
    int64_t rem = g;
    for (int a = c->nscan - 1; a >= 0; a--) {
      int64_t i = rem % c->scan[a].n;
      rem /= c->scan[a].n;
      pv[sdk_model_param_index(m, c->scan[a].name)] = r->r.scan[a].values[i];
    }
    if (periodic) {
      eval_ctx ec = {pv};
      double P = sdk_expr_eval(m->period, eval_param, &ec);
      if (!isfinite(P) || P <= 0) {
        free(pv);
        char gp[300];
        grid_params(&r->r, g, gp, sizeof gp);
        return SDK_FAIL(eb, SDK_ERR_USAGE, "%s:%d: period evaluates to %g at %s (must be > 0)",
                        m->path, m->period_line, P, gp);
      }
      if (g == 0) {
        p->period0 = P;
        if (c->dt > 0) {
          double s = floor(P / c->dt + 0.5);
          p->spp = s < 1 ? 1 : (int64_t)s;
        } else
          p->spp = c->spp > 0 ? c->spp : 100;
      }
      r->dt[g] = P / (double)p->spp;
    } else {
      r->dt[g] = c->dt > 0 ? c->dt : 0.01;
    }
    if (g > 0 && r->dt[g] != r->dt[0]) dt_varies = 1;
  }
  free(pv);
  if (dt_varies && (c->t_end > 0 || c->transient > 0))
    return SDK_FAIL(
        eb, SDK_ERR_USAGE,
        "the period depends on a scanned parameter, so dt differs between grid "
        "points: give --periods and --transient-periods instead of --t-end/--transient");
  /* steps: counted in doubles first, so that no product can overflow */
  double nst;
  if (periodic && c->t_end <= 0)
    nst = (double)(c->periods > 0 ? c->periods : 100) * (double)p->spp;
  else
    nst = floor((c->t_end > 0 ? c->t_end : 10.0) / r->dt[0] + 0.5);
  if (!(nst <= (double)SDK_MAX_STEPS))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "the run would take %.4g steps, more than the maximum of %lld (SDK_MAX_STEPS, "
                    "2^53): give fewer --periods, a shorter --t-end or a larger --dt",
                    nst, (long long)SDK_MAX_STEPS);
  p->nsteps = (int64_t)nst;
  if (p->nsteps < 1) return SDK_FAIL(eb, SDK_ERR_USAGE, "--t-end is shorter than one time step");
  double tst = 0;
  if (c->transient_periods >= 0)
    tst = (double)c->transient_periods * (double)p->spp;
  else if (c->transient >= 0)
    tst = floor(c->transient / r->dt[0] + 0.5);
  if (!(tst <= (double)SDK_MAX_STEPS))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "the transient would take %.4g steps, more than the maximum of %lld "
                    "(SDK_MAX_STEPS, 2^53)",
                    tst, (long long)SDK_MAX_STEPS);
  p->transient_steps = (int64_t)tst;
  if (p->transient_steps >= p->nsteps)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "the transient (%lld steps) must be shorter than the run (%lld steps)",
                    (long long)p->transient_steps, (long long)p->nsteps);
  if (c->sample_every < 0) return SDK_FAIL(eb, SDK_ERR_USAGE, "--sample-every must be >= 1");
  p->sample_every = c->sample_every > 0 ? c->sample_every
                    : p->spp > 0        ? p->spp
                                        : (p->nsteps >= 100 ? p->nsteps / 100 : 1);
  /* the sampled observables are held in memory: refuse sizes that cannot be */
  if (c->observe & (SDK_OBS_MOMENTS | SDK_OBS_DENSITY) || c->nsave > 0) {
    double nsmp = (double)(p->nsteps / p->sample_every + 1);
    double per = (double)m->nvars * (double)(c->nsave > 0 ? c->nsave : 1);
    if (c->observe & SDK_OBS_DENSITY && (double)c->bins > per) per = (double)c->bins;
    double vals = (double)p->ngrid * nsmp * per;
    if (vals > (double)SDK_MAX_SAMPLE_VALUES)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "%.4g samples x %lld grid points would hold %.4g values, more than the "
                      "maximum of %lld (SDK_MAX_SAMPLE_VALUES): give a larger --sample-every",
                      nsmp, (long long)p->ngrid, vals, (long long)SDK_MAX_SAMPLE_VALUES);
  }
  /* per-grid-point values: scanned params, then dt */
  p->nsv = c->nscan + (dt_varies ? 1 : 0);
  p->dt_column = dt_varies ? c->nscan : -1;
  p->sv = calloc((size_t)p->ngrid * (size_t)(p->nsv > 0 ? p->nsv : 1), sizeof(double));
  if (!p->sv) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int64_t g = 0; g < p->ngrid; g++) {
    int64_t rem = g;
    for (int a = c->nscan - 1; a >= 0; a--) {
      p->sv[g * p->nsv + a] = r->r.scan[a].values[rem % c->scan[a].n];
      rem /= c->scan[a].n;
    }
    if (dt_varies) p->sv[g * p->nsv + p->dt_column] = r->dt[g];
  }
  /* drift variable */
  p->drift_var = 0;
  if (c->drift_var) {
    p->drift_var = sdk_model_var_index(m, c->drift_var);
    if (p->drift_var < 0) {
      char *known = sdk_model_var_list(m);
      sdk_err e =
          SDK_FAIL(eb, SDK_ERR_USAGE, "--drift %s: model '%s' has no variable '%s' (variables: %s)",
                   c->drift_var, m->name, c->drift_var, known ? known : "?");
      free(known);
      return e;
    }
  }
  for (int i = 0; i < c->nhist_range; i++) {
    if (sdk_model_var_index(m, c->hist_range_var[i]) < 0) {
      char *known = sdk_model_var_list(m);
      sdk_err e = SDK_FAIL(
          eb, SDK_ERR_USAGE, "--hist-range %s: model '%s' has no variable '%s' (variables: %s)",
          c->hist_range_var[i], m->name, c->hist_range_var[i], known ? known : "?");
      free(known);
      return e;
    }
    if (!(c->hist_range_hi[i] > c->hist_range_lo[i]))
      return SDK_FAIL(eb, SDK_ERR_USAGE, "--hist-range %s: HI must be greater than LO",
                      c->hist_range_var[i]);
  }
  if ((c->observe & SDK_OBS_HIST) && (c->bins < 1 || c->bins > 100000000))
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--bins must be between 1 and 1e8");
  if ((c->observe & SDK_OBS_HIST) &&
      (double)p->ngrid * (double)m->nvars * (double)c->bins > (double)SDK_MAX_SAMPLE_VALUES)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "histograms of %lld grid points x %d variables x %lld bins exceed the maximum "
                    "of %lld values (SDK_MAX_SAMPLE_VALUES): give fewer --bins",
                    (long long)p->ngrid, m->nvars, (long long)c->bins,
                    (long long)SDK_MAX_SAMPLE_VALUES);
  p->period0 = periodic ? p->period0 : 0;
  if (!periodic) p->spp = 0;
  return sdk_sys_plan(&p->sys, c, m, r->param_values, p->scan_column, eb);
}

static void fill_codegen(const sdk_run_config *c, const sdk_run *r, const plan *p, sdk_target t,
                         sdk_codegen_opts *o) {
  memset(o, 0, sizeof *o);
  o->model = r->model;
  o->scheme = p->scheme;
  o->target = t;
  o->single = c->single;
  o->pvalues = r->param_values;
  o->scan_column = p->scan_column;
  o->nsv = p->nsv;
  o->dt_column = p->dt_column;
  o->dt = r->dt[0];
  o->spp = p->spp;
  o->ngrid = p->ngrid;
  o->sysmode = p->sys.on;
  o->order_var = p->sys.on ? p->sys.order_var : -1;
  o->order_factor = p->sys.order_factor;
  o->particles = p->sys.particles;
  o->compensate = c->single && !c->no_compensation && !p->sys.on;
  o->comp_defer = o->compensate && t == SDK_TARGET_CUDA;
  o->tuning = &c->tuning;
}

static sdk_err prepare(const sdk_run_config *c, sdk_run **out, plan *p, sdk_errbuf *eb) {
  *out = NULL;
  sdk_run *r = calloc(1, sizeof *r);
  if (!r) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err err;
  if (c->model_text)
    SDK_TRY(err,
            sdk_model_parse(c->model_text, c->model_path ? c->model_path : c->model, &r->model, eb),
            fail);
  else
    SDK_TRY(err, sdk_model_load(c->model, &r->model, eb), fail);
  SDK_TRY(err, make_plan(c, r, p, eb), fail);
  *out = r;
  return SDK_OK;
fail:
  plan_free(p);
  sdk_run_destroy(&r);
  return err;
}

sdk_err sdk_run_codegen(const sdk_run_config *c, int cuda, char **src, sdk_errbuf *eb) {
  sdk_run *r = NULL;
  plan p;
  SDK_CHECK(prepare(c, &r, &p, eb));
  sdk_codegen_opts o;
  fill_codegen(c, r, &p, cuda ? SDK_TARGET_CUDA : SDK_TARGET_CPU, &o);
  sdk_err err = sdk_codegen(&o, src, eb);
  plan_free(&p);
  sdk_run_destroy(&r);
  return err;
}

/* The sampled observables of a run, [g][s]... with `stride` samples allotted
 * per grid point (NULL arrays: not sampled). */
typedef struct sample_view {
  double *mean, *var, *saved, *dlo, *dhi, *dP;
  uint64_t *dunder, *dover;
  int64_t stride;
} sample_view;

/* Copy samples 0..ns-1 of every grid point from src to dst (where both hold
 * the observable); dst may be src with a smaller stride (compaction). */
static void copy_samples(const sample_view *d, const sample_view *s, int64_t ng, int64_t ns,
                         int64_t nv, int64_t nsv, int64_t nb) {
  for (int64_t g = 0; g < ng; g++)
    for (int64_t k = 0; k < ns; k++) {
      int64_t a = g * d->stride + k, o = g * s->stride + k;
      if (d->mean && s->mean)
        for (int64_t v = 0; v < nv; v++) {
          d->mean[a * nv + v] = s->mean[o * nv + v];
          d->var[a * nv + v] = s->var[o * nv + v];
        }
      if (d->saved && s->saved)
        for (int64_t q = 0; q < nsv; q++)
          for (int64_t v = 0; v < nv; v++)
            d->saved[((g * nsv + q) * d->stride + k) * nv + v] =
                s->saved[((g * nsv + q) * s->stride + k) * nv + v];
      if (d->dP && s->dP) {
        d->dlo[a] = s->dlo[o], d->dhi[a] = s->dhi[o];
        d->dunder[a] = s->dunder[o], d->dover[a] = s->dover[o];
        memmove(d->dP + a * nb, s->dP + o * nb, (size_t)nb * sizeof(double));
      }
    }
}

static sample_view results_view(const sdk_results *R, int64_t stride) {
  sample_view v = {R->mean, R->var, R->saved, R->dlo, R->dhi, R->dP, R->dunder, R->dover, stride};
  return v;
}

/* Everything needed to continue the run later, bit for bit. */
static sdk_err write_checkpoint(const sdk_run_config *c, sdk_run *r, const sdk_backend *be,
                                sdk_ensemble *ens, const sdk_sysplan *sys, int64_t step, int marked,
                                int64_t ns, int64_t ns_max, const char *kernel_hash,
                                sdk_errbuf *eb) {
  const sdk_results *R = &r->r;
  int64_t ng = R->ngrid, nv = R->nvars, np = ng * c->paths, nsv = R->nsaved, nb = R->dbins;
  sdk_ckpt k;
  memset(&k, 0, sizeof k);
  k.version = (char *)SDK_VERSION;
  k.abi = SDK_KERNEL_ABI;
  k.kernel_hash = (char *)kernel_hash;
  k.argc = c->argc;
  k.argv = c->argv;
  k.model_text = r->model->text;
  k.model_path = r->model->path;
  k.step = step;
  k.nvars = nv, k.ngrid = ng, k.ppg = c->paths, k.nsaved = R->saved ? nsv : 0;
  k.dbins = R->dP ? nb : 0, k.nsamples = ns, k.has_mark = marked;
  k.sample_step = R->sample_step;
  sdk_err err = SDK_OK;
  size_t cnt = (size_t)ng * (size_t)(ns > 0 ? ns : 1);
  k.state = calloc((size_t)(nv + 1) * (size_t)np, sizeof(double));
  int64_t ncomp = be->carried_rows(ens);
  int comp = ncomp > 0;
  k.ncomp = ncomp;
  if (comp) k.comp = malloc((size_t)ncomp * (size_t)np * sizeof(double));
  if (R->mean)
    k.mean = malloc(cnt * (size_t)nv * sizeof(double)),
    k.var = malloc(cnt * (size_t)nv * sizeof(double));
  if (R->saved) k.paths = malloc(cnt * (size_t)(nsv * nv) * sizeof(double));
  if (R->dP) {
    k.dlo = malloc(cnt * sizeof(double)), k.dhi = malloc(cnt * sizeof(double));
    k.dP = malloc(cnt * (size_t)nb * sizeof(double));
    k.dunder = malloc(cnt * sizeof(uint64_t)), k.dover = malloc(cnt * sizeof(uint64_t));
  }
  int64_t no = sdk_sys_order_count(sys, R);
  int order = no >= 0;
  if (order) {
    size_t on = (size_t)ng * (size_t)(no > 0 ? no : 1);
    k.nord = no;
    k.ord_step = malloc((size_t)(no > 0 ? no : 1) * sizeof(int64_t));
    k.ord_r = malloc(on * sizeof(double)), k.ord_err = malloc(on * sizeof(double));
    k.ord_psi = malloc(on * sizeof(double));
  }
  if (!k.state || (comp && !k.comp) || (R->mean && (!k.mean || !k.var)) || (R->saved && !k.paths) ||
      (R->dP && (!k.dlo || !k.dhi || !k.dP || !k.dunder || !k.dover)) ||
      (order && (!k.ord_step || !k.ord_r || !k.ord_err || !k.ord_psi))) {
    err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory writing a checkpoint");
    goto out;
  }
  for (int v = 0; v < nv + (marked ? 1 : 0) && err == SDK_OK; v++)
    err = be->rows(ens, v, 0, np, k.state + (size_t)v * (size_t)np, 0, eb);
  for (int v = 0; v < ncomp && err == SDK_OK; v++)
    err = be->rows(ens, (int)nv + 1 + v, 0, np, k.comp + (size_t)v * (size_t)np, 0, eb);
  if (err != SDK_OK) goto out;
  {
    sample_view to = {k.mean, k.var, k.paths, k.dlo, k.dhi, k.dP, k.dunder, k.dover, ns},
                from = results_view(R, ns_max);
    copy_samples(&to, &from, ng, ns, nv, nsv, nb);
  }
  if (order) sdk_sys_order_save(sys, R, k.ord_step, k.ord_r, k.ord_err, k.ord_psi);
  err = sdk_ckpt_write(&k, c->checkpoint, eb);
out:
  free(k.state), free(k.comp), free(k.mean), free(k.var), free(k.paths), free(k.dlo), free(k.dhi),
      free(k.dP);
  free(k.dunder), free(k.dover);
  free(k.ord_step), free(k.ord_r), free(k.ord_err), free(k.ord_psi);
  return err;
}

/* Grid points whose paths blew up: every value of theirs becomes NaN (a
 * partial number would look right), their count of non-finite paths goes to
 * R->nonfinite and a message naming them to r->problem. */
static sdk_err mark_bad_points(const sdk_run_config *c, sdk_run *r, const int64_t *bad,
                               const int64_t *bad_step, sdk_errbuf *eb) {
  sdk_results *R = &r->r;
  int64_t ng = R->ngrid, nv = R->nvars, ns = R->nsamples, nbad = 0;
  for (int64_t g = 0; g < ng; g++)
    nbad += bad[g] > 0;
  if (!nbad) return SDK_OK;
  R->nonfinite = malloc((size_t)ng * sizeof *R->nonfinite);
  if (!R->nonfinite) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_strbuf m;
  sdk_sb_init(&m);
  int64_t listed = 0;
  for (int64_t g = 0; g < ng; g++) {
    R->nonfinite[g] = bad[g];
    if (!bad[g]) continue;
    if (R->drift) R->drift[g] = R->drift_err[g] = NAN;
    for (int64_t k = 0; R->mean && k < ns * nv; k++)
      R->mean[g * ns * nv + k] = R->var[g * ns * nv + k] = NAN;
    for (int64_t k = 0; R->saved && k < R->nsaved * ns * nv; k++)
      R->saved[g * R->nsaved * ns * nv + k] = NAN;
    for (int64_t k = 0; R->dP && k < ns; k++) {
      R->dlo[g * ns + k] = R->dhi[g * ns + k] = NAN;
      for (int64_t b = 0; b < R->dbins; b++)
        R->dP[(g * ns + k) * R->dbins + b] = NAN;
    }
    for (int64_t v = 0; R->density && v < nv; v++) {
      R->hist_lo[g * nv + v] = R->hist_hi[g * nv + v] = NAN;
      for (int64_t b = 0; b < R->bins; b++)
        R->density[(g * nv + v) * R->bins + b] = NAN;
    }
    if (listed++ < 3) {
      char gp[300];
      grid_params(&r->r, g, gp, sizeof gp);
      sdk_sb_printf(&m, "%s%lld of %lld paths became NaN/Inf at %s by step %lld (t = %g)",
                    listed > 1 ? "; " : "", (long long)bad[g], (long long)R->paths, gp,
                    (long long)bad_step[g], (double)bad_step[g] * R->dt[g]);
    }
  }
  if (listed > 3) sdk_sb_printf(&m, "; and %lld more grid points", (long long)(listed - 3));
  sdk_sb_printf(&m,
                "; %s written as NaN with the count of non-finite paths, the other %lld of %lld "
                "grid points are complete; a smaller --dt (or more --spp) may help",
                nbad > 1 ? "these are" : "it is", (long long)(ng - nbad), (long long)ng);
  snprintf(r->problem, sizeof r->problem, "%s", m.s && !m.oom ? m.s : "paths became NaN/Inf");
  sdk_sb_free(&m);
  return SDK_OK;
}

const char *sdk_run_problem(const sdk_run *r) {
  return r->problem[0] ? r->problem : NULL;
}

sdk_err sdk_run_execute(const sdk_run_config *c, sdk_run **out, sdk_errbuf *eb) {
  *out = NULL;
  sdk_run *r = NULL;
  plan p;
  memset(&p, 0, sizeof p);
  SDK_CHECK(prepare(c, &r, &p, eb));
  sdk_model *m = r->model;
  /* resumed with a longer --t-end: the default sample interval (1/100 of the
   * run) would change half way; keep the one the checkpoint was sampled at */
  if (c->resume && c->sample_every == 0 && c->resume->nsamples >= 2 &&
      c->resume->sample_step[1] > c->resume->sample_step[0])
    p.sample_every = c->resume->sample_step[1] - c->resume->sample_step[0];
  /* systems of N particles: the loop below sees paths * N paths (particles) */
  sdk_run_config csys;
  if (p.sys.particles > 1) {
    csys = *c;
    csys.paths = c->paths * p.sys.particles;
    c = &csys;
  }
  sdk_err err = SDK_OK;
  const sdk_backend *be = NULL;
  sdk_bctx *ctx = NULL;
  sdk_module *mod = NULL;
  sdk_ensemble *ens = NULL;
  char *src = NULL;
  sdk_moments *mom = NULL;
  int64_t *nonfinite = NULL, *bad = NULL, *bad_step = NULL;
  sdk_backend_opts bo = {.threads = c->threads,
                         .device = c->device,
                         .fast_math = c->fast_math,
                         .verbose = c->verbose,
                         .cache_max = c->cache_max};

  if (!strcmp(c->backend, "auto")) {
    /* the GPU where one is usable, else the CPU */
    be = &sdk_backend_cuda;
    if (be->open(&bo, &ctx, NULL) != SDK_OK) {
      ctx = NULL;
      be = &sdk_backend_cpu;
    }
  } else {
    be = sdk_backend_find(c->backend);
    if (!be) {
      err =
          SDK_FAIL(eb, SDK_ERR_USAGE, "unknown backend '%s' (known: cpu, cuda, auto)", c->backend);
      goto done;
    }
  }
  if (!ctx) SDK_TRY(err, be->open(&bo, &ctx, eb), done);
  be->describe(ctx, r->device, sizeof r->device);

  sdk_codegen_opts o;
  fill_codegen(c, r, &p, !strcmp(be->name, "cuda") ? SDK_TARGET_CUDA : SDK_TARGET_CPU, &o);
  SDK_TRY(err, sdk_codegen(&o, &src, eb), done);
  /* the generated source stands for the model, the settings and the build's
   * code generator: a checkpoint continues only the kernel that wrote it */
  char khash[33];
  sdk_hash_hex(src, strlen(src), khash);
  if (c->resume && strcmp(c->resume->kernel_hash, khash) != 0) {
    err = SDK_FAIL(eb, SDK_ERR_FORMAT,
                   "checkpoint '%s' was written for another kernel (another build of sdekit, "
                   "model text or backend): finish it with the sdekit and backend that wrote it",
                   c->checkpoint ? c->checkpoint : "?");
    goto done;
  }
  char report[4400] = "";
  SDK_TRY(err, be->compile(ctx, src, m->path, &mod, report, sizeof report, eb), done);
  if (c->verbose) fprintf(stderr, "sdekit: %s\n", report);

  sdk_layout lay = {.nvars = m->nvars,
                    .single = c->single,
                    .ngrid = p.ngrid,
                    .ppg = c->paths,
                    .path0 = 0,
                    .nsv = p.nsv,
                    .sv = p.sv};
  lay.particles = p.sys.on ? p.sys.particles : 0;
  SDK_TRY(err, be->alloc(ctx, mod, &lay, &ens, eb), done);
  SDK_TRY(err, be->init(ens, c->seed, eb), done);

  /* results skeleton */
  sdk_results *R = &r->r;
  snprintf(r->version, sizeof r->version, "%s", SDK_VERSION);
  R->version = r->version;
  R->model_name = m->name;
  R->model_path = m->file ? m->file : m->path; /* which file was used, resolved */
  R->model_text = m->text;
  R->nvars = m->nvars;
  R->var_names = (const char *const *)m->vars;
  R->nparams = m->nparams;
  R->param_names = r->param_names;
  R->param_values = r->param_values;
  R->ngrid = p.ngrid;
  R->paths = c->paths;
  R->seed = c->seed;
  R->scheme = p.scheme->name;
  R->precision = c->single ? "single" : "double";
  R->backend = be->name;
  R->command_line = c->command_line ? c->command_line : "";
  R->period = p.period0;
  R->spp = p.spp;
  R->dt = r->dt;
  R->nsteps = p.nsteps;
  R->transient_steps = p.transient_steps;
  R->sample_every = p.sample_every;
  R->drift_var = p.drift_var;

  int nv = m->nvars;
  int64_t ng = p.ngrid;
  mom = malloc((size_t)ng * (size_t)nv * sizeof *mom);
  nonfinite = malloc((size_t)ng * sizeof *nonfinite);
  if (!mom || !nonfinite) {
    err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    goto done;
  }
  int want_mom = (c->observe & SDK_OBS_MOMENTS) != 0;
  int want_den = (c->observe & SDK_OBS_DENSITY) != 0;
  int want_paths = c->nsave > 0;
  int sampling = want_mom || want_den || want_paths;
  int64_t nsv = c->nsave;
  int dvar = 0;
  if (want_den && c->density_var) {
    dvar = sdk_model_var_index(m, c->density_var);
    if (dvar < 0) {
      char *known = sdk_model_var_list(m);
      err = SDK_FAIL(eb, SDK_ERR_USAGE,
                     "--density-var %s: model '%s' has no variable '%s' (variables: %s)",
                     c->density_var, m->name, c->density_var, known ? known : "?");
      free(known);
      goto done;
    }
  }
  double coarse = c->coarse_width;
  if (want_den && coarse < 0) {
    /* --coarse-grain without a width: one period of the variable, as the model declares it */
    if (!m->var_period || !m->var_period[dvar]) {
      err = SDK_FAIL(eb, SDK_ERR_USAGE,
                     "--coarse-grain: model '%s' declares no period for '%s' ([model] periodic = "
                     "%s : L); give the width as --coarse-grain=L",
                     m->name, m->vars[dvar], m->vars[dvar]);
      goto done;
    }
    eval_ctx ec = {r->param_values};
    coarse = sdk_expr_eval(m->var_period[dvar], eval_param, &ec);
    if (!(coarse > 0) || !isfinite(coarse)) {
      err = SDK_FAIL(eb, SDK_ERR_USAGE, "--coarse-grain: the period of '%s' is %g", m->vars[dvar],
                     coarse);
      goto done;
    }
  }
  for (int k = 0; k < c->nsave; k++)
    if (c->save_index[k] < 0 || c->save_index[k] >= c->paths) {
      err =
          SDK_FAIL(eb, SDK_ERR_USAGE, "--save-paths: path %lld does not exist (paths are 0..%lld)",
                   (long long)c->save_index[k], (long long)c->paths - 1);
      goto done;
    }
  /* systems of particles: the density of a periodic variable is P(x mod period) on
   * [0, period) (observe/observe.h), unless a range or coarse-graining was asked for */
  double dmod = 0;
  if (want_den && coarse == 0 && p.sys.on) {
    dmod = sdk_var_period(m, dvar, r->param_values, p.scan_column);
    for (int i = 0; i < c->nhist_range; i++)
      if (!strcmp(c->hist_range_var[i], m->vars[dvar])) dmod = 0;
    if (!(dmod > 0) || !isfinite(dmod)) dmod = 0; /* scanned or bad period: the data's range */
  }
  int64_t ns_max = sampling ? p.nsteps / p.sample_every + 1 : 0;
  int64_t dbins = c->bins;
  if (sampling) {
    R->nsamples = ns_max;
    R->sample_step = calloc((size_t)ns_max, sizeof(int64_t));
    if (!R->sample_step) goto oom;
  }
  if (want_mom) {
    R->mean = calloc((size_t)(ng * ns_max * nv), sizeof(double));
    R->var = calloc((size_t)(ng * ns_max * nv), sizeof(double));
    if (!R->mean || !R->var) goto oom;
  }
  if (want_paths) {
    R->nsaved = nsv;
    R->saved_index = malloc((size_t)nsv * sizeof(int64_t));
    R->saved = calloc((size_t)(ng * nsv * ns_max * nv), sizeof(double));
    if (!R->saved_index || !R->saved) goto oom;
    memcpy(R->saved_index, c->save_index, (size_t)nsv * sizeof(int64_t));
  }
  if (want_den) {
    R->density_var = dvar;
    R->dbins = dbins;
    R->coarse_width = coarse;
    R->dlo = calloc((size_t)(ng * ns_max), sizeof(double));
    R->dhi = calloc((size_t)(ng * ns_max), sizeof(double));
    R->dP = calloc((size_t)(ng * ns_max * dbins), sizeof(double));
    R->dunder = calloc((size_t)(ng * ns_max), sizeof(uint64_t));
    R->dover = calloc((size_t)(ng * ns_max), sizeof(uint64_t));
    if (!R->dlo || !R->dhi || !R->dP || !R->dunder || !R->dover) goto oom;
  }
  double *pbuf = NULL, *dlo_g = NULL, *dhi_g = NULL;
  uint64_t *dcnt = NULL, *dun = NULL, *dov = NULL;
  if (want_paths && !(pbuf = malloc((size_t)nv * sizeof(double)))) goto oom;
  if (want_den) {
    dlo_g = malloc((size_t)ng * sizeof(double));
    dhi_g = malloc((size_t)ng * sizeof(double));
    dcnt = malloc((size_t)(ng * dbins) * sizeof(uint64_t));
    dun = malloc((size_t)ng * sizeof(uint64_t));
    dov = malloc((size_t)ng * sizeof(uint64_t));
    if (!dlo_g || !dhi_g || !dcnt || !dun || !dov) {
      free(pbuf), free(dlo_g), free(dhi_g), free(dcnt), free(dun), free(dov);
      goto oom;
    }
  }
  int64_t isample = 0;
  int64_t step = 0;
  int marked = 0;
  bad = calloc((size_t)ng, sizeof *bad);
  bad_step = calloc((size_t)ng, sizeof *bad_step);
  if (!bad || !bad_step) {
    free(pbuf), free(dlo_g), free(dhi_g), free(dcnt), free(dun), free(dov);
    goto oom;
  }
  /* resume: state, drift mark and the samples so far from the checkpoint */
  if (c->resume) {
    const sdk_ckpt *k = c->resume;
    if (k->nvars != nv || k->ngrid != ng || k->ppg != c->paths ||
        k->nsaved != (want_paths ? nsv : 0) || k->dbins != (want_den ? dbins : 0) ||
        k->step > p.nsteps || k->nsamples > ns_max ||
        (sampling && k->nsamples > 0 &&
         ((want_mom && !k->mean) || (want_den && !k->dP) || (want_paths && !k->paths))) ||
        (!sampling && k->nsamples > 0) || (k->has_mark && !(c->observe & SDK_OBS_DRIFT)) ||
        (k->has_mark && k->step < p.transient_steps) ||
        (!k->has_mark && (c->observe & SDK_OBS_DRIFT) && k->step > p.transient_steps) ||
        (k->nsamples > 0 && k->sample_step[k->nsamples - 1] > k->step) ||
        k->ncomp != be->carried_rows(ens)) {
      err = SDK_FAIL(eb, SDK_ERR_FORMAT, "the checkpoint does not match this run's layout");
      goto done_buf;
    }
    int64_t np = ng * c->paths;
    for (int v = 0; v <= nv && err == SDK_OK; v++) {
      if (v == nv && !k->has_mark) break;
      err = be->rows(ens, v, 0, np, k->state + (size_t)v * (size_t)np, 1, eb);
    }
    for (int v = 0; v < k->ncomp && err == SDK_OK; v++)
      err = be->rows(ens, nv + 1 + v, 0, np, k->comp + (size_t)v * (size_t)np, 1, eb);
    if (err != SDK_OK) goto done_buf;
    step = k->step;
    marked = (int)k->has_mark;
    isample = k->nsamples;
    if (sampling) memcpy(R->sample_step, k->sample_step, (size_t)isample * sizeof(int64_t));
    sample_view from = {k->mean, k->var,    k->paths, k->dlo, k->dhi,
                        k->dP,   k->dunder, k->dover, isample},
                to = results_view(R, ns_max);
    copy_samples(&to, &from, ng, isample, nv, nsv, dbins);
  }
  double t0 = now_s(), last_ckpt = now_s();
  /* resumed: the checkpoint file already holds this step */
  int ckpt_failed = 0;
  int64_t ckpt_step = c->resume ? c->resume->step : -1;
  int64_t step_start = step;
  const int64_t max_chunk = 1000;
  SDK_TRY(err,
          sdk_sys_setup(&p.sys, R, ng, p.nsteps,
                        c->order_every > 0 ? c->order_every : p.sample_every, max_chunk, eb),
          done_buf);
  /* resume: the order-parameter samples so far */
  if (c->resume)
    SDK_TRY(err,
            sdk_sys_order_restore(&p.sys, R, c->resume->nord, c->resume->ord_step, c->resume->ord_r,
                                  c->resume->ord_err, c->resume->ord_psi, c->resume->step, eb),
            done_buf);
  for (;;) {
    int sample_now = sampling && step % p.sample_every == 0 &&
                     (isample == 0 || R->sample_step[isample - 1] < step);
    /* (systems with --observe order are checked through r(t) instead, every
     * order sample, in sdk_sys_advance: no pass over the state here) */
    if (want_mom || !sdk_sys_checks_nonfinite(&p.sys))
      SDK_TRY(err, be->moments(ens, mom, nonfinite, eb), done_buf);
    else
      memset(nonfinite, 0, (size_t)ng * sizeof *nonfinite);
    /* a grid point whose paths blow up is marked and written as NaN; the
     * others go on (a scan keeps its healthy points); when none is left the
     * run stops at once */
    int64_t nbad = 0;
    for (int64_t g = 0; g < ng; g++) {
      if (nonfinite[g] > 0 && !bad[g]) bad_step[g] = step;
      if (nonfinite[g] > bad[g]) bad[g] = nonfinite[g];
      nbad += bad[g] > 0;
    }
    if (nbad == ng) {
      char gp[300];
      grid_params(&r->r, 0, gp, sizeof gp);
      err = SDK_FAIL(eb, SDK_ERR_NONFINITE,
                     "%lld of %lld paths became NaN/Inf at %s by step %lld (t = %g)%s; "
                     "a smaller --dt (or more --spp) may help",
                     (long long)bad[0], (long long)c->paths, gp, (long long)bad_step[0],
                     (double)bad_step[0] * r->dt[0],
                     ng > 1 ? " and so did every other grid point" : "");
      goto done_buf;
    }
    if (sample_now && isample >= ns_max) {
      err = SDK_FAIL(eb, SDK_ERR_FORMAT,
                     "the checkpoint does not match this run's layout (more samples than %lld)",
                     (long long)ns_max);
      goto done_buf;
    }
    if (sample_now) {
      R->sample_step[isample] = step;
      if (want_mom)
        for (int64_t g = 0; g < ng; g++)
          for (int v = 0; v < nv; v++) {
            const sdk_moments *mm = &mom[g * nv + v];
            int64_t k = (g * ns_max + isample) * nv + v;
            R->mean[k] = mm->mean;
            R->var[k] = mm->n > 1 ? mm->m2 / (mm->n - 1) : 0;
          }
      if (want_paths)
        for (int64_t g = 0; g < ng; g++)
          for (int64_t q = 0; q < nsv; q++) {
            int64_t first = g * c->paths + c->save_index[q];
            for (int v = 0; v < nv; v++)
              SDK_TRY(err, be->rows(ens, v, first, 1, &pbuf[v], 0, eb), done_buf);
            for (int v = 0; v < nv; v++)
              R->saved[((g * nsv + q) * ns_max + isample) * nv + v] = pbuf[v];
          }
      if (want_den && dmod > 0) {
        SDK_TRY(err,
                sdk_observe_density_mod(be, ens, dvar, dmod, ng, dbins, dlo_g, dhi_g, dcnt, dun,
                                        dov, eb),
                done_buf);
      } else if (want_den) {
        SDK_TRY(err, be->minmax(ens, dvar, dlo_g, dhi_g, eb), done_buf);
        for (int64_t g = 0; g < ng; g++) {
          double lo = dlo_g[g], hi = dhi_g[g];
          int fixed = 0;
          for (int i = 0; i < c->nhist_range; i++)
            if (!strcmp(c->hist_range_var[i], m->vars[dvar]))
              lo = c->hist_range_lo[i], hi = c->hist_range_hi[i], fixed = 1;
          if (coarse > 0) {
            /* bins exactly one period wide, on the lattice k * width, centred on the data */
            double w = coarse;
            if (!fixed) {
              double mid = 0.5 * (lo + hi);
              lo = w * floor(mid / w) - w * (double)(dbins / 2);
            } else {
              lo = w * floor(lo / w);
            }
            hi = lo + w * (double)dbins;
          } else if (!(hi > lo)) {
            double e = fabs(lo) > 0 ? 1e-6 * fabs(lo) : 1e-6;
            lo -= e, hi += e;
          }
          dlo_g[g] = lo, dhi_g[g] = hi;
          /* a NaN range keeps NaN paths out of the bin arithmetic */
          if (bad[g]) dlo_g[g] = dhi_g[g] = NAN;
        }
        SDK_TRY(err, be->histogram(ens, dvar, dbins, dlo_g, dhi_g, dcnt, dun, dov, eb), done_buf);
      }
      if (want_den) {
        for (int64_t g = 0; g < ng; g++) {
          int64_t k = g * ns_max + isample;
          R->dlo[k] = dlo_g[g], R->dhi[k] = dhi_g[g];
          R->dunder[k] = dun[g], R->dover[k] = dov[g];
          double w = (dhi_g[g] - dlo_g[g]) / (double)dbins;
          for (int64_t b = 0; b < dbins; b++)
            R->dP[k * dbins + b] = (double)dcnt[g * dbins + b] / ((double)c->paths * w);
        }
      }
      isample++;
    }
    if ((c->observe & SDK_OBS_DRIFT) && step == p.transient_steps && !marked) {
      SDK_TRY(err, be->mark(ens, p.drift_var, eb), done_buf);
      marked = 1;
    }
    int stop_now = c->stop && *c->stop;
    int ckpt_now = c->checkpoint &&
                   (stop_now || step >= p.nsteps || now_s() - last_ckpt >= c->checkpoint_every);
    if (ckpt_now && step > step_start) {
      /* a checkpoint that cannot be written (disk full, directory gone) must
       * not cost the results: say so once and go on */
      sdk_errbuf ceb = {0};
      sdk_err ce =
          write_checkpoint(c, r, be, ens, &p.sys, step, marked, isample, ns_max, khash, &ceb);
      if (ce == SDK_ERR_IO || ce == SDK_ERR_NOMEM) {
        if (!ckpt_failed && c->warn) {
          char w[1200];
          snprintf(w, sizeof w, "%s; the run goes on without it", ceb.msg);
          c->warn(c->warn_user, w);
        }
        ckpt_failed = 1;
      } else if (ce != SDK_OK) {
        err = SDK_FAIL(eb, ce, "%s", ceb.msg);
        goto done_buf;
      } else {
        ckpt_step = step;
      }
      last_ckpt = now_s();
    }
    if (stop_now && step < p.nsteps) {
      double t = (double)step * r->dt[0];
      if (c->checkpoint && ckpt_step == step)
        err = SDK_FAIL(eb, SDK_ERR_INTERRUPTED,
                       "interrupted at step %lld of %lld (t = %g); checkpoint saved to %s; "
                       "continue with: sdekit resume %s",
                       (long long)step, (long long)p.nsteps, t, c->checkpoint, c->checkpoint);
      else if (c->checkpoint && ckpt_step >= 0)
        err =
            SDK_FAIL(eb, SDK_ERR_INTERRUPTED,
                     "interrupted at step %lld of %lld (t = %g); the last checkpoint that could "
                     "be written holds step %lld; continue with: sdekit resume %s",
                     (long long)step, (long long)p.nsteps, t, (long long)ckpt_step, c->checkpoint);
      else if (c->checkpoint)
        err = SDK_FAIL(eb, SDK_ERR_INTERRUPTED,
                       "interrupted at step %lld of %lld (t = %g); no checkpoint could be saved to "
                       "%s, nothing was kept",
                       (long long)step, (long long)p.nsteps, t, c->checkpoint);
      else
        err = SDK_FAIL(eb, SDK_ERR_INTERRUPTED,
                       "interrupted at step %lld of %lld (t = %g); nothing was saved: run with "
                       "--checkpoint FILE to make a run resumable",
                       (long long)step, (long long)p.nsteps, t);
      goto done_buf;
    }
    if (step >= p.nsteps) break;
    int64_t next = step + max_chunk;
    if (sampling) {
      int64_t nsmp = (step / p.sample_every + 1) * p.sample_every;
      if (nsmp < next) next = nsmp;
    }
    if (step < p.transient_steps && p.transient_steps < next) next = p.transient_steps;
    if (next > p.nsteps) next = p.nsteps;
    SDK_TRY(err,
            p.sys.on ? sdk_sys_advance(&p.sys, R, be, ens, step, next - step, c->seed, eb)
                     : be->advance(ens, step, next - step, c->seed, eb),
            done_buf);
    step = next;
    if (c->progress) {
      double el = now_s() - t0;
      c->progress(c->progress_user, (double)step / (double)p.nsteps,
                  el > 0 ? (double)(step - step_start) * (double)(ng * c->paths) / el : 0);
    }
  }
  r->seconds = now_s() - t0;
  r->path_steps = (double)(p.nsteps - step_start) * (double)(ng * c->paths);
  if (sampling) R->nsamples = isample;
  sdk_sys_finish(&p.sys, R);
  /* compact the sample arrays if fewer samples were taken than allotted */
  if (sampling && isample < ns_max) {
    sample_view from = results_view(R, ns_max), to = results_view(R, isample);
    copy_samples(&to, &from, ng, isample, nv, nsv, dbins);
  }
done_buf:
  free(pbuf), free(dlo_g), free(dhi_g), free(dcnt), free(dun), free(dov);
  if (err != SDK_OK) goto done;

  if (c->observe & SDK_OBS_DRIFT) {
    R->drift = malloc((size_t)ng * sizeof(double));
    R->drift_err = malloc((size_t)ng * sizeof(double));
    if (!R->drift || !R->drift_err) {
      err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
      goto done;
    }
    SDK_TRY(err, be->displacement(ens, p.drift_var, 1.0, mom, eb), done);
    for (int64_t g = 0; g < ng; g++) {
      double T = (double)(p.nsteps - p.transient_steps) * r->dt[g];
      R->drift[g] = mom[g].mean / T;
      R->drift_err[g] = mom[g].n > 1 ? sqrt(mom[g].m2 / (mom[g].n - 1) / mom[g].n) / T : 0;
    }
  }
  if (c->observe & SDK_OBS_HIST) {
    int64_t bins = c->bins;
    R->bins = bins;
    R->hist_lo = malloc((size_t)(ng * nv) * sizeof(double));
    R->hist_hi = malloc((size_t)(ng * nv) * sizeof(double));
    R->density = malloc((size_t)(ng * nv * bins) * sizeof(double));
    R->hist_under = calloc((size_t)(ng * nv), sizeof(uint64_t));
    R->hist_over = calloc((size_t)(ng * nv), sizeof(uint64_t));
    double *lo = malloc((size_t)ng * sizeof(double)), *hi = malloc((size_t)ng * sizeof(double));
    uint64_t *cnt = malloc((size_t)(ng * bins) * sizeof(uint64_t));
    uint64_t *un = malloc((size_t)ng * sizeof(uint64_t)),
             *ov = malloc((size_t)ng * sizeof(uint64_t));
    if (!R->hist_lo || !R->hist_hi || !R->density || !R->hist_under || !R->hist_over || !lo ||
        !hi || !cnt || !un || !ov) {
      free(lo), free(hi), free(cnt), free(un), free(ov);
      err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for histograms");
      goto done;
    }
    for (int v = 0; v < nv && err == SDK_OK; v++) {
      int fixed = -1;
      for (int i = 0; i < c->nhist_range; i++)
        if (!strcmp(c->hist_range_var[i], m->vars[v])) fixed = i;
      if (fixed >= 0) {
        for (int64_t g = 0; g < ng; g++)
          lo[g] = c->hist_range_lo[fixed], hi[g] = c->hist_range_hi[fixed];
      } else {
        err = be->minmax(ens, v, lo, hi, eb);
        /* a degenerate range (all paths equal) still gets a bin around it */
        for (int64_t g = 0; g < ng && err == SDK_OK; g++)
          if (!(hi[g] > lo[g])) {
            double w = fabs(lo[g]) > 0 ? 1e-6 * fabs(lo[g]) : 1e-6;
            lo[g] -= w, hi[g] += w;
          }
      }
      for (int64_t g = 0; g < ng; g++)
        if (bad[g]) lo[g] = hi[g] = NAN; /* see the density above */
      if (err == SDK_OK) err = be->histogram(ens, v, bins, lo, hi, cnt, un, ov, eb);
      for (int64_t g = 0; g < ng && err == SDK_OK; g++) {
        R->hist_lo[g * nv + v] = lo[g];
        R->hist_hi[g * nv + v] = hi[g];
        R->hist_under[g * nv + v] = un[g];
        R->hist_over[g * nv + v] = ov[g];
        double w = (hi[g] - lo[g]) / (double)bins;
        for (int64_t b = 0; b < bins; b++)
          R->density[(g * nv + v) * bins + b] = (double)cnt[g * bins + b] / ((double)c->paths * w);
      }
    }
    free(lo), free(hi), free(cnt), free(un), free(ov);
    if (err != SDK_OK) goto done;
  }
  SDK_TRY(err, mark_bad_points(c, r, bad, bad_step, eb), done);
  goto done;
oom:
  err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the observables");
done:
  free(mom);
  free(nonfinite);
  free(bad);
  free(bad_step);
  free(src);
  plan_free(&p);
  if (be && be->free) be->free(&ens);
  if (be && be->module_free) be->module_free(&mod);
  if (be) be->close(&ctx);
  if (err != SDK_OK) sdk_run_destroy(&r);
  *out = r;
  return err;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

sdk_err sdk_run_time_advance(const sdk_run_config *c, int64_t nsteps, int repeats,
                             sdk_bench_timing *out, sdk_errbuf *eb) {
  memset(out, 0, sizeof *out);
  sdk_run *r = NULL;
  plan p;
  memset(&p, 0, sizeof p);
  SDK_CHECK(prepare(c, &r, &p, eb));
  sdk_err err = SDK_OK;
  const sdk_backend *be = sdk_backend_find(c->backend);
  sdk_bctx *ctx = NULL;
  sdk_module *mod = NULL;
  sdk_ensemble *ens = NULL;
  char *src = NULL;
  double *t = calloc((size_t)(repeats > 0 ? repeats : 1), sizeof(double));
  sdk_backend_opts bo = {.threads = c->threads,
                         .device = c->device,
                         .fast_math = c->fast_math,
                         .verbose = c->verbose,
                         .cache_max = c->cache_max};
  if (!t) {
    err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    goto done;
  }
  if (!be) {
    err = SDK_FAIL(eb, SDK_ERR_USAGE, "unknown backend '%s'", c->backend);
    goto done;
  }
  SDK_TRY(err, be->open(&bo, &ctx, eb), done);
  be->describe(ctx, out->device, sizeof out->device);
  sdk_codegen_opts o;
  fill_codegen(c, r, &p, !strcmp(be->name, "cuda") ? SDK_TARGET_CUDA : SDK_TARGET_CPU, &o);
  SDK_TRY(err, sdk_codegen(&o, &src, eb), done);
  SDK_TRY(err, be->compile(ctx, src, r->model->path, &mod, NULL, 0, eb), done);
  sdk_layout lay = {.nvars = r->model->nvars,
                    .single = c->single,
                    .ngrid = p.ngrid,
                    .ppg = c->paths,
                    .path0 = 0,
                    .nsv = p.nsv,
                    .sv = p.sv};
  SDK_TRY(err, be->alloc(ctx, mod, &lay, &ens, eb), done);
  SDK_TRY(err, be->init(ens, c->seed, eb), done);
  /* warm-up: first-touch of memory, module load, clocks */
  SDK_TRY(err, be->advance(ens, 0, nsteps / 10 > 0 ? nsteps / 10 : 1, c->seed, eb), done);
  SDK_TRY(err, be->minmax(ens, 0, &out->check_lo, &out->check_hi, eb), done); /* synchronises */
  int64_t step = nsteps;
  for (int i = 0; i < repeats; i++) {
    double t0 = now_s();
    SDK_TRY(err, be->advance(ens, step, nsteps, c->seed, eb), done);
    double ms = be->last_advance_ms ? be->last_advance_ms(ens) : -1;
    if (ms >= 0) { /* device timers (CUDA events) */
      t[i] = ms * 1e-3;
    } else {
      double lo, hi;
      SDK_TRY(err, be->minmax(ens, 0, &lo, &hi, eb), done); /* waits for the device */
      t[i] = now_s() - t0;
    }
    step += nsteps;
  }
  qsort(t, (size_t)repeats, sizeof *t, cmp_double);
  out->median_s = t[repeats / 2];
  out->min_s = t[0];
  out->max_s = t[repeats - 1];
  out->path_steps = (double)nsteps * (double)(p.ngrid * c->paths);
done:
  free(t);
  free(src);
  plan_free(&p);
  if (be && be->free) be->free(&ens);
  if (be && be->module_free) be->module_free(&mod);
  if (be && ctx) be->close(&ctx);
  sdk_run_destroy(&r);
  return err;
}
