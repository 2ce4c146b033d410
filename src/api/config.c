/* The public API: the run configuration (its options are in options.c, the
 * environment in environment.c). */
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/api.h"
#include "core/numfmt.h"
#include "model/model.h"
#include "sim/registry.h"
#include "sim/sample_times.h"

SDEKIT_API sdekit_status sdekit_config_create(sdekit_config **out, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!out) return api_usage(err, "sdekit_config_create: no place for the configuration");
  *out = NULL;
  sdekit_config *c = calloc(1, sizeof *c);
  if (!c) return api_nomem(err);
  sdk_run_config_defaults(&c->c);
  c->log_min = SDEKIT_LOG_INFO;
  *out = c;
  api_ok(err);
  return SDEKIT_OK;
}

static void free_items(sdekit_config *c) {
  for (int i = 0; i < c->nitems; i++) {
    free(c->items[i].name);
    free(c->items[i].words[0]);
    free(c->items[i].words[1]);
  }
  free(c->items);
  c->items = NULL;
  c->nitems = c->cap = 0;
}

SDEKIT_API void sdekit_config_destroy(sdekit_config **cp) {
  if (!cp || !*cp) return;
  sdekit_config *c = *cp;
  char **owned[] = {&c->model,
                    &c->model_search_path,
                    &c->model_text,
                    &c->model_label,
                    &c->scheme,
                    &c->backend,
                    &c->observe,
                    &c->drift_var,
                    &c->density_var,
                    &c->checkpoint,
                    &c->command_line,
                    &c->cache_dir,
                    &c->tmp_dir,
                    &c->cc,
                    &c->cflags,
                    &c->cflags_extra,
                    &c->cuda_home,
                    &c->cuda_path,
                    &c->sys_kernel,
                    &c->baseline_cubin,
                    &c->env_note,
                    &c->ckpt_file,
                    &c->diffusion_var,
                    &c->noise,
                    &c->target_on,
                    &c->init_from,
                    &c->path_params_file,
                    &c->sample_times,
                    &c->corr_vars};
  for (size_t i = 0; i < sizeof owned / sizeof *owned; i++)
    free(*owned[i]);
  for (int i = 0; i < SDK_MAX_SET; i++)
    free(c->set_name[i]);
  for (int i = 0; i < c->noutputs; i++)
    free(c->outputs[i]);
  for (int i = 0; i < c->c.nobs_expr; i++)
    free(c->obs_expr[i]);
  for (int i = 0; i < c->c.nscan; i++)
    sdk_scan_free(&c->c.scan[i]);
  free_items(c);
  api_values_free(&c->init_arr);
  api_values_free(&c->pp_arr);
  sdk_ckpt_destroy(&c->ckpt);
  free(c);
  *cp = NULL;
}

/* ------------------------------------------------------------ recording */

sdekit_status api_record(sdekit_config *c, const char *name, const char *w0, const char *w1,
                         sdekit_error *err) {
  if (c->nitems == c->cap) {
    int nc = c->cap ? 2 * c->cap : 32;
    api_item *ni = realloc(c->items, (size_t)nc * sizeof *ni);
    if (!ni) return api_nomem(err);
    c->items = ni, c->cap = nc;
  }
  api_item *it = &c->items[c->nitems];
  memset(it, 0, sizeof *it);
  it->name = name ? strdup(name) : NULL;
  it->words[0] = strdup(w0);
  it->words[1] = w1 ? strdup(w1) : NULL;
  it->nwords = w1 ? 2 : 1;
  if ((name && !it->name) || !it->words[0] || (w1 && !it->words[1])) {
    free(it->name);
    free(it->words[0]);
    free(it->words[1]);
    return api_nomem(err);
  }
  c->nitems++;
  api_ok(err);
  return SDEKIT_OK;
}

/* Forget the recorded items that `drop` picks. */
static void drop_items(sdekit_config *c, int (*drop)(const api_item *it, const char *arg),
                       const char *arg) {
  int k = 0;
  for (int i = 0; i < c->nitems; i++) {
    api_item *it = &c->items[i];
    if (drop(it, arg)) {
      free(it->name);
      free(it->words[0]);
      free(it->words[1]);
    } else {
      c->items[k++] = *it;
    }
  }
  c->nitems = k;
}

/* an item of option `name` (NULL: the model, which has none) */
static int is_option(const api_item *it, const char *name) {
  return name ? it->name && !strcmp(it->name, name) : !it->name;
}

void api_unrecord(sdekit_config *c, const char *name) {
  drop_items(c, is_option, name);
}

/* ------------------------------------------------------------ the model */

