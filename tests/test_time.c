/* Issue 10 item 11: t is the absolute time, also in a model that declares a
 * period.  dx = (c t + A cos(omega t)) dt + s dW has the exact mean
 *   x0 + c t^2 / 2 + (A / omega) sin(omega t)
 * and variance s^2 t; the test checks <x> at several times (up to eight
 * periods in) within K_SIGMA standard errors plus the scheme's own bias
 * (computed exactly: the drift depends on t alone, so the discrete mean is a
 * sum over the steps), on the backend of $SDK_TEST_BACKEND, both schemes and
 * precisions:
 *   a) period = 2*pi/omega: cos(omega*t) may use the phase time (the
 *      generator proves omega * period = 2 pi), the ramp c*t may not;
 *   b) period = 1, unrelated to omega: t is absolute everywhere.
 * The old code used t mod period everywhere and fails both by far.  The
 * generated source is also checked for where it uses which time.
 *   c) drive terms whose factor is scanned (A and B on a 2 x 2 grid), which
 *      the CUDA kernel joins to the sum by one FMA each (expr_emit.c,
 *      drive_term): dx = (A cos(omega t) - B sin(omega t) [+ REST]) dt + s dW
 *      with REST a constant, none, or a constant and a time-only term (the
 *      three ways the sum's invariant part is formed), each grid point's mean
 *      against its own exact discrete mean; and the CUDA source has the
 *      FMAs (a negative drive's with its factor negated). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simtest.h"
#include "testutil.h"

#define K_SIGMA 5.0

static const double C = 0.3, A = 0.7, OMEGA = 5.0, S = 0.2, X0 = 1.0;

static double f(double t) {
  return C * t + A * cos(OMEGA * t);
}

static void check(const char *model, const char *label, const sdk_scheme_type *sch, int single,
                  int64_t spp, int64_t periods) {
  const char *scheme = sch->name;
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = model;
  c.backend = st_backend();
  c.scheme = scheme;
  c.single = single;
  c.paths = 1 << 16;
  c.spp = spp;
  c.periods = periods;
  c.observe = "moments";
  c.seed = 2024;
  c.quiet = 1;
  sdk_run *run = st_run(&c);
  TU_CHECK(run != NULL, "%s run", label);
  if (!run) return;
  const sdk_results *R = sdk_run_results(run);
  const st_view *Rv = st_view_of(R);
  double dt = R->dt[0];
  const sdk_srk_table *tab = sdk_scheme_additive_form(sch);
  TU_CHECK(tab != NULL, "%s: no SRK table", scheme);
  if (!tab) return;
  TU_CHECK(Rv->nsamples >= 4, "%s: %lld samples", label, (long long)Rv->nsamples);
  /* the discrete mean: x_{n+1} = x_n + dt sum_i alpha_i f(t_n + c_i dt),
   * t_n = n dt (Euler: dt f(t_n); Heun: dt (f(t_n) + f(t_{n+1})) / 2) */
  double mdisc = X0;
  int64_t n = 0;
  for (int64_t s = 0; s < Rv->nsamples; s++) {
    for (; n < Rv->sample_step[s]; n++) {
      for (int i = 0; i < sch->stages; i++)
        mdisc += dt * tab->alpha[i] * f(((double)n + tab->c[i]) * dt);
    }
    if (s == 0) continue;
    double t = (double)Rv->sample_step[s] * dt;
    double exact = X0 + C * t * t / 2 + A / OMEGA * sin(OMEGA * t);
    double se = sqrt(S * S * t / (double)c.paths);
    /* single precision: the state's rounding, a few ulp of |x| per step */
    double fp = single ? 4.0 * 6e-8 * fabs(exact) * sqrt((double)Rv->sample_step[s]) : 0;
    double m = Rv->mean[s];
    char what[160];
    snprintf(what, sizeof what, "%s %s %s <x>(t=%.3f)", label, scheme, single ? "single" : "double",
             t);
    TU_NEAR(m, exact, K_SIGMA * se + fabs(mdisc - exact) + fp, what);
    printf("%-10s %-5s %-6s t=%7.3f  <x> %.7f exact %.7f (%+.2f se, scheme bias %.2g)\n", label,
           scheme, single ? "single" : "double", t, m, exact, (m - mdisc) / se, mdisc - exact);
  }
  sdk_run_destroy(&run);
}

