/* The public API's values per path (issue 28): --init-from and --path-params
 * (files, opened by io/table.h when a run starts: names and shape; the run
 * reads the values of the paths each rank holds) and arrays by name from
 * the caller (sdekit_config_path_values), into sdk_run_config.init and
 * .path_params (sim/run.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

void api_values_free(api_values *v) {
  for (int i = 0; i < v->n; i++)
    free(v->names[i]);
  memset(v, 0, sizeof *v);
}

SDEKIT_API sdekit_status sdekit_config_path_values(sdekit_config *c, const char *which,
                                                   const char *name, const double *values,
                                                   int64_t n, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!c || !which) return api_usage(err, "sdekit_config_path_values: no configuration");
  int init = !strcmp(which, "init");
  if (!init && strcmp(which, "path_params"))
    return api_usage(err, "sdekit_config_path_values: '%s' is neither init nor path_params", which);
  api_values *v = init ? &c->init_arr : &c->pp_arr;
  if (!name) { /* forget every array given */
    api_values_free(v);
    api_ok(err);
    return SDEKIT_OK;
  }
  if (!name[0] || strlen(name) > 200)
    return api_usage(err, "%s: a name of 1 to 200 characters", which);
  if (!values || n < 1 || n > SDK_TABLE_MAX_VALUES)
    return api_usage(err, "%s '%s': expected 1 to %lld values", which, name,
                     (long long)SDK_TABLE_MAX_VALUES);
  if (v->n > 0 && n != v->count)
    return api_usage(err, "%s '%s': %lld values, but '%s' has %lld: every name needs as many",
                     which, name, (long long)n, v->names[0], (long long)v->count);
  for (int i = 0; i < v->n; i++)
    if (!strcmp(v->names[i], name)) return api_usage(err, "%s '%s' given twice", which, name);
  if (v->n == SDK_TABLE_MAX_COLUMNS)
    return api_usage(err, "%s: more than %d names", which, SDK_TABLE_MAX_COLUMNS);
  /* (NaN and Inf: refused by the run, which reads the values once, as it
   * uploads them: sim/pathdata.c) */
  if (!(v->names[v->n] = strdup(name))) return api_nomem(err);
  v->values[v->n++] = values;
  v->count = n;
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API sdekit_status sdekit_config_path_values_grid(sdekit_config *c, const char *which,
                                                        int64_t ngrid, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!c || !which) return api_usage(err, "sdekit_config_path_values_grid: no configuration");
  int init = !strcmp(which, "init");
  if (!init && strcmp(which, "path_params"))
    return api_usage(err, "sdekit_config_path_values_grid: '%s' is neither init nor path_params",
                     which);
  if (ngrid < 0) return api_usage(err, "%s: %lld grid points", which, (long long)ngrid);
  (init ? &c->init_arr : &c->pp_arr)->ngrid = ngrid;
  api_ok(err);
  return SDEKIT_OK;
}

static sdk_err read_file(void *ctx, int k, int64_t first, int64_t n, double *out, sdk_errbuf *eb) {
  return sdk_table_slice(ctx, k, first, n, out, eb);
}

/* The values of one kind (k = 0 init, 1 path_params): a file's table or the
 * caller's arrays; *ppg the paths per grid point they imply (0: none). */
