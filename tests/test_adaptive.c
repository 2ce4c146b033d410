/* Adaptive time steps (--adaptive, codegen/adaptive.c) on the CPU, or
 * $SDK_TEST_BACKEND:
 *  - strong error of milstein on geometric Brownian motion against the exact
 *    solution S0 exp((mu - sigma^2/2) T + sigma W(T)) driven by the same
 *    Brownian tree (W(T) from rng/btree.h on the host): it decreases with
 *    rtol at the estimator's order (q = 1: error ~ rtol; slope printed and
 *    checked within 4 of its standard errors and +-0.25 of 1), and the
 *    steps taken grow as rtol^(-1/q); srk2 - euler on an additive-noise
 *    model against a run at rtol 1e-6 on the same tree: error ~ rtol^(2/3);
 *  - single precision: the same strong error at rtol 1e-3 (its rounding is
 *    far below it), against its own exact solution (its tree's root is a
 *    single-precision Gaussian: rng/btree.h SDK_BTREE_ROOT_F);
 *  - the same bits for 1 and 2 threads, 1 and 3 shards, 1 and 3 ranks, and
 *    chunks cut at every step (sample_every 1) or every 7, and the same lane
 *    utilisation; that is 1 where every path takes the same sub-steps, and
 *    between mean / most tries and 1 otherwise;
 *  - a sub-step that blows up (NaN) is rejected, not taken: a relaxation
 *    x' = -k sqrt(x) (x - 1), whose first try of dt-max lands below 0 (the
 *    square root's NaN), ends near 1 on every path, in both precisions;
 *  - one clear error for each bad input and unsupported combination;
 *  - the CUDA kernels of the same runs (gbm/milstein in both precisions, and
 *    two additive noises with srk2) compile through NVRTC for sm_90 without a GPU (skipped where
 *    NVRTC cannot be loaded); test_adaptive_gpu runs it all on the GPU.
 * (Interrupted + resumed runs: tests/test_observables.c runs the adaptive
 * observable through its checkpoint and resume check.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "rng/btree.h"
#include "simtest.h"
#include "testutil.h"

#define NP 2000
#define T_END 1.0
#define DT_MAX 0.25

static const char GBM[] = "[model]\nname = gbm\nvars = S\n[params]\nmu = 0.5\nsigma = 0.8\n"
                          "S0 = 1\n[drift]\nS = mu*S\n[noise]\nS = sigma*S\n[init]\nS = S0\n";

static void base(sdk_run_config *c) {
  sdk_run_config_defaults(c);
  c->model = st_model_file(GBM, 0);
  c->backend = st_backend();
  c->scheme = "milstein";
  c->single = 0;
  c->seed = 30;
  c->paths = NP;
  c->t_end = T_END;
  c->adaptive = 1;
  c->dt_max = DT_MAX;
  c->quiet = 1;
  c->save_final = 1;
  c->observe = "moments";
}

static const double *final_of(const sdk_run *r) {
  const sdk_dataset *d = sdk_store_find(&sdk_run_results(r)->store, "final/S");
  return d && sdk_ds_count(d) == NP ? sdk_ds_f64(d) : NULL;
}

static double result(const sdk_run *r, const char *name) {
  char path[64];
  snprintf(path, sizeof path, "adaptive/%s", name);
  const double *v = sdk_results_f64(sdk_run_results(r), path);
  return v ? v[0] : NAN;
}

/* the exact S(T) of path p: W(T) summed over the tree's base intervals
 * (B(1) = z_0, the root: in single precision the single-precision one) */
static double exact_at(sdk_u64 seed, sdk_u64 p, int single, double sigma) {
  const double mu = 0.5;
  double w = 0;
  for (int n = 0; n < (int)(T_END / DT_MAX + 0.5); n++)
    w += sqrt(DT_MAX) * (single ? sdk_btree_root_f(seed, p, (sdk_u64)n, 1, 0)
                                : sdk_btree_b(seed, p, (sdk_u64)n, 1, 0, 1ull << SDK_BTREE_DEPTH));
  return exp((mu - 0.5 * sigma * sigma) * T_END + sigma * w);
}

static double exact(sdk_u64 seed, sdk_u64 p, int single) {
  return exact_at(seed, p, single, 0.8);
}