/* Which time each part of the drift uses in the generated CPU source. */
static void check_source(const char *model, const char *label, int expect_phase) {
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = model;
  c.spp = 50;
  c.periods = 2;
  c.single = 0;
  char *src = NULL;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_run_codegen(&c, &sdk_backend_cpu, &src, &eb) == SDK_OK, "%s codegen: %s", label,
           eb.msg);
  if (!src) return;
  TU_CHECK(strstr(src, "(u_c * sdk_t)") != NULL, "%s: the ramp uses the absolute time", label);
  int phase = strstr(src, "cos((u_omega * sdk_tp))") != NULL;
  int abs = strstr(src, "cos((u_omega * sdk_t))") != NULL;
  TU_CHECK(phase == expect_phase && abs == !expect_phase, "%s: the drive uses the %s time", label,
           expect_phase ? "phase" : "absolute");
  free(src);
}

/* A sum's time-only terms combined into one table value (hoisted first)
 * with fast math; with --no-fast-math the sum in its written order (docs/
 * MODEL.md), its time-only term still from the table (a review). */
static void check_order(void) {
  const char *m = st_model_file("[model]\nname = order\nvars = x\nperiod = 2*pi/omega\n"
                                "[params]\nA = 0.7\nc = 0.4\nomega = 5\ns = 0.2\n[drift]\n"
                                "x = -x + A*cos(omega*t) + c\n[noise]\nx = s\n[init]\nx = 1\n",
                                3);
  for (int fast = 0; fast < 2; fast++) {
    sdk_run_config c;
    sdk_run_config_defaults(&c);
    c.model = m;
    c.spp = 50;
    c.periods = 2;
    c.single = 0;
    c.fast_math = fast;
    char *src = NULL;
    sdk_errbuf eb = {0};
    TU_CHECK(sdk_run_codegen(&c, &sdk_backend_cpu, &src, &eb) == SDK_OK, "order codegen: %s",
             eb.msg);
    int first = src && strstr(src, "(sdk_T0_0 - (u_x))") != NULL;
    int written = src && strstr(src, "(((-u_x) + sdk_T0_0) + u_c)") != NULL;
    TU_CHECK(fast ? first && !written : written && !first, "%s: the sum %s",
             fast ? "fast math" : "--no-fast-math",
             fast ? "with its time-only terms combined first" : "in its written order");
    free(src);
  }
  unlink(m);
}

/* c): drift A cos(omega t) - B sin(omega t) + rest(t) */
static double rest_of(int kind, double t) {
  return kind == 0 ? 0.4 : kind == 1 ? 0.0 : 0.4 + 0.3 * cos(2 * OMEGA * t);
}

