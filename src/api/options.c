/* The public API: every option of `sdekit run`, parsed strictly from its
 * text (the CLI, checkpoints and the typed setters all come through here),
 * and a command line of them (their help text: help.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/nearest.h"
#include "core/numfmt.h"
#include "core/strbuf.h"
#include "io/scantable.h"
#include "model/model.h"
#include "sim/registry.h"
#include "sim/sample_times.h"

/* ------------------------------------------------------------ the values */

/* Strict parsers: the whole argument must be the number. */
static int parse_count(const char *s, int64_t lo, int64_t *out) {
  double v;
  if (!sdk_parse_number(s, &v) || v != floor(v) || v < (double)lo || v > 9.0e15) return 0;
  *out = (int64_t)v;
  return 1;
}

static int parse_u64(const char *s, uint64_t *out) {
  if (!s || !*s) return 0;
  for (const char *p = s; *p; p++)
    if (*p < '0' || *p > '9') return 0;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end) return 0;
  *out = v;
  return 1;
}

/* A string option's value into its owned slot and the run configuration. */
static sdekit_status set_owned(char **slot, const char **field, const char *v, sdekit_error *err) {
  if (api_set_str(slot, v) != SDK_OK) return api_nomem(err);
  *field = *slot;
  return SDEKIT_OK;
}

typedef sdekit_status (*opt_fn)(sdekit_config *c, const char *v, sdekit_error *err);

/* --set NAME=VALUE */
static sdekit_status o_set(sdekit_config *c, const char *arg, sdekit_error *err) {
  sdk_run_config *rc = &c->c;
  const char *eq = strchr(arg, '=');
  double v;
  if (!eq || eq == arg || (size_t)(eq - arg) >= 64)
    return api_usage(err, "--set '%s': expected NAME=VALUE", arg);
  if (!sdk_parse_number(eq + 1, &v))
    return api_usage(err, "--set '%s': the value must be a number", arg);
  /* a parameter given twice: neither value may win silently
   * (sdekit_config_set_param replaces, by forgetting the old one first) */
  for (int i = 0; i < rc->nset; i++)
    if (strlen(rc->set_name[i]) == (size_t)(eq - arg) &&
        !strncmp(rc->set_name[i], arg, (size_t)(eq - arg))) {
      char was[40];
      return api_usage(err, "--set %s given twice (%s=%s, then %s): give each parameter once",
                       rc->set_name[i], rc->set_name[i], sdk_fmt_exact(was, rc->set_value[i]), arg);
    }
  if (rc->nset == SDK_MAX_SET) return api_usage(err, "too many --set (at most %d)", SDK_MAX_SET);
  char *name = strndup(arg, (size_t)(eq - arg));
  if (!name) return api_nomem(err);
  c->set_name[rc->nset] = name;
  rc->set_name[rc->nset] = name;
  rc->set_value[rc->nset++] = v;
  return SDEKIT_OK;
}

/* a count parse_count refused: too large, or not a whole number >= lo (what) */
static sdekit_status count_usage(sdekit_error *err, const char *opt, const char *v,
                                 const char *what) {
  double x;
  if (sdk_parse_number(v, &x) && x == floor(x) && x > 9.0e15)
    return api_usage(err, "--%s '%s': too large (at most 9e15)", opt, v);
  return api_usage(err, "--%s '%s': %s", opt, v, what);
}

#define COUNT_OPT(fn, opt, lo, field, what)                                                        \
  static sdekit_status fn(sdekit_config *c, const char *v, sdekit_error *err) {                    \
    int64_t n;                                                                                     \
    if (!parse_count(v, lo, &n)) return count_usage(err, opt, v, what);                            \
    c->c.field = n;                                                                                \
    return SDEKIT_OK;                                                                              \
  }

COUNT_OPT(o_particles, "particles", 1, particles,
          "expected a whole number >= 1 (particles per system)")
COUNT_OPT(o_paths, "paths", 1, paths, "expected a whole number >= 1")
COUNT_OPT(o_spp, "spp", 1, spp, "expected a whole number >= 1")
COUNT_OPT(o_transp, "transient-periods", 0, transient_periods, "expected a whole number >= 0")
COUNT_OPT(o_sample, "sample-every", 1, sample_every, "expected a whole number >= 1")

/* --sample-times SPEC: checked now (syntax, order), kept as text so that a
 * checkpoint stores it as given; the plan reads it again against dt */
