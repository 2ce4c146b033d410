/* Per-path parameters of independent paths (issue 28): [particle]
 * parameters of a model without interaction, and parameters given per path
 * as data (sdk_run_config.path_params).  Runs on $SDK_TEST_BACKEND.
 *
 *  - quenched disorder: dx = -k x dt + sqrt(2 D) dW, x(0) = 0, k uniform on
 *    [0.5, 2] per path.  Var x(t) = E_k[D/k (1 - exp(-2 k t))], which tends
 *    to D ln(4) / 1.5; the scheme's own variance is that of its linear
 *    recursion x' = a(k) x + cw(k) sqrt(2 D dt) psi averaged over k (both
 *    integrated over k by Simpson's rule to 1e-12).  Every registered
 *    scheme, k = 5 standard errors; the variance's SE from the mixture's
 *    fourth moment 3 E_k[v_k^2];
 *  - a path's [particle] value is the Philox draw of domain 2 keyed by its
 *    global index (rng/philox.h), as the system driver's of a particle;
 *  - bitwise the same results over threads, shards and a stop and resume;
 *  - path_params: a constant array equals the fixed parameter; the values
 *    of the [particle] draw given as data equal the [particle] run; the
 *    refusals of bad arrays, one clear error each. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "observe/paths.h"
#include "rng/philox.h"
#include "sim/checkpoint.h"
#include "simtest.h"
#include "testutil.h"

#define K_SIGMA 5.0
#define KLO 0.5
#define KHI 2.0
#define DIFF 0.4

static const char *QOU = "[model]\nname = qou\nvars = x\n[params]\nD = 0.4\n"
                         "[particle]\nk = uniform(0.5, 2)\n"
                         "[drift]\nx = -k*x\n[noise]\nx = sqrt(2*D)\n[init]\nx = 0\n";

/* the average over k uniform on [KLO, KHI] of f(k), Simpson's rule */
static double k_average(double (*f)(double k, const void *u), const void *u) {
  const int n = 20000; /* (even) */
  double h = (KHI - KLO) / n, s = f(KLO, u) + f(KHI, u);
  for (int i = 1; i < n; i++)
    s += (i & 1 ? 4 : 2) * f(KLO + i * h, u);
  return s * h / 3 / (KHI - KLO);
}

typedef struct {
  const sdk_scheme_type *s;
  double dt, n, t;
  int square; /* the square of the variance */
} var_at;

static double var_exact(double k, const void *u) {
  const var_at *w = u;
  double v = DIFF / k * (1 - exp(-2 * k * w->t));
  return w->square ? v * v : v;
}

static double var_disc(double k, const void *u) {
  const var_at *w = u;
  double a = NAN, cw = NAN;
  st_srk_linear(w->s, k, w->dt, &a, &cw);
  return cw * cw * 2 * DIFF * w->dt * (1 - pow(a, 2 * w->n)) / (1 - a * a);
}

static double inv_k(double k, const void *u) {
  (void)u;
  return DIFF / k;
}

/* QOU with D given per path (path_params) and a constant [particle] c */
static const char *QPP = "[model]\nname = qpp\nvars = x\n[params]\nD = 1\n"
                         "[particle]\nk = uniform(0.5, 2)\nc = 3\n"
                         "[drift]\nx = -k*x + 0*c\n[noise]\nx = sqrt(2*D)\n[init]\nx = 0\n";

static void config(sdk_run_config *c, const char *model) {
  sdk_run_config_defaults(c);
  c->model = model;
  c->backend = st_backend();
  c->observe = "moments";
  c->seed = 2028;
}

