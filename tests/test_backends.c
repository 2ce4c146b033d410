/* The same statistical and structural checks against whichever backend
 * $SDK_TEST_BACKEND names (default cpu; skipped with 77 when it cannot be
 * opened, e.g. cuda without a device):
 *
 *  - OU: mean and variance at several times against the scheme's exact
 *    discrete-time moments, within 5 standard errors; every registered
 *    scheme, single and double.
 *  - advancing in pieces of odd lengths gives bitwise the state of one
 *    advance (random numbers do not depend on how steps are cut).
 *  - a run that blows up stops with SDK_ERR_NONFINITE (also under fast-math).
 *
 * For cuda, additionally against the CPU:
 *  - OU in double without fast-math, same seed: per-grid-point means and
 *    variances after 1000 steps agree to 1e-9 relative (same random numbers,
 *    same arithmetic up to libm ulps), and so do min/max and histograms;
 *  - josephson <<v>>(a) agrees within 5 combined standard errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "observe/paths.h"
#include "sim/registry.h"
#include "simtest.h"
#include "testutil.h"

#define K_SIGMA 5.0

static const char OU_TEXT[] = "[model]\nname = ou\nvars = x\n[params]\nk = 1.0\nD = 0.5\n"
                              "[drift]\nx = -k*x\n[noise]\nx = sqrt(2*D)\n[init]\nx = 1\n";

static void check_ou(const sdk_scheme_type *s, int single) {
  const char *scheme = s->name;
  const double k = 1.0, D = 0.5, x0 = 1.0, dt = 0.01;
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = st_model_file(OU_TEXT, 0);
  c.backend = st_backend();
  c.scheme = scheme;
  c.single = single;
  c.paths = 100000; /* not a multiple of the chunk or block size */
  c.dt = dt;
  c.t_end = 3.0;
  c.sample_every = 75; /* odd: launches start in the middle of a Philox block */
  c.observe = "moments";
  c.seed = 2024;
  sdk_run *run = st_run(&c);
  TU_CHECK(run != NULL, "OU run (%s)", scheme);
  if (!run) return;
  const sdk_results *R = sdk_run_results(run);
  const st_view *Rv = st_view_of(R);
  TU_CHECK(Rv->nsamples == 5, "samples %lld", (long long)Rv->nsamples);
  /* the scheme's one-step map x' = a x + cw w (its SRK table) */
  double a = NAN, cw = NAN;
  TU_CHECK(st_srk_linear(s, k, dt, &a, &cw), "%s: no SRK table", scheme);
  for (int64_t s = 1; s < Rv->nsamples; s++) {
    double n = (double)Rv->sample_step[s], t = n * dt;
    double m_disc = x0 * pow(a, n);
    double v_disc = cw * cw * 2 * D * dt * (1 - pow(a, 2 * n)) / (1 - a * a);
    double m = Rv->mean[s], v = Rv->var[s], N = (double)c.paths;
    double se_m = sqrt(v_disc / N), se_v = v_disc * sqrt(2 / (N - 1));
    char what[160];
    snprintf(what, sizeof what, "%s OU %s %s mean t=%g", c.backend, scheme,
             single ? "single" : "double", t);
    TU_NEAR(m, m_disc, K_SIGMA * se_m, what);
    snprintf(what, sizeof what, "%s OU %s %s var t=%g", c.backend, scheme,
             single ? "single" : "double", t);
    TU_NEAR(v, v_disc, K_SIGMA * se_v, what);
    printf("%s OU %-5s %-6s t=%.2f  mean %.6f (%+.2f se)  var %.6f (%+.2f se)\n", c.backend, scheme,
           single ? "single" : "double", t, m, (m - m_disc) / se_m, v, (v - v_disc) / se_v);
  }
  sdk_run_destroy(&run);
}

/* Open the backend and build an ensemble of `model` directly (table API). */
typedef struct {
  const sdk_backend *be;
  sdk_bctx *ctx;
  sdk_module *mod;
  sdk_ensemble *ens;
} direct;

static int direct_open(direct *d, const char *backend, const char *model, int single, int64_t ppg,
                       int fast) {
  memset(d, 0, sizeof *d);
  sdk_errbuf eb = {0};
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = model;
  c.single = single;
  c.fast_math = fast;
  char *src = NULL;
  d->be = sdk_find_backend(backend);
  sdk_backend_opts o = {.fast_math = fast};
  st_env(&o.env);
  sdk_err e = sdk_run_codegen(&c, d->be, &src, &eb);
  if (e == SDK_OK) e = d->be->open(&o, &d->ctx, &eb);
  if (e == SDK_OK) e = d->be->compile(d->ctx, src, NULL, NULL, &d->mod, NULL, 0, &eb);
  free(src);
  sdk_layout lay = {.nvars = 2, .single = single, .ngrid = 1, .ppg = ppg, .path0 = 0, .nsv = 0};
  if (e == SDK_OK) e = d->be->alloc(d->ctx, d->mod, &lay, &d->ens, &eb);
  if (e == SDK_OK) e = d->be->init(d->ens, 99, &eb);
  TU_CHECK(e == SDK_OK, "%s: %s", backend, eb.msg);
  return e == SDK_OK;
}