static sdekit_status o_sample_times(sdekit_config *c, const char *v, sdekit_error *err) {
  sdk_sample_times st;
  sdk_errbuf eb = {0};
  sdk_err e = sdk_sample_times_parse(v, &st, &eb);
  if (e != SDK_OK) return api_fail(err, e, &eb);
  sdk_sample_times_free(&st);
  return set_owned(&c->sample_times, &c->c.sample_times, v, err);
}
COUNT_OPT(o_order_every, "order-every", 1, obs.order_every, "expected a whole number >= 1")

/* a resumed run's length is replaced as a whole: --periods or --t-end */
static void new_length(sdekit_config *c, const char *other) {
  if (!c->ckpt) return;
  api_unrecord(c, other);
  if (!strcmp(other, "t-end"))
    c->c.t_end = 0;
  else
    c->c.periods = 0;
}

static sdekit_status o_periods(sdekit_config *c, const char *v, sdekit_error *err) {
  int64_t n;
  if (!parse_count(v, 1, &n))
    return api_usage(err, "--periods '%s': expected a whole number >= 1", v);
  new_length(c, "t-end");
  c->c.periods = n;
  return SDEKIT_OK;
}

#define POSITIVE_OPT(fn, opt, field, cmp, what)                                                    \
  static sdekit_status fn(sdekit_config *c, const char *v, sdekit_error *err) {                    \
    double x;                                                                                      \
    if (!sdk_parse_number(v, &x) || !(x cmp 0)) return api_usage(err, "--" opt " '%s': " what, v); \
    c->c.field = x;                                                                                \
    return SDEKIT_OK;                                                                              \
  }

POSITIVE_OPT(o_dt, "dt", dt, >, "expected a number > 0")
POSITIVE_OPT(o_mlmc, "mlmc", mlmc, >, "expected an RMS error > 0")
POSITIVE_OPT(o_terr, "target-error", target_error, >, "expected an error > 0")
POSITIVE_OPT(o_trans, "transient", transient, >=, "expected a number >= 0")

static sdekit_status o_tend(sdekit_config *c, const char *v, sdekit_error *err) {
  double x;
  if (!sdk_parse_number(v, &x) || !(x > 0))
    return api_usage(err, "--t-end '%s': expected a number > 0", v);
  new_length(c, "periods");
  c->c.t_end = x;
  return SDEKIT_OK;
}

static sdekit_status o_scheme(sdekit_config *c, const char *v, sdekit_error *err) {
  return set_owned(&c->scheme, &c->c.scheme, v, err);
}

static sdekit_status o_noise(sdekit_config *c, const char *v, sdekit_error *err) {
  return set_owned(&c->noise, &c->c.noise, v, err);
}

static sdekit_status o_seed(sdekit_config *c, const char *v, sdekit_error *err) {
  if (!parse_u64(v, &c->c.seed))
    return api_usage(err, "--seed '%s': expected a whole number >= 0", v);
  return SDEKIT_OK;
}

/* a backend of the registry, or auto */
static sdekit_status o_backend(sdekit_config *c, const char *v, sdekit_error *err) {
  char known[256];
  if (strcmp(v, "auto") && !sdk_find_backend(v))
    return api_usage(err, "--backend '%s': expected %s", v,
                     sdk_registry_backend_names(known, sizeof known, NULL, "auto", ", ", " or "));
  return set_owned(&c->backend, &c->c.backend, v, err);
}

static sdekit_status o_precision(sdekit_config *c, const char *v, sdekit_error *err) {
  if (!strcmp(v, "single") || !strcmp(v, "float"))
    c->c.single = 1;
  else if (!strcmp(v, "double"))
    c->c.single = 0;
  else
    return api_usage(err, "--precision '%s': expected single or double", v);
  return SDEKIT_OK;
}

static sdekit_status o_threads(sdekit_config *c, const char *v, sdekit_error *err) {
  int64_t n;
  if (!parse_count(v, 1, &n) || n > 4096)
    return api_usage(err, "--threads '%s': expected a whole number >= 1", v);
  c->c.threads = (int)n;
  return SDEKIT_OK;
}

/* --ranks N: the layout of N ranks from one process, on any backend */
static sdekit_status o_ranks(sdekit_config *c, const char *v, sdekit_error *err) {
  int64_t n;
  if (!parse_count(v, 1, &n) || n > 64)
    return api_usage(err, "--ranks '%s': expected a whole number from 1 to 64", v);
  c->c.ranks = (int)n;
  return SDEKIT_OK;
}

/* --device N, A,B,... or all: one GPU; in-process ranks on several (sim/ranks.c);
 * under MPI, the GPUs of a node's ranks (by local rank) */
