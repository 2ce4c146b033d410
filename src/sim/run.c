#include "sim/run.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codegen/comp_vars.h"
#include "core/clock.h"
#include "core/strbuf.h"
#include "sim/checkpoint.h"
#include "sim/mlmc.h"
#include "sim/registry.h"
#include "sim/run_internal.h"

void sdk_run_config_defaults(sdk_run_config *c) {
  memset(c, 0, sizeof *c);
  c->paths = 1024;
  c->transient = -1;
  c->calculus = -1;
  c->transient_periods = -1;
  c->scheme = NULL; /* srk2, or euler for multiplicative noise */
  c->seed = 1;
  c->backend = sdk_registry_backends[0]->name; /* the registry's first */
  c->single = 1;
  c->fast_math = 1;
  c->observe = "drift";
  c->obs.bins = 100;
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
      !sdk_parse_number(f[2], &n) || n < 1 || n != floor(n)) {
    err = SDK_FAIL(eb, SDK_ERR_USAGE,
                   "--scan '%s': expected NAME=START:STOP:N[:log] with numbers START, STOP and "
                   "a whole number N >= 1",
                   spec);
    goto out;
  }
  if (n > 1e7) {
    err = SDK_FAIL(eb, SDK_ERR_USAGE,
                   "--scan '%s': %.0f points on one axis, more than its limit of 1e7 (a grid of "
                   "several axes may have up to 2^27 points)",
                   spec, n);
    goto out;
  }
  ax->n = (int64_t)n;
  ax->log = nf == 4 && !strcmp(f[3], "log");
  if (ax->log && (ax->start <= 0 || ax->stop <= 0)) {
    err = SDK_FAIL(eb, SDK_ERR_USAGE, "--scan '%s': a log scan needs START and STOP > 0", spec);
    goto out;
  }
  /* one point cannot be both START and STOP: neither may be dropped silently */
  if (ax->n == 1 && ax->start != ax->stop) {
    err = SDK_FAIL(eb, SDK_ERR_USAGE,
                   "--scan '%s': N = 1 gives one point, but START and STOP differ: give N >= 2, "
                   "or one value as --scan %s=%s:%s:1 or --set %s=%s",
                   spec, ax->name, f[0], f[0], ax->name, f[0]);
    goto out;
  }
  /* the points are START + u (STOP - START): a range wider than the largest
   * double would make every value NaN or infinite */
  if (!ax->log && !isfinite(ax->stop - ax->start)) {
    err = SDK_FAIL(eb, SDK_ERR_USAGE,
                   "--scan '%s': the range STOP - START overflows (more than %g): scan a "
                   "narrower range",
                   spec, DBL_MAX);
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
  for (int64_t i = 0; i < ax->n; i++)
    ax->values[i] = sdk_scan_point(ax, i);
  for (int64_t i = 0; i < ax->n; i++)
    if (!isfinite(ax->values[i]))
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--scan %s: value %lld of the grid from %g to %g is not a finite number",
                      ax->name, (long long)i, ax->start, ax->stop);
  if (ax->n > 1) ax->values[ax->n - 1] = ax->stop; /* exact end point */
  return SDK_OK;
}

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
const char *sdk_run_problem(const sdk_run *r) {
  return r->problem[0] ? r->problem : NULL;
}

void sdk_run_destroy(sdk_run **rp) {
  if (!rp || !*rp) return;
  sdk_run *r = *rp;
  for (int i = 0; i < r->r.nscan; i++)
    sdk_scan_free(&r->r.scan[i]);
  for (int i = 0; i < r->r.nzip; i++)
    sdk_scan_free(&r->r.zip[i]);
  sdk_store_free(&r->r.store);
  free(r->r.nonfinite);
  free(r->param_names);
  free(r->param_values);
  free(r->result_param_values);
  free(r->pp_names);
  free(r->pp_from);
  free(r->init_from);
  free(r->compensation);
  free(r->dt);
  free(r->sample_times);
  free(r->command_line);
  sdk_model_destroy(&r->model);
  free(r);
  *rp = NULL;
}

