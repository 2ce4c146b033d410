/* Standard errors and second-order statistics against exact answers:
 * moments/mean_err_VAR (the standard error of the mean), and the
 * observables cov and diffusion.
 *
 * The exact answers are those of the Euler recursion of linear SDEs
 * (closed form, no time-discretisation bias to allow for); tolerances are
 * K_SIGMA standard errors, and the reported standard errors are themselves
 * checked against the scatter of the estimates over independent seeds. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "simtest.h"
#include "testutil.h"

#define K_SIGMA 5.0
#define NSEEDS 20

static const char *OU_MODEL = "[model]\nname = ou\nvars = x\n[params]\nk = 1.3\nD = 0.4\n"
                              "[drift]\nx = -k*x\n[noise]\nx = sqrt(2*D)\n[init]\nx = 1\n";

static const double *ds(const sdk_results *R, const char *path, int64_t want) {
  const sdk_dataset *d = sdk_store_find(&R->store, path);
  TU_CHECK(d != NULL, "no dataset %s", path);
  if (!d) return NULL;
  TU_CHECK(sdk_ds_count(d) == want, "%s: %lld values, want %lld", path, (long long)sdk_ds_count(d),
           (long long)want);
  return sdk_ds_count(d) == want ? sdk_ds_f64(d) : NULL;
}

static void ou_config(sdk_run_config *c, int64_t paths, uint64_t seed) {
  sdk_run_config_defaults(c);
  c->model = st_model_file(OU_MODEL, 0);
  c->backend = st_backend();
  c->scheme = "euler";
  c->paths = paths;
  c->dt = 0.01;
  c->t_end = 2.0;
  c->sample_every = 50;
  c->observe = "moments";
  c->seed = seed;
}

/* Bounds of chi^2 / nu at z standard deviations (Wilson-Hilferty). */
static void chi2_bounds(double nu, double z, double *lo, double *hi) {
  double a = 1 - 2 / (9 * nu), b = z * sqrt(2 / (9 * nu));
  *lo = pow(a - b, 3);
  *hi = pow(a + b, 3);
}

/* OU, Euler: mean x0 a^n with a = 1 - k dt. */
static void check_mean_error(void) {
  const double k = 1.3, dt = 0.01, x0 = 1.0;
  const int64_t N = 4096, NS = 5;
  double chi2 = 0, nu = 0;
  for (int seed = 0; seed <= NSEEDS; seed++) {
    sdk_run_config c;
    ou_config(&c, N, 1000 + (uint64_t)seed);
    sdk_run *run = st_run(&c);
    TU_CHECK(run != NULL, "OU run seed %d", seed);
    if (!run) return;
    const sdk_results *R = sdk_run_results(run);
    const double *m = ds(R, "moments/mean_x", NS), *v = ds(R, "moments/var_x", NS),
                 *e = ds(R, "moments/mean_err_x", NS), *t = ds(R, "moments/t", NS);
    const sdk_dataset *dm = sdk_store_find(&R->store, "moments/mean_x");
    if (!m || !v || !e || !t || !dm) return;
    const sdk_attr *a = NULL;
    for (int i = 0; i < dm->nattr; i++)
      if (!strcmp(dm->attr[i].name, "standard_error")) a = &dm->attr[i];
    TU_CHECK(a && a->kind == SDK_ATTR_STR && !strcmp(a->s, "mean_err_x"),
             "mean_x's standard_error attribute");
    for (int64_t s = 1; s < NS; s++) {
      double n = t[s] / dt + 0.5, exact = x0 * pow(1 - k * dt, floor(n));
      TU_NEAR(e[s], sqrt(v[s] / (double)N), 1e-15 * e[s], "mean_err_x = sqrt(var_x / n)");
      if (seed == 0) {
        TU_NEAR(m[s], exact, K_SIGMA * e[s], "OU mean within 5 standard errors");
        printf("OU t=%.1f mean %.6f exact %.6f se %.3g (%+.2f se)\n", t[s], m[s], exact, e[s],
               (m[s] - exact) / e[s]);
      } else {
        chi2 += (m[s] - exact) * (m[s] - exact) / (e[s] * e[s]);
        nu += 1;
      }
    }
    sdk_run_destroy(&run);
  }
  /* the samples of one seed are correlated: count the seeds' degrees of
   * freedom only (the conservative side) */
  double lo, hi;
  chi2_bounds(NSEEDS, 4.0, &lo, &hi);
  printf("mean over %d seeds: chi2/nu = %.3f (accepted %.3f .. %.3f)\n", NSEEDS, chi2 / nu, lo, hi);
  TU_CHECK(chi2 / nu > lo && chi2 / nu < hi, "scatter of the mean over %d seeds: chi2/nu %.3f",
           NSEEDS, chi2 / nu);
}