static sdekit_status o_device(sdekit_config *c, const char *v, sdekit_error *err) {
  int n = 0, list[SDK_MAX_DEVICES];
  const char *p = v;
  if (!strcmp(v, "all")) {
    c->c.device = 0;
    c->c.ndevices = SDK_DEVICES_ALL;
    return SDEKIT_OK;
  }
  for (;;) {
    char one[16];
    size_t len = strcspn(p, ",");
    int64_t d;
    if (n == SDK_MAX_DEVICES || len == 0 || len >= sizeof one)
      return api_usage(
          err, "--device '%s': expected a GPU ordinal, up to 16 of them as A,B,..., or all", v);
    memcpy(one, p, len);
    one[len] = 0;
    if (!parse_count(one, 0, &d) || d > 1024)
      return api_usage(
          err, "--device '%s': expected a GPU ordinal, up to 16 of them as A,B,..., or all", v);
    list[n++] = (int)d;
    if (!p[len]) break;
    p += len + 1;
  }
  c->c.device = list[0];
  c->c.ndevices = n;
  memcpy(c->c.devices, list, (size_t)n * sizeof *list);
  return SDEKIT_OK;
}

static sdekit_status o_nofast(sdekit_config *c, const char *v, sdekit_error *err) {
  c->c.fast_math = 0;
  return SDEKIT_OK;
}

static sdekit_status o_nocomp(sdekit_config *c, const char *v, sdekit_error *err) {
  c->c.no_compensation = 1;
  return SDEKIT_OK;
}

/* --compensate auto|all|none (issue 32: codegen/comp_vars.c) */
static sdekit_status o_comp(sdekit_config *c, const char *v, sdekit_error *err) {
  int all = !strcmp(v, "all"), none = !strcmp(v, "none");
  if (!all && !none && strcmp(v, "auto"))
    return api_usage(err, "--compensate '%s': expected auto, all or none", v);
  c->c.compensate_all = all;
  c->c.no_compensation = none;
  return SDEKIT_OK;
}

static sdekit_status o_calculus(sdekit_config *c, const char *v, sdekit_error *err) {
  if (!strcmp(v, "ito"))
    c->c.calculus = SDK_CALCULUS_ITO;
  else if (!strcmp(v, "stratonovich"))
    c->c.calculus = SDK_CALCULUS_STRATONOVICH;
  else
    return api_usage(err, "--calculus '%s': expected ito or stratonovich", v);
  return SDEKIT_OK;
}

static sdekit_status o_nobridge(sdekit_config *c, const char *v, sdekit_error *err) {
  c->c.no_bridge_correction = 1;
  return SDEKIT_OK;
}

static sdekit_status o_dtcheck(sdekit_config *c, const char *v, sdekit_error *err) {
  c->c.dt_check = 1;
  return SDEKIT_OK;
}

/* (that --dt-check is given too is checked by the run: options come in any order) */
static sdekit_status o_extrap(sdekit_config *c, const char *v, sdekit_error *err) {
  c->c.extrapolate = 1;
  return SDEKIT_OK;
}

/* --observe LIST (the names are the registry's) */
static sdekit_status o_observe(sdekit_config *c, const char *v, sdekit_error *err) {
  /* none: the final state's checks alone (timings of the stepping) */
  if (!strcmp(v, "none")) return set_owned(&c->observe, &c->c.observe, "", err);
  if (!v[0] || v[strlen(v) - 1] == ',')
    return api_usage(err, "--observe '%s': name at least one observable", v);
  const sdk_obs_type *t[SDK_MAX_OBSERVABLES];
  int n = 0;
  sdk_errbuf eb = {0};
  sdk_run_config probe = c->c;
  probe.observe = v;
  if (sdk_run_config_observables(&probe, t, &n, &eb) != SDK_OK)
    return api_fail(err, SDK_ERR_USAGE, &eb);
  if (n == 0) return api_usage(err, "--observe '%s': name at least one observable", v);
  return set_owned(&c->observe, &c->c.observe, v, err);
}

static sdekit_status o_drift(sdekit_config *c, const char *v, sdekit_error *err) {
  return set_owned(&c->drift_var, &c->c.obs.drift_var, v, err);
}

static sdekit_status o_dvar(sdekit_config *c, const char *v, sdekit_error *err) {
  return set_owned(&c->density_var, &c->c.obs.density_var, v, err);
}

static sdekit_status o_diffvar(sdekit_config *c, const char *v, sdekit_error *err) {
  return set_owned(&c->diffusion_var, &c->c.obs.diffusion_var, v, err);
}

/* --observe acf, psd (observe/obs_corr.h) */
static sdekit_status o_corr_vars(sdekit_config *c, const char *v, sdekit_error *err) {
  return set_owned(&c->corr_vars, &c->c.obs.corr_vars, v, err);
}
COUNT_OPT(o_max_lag, "max-lag", 1, obs.max_lag, "expected a whole number >= 1 (sample intervals)")
COUNT_OPT(o_psd_segment, "psd-segment", 4, obs.psd_segment,
          "expected a power of 2 >= 4 (samples per segment)")