SDEKIT_API sdekit_status sdekit_config_set_model(sdekit_config *c, const char *name_or_path,
                                                 sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!c || !name_or_path || !*name_or_path) return api_usage(err, "empty model name");
  if (api_set_str(&c->model, name_or_path) != SDK_OK) return api_nomem(err);
  c->c.model = c->model;
  /* a resumed run keeps the text of its checkpoint */
  if (!c->ckpt) {
    free(c->model_text);
    free(c->model_label);
    c->model_text = c->model_label = NULL;
    c->c.model_text = c->c.model_path = NULL;
  }
  api_unrecord(c, NULL);
  return api_record(c, NULL, name_or_path, NULL, err);
}

SDEKIT_API sdekit_status sdekit_config_set_model_text(sdekit_config *c, const char *text,
                                                      const char *label, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!c || !text) return api_usage(err, "no model text");
  if (!label || !*label) label = "<string>";
  if (api_set_str(&c->model_text, text) != SDK_OK ||
      api_set_str(&c->model_label, label) != SDK_OK || api_set_str(&c->model, label) != SDK_OK)
    return api_nomem(err);
  c->c.model_text = c->model_text;
  c->c.model_path = c->model_label;
  c->c.model = c->model;
  api_unrecord(c, NULL);
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API sdekit_status sdekit_config_set_model_object(sdekit_config *c, const sdekit_model *m,
                                                        sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!m) return api_usage(err, "no model");
  return sdekit_config_set_model_text(c, sdekit_model_text(m), sdekit_model_path(m), err);
}

SDEKIT_API sdekit_status sdekit_config_set_model_search_path(sdekit_config *c, const char *path,
                                                             sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!c) return api_usage(err, "no configuration");
  if (api_set_str(&c->model_search_path, path && *path ? path : NULL) != SDK_OK)
    return api_nomem(err);
  c->c.model_search_path = c->model_search_path;
  api_ok(err);
  return SDEKIT_OK;
}

/* ------------------------------------------------------------ typed setters */

/* Every typed setter is its option with the value written out (exactly:
 * numbers as the shortest text that reads back as the same double), so one
 * parser checks everything and a checkpoint stores what it would store for
 * the command line. */
static sdekit_status opt_num(sdekit_config *c, const char *name, double v, sdekit_error *err) {
  char buf[40];
  return sdekit_config_option(c, name, sdk_fmt_exact(buf, v), err);
}

static sdekit_status opt_int(sdekit_config *c, const char *name, int64_t v, sdekit_error *err) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", (long long)v);
  return sdekit_config_option(c, name, buf, err);
}

/* An option "unset" (0, or -1 for the transients): its default again. */
static sdekit_status unset_i64(sdekit_config *c, const char *name, int64_t *field, int64_t v,
                               sdekit_error *err) {
  *field = v;
  api_unrecord(c, name);
  api_ok(err);
  return SDEKIT_OK;
}

static sdekit_status unset_f64(sdekit_config *c, const char *name, double *field, double v,
                               sdekit_error *err) {
  *field = v;
  api_unrecord(c, name);
  api_ok(err);
  return SDEKIT_OK;
}

/* The setter replaces a parameter's value: its old value and recorded
 * argument are forgotten first (the option itself refuses a parameter given
 * twice, as a command line must not keep the last value silently). */
/* a --set item of parameter `name` */
static int sets_param(const api_item *it, const char *name) {
  size_t len = strlen(name);
  const char *v = it->nwords == 2 ? it->words[1] : strchr(it->words[0], '=');
  if (v && it->nwords == 1) v++;
  return it->name && !strcmp(it->name, "set") && v && !strncmp(v, name, len) && v[len] == '=';
}

static void forget_param(sdekit_config *c, const char *name) {
  sdk_run_config *rc = &c->c;
  for (int i = 0; i < rc->nset; i++) {
    if (strcmp(rc->set_name[i], name)) continue;
    free(c->set_name[i]);
    for (int j = i; j + 1 < rc->nset; j++) {
      c->set_name[j] = c->set_name[j + 1];
      rc->set_name[j] = rc->set_name[j + 1];
      rc->set_value[j] = rc->set_value[j + 1];
    }
    rc->nset--;
    c->set_name[rc->nset] = NULL;
    rc->set_name[rc->nset] = NULL;
    break;
  }
  drop_items(c, sets_param, name);
}

SDEKIT_API sdekit_status sdekit_config_set_param(sdekit_config *c, const char *name, double value,
                                                 sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!c || !name || !*name) return api_usage(err, "--set: no parameter name");
  if (isfinite(value)) forget_param(c, name); /* else the option's error, the old value kept */
  char buf[128], num[40];
  if (snprintf(buf, sizeof buf, "%s=%s", name, sdk_fmt_exact(num, value)) >= (int)sizeof buf)
    return api_usage(err, "--set: parameter name '%.64s...' too long", name);
  return sdekit_config_option(c, "set", buf, err);
}

