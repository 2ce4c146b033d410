/* Delayed values x(t - TAU) and [history] (model/delay.c, codegen/delay.c)
 * against exact answers, with fixed seeds:
 *   a. the stationary variance of dx = -a x(t - tau) dt + s dW (Kuechler &
 *      Mensch 1992; also Frank & Beek 2001, in their noise convention):
 *        Var = s^2 (1 + sin(a tau)) / (2 a cos(a tau)),  a tau < pi/2,
 *      checked here from the stationary autocovariance C(u) = A cos(a u) +
 *      B sin(a u) on [0, tau] (C'(u) = -a C(tau - u), C'(0+) = -s^2 / 2):
 *      A = C(0) is the formula.  Estimated as the time average of x^2 over
 *      [20, 200] per path (--observe tavg), its standard error over the
 *      paths, at a tau = 0.5 and 1.2 (srk2, double and single), within K
 *      standard errors; the discrete scheme's own stationary variance
 *      (below) is printed beside it, its distance to the formula far below
 *      the standard error at dt = 0.01.  euler, whose O(dt) bias is a few
 *      standard errors here, is held to its own exact discrete variance;
 *   b. the discrete variance: both schemes on this equation are the linear
 *      recursion x_{n+1} = sum_j c_j x_{n-j} + s sqrt(dt) z_n (euler: c_0 =
 *      1, c_D = -a dt; srk2: c_0 = 1, c_D = c_{D-1} = -a dt / 2 (D = 1:
 *      c_0 = 1 - a dt / 2)), whose stationary covariance of (x_n .. x_{n-D})
 *      is the fixed point of P = A P A^T + s^2 dt e_0 e_0^T, iterated here;
 *   c. history matters: without noise, dx = -(a x(t - tau) + b x(t - 2 tau))
 *      dt from x(0) = 1 with the history 1 + 0.3 cos(t) (which is not x(0)
 *      at 0) and without [history] (x(0) before 0): each run equals the
 *      scheme's recursion over the same history to rounding (1e-12
 *      relative in double, 1e-5 in single), and the two differ by far more;
 *   d. the same bits: 1 thread = 2 threads and 3 shards = 3 in-process
 *      ranks, and a run stopped half way and resumed, single and double,
 *      with two rings and with one (kept as quads by CUDA: delay_cuda.c);
 *   e. refusals, one clear message each;
 *   f. short delays (D and 2 D, D = 1 .. 9 steps) in launches of 37 steps,
 *      with a noise channel of zero intensity (the CUDA driver's groups of
 *      4 steps, codegen/delay_cuda.c): the recursion at every sample.
 * Runs on $SDK_TEST_BACKEND. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simtest.h"
#include "testutil.h"

#define K 4.0 /* tolerance in standard errors */

static const char DOU[] = "[model]\nname = dou\nvars = x\n[params]\na = 1\ntau = 0.5\ns = 1\n"
                          "[drift]\nx = -a*x(t - tau)\n[noise]\nx = s\n[init]\nx = 1\n";

static void base(sdk_run_config *c, const char *text, int slot, int64_t paths, double dt,
                 double tend) {
  sdk_run_config_defaults(c);
  c->backend = st_backend();
  c->model = st_model_file(text, slot);
  c->paths = paths;
  c->dt = dt;
  c->t_end = tend;
  c->seed = 20261128;
}

static void set(sdk_run_config *c, const char *name, double v) {
  c->set_name[c->nset] = name;
  c->set_value[c->nset++] = v;
}

/* b: the stationary variance of x_{n+1} = sum_{j <= d} cf[j] x_{n-j} + sig z */
static double discrete_var(const double *cf, int d, double sig2) {
  int n = d + 1;
  double *P = calloc((size_t)n * n, sizeof *P), *Q = calloc((size_t)n * n, sizeof *Q);
  double last = -1;
  for (long it = 0; it < 2000000; it++) {
    /* Q = A P A^T: row 0 of A is cf, row i > 0 the shift e_{i-1} */
    double r0[1024];
    for (int j = 0; j < n; j++) { /* (A P)_0j */
      double s = 0;
      for (int k = 0; k < n; k++)
        s += cf[k] * P[k * n + j];
      r0[j] = s;
    }
    double q00 = sig2;
    for (int k = 0; k < n; k++)
      q00 += r0[k] * cf[k];
    Q[0] = q00;
    for (int j = 1; j < n; j++)
      Q[j] = Q[j * n] = r0[j - 1];
    for (int i = 1; i < n; i++)
      for (int j = 1; j < n; j++)
        Q[i * n + j] = P[(i - 1) * n + (j - 1)];
    double *t = P;
    P = Q, Q = t;
    if (it % 1000 == 0) {
      if (fabs(P[0] - last) <= 1e-13 * P[0]) break;
      last = P[0];
    }
  }
  double v = P[0];
  free(P);
  free(Q);
  return v;
}