static sdekit_status o_psd_window(sdekit_config *c, const char *v, sdekit_error *err) {
  if (strcmp(v, "hann") && strcmp(v, "rect"))
    return api_usage(err, "--psd-window '%s': expected hann or rect", v);
  c->c.obs.psd_window = !strcmp(v, "rect");
  return SDEKIT_OK;
}
static sdekit_status o_psd_on_host(sdekit_config *c, const char *v, sdekit_error *err) {
  (void)v, (void)err;
  c->c.obs.psd_host = 1;
  return SDEKIT_OK;
}

static sdekit_status o_bins(sdekit_config *c, const char *v, sdekit_error *err) {
  int64_t n;
  if (!parse_count(v, 1, &n) || n > 100000000)
    return api_usage(err, "--bins '%s': expected a whole number between 1 and 1e8", v);
  c->c.obs.bins = n;
  return SDEKIT_OK;
}

/* --hist-range VAR=LO:HI (one range per variable) */
static sdekit_status o_hrange(sdekit_config *c, const char *arg, sdekit_error *err) {
  sdk_observe_opts *o = &c->c.obs;
  const char *eq = strchr(arg, '='), *colon = eq ? strchr(eq, ':') : NULL;
  if (!eq || !colon || eq == arg || (size_t)(eq - arg) >= 64)
    return api_usage(err, "--hist-range '%s': expected VAR=LO:HI", arg);
  int k = o->nhist_range;
  for (int i = 0; i < o->nhist_range; i++)
    if (strlen(o->hist_range_var[i]) == (size_t)(eq - arg) &&
        !strncmp(o->hist_range_var[i], arg, (size_t)(eq - arg))) {
      char lo[40], hi[40];
      return api_usage(err,
                       "--hist-range %s given twice (%s=%s:%s, then %s): give one range per "
                       "variable",
                       o->hist_range_var[i], o->hist_range_var[i],
                       sdk_fmt_exact(lo, o->hist_range_lo[i]),
                       sdk_fmt_exact(hi, o->hist_range_hi[i]), arg);
    }
  if (k == SDK_MAX_HIST_RANGE)
    return api_usage(err, "--hist-range '%s': at most %d variables", arg, SDK_MAX_HIST_RANGE);
  char lo[64], hi[64];
  snprintf(lo, sizeof lo, "%.*s", (int)(colon - eq - 1), eq + 1);
  snprintf(hi, sizeof hi, "%s", colon + 1);
  double l, h;
  if (!sdk_parse_number(lo, &l) || !sdk_parse_number(hi, &h))
    return api_usage(err, "--hist-range '%s': LO and HI must be numbers", arg);
  o->hist_range_lo[k] = l;
  o->hist_range_hi[k] = h;
  snprintf(o->hist_range_var[k], sizeof o->hist_range_var[k], "%.*s", (int)(eq - arg), arg);
  o->nhist_range++;
  return SDEKIT_OK;
}

/* --observe-expr NAME=EXPR (repeatable; the name and the expression are
 * checked against the model when the run is planned, sim/plan.c) */
static sdekit_status o_oexpr(sdekit_config *c, const char *arg, sdekit_error *err) {
  sdk_run_config *rc = &c->c;
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg || (size_t)(eq - arg) > SDK_MODEL_MAX_NAME || !eq[1])
    return api_usage(err, "--observe-expr '%.80s': expected NAME=EXPR", arg);
  char name[SDK_MODEL_MAX_NAME + 2];
  snprintf(name, sizeof name, "%.*s", (int)(eq - arg), arg);
  if (!sdk_name_valid(name))
    return api_usage(err, "--observe-expr '%.80s': '%s' is not a valid name (letters, digits, _)",
                     arg, name);
  if (rc->nobs_expr == SDK_MODEL_MAX_OBSERVE)
    return api_usage(err, "--observe-expr: more than %d user observables (the limit)",
                     SDK_MODEL_MAX_OBSERVE);
  char *copy = strdup(arg);
  if (!copy) return api_nomem(err);
  c->obs_expr[rc->nobs_expr] = copy;
  rc->obs_expr[rc->nobs_expr++] = copy;
  return SDEKIT_OK;
}