static void check_drives(int kind, const sdk_scheme_type *sch, int single) {
  static const char *rest[3] = {" + c", "", " + c + 0.3*cos(2*omega*t)"};
  char text[512];
  snprintf(text, sizeof text,
           "[model]\nname = drives\nvars = x\nperiod = 2*pi/omega\n[params]\nA = 0.7\n"
           "B = 0.4\nc = 0.4\nomega = 5\ns = 0.2\n[drift]\nx = A*cos(omega*t) - "
           "B*sin(omega*t)%s\n[noise]\nx = s\n[init]\nx = 1\n",
           rest[kind]);
  const char *model = st_model_file(text, 2);
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = model;
  c.backend = st_backend();
  c.scheme = sch->name;
  c.single = single;
  c.paths = 1 << 14;
  c.spp = 100;
  c.periods = 4;
  c.sample_every = 100;
  c.observe = "moments";
  c.seed = 7;
  c.quiet = 1;
  c.nscan = 2;
  snprintf(c.scan[0].name, sizeof c.scan[0].name, "A");
  c.scan[0].start = 0.7, c.scan[0].stop = 1.3, c.scan[0].n = 2;
  snprintf(c.scan[1].name, sizeof c.scan[1].name, "B");
  c.scan[1].start = 0.4, c.scan[1].stop = -0.9, c.scan[1].n = 2;
  char label[64];
  snprintf(label, sizeof label, "drives%d %s %s", kind, sch->name, single ? "single" : "double");
  if (kind == 0 && !single) {
    char *src = NULL;
    sdk_errbuf eb = {0};
    TU_CHECK(sdk_run_codegen(&c, &sdk_backend_cuda, &src, &eb) == SDK_OK, "%s: CUDA codegen: %s",
             label, eb.msg);
    TU_CHECK(src && strstr(src, "__fma_rn(-(u_B), (sdk_T") && strstr(src, "__fma_rn((u_A), (sdk_T"),
             "%s: the CUDA source joins each drive by an FMA", label);
    free(src);
    /* --no-fast-math: the sum as written, no FMA (docs/MODEL.md; a review) */
    src = NULL;
    c.fast_math = 0;
    TU_CHECK(sdk_run_codegen(&c, &sdk_backend_cuda, &src, &eb) == SDK_OK, "%s: CUDA codegen: %s",
             label, eb.msg);
    TU_CHECK(src && strstr(src, "(u_A * sdk_T") && !strstr(src, "__fma_rn(-(u_B)") &&
                 !strstr(src, "__fma_rn((u_A)"),
             "%s --no-fast-math: the drives as written, no FMA", label);
    free(src);
    c.fast_math = 1;
  }
  sdk_run *run = st_run(&c);
  TU_CHECK(run != NULL, "%s run", label);
  if (!run) return;
  const sdk_results *R = sdk_run_results(run);
  const st_view *Rv = st_view_of(R);
  const double *mean = st_f64(R, "moments/mean_x");
  const sdk_srk_table *tab = sdk_scheme_additive_form(sch);
  TU_CHECK(mean && tab && R->ngrid == 4, "%s: results", label);
  double dt = R->dt[0], worst = 0;
  for (int64_t g = 0; mean && tab && g < 4; g++) {
    const double a = g / 2 ? 1.3 : 0.7, b = g % 2 ? -0.9 : 0.4;
    double mdisc = X0;
    int64_t n = 0;
    for (int64_t k = 0; k < Rv->nsamples; k++) {
      for (; n < Rv->sample_step[k]; n++)
        for (int i = 0; i < sch->stages; i++) {
          const double t = ((double)n + tab->c[i]) * dt;
          mdisc +=
              dt * tab->alpha[i] * (a * cos(OMEGA * t) - b * sin(OMEGA * t) + rest_of(kind, t));
        }
      const double t = (double)Rv->sample_step[k] * dt;
      const double se = sqrt(S * S * t / (double)c.paths);
      const double fp = single ? 4.0 * 6e-8 * (fabs(mdisc) + 1) * sqrt((double)n) : 0;
      const double m = mean[g * Rv->nsamples + k];
      char what[160];
      snprintf(what, sizeof what, "%s A=%g B=%g <x>(t=%.3f)", label, a, b, t);
      TU_NEAR(m, mdisc, K_SIGMA * se + fp + 1e-12, what);
      if (se > 0 && fabs(m - mdisc) / se > worst) worst = fabs(m - mdisc) / se;
    }
  }
  printf("%-28s 4 grid points, largest |<x> - exact discrete mean| %.2f se\n", label, worst);
  sdk_run_destroy(&run);
  unlink(model);
}

int main(void) {
  st_require_backend();
  const char *a = st_model_file("[model]\nname = ramp\nvars = x\nperiod = 2*pi/omega\n"
                                "[params]\nc = 0.3\nA = 0.7\nomega = 5\ns = 0.2\n"
                                "[drift]\nx = c*t + A*cos(omega*t)\n[noise]\nx = s\n"
                                "[init]\nx = 1\n",
                                0);
  const char *b = st_model_file("[model]\nname = ramp1\nvars = x\nperiod = 1\n"
                                "[params]\nc = 0.3\nA = 0.7\nomega = 5\ns = 0.2\n"
                                "[drift]\nx = c*t + A*cos(omega*t)\n[noise]\nx = s\n"
                                "[init]\nx = 1\n",
                                1);
  TU_CHECK(a && b, "model files");
  if (!a || !b) return tu_finish("test_time");
  check_source(a, "2pi/omega", 1);
  check_source(b, "period 1", 0);
  check_order();
  for (int single = 0; single < 2; single++)
    for (int s = 0; sdk_registry_schemes[s]; s++) {
      check(a, "2pi/omega", sdk_registry_schemes[s], single, 200, 8);
      check(b, "period 1", sdk_registry_schemes[s], single, 200, 10);
    }
  for (int kind = 0; kind < 3; kind++)
    for (int single = 0; single < 2; single++) {
      check_drives(kind, sdk_find_scheme("euler"), single);
      check_drives(kind, sdk_find_scheme("srk2"), single);
    }
  unlink(a);
  unlink(b);
  return tu_finish("test_time");
}
