/* --adaptive with [boundaries] (codegen/adaptive.c, boundary.c: the
 * boundaries at every sub-step, the controller shortening a sub-step whose
 * bridge crossing probability is large, the hitting time drawn from the
 * bridge) on the CPU, or $SDK_TEST_BACKEND:
 *  a. mean exit time of Brownian motion from (0, 1), x0 (L - x0) / (2D),
 *     in double and single precision: within K standard errors;
 *  b. the double-well escape, dx = (x - x^3) dt + sqrt(2D) dW, barrier
 *     V(0) - V(-1) = 1/4 = 4 kT (D = 1/16), from x0 = -1 to the barrier top
 *     b = 0, against T = (1/D) int_{x0}^{b} dy e^{V(y)/D} int_{-inf}^{y} dz
 *     e^{-V(z)/D} (composite Simpson, its error printed): within K SE, the
 *     relative error printed; then the cost at equal error: fixed steps of
 *     the same scheme (srk2, bridge-corrected boundaries) at a list of dt,
 *     the largest whose error is no larger than the adaptive run's (or its
 *     2 SE, where that is larger) taken, and the ratio of its steps per path
 *     (T / dt) to the adaptive run's sub-steps per path, accepted and
 *     rejected, printed with the CPU time ratio (the goal is >= 3;
 *     not asserted: see the printed line);
 *  c. the fpt results and final states bitwise the same for 1 and 2
 *     threads, 3 ranks, chunks of 1 and 7 steps, and interrupted + resumed;
 *  d. refused: a run with more steps than the bridge draws' keys allow, a
 *     reflecting boundary (adaptive.c says why);
 *  f. a periodic model (models/josephson.sde's kind): the drive at each
 *     sub-step's phase time, against an exact mean; --dt-max refused there;
 *  e. the CUDA source of the same runs compiles through NVRTC (sm_90, both
 *     precisions; skipped without NVRTC); test_adaptive_fpt_gpu runs a.-c.
 *     on the GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "simtest.h"
#include "testutil.h"

#define K 4.0 /* tolerance in standard errors */

static const char BM[] = "[model]\nname = bm\nvars = x\n[params]\nD = 1\nL = 1\nx0 = 0.5\n"
                         "[drift]\nx = 0\n[noise]\nx = sqrt(2*D)\n[init]\nx = x0\n"
                         "[boundaries]\nleft = absorb x <= 0\nright = absorb x >= L\n";
static const char WALL[] = "[model]\nname = wall\nvars = x\n[params]\nD = 1\nL = 1\nx0 = 0.3\n"
                           "[drift]\nx = 0\n[noise]\nx = sqrt(2*D)\n[init]\nx = x0\n"
                           "[boundaries]\nwall = reflect x < 0\nright = absorb x >= L\n";
static const char WELL[] = "[model]\nname = well\nvars = x\n[params]\nD = 0.0625\nb = 0\n"
                           "[drift]\nx = x - x*x*x\n[noise]\nx = sqrt(2*D)\n[init]\nx = -1\n"
                           "[boundaries]\nover = absorb x >= b\n";

static void base(sdk_run_config *c, const char *text, int slot, int64_t paths, double dtmax,
                 double tend) {
  sdk_run_config_defaults(c);
  c->model = st_model_file(text, slot);
  c->backend = st_backend();
  c->scheme = "srk2";
  c->single = 0;
  c->seed = 3030;
  c->paths = paths;
  c->t_end = tend;
  c->adaptive = 1;
  c->dt_max = dtmax;
  c->rtol = 0.03;
  c->atol = 0.03;
  c->quiet = 1;
  c->observe = "fpt";
}

static double ds0(const sdk_run *r, const char *path) {
  const double *v = r ? sdk_results_f64(sdk_run_results(r), path) : NULL;
  return v ? v[0] : NAN;
}

/* a: Brownian motion, absorbing or reflecting + absorbing walls */
static void exit_times(void) {
  for (int k = 0; k < 2; k++) {
    sdk_run_config c;
    base(&c, BM, 0, 40000, 0.5, 20);
    c.single = k == 1;
    sdk_run *r = st_run(&c);
    TU_CHECK(r != NULL, "exit-time run %d", k);
    const char *what[] = {"a. BM exit (0, 1) double", "a. BM exit (0, 1) single"};
    double exact = 0.5 * 0.5 / 2;
    st_within(what[k], ds0(r, "fpt/exit_mean"), ds0(r, "fpt/exit_err"), exact, K);
    printf("   sub-steps per path: %.1f accepted, %.1f rejected; smallest %.3g\n",
           ds0(r, "adaptive/accepted_mean"), ds0(r, "adaptive/rejected_mean"),
           ds0(r, "adaptive/dt_min"));
    sdk_run_destroy(&r);
  }
}