static void test_strong_order(void) {
  static const double rtol[] = {1e-2, 3e-3, 1e-3, 3e-4};
  enum { NR = sizeof rtol / sizeof rtol[0] };
  double lr[NR], le[NR], w[NR], lc[NR];
  double *ex = malloc(NP * sizeof *ex);
  double err3[2] = {0, 0}, se3[2] = {0, 0};
  for (int k = 0; k <= NR; k++) { /* (k = NR: single precision at rtol 1e-3) */
    sdk_run_config c;
    base(&c);
    c.rtol = k < NR ? rtol[k] : 1e-3;
    c.single = k == NR;
    c.atol = 1e-8;
    if (k == 0 || k == NR) /* (the double tree's, then the single one's) */
      for (int p = 0; p < NP; p++)
        ex[p] = exact(30, (sdk_u64)p, c.single);
    sdk_run *r = st_run(&c);
    TU_CHECK(r != NULL, "run at rtol %g", c.rtol);
    const double *S = r ? final_of(r) : NULL;
    TU_CHECK(S != NULL, "final/S");
    if (!S) {
      sdk_run_destroy(&r);
      free(ex);
      return;
    }
    double s1 = 0, s2 = 0;
    for (int p = 0; p < NP; p++) {
      double e = fabs(S[p] - ex[p]);
      s1 += e, s2 += e * e;
    }
    double mean = s1 / NP, se = sqrt((s2 / NP - mean * mean) / NP);
    double acc = result(r, "accepted_mean"), rej = result(r, "rejected_mean");
    printf("%s rtol %-7g E|S - S_exact| %.4e +- %.1e  steps/path: accepted %.1f rejected %.1f "
           "(max %.0f), smallest dt %.3g\n",
           c.single ? "single" : "double", c.rtol, mean, se, acc, rej, result(r, "accepted_max"),
           result(r, "dt_min"));
    if (c.rtol == 1e-3) err3[c.single] = mean, se3[c.single] = se;
    if (k < NR) {
      lr[k] = log(rtol[k]), le[k] = log(mean), w[k] = mean * mean / (se * se);
      lc[k] = log(acc + rej);
    }
    sdk_run_destroy(&r);
  }
  /* (the same paths, the tree's roots drawn in single precision: the two
   * errors differ by sampling, float rounding and the controller's decisions
   * it moves) */
  TU_CHECK(fabs(err3[1] - err3[0]) <= 4 * (se3[0] + se3[1]),
           "single %.4e against double %.4e at rtol 1e-3", err3[1], err3[0]);
  free(ex);
  double slope, sslope, cs, scs;
  st_fit_slope(lr, le, w, NR, &slope, &sslope);
  double ones[NR];
  for (int k = 0; k < NR; k++)
    ones[k] = 1;
  st_fit_slope(lr, lc, ones, NR, &cs, &scs);
  printf("strong error ~ rtol^%.3f +- %.3f (estimator order q = 1: slope 1); work ~ "
         "rtol^%.3f (-1/q = -1)\n",
         slope, sslope, cs);
  TU_CHECK(fabs(slope - 1) <= 0.25 + 4 * sslope, "strong order in rtol: %.3f +- %.3f", slope,
           sslope);
  TU_CHECK(cs < -0.6 && cs > -1.4, "work against rtol: slope %.3f", cs);
}

/* The drift's error is under the tolerances too (scheme_milstein.c: the
 * partner's trapezoidal drift).  With weak noise (sigma 0.1) Milstein's
 * error is its Euler drift's, whose local weak error h^2/2 mu^2 S is the
 * mean of the estimate's drift term; every accepted sub-step keeps the
 * estimate within atol + rtol |S|, and a local error at t grows by
 * e^(mu (T - t)) to T, so the weak error E[S(T) - S_exact(T)] is at most
 * (accepted sub-steps) x (atol + rtol E S(T)) to leading order.  Measured
 * on the coupled differences (the exact solution on the same tree: a small
 * standard error); an estimate without the drift's term kept dt-max
 * (4 sub-steps) at every rtol, and E S(1) 31 SE low at rtol 1e-3. */