/* --save-paths LIST (path indices) */
static sdekit_status o_save(sdekit_config *c, const char *arg, sdekit_error *err) {
  sdk_observe_opts *o = &c->c.obs;
  char *copy = strdup(arg), *save = NULL;
  if (!copy) return api_nomem(err);
  int n = 0, bad = !*arg || arg[strlen(arg) - 1] == ',';
  int64_t idx[SDK_MAX_SAVE];
  for (char *t = strtok_r(copy, ",", &save); t && !bad; t = strtok_r(NULL, ",", &save)) {
    int64_t k;
    if (!parse_count(t, 0, &k) || n == SDK_MAX_SAVE)
      bad = 1;
    else
      idx[n++] = k;
  }
  free(copy);
  if (bad || n == 0)
    return api_usage(err, "--save-paths '%s': expected path indices like 0,1,2 (at most %d)", arg,
                     SDK_MAX_SAVE);
  memcpy(o->save_index, idx, (size_t)n * sizeof *idx);
  o->nsave = n;
  return SDEKIT_OK;
}

/* --coarse-grain[=WIDTH] */
static sdekit_status o_coarse(sdekit_config *c, const char *v, sdekit_error *err) {
  double x;
  if (!v) {
    c->c.obs.coarse_width = -1; /* the model's period of the variable */
    return SDEKIT_OK;
  }
  if (!sdk_parse_number(v, &x) || x <= 0)
    return api_usage(err, "--coarse-grain=%s: the bin width must be a number > 0", v);
  c->c.obs.coarse_width = x;
  return SDEKIT_OK;
}

static sdekit_status o_ckpt(sdekit_config *c, const char *v, sdekit_error *err) {
  if (!*v) return api_usage(err, "--checkpoint: expected a file name");
  return set_owned(&c->checkpoint, &c->c.checkpoint, v, err);
}

static sdekit_status o_ckpt_every(sdekit_config *c, const char *v, sdekit_error *err) {
  double x;
  if (!sdk_parse_number(v, &x) || x < 0)
    return api_usage(err, "--checkpoint-every '%s': expected seconds >= 0", v);
  c->c.checkpoint_every = x;
  return SDEKIT_OK;
}

static sdekit_status o_output(sdekit_config *c, const char *v, sdekit_error *err) {
  if (c->noutputs == API_MAX_OUTPUTS) return api_usage(err, "at most four -o");
  if (!*v) return api_usage(err, "-o: expected a file name");
  if (!(c->outputs[c->noutputs] = strdup(v))) return api_nomem(err);
  c->noutputs++;
  return SDEKIT_OK;
}

static sdekit_status o_quiet(sdekit_config *c, const char *v, sdekit_error *err) {
  c->quiet = c->c.quiet = 1;
  return SDEKIT_OK;
}

static sdekit_status o_verbose(sdekit_config *c, const char *v, sdekit_error *err) {
  c->verbose = c->c.verbose = 1;
  return SDEKIT_OK;
}

static sdekit_status o_force(sdekit_config *c, const char *v, sdekit_error *err) {
  c->force = 1;
  return SDEKIT_OK;
}

/* --target-se EPS, --target-rse EPS: a tolerance > 0 (sim/target.c checks
 * that one of them alone is given, and what --target-on names) */
static sdekit_status target_eps(const char *opt, const char *v, double *out, sdekit_error *err) {
  double x;
  if (!sdk_parse_number(v, &x) || !(x > 0) || !isfinite(x))
    return api_usage(err, "--%s '%s': expected a standard error > 0", opt, v);
  *out = x;
  return SDEKIT_OK;
}
static sdekit_status o_target_se(sdekit_config *c, const char *v, sdekit_error *err) {
  return target_eps("target-se", v, &c->c.target_se, err);
}
static sdekit_status o_target_rse(sdekit_config *c, const char *v, sdekit_error *err) {
  return target_eps("target-rse", v, &c->c.target_rse, err);
}
static sdekit_status o_target_on(sdekit_config *c, const char *v, sdekit_error *err) {
  if (!v[0] || v[0] == ',' || v[strlen(v) - 1] == ',' || strstr(v, ",,"))
    return api_usage(err, "--target-on '%s': expected observable names like moments,expr", v);
  return set_owned(&c->target_on, &c->c.target_on, v, err);
}
COUNT_OPT(o_max_paths, "max-paths", 1, max_paths, "expected a whole number >= 1")
static sdekit_status o_max_seconds(sdekit_config *c, const char *v, sdekit_error *err) {
  double x;
  if (!sdk_parse_number(v, &x) || !(x > 0) || !isfinite(x))
    return api_usage(err, "--max-seconds '%s': expected seconds > 0", v);
  c->c.max_seconds = x;
  return SDEKIT_OK;
}

/* --init-from SPEC, --path-params SPEC (io/table.h: [NAME=]FILE[:grid=K]):
 * the files are read when the run starts (api/pathdata.c), and not again by
 * a resumed run; --save-final */