/* a grid point whose paths start on a level takes no sub-step: its counts
 * are 0 and its smallest step is NaN (there is none), beside a point that
 * runs (obs_adaptive.c) */
static void no_substep(void) {
  sdk_run_config c;
  base(&c, BM, 2, 64, 0.5, 1);
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_scan_parse("x0=0.5:1:2", &c.scan[0], &eb) == SDK_OK, "%s", eb.msg);
  c.nscan = 1;
  sdk_run *r = st_run(&c);
  const double *acc = r ? sdk_results_f64(sdk_run_results(r), "adaptive/accepted_mean") : NULL;
  const double *dtm = r ? sdk_results_f64(sdk_run_results(r), "adaptive/dt_min") : NULL;
  TU_CHECK(acc && dtm, "scan run with a point on the level");
  if (acc && dtm) {
    printf("no sub-step: x0 0.5 %.1f accepted, smallest %.3g; x0 1 (on the level) %.1f, %g\n",
           acc[0], dtm[0], acc[1], dtm[1]);
    TU_CHECK(acc[0] > 0 && dtm[0] > 0 && dtm[0] <= 0.5, "x0 0.5: %g sub-steps, smallest %g", acc[0],
             dtm[0]);
    TU_CHECK(acc[1] == 0 && isnan(dtm[1]), "x0 on the level: %g sub-steps, smallest %g", acc[1],
             dtm[1]);
  }
  sdk_run_destroy(&r);
  sdk_scan_free(&c.scan[0]);
}

/* b: the exact mean escape time of the double well by composite Simpson
 * with n panels outside and inside */
static double V(double x) {
  return 0.25 * x * x * x * x - 0.5 * x * x;
}
static double simpson(double a, double b, int n, double (*f)(double, const void *), const void *u) {
  double h = (b - a) / n, s = f(a, u) + f(b, u);
  for (int i = 1; i < n; i++)
    s += (i & 1 ? 4 : 2) * f(a + i * h, u);
  return s * h / 3;
}
typedef struct {
  double D;
  int n;
} wq;
static double inner_f(double z, const void *u) {
  return exp(-V(z) / ((const wq *)u)->D);
}
static double outer_f(double y, const void *u) {
  const wq *q = u; /* (e^{-V/D} < e^-250 below z = -3) */
  return exp(V(y) / q->D) * simpson(-3, y, q->n, inner_f, u);
}
static double escape_exact(double D, double x0, double b, int n) {
  wq q = {D, n};
  return simpson(x0, b, n, outer_f, &q) / D;
}

static double cpu_now(void) {
  return (double)clock() / CLOCKS_PER_SEC;
}