static void check_quenched(const sdk_scheme_type *s, int single) {
  double a, cw;
  if (!st_srk_linear(s, 1.0, 0.01, &a, &cw)) return; /* (no linear recursion to compare with) */
  sdk_run_config c;
  config(&c, st_model_file(QOU, 0));
  c.scheme = s->name;
  c.single = single;
  c.paths = 1 << 17;
  c.dt = 0.01;
  c.t_end = 10;
  c.sample_every = 250;
  sdk_run *run = st_run(&c);
  TU_CHECK(run != NULL, "quenched OU %s run", s->name);
  if (!run) return;
  const st_view *V = st_view_of(sdk_run_results(run));
  const double N = (double)c.paths;
  for (int64_t q = 1; q < V->nsamples; q++) {
    var_at w = {s, c.dt, (double)V->sample_step[q], V->sample_step[q] * c.dt, 0};
    double ve = k_average(var_exact, &w), vd = k_average(var_disc, &w);
    w.square = 1;
    double se_v = sqrt((3 * k_average(var_exact, &w) - ve * ve) / N), se_m = sqrt(ve / N);
    double m = V->mean[q], v = V->var[q];
    char what[160];
    snprintf(what, sizeof what, "quenched OU %s %s t=%g: mean", s->name,
             single ? "single" : "double", w.t);
    TU_NEAR(m, 0.0, K_SIGMA * se_m, what);
    snprintf(what, sizeof what, "quenched OU %s %s t=%g: var against the recursion", s->name,
             single ? "single" : "double", w.t);
    TU_NEAR(v, vd, K_SIGMA * se_v, what);
    snprintf(what, sizeof what, "quenched OU %s %s t=%g: var against E[D/k (1 - exp(-2kt))]",
             s->name, single ? "single" : "double", w.t);
    TU_NEAR(v, ve, K_SIGMA * se_v + fabs(vd - ve), what);
    printf("quenched OU %-8s %-6s t=%4.1f  var %.6f exact %.6f (%+.2f se), recursion %.6f "
           "(%+.2f se; its bias %.3f se)\n",
           s->name, single ? "single" : "double", w.t, v, ve, (v - ve) / se_v, vd, (v - vd) / se_v,
           (vd - ve) / se_v);
  }
  sdk_run_destroy(&run);
}

/* dx = k dt from 0, one step of 1: x(1) = k, the path's value */
static void check_draws(void) {
  sdk_run_config c;
  config(&c, st_model_file("[model]\nname = probe\nvars = x\n[particle]\nk = uniform(0.5, "
                           "2)\n[drift]\nx = k\n[init]\nx = 0\n",
                           1));
  c.scheme = "euler";
  c.paths = 1000;
  c.dt = 1;
  c.t_end = 1;
  c.obs.nsave = 16;
  for (int i = 0; i < 16; i++)
    c.obs.save_index[i] = 61 * i;
  sdk_run *run = st_run(&c);
  TU_CHECK(run != NULL, "probe run");
  if (!run) return;
  const sdk_results *R = sdk_run_results(run);
  const double *x = sdk_results_f64(R, "paths/x");
  const sdk_dataset *d = sdk_store_find(&R->store, "paths/x");
  int64_t ns = d ? d->dims[d->rank - 1] : 0, bad = 0;
  for (int i = 0; x && i < 16; i++) {
    float u[4];
    sdk_uniform4_f(c.seed, (sdk_u64)(61 * i), 0, 2, u);
    float k = 0.5f + (2.0f - 0.5f) * u[0];
    /* (the kernel may contract the draw into one FMA: within 1 ulp) */
    bad += fabs(x[i * ns + ns - 1] - k) > 2e-7 * k;
  }
  TU_CHECK(x && bad == 0,
           "[particle] values are the Philox draws of domain 2 by path (%lld differ)",
           (long long)bad);
  sdk_run_destroy(&run);
}

static void repro_config(sdk_run_config *c) {
  config(c, st_model_file(QOU, 0));
  c->paths = 70000; /* (partial chunks) */
  c->dt = 0.01;
  c->t_end = 2;
  c->sample_every = 20;
}

/* threads, shards, and a run stopped half way and resumed: the same bits */
static void check_repro(void) {
  sdk_run_config c;
  repro_config(&c);
  c.threads = 1;
  sdk_run *one = st_run(&c);
  TU_CHECK(one != NULL, "repro run");
  if (!one) return;
  c.threads = 2;
  c.shards = 3;
  sdk_run *many = st_run(&c);
  TU_CHECK(many && st_same_store(sdk_run_results(one), sdk_run_results(many)),
           "[particle] run: 1 thread, 1 shard = 2 threads, 3 shards, bitwise");
  sdk_run_destroy(&many);
  char ck[4200];
  repro_config(&c);
  sdk_ckpt *k = st_stop_half_way(&c, ck, sizeof ck, "[particle] run");
  if (k) {
    repro_config(&c);
    c.resume = k;
    sdk_run *r2 = st_run(&c);
    TU_CHECK(r2 && st_same_store(sdk_run_results(one), sdk_run_results(r2)),
             "[particle] run resumed from step %lld: bitwise the uninterrupted results",
             (long long)k->step);
    sdk_run_destroy(&r2);
  }
  sdk_ckpt_destroy(&k);
  unlink(ck);
  sdk_run_destroy(&one);
}