static void test_drift_error(void) {
  static const char GBM_WEAK[] = "[model]\nname = gbmw\nvars = S\n[params]\nmu = 0.5\n"
                                 "sigma = 0.1\n[drift]\nS = mu*S\n[noise]\nS = sigma*S\n"
                                 "[init]\nS = 1\n";
  static const double rtol[] = {1e-2, 1e-3, 1e-4};
  enum { NR = sizeof rtol / sizeof rtol[0] };
  double lr[NR], le[NR], w[NR];
  double *ex = malloc(NP * sizeof *ex);
  for (int p = 0; ex && p < NP; p++)
    ex[p] = exact_at(30, (sdk_u64)p, 0, 0.1);
  for (int k = 0; ex && k < NR; k++) {
    sdk_run_config c;
    base(&c);
    c.model = st_model_file(GBM_WEAK, 4);
    c.rtol = rtol[k], c.atol = 1e-8;
    sdk_run *r = st_run(&c);
    const double *S = r ? final_of(r) : NULL;
    TU_CHECK(S != NULL, "weak-noise run at rtol %g", rtol[k]);
    if (!S) {
      sdk_run_destroy(&r);
      break;
    }
    double d1 = 0, d2 = 0, sm = 0;
    for (int p = 0; p < NP; p++) {
      double d = S[p] - ex[p];
      d1 += d, d2 += d * d, sm += S[p];
    }
    double mean = d1 / NP, se = sqrt((d2 / NP - mean * mean) / (NP - 1)), acc;
    acc = result(r, "accepted_mean");
    double bound = acc * (c.atol + rtol[k] * sm / NP);
    printf("drift error, sigma 0.1: rtol %-7g E[S - S_exact] %+.4e +- %.1e, bound %.4e "
           "(%.1f accepted sub-steps)\n",
           rtol[k], mean, se, bound, acc);
    TU_CHECK(fabs(mean) <= bound + 4 * se, "rtol %g: E[S - S_exact] %.4e +- %.1e over %.4e",
             rtol[k], mean, se, bound);
    lr[k] = log(rtol[k]), le[k] = log(fabs(mean)), w[k] = mean * mean / (se * se);
    sdk_run_destroy(&r);
  }
  double slope, sslope;
  st_fit_slope(lr, le, w, NR, &slope, &sslope);
  printf("drift error ~ rtol^%.3f +- %.3f\n", slope, sslope);
  TU_CHECK(slope > 0.4, "the drift's error falls with rtol: slope %.3f", slope);
  free(ex);
}

/* srk2 (Heun) with additive noise, its estimate srk2 - euler of order
 * q = 3/2: h ~ rtol^(2/q), so the strong error of Heun (order 1 in h) falls
 * as rtol^(2/3), measured against a run at rtol 1e-6 on the same tree */
static void test_additive_order(const char *model) {
  static const double rtol[] = {1e-2, 3e-3, 1e-3, 3e-4, 1e-6};
  enum { NR = sizeof rtol / sizeof rtol[0] };
  double *x[NR] = {0};
  double acc[NR];
  sdk_run_config c;
  for (int k = 0; k < NR; k++) {
    base(&c);
    c.model = model, c.scheme = "srk2", c.paths = NP / 4;
    c.rtol = rtol[k], c.atol = 1e-8;
    sdk_run *r = st_run(&c);
    const sdk_dataset *d = r ? sdk_store_find(&sdk_run_results(r)->store, "final/x") : NULL;
    TU_CHECK(d && sdk_ds_count(d) == NP / 4, "additive run at rtol %g", rtol[k]);
    if (d) x[k] = malloc(NP / 4 * sizeof *x[k]), memcpy(x[k], sdk_ds_f64(d), NP / 4 * 8);
    acc[k] = r ? result(r, "accepted_mean") : NAN;
    sdk_run_destroy(&r);
  }
  double lr[NR - 1], le[NR - 1], w[NR - 1];
  for (int k = 0; k < NR - 1 && x[k] && x[NR - 1]; k++) {
    double s1 = 0, s2 = 0;
    for (int p = 0; p < NP / 4; p++) {
      double e = fabs(x[k][p] - x[NR - 1][p]);
      s1 += e, s2 += e * e;
    }
    double mean = s1 / (NP / 4), se = sqrt((s2 / (NP / 4) - mean * mean) / (NP / 4));
    printf("srk2 additive: rtol %-7g E|x - x_ref| %.4e +- %.1e, %.1f sub-steps per path\n", rtol[k],
           mean, se, acc[k]);
    lr[k] = log(rtol[k]), le[k] = log(mean), w[k] = mean * mean / (se * se);
  }
  double slope, sslope;
  st_fit_slope(lr, le, w, NR - 1, &slope, &sslope);
  printf("srk2 additive: strong error ~ rtol^%.3f +- %.3f (q = 3/2: 2/3)\n", slope, sslope);
  TU_CHECK(fabs(slope - 2.0 / 3) <= 0.2 + 4 * sslope, "additive order in rtol: %.3f +- %.3f", slope,
           sslope);
  for (int k = 0; k < NR; k++)
    free(x[k]);
}

/* a NaN error norm rejects the sub-step (codegen/adaptive.c: the larger of
 * the variables' norms keeps a NaN, where fmax would drop it) */