static double scheme_var(const char *scheme, double a, double tau, double s, double dt) {
  int d = (int)lround(tau / dt);
  double cf[1024] = {0};
  cf[0] = 1;
  if (!strcmp(scheme, "euler")) {
    cf[d] += -a * dt;
  } else {
    cf[d] += -a * dt / 2;
    cf[d - 1] += -a * dt / 2;
  }
  return discrete_var(cf, d, s * s * dt);
}

static void within(const char *what, double est, double se, double exact) {
  double z = se > 0 ? (est - exact) / se : INFINITY;
  printf("%-44s estimate %.6f  exact %.6f  se %.6f  z %+.2f\n", what, est, exact, se, z);
  TU_CHECK(fabs(est - exact) <= K * se, "%s: %.6f vs exact %.6f (%.2f se)", what, est, exact, z);
}

/* a, b */
static void variance(const char *scheme, int single, double atau, int km) {
  const double a = 1, s = 1, dt = 0.01, tau = atau / a;
  sdk_run_config c;
  base(&c, DOU, 0, 4000, dt, 200);
  c.scheme = scheme;
  c.single = single;
  c.transient = 20;
  c.observe = "tavg";
  c.obs_expr[c.nobs_expr++] = "x2=x*x";
  set(&c, "tau", tau);
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "variance run %s", scheme);
  if (!r) return;
  const sdk_results *R = sdk_run_results(r);
  const double *m = sdk_results_f64(R, "tavg/mean_x2"), *e = sdk_results_f64(R, "tavg/err_x2");
  TU_CHECK(m && e, "no tavg/mean_x2");
  double exact = s * s * (1 + sin(a * tau)) / (2 * a * cos(a * tau));
  double disc = scheme_var(scheme, a, tau, s, dt);
  char what[128];
  snprintf(what, sizeof what, "%c. Var a tau = %.1f %s %s", km ? 'a' : 'b', atau, scheme,
           single ? "single" : "double");
  if (m && e) {
    printf("   (the scheme's discrete variance %.6f, %+.2f se from the formula)\n", disc,
           (disc - exact) / e[0]);
    if (km) TU_CHECK(fabs(disc - exact) < e[0] / 2, "%s: the scheme's bias is not small", what);
    within(what, m[0], e[0], km ? exact : disc);
  }
  sdk_run_destroy(&r);
}

/* c: a deterministic run against the recursion over the same history */
static const char DET[] = "[model]\nname = det\nvars = x\n[params]\na = 1\nb = 0.5\ntau = 0.3\n"
                          "[drift]\nx = -a*x(t - tau) - b*x(t - 2*tau)\n[init]\nx = 1\n%s";

static double recursion(const char *scheme, int hist, double tau, double dt, int nsteps) {
  const double a = 1, b = 0.5;
  int d = (int)lround(tau / dt);
  double *X = calloc((size_t)(nsteps + 2 * d + 2), sizeof *X), *x = X + 2 * d;
  for (int m = -2 * d; m < 0; m++)
    x[m] = hist ? 1 + 0.3 * cos(m * dt) : 1;
  x[0] = 1;
  for (int n = 0; n < nsteps; n++) {
    double f = -a * x[n - d] - b * x[n - 2 * d];
    if (!strcmp(scheme, "euler")) {
      x[n + 1] = x[n] + dt * f;
    } else {
      double g = -a * x[n + 1 - d] - b * x[n + 1 - 2 * d];
      x[n + 1] = x[n] + dt * (0.5 * f + 0.5 * g);
    }
  }
  double v = x[nsteps];
  free(X);
  return v;
}