static sdekit_status one_kind(const sdekit_config *c, api_exec *x, int k, int64_t *ppg,
                              sdekit_error *err) {
  const char *file = k ? c->path_params_file : c->init_from;
  const char *opt = k ? "--path-params" : "--init-from";
  const api_values *a = k ? &c->pp_arr : &c->init_arr;
  sdk_path_values *pv = k ? &x->rc.path_params : &x->rc.init;
  *ppg = 0;
  memset(pv, 0, sizeof *pv);
  if (file && a->n)
    return api_usage(err, "%s and arrays (%s=) both given: give one", opt,
                     k ? "path_params" : "init");
  if (!file && !a->n) return SDEKIT_OK;
  if (!k) x->rc.init_given = 1; /* (its kernels, also when resumed) */
  if (!k) x->rc.init_source = file ? file : "init";
  /* a resumed run's state is the checkpoint's: the file is not read again */
  if (!k && c->c.resume) return SDEKIT_OK;
  int n = a->n;
  int64_t count = a->count;
  const sdk_table *t = NULL;
  if (file) {
    sdk_errbuf eb = {0};
    sdk_err e = sdk_table_open(file, &x->src[k], &eb);
    if (e != SDK_OK) return api_fail(err, e, &eb);
    t = sdk_table_src_meta(x->src[k]);
    /* a run continued from a result's final states counts its steps from 0
     * again, and so the keys of its random numbers (seed, path, step): with
     * the seed that drove those paths it would drive them by the same
     * numbers once more, a noise correlated with their past (a variance
     * that looks plausible and is wrong) */
    if (!k && t->has_seed && (uint64_t)t->seed == x->rc.seed)
      return api_usage(err,
                       "--init-from %s: its paths were driven by --seed %llu, and a continued run "
                       "counts its steps (the keys of its random numbers) from 0 again: with that "
                       "seed it would repeat their noise; give another --seed",
                       file, (unsigned long long)x->rc.seed);
    n = t->n;
    count = (t->ngrid ? t->ngrid : 1) * t->count;
    *ppg = t->count;
  } else {
    *ppg = a->ngrid > 0 && count % a->ngrid == 0 ? count / a->ngrid : count;
  }
  x->names[k] = calloc((size_t)n, sizeof *x->names[k]);
  x->vals[k] = calloc((size_t)n, sizeof *x->vals[k]);
  if (!x->names[k] || !x->vals[k]) return api_nomem(err);
  for (int i = 0; i < n; i++) {
    x->names[k][i] = file ? t->names[i] : a->names[i];
    x->vals[k][i] = file ? NULL : a->values[i];
  }
  *pv = (sdk_path_values){.n = n,
                          .names = x->names[k],
                          .values = x->vals[k],
                          .count = count,
                          .ngrid = file ? t->ngrid : a->ngrid,
                          .source = file ? file
                                    : k  ? "path_params"
                                         : "init"};
  /* a file's values are read by the run, each rank its own paths' */
  if (file) pv->values = NULL, pv->read = read_file, pv->read_ctx = x->src[k];
  return SDEKIT_OK;
}

sdekit_status api_exec_data(const sdekit_config *c, api_exec *x, int paths_given,
                            sdekit_error *err) {
  int64_t ppg[2];
  for (int k = 0; k < 2; k++) {
    sdekit_status s = one_kind(c, x, k, &ppg[k], err);
    if (s != SDEKIT_OK) return s;
  }
  /* (one flat, one per path: the flat one may hold every grid point's
   * paths, which the plan checks against the grid; the paths are the other's) */
  if (ppg[0] && ppg[1] && ppg[0] != ppg[1]) {
    int64_t lo = ppg[0] < ppg[1] ? ppg[0] : ppg[1], hi = ppg[0] + ppg[1] - lo;
    if (hi % lo == 0) ppg[0] = ppg[1] = lo;
  }
  if (ppg[0] && ppg[1] && ppg[0] != ppg[1])
    return api_usage(err,
                     "the initial states (--init-from) give %lld paths per grid point and the "
                     "per-path parameters (--path-params) %lld: they must agree",
                     (long long)ppg[0], (long long)ppg[1]);
  int64_t n = ppg[0] ? ppg[0] : ppg[1];
  /* the number of paths follows the data unless --paths says otherwise
   * (then the plan refuses a mismatch); systems of particles: a value per
   * particle, so paths (systems) are the values over the particles */
  int64_t np = x->rc.particles > 1 ? x->rc.particles : 1;
  if (n && !paths_given && n % np)
    return api_usage(err,
                     "the data give %lld values per name, not a whole number of systems of "
                     "--particles %lld (a value per particle of every system)",
                     (long long)n, (long long)np);
  n /= np;
  if (n && !paths_given) {
    x->rc.paths = n, x->rc.paths_from_data = 1;
    snprintf(x->paths_word, sizeof x->paths_word, "--paths=%lld", (long long)n);
  }
  return SDEKIT_OK;
}

void api_exec_data_free(api_exec *x) {
  for (int k = 0; k < 2; k++) {
    sdk_table_close(&x->src[k]);
    free(x->names[k]), free(x->vals[k]);
    x->names[k] = NULL, x->vals[k] = NULL;
  }
}