SDEKIT_API sdekit_status sdekit_config_add_scan(sdekit_config *c, const char *name, double start,
                                                double stop, int64_t n, int log,
                                                sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!c || !name || !*name) return api_usage(err, "--scan: no parameter name");
  char buf[256], a[40], b[40];
  if (snprintf(buf, sizeof buf, "%s=%s:%s:%lld%s", name, sdk_fmt_exact(a, start),
               sdk_fmt_exact(b, stop), (long long)n, log ? ":log" : "") >= (int)sizeof buf)
    return api_usage(err, "--scan: parameter name '%.64s...' too long", name);
  return sdekit_config_option(c, "scan", buf, err);
}

char *api_scan_word(const char *prefix, const char *name, int zip, const double *v, int64_t n) {
  size_t cap = strlen(prefix) + strlen(name) + 3 + (size_t)n * 26;
  char *buf = malloc(cap), num[40];
  if (!buf) return NULL;
  size_t len = (size_t)snprintf(buf, cap, "%s%s%s=", prefix, zip ? "+" : "", name);
  for (int64_t i = 0; i < n; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? "," : "", sdk_fmt_exact(num, v[i]));
  return buf;
}

/* --scan [+]NAME=V1,V2,... through the option parser (recorded as a command
 * line would be); zip: '+', moving with the --scan before it */
static sdekit_status scan_values_opt(sdekit_config *c, const char *name, const double *values,
                                     int64_t n, int zip, sdekit_error *err) {
  if (!c || !name || !*name) return api_usage(err, "--scan: no parameter name");
  if (!values || n < 1 || n > 10000000)
    return api_usage(err, "--scan %s: expected 1 to 1e7 values", name);
  for (int64_t i = 0; i < n; i++)
    if (values[i] != values[i] || values[i] - values[i] != 0)
      return api_usage(err, "--scan %s: value %lld is not a finite number", name, (long long)i);
  char *buf = api_scan_word("", name, zip, values, n);
  if (!buf) return api_nomem(err);
  sdekit_status s = sdekit_config_option(c, "scan", buf, err);
  free(buf);
  return s;
}

SDEKIT_API sdekit_status sdekit_config_add_scan_values(sdekit_config *c, const char *name,
                                                       const double *values, int64_t n,
                                                       sdekit_error *err) {
  SDK_C_NUMERIC();
  return scan_values_opt(c, name, values, n, 0, err);
}

SDEKIT_API sdekit_status sdekit_config_add_scan_table(sdekit_config *c, int nnames,
                                                      const char *const *names,
                                                      const double *const *values, int64_t n,
                                                      sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!c || nnames < 1 || !names || !values)
    return api_usage(err, "--scan: a table needs at least one parameter name and its values");
  /* all checked first: a table is added whole or not at all */
  if (c->c.nscan + nnames > SDK_MAX_SCAN_PARAMS)
    return api_usage(err, "--scan: more than %d scanned parameters in all", SDK_MAX_SCAN_PARAMS);
  if (n < 1 || n > 10000000) return api_usage(err, "--scan: expected 1 to 1e7 values");
  for (int k = 0; k < nnames; k++) {
    if (!names[k] || !*names[k] || !values[k])
      return api_usage(err, "--scan: parameter %d of the table has no name or no values", k);
    for (int j = 0; j < c->c.nscan + k; j++)
      if (!strcmp(j < c->c.nscan ? c->c.scan[j].name : names[j - c->c.nscan], names[k]))
        return api_usage(err, "--scan: parameter %.64s scanned twice", names[k]);
    for (int64_t i = 0; i < n; i++)
      if (values[k][i] != values[k][i] || values[k][i] - values[k][i] != 0)
        return api_usage(err, "--scan %.64s: value %lld is not a finite number", names[k],
                         (long long)i);
  }
  for (int k = 0; k < nnames; k++) {
    sdekit_status s = scan_values_opt(c, names[k], values[k], n, k > 0, err);
    if (s != SDEKIT_OK) return s;
  }
  return SDEKIT_OK;
}