/* x' = v, v' = -g v + sigma xi (Euler): the covariance recursion of
 * x_{n+1} = x_n + v_n dt, v_{n+1} = b v_n + sigma dW (b = 1 - g dt) from a
 * fixed start, iterated exactly. */
static void langevin_cov(int64_t steps, double g, double sigma, double dt, double *vx, double *cxv,
                         double *vv) {
  double b = 1 - g * dt, X = 0, C = 0, V = 0;
  for (int64_t n = 0; n < steps; n++) {
    double X1 = X + 2 * dt * C + dt * dt * V, C1 = b * C + b * dt * V;
    V = b * b * V + sigma * sigma * dt;
    X = X1;
    C = C1;
  }
  *vx = X, *cxv = C, *vv = V;
}

static double cov_seen[2][5 * 4 * 2];

static void check_cov(int shards, double *seen) {
  const double g = 0.7, sigma = 0.9, dt = 0.01;
  const int64_t NS = 5, N = 20000;
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = st_model_file("[model]\nname = langevin\nvars = x, v\n[params]\ng = 0.7\n"
                          "sigma = 0.9\n[drift]\nx = v\nv = -g*v\n[noise]\nv = sigma\n"
                          "[init]\nx = 0.5\nv = 1\n",
                          1);
  c.backend = st_backend();
  c.scheme = "euler";
  c.paths = N;
  c.dt = dt;
  c.t_end = 2.0;
  c.sample_every = 50;
  c.observe = "cov,moments";
  c.seed = 4242;
  c.shards = shards;
  sdk_run *run = st_run(&c);
  TU_CHECK(run != NULL, "Langevin run");
  if (!run) return;
  const sdk_results *R = sdk_run_results(run);
  const double *val = ds(R, "cov/value", NS * 4), *err = ds(R, "cov/error", NS * 4),
               *t = ds(R, "cov/t", NS), *var_v = ds(R, "moments/var_v", NS);
  if (val && err) {
    memcpy(seen, val, NS * 4 * sizeof *val);
    memcpy(seen + NS * 4, err, NS * 4 * sizeof *err);
  }
  if (val && err && t && var_v)
    for (int64_t s = 1; s < NS; s++) {
      double want[3];
      langevin_cov((int64_t)(t[s] / dt + 0.5), g, sigma, dt, &want[0], &want[1], &want[2]);
      const int at[3] = {0, 1, 3};
      const char *nm[3] = {"var x", "cov x v", "var v"};
      for (int k = 0; k < 3; k++) {
        double got = val[s * 4 + at[k]], se = err[s * 4 + at[k]];
        char what[96];
        snprintf(what, sizeof what, "Langevin %s t=%g (shards %d)", nm[k], t[s], shards);
        TU_NEAR(got, want[k], K_SIGMA * se, what);
        printf("%s: %.6f exact %.6f se %.3g (%+.2f se)\n", what, got, want[k], se,
               (got - want[k]) / se);
      }
      TU_CHECK(val[s * 4 + 1] == val[s * 4 + 2] && err[s * 4 + 1] == err[s * 4 + 2],
               "cov matrix symmetric");
      TU_NEAR(val[s * 4 + 3], var_v[s], 1e-12 * var_v[s], "cov v,v = moments' var_v");
      /* the standard error of a variance: sqrt((mu4 - var^2) / n), for a
       * Gaussian sqrt(2 / n) var */
      TU_NEAR(err[s * 4 + 3], sqrt(2.0 / N) * val[s * 4 + 3], 0.1 * sqrt(2.0 / N) * val[s * 4 + 3],
              "cov error of var v, Gaussian");
    }
  sdk_run_destroy(&run);
}