static void double_well(void) {
  const double D = 0.0625, T = escape_exact(D, -1, 0, 2000), T2 = escape_exact(D, -1, 0, 4000);
  printf("b. exact mean escape time %.10f (Simpson, n = 2000 against 4000: %.1e relative)\n", T,
         fabs(T - T2) / T2);
  TU_CHECK(fabs(T - T2) <= 1e-8 * T2, "the quadrature's error %.1e", fabs(T - T2) / T2);
  sdk_run_config c;
  base(&c, WELL, 2, 20000, 0.25, 4000);
  double t0 = cpu_now();
  sdk_run *r = st_run(&c);
  double cpu_ad = cpu_now() - t0;
  TU_CHECK(r != NULL, "adaptive double-well run");
  double m = ds0(r, "fpt/mean"), se = ds0(r, "fpt/mean_err");
  double subs = ds0(r, "adaptive/accepted_mean") + ds0(r, "adaptive/rejected_mean");
  const sdk_dataset *cen = r ? sdk_store_find(&sdk_run_results(r)->store, "fpt/censored") : NULL;
  TU_CHECK(cen && cen->type == SDK_I64 && sdk_ds_i64(cen)[0] == 0, "censored paths");
  st_within("b. double-well escape, adaptive srk2", m, se, T, K);
  TU_CHECK(fabs(m - T) <= 0.01 * T, "b. off by %.2f%% (> 1%%)", 100 * (m - T) / T);
  printf("   rtol = atol = %g, dt-max %g: %.1f sub-steps per path (%.1f rejected), smallest %.3g\n",
         c.rtol, c.dt_max, subs, ds0(r, "adaptive/rejected_mean"), ds0(r, "adaptive/dt_min"));
  sdk_run_destroy(&r);
  /* the fixed steps: the largest dt no worse than the adaptive run */
  const double err_ad = fmax(fabs(m - T), 2 * se);
  static const double dts[] = {0.4, 0.2, 0.125, 0.1, 0.08, 0.05};
  double dt_eq = NAN, cpu_fx = NAN;
  for (size_t k = 0; k < sizeof dts / sizeof dts[0] && isnan(dt_eq); k++) {
    base(&c, WELL, 2, 40000, 0, 4000);
    c.adaptive = 0, c.dt_max = 0, c.rtol = 0, c.atol = 0;
    c.dt = dts[k];
    t0 = cpu_now();
    r = st_run(&c);
    double cpu = (cpu_now() - t0) * 20000.0 / 40000.0; /* (per 20000 paths) */
    double mf = ds0(r, "fpt/mean"), sf = ds0(r, "fpt/mean_err");
    printf("   fixed srk2 dt %-5g mean %.4f +- %.4f, error %+.2f%%\n", dts[k], mf, sf,
           100 * (mf - T) / T);
    if (fabs(mf - T) <= err_ad) dt_eq = dts[k], cpu_fx = cpu;
    sdk_run_destroy(&r);
  }
  if (isnan(dt_eq)) {
    printf("b. cost ratio: no dt of the list reached the adaptive run's error %.2f%%\n",
           100 * err_ad / T);
    return;
  }
  const double steps_fx = T / dt_eq;
  printf("b. cost at equal error (%.2f%%): fixed dt %g takes %.1f steps per path, adaptive %.1f "
         "sub-steps: ratio %.2f in steps, %.2f in CPU time (the issue's goal: >= 3)\n",
         100 * err_ad / T, dt_eq, steps_fx, subs, steps_fx / subs, cpu_fx / cpu_ad);
}

/* c: the runs of layouts() (arg unused: st_resumed_same's shape) */
static void bm_layouts(sdk_run_config *c, int arg) {
  (void)arg;
  base(c, BM, 0, 3000, 0.05, 0.7);
}

/* c: the same bits under every layout, and resumed */
static void layouts(void) {
  sdk_run_config c;
  bm_layouts(&c, 0);
  c.threads = 1;
  c.sample_every = 1;
  c.save_final = 1;
  sdk_run *r0 = st_run(&c);
  TU_CHECK(r0 != NULL, "reference run");
  if (!r0) return;
  const char *what[] = {"2 threads", "3 ranks", "chunks of 7 steps"};
  for (int k = 0; k < 3; k++) {
    bm_layouts(&c, 0);
    c.save_final = 1;
    c.threads = k == 0 ? 2 : 1;
    c.ranks = k == 1 ? 3 : 0;
    c.sample_every = k == 2 ? 7 : 1;
    sdk_run *r = st_run(&c);
    /* (fpt's survival is sampled: compare what does not depend on the samples) */
    static const char *const names[] = {
        "final/x",  "fpt/exit_mean",          "fpt/mean",
        "fpt/hist", "adaptive/accepted_mean", "adaptive/rejected_max"};
    int same = r != NULL;
    for (size_t i = 0; same && i < sizeof names / sizeof names[0]; i++) {
      const sdk_dataset *a = sdk_store_find(&sdk_run_results(r0)->store, names[i]),
                        *b = sdk_store_find(&sdk_run_results(r)->store, names[i]);
      same = a && b && a->type == b->type && sdk_ds_count(a) == sdk_ds_count(b) &&
             !memcmp(a->data, b->data, (size_t)sdk_ds_count(a) * 8);
    }
    TU_CHECK(same, "%s: not the same bits", what[k]);
    printf("c. %s gives the bits of one thread\n", what[k]);
    sdk_run_destroy(&r);
  }
  sdk_run_destroy(&r0);
  /* interrupted half way and resumed */
  bm_layouts(&c, 0);
  sdk_run *whole = st_run(&c);
  TU_CHECK(whole != NULL, "uninterrupted run");
  if (whole) {
    int64_t step = st_resumed_same(bm_layouts, 0, sdk_run_results(whole), "adaptive fpt");
    printf("c. resumed from step %lld: bitwise the uninterrupted results\n", (long long)step);
  }
  sdk_run_destroy(&whole);
}

/* c must be refused: one usage error whose message contains want */
static void refused_cfg(sdk_run_config *c, const char *want) {
  sdk_run *r = NULL;
  sdk_errbuf eb = {0};
  st_env(&c->env);
  sdk_err e = sdk_run_execute(c, &r, &eb);
  TU_CHECK(e == SDK_ERR_USAGE && strstr(eb.msg, want), "want a refusal with '%s', got %d: %s", want,
           (int)e, eb.msg);
  printf("refused: %s\n", eb.msg);
  sdk_run_destroy(&r);
}