static void history(const char *scheme, int single) {
  const double dt = 0.01, tend = 1;
  double got[2] = {0, 0};
  for (int h = 0; h < 2; h++) {
    char text[512];
    snprintf(text, sizeof text, DET, h ? "[history]\nx = 1 + 0.3*cos(t)\n" : "");
    sdk_run_config c;
    base(&c, text, 1 + h, 64, dt, tend);
    c.scheme = scheme;
    c.single = single;
    c.observe = "moments";
    sdk_run *r = st_run(&c);
    TU_CHECK(r != NULL, "history run");
    if (!r) return;
    const st_view *v = st_view_of(sdk_run_results(r));
    got[h] = v->mean[v->nsamples - 1];
    double want = recursion(scheme, h, 0.3, dt, (int)lround(tend / dt)),
           tol = single ? 1e-5 : 1e-12;
    printf("c. %s %s %-16s x(1) = %.15f, recursion %.15f\n", scheme, single ? "single" : "double",
           h ? "[history]" : "initial value", got[h], want);
    TU_CHECK(fabs(got[h] - want) <= tol * fabs(want), "%s: %.15g vs the recursion's %.15g", scheme,
             got[h], want);
    sdk_run_destroy(&r);
  }
  TU_CHECK(fabs(got[1] - got[0]) > 1e-2, "the history changes nothing (%g vs %g)", got[1], got[0]);
}

/* f: short delays D and 2 D (D = 1 .. 9 steps) against the recursion at
 * every sample, in launches of 37 steps; a noise channel of zero intensity
 * makes the CUDA driver step in groups of 4 (cuda_paths.c), whose reads
 * come step by step for D <= 4, at the group's start for 4 < D <= 8 and a
 * group ahead for D > 8 (delay_cuda.c), with the launches' first steps and
 * tails between */
static void short_delays(const char *scheme) {
  const double dt = 0.01;
  const int nsteps = 200, ds[] = {1, 2, 3, 4, 5, 9};
  for (int i = 0; i < (int)(sizeof ds / sizeof ds[0]); i++) {
    char text[512];
    snprintf(text, sizeof text, DET, "[history]\nx = 1 + 0.3*cos(t)\n[noise]\nx = 0*a\n");
    sdk_run_config c;
    base(&c, text, 6, 64, dt, nsteps * dt);
    c.scheme = scheme;
    c.single = 0;
    c.observe = "moments";
    c.sample_every = 37;
    set(&c, "tau", ds[i] * dt);
    sdk_run *r = st_run(&c);
    TU_CHECK(r != NULL, "short delay run");
    if (!r) return;
    const st_view *v = st_view_of(sdk_run_results(r));
    double worst = 0;
    for (int64_t k = 0; k < v->nsamples; k++) {
      double want = recursion(scheme, 1, ds[i] * dt, dt, (int)v->sample_step[k]);
      double rel = fabs(v->mean[k] - want) / fabs(want);
      worst = rel > worst ? rel : worst;
    }
    printf("f. %s D = %d and %d steps: %lld samples, largest relative difference from the "
           "recursion %.2g\n",
           scheme, ds[i], 2 * ds[i], (long long)v->nsamples, worst);
    TU_CHECK(v->nsamples >= 5 && worst <= 1e-12, "%s D = %d: %.3g from the recursion", scheme,
             ds[i], worst);
    sdk_run_destroy(&r);
  }
}

/* d: threads, shards, ranks, a resume */
static const char REP[] = "[model]\nname = rep\nvars = x, y\n[params]\na = 1\ntau = 0.3\n"
                          "[drift]\nx = -a*x(t - tau) + y\ny = -y + 0.5*x(t - 2*tau)\n"
                          "[noise]\nx = 0.5 + 0.1*x(t - tau)\ny = 1\n[history]\nx = cos(t)\n";

/* the same with one noise and the delays of x alone (D = 20 and 40, a ring
 * of 40 slots): the CUDA module keeps the ring as quads (delay_cuda.c), and
 * the shards' and the checkpoint's rows go through backend/cuda.c's
 * quad_row */
static const char REP4[] = "[model]\nname = rep4\nvars = x, y\n[params]\na = 1\ntau = 0.2\n"
                           "[drift]\nx = -a*x(t - tau) + y\ny = -y + 0.5*x(t - 2*tau)\n"
                           "[noise]\nx = 0.5 + 0.1*x(t - tau)\n[history]\nx = cos(t)\n";

/* arg: single precision (bit 0), REP4 (bit 1) */
static void repro_config(sdk_run_config *c, int arg) {
  base(c, arg & 2 ? REP4 : REP, arg & 2 ? 7 : 3, 20000, 0.01, 2);
  c->scheme = "srk2";
  c->single = arg & 1;
  c->sample_every = 20;
  c->observe = "moments";
}

