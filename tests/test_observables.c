/* Every observable of the registry (src/sim/registry.c), whatever it is:
 *  - its table is complete and coherent (name, description, setup, TSV text,
 *    a hook for each flag);
 *  - a run with it writes HDF5 and TSV, and its datasets live under NAME/;
 *  - a run stopped half way (its checkpoint) and resumed gives bitwise the
 *    results of the run without the stop (checkpoints save observables
 *    generically: nothing of an observable may be missing from them);
 * and the range observable (added by the recipe) against its exact answer:
 * with every path saved, its min and max are those of the saved values.
 * Runs on $SDK_TEST_BACKEND. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/io.h"
#include "sim/checkpoint.h"
#include "sim/registry.h"
#include "simtest.h"
#include "testutil.h"

static void check_table(const sdk_obs_type *t) {
  int ok = t->name && t->name[0] && t->description && t->description[0] && t->setup &&
           t->write_tsv && (!(t->flags & SDK_OBS_SAMPLED) || t->sample) &&
           (!(t->flags & SDK_OBS_SYSTEM_SUMS) || t->sys_row) &&
           (t->sample || t->finish || t->sys_row);
  TU_CHECK(ok, "observable '%s': incomplete table", t->name ? t->name : "?");
  for (int i = 0; sdk_registry_observables[i] != t; i++)
    TU_CHECK(strcmp(sdk_registry_observables[i]->name, t->name), "'%s' registered twice", t->name);
  TU_CHECK(sdk_find_observable(t->name) == t, "'%s' not found by name", t->name);
}

/* Brownian motion with drift between two absorbing boundaries (for fpt):
 * about half the paths are absorbed half way, some never */
static const char BOUNDED_MODEL[] = "[model]\nname = bounded\nvars = x\n"
                                    "[params]\nD = 0.1\nL = 1\n"
                                    "[drift]\nx = 0.2\n[noise]\nx = sqrt(2*D)\n[init]\nx = 0.5\n"
                                    "[boundaries]\nleft = absorb x <= 0\nright = absorb x >= L\n";

/* Brownian motion with drift reset at a level (for events) */
static const char RESET_MODEL[] = "[model]\nname = resets\nvars = x\n[params]\nD = 0.1\nL = 0.5\n"
                                  "[drift]\nx = 1\n[noise]\nx = sqrt(2*D)\n"
                                  "[events]\nfire = when x >= L : x = 0\n";

static void config(sdk_run_config *c, const sdk_obs_type *t) {
  sdk_run_config_defaults(c);
  c->backend = st_backend();
  if (t->flags & SDK_OBS_EVENTS) {
    c->model = "resets.sde";
    c->model_text = RESET_MODEL;
    c->model_path = "resets.sde";
    c->paths = 500;
    c->dt = 0.01;
    c->t_end = 2;
  } else if (t->flags & SDK_OBS_BOUNDARIES) {
    c->model = "bounded.sde";
    c->model_text = BOUNDED_MODEL;
    c->model_path = "bounded.sde";
    c->paths = 500;
    c->dt = 0.01;
    c->t_end = 2;
  } else if (t->flags & SDK_OBS_SYSTEMS_ONLY) {
    c->model = "kuramoto-meanfield";
    c->particles = 512;
    c->paths = 2;
    c->dt = 0.01;
    c->t_end = 1;
  } else {
    c->model = "ou";
    c->paths = 500;
    c->dt = 0.01;
    c->t_end = 2;
  }
  c->observe = t->flags & SDK_OBS_BY_OPTION ? "" : t->name;
  if (!strcmp(t->name, "adaptive")) /* (on with its option) */
    c->adaptive = 1, c->dt_max = 0.1, c->dt = 0.05, c->rtol = 0.01;
  if (t->flags & SDK_OBS_BY_MODEL) { /* user observables of the model: a state's, a time's */
    c->nobs_expr = 2;
    c->obs_expr[0] = "xx=x*x";
    c->obs_expr[1] = "kt=k*t";
  }
  c->obs.nsave = 2;
  c->obs.save_index[0] = 0, c->obs.save_index[1] = 3;
  c->sample_every = 10;
  c->tsv = 1; /* its headers are checked at the plan (none may fail there) */
}

/* The contract the plan's check of the TSV headers relies on (observable.h,
 * write_tsv): on results of no grid points the text has no data row, only
 * '#' lines (each one of the whole text's) and blank lines. */
static void check_headers_alone(const sdk_obs_type *t, const sdk_results *R, const char *whole) {
  sdk_results none = *R;
  none.ngrid = 0;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  sdk_errbuf eb = {0};
  sdk_err e = f ? t->write_tsv(&none, f, &eb) : SDK_ERR_NOMEM;
  if (f) fclose(f);
  TU_CHECK(e == SDK_OK && buf && !strncmp(buf, "# ", 2), "%s: headers alone (%s)", t->name, eb.msg);
  for (char *l = buf, *nl; l && *l; l = nl + 1) {
    if (!(nl = strchr(l, '\n'))) break;
    *nl = 0;
    TU_CHECK(!*l || (*l == '#' && strstr(whole, l)), "%s: no grid point, yet the line '%s'",
             t->name, l);
  }
  free(buf);
}