/* Free Brownian motion dy = sqrt(2 D) dW from a point: var = 2 D t exactly
 * under Euler, so D_eff = D; x, an OU process, is the drift's variable in
 * the same run.  Then OU alone: D_eff = the Euler-recursion variance / 2t. */
static void check_diffusion(void) {
  const double D = 0.3, k = 1.3, Dou = 0.4, dt = 0.01;
  const int64_t NS = 5, N = 1 << 14;
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = st_model_file("[model]\nname = bm\nvars = x, y\n[params]\nk = 1.3\nD = 0.3\n"
                          "[drift]\nx = -k*x + 1\ny = 0\n[noise]\nx = 0.1\ny = sqrt(2*D)\n"
                          "[init]\nx = 0\ny = 2\n",
                          2);
  c.backend = st_backend();
  c.scheme = "euler";
  c.paths = N;
  c.dt = dt;
  c.t_end = 2.0;
  c.sample_every = 50;
  c.observe = "drift,diffusion";
  c.obs.drift_var = "x";
  c.obs.diffusion_var = "y";
  c.seed = 99;
  sdk_run *run = st_run(&c);
  TU_CHECK(run != NULL, "BM run");
  if (!run) return;
  const sdk_results *R = sdk_run_results(run);
  const double *Dt = ds(R, "diffusion/D", NS), *Et = ds(R, "diffusion/D_err", NS),
               *val = ds(R, "diffusion/value", 1), *err = ds(R, "diffusion/error", 1),
               *drift = ds(R, "drift/value", 1);
  if (Dt && Et && val && err && drift) {
    TU_CHECK(isnan(Dt[0]), "D_eff at t = 0 is NaN");
    for (int64_t s = 1; s < NS; s++) {
      TU_NEAR(Dt[s], D, K_SIGMA * Et[s], "BM D_eff(t) = D");
      /* Gaussian: the standard error of var / 2t is sqrt(2 / n) D */
      TU_NEAR(Et[s], sqrt(2.0 / N) * D, 0.1 * sqrt(2.0 / N) * D, "BM D_eff standard error");
    }
    TU_CHECK(val[0] == Dt[NS - 1] && err[0] == Et[NS - 1], "long-time value = last sample");
    TU_NEAR(val[0], D, K_SIGMA * err[0], "BM long-time D_eff");
    /* <<x'>> of x' = -k x + 1 from 0 over [0, 2]: (1 - exp(-2k)) / k / 2 */
    TU_NEAR(drift[0], (1 - exp(-2 * k)) / k / 2.0, 0.01, "drift in the same run");
    printf("BM D_eff %.5f +- %.5f (D = %g), drift %.5f\n", val[0], err[0], D, drift[0]);
  }
  sdk_run_destroy(&run);

  /* a start that differs from path to path: D_eff(t) measures the
   * displacement, var(x(t) - x(0)) / 2t = D, not var x(t) / 2t, which the
   * start's variance 9 raised to D + 9 / 2t (5.0 at t = 1) */
  c.model = st_model_file("[model]\nname = bm0\nvars = x\n[params]\nD = 0.3\n[drift]\nx = 2\n"
                          "[noise]\nx = sqrt(2*D)\n[init]\nx = normal(0, 3)\n",
                          2);
  c.obs.drift_var = c.obs.diffusion_var = NULL;
  c.observe = "diffusion";
  c.t_end = 1.0;
  c.sample_every = 25;
  run = st_run(&c);
  TU_CHECK(run != NULL, "BM run from a random start");
  if (!run) return;
  R = sdk_run_results(run);
  Dt = ds(R, "diffusion/D", NS), Et = ds(R, "diffusion/D_err", NS);
  for (int64_t s = 1; Dt && Et && s < NS; s++)
    TU_NEAR(Dt[s], D, K_SIGMA * Et[s], "BM from normal(0, 3): D_eff(t) = D");
  if (Dt && Et)
    printf("BM from normal(0, 3): D_eff(1) %.5f +- %.5f (D = %g)\n", Dt[NS - 1], Et[NS - 1], D);
  sdk_run_destroy(&run);

  ou_config(&c, N, 5);
  c.observe = "diffusion";
  run = st_run(&c);
  TU_CHECK(run != NULL, "OU run");
  if (!run) return;
  R = sdk_run_results(run);
  Dt = ds(R, "diffusion/D", NS), Et = ds(R, "diffusion/D_err", NS);
  const double *t = ds(R, "diffusion/t", NS);
  if (Dt && Et && t)
    for (int64_t s = 1; s < NS; s++) {
      double n = floor(t[s] / dt + 0.5), a = 1 - k * dt;
      double var = 2 * Dou * dt * (1 - pow(a, 2 * n)) / (1 - a * a);
      TU_NEAR(Dt[s], var / (2 * t[s]), K_SIGMA * Et[s], "OU D_eff = Euler variance / 2t");
      printf("OU D_eff t=%.1f %.5f exact %.5f (%+.2f se)\n", t[s], Dt[s], var / (2 * t[s]),
             (Dt[s] - var / (2 * t[s])) / Et[s]);
    }
  sdk_run_destroy(&run);
}

