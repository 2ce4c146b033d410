/* User observables ([observe] NAME = EXPR, --observe-expr; observe/obs_expr.c)
 * against exact answers, on $SDK_TEST_BACKEND:
 *  - OU by Euler: x*x has the mean of the exact Euler recursion's second
 *    moment var_n + mean_n^2 within 5 standard errors at every sample;
 *  - k*t, deterministic, is k * step * dt (to rounding) with standard error
 *    exactly 0 (every path the same value);
 *  - x*x and the moments of x of the same run agree: mean_xx = m2/n + mean^2;
 *  - bad expressions and names are refused with the file and line (or the
 *    option), identifiers outside the allowlist too. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "simtest.h"
#include "testutil.h"

static const char *OU = "[model]\nname = ou_obs\nvars = x\n[params]\nk = 1.5\ns = 0.7\n"
                        "[drift]\nx = -k*x\n[noise]\nx = s\n[init]\nx = 1\n"
                        "[observe]\nxx = x*x\nkt = k*t\n";

static void config(sdk_run_config *c, const char *model) {
  sdk_run_config_defaults(c);
  c->backend = st_backend();
  c->model = model;
  c->scheme = "euler";
  c->single = 0;
  c->paths = 20000;
  c->dt = 0.01;
  c->t_end = 1;
  c->sample_every = 10;
  c->observe = "moments";
}

static void check_exact(const char *model) {
  sdk_run_config c;
  config(&c, model);
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "OU run with [observe]");
  if (!r) return;
  const sdk_results *R = sdk_run_results(r);
  TU_CHECK(sdk_results_has(R, "expr"), "expr switched on by [observe]");
  const double *mxx = sdk_results_f64(R, "expr/mean_xx"), *exx = sdk_results_f64(R, "expr/err_xx");
  const double *mkt = sdk_results_f64(R, "expr/mean_kt"), *ekt = sdk_results_f64(R, "expr/err_kt");
  const double *mx = sdk_results_f64(R, "moments/mean_x"),
               *vx = sdk_results_f64(R, "moments/var_x");
  const sdk_dataset *st = sdk_store_find(&R->store, "expr/step");
  TU_CHECK(mxx && exx && mkt && ekt && mx && vx && st, "datasets expr/mean_xx, err_xx, ...");
  if (!(mxx && exx && mkt && ekt && mx && vx && st)) {
    sdk_run_destroy(&r);
    return;
  }
  int64_t ns = st->dims[0];
  const int64_t *step = sdk_ds_i64(st);
  double k = 1.5, s = 0.7, dt = 0.01, a = 1 - k * dt, n = (double)c.paths;
  double worst = 0, relbad = 0;
  int exact_kt = 1;
  for (int64_t j = 0; j < ns; j++) {
    /* Euler: m_{n+1} = a m_n, v_{n+1} = a^2 v_n + s^2 dt */
    double m = 1, v = 0;
    for (int64_t q = 0; q < step[j]; q++)
      m *= a, v = a * a * v + s * s * dt;
    double want = v + m * m;
    if (exx[j] > 0) worst = fmax(worst, fabs(mxx[j] - want) / exx[j]);
    double viamom = vx[j] * (n - 1) / n + mx[j] * mx[j];
    relbad = fmax(relbad, fabs(mxx[j] - viamom) / fmax(fabs(viamom), 1e-300));
    /* the same value on every path (error exactly 0); equal to k t up to the
     * rounding the kernel's fast math may reassociate (k * (n dt) or (k dt) n) */
    double kt = k * ((double)step[j] * dt);
    int ok = fabs(mkt[j] - kt) <= 4e-16 * fabs(kt) && ekt[j] == 0;
    if (!ok)
      printf("k*t at step %lld: %.17g (want %.17g), err %g\n", (long long)step[j], mkt[j],
             k * (double)((double)step[j] * dt), ekt[j]);
    exact_kt &= ok;
  }
  TU_CHECK(ns == 11, "11 samples (%lld)", (long long)ns);
  TU_CHECK(exx[0] == 0 && mxx[0] == 1, "t = 0: x*x = 1 exactly (%.17g, err %g)", mxx[0], exx[0]);
  TU_CHECK(worst < 5, "<x*x> within 5 standard errors of the Euler recursion (worst %.2f)", worst);
  TU_CHECK(relbad < 1e-12, "<x*x> = m2/n + mean^2 of the moments (relative %.3g)", relbad);
  TU_CHECK(exact_kt, "k*t = k step dt, standard error exactly 0");
  printf("x*x at t = 1: %.6f +- %.6f (worst %.2f standard errors); k*t = %.17g\n", mxx[ns - 1],
         exx[ns - 1], worst, mkt[ns - 1]);
  sdk_run_destroy(&r);
}

/* --observe-expr: the same numbers as [observe], on a model without it */
static void check_option(void) {
  sdk_run_config c;
  config(&c, st_model_file("[model]\nname = ou_obs\nvars = x\n[params]\nk = 1.5\ns = 0.7\n"
                           "[drift]\nx = -k*x\n[noise]\nx = s\n[init]\nx = 1\n",
                           1));
  c.paths = 2000;
  c.nobs_expr = 2;
  c.obs_expr[0] = "xx=x*x";
  c.obs_expr[1] = "kt=k*t";
  sdk_run *r1 = st_run(&c);
  config(&c, st_model_file(OU, 2));
  c.paths = 2000;
  sdk_run *r2 = st_run(&c);
  TU_CHECK(r1 && r2, "runs with --observe-expr and with [observe]");
  if (r1 && r2) {
    const sdk_dataset *a = sdk_store_find(&sdk_run_results(r1)->store, "expr/mean_xx"),
                      *b = sdk_store_find(&sdk_run_results(r2)->store, "expr/mean_xx");
    TU_CHECK(a && b && !memcmp(sdk_ds_f64(a), sdk_ds_f64(b), 8 * (size_t)sdk_ds_count(a)),
             "--observe-expr xx=x*x gives bitwise the results of [observe] xx = x*x");
  }
  sdk_run_destroy(&r1);
  sdk_run_destroy(&r2);
}