SDEKIT_API sdekit_status sdekit_config_set_paths(sdekit_config *c, int64_t n, sdekit_error *err) {
  SDK_C_NUMERIC();
  return opt_int(c, "paths", n, err);
}
SDEKIT_API sdekit_status sdekit_config_set_particles(sdekit_config *c, int64_t n,
                                                     sdekit_error *err) {
  SDK_C_NUMERIC();
  if (c && n == 0) return unset_i64(c, "particles", &c->c.particles, 0, err);
  return opt_int(c, "particles", n, err);
}
SDEKIT_API sdekit_status sdekit_config_set_dt(sdekit_config *c, double dt, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (c && dt == 0) return unset_f64(c, "dt", &c->c.dt, 0.0, err);
  return opt_num(c, "dt", dt, err);
}
SDEKIT_API sdekit_status sdekit_config_set_spp(sdekit_config *c, int64_t n, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (c && n == 0) return unset_i64(c, "spp", &c->c.spp, 0, err);
  return opt_int(c, "spp", n, err);
}
SDEKIT_API sdekit_status sdekit_config_set_t_end(sdekit_config *c, double t, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (c && t == 0) return unset_f64(c, "t-end", &c->c.t_end, 0.0, err);
  return opt_num(c, "t-end", t, err);
}
SDEKIT_API sdekit_status sdekit_config_set_periods(sdekit_config *c, int64_t n, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (c && n == 0) return unset_i64(c, "periods", &c->c.periods, 0, err);
  return opt_int(c, "periods", n, err);
}
SDEKIT_API sdekit_status sdekit_config_set_transient(sdekit_config *c, double t,
                                                     sdekit_error *err) {
  SDK_C_NUMERIC();
  if (c && t < 0) return unset_f64(c, "transient", &c->c.transient, -1.0, err);
  return opt_num(c, "transient", t, err);
}
SDEKIT_API sdekit_status sdekit_config_set_transient_periods(sdekit_config *c, int64_t n,
                                                             sdekit_error *err) {
  SDK_C_NUMERIC();
  if (c && n < 0) return unset_i64(c, "transient-periods", &c->c.transient_periods, -1, err);
  return opt_int(c, "transient-periods", n, err);
}
SDEKIT_API sdekit_status sdekit_config_set_scheme(sdekit_config *c, const char *name,
                                                  sdekit_error *err) {
  SDK_C_NUMERIC();
  if (c && !name) {
    free(c->scheme);
    c->scheme = NULL;
    c->c.scheme = NULL;
    api_unrecord(c, "scheme");
    return SDEKIT_OK;
  }
  return sdekit_config_option(c, "scheme", name, err);
}
SDEKIT_API sdekit_status sdekit_config_set_seed(sdekit_config *c, uint64_t seed,
                                                sdekit_error *err) {
  SDK_C_NUMERIC();
  char buf[32];
  snprintf(buf, sizeof buf, "%llu", (unsigned long long)seed);
  return sdekit_config_option(c, "seed", buf, err);
}
SDEKIT_API sdekit_status sdekit_config_set_backend(sdekit_config *c, const char *name,
                                                   sdekit_error *err) {
  SDK_C_NUMERIC();
  return sdekit_config_option(c, "backend", name ? name : "", err);
}
SDEKIT_API sdekit_status sdekit_config_set_precision(sdekit_config *c, const char *name,
                                                     sdekit_error *err) {
  SDK_C_NUMERIC();
  return sdekit_config_option(c, "precision", name ? name : "", err);
}
SDEKIT_API sdekit_status sdekit_config_set_threads(sdekit_config *c, int n, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (c && n == 0) return c->c.threads = 0, api_unrecord(c, "threads"), api_ok(err), SDEKIT_OK;
  return opt_int(c, "threads", n, err);
}
SDEKIT_API sdekit_status sdekit_config_set_device(sdekit_config *c, int ordinal,
                                                  sdekit_error *err) {
  SDK_C_NUMERIC();
  return opt_int(c, "device", ordinal, err);
}