/* NAME/ holds datasets, and nothing of other observables is missing */
static void check_output(const sdk_obs_type *t, const sdk_results *R) {
  int mine = 0;
  size_t n = strlen(t->name);
  for (int i = 0; i < R->store.n; i++)
    mine += !strncmp(R->store.ds[i]->path, t->name, n) && R->store.ds[i]->path[n] == '/';
  TU_CHECK(mine > 0 && sdk_results_has(R, t->name), "%s: no datasets under %s/", t->name, t->name);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  sdk_errbuf eb = {0};
  sdk_err e = sdk_write_tsv(R, t->name, f, &eb);
  fclose(f);
  TU_CHECK(e == SDK_OK && len > 100, "%s: TSV (%s)", t->name, eb.msg);
  if (buf) check_headers_alone(t, R, buf);
  free(buf);
  char path[4200];
  snprintf(path, sizeof path, "%s/sdk-obs-XXXXXX", tu_scratch());
  int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  e = sdk_write_h5(R, path, &eb);
  TU_CHECK(e == SDK_OK, "%s: HDF5 (%s)", t->name, eb.msg);
  unlink(path);
}

/* stopped half way with a checkpoint, then resumed: the same bits */
static void check_resume(const sdk_obs_type *t, const sdk_results *whole) {
  sdk_run_config c;
  config(&c, t);
  char ck[4200];
  sdk_ckpt *k = st_stop_half_way(&c, ck, sizeof ck, t->name);
  if (k) {
    sdk_run_config c2;
    config(&c2, t);
    c2.resume = k;
    c2.checkpoint = ck;
    c2.checkpoint_every = 0;
    sdk_run *r2 = st_run(&c2);
    TU_CHECK(r2 && st_same_store(whole, sdk_run_results(r2)),
             "%s: resumed from step %lld: bitwise the uninterrupted results", t->name,
             (long long)k->step);
    sdk_run_destroy(&r2);
  }
  sdk_ckpt_destroy(&k);
  unlink(ck);
}

/* range: with every path saved, min and max are those of the saved values */
static void check_range(void) {
  sdk_run_config c;
  config(&c, sdk_find_observable("range"));
  c.paths = 40;
  c.obs.nsave = 40;
  for (int i = 0; i < 40; i++)
    c.obs.save_index[i] = i;
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "range run");
  if (!r) return;
  const sdk_results *R = sdk_run_results(r);
  const double *lo = sdk_results_f64(R, "range/min_x"), *hi = sdk_results_f64(R, "range/max_x");
  const double *x = sdk_results_f64(R, "paths/x");
  const sdk_dataset *t = sdk_store_find(&R->store, "range/t");
  int64_t ns = t ? t->dims[0] : 0, bad = 0;
  for (int64_t s = 0; lo && hi && x && s < ns; s++) {
    double a = INFINITY, b = -INFINITY;
    for (int k = 0; k < 40; k++)
      a = fmin(a, x[k * ns + s]), b = fmax(b, x[k * ns + s]);
    bad += a != lo[s] || b != hi[s];
  }
  TU_CHECK(lo && hi && x && ns == 21 && bad == 0,
           "range: min/max of %lld samples equal those of the 40 saved paths (%lld differ)",
           (long long)ns, (long long)bad);
  if (lo && hi) printf("range: x in [%.6f, %.6f] at t = 2\n", lo[ns - 1], hi[ns - 1]);
  sdk_run_destroy(&r);
}

/* One path per grid point: every spread over the paths (variance,
 * covariance, D_eff, standard errors, also the acf's and the spectrum's,
 * which were 0) is NaN, not an exact-looking 0; the means are the path's
 * values. */
static void check_one_path(void) {
  sdk_run_config c;
  config(&c, sdk_find_observable("moments"));
  c.paths = 1;
  c.obs.nsave = 0;
  c.observe = "moments,drift,cov,diffusion,tavg,expr,acf,psd";
  c.nobs_expr = 1;
  c.obs_expr[0] = "q=x";
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "one-path run");
  if (!r) return;
  const sdk_results *R = sdk_run_results(r);
  const char *spread[] = {"moments/var_x", "moments/mean_err_x", "drift/error",     "cov/value",
                          "cov/error",     "diffusion/D",        "diffusion/D_err", "tavg/err_x",
                          "expr/err_q",    "acf/err_x",          "psd/err_x"};
  for (size_t i = 0; i < sizeof spread / sizeof *spread; i++) {
    const sdk_dataset *d = sdk_store_find(&R->store, spread[i]);
    const double *v = sdk_ds_f64(d);
    int64_t n = d ? sdk_ds_count(d) : 0, finite = 0;
    for (int64_t k = 0; v && k < n; k++)
      finite += isfinite(v[k]) != 0;
    TU_CHECK(v && n > 0 && finite == 0, "one path: %s is NaN (%lld of %lld finite)", spread[i],
             (long long)finite, (long long)n);
  }
  const double *m = sdk_results_f64(R, "moments/mean_x");
  TU_CHECK(m && isfinite(m[0]), "one path: its mean is its value");
  sdk_run_destroy(&r);
}

int main(void) {
  st_require_backend();
  check_one_path();
  int n = 0;
  for (int i = 0; sdk_registry_observables[i]; i++, n++) {
    const sdk_obs_type *t = sdk_registry_observables[i];
    check_table(t);
    sdk_run_config c;
    config(&c, t);
    sdk_run *r = st_run(&c);
    TU_CHECK(r != NULL, "%s: run", t->name);
    if (!r) continue;
    check_output(t, sdk_run_results(r));
    check_resume(t, sdk_run_results(r));
    sdk_run_destroy(&r);
    printf("%-8s %s: output and resume checked\n", t->name, t->description);
  }
  TU_CHECK(n >= 7, "%d observables registered", n);
  check_range();
  return tu_finish("test_observables");
}