static void repro(int arg) {
  const int single = arg & 1;
  const char *what[] = {"1 thread", "2 threads, 3 shards", "3 in-process ranks"};
  sdk_run *r[3] = {NULL, NULL, NULL};
  for (int k = 0; k < 3; k++) {
    sdk_run_config c;
    repro_config(&c, arg);
    c.threads = k == 1 ? 2 : 1;
    c.shards = k == 1 ? 3 : 0;
    c.ranks = k == 2 ? 3 : 0;
    r[k] = st_run(&c);
    TU_CHECK(r[k] && r[0] &&
                 (k == 0 || st_same_store(sdk_run_results(r[0]), sdk_run_results(r[k]))),
             "delays%s, %s: not bitwise one run", arg & 2 ? " (one ring)" : "", what[k]);
  }
  if (r[0]) {
    int64_t step = st_resumed_same(repro_config, arg, sdk_run_results(r[0]), "delay run");
    printf("d. %s%s: 2 threads and 3 shards, 3 ranks, a resume from step %lld: the bits of one "
           "run\n",
           single ? "single" : "double", arg & 2 ? " (one ring of 40 slots)" : "", (long long)step);
  }
  for (int k = 0; k < 3; k++)
    sdk_run_destroy(&r[k]);
}

/* e */
static void refused(const char *drift, const char *extra, const char *scheme, double tau, int opt,
                    const char *want) {
  char text[512];
  snprintf(text, sizeof text,
           "[model]\nname = bad\nvars = x, y\n[params]\ntau = %g\n[drift]\nx = %s\ny = -y\n"
           "[noise]\nx = 1\n%s",
           tau, drift, extra);
  sdk_run_config c;
  base(&c, text, 5, 10, 0.01, 0.1);
  c.scheme = scheme;
  sdk_errbuf eb = {0};
  if (opt == 1) c.adaptive = 1;
  if (opt == 2) c.dt_check = 1;
  if (opt == 3) {
    TU_CHECK(sdk_scan_parse("tau=0.1:0.2:2", &c.scan[0], &eb) == SDK_OK, "scan: %s", eb.msg);
    c.nscan = 1;
  }
  st_env(&c.env);
  sdk_run *r = NULL;
  sdk_err e = sdk_run_execute(&c, &r, &eb);
  printf("e. refused: %s\n", eb.msg);
  TU_CHECK(e != SDK_OK && strstr(eb.msg, want), "wanted '%s', got: %s", want, eb.msg);
  sdk_run_destroy(&r);
  if (opt == 3) sdk_scan_free(&c.scan[0]);
}

static void refusals(void) {
  const char *d = "-x(t - tau)";
  refused(d, "", NULL, 0.005, 0, "shorter than the time step dt = 0.01");
  refused(d, "", NULL, -1, 0, "must be > 0");
  refused(d, "", NULL, 0.015, 0, "must be a whole number of steps");
  refused(d, "", NULL, 1e9, 0, "more than 16777216 rows per path");
  refused(d, "", "milstein", 0.1, 0, "scheme milstein does not integrate delayed values");
  refused(d, "", "srk2", 0.1, 1, "not supported with --adaptive");
  refused(d, "", NULL, 0.1, 2, "not supported with --dt-check");
  refused(d, "", NULL, 0.1, 3, "TAU must be the same for every path");
  refused("-z(t - tau)", "", NULL, 0.1, 0, "unknown function 'z'");
  refused("-x(t)", "", NULL, 0.1, 0, "a delayed value is written x(t - TAU)");
  refused("-x(t - x)", "", NULL, 0.1, 0, "TAU an expression in the parameters alone");
  refused(d, "[history]\ny = 1\n", NULL, 0.1, 0, "[history] y: 'y' is not delayed anywhere");
  refused(d, "[history]\nx = y\n", NULL, 0.1, 0, "unknown name 'y'");
}

int main(void) {
  st_require_backend();
  variance("srk2", 0, 0.5, 1);
  variance("srk2", 0, 1.2, 1);
  variance("srk2", 1, 1.2, 1);
  variance("euler", 0, 0.5, 0);
  variance("euler", 0, 1.2, 0);
  history("euler", 0);
  history("srk2", 0);
  history("srk2", 1);
  for (int arg = 0; arg < 4; arg++)
    repro(arg);
  refusals();
  short_delays("euler");
  short_delays("srk2");
  return tu_finish("test_delay");
}