/* a flag option on, or off (its default) */
static sdekit_status flag(sdekit_config *c, const char *name, int on, int *field, int off_value,
                          sdekit_error *err) {
  if (!c) return api_usage(err, "no configuration");
  if (on) return sdekit_config_option(c, name, NULL, err);
  sdekit_status s = api_resumed_option(c, name, err);
  if (s != SDEKIT_OK) return s;
  *field = off_value;
  api_unrecord(c, name);
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API sdekit_status sdekit_config_set_fast_math(sdekit_config *c, int on, sdekit_error *err) {
  SDK_C_NUMERIC();
  return flag(c, "no-fast-math", !on, c ? &c->c.fast_math : NULL, 1, err);
}
SDEKIT_API sdekit_status sdekit_config_set_compensation(sdekit_config *c, int on,
                                                        sdekit_error *err) {
  SDK_C_NUMERIC();
  return flag(c, "no-compensation", !on, c ? &c->c.no_compensation : NULL, 0, err);
}
SDEKIT_API sdekit_status sdekit_config_set_quiet(sdekit_config *c, int on, sdekit_error *err) {
  SDK_C_NUMERIC();
  sdekit_status s = flag(c, "quiet", on, c ? &c->c.quiet : NULL, 0, err);
  if (c && !on) c->quiet = 0;
  return s;
}
SDEKIT_API sdekit_status sdekit_config_set_verbose(sdekit_config *c, int on, sdekit_error *err) {
  SDK_C_NUMERIC();
  sdekit_status s = flag(c, "verbose", on, c ? &c->c.verbose : NULL, 0, err);
  if (c && !on) c->verbose = 0;
  return s;
}
SDEKIT_API int sdekit_config_quiet(const sdekit_config *c) {
  return c ? c->quiet : 0;
}
SDEKIT_API int sdekit_config_verbose(const sdekit_config *c) {
  return c ? c->verbose : 0;
}

SDEKIT_API sdekit_status sdekit_config_set_observe(sdekit_config *c, const char *list,
                                                   sdekit_error *err) {
  SDK_C_NUMERIC();
  return sdekit_config_option(c, "observe", list ? list : "", err);
}
SDEKIT_API sdekit_status sdekit_config_set_drift_var(sdekit_config *c, const char *var,
                                                     sdekit_error *err) {
  SDK_C_NUMERIC();
  return sdekit_config_option(c, "drift", var ? var : "", err);
}
SDEKIT_API sdekit_status sdekit_config_set_sample_every(sdekit_config *c, int64_t n,
                                                        sdekit_error *err) {
  SDK_C_NUMERIC();
  if (c && n == 0) return unset_i64(c, "sample-every", &c->c.sample_every, 0, err);
  return opt_int(c, "sample-every", n, err);
}
SDEKIT_API sdekit_status sdekit_config_set_sample_times(sdekit_config *c, const double *times,
                                                        int64_t n, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (c && n == 0) {
    free(c->sample_times);
    c->sample_times = NULL;
    c->c.sample_times = NULL;
    api_unrecord(c, "sample-times");
    api_ok(err);
    return SDEKIT_OK;
  }
  if (!c || !times || n < 0 || n > SDK_MAX_SAMPLE_TIMES)
    return api_usage(err, "--sample-times: expected 1 to %d times", SDK_MAX_SAMPLE_TIMES);
  /* written out exactly (sdk_fmt_exact) and through the option, so that a
   * checkpoint stores what a command line would */
  size_t cap = (size_t)n * 26 + 1;
  char *buf = malloc(cap), num[40];
  if (!buf) return api_nomem(err);
  size_t len = 0;
  buf[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    if (times[i] != times[i] || times[i] - times[i] != 0) {
      free(buf);
      return api_usage(err, "--sample-times: time %lld is not a finite number", (long long)i + 1);
    }
    len +=
        (size_t)snprintf(buf + len, cap - len, "%s%s", i ? "," : "", sdk_fmt_exact(num, times[i]));
  }
  sdekit_status s = sdekit_config_option(c, "sample-times", buf, err);
  free(buf);
  return s;
}
SDEKIT_API sdekit_status sdekit_config_set_bins(sdekit_config *c, int64_t n, sdekit_error *err) {
  SDK_C_NUMERIC();
  return opt_int(c, "bins", n, err);
}
SDEKIT_API sdekit_status sdekit_config_add_hist_range(sdekit_config *c, const char *var, double lo,
                                                      double hi, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!var || !*var) return api_usage(err, "--hist-range: no variable");
  char buf[200], a[40], b[40];
  if (snprintf(buf, sizeof buf, "%s=%s:%s", var, sdk_fmt_exact(a, lo), sdk_fmt_exact(b, hi)) >=
      (int)sizeof buf)
    return api_usage(err, "--hist-range: variable name '%.64s...' too long", var);
  return sdekit_config_option(c, "hist-range", buf, err);
}
SDEKIT_API sdekit_status sdekit_config_add_observe_expr(sdekit_config *c, const char *name,
                                                        const char *expr, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!name || !*name || !expr) return api_usage(err, "--observe-expr: no name or expression");
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_sb_printf(&b, "%s=%s", name, expr);
  if (!b.s) return api_nomem(err);
  sdekit_status s = sdekit_config_option(c, "observe-expr", b.s, err);
  sdk_sb_free(&b);
  return s;
}
SDEKIT_API sdekit_status sdekit_config_set_save_paths(sdekit_config *c, const int64_t *index, int n,
                                                      sdekit_error *err) {
  SDK_C_NUMERIC();
  if (c && n == 0) return c->c.obs.nsave = 0, api_unrecord(c, "save-paths"), api_ok(err), SDEKIT_OK;
  if (!index || n < 0 || n > SDK_MAX_SAVE)
    return api_usage(err, "--save-paths: expected 1 to %d path indices", SDK_MAX_SAVE);
  char *buf = malloc((size_t)n * 22 + 1);
  if (!buf) return api_nomem(err);
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < n; i++)
    len += (size_t)sprintf(buf + len, "%s%lld", i ? "," : "", (long long)index[i]);
  sdekit_status s = sdekit_config_option(c, "save-paths", buf, err);
  free(buf);
  return s;
}
SDEKIT_API sdekit_status sdekit_config_set_density_var(sdekit_config *c, const char *var,
                                                       sdekit_error *err) {
  SDK_C_NUMERIC();
  return sdekit_config_option(c, "density-var", var ? var : "", err);
}
SDEKIT_API sdekit_status sdekit_config_set_coarse_grain(sdekit_config *c, double width,
                                                        sdekit_error *err) {
  SDK_C_NUMERIC();
  if (c && width == 0) return unset_f64(c, "coarse-grain", &c->c.obs.coarse_width, 0.0, err);
  if (c && width < 0) return sdekit_config_option(c, "coarse-grain", NULL, err);
  return opt_num(c, "coarse-grain", width, err);
}
SDEKIT_API sdekit_status sdekit_config_set_checkpoint(sdekit_config *c, const char *file,
                                                      double every_s, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!c) return api_usage(err, "no configuration");
  if (!file) {
    free(c->checkpoint);
    c->checkpoint = NULL;
    c->c.checkpoint = NULL;
    c->c.checkpoint_every = -1;
    api_unrecord(c, "checkpoint");
    api_unrecord(c, "checkpoint-every");
    api_ok(err);
    return SDEKIT_OK;
  }
  sdekit_status s = sdekit_config_option(c, "checkpoint", file, err);
  if (s == SDEKIT_OK && every_s >= 0) s = opt_num(c, "checkpoint-every", every_s, err);
  return s;
}