static void direct_close(direct *d) {
  if (d->be) {
    d->be->free(&d->ens);
    d->be->module_free(&d->mod);
    d->be->close(&d->ctx);
  }
}

/* Advancing 0..200 at once or in pieces of odd lengths: bitwise equal, with
 * and without fast math.  The pieces start and end inside Philox blocks of
 * four steps, where the CPU draws only the half of a block it uses
 * ([0,1), [0,2): the first half; from 2, 11, 123: the second). */
static void check_pieces(int single, int fast) {
  const int64_t n = 1000;
  direct a, b;
  if (!direct_open(&a, st_backend(), "josephson", single, n, fast)) return;
  if (!direct_open(&b, st_backend(), "josephson", single, n, fast)) {
    direct_close(&a);
    return;
  }
  sdk_errbuf eb = {0};
  TU_CHECK(a.be->advance(a.ens, 0, 200, 7, &eb) == SDK_OK, "%s", eb.msg);
  const int64_t cut[] = {0, 1, 2, 4, 6, 11, 64, 123, 125, 126, 200};
  for (int i = 0; i + 1 < (int)(sizeof cut / sizeof *cut); i++)
    TU_CHECK(b.be->advance(b.ens, cut[i], cut[i + 1] - cut[i], 7, &eb) == SDK_OK, "%s", eb.msg);
  double *xa = malloc(2 * n * sizeof(double)), *xb = malloc(2 * n * sizeof(double));
  TU_CHECK(a.be->read_state(a.ens, 0, n, xa, &eb) == SDK_OK, "%s", eb.msg);
  TU_CHECK(b.be->read_state(b.ens, 0, n, xb, &eb) == SDK_OK, "%s", eb.msg);
  int64_t differ = 0;
  for (int64_t i = 0; i < 2 * n; i++)
    differ += memcmp(&xa[i], &xb[i], sizeof(double)) != 0;
  TU_CHECK(differ == 0, "%s %s%s: %lld of %lld values differ between one advance and pieces",
           st_backend(), single ? "single" : "double", fast ? " fast-math" : "", (long long)differ,
           (long long)(2 * n));
  /* the state moved, and stayed finite */
  int moved = 0, finite = 1;
  for (int64_t i = 0; i < 2 * n; i++)
    finite &= isfinite(xa[i]) != 0;
  sdk_moments m[2];
  int64_t nf = -1;
  sdk_shard sh = {a.ens, 0, n};
  sdk_paths all = {.be = a.be, .nshards = 1, .shard = &sh, .ngrid = 1, .ppg = n, .nvars = 2};
  TU_CHECK(sdk_paths_moments(&all, m, &nf, &eb) == SDK_OK, "%s", eb.msg);
  moved = m[1].n == (double)n && m[1].m2 > 0;
  TU_CHECK(moved && finite && nf == 0, "josephson state: n=%g m2=%g nonfinite=%lld", m[1].n,
           m[1].m2, (long long)nf);
  /* the check between samples (backend nonfinite) counts what moments
   * count: NaN in x of paths 3 and 700, Inf in v of 3, 5 and 999 */
  double bad[3] = {NAN, INFINITY, -INFINITY};
  TU_CHECK(a.be->rows(a.ens, 0, 3, 1, &bad[0], 1, &eb) == SDK_OK &&
               a.be->rows(a.ens, 0, 700, 1, &bad[0], 1, &eb) == SDK_OK &&
               a.be->rows(a.ens, 1, 3, 1, &bad[1], 1, &eb) == SDK_OK &&
               a.be->rows(a.ens, 1, 5, 1, &bad[2], 1, &eb) == SDK_OK &&
               a.be->rows(a.ens, 1, 999, 1, &bad[1], 1, &eb) == SDK_OK,
           "%s", eb.msg);
  int64_t cnt[2] = {-1, -1}, nfm = -1, nfc = -1;
  TU_CHECK(a.be->nonfinite(a.ens, cnt, &eb) == SDK_OK, "%s", eb.msg);
  TU_CHECK(sdk_paths_moments(&all, m, &nfm, &eb) == SDK_OK, "%s", eb.msg);
  TU_CHECK(sdk_paths_nonfinite(&all, &nfc, &eb) == SDK_OK, "%s", eb.msg);
  TU_CHECK(cnt[0] == 2 && cnt[1] == 3 && nfm == 3 && nfc == 3,
           "%s nonfinite: x %lld, v %lld (want 2, 3); paths %lld and %lld (want 3)", st_backend(),
           (long long)cnt[0], (long long)cnt[1], (long long)nfm, (long long)nfc);
  free(xa);
  free(xb);
  direct_close(&a);
  direct_close(&b);
}