static sdekit_status o_init_from(sdekit_config *c, const char *v, sdekit_error *err) {
  if (!v[0]) return api_usage(err, "--init-from: expected a file");
  return api_set_str(&c->init_from, v) == SDK_OK ? SDEKIT_OK : api_nomem(err);
}
static sdekit_status o_path_params(sdekit_config *c, const char *v, sdekit_error *err) {
  if (!v[0]) return api_usage(err, "--path-params: expected a file");
  return api_set_str(&c->path_params_file, v) == SDK_OK ? SDEKIT_OK : api_nomem(err);
}
static sdekit_status o_save_final(sdekit_config *c, const char *v, sdekit_error *err) {
  c->c.save_final = 1;
  return SDEKIT_OK;
}

/* --adaptive and its tolerances and bounds (sim/adaptive.c checks them
 * together) */
static sdekit_status o_adaptive(sdekit_config *c, const char *v, sdekit_error *err) {
  c->c.adaptive = 1;
  return SDEKIT_OK;
}
POSITIVE_OPT(o_rtol, "rtol", rtol, >, "expected a relative tolerance > 0")
POSITIVE_OPT(o_atol, "atol", atol, >, "expected an absolute tolerance > 0")
POSITIVE_OPT(o_dt_min, "dt-min", dt_min, >, "expected a number > 0")
POSITIVE_OPT(o_dt_max, "dt-max", dt_max, >, "expected a number > 0")

/* ------------------------------------------------------------ the table */

/* NOREC: not recorded (the checkpoint's arguments and the results' command
 * line leave it out) */
enum { REPEAT = 1, NOREC = 2 };

typedef struct api_opt {
  const char *name;
  int arity; /* 0 none, 1 required, 2 optional (--name=VALUE only) */
  int flags;
  opt_fn fn;
} api_opt;

static const api_opt OPTS[] = {
    {"set", 1, REPEAT, o_set},
    {"scan", 1, REPEAT, api_opt_scan},
    {"scan-file", 1, REPEAT | NOREC, api_opt_scan_file},
    {"paths", 1, 0, o_paths},
    {"particles", 1, 0, o_particles},
    {"dt", 1, 0, o_dt},
    {"spp", 1, 0, o_spp},
    {"t-end", 1, 0, o_tend},
    {"periods", 1, 0, o_periods},
    {"transient", 1, 0, o_trans},
    {"transient-periods", 1, 0, o_transp},
    {"scheme", 1, 0, o_scheme},
    {"noise", 1, 0, o_noise},
    {"seed", 1, 0, o_seed},
    {"backend", 1, 0, o_backend},
    {"precision", 1, 0, o_precision},
    {"threads", 1, 0, o_threads},
    {"device", 1, 0, o_device},
    {"ranks", 1, 0, o_ranks},
    {"no-fast-math", 0, 0, o_nofast},
    {"no-compensation", 0, 0, o_nocomp},
    {"no-bridge-correction", 0, 0, o_nobridge},
    {"calculus", 1, 0, o_calculus},
    {"dt-check", 0, 0, o_dtcheck},
    {"extrapolate", 0, 0, o_extrap},
    {"mlmc", 1, 0, o_mlmc},
    {"target-error", 1, 0, o_terr},
    {"observe", 1, 0, o_observe},
    {"observe-expr", 1, REPEAT, o_oexpr},
    {"drift", 1, 0, o_drift},
    {"sample-every", 1, 0, o_sample},
    {"sample-times", 1, 0, o_sample_times},
    {"order-every", 1, 0, o_order_every},
    {"bins", 1, 0, o_bins},
    {"hist-range", 1, REPEAT, o_hrange},
    {"save-paths", 1, 0, o_save},
    {"save-final", 0, 0, o_save_final},
    {"init-from", 1, 0, o_init_from},
    {"path-params", 1, 0, o_path_params},
    {"density-var", 1, 0, o_dvar},
    {"diffusion-var", 1, 0, o_diffvar},
    {"coarse-grain", 2, 0, o_coarse},
    {"target-se", 1, 0, o_target_se},
    {"target-rse", 1, 0, o_target_rse},
    {"target-on", 1, 0, o_target_on},
    {"max-paths", 1, 0, o_max_paths},
    {"max-seconds", 1, 0, o_max_seconds},
    {"checkpoint", 1, 0, o_ckpt},
    {"checkpoint-every", 1, 0, o_ckpt_every},
    {"output", 1, REPEAT, o_output},
    {"quiet", 0, 0, o_quiet},
    {"verbose", 0, 0, o_verbose},
    {"force", 0, NOREC, o_force},
    {"corr-vars", 1, 0, o_corr_vars},
    {"max-lag", 1, 0, o_max_lag},
    {"psd-segment", 1, 0, o_psd_segment},
    {"psd-window", 1, 0, o_psd_window},
    {"psd-on-host", 0, 0, o_psd_on_host},
    {"adaptive", 0, 0, o_adaptive},
    {"rtol", 1, 0, o_rtol},
    {"atol", 1, 0, o_atol},
    {"dt-min", 1, 0, o_dt_min},
    {"dt-max", 1, 0, o_dt_max},
    {"compensate", 1, 0, o_comp},
};