/* ------------------------------------------------------------ outputs */

/* A resumed run's outputs are given anew without changing its recorded
 * arguments: its results keep the command line of the run that began it. */
SDEKIT_API sdekit_status sdekit_config_add_output(sdekit_config *c, const char *path,
                                                  sdekit_error *err) {
  SDK_C_NUMERIC();
  if (c && c->ckpt) {
    sdekit_status s = api_apply_option(c, "output", path ? path : "", err);
    if (s == SDEKIT_OK) api_ok(err);
    return s;
  }
  return sdekit_config_option(c, "output", path ? path : "", err);
}
SDEKIT_API void sdekit_config_clear_outputs(sdekit_config *c) {
  if (!c) return;
  for (int i = 0; i < c->noutputs; i++)
    free(c->outputs[i]);
  c->noutputs = 0;
  if (!c->ckpt) api_unrecord(c, "output");
}
SDEKIT_API int sdekit_config_noutputs(const sdekit_config *c) {
  return c ? c->noutputs : 0;
}
SDEKIT_API const char *sdekit_config_output(const sdekit_config *c, int i) {
  return c && i >= 0 && i < c->noutputs ? c->outputs[i] : NULL;
}

SDEKIT_API sdekit_status sdekit_config_set_command_line(sdekit_config *c, const char *text,
                                                        sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!c) return api_usage(err, "no configuration");
  if (api_set_str(&c->command_line, text) != SDK_OK) return api_nomem(err);
  api_ok(err);
  return SDEKIT_OK;
}

/* ------------------------------------------------------------ callbacks */

SDEKIT_API void sdekit_config_set_progress(sdekit_config *c, sdekit_progress_fn fn, void *user) {
  if (c) c->progress = fn, c->progress_user = user;
}
SDEKIT_API void sdekit_config_set_cancel(sdekit_config *c, sdekit_cancel_fn fn, void *user) {
  if (c) c->cancel = fn, c->cancel_user = user;
}
SDEKIT_API void sdekit_config_set_log(sdekit_config *c, sdekit_log_fn fn, void *user,
                                      sdekit_log_level min_level) {
  if (c) c->log = fn, c->log_user = user, c->log_min = min_level;
}

/* ------------------------------------------------------------ checks */