/* x' = x^2 from x = 10 reaches Inf by t = 0.1: the run must say so. */
static void check_blowup(int fast) {
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = st_model_file("[model]\nname = blowup\nvars = x\n[params]\ns = 0.1\n[drift]\nx = x*x\n"
                          "[noise]\nx = s\n[init]\nx = 10\n",
                          1);
  c.backend = st_backend();
  c.paths = 300;
  c.dt = 0.01;
  c.t_end = 1;
  c.fast_math = fast;
  c.observe = "moments";
  st_env(&c.env);
  sdk_errbuf eb = {0};
  sdk_run *r = NULL;
  sdk_err e = sdk_run_execute(&c, &r, &eb);
  TU_CHECK(e == SDK_ERR_NONFINITE, "%s blow-up (fast-math %d): got %s: %s", c.backend, fast,
           sdk_err_name(e), eb.msg);
  TU_CHECK(strstr(eb.msg, "of 300 paths") != NULL, "message: %s", eb.msg);
  sdk_run_destroy(&r);
}

static double rel(double a, double b) {
  double s = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
  return s > 0 ? fabs(a - b) / s : 0;
}

/* OU in double without fast-math on both backends: the same numbers. */
static void check_cpu_gpu_ou(void) {
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = st_model_file(OU_TEXT, 2);
  c.single = 0;
  c.fast_math = 0;
  c.scheme = "srk2";
  c.paths = 1000;
  c.dt = 0.001;
  c.t_end = 1.0; /* 1000 steps */
  c.sample_every = 125;
  c.observe = "moments,hist";
  c.obs.bins = 50;
  c.seed = 31337;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_scan_parse("k=0.5:2:4", &c.scan[0], &eb) == SDK_OK, "%s", eb.msg);
  c.nscan = 1;
  c.backend = "cpu";
  sdk_run *rc = st_run(&c);
  c.backend = "cuda";
  sdk_run *rg = st_run(&c);
  TU_CHECK(rc && rg, "OU runs");
  if (rc && rg) {
    const sdk_results *A = sdk_run_results(rc), *B = sdk_run_results(rg);
    const st_view *Av = st_view_of(A);
    const st_view *Bv = st_view_of(B);
    TU_CHECK(Av->nsamples == Bv->nsamples && Av->nsamples == 9, "samples %lld %lld",
             (long long)Av->nsamples, (long long)Bv->nsamples);
    double worst_m = 0, worst_v = 0;
    for (int64_t g = 0; g < A->ngrid; g++)
      for (int64_t s = 0; s < Av->nsamples; s++) {
        int64_t i = g * Av->nsamples + s;
        double rm = rel(Av->mean[i], Bv->mean[i]), rv = rel(Av->var[i], Bv->var[i]);
        if (rm > worst_m) worst_m = rm;
        if (rv > worst_v) worst_v = rv;
        TU_CHECK(rm <= 1e-9, "g=%lld step %lld: mean cpu %.17g cuda %.17g", (long long)g,
                 (long long)Av->sample_step[s], Av->mean[i], Bv->mean[i]);
        TU_CHECK(rv <= 1e-9, "g=%lld step %lld: var cpu %.17g cuda %.17g", (long long)g,
                 (long long)Av->sample_step[s], Av->var[i], Bv->var[i]);
      }
    printf("cpu vs cuda OU double: worst relative difference mean %.2e, var %.2e\n", worst_m,
           worst_v);
    /* histograms at the final step: ranges (min/max) and counts */
    int64_t moved = 0;
    for (int64_t g = 0; g < A->ngrid; g++) {
      TU_CHECK(rel(Av->hist_lo[g], Bv->hist_lo[g]) < 1e-9 &&
                   rel(Av->hist_hi[g], Bv->hist_hi[g]) < 1e-9,
               "g=%lld range cpu [%.17g, %.17g] cuda [%.17g, %.17g]", (long long)g, Av->hist_lo[g],
               Av->hist_hi[g], Bv->hist_lo[g], Bv->hist_hi[g]);
      double tot = 0;
      for (int64_t b = 0; b < Av->bins; b++) {
        double w = (Av->hist_hi[g] - Av->hist_lo[g]) / (double)Av->bins;
        double ca = Av->density[g * Av->bins + b] * (double)A->paths * w;
        double cb = Bv->density[g * Bv->bins + b] * (double)B->paths * w;
        moved += (int64_t)fabs(round(ca) - round(cb));
        tot += cb;
      }
      TU_CHECK(fabs(tot - (double)B->paths) < 0.5, "g=%lld: cuda histogram holds %g of %lld paths",
               (long long)g, tot, (long long)B->paths);
    }
    /* a value on a bin edge may fall either way after an ulp of difference */
    TU_CHECK(moved <= 4, "histogram counts differ by %lld", (long long)moved);
  }
  sdk_run_destroy(&rc);
  sdk_run_destroy(&rg);
  sdk_scan_free(&c.scan[0]);
}