/* A two-parameter scan of OU (k slow, D fast): every grid point's D_eff
 * against its own Euler variance, and cov's one entry against moments' var
 * (the datasets' grid indexing). */
static void check_scan(void) {
  const double dt = 0.01;
  const int64_t NS = 5, N = 4096;
  sdk_run_config c;
  ou_config(&c, N, 77);
  c.observe = "moments,cov,diffusion";
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_scan_parse("k=0.5:2:3", &c.scan[0], &eb) == SDK_OK, "%s", eb.msg);
  TU_CHECK(sdk_scan_parse("D=0.1:0.4:2", &c.scan[1], &eb) == SDK_OK, "%s", eb.msg);
  c.nscan = 2;
  sdk_run *run = st_run(&c);
  TU_CHECK(run != NULL, "OU scan run");
  if (run) {
    const sdk_results *R = sdk_run_results(run);
    const double *Dt = ds(R, "diffusion/D", 6 * NS), *Et = ds(R, "diffusion/D_err", 6 * NS),
                 *t = ds(R, "diffusion/t", 6 * NS), *cv = ds(R, "cov/value", 6 * NS),
                 *var = ds(R, "moments/var_x", 6 * NS);
    for (int64_t g = 0; g < 6 && Dt && Et && t && cv && var; g++) {
      double k = 0.5 + 0.75 * (double)(g / 2), D = g % 2 ? 0.4 : 0.1, a = 1 - k * dt;
      for (int64_t s = 1; s < NS; s++) {
        int64_t i = g * NS + s;
        double n = floor(t[i] / dt + 0.5);
        double v = 2 * D * dt * (1 - pow(a, 2 * n)) / (1 - a * a);
        TU_NEAR(Dt[i], v / (2 * t[i]), K_SIGMA * Et[i], "scan: OU D_eff at its grid point");
        TU_NEAR(cv[i], var[i], 1e-12 * var[i], "scan: cov x,x = var_x");
      }
    }
  }
  sdk_scan_free(&c.scan[0]);
  sdk_scan_free(&c.scan[1]);
  sdk_run_destroy(&run);
}

int main(void) {
  st_require_backend();
  check_mean_error();
  check_cov(1, cov_seen[0]);
  check_cov(3, cov_seen[1]);
  TU_CHECK(!memcmp(cov_seen[0], cov_seen[1], sizeof cov_seen[0]),
           "cov: 1 and 3 shards differ (the reduction must be in chunk order)");
  check_diffusion();
  check_scan();
  return tu_finish("test_errors");
}