static void test_blowup(int single) {
  static const char RELAX[] = "[model]\nname = relax\nvars = x\n[params]\nk = 100\n[drift]\n"
                              "x = -k*sqrt(x)*(x - 1)\n[noise]\nx = 0.01\n[init]\nx = 2\n";
  sdk_run_config c;
  base(&c);
  c.model = st_model_file(RELAX, 5), c.scheme = "srk2", c.single = single;
  c.rtol = 1e-3, c.atol = 1e-6;
  sdk_run *r = st_run(&c);
  const sdk_dataset *d = r ? sdk_store_find(&sdk_run_results(r)->store, "final/x") : NULL;
  TU_CHECK(d && sdk_ds_count(d) == NP, "the relaxation (%s) runs", single ? "single" : "double");
  /* x(1) - 1: stationary sd 0.01 / sqrt(2 k) = 7e-4; the largest of NP
   * paths within 6 sd */
  double worst = 0;
  int bad = 0;
  for (int p = 0; d && p < NP; p++) {
    double e = fabs(sdk_ds_f64(d)[p] - 1);
    if (!isfinite(e))
      bad++;
    else if (e > worst)
      worst = e;
  }
  printf("a sub-step that blows up (%s): %.1f tries per path, %d paths not finite, largest "
         "|x(1) - 1| %.2e\n",
         single ? "single" : "double",
         r ? result(r, "accepted_mean") + result(r, "rejected_mean") : NAN, bad, worst);
  TU_CHECK(d && bad == 0 && worst <= 6 * 0.01 / sqrt(200.0),
           "NaN sub-steps rejected (%s): %d paths not finite, largest |x(1) - 1| %g",
           single ? "single" : "double", bad, worst);
  sdk_run_destroy(&r);
}

/* the final states of a run: the same bits under every layout (in single
 * precision too: its tree's root is drawn otherwise, rng/btree.h) */
static void test_layouts(int single) {
  sdk_run_config c;
  base(&c);
  c.single = single;
  c.rtol = 1e-3;
  c.threads = 1;
  c.sample_every = 1;
  sdk_run *r0 = st_run(&c);
  const double *ref = r0 ? final_of(r0) : NULL;
  TU_CHECK(ref != NULL, "reference run");
  if (!ref) {
    sdk_run_destroy(&r0);
    return;
  }
  const char *what[] = {"2 threads", "3 shards", "3 ranks", "chunks of 7 steps"};
  for (int k = 0; k < 4; k++) {
    base(&c);
    c.single = single;
    c.rtol = 1e-3;
    c.threads = k == 0 ? 2 : 1;
    c.shards = k == 1 ? 3 : 0;
    c.ranks = k == 2 ? 3 : 0;
    c.sample_every = k == 3 ? 7 : 1;
    c.t_end = k == 3 ? 0.25 * 7 * 4 : T_END;
    if (k == 3) { /* the reference over the same time, chunks of one step */
      sdk_run_config c1 = c;
      c1.sample_every = 1;
      sdk_run_destroy(&r0);
      r0 = st_run(&c1);
      ref = r0 ? final_of(r0) : NULL;
    }
    sdk_run *r = st_run(&c);
    const double *got = r ? final_of(r) : NULL;
    TU_CHECK(ref && got && !memcmp(ref, got, NP * sizeof *got), "%s: not the same bits", what[k]);
    TU_CHECK(result(r, "lane_util") == result(r0, "lane_util"), "%s: lane utilisation %.17g",
             what[k], result(r, "lane_util"));
    printf("layout: %s gives the bits of one thread (%s)\n", what[k], single ? "single" : "double");
    sdk_run_destroy(&r);
  }
  sdk_run_destroy(&r0);
}

/* The lane utilisation (obs_adaptive.c): 1 where every path takes the
 * same sub-steps (a tolerance that accepts every step; a single path);
 * otherwise in [mean tries / most tries, 1] (each warp's busiest path
 * tries at most the most of all), printed with the step counts. */