static const char *FOU = "[model]\nname = fou\nvars = x\n[params]\nD = 0.4\nk = 1.3\n"
                         "[drift]\nx = -k*x\n[noise]\nx = sqrt(2*D)\n[init]\nx = 0\n";

static void pp_config(sdk_run_config *c, const char *model, int single, const char *const *names,
                      const double *const *values, int n, int64_t count) {
  config(c, model);
  c->single = single;
  c->paths = 20000;
  c->dt = 0.01;
  c->t_end = 1;
  c->sample_every = 10;
  c->path_params = (sdk_path_values){.n = n, .names = names, .values = values, .count = count};
}

/* runs a and b, which compute the same paths with values of k that are
 * the same numbers but reach the kernel differently: the same variances to
 * within rounding (tol, relative), bitwise where `bitwise` */
static void same_runs(sdk_run *a, sdk_run *b, double tol, int bitwise, const char *what) {
  const st_view *A = a ? st_view_of(sdk_run_results(a)) : NULL;
  const st_view *B = b ? st_view_of(sdk_run_results(b)) : NULL;
  double dm = 0;
  for (int64_t q = 1; A && B && q < A->nsamples; q++)
    dm = fmax(dm, fabs(A->var[q] - B->var[q]) / A->var[q]);
  int same = a && b && st_same_store(sdk_run_results(a), sdk_run_results(b));
  TU_CHECK(A && B && dm <= tol && (same || !bitwise),
           "%s: the same variances (relative difference %.2g)%s", what, dm,
           bitwise ? ", bitwise" : "");
  printf("%s: largest relative difference of the variance %.3g, %s\n", what, dm,
         same ? "bitwise equal" : "not bitwise");
}

/* model a (without path_params) against model b with the values v of k */
static void pair(const char *a, const char *b, const char *name, int single, const double *v,
                 int64_t P, int bitwise, const char *what) {
  const char *names[] = {name};
  const double *values[] = {v};
  char full[200];
  snprintf(full, sizeof full, "%s (%s)", what, single ? "single" : "double");
  sdk_run_config c;
  pp_config(&c, a, single, names, values, 0, 0);
  sdk_run *ra = st_run(&c);
  pp_config(&c, b, single, names, values, 1, P);
  sdk_run *rb = st_run(&c);
  same_runs(ra, rb, single ? 1e-5 : 1e-12, bitwise, full);
  sdk_run_destroy(&ra);
  sdk_run_destroy(&rb);
}

/* a constant array is the fixed parameter; the [particle] draws given as
 * data are the [particle] run */
static void check_path_params(int single) {
  const int64_t P = 20000;
  double *v = malloc((size_t)P * sizeof *v);
  if (!v) return;
  for (int64_t i = 0; i < P; i++)
    v[i] = 1.3;
  /* (not bitwise on the CPU: a constant k lets the fast-math compiler fold
   * and reassociate what a value from memory does not) */
  pair(st_model_file(FOU, 2), st_model_file(FOU, 2), "k", single, v, P, 0,
       "path_params k = 1.3 against [params] k = 1.3");
  /* the draws of the [particle] parameter, in the run's precision: the
   * same rows, the same kernel but for the names, so bitwise where the
   * host rounds the draw as the kernel does (double on the CPU; in single
   * the kernel may contract it into an FMA) */
  for (int64_t i = 0; i < P; i++) {
    if (single) {
      float u[4];
      sdk_uniform4_f(2028, (sdk_u64)i, 0, 2, u);
      v[i] = 0.5f + 1.5f * u[0];
    } else {
      double u[4];
      sdk_uniform4_d(2028, (sdk_u64)i, 0, 2, u);
      v[i] = 0.5 + 1.5 * u[0];
    }
  }
  pair(st_model_file(QOU, 0), st_model_file(FOU, 2), "k", single, v, P,
       !single && !strcmp(st_backend(), "cpu"),
       "path_params k = the [particle] draws against [particle]");
  /* a [particle] parameter drawn, a constant one, and D given per path:
   * both kinds of rows in one kernel */
  for (int64_t i = 0; i < P; i++)
    v[i] = 0.4;
  pair(st_model_file(QOU, 0), st_model_file(QPP, 4), "D", single, v, P, 0,
       "[particle] k with path_params D = 0.4 against [particle] k");
  free(v);
}