/* f: a periodic model (the phase time of each sub-step): an Ornstein-
 * Uhlenbeck process driven by a cos(w t), w = 2 pi (period 1), from x = 0,
 * E x(t) = a (cos w t + w sin w t - e^-t) / (1 + w^2), with steps of a
 * quarter period (--spp 4) taken adaptively: the mean at every sample within
 * K SE; and --dt-max refused there */
static const char DRIVEN[] = "[model]\nname = driven\nvars = x\nperiod = 2*pi/w\n[params]\n"
                             "a = 1\nw = 6.283185307179586\ns = 0.02\n[drift]\n"
                             "x = -x + a*cos(w*t)\n[noise]\nx = s\n[init]\nx = 0\n";

static void periodic(void) {
  sdk_run_config c;
  base(&c, DRIVEN, 3, 2000, 0, 0);
  c.dt_max = 0;
  c.spp = 4;
  c.periods = 3;
  c.sample_every = 1;
  c.rtol = 1e-4, c.atol = 1e-4;
  c.observe = "moments";
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "periodic run");
  const sdk_results *R = r ? sdk_run_results(r) : NULL;
  const double *t = R ? sdk_results_f64(R, "moments/t") : NULL,
               *m = R ? sdk_results_f64(R, "moments/mean_x") : NULL,
               *e = R ? sdk_results_f64(R, "moments/mean_err_x") : NULL;
  TU_CHECK(t && m && e, "moments of the periodic run");
  const double w = 6.283185307179586;
  double zmax = 0;
  for (int k = 0; t && m && e && k < 13; k++) {
    double ex = (cos(w * t[k]) + w * sin(w * t[k]) - exp(-t[k])) / (1 + w * w);
    double z = e[k] > 0 ? fabs(m[k] - ex) / e[k] : (m[k] == ex ? 0 : INFINITY);
    zmax = z > zmax ? z : zmax;
    TU_CHECK(z <= K, "f. t = %g: mean %.6f, exact %.6f, se %.1e", t[k], m[k], ex, e[k]);
  }
  printf("f. periodic drive, --spp 4 adaptive: E x(t) at 13 samples within %.2f SE of the exact "
         "(%.1f sub-steps per path)\n",
         zmax, ds0(r, "adaptive/accepted_mean") + ds0(r, "adaptive/rejected_mean"));
  sdk_run_destroy(&r);
  base(&c, DRIVEN, 3, 10, 0.1, 1);
  refused_cfg(&c, "given as --spp N, not --dt-max");
}

/* d: too many steps for the bridge draws' keys; a reflecting boundary */
static void refusal(void) {
  sdk_run_config c;
  base(&c, BM, 0, 10, 1e-7, 30);
  refused_cfg(&c, "at most 2^28 steps");
  base(&c, WALL, 1, 10, 0.5, 1);
  refused_cfg(&c, "--adaptive: a reflecting boundary");
}

/* e: the CUDA source through NVRTC (no device needed) */
static void cuda_source(void) {
  sdk_bctx *ctx = st_nvrtc_open();
  for (int k = 0; ctx && k < 5; k++) { /* (k = 2: the double well; 3, 4: josephson, periodic) */
    sdk_run_config c;
    base(&c, k == 2 ? WELL : BM, k == 2 ? 2 : 0, 100, 0.5, 1);
    if (k >= 3) c.model = "josephson", c.dt_max = 0, c.t_end = 0, c.spp = 100, c.periods = 1;
    c.backend = "cuda";
    c.single = k == 1 || k == 4; /* (4: the time slices' roots kept in registers) */
    const char *name = k >= 3 ? "josephson" : k == 2 ? "well" : "bm";
    char report[4400] = "";
    char *src = st_cuda_source(ctx, &c, name, report, sizeof report);
    TU_CHECK(src && strstr(src, k >= 3 ? "sdk_tpb" : "sdk_rs_cross("), "CUDA %s: %s", name,
             k >= 3 ? "the periodic drive's phase" : "the bridge crossing");
    printf("e. CUDA source (%s, %s): %s\n", name, c.single ? "single" : "double", report);
    free(src);
  }
  if (ctx) sdk_backend_cuda.close(&ctx);
}

int main(void) {
  st_require_backend();
  refusal();
  cuda_source();
  exit_times();
  no_substep();
  layouts();
  periodic();
  double_well();
  return tu_finish("test_adaptive_fpt");
}
