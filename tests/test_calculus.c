/* Ito and Stratonovich ([model] calculus, --calculus) against exact answers.
 *
 * Geometric Brownian motion dS = mu S dt + sigma S dW with S(0) = 1 in
 * either calculus, integrated by euler (Ito; a Stratonovich model gets the
 * drift mu + sigma^2/2) and by srk2 (stochastic Heun, Stratonovich; an Ito
 * model gets mu - sigma^2/2).  For GBM every step of both schemes multiplies
 * S by an independent random factor R with the drift coefficient m of the
 * equation the scheme integrates, a = m dt and s = sigma dW (E s^2 = v =
 * sigma^2 dt, E s^4 = 3 v^2):
 *   euler: R = 1 + a + s                         E R = 1 + a,
 *                                                E R^2 = (1 + a)^2 + v
 *   Heun:  R = A + B s + s^2 / 2, A = 1 + a + a^2/2, B = 1 + a
 *                                                E R = A + v/2,
 *                                                E R^2 = A^2 + (B^2 + A) v + 3 v^2 / 4
 *   milstein (Ito, as euler): R = 1 + a + s + (s^2 - v) / 2
 *                                                E R = 1 + a,
 *                                                E R^2 = (1 + a)^2 + v + v^2 / 2
 * so E S_N = (E R)^N and E S_N^2 = (E R^2)^N exactly, at any dt: the runs'
 * means of S and S^2 must match them within 4 standard errors, with no
 * discretisation bias to allow for.  The two calculi's answers differ by
 * many standard errors (the test could not pass with the wrong one), and
 * for t -> 0 they tend to exp(mu t) (Ito) and exp((mu + sigma^2/2) t).
 * Also: additive noise means the same in both calculi (bitwise the same
 * results); [model] calculus and --calculus agree bitwise; a noise the
 * grammar cannot differentiate is refused with a scheme that can named; a
 * bad [model] calculus is refused with its line. */
#include <math.h>
#include <string.h>

#include "simtest.h"
#include "testutil.h"

static const char GBM[] = "[model]\nname = gbm_c\nvars = S\n%s[params]\nmu = 0.5\nsigma = 0.4\n"
                          "[drift]\nS = mu*S\n[noise]\nS = sigma*S\n[init]\nS = 1\n"
                          "[observe]\nS2 = S*S\n";

static void config(sdk_run_config *c, const char *model, const char *scheme) {
  sdk_run_config_defaults(c);
  c->backend = st_backend();
  c->model = model;
  c->scheme = scheme;
  c->single = 0;
  c->paths = 100000;
  c->dt = 0.01;
  c->t_end = 1;
  c->sample_every = 100;
  c->observe = "moments,expr";
  c->seed = 11;
}

/* E S_N and E S_N^2 of the scheme's recursion (above); heun 2: milstein */
static void exact(int heun, int strat_model, double dt, int64_t n, double *m1, double *m2) {
  int mil = heun == 2;
  if (mil) heun = 0;
  double mu = 0.5, sg = 0.4, v = sg * sg * dt;
  /* the drift the scheme integrates */
  double m = heun ? (strat_model ? mu : mu - sg * sg / 2) : (strat_model ? mu + sg * sg / 2 : mu);
  double a = m * dt, er, er2;
  if (heun) {
    double A = 1 + a + a * a / 2, B = 1 + a;
    er = A + v / 2;
    er2 = A * A + (B * B + A) * v + 0.75 * v * v;
  } else {
    er = 1 + a;
    er2 = (1 + a) * (1 + a) + v + (mil ? v * v / 2 : 0);
  }
  *m1 = pow(er, (double)n);
  *m2 = pow(er2, (double)n);
}