/* time averages with a parameter per path: obs_tavg finds its accumulators
 * by the kernel's row layout (the per-path rows follow them): D = 0.4 given
 * per path gives the averages of the run with [params] D = 0.4 to within
 * rounding (not bitwise: see check_path_params) */
static void check_tavg(void) {
  enum { P = 2000 };
  static double d[P];
  for (int i = 0; i < P; i++)
    d[i] = 0.4;
  const char *names[] = {"D"};
  const double *values[] = {d};
  sdk_run *r[2];
  const double *m[2] = {NULL, NULL}, *e[2] = {NULL, NULL};
  for (int k = 0; k < 2; k++) {
    sdk_run_config c;
    pp_config(&c, st_model_file(FOU, 2), 0, names, values, k, P);
    c.paths = P;
    c.transient = 0.2;
    c.observe = "tavg";
    r[k] = st_run(&c);
    m[k] = r[k] ? sdk_results_f64(sdk_run_results(r[k]), "tavg/mean_x") : NULL;
    e[k] = r[k] ? sdk_results_f64(sdk_run_results(r[k]), "tavg/err_x") : NULL;
  }
  TU_CHECK(m[0] && m[1] && e[0] && e[1] && e[0][0] > 0 &&
               fabs(m[1][0] - m[0][0]) <= 1e-9 * e[0][0] &&
               fabs(e[1][0] - e[0][0]) <= 1e-9 * e[0][0],
           "tavg of x with D per path: %.10g +- %.3g, with [params] D: %.10g +- %.3g",
           m[1] ? m[1][0] : NAN, e[1] ? e[1][0] : NAN, m[0] ? m[0][0] : NAN, e[0] ? e[0][0] : NAN);
  printf("tavg of x, D per path: %.10g +- %.4g; [params] D: %.10g +- %.4g\n", m[1] ? m[1][0] : NAN,
         e[1] ? e[1][0] : NAN, m[0] ? m[0][0] : NAN, e[0] ? e[0][0] : NAN);
  sdk_run_destroy(&r[0]);
  sdk_run_destroy(&r[1]);
}

/* one run that must fail with SDK_ERR_USAGE and a message containing `want` */
static void refuse(sdk_run_config *c, const char *want, const char *what) {
  st_env(&c->env);
  sdk_errbuf eb = {0};
  sdk_run *r = NULL;
  sdk_err e = sdk_run_execute(c, &r, &eb);
  TU_CHECK(e == SDK_ERR_USAGE && strstr(eb.msg, want), "%s: refused (%s)", what, eb.msg);
  printf("refused, %s: %s\n", what, eb.msg);
  sdk_run_destroy(&r);
}