static const api_opt *find_opt(const char *name) {
  if (name && !strcmp(name, "o")) name = "output";
  for (size_t i = 0; name && i < sizeof OPTS / sizeof *OPTS; i++)
    if (!strcmp(OPTS[i].name, name)) return &OPTS[i];
  return NULL;
}

SDEKIT_API int sdekit_config_option_arity(const char *name) {
  const api_opt *o = find_opt(name);
  return o ? o->arity : -1;
}

SDEKIT_API const char *sdekit_config_option_name(int i) {
  return i >= 0 && (size_t)i < sizeof OPTS / sizeof *OPTS ? OPTS[i].name : NULL;
}

/* "unknown option 'typed'", with the option the name (typed without its
 * dashes and any =VALUE) probably meant */
static sdekit_status unknown_option(const char *typed, const char *name, sdekit_error *err) {
  const char *names[sizeof OPTS / sizeof *OPTS];
  for (size_t i = 0; i < sizeof OPTS / sizeof *OPTS; i++)
    names[i] = OPTS[i].name;
  int k = sdk_nearest(name, names, sizeof OPTS / sizeof *OPTS);
  if (k >= 0)
    return api_usage(err, "unknown option '%s' (did you mean '--%s'? see 'sdekit run --help')",
                     typed, names[k]);
  return api_usage(err, "unknown option '%s' (see 'sdekit run --help')", typed);
}

sdekit_status api_resumed_option(const sdekit_config *c, const char *name, sdekit_error *err) {
  /* (what a resumed run may change: its length, where it runs, its outputs
   * and checkpoints, its messages; the rest is the checkpoint's, and a value
   * given would be recorded but not used: the seed's, say) */
  static const char *const may[] = {"periods", "t-end",      "threads",         "device",
                                    "ranks",   "output",     "quiet",           "verbose",
                                    "force",   "checkpoint", "checkpoint-every"};
  if (!c->ckpt) return SDEKIT_OK;
  for (size_t i = 0; i < sizeof may / sizeof *may; i++)
    if (!strcmp(name, may[i])) return SDEKIT_OK;
  return api_usage(err,
                   "--%s cannot change a resumed run (checkpoint '%s' holds its value): a "
                   "resumed run takes --periods or --t-end, --threads, --device, --ranks, "
                   "outputs, --force and --checkpoint-every",
                   name, c->ckpt_file ? c->ckpt_file : "?");
}

sdekit_status api_apply_option(sdekit_config *c, const char *name, const char *value,
                               sdekit_error *err) {
  const api_opt *o = find_opt(name);
  if (!o) {
    char typed[160];
    snprintf(typed, sizeof typed, "--%s", name);
    return unknown_option(typed, name, err);
  }
  sdekit_status rs = api_resumed_option(c, o->name, err);
  if (rs != SDEKIT_OK) return rs;
  if (o->arity == 1 && !value) {
    if (!strcmp(o->name, "output")) return api_usage(err, "option '-o' needs a value");
    return api_usage(err, "option '--%s' needs a value", o->name);
  }
  if (o->arity == 0 && value) return api_usage(err, "option '--%s' takes no value", o->name);
  return o->fn(c, value, err);
}

SDEKIT_API sdekit_status sdekit_config_option(sdekit_config *c, const char *name, const char *value,
                                              sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!c || !name) return api_usage(err, "sdekit_config_option: no configuration or name");
  const api_opt *o = find_opt(name);
  sdekit_status s = api_apply_option(c, name, value, err);
  if (s != SDEKIT_OK || (o->flags & NOREC)) return s;
  if (!(o->flags & REPEAT)) api_unrecord(c, o->name);
  /* (the word as long as the value: a list of 10^7 scan values or sample
   * times is recorded whole, never cut) */
  size_t len = strlen(o->name) + (value ? strlen(value) : 0) + 4;
  char *word = malloc(len);
  if (!word) return api_nomem(err);
  if (value)
    snprintf(word, len, "--%s=%s", o->name, value);
  else
    snprintf(word, len, "--%s", o->name);
  s = api_record(c, o->name, word, NULL, err);
  free(word);
  return s;
}