static void test_lanes(void) {
  for (int k = 0; k < 3; k++) {
    sdk_run_config c;
    base(&c);
    c.rtol = k == 0 ? 1e6 : 1e-3;
    c.atol = k == 0 ? 1e6 : 0;
    c.paths = k == 1 ? 1 : NP;
    c.save_final = 0;
    sdk_run *r = st_run(&c);
    const double lu = r ? result(r, "lane_util") : NAN;
    const double tries = result(r, "accepted_mean") + result(r, "rejected_mean");
    const double most = result(r, "accepted_max") + result(r, "rejected_max");
    printf("lanes: %s, %lld paths: %.1f tries per path (accepted + rejected; at most %.0f "
           "+ %.0f): lane utilisation %.4f\n",
           k == 0 ? "every step accepted" : "rtol 1e-3", (long long)c.paths, tries,
           result(r, "accepted_max"), result(r, "rejected_max"), lu);
    if (k < 2)
      TU_CHECK(lu == 1, "lane utilisation %.17g, not 1", lu);
    else
      TU_CHECK(lu >= tries / most && lu < 1, "lane utilisation %.4f outside [%.4f, 1)", lu,
               tries / most);
    sdk_run_destroy(&r);
  }
}

/* one clear usage error (the message contains `want`) */
static void refused(const sdk_run_config *c, const char *want) {
  sdk_run *r = NULL;
  sdk_errbuf eb = {0};
  sdk_run_config cc = *c;
  st_env(&cc.env);
  sdk_err e = sdk_run_execute(&cc, &r, &eb);
  TU_CHECK(e == SDK_ERR_USAGE && strstr(eb.msg, want), "want a usage error with '%s', got %d: %s",
           want, (int)e, eb.msg);
  printf("refused: %s\n", eb.msg);
  sdk_run_destroy(&r);
}

static void test_refusals(void) {
  static const char BOUNDED[] = "[model]\nname = bounded\nvars = x\n[drift]\nx = 0\n[noise]\n"
                                "x = 1\n[init]\nx = 0.5\n[boundaries]\nleft = reflect x <= 0\n";
  sdk_run_config c;
  base(&c);
  c.dt_min = 0.5;
  refused(&c, "--dt-min 0.5 is larger than the largest step, --dt-max 0.25");
  base(&c);
  c.dt_min = 1e-9;
  refused(&c, "below the Brownian tree's finest step");
  base(&c);
  c.dt = 0.5;
  refused(&c, "is larger than --dt-max");
  base(&c);
  c.adaptive = 0;
  c.dt_max = 0;
  c.rtol = 1e-3;
  refused(&c, "need --adaptive");
  base(&c);
  c.scheme = "euler";
  refused(&c, "scheme euler has no error estimator for the multiplicative noise of model 'gbm'; "
              "use --scheme milstein");
  base(&c);
  c.scheme = "srk2";
  refused(&c, "scheme srk2 has no error estimator");
  base(&c);
  c.dt_check = 1;
  refused(&c, "--adaptive cannot be combined with --dt-check");
  base(&c);
  c.mlmc = 0.01;
  refused(&c, "--adaptive cannot be combined with --mlmc");
  base(&c);
  c.model = st_model_file(BOUNDED, 1);
  c.scheme = "srk2";
  refused(&c, "a reflecting boundary"); /* (absorbing ones: test_adaptive_fpt) */
  base(&c);
  c.model = "kuramoto-meanfield";
  c.scheme = "euler";
  c.particles = 16;
  c.paths = 2;
  refused(&c, "--adaptive");
}

static const char OU2[] = "[model]\nname = ou2\nvars = x, y\n[params]\nk = 1\n[drift]\n"
                          "x = -k*x + y\ny = -y*y*y\n[noise]\nx = 0.5\ny = 0.3\n[init]\n"
                          "x = 1\ny = 0\n";

/* the CUDA source of adaptive runs through NVRTC (no device needed) */
static void test_cuda_source(void) {
  sdk_bctx *ctx = st_nvrtc_open();
  for (int k = 0; ctx && k < 3; k++) { /* milstein, srk2 in double; milstein in single */
    sdk_run_config c;
    base(&c);
    c.backend = "cuda";
    c.single = k == 2;
    if (k == 1) c.model = st_model_file(OU2, 2), c.scheme = "srk2";
    char report[4400] = "";
    char *src = st_cuda_source(ctx, &c, c.scheme, report, sizeof report);
    TU_CHECK(src && strstr(src, "sdk_btree_incr("), "CUDA %s: the tree's increments", c.scheme);
    printf("CUDA source (%s, %s): %s\n", c.scheme, c.single ? "single" : "double", report);
    free(src);
  }
  if (ctx) sdk_backend_cuda.close(&ctx);
}

int main(void) {
  st_require_backend();
  test_refusals();
  test_cuda_source();
  test_strong_order();
  test_drift_error();
  test_additive_order(st_model_file(OU2, 3));
  test_blowup(0);
  test_blowup(1);
  test_layouts(0);
  test_layouts(1);
  test_lanes();
  return tu_finish("test_adaptive");
}