static void check_refusals(void) {
  enum { P = 1000 };
  static double ok[P], nan_[P], inf_[P];
  for (int i = 0; i < P; i++)
    ok[i] = nan_[i] = inf_[i] = 1;
  nan_[17] = NAN;
  inf_[3] = INFINITY;
  const char *fou = st_model_file(FOU, 2);
  sdk_run_config c;
  const char *unk[] = {"kk"}, *k[] = {"k"}, *two[] = {"k", "k"};
  const double *vok[] = {ok, ok}, *vnan[] = {nan_}, *vinf[] = {inf_};
  const struct {
    const char *const *names;
    const double *const *values;
    int n;
    int64_t count;
    const char *want, *what;
  } bad[] = {{unk, vok, 1, P, "'kk' is no parameter", "unknown name"},
             {k, vok, 1, P - 1, "has 999 values; it needs 1000", "wrong count"},
             {k, vnan, 1, P, "value 17 of 'k' is NaN", "NaN"},
             {k, vinf, 1, P, "value 3 of 'k' is infinite", "Inf"},
             {two, vok, 2, P, "'k' is given twice", "a name twice"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    pp_config(&c, fou, 0, bad[i].names, bad[i].values, bad[i].n, bad[i].count);
    c.paths = P;
    refuse(&c, bad[i].want, bad[i].what);
  }
  /* finite doubles beyond float's range: refused in single precision (they
   * would be Inf on the device), accepted in double (the run itself may
   * then blow up, which its own check reports) */
  static double big[P];
  for (int i = 0; i < P; i++)
    big[i] = i == 5 ? -1e39 : 1;
  const double *vbig[] = {big};
  pp_config(&c, fou, 1, k, vbig, 1, P);
  c.paths = P;
  refuse(&c, "'k' of path 5 is -1e+39, outside single precision's range", "beyond float");
  big[5] = FLT_MAX;
  pp_config(&c, fou, 1, k, vbig, 1, P);
  c.paths = P;
  c.t_end = 0.01, c.sample_every = 1;
  st_env(&c.env);
  {
    sdk_errbuf eb = {0};
    sdk_run *r = NULL;
    sdk_err e = sdk_run_execute(&c, &r, &eb);
    TU_CHECK(e == SDK_OK, "FLT_MAX itself in single precision: accepted (%s)", eb.msg);
    sdk_run_destroy(&r);
  }
  pp_config(&c, fou, 0, k, vok, 1, P);
  c.paths = P;
  c.nset = 1;
  c.set_name[0] = "k";
  c.set_value[0] = 2;
  refuse(&c, "given by --set and per path", "--set and per path");
  pp_config(&c, fou, 0, k, vok, 1, P);
  c.paths = P;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_scan_parse("k=1:2:3", &c.scan[0], &eb) == SDK_OK, "scan parse (%s)", eb.msg);
  c.nscan = 1;
  refuse(&c, "is scanned", "a scanned parameter");
  const char *x0m = st_model_file("[model]\nname = x0m\nvars = x\n[params]\nx0 = 1\n[drift]\nx = "
                                  "-x\n[noise]\nx = 1\n[init]\nx = x0\n",
                                  3);
  const char *x0[] = {"x0"};
  pp_config(&c, x0m, 0, x0, vok, 1, P);
  c.paths = P;
  refuse(&c, "used in [init]", "a parameter of [init]");
}

/* shards, and batches of paths (windows with a carry, as --target-se runs
 * them): a [particle] parameter drawn and D given per path (different for
 * every path) follow the key index, so three shards, or two windows of one
 * fold unit each, are bitwise the run of both units at once */
static void check_windows(void) {
  const int64_t U = SDK_PATH_WINDOW_UNIT;
  double *d = malloc((size_t)(2 * U) * sizeof *d);
  if (!d) return;
  for (int64_t i = 0; i < 2 * U; i++)
    d[i] = 0.2 + 0.4 * (double)(i % 7) / 6;
  const char *names[] = {"D"};
  const double *values[] = {d};
  sdk_run_config c;
  pp_config(&c, st_model_file(QPP, 4), 0, names, values, 1, 2 * U);
  c.paths = 2 * U;
  sdk_run *one = st_run(&c);
  c.shards = 3;
  sdk_run *cut = st_run(&c);
  TU_CHECK(one && cut && st_same_store(sdk_run_results(one), sdk_run_results(cut)),
           "path_params run in 3 shards: bitwise the run in one");
  sdk_run_destroy(&cut);
  c.shards = 1;
  sdk_carry *carry = sdk_carry_create();
  int64_t f1[1] = {0}, n1[1] = {U}, f2[1] = {U}, n2[1] = {U};
  sdk_path_window w1 = {2 * U, f1, n1, 0}, w2 = {2 * U, f2, n2, 0};
  c.carry = carry;
  c.window = &w1;
  sdk_run *a = st_run(&c);
  c.window = &w2;
  sdk_run *b = a ? st_run(&c) : NULL;
  const st_view *A = one ? st_view_of(sdk_run_results(one)) : NULL;
  const st_view *B = b ? st_view_of(sdk_run_results(b)) : NULL;
  TU_CHECK(A && B && A->nsamples == B->nsamples && A->nsamples > 1 &&
               !memcmp(A->mean, B->mean, (size_t)A->nsamples * sizeof *A->mean) &&
               !memcmp(A->var, B->var, (size_t)A->nsamples * sizeof *A->var),
           "per-path parameters in two windows of %lld paths: bitwise the one run", (long long)U);
  /* a value of the second window bad: refused before the first is computed
   * (arrays are otherwise checked as they are uploaded) */
  d[2 * U - 1] = NAN;
  char want[80];
  snprintf(want, sizeof want, "value %lld of 'D' is NaN", (long long)(2 * U - 1));
  c.window = &w1;
  refuse(&c, want, "a NaN in the second batch, at the first");
  d[2 * U - 1] = 1e39; /* and in single precision one beyond float's range */
  snprintf(want, sizeof want, "value %lld of 'D' is 1e+39, outside single", (long long)(2 * U - 1));
  c.single = 1;
  refuse(&c, want, "beyond float in the second batch, at the first");
  c.single = 0;
  sdk_run_destroy(&one);
  sdk_run_destroy(&a);
  sdk_run_destroy(&b);
  sdk_carry_destroy(&carry);
  free(d);
}