/* ------------------------------------------------------------ command lines */

#define NOPTS (sizeof OPTS / sizeof *OPTS)

/* An option that takes a value and does not accumulate, given a second time
 * in one argument list: the last value would win silently, so it is refused
 * (given[k]: the value OPTS[k] had, NULL while not given). */
static sdekit_status given_once(const api_opt *o, const char *value, const char **given,
                                sdekit_error *err) {
  if ((o->flags & REPEAT) || o->arity == 0) return SDEKIT_OK;
  const char **was = &given[o - OPTS];
  if (*was)
    return api_usage(err, "--%s given twice (%s, then %s): give it once", o->name,
                     **was ? *was : "without a value", value ? value : "without a value");
  *was = value ? value : "";
  return SDEKIT_OK;
}

/* The option at argv[*i] with its value (the next word when it takes one
 * and none is attached: *i moves past it). */
static sdekit_status one_option(sdekit_config *c, int argc, const char *const *argv, int *i,
                                const char **given, sdekit_arg_fn other, void *user,
                                sdekit_error *err) {
  const char *a = argv[*i], *value = NULL, *w1 = NULL;
  char name[128];
  if (a[1] != '-') {
    if (a[1] != 'o') return unknown_option(a, a + 1, err);
    /* -o FILE, -oFILE */
    snprintf(name, sizeof name, "output");
    if (a[2])
      value = a + 2;
    else if (*i + 1 < argc)
      value = w1 = argv[++*i];
    else
      return api_usage(err, "option '-o' needs a value");
  } else {
    const char *eq = strchr(a, '=');
    size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
    if (len >= sizeof name)
      return api_usage(err, "unknown option '%s' (see 'sdekit run --help')", a);
    snprintf(name, sizeof name, "%.*s", (int)len, a + 2);
    const api_opt *o = find_opt(name);
    if (!o) {
      /* not ours: the caller's (--help, --arch, ...) */
      int r = other ? other(user, name, eq ? eq + 1 : NULL) : -1;
      if (r < 0) return unknown_option(a, name, err);
      if (r == 1 && !eq) {
        if (*i + 1 >= argc) return api_usage(err, "option '%s' needs a value", a);
        if (other(user, name, argv[++*i]) < 0)
          return api_usage(err, "option '%s': bad value '%s'", a, argv[*i]);
      }
      return SDEKIT_OK;
    }
    if (eq) {
      if (o->arity == 0) return api_usage(err, "option '--%s' takes no value", o->name);
      value = eq + 1;
    } else if (o->arity == 1) {
      if (*i + 1 >= argc) return api_usage(err, "option '%s' needs a value", a);
      value = w1 = argv[++*i];
    }
  }
  const api_opt *o = find_opt(name);
  if (o && (o->flags & NOREC) && c->stored_args)
    return api_usage(err,
                     "checkpoint '%s': its arguments hold --%s, which sdekit never stores in one "
                     "(a damaged or forged checkpoint): not resumed",
                     c->stored_args, o->name);
  sdekit_status s = o ? given_once(o, value, given, err) : SDEKIT_OK;
  if (s == SDEKIT_OK) s = api_apply_option(c, name, value, err);
  if (s != SDEKIT_OK || (o->flags & NOREC)) return s;
  if (!(o->flags & REPEAT)) api_unrecord(c, o->name);
  return api_record(c, o->name, w1 ? argv[*i - 1] : a, w1, err);
}

SDEKIT_API sdekit_status sdekit_config_args(sdekit_config *c, int argc, const char *const *argv,
                                            sdekit_arg_fn other, void *user, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!c || argc < 0 || (argc > 0 && !argv))
    return api_usage(err, "sdekit_config_args: no arguments");
  int operands = 0, dashdash = 0;
  const char *given[NOPTS] = {0};
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!a) return api_usage(err, "sdekit_config_args: argument %d is NULL", i);
    sdekit_status s = SDEKIT_OK;
    if (!dashdash && !strcmp(a, "--")) {
      dashdash = 1;
    } else if (dashdash || a[0] != '-' || !a[1]) {
      /* an operand (a lone "-" too, and anything after "--") */
      if (other)
        s = other(user, NULL, a) < 0 ? api_usage(err, "unexpected argument '%s'", a) : SDEKIT_OK;
      else if (++operands > 1)
        s = api_usage(err, "unexpected argument '%s'", a);
      else
        s = sdekit_config_set_model(c, a, err);
    } else {
      s = one_option(c, argc, argv, &i, given, other, user, err);
    }
    if (s != SDEKIT_OK) return s;
  }
  api_ok(err);
  return SDEKIT_OK;
}