sdk_err sdk_run_execute(const sdk_run_config *c, sdk_run **out, sdk_errbuf *eb) {
  int n;
  *out = NULL;
  SDK_CHECK(sdk_run_team_size(c, &n, eb));
  return n > 1 ? sdk_run_team(c, n, out, eb) : sdk_run_rank(c, out, eb);
}

/* "auto: x, v", "all: x", "auto: none" or "none": the compensated
 * variables of the steps at o->dt */
static void comp_list(const sdk_codegen_opts *o, const sdk_plan *p, sdk_strbuf *b) {
  const sdk_model *m = o->model;
  if (!o->compensate || p->sys.on) {
    sdk_sb_puts(b, "none");
    return;
  }
  sdk_sb_puts(b, o->comp_all ? "all:" : "auto:");
  int k = 0;
  for (int v = 0; v < m->nvars; v++)
    if (sdk_cg_comp_var(o, v)) sdk_sb_printf(b, "%s %s", k++ ? "," : "", m->vars[v]);
  if (!k) sdk_sb_puts(b, " none");
}

/* Which variables the compensated update covers (the rule of
 * codegen/comp_vars.c, issue 32): recorded in the results (root attribute
 * "compensation") and, with --verbose, said with the rule's reasons once
 * (rank 0). */
static sdk_err comp_note(const sdk_run_config *c, sdk_run *r, const sdk_plan *p, sdk_errbuf *eb) {
  free(r->compensation);
  r->compensation = NULL, r->r.compensation = NULL;
  if (!c->single) return SDK_OK;
  sdk_codegen_opts o;
  sdk_plan_codegen_opts(p, p->be ? p->be->target : SDK_TARGET_CPU, &o);
  /* the steps at dt, and --dt-check's coarse copy at 2 dt where the rule
   * picks otherwise there (codegen/cpu_paths.c, cuda_paths.c) */
  sdk_strbuf a, k2;
  sdk_sb_init(&a), sdk_sb_init(&k2);
  comp_list(&o, p, &a);
  if (o.dt_check) {
    sdk_codegen_opts oc = o;
    oc.dt = 2 * o.dt;
    comp_list(&oc, p, &k2);
    if (a.s && k2.s && strcmp(a.s, k2.s)) sdk_sb_printf(&a, " (the coarse copy at 2 dt: %s)", k2.s);
  }
  int oom = a.oom || k2.oom;
  sdk_sb_free(&k2);
  if (oom || !(r->compensation = sdk_sb_take(&a))) {
    sdk_sb_free(&a);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  r->r.compensation = r->compensation;
  if (!o.compensate || p->sys.on || sdk_comm_rank(c->comm) != 0 ||
      !sdk_log_on(c->logger, SDK_LOG_DEBUG))
    return SDK_OK;
  char b[512];
  sdk_cg_comp_describe(&o, b, sizeof b);
  sdk_log(c->logger, SDK_LOG_DEBUG, "sdekit: compensated update (single precision): %s\n", b);
  return SDK_OK;
}

/* plan -> program -> execute -> record (sim/run_internal.h) */
sdk_err sdk_run_rank(const sdk_run_config *c, sdk_run **out, sdk_errbuf *eb) {
  *out = NULL;
  /* (runs over windows of paths, each one of these, the backend held
   * open between them) */
  SDK_CHECK(sdk_adaptive_config(c, eb));
  int mlmc = c->mlmc > 0 || c->target_error > 0;
  if (mlmc || c->target_se != 0 || c->target_rse != 0) {
    const sdk_backend *be;
    sdk_bctx *held;
    sdk_backend_hold(c, &be, &held);
    sdk_err e = mlmc ? sdk_mlmc_execute(c, out, eb) : sdk_target_run(c, out, eb);
    if (held) be->close(&held);
    return e;
  }
  if (!c->window && (c->max_paths > 0 || c->max_seconds > 0))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--%s bounds a run to a requested error: give --target-se, --target-rse, "
                    "--target-error or --mlmc with it (or --paths alone)",
                    c->max_paths > 0 ? "max-paths" : "max-seconds");
  if (!c->window && c->target_on)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--target-on names the observables of a run to a standard error: give "
                    "--target-se or --target-rse with it");
  sdk_run *r = calloc(1, sizeof *r);
  if (!r) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_plan p;
  double t[7];
  t[0] = sdk_now_s();
  sdk_err err = sdk_plan_make(c, r, &p, eb);
  if (err == SDK_OK) err = sdk_plan_observables(&p, eb);
  t[1] = sdk_now_s();
  if (err == SDK_OK) err = comp_note(c, r, &p, eb);
  if (err == SDK_OK) err = sdk_program_make(&p, eb);
  t[2] = sdk_now_s();
  /* several ranks: up to here each rank checks and builds alone, and all
   * learn whether any failed (then all return its error together); from here
   * on they work in lockstep, and an error of one rank alone (a device
   * failing) leaves the others waiting for it: eb->alone says so */
  if (c->comm) err = sdk_comm_agree(c->comm, err, eb);
  if (err == SDK_OK) err = sdk_program_share(&p, eb); /* (collective; errors shared) */
  t[3] = sdk_now_s();
  if (err == SDK_OK) err = sdk_execute(&p, eb);
  t[4] = sdk_now_s();
  if (err == SDK_OK) err = sdk_record(&p, eb);
  t[5] = sdk_now_s();
  if (err != SDK_OK && eb && p.lockstep && sdk_comm_size(c->comm) > 1 &&
      err != SDK_ERR_INTERRUPTED && err != SDK_ERR_NONFINITE)
    eb->alone = 1;
  const double t_open = p.t_open, t_source = p.t_source, t_compile = p.t_compile,
               t_paths = p.t_paths, t_device = p.t_device;
  sdk_plan_free(&p);
  t[6] = sdk_now_s();
  /* where a run's time goes outside the steps (--verbose; docs/BENCHMARKS.md):
   * the parts of the program stage, the steps with the device's own time of
   * the advances where the backend times them (CUDA events: the rest of
   * "steps and samples" is the samples, the checks and the launches), the
   * observables' finish, and freeing the paths, module and backend */
  if (err == SDK_OK) {
    char dev[48] = "";
    if (t_device >= 0) snprintf(dev, sizeof dev, " (advances on the device %.6f s)", t_device);
    sdk_log(c->logger, SDK_LOG_DEBUG,
            "sdekit: times: plan %.6f s, backend open %.6f s, source %.6f s (generate, "
            "identity), kernel %.6f s (compile or cache), paths %.6f s (allocate, initialise), "
            "ranks agree %.6f s, steps and samples %.6f s%s, the rest of execute %.6f s, "
            "record %.6f s, free %.6f s\n",
            t[1] - t[0], t_open, t_source, t_compile, t_paths, t[3] - t[2], r->seconds, dev,
            t[4] - t[3] - r->seconds, t[5] - t[4], t[6] - t[5]);
  }
  if (err != SDK_OK) sdk_run_destroy(&r);
  *out = r;
  return err;
}

sdk_err sdk_run_codegen(const sdk_run_config *c, const sdk_backend *be, char **src,
                        sdk_errbuf *eb) {
  *src = NULL;
  sdk_run *r = calloc(1, sizeof *r);
  if (!r) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_plan p;
  sdk_err err = sdk_plan_make(c, r, &p, eb);
  if (err == SDK_OK) {
    sdk_codegen_opts o;
    sdk_plan_codegen_opts(&p, be->target, &o);
    err = sdk_codegen(&o, src, eb);
  }
  sdk_plan_free(&p);
  sdk_run_destroy(&r);
  return err;
}