static int has_suffix(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

static int is_h5(const char *s) {
  return has_suffix(s, ".h5") || has_suffix(s, ".hdf5");
}

/* The directory of out must exist and be writable, out not a directory. */
static sdekit_status check_dir(const char *out, sdekit_error *err) {
  char *copy = strdup(out);
  if (!copy) return api_nomem(err);
  char *dir = dirname(copy);
  struct stat st;
  sdekit_status s = SDEKIT_OK;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    s = api_usage(err, "cannot write '%s': the directory does not exist", out);
  else if (access(dir, W_OK) != 0)
    s = api_usage(err, "cannot write '%s': the directory is not writable", out);
  else if (stat(out, &st) == 0 && S_ISDIR(st.st_mode))
    s = api_usage(err, "cannot write '%s': it is a directory", out);
  free(copy);
  return s;
}

SDEKIT_API int sdekit_config_nobservables(const sdekit_config *cc) {
  sdekit_config *c = (sdekit_config *)cc; /* the names are a cache */
  if (!c) return 0;
  const sdk_obs_type *t[SDK_MAX_OBSERVABLES];
  int n = 0;
  if (sdk_run_config_observables(&c->c, t, &n, NULL) != SDK_OK) n = 0;
  for (int i = 0; i < n; i++)
    c->obs_names[i] = t[i]->name;
  c->nobs = n;
  return n;
}

SDEKIT_API const char *sdekit_config_observable(const sdekit_config *c, int i) {
  int n = sdekit_config_nobservables(c);
  return i >= 0 && i < n ? c->obs_names[i] : NULL;
}

/* The files an output stands for: FILE, or BASE.OBS.tsv for several
 * observables.  How many, and name i in buf. */
static int output_files(const sdekit_config *c, const char *out) {
  int nobs = sdekit_config_nobservables(c);
  return is_h5(out) || nobs == 1 ? 1 : nobs;
}

static void output_file(const sdekit_config *c, const char *out, int i, char *buf, size_t n) {
  if (output_files(c, out) == 1) {
    snprintf(buf, n, "%s", out);
    return;
  }
  size_t blen = strlen(out) - strlen(strrchr(out, '.'));
  snprintf(buf, n, "%.*s.%s.tsv", (int)blen, out, sdekit_config_observable(c, i));
}

/* An output that exists: 1 with its name in found. */
static int existing_output(const sdekit_config *c, const char *out, char *found, size_t n) {
  struct stat st;
  for (int i = 0; i < output_files(c, out); i++) {
    output_file(c, out, i, found, n);
    if (lstat(found, &st) == 0) return 1;
  }
  return 0;
}

/* The model file of a configuration, to protect it: the file a resumed
 * run's checkpoint names, the file a model object was read from, or where
 * its name leads.  Its entry and the file it leads to (lstat and stat). */
typedef struct model_id {
  char path[4200];
  struct stat st[2];
  int have[2];
} model_id;

static void model_id_of(const sdekit_config *c, model_id *m) {
  memset(m, 0, sizeof *m);
  const char *p = c->c.model_text ? c->c.model_path : NULL;
  if (p)
    snprintf(m->path, sizeof m->path, "%s", p);
  else if (!sdk_model_locate(c->c.model, c->c.model_search_path, m->path, sizeof m->path))
    return;
  m->have[0] = lstat(m->path, &m->st[0]) == 0;
  m->have[1] = stat(m->path, &m->st[1]) == 0;
}

/* Would a file written to `path` (a new file renamed onto the name)
 * replace the model?  By identity, not by name: the entry that is replaced
 * is the model's, or the file the model's name leads to. */
static int is_model(const model_id *m, const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return 0;
  for (int i = 0; i < 2; i++)
    if (m->have[i] && st.st_dev == m->st[i].st_dev && st.st_ino == m->st[i].st_ino) return 1;
  return 0;
}

/* Do names a and b lead to one file: the same file where both exist, else
 * the same name in the same directory (resolved: "./x" and "x") */
static int same_file(const char *a, const char *b) {
  struct stat sa, sb;
  if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  char da[4200], db[4200], ra[PATH_MAX], rb[PATH_MAX];
  const char *ba = strrchr(a, '/'), *bb = strrchr(b, '/');
  snprintf(da, sizeof da, "%.*s", ba ? (int)(ba - a) + (ba == a) : 1, ba ? a : ".");
  snprintf(db, sizeof db, "%.*s", bb ? (int)(bb - b) + (bb == b) : 1, bb ? b : ".");
  return realpath(da, ra) && realpath(db, rb) && !strcmp(ra, rb) &&
         !strcmp(ba ? ba + 1 : a, bb ? bb + 1 : b);
}

sdekit_status api_check_files(const sdekit_config *c, int outputs, sdekit_error *err) {
  /* (never, --force or not: the results would replace the run's progress,
   * and a finished run could no longer be extended) */
  char f[4200];
  for (int k = 0; outputs && c->c.checkpoint && k < c->noutputs; k++)
    for (int i = 0; strcmp(c->outputs[k], "-") && i < output_files(c, c->outputs[k]); i++) {
      output_file(c, c->outputs[k], i, f, sizeof f);
      if (same_file(f, c->c.checkpoint))
        return api_usage(err, "output '%s' is the --checkpoint file: write one of them elsewhere",
                         f);
    }
  if (c->force) return SDEKIT_OK;
  model_id m;
  model_id_of(c, &m);
  for (int k = 0; outputs && k < c->noutputs; k++)
    for (int i = 0; strcmp(c->outputs[k], "-") && i < output_files(c, c->outputs[k]); i++) {
      output_file(c, c->outputs[k], i, f, sizeof f);
      if (is_model(&m, f))
        return api_usage(err,
                         "output '%s' is the model file '%s': write elsewhere (--force replaces "
                         "the model)",
                         f, m.path);
    }
  const char *ck = c->c.checkpoint;
  struct stat st;
  if (!ck || lstat(ck, &st) != 0) return SDEKIT_OK;
  if (is_model(&m, ck))
    return api_usage(err,
                     "checkpoint '%s' is the model file '%s': save it elsewhere (--force replaces "
                     "the model)",
                     ck, m.path);
  /* a resumed run saves to the checkpoint it was read from */
  if (c->ckpt_id_known && st.st_dev == c->ckpt_dev && st.st_ino == c->ckpt_ino) return SDEKIT_OK;
  return api_usage(err,
                   "checkpoint '%s' exists (a checkpoint is the progress of a run: 'sdekit "
                   "resume %s' continues it); give --force to replace it, or --checkpoint FILE "
                   "to save elsewhere",
                   ck, ck);
}

int api_outputs_tsv(const sdekit_config *c) {
  for (int k = 0; k < c->noutputs; k++)
    if (!is_h5(c->outputs[k])) return 1;
  return 0;
}

sdekit_status api_check_options(const sdekit_config *c, sdekit_error *err) {
  if (c->c.checkpoint_every >= 0 && !c->c.checkpoint)
    return api_usage(err, "--checkpoint-every needs --checkpoint FILE");
  int nobs = sdekit_config_nobservables(c), density = 0;
  for (int i = 0; i < nobs; i++)
    density |= !strcmp(sdekit_config_observable(c, i), "density");
  if (c->c.obs.coarse_width != 0 && !density)
    return api_usage(err, "--coarse-grain goes with --observe density");
  /* the batches' sizes are the stopping rule's (README), which a first
   * batch of --paths would change: refused, not ignored (a resumed run's
   * command line, stored before this check, is left as it ran) */
  for (int i = 0; !c->ckpt && (c->c.target_se != 0 || c->c.target_rse != 0) && i < c->nitems; i++)
    if (c->items[i].name && !strcmp(c->items[i].name, "paths"))
      return api_usage(err,
                       "--paths and --%s: the paths come in batches whose sizes the standard "
                       "errors decide (whole units of 16384); leave out --paths, and bound the "
                       "paths of a grid point with --max-paths N",
                       c->c.target_se != 0 ? "target-se" : "target-rse");
  return SDEKIT_OK;
}

SDEKIT_API sdekit_status sdekit_config_check_outputs(sdekit_config *c, int no_replace,
                                                     sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!c) return api_usage(err, "no configuration");
  c->tsv_checked = api_outputs_tsv(c);
  sdekit_status s = api_check_options(c, err);
  if (s != SDEKIT_OK) return s;
  if (c->c.checkpoint && (s = check_dir(c->c.checkpoint, err)) != SDEKIT_OK) return s;
  int nobs = sdekit_config_nobservables(c), nstd = nobs;
  /* (stdout leaves out --adaptive's counts, on with the option, when another
   * observable is asked for: the CLI's summary line has them) */
  for (int i = 0; nobs > 1 && i < nobs; i++)
    nstd -= !strcmp(sdekit_config_observable(c, i), "adaptive");
  for (int k = 0; k < c->noutputs; k++) {
    const char *out = c->outputs[k];
    if (!is_h5(out) && !strcmp(out, "-") && nstd > 1)
      return api_usage(err,
                       "several observables need -o FILE.h5 or -o FILE.tsv (stdout takes one)");
    if (!is_h5(out) && strcmp(out, "-") && !has_suffix(out, ".tsv") && !has_suffix(out, ".txt") &&
        !has_suffix(out, ".dat"))
      return api_usage(err, "-o '%s': expected a name ending in .h5 or .tsv, or - for stdout", out);
    if (strcmp(out, "-") && (s = check_dir(out, err)) != SDEKIT_OK) return s;
  }
  int h5 = 0;
  for (int k = 0; k < c->noutputs; k++)
    h5 |= is_h5(c->outputs[k]);
  /* the final states have no TSV form: written nowhere would be lost */
  if (c->c.save_final && c->noutputs > 0 && !h5)
    return api_usage(err, "--save-final writes final/VAR to an HDF5 result: give -o FILE.h5");
  if ((s = api_check_files(c, 1, err)) != SDEKIT_OK) return s;
  for (int k = 0; no_replace && !c->force && k < c->noutputs; k++) {
    char found[4200];
    if (strcmp(c->outputs[k], "-") && existing_output(c, c->outputs[k], found, sizeof found))
      return api_usage(
          err, "'%s' exists: give --force to replace it, or -o FILE to write elsewhere", found);
  }
  api_ok(err);
  return SDEKIT_OK;
}