static void refused(const char *observe, const char *want) {
  char text[512];
  snprintf(text, sizeof text,
           "[model]\nname = m\nvars = x\n[params]\nk = 1\n[drift]\nx = -k*x\n"
           "[observe]\n%s\n",
           observe);
  sdk_model *m = NULL;
  sdk_errbuf eb = {0};
  sdk_err e = sdk_model_parse(text, "bad.sde", &m, &eb);
  TU_CHECK(e == SDK_ERR_MODEL && strstr(eb.msg, want), "[observe] %s: refused with '%s' (%s)",
           observe, want, eb.msg);
  sdk_model_destroy(&m);
}

static void check_refused(void) {
  refused("q = x + (", "bad.sde:9: [observe] q");
  refused("q = x * y", "bad.sde:9: [observe] q: unknown name 'y'");
  refused("q = system(x)", "bad.sde:9: [observe] q");
  refused("e = x", "'e' cannot be the name of an observable (reserved)");
  refused("q = printf(x)", "unknown function 'printf'");
  refused("x = k*x", "bad.sde:9: [observe] x: 'x' is already the name of a variable");
  refused("k = x", "'k' is already the name of a variable, parameter or observable");
  refused("2e = x", "bad.sde:9");
  /* the command line: checked as the model file's entries, named by the option */
  sdk_run_config c;
  config(&c, st_model_file(OU, 3));
  c.paths = 100;
  c.nobs_expr = 1;
  const char *bad[][2] = {{"y=x+q", "--observe-expr y: unknown name 'q'"},
                          {"xx=x", "--observe-expr xx: 'xx' is already the name"},
                          {"z=exit(x)", "--observe-expr z"},
                          {"=x", "expected NAME=EXPR"}};
  for (int i = 0; i < 4; i++) {
    c.obs_expr[0] = bad[i][0];
    sdk_errbuf eb = {0};
    sdk_run *r = NULL;
    sdk_err e = sdk_run_execute(&c, &r, &eb);
    TU_CHECK(e != SDK_OK && strstr(eb.msg, bad[i][1]), "--observe-expr %s: refused with '%s' (%s)",
             bad[i][0], bad[i][1], eb.msg);
    sdk_run_destroy(&r);
  }
  /* --observe expr without any user observable */
  config(&c, "ou");
  c.observe = "expr";
  sdk_errbuf eb = {0};
  sdk_run *r = NULL;
  sdk_err e = sdk_run_execute(&c, &r, &eb);
  TU_CHECK(e == SDK_ERR_USAGE && strstr(eb.msg, "has no user observables"), "%s", eb.msg);
  sdk_run_destroy(&r);
}

/* An observable that is a variable reduces the same values as the moments:
 * bitwise the same means and standard errors, in both precisions and for a
 * number of paths that fills neither a chunk nor a fold unit (on CUDA the
 * expressions are evaluated inside their reduction kernel, the moments come
 * from the state: two kernels, one arithmetic). */
static void check_identity(void) {
  static const char M[] = "[model]\nname = ou2\nvars = x, y\n[params]\nk = 1.5\n"
                          "[drift]\nx = -k*x\ny = -y\n[noise]\nx = 0.7\ny = 1\n"
                          "[init]\nx = 1\ny = 0\n[observe]\nX = x\nY = y\n";
  for (int single = 0; single < 2; single++) {
    sdk_run_config c;
    config(&c, st_model_file(M, 3 + single));
    c.single = single;
    c.paths = 64 * 256 + 4000 + 17;
    c.observe = "moments,expr";
    sdk_run *r = st_run(&c);
    TU_CHECK(r != NULL, "run with X = x, Y = y (%s)", single ? "single" : "double");
    if (!r) continue;
    const sdk_results *R = sdk_run_results(r);
    int same = 1;
    const char *pairs[][2] = {{"expr/mean_X", "moments/mean_x"},
                              {"expr/err_X", "moments/mean_err_x"},
                              {"expr/mean_Y", "moments/mean_y"},
                              {"expr/err_Y", "moments/mean_err_y"}};
    for (int i = 0; i < 4; i++) {
      const sdk_dataset *a = sdk_store_find(&R->store, pairs[i][0]),
                        *b = sdk_store_find(&R->store, pairs[i][1]);
      same &= a && b && sdk_ds_count(a) == sdk_ds_count(b) && sdk_ds_count(a) == 11 &&
              !memcmp(sdk_ds_f64(a), sdk_ds_f64(b), 8 * (size_t)sdk_ds_count(a));
    }
    TU_CHECK(same, "%s: expr X = x, Y = y bitwise the moments' means and standard errors",
             single ? "single" : "double");
    sdk_run_destroy(&r);
  }
}

int main(void) {
  st_require_backend();
  check_exact(st_model_file(OU, 0));
  check_option();
  check_identity();
  check_refused();
  return tu_finish("test_obs_expr");
}