/* The CUDA kernels of per-path parameters compile (NVRTC for sm_90, no
 * device needed): every scheme, both precisions, with time averages and
 * --dt-check; skipped where NVRTC cannot be loaded. */
static void check_cuda_text(void) {
  sdk_bctx *ctx = st_nvrtc_open();
  if (!ctx) return;
  static double d[1000];
  for (int i = 0; i < 1000; i++)
    d[i] = 0.4;
  const char *names[] = {"D"};
  const double *values[] = {d};
  for (int i = 0; sdk_registry_schemes[i]; i++)
    for (int single = 0; single < 2; single++) {
      const char *scheme = sdk_registry_schemes[i]->name;
      sdk_run_config c;
      pp_config(&c, st_model_file(QPP, 4), single, names, values, 1, 1000);
      c.paths = 1000;
      c.scheme = scheme;
      if (!single) c.observe = "moments,tavg", c.dt_check = 1;
      char report[4400] = "";
      char *src = st_cuda_source(ctx, &c, scheme, report, sizeof report);
      TU_CHECK(src && strstr(src, "const real pp0_1 = st[") && !strstr(src, "= pp0_"),
               "CUDA %s %s: the per-path rows loaded and never stored", scheme,
               single ? "single" : "double");
      printf("CUDA %-8s %s: %s\n", scheme, single ? "single" : "double", report);
      free(src);
    }
  sdk_backend_cuda.close(&ctx); /* (the cache goes with the scratch directory) */
}

/* No silent scheme switch: the default for a [particle] model is the general
 * one (srk2); where a model changes it (state-dependent Ito noise, systems
 * of particles) the results say why (scheme_why: root attribute
 * scheme_default, and a note on the logger) */
static void check_default_scheme(void) {
  static const struct {
    const char *model;
    int64_t particles;
    const char *scheme, *why;
  } K[] = {{NULL, 0, "srk2", NULL},
           {"gbm", 0, "euler", "state-dependent noise in the Ito sense"},
           {"kuramoto-meanfield", 256, "euler", "systems of particles"}};
  for (size_t i = 0; i < sizeof K / sizeof *K; i++) {
    sdk_run_config c;
    config(&c, K[i].model ? K[i].model : st_model_file(QOU, 7));
    c.paths = K[i].particles ? 1 : 256, c.particles = K[i].particles, c.t_end = 0.01;
    st_env(&c.env);
    sdk_run *r = NULL;
    sdk_errbuf eb = {0};
    TU_CHECK(sdk_run_execute(&c, &r, &eb) == SDK_OK, "%s: %s", K[i].model, eb.msg);
    const sdk_results *R = r ? sdk_run_results(r) : NULL;
    TU_CHECK(R && !strcmp(R->scheme, K[i].scheme) &&
                 (K[i].why ? R->scheme_why && !strcmp(R->scheme_why, K[i].why) : !R->scheme_why),
             "default scheme of %s: %s (%s)", K[i].model ? K[i].model : "qou", R ? R->scheme : "?",
             R && R->scheme_why ? R->scheme_why : "said to be the general");
    sdk_run_destroy(&r);
  }
}

int main(void) {
  st_require_backend();
  check_default_scheme();
  var_at w = {0};
  double inf = k_average(inv_k, &w), want = DIFF * log(4.0) / 1.5;
  TU_CHECK(fabs(inf - want) < 1e-12 * want, "Simpson: E[D/k] %.15g, D ln(4)/1.5 = %.15g", inf,
           want);
  for (int i = 0; sdk_registry_schemes[i]; i++)
    check_quenched(sdk_registry_schemes[i], 0);
  check_quenched(sdk_find_scheme("srk2"), 1);
  check_draws();
  check_repro();
  check_path_params(0);
  check_path_params(1);
  check_tavg();
  check_refusals();
  check_windows();
  check_cuda_text();
  return tu_finish("test_pathparams");
}