static void check_gbm(const char *scheme, int strat, int by_option) {
  char text[512];
  snprintf(text, sizeof text, GBM, strat && !by_option ? "calculus = stratonovich\n" : "");
  sdk_run_config c;
  config(&c, st_model_file(text, 0), scheme);
  if (by_option) c.calculus = strat ? SDK_CALCULUS_STRATONOVICH : SDK_CALCULUS_ITO;
  sdk_run *r = st_run(&c);
  const char *cal = strat ? "stratonovich" : "ito";
  TU_CHECK(r != NULL, "GBM %s with %s", cal, scheme);
  if (!r) return;
  const sdk_results *R = sdk_run_results(r);
  const double *m = sdk_results_f64(R, "moments/mean_S"),
               *me = sdk_results_f64(R, "moments/mean_err_S");
  const double *q = sdk_results_f64(R, "expr/mean_S2"), *qe = sdk_results_f64(R, "expr/err_S2");
  const sdk_dataset *st = sdk_store_find(&R->store, "moments/step");
  TU_CHECK(m && me && q && qe && st, "datasets");
  if (!(m && me && q && qe && st)) {
    sdk_run_destroy(&r);
    return;
  }
  int heun = !strcmp(scheme, "srk2") ? 1 : !strcmp(scheme, "milstein") ? 2 : 0;
  double worst = 0, other = 0;
  int64_t ns = st->dims[0];
  for (int64_t j = 1; j < ns; j++) {
    int64_t n = sdk_ds_i64(st)[j];
    double m1, m2, o1, o2;
    exact(heun, strat, c.dt, n, &m1, &m2);
    exact(heun, !strat, c.dt, n, &o1, &o2);
    worst = fmax(worst, fmax(fabs(m[j] - m1) / me[j], fabs(q[j] - m2) / qe[j]));
    other = fmax(other, fabs(m[j] - o1) / me[j]);
  }
  int64_t last = ns - 1;
  double m1, m2;
  exact(heun, strat, c.dt, sdk_ds_i64(st)[last], &m1, &m2);
  printf("%s, %s%s: E S(1) %.6f +- %.6f (exact %.6f), E S^2 %.6f +- %.6f (exact %.6f); "
         "worst %.2f se; the other calculus %.1f se away\n",
         scheme, cal, by_option ? " (--calculus)" : "", m[last], me[last], m1, q[last], qe[last],
         m2, worst, other);
  TU_CHECK(worst < 4,
           "%s, %s: E S and E S^2 within 4 standard errors of the exact recursion "
           "(worst %.2f)",
           scheme, cal, worst);
  TU_CHECK(other > 20, "%s, %s: the other calculus's answer is far off (%.1f se)", scheme, cal,
           other);
  TU_CHECK(R->calculus && !strcmp(R->calculus, cal), "results record calculus %s (%s)", cal,
           R->calculus ? R->calculus : "none");
  sdk_run_destroy(&r);
}

/* two runs' datasets bitwise equal */
static int same_results(sdk_run *a, sdk_run *b) {
  const sdk_results *A = sdk_run_results(a), *B = sdk_run_results(b);
  int ok = A->store.n == B->store.n && A->store.n > 0;
  for (int i = 0; ok && i < A->store.n; i++) {
    const sdk_dataset *x = A->store.ds[i], *y = sdk_store_find(&B->store, x->path);
    ok = y && sdk_ds_count(x) == sdk_ds_count(y) &&
         !memcmp(x->data, y->data, 8 * (size_t)sdk_ds_count(x));
  }
  return ok;
}

static void check_additive(void) {
  static const char OU[] = "[model]\nname = ou_c\nvars = x\n%s[params]\nk = 1\n[drift]\nx = -k*x\n"
                           "[noise]\nx = 0.5 + 0*t\n[init]\nx = 1\n";
  for (int s = 0; s < 2; s++) {
    const char *scheme = s ? "srk2" : "euler";
    char t1[256], t2[256];
    snprintf(t1, sizeof t1, OU, "");
    snprintf(t2, sizeof t2, OU, "calculus = stratonovich\n");
    sdk_run_config c;
    config(&c, st_model_file(t1, 1), scheme);
    c.paths = 5000;
    c.observe = "moments";
    sdk_run *a = st_run(&c);
    c.model = st_model_file(t2, 2);
    sdk_run *b = st_run(&c);
    TU_CHECK(a && b && same_results(a, b),
             "%s: additive noise, the same results in both calculi (bitwise)", scheme);
    TU_CHECK(b && !sdk_run_results(b)->calculus, "additive noise: no calculus recorded");
    sdk_run_destroy(&a);
    sdk_run_destroy(&b);
  }
}

static void check_refused(void) {
  sdk_run_config c;
  config(&c,
         st_model_file("[model]\nname = gg\nvars = S\ncalculus = stratonovich\n[drift]\nS = S\n"
                       "[noise]\nS = 0.1*tgamma(1 + 0.1*S)\n[init]\nS = 1\n",
                       3),
         "euler");
  c.paths = 100;
  sdk_errbuf eb = {0};
  sdk_run *r = NULL;
  st_env(&c.env);
  sdk_err e = sdk_run_execute(&c, &r, &eb);
  TU_CHECK(e == SDK_ERR_USAGE && strstr(eb.msg, "[noise] S") && strstr(eb.msg, "tgamma") &&
               strstr(eb.msg, "--scheme srk2"),
           "a noise without derivative, in the other calculus: refused, srk2 named (%s)", eb.msg);
  sdk_run_destroy(&r);
  sdk_errbuf eb2 = {0};
  sdk_model *m = NULL;
  e = sdk_model_parse("[model]\nname = b\nvars = x\ncalculus = strat\n[drift]\nx = 0\n", "bad.sde",
                      &m, &eb2);
  TU_CHECK(e == SDK_ERR_MODEL && strstr(eb2.msg, "bad.sde:4") && strstr(eb2.msg, "stratonovich"),
           "[model] calculus = strat refused with its line (%s)", eb2.msg);
  sdk_model_destroy(&m);
}

int main(void) {
  st_require_backend();
  const char *schemes[] = {"euler", "srk2", "milstein"};
  for (int s = 0; s < 3; s++)
    for (int strat = 0; strat < 2; strat++)
      check_gbm(schemes[s], strat, 0);
  check_gbm("srk2", 1, 1);
  check_gbm("euler", 1, 1);
  check_additive();
  check_refused();
  return tu_finish("test_calculus");
}