/* Fixed histogram range narrower than the data: under/over agree. */
static void check_hist_range(void) {
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = st_model_file(OU_TEXT, 3);
  c.single = 0;
  c.fast_math = 0;
  c.paths = 5000;
  c.dt = 0.01;
  c.t_end = 1.0;
  c.observe = "hist";
  c.obs.bins = 10;
  c.obs.nhist_range = 1;
  snprintf(c.obs.hist_range_var[0], sizeof c.obs.hist_range_var[0], "x");
  c.obs.hist_range_lo[0] = -0.5;
  c.obs.hist_range_hi[0] = 0.5;
  c.backend = "cpu";
  sdk_run *rc = st_run(&c);
  c.backend = "cuda";
  sdk_run *rg = st_run(&c);
  TU_CHECK(rc && rg, "hist runs");
  if (rc && rg) {
    const sdk_results *A = sdk_run_results(rc), *B = sdk_run_results(rg);
    const st_view *Av = st_view_of(A);
    const st_view *Bv = st_view_of(B);
    TU_CHECK(Av->hist_under[0] > 0 && Av->hist_over[0] > 0, "range not narrower than the data");
    TU_CHECK(llabs((long long)Av->hist_under[0] - (long long)Bv->hist_under[0]) <= 1 &&
                 llabs((long long)Av->hist_over[0] - (long long)Bv->hist_over[0]) <= 1,
             "under cpu %llu cuda %llu, over cpu %llu cuda %llu",
             (unsigned long long)Av->hist_under[0], (unsigned long long)Bv->hist_under[0],
             (unsigned long long)Av->hist_over[0], (unsigned long long)Bv->hist_over[0]);
  }
  sdk_run_destroy(&rc);
  sdk_run_destroy(&rg);
}

/* The paper's model: <<v>>(a) within 5 combined standard errors. */
static void check_cpu_gpu_josephson(void) {
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = "josephson";
  c.paths = 4096;
  c.periods = 300;
  c.transient_periods = 100;
  c.spp = 100;
  c.seed = 5;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_scan_parse("a=4.2:9.2:3", &c.scan[0], &eb) == SDK_OK, "%s", eb.msg);
  c.nscan = 1;
  c.backend = "cpu";
  sdk_run *rc = st_run(&c);
  c.backend = "cuda";
  sdk_run *rg = st_run(&c);
  TU_CHECK(rc && rg, "josephson runs");
  if (rc && rg) {
    const sdk_results *A = sdk_run_results(rc), *B = sdk_run_results(rg);
    const st_view *Av = st_view_of(A);
    const st_view *Bv = st_view_of(B);
    for (int64_t g = 0; g < A->ngrid; g++) {
      double se = sqrt(Av->drift_err[g] * Av->drift_err[g] + Bv->drift_err[g] * Bv->drift_err[g]);
      char what[128];
      snprintf(what, sizeof what, "josephson <<v>>(a=%g) cpu vs cuda", A->scan[0].values[g]);
      TU_NEAR(Bv->drift[g], Av->drift[g], K_SIGMA * se + 1e-12, what);
      printf("josephson a=%-4g <<v>> cpu %.5f +- %.5f  cuda %.5f +- %.5f  (%+.2f se)\n",
             A->scan[0].values[g], Av->drift[g], Av->drift_err[g], Bv->drift[g], Bv->drift_err[g],
             se > 0 ? (Bv->drift[g] - Av->drift[g]) / se : 0.0);
    }
  }
  sdk_run_destroy(&rc);
  sdk_run_destroy(&rg);
  sdk_scan_free(&c.scan[0]);
}

int main(void) {
  st_require_backend();
  printf("backend: %s\n", st_backend());
  for (int single = 1; single >= 0; single--)
    for (int i = 0; sdk_registry_schemes[i]; i++)
      if (sdk_registry_schemes[i]->noise_kinds & SDK_NOISE_ADDITIVE)
        check_ou(sdk_registry_schemes[i], single);
  for (int fast = 0; fast < 2; fast++) {
    check_pieces(1, fast);
    check_pieces(0, fast);
  }
  check_blowup(1);
  check_blowup(0);
  if (!strcmp(st_backend(), "cuda")) {
    check_cpu_gpu_ou();
    check_hist_range();
    check_cpu_gpu_josephson();
  }
  return tu_finish("test_backends");
}
