/* Exact solutions: Ornstein-Uhlenbeck mean and variance (every registered
 * scheme, both precisions) and geometric Brownian motion's Ito mean (Euler).
 *
 * The tolerance is k = 5 standard errors of the estimate plus the known
 * time-discretisation bias of the scheme, computed exactly from the scheme's
 * linear recursion (for OU and GBM the discrete moments are closed form), so
 * the test checks the statistics, not the step size. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "simtest.h"
#include "testutil.h"

#define K_SIGMA 5.0

static void check_ou(const sdk_scheme_type *s, int single) {
  const char *scheme = s->name;
  const double k = 1.3, D = 0.4, x0 = 1.0, dt = 0.01;
  const char *model = st_model_file("[model]\nname = ou\nvars = x\n[params]\nk = 1.3\nD = 0.4\n"
                                    "[drift]\nx = -k*x\n[noise]\nx = sqrt(2*D)\n[init]\nx = 1\n",
                                    0);
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = model;
  c.backend = st_backend();
  c.scheme = scheme;
  c.single = single;
  c.paths = 1 << 18;
  c.dt = dt;
  c.t_end = 2.0;
  c.sample_every = 50;
  c.observe = "moments";
  c.seed = 12345;
  sdk_run *run = st_run(&c);
  TU_CHECK(run != NULL, "OU run (%s)", scheme);
  if (!run) return;
  const sdk_results *R = sdk_run_results(run);
  const st_view *Rv = st_view_of(R);
  TU_CHECK(Rv->nsamples == 5, "samples %lld", (long long)Rv->nsamples);
  /* one step: x' = a x + c w, w ~ N(0, 2 D dt) (the scheme's SRK table) */
  double a = NAN, cw = NAN;
  TU_CHECK(st_srk_linear(s, k, dt, &a, &cw), "%s: no SRK table", scheme);
  for (int64_t s = 1; s < Rv->nsamples; s++) {
    double n = (double)Rv->sample_step[s], t = n * dt;
    double m_exact = x0 * exp(-k * t), v_exact = D / k * (1 - exp(-2 * k * t));
    double m_disc = x0 * pow(a, n);
    double v_disc = cw * cw * 2 * D * dt * (1 - pow(a, 2 * n)) / (1 - a * a);
    double m = Rv->mean[s], v = Rv->var[s], N = (double)c.paths;
    double se_m = sqrt(v / N), se_v = v * sqrt(2 / (N - 1));
    char what[128];
    snprintf(what, sizeof what, "OU %s %s mean t=%g", scheme, single ? "single" : "double", t);
    TU_NEAR(m, m_exact, K_SIGMA * se_m + fabs(m_disc - m_exact), what);
    snprintf(what, sizeof what, "OU %s %s var t=%g", scheme, single ? "single" : "double", t);
    TU_NEAR(v, v_exact, K_SIGMA * se_v + fabs(v_disc - v_exact), what);
    printf("OU %-5s %-6s t=%.1f  mean %.6f exact %.6f (%+.2f se)  var %.6f exact %.6f (%+.2f se)\n",
           scheme, single ? "single" : "double", t, m, m_exact, (m - m_disc) / se_m, v, v_exact,
           (v - v_disc) / se_v);
  }
  sdk_run_destroy(&run);
}

static void check_gbm(int single) {
  const double mu = 0.5, sigma = 0.4, dt = 0.005;
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = "gbm";
  c.backend = st_backend();
  c.scheme = "euler";
  c.single = single;
  c.paths = 1 << 18;
  c.dt = dt;
  c.t_end = 1.0;
  c.sample_every = 100;
  c.observe = "moments";
  c.seed = 777;
  sdk_run *run = st_run(&c);
  TU_CHECK(run != NULL, "GBM run");
  if (!run) return;
  const sdk_results *R = sdk_run_results(run);
  const st_view *Rv = st_view_of(R);
  for (int64_t s = 1; s < Rv->nsamples; s++) {
    double n = (double)Rv->sample_step[s], t = n * dt;
    double m_exact = exp(mu * t);
    double v_exact = exp(2 * mu * t) * (exp(sigma * sigma * t) - 1);
    double m_disc = pow(1 + mu * dt, n);
    double v_disc = pow((1 + mu * dt) * (1 + mu * dt) + sigma * sigma * dt, n) - m_disc * m_disc;
    double m = Rv->mean[s], v = Rv->var[s], N = (double)c.paths;
    double se_m = sqrt(v / N);
    /* the variance of a sample variance needs the 4th moment; for the
     * log-normal it is large, so use a generous but computed bound:
     * Var(s^2) ~ (m4 - s^4)/N with m4 of the log-normal. */
    double s2 = sigma * sigma * t;
    double m4c = exp(4 * mu * t) * (exp(6 * s2) - 4 * exp(3 * s2) + 6 * exp(s2) - 3);
    double se_v = sqrt((m4c - v_exact * v_exact) / N);
    char what[128];
    snprintf(what, sizeof what, "GBM Ito mean t=%g", t);
    TU_NEAR(m, m_exact, K_SIGMA * se_m + fabs(m_disc - m_exact), what);
    snprintf(what, sizeof what, "GBM var t=%g", t);
    TU_NEAR(v, v_exact, K_SIGMA * se_v + fabs(v_disc - v_exact), what);
    /* the Stratonovich mean exp((mu + sigma^2/2) t) must be excluded */
    double strat = exp((mu + sigma * sigma / 2) * t);
    TU_CHECK(fabs(m - strat) > 10 * se_m, "GBM mean %g looks Stratonovich (%g)", m, strat);
    printf("GBM euler %s t=%.1f  mean %.6f exact(Ito) %.6f (%+.2f se)  Stratonovich %.6f\n",
           single ? "single" : "double", t, m, m_exact, (m - m_disc) / se_m, strat);
  }
  sdk_run_destroy(&run);
}

int main(void) {
  st_require_backend();
  for (int single = 1; single >= 0; single--)
    for (int i = 0; sdk_registry_schemes[i]; i++)
      if (sdk_registry_schemes[i]->noise_kinds & SDK_NOISE_ADDITIVE)
        check_ou(sdk_registry_schemes[i], single);
  check_gbm(1);
  check_gbm(0);
  return tu_finish("test_exact");
}
