/* Coloured noise ([colored]) and alpha-stable Levy noise ([levy]) against
 * exact answers (codegen/colored_levy.c).
 *
 * Coloured noise eta = (TAU, D), d eta = -eta/TAU dt + sqrt(2 D)/TAU dW.
 * The noise itself: from the stationary start E eta^2 = D / TAU at every
 * sample; from eta(0) = 1, E eta(t) = exp(-t / TAU) (by the Markov property
 * the stationary autocorrelation is (D / TAU) exp(-|s| / TAU)) and E eta(t)^2
 * = exp(-2t/TAU) + (D/TAU)(1 - exp(-2t/TAU)), at every sample: the update is
 * exact, so whatever dt.  The overdamped particle dx = -k x dt + eta dt:
 * stationary Var x = (D / TAU) / (k (k + 1 / TAU)) (the double integral of
 * exp(-k (u + v)) (D / TAU) exp(-|u - v| / TAU) over u, v > 0).  Each step
 * holds eta at its value of t_n, so x' = M x + c dt eta with euler M = 1 -
 * k dt, c = 1 and srk2 M = 1 - k dt + (k dt)^2 / 2, c = 1 - k dt / 2, and
 * eta' = r eta + s z, r = exp(-dt/TAU): with V = Var x, K = Cov(x, eta), E =
 * D / TAU, K' = r (M K + c dt E), V' = M^2 V + 2 M c dt K + c^2 dt^2 E from
 * x = 0, matched within 4 standard errors; the limit is matched within 4
 * standard errors plus the recursion's distance to it (order dt).
 *
 * Levy noise x = (a, b, SCALE): dx = SCALE dL, L(t) ~ S_a(t^(1/a), b, 0)
 * (Samorodnitsky-Taqqu S1).  The empirical characteristic function of
 * s L(T) after 10 steps, E cos(k x) and E sin(k x), against that of
 * S_a(s T^(1/a), b, mu): exp(-(s T^(1/a) |k|)^a (1 - i b sign(k) tan(pi a /
 * 2)) + i k mu) (a != 1, mu = 0), exp(-s T |k| (1 + i b (2 / pi) sign(k)
 * ln|k|) + i k mu) (a = 1, mu = -(2/pi) b s T ln s), at k = 0.5, 1, 2 for
 * a in {0.5, 1, 1.5, 1.9, 2} and b in {0, 0.5}: a = 2 is the Gaussian of
 * variance 2 s^2 T, and a = 1, b = 0.5 checks the location term of the
 * increments dt (X + (2/pi) b ln dt) (a sum of 10).
 * The Levy OU process dx = -k x dt + s dL: every step of euler and srk2 is
 * x' = A x + C s dL (tests/simtest.c, st_srk_linear), so from 0 x_n is
 * stable with scale C s dt^(1/a) (sum_{j<n} A^(j a))^(1/a) and skewness b
 * (a != 1): its characteristic function matched within 4 standard errors;
 * the continuum's scale s ((1 - exp(-a k T)) / (a k))^(1/a) (stationary:
 * s (a k)^(-1/a)) matched within 4 standard errors plus the distance.
 * Mean exit time of the symmetric process s L from (-L, L) started at x0:
 * Getoor's E tau = (L^2 - x0^2)^(a/2) / (s^a Gamma(1 + a)) (R. K. Getoor,
 * Trans. Amer. Math. Soc. 101, 75-90, 1961, for the exponent |k|^a, ours).
 * Monitored at the steps, a path exits late by an amount of the order of
 * its increments, so the bias is c dt^(1/a) (assumed, not proved here; the
 * ratio of the biases at dt and dt/4 is printed, 4^(1/a) expected, and
 * was 2.49 with 1e5 paths): the bias must be positive and shrink, and the
 * Richardson extrapolation with that exponent must match Getoor's value
 * within 4 standard errors.
 *
 * Refusals: bad ALPHA, BETA, TAU, D; schemes that need more than the
 * increments; a state-dependent stable scale outside Ito euler. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/checkpoint.h"

#include "simtest.h"
#include "testutil.h"

#define PI 3.14159265358979323846

/* One run (double precision unless single); NULL after a failed check. */
static sdk_run *run(const char *text, int slot, const char *scheme, int single, int64_t paths,
                    double dt, double tend, int64_t every, const char *observe) {
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.backend = st_backend();
  c.model = st_model_file(text, slot);
  c.scheme = scheme;
  c.single = single;
  c.paths = paths;
  c.dt = dt;
  c.t_end = tend;
  c.sample_every = every;
  c.observe = observe;
  c.seed = 4321;
  sdk_run *r = st_run(&c);
  TU_CHECK(r != NULL, "the run of %s", text);
  return r;
}

/* observable `name` at sample s (-1: the last): mean, *se */
static double obs_at(sdk_run *r, const char *name, int64_t s, double *se) {
  const double *m = NULL, *e = NULL;
  int64_t ns = 0;
  if (!st_expr_series(sdk_run_results(r), name, &m, &e, &ns) || ns < 1) {
    TU_CHECK(0, "no observable %s", name);
    *se = NAN;
    return NAN;
  }
  if (s < 0 || s >= ns) s = ns - 1;
  *se = e[s];
  return m[s];
}

/* got within 4 standard errors plus slack of want */
static void near(const char *what, double got, double se, double want, double slack) {
  printf("  %-46s %.6g +- %.2g  exact %.6g  (%+.2f se)\n", what, got, se, want, (got - want) / se);
  TU_CHECK(fabs(got - want) <= 4 * se + slack, "%s: %.8g +- %.3g, exact %.8g", what, got, se, want);
}

/* ---- coloured noise ---- */

static const char COLORED[] = "[model]\nname = colored\nvars = x\n[params]\nk = 1\ntau = 0.5\n"
                              "D = 0.3\n[colored]\neta = tau, D\n[drift]\nx = -k*x + eta\n"
                              "[observe]\nX2 = x*x\nE1 = eta\nE2 = eta*eta\n";

static void check_colored_ou(const char *scheme, int single) {
  const double k = 1, tau = 0.5, D = 0.3, dt = 0.01, T = 6, E = D / tau;
  int srk2 = !strcmp(scheme, "srk2");
  double M = 1 - k * dt + (srk2 ? k * k * dt * dt / 2 : 0), cc = srk2 ? 1 - k * dt / 2 : 1;
  double r = exp(-dt / tau), V = 0, K = 0;
  int64_t n = llround(T / dt);
  for (int64_t i = 0; i < n; i++) {
    double K1 = r * (M * K + cc * dt * E);
    V = M * M * V + 2 * M * cc * dt * K + cc * cc * dt * dt * E;
    K = K1;
  }
  double lim = E / (k * (k + 1 / tau)), se;
  sdk_run *R = run(COLORED, 0, scheme, single, (int64_t)1 << 20, dt, T, n, "expr");
  if (!R) return;
  printf("%s %s: x driven by coloured noise, limit (D/TAU)/(k(k+1/TAU)) = %g\n", scheme,
         single ? "single" : "double", lim);
  double v = obs_at(R, "X2", -1, &se);
  near("E x^2 vs the recursion", v, se, V, 0);
  near("E x^2 vs the limit (+ recursion's bias)", v, se, lim, fabs(V - lim));
  v = obs_at(R, "E2", 0, &se);
  near("E eta(0)^2 (stationary start) vs D/TAU", v, se, E, 0);
  v = obs_at(R, "E2", -1, &se);
  near("E eta(T)^2 vs D/TAU", v, se, E, 0);
  sdk_run_destroy(&R);
}

static void check_colored_relax(void) {
  const double tau = 0.5, D = 0.3, dt = 0.05, T = 2, E = D / tau;
  char text[512];
  snprintf(text, sizeof text, "%s[init]\neta = 1\n", COLORED);
  sdk_run *R = run(text, 1, "euler", 0, (int64_t)1 << 20, dt, T, 4, "expr");
  if (!R) return;
  const double *m1, *e1, *m2, *e2, *t = sdk_results_f64(sdk_run_results(R), "expr/t");
  int64_t ns = 0;
  if (!st_expr_series(sdk_run_results(R), "E1", &m1, &e1, &ns) ||
      !st_expr_series(sdk_run_results(R), "E2", &m2, &e2, &ns) || !t) {
    TU_CHECK(0, "the relaxation's observables");
    sdk_run_destroy(&R);
    return;
  }
  double worst = 0;
  for (int64_t s = 0; s < ns; s++) {
    double ex = exp(-t[s] / tau), ex2 = exp(-2 * t[s] / tau) + E * (1 - exp(-2 * t[s] / tau));
    double z1 = fabs(m1[s] - ex) / (s ? e1[s] : 1), z2 = fabs(m2[s] - ex2) / (s ? e2[s] : 1);
    worst = fmax(worst, fmax(z1, z2));
    TU_CHECK(z1 <= 4 && z2 <= 4, "eta(%g) from 1: %.6g (exact %.6g), eta^2 %.6g (exact %.6g)", t[s],
             m1[s], ex, m2[s], ex2);
  }
  printf("coloured noise from eta(0) = 1, %lld samples of E eta = exp(-t/TAU) and E eta^2: "
         "largest deviation %.2f se\n",
         (long long)ns, worst);
  sdk_run_destroy(&R);
}

/* ---- Levy noise ---- */

/* E exp(i k X) of X ~ S_a(sigma, b, 0): *re + i *im */
static void stable_cf(double a, double b, double sigma, double k, double *re, double *im) {
  double u = fabs(sigma * k), sg = k > 0 ? 1 : k < 0 ? -1 : 0, lr, li;
  if (a == 1) {
    lr = -u;
    li = k != 0 ? -u * b * (2 / PI) * sg * log(fabs(k)) : 0;
  } else {
    lr = -pow(u, a);
    li = pow(u, a) * b * sg * tan(PI * a / 2);
  }
  *re = exp(lr) * cos(li);
  *im = exp(lr) * sin(li);
}

static const double CF_K[3] = {0.5, 1, 2};

/* the characteristic function of variable v at CF_K: observables C<v><i>, S<v><i> */
static void cf_observables(char *text, size_t n, const char *v) {
  size_t len = strlen(text);
  for (int i = 0; i < 3; i++)
    len += (size_t)snprintf(text + len, n - len, "C%s%d = cos(%g*%s)\nS%s%d = sin(%g*%s)\n", v, i,
                            CF_K[i], v, v, i, CF_K[i], v);
}

static void check_cf(sdk_run *R, const char *v, double a, double b, double sigma, double mu,
                     double slack_sigma) {
  for (int i = 0; i < 3; i++) {
    double re, im, re2, im2, se = NAN;
    char name[16], what[96];
    stable_cf(a, b, sigma, CF_K[i], &re, &im);
    /* a location mu: E exp(ik(X + mu)) */
    double cr = re * cos(CF_K[i] * mu) - im * sin(CF_K[i] * mu);
    double ci = re * sin(CF_K[i] * mu) + im * cos(CF_K[i] * mu);
    double sc = 0, ss = 0;
    if (slack_sigma != sigma) { /* the continuum's value, up to the discrete one's distance */
      stable_cf(a, b, slack_sigma, CF_K[i], &re2, &im2);
      sc = fabs(re2 - cr), ss = fabs(im2 - ci);
      cr = re2, ci = im2;
    }
    snprintf(name, sizeof name, "C%s%d", v, i);
    snprintf(what, sizeof what, "a %g b %g: E cos(%g x)%s", a, b, CF_K[i],
             sc > 0 ? " (limit)" : "");
    double got = obs_at(R, name, -1, &se);
    near(what, got, se, cr, sc);
    snprintf(name, sizeof name, "S%s%d", v, i);
    snprintf(what, sizeof what, "a %g b %g: E sin(%g x)%s", a, b, CF_K[i],
             ss > 0 ? " (limit)" : "");
    got = obs_at(R, name, -1, &se);
    near(what, got, se, ci, ss);
  }
}

static const struct {
  const char *v;
  double a, b;
} LAWS[] = {{"xa", 0.5, 0},   {"xb", 0.5, 0.5}, {"xc", 1, 0},     {"xd", 1, 0.5}, {"xe", 1.5, 0},
            {"xf", 1.5, 0.5}, {"xg", 1.9, 0},   {"xh", 1.9, 0.5}, {"xw", 2, 0.5}};
#define NLAWS (int)(sizeof LAWS / sizeof LAWS[0])

static void check_increments(int single) {
  const double s = 0.7, dt = 0.1, T = 1;
  char text[8192];
  int len = snprintf(text, sizeof text,
                     "[model]\nname = stable\nvars = xa, xb, xc, xd, xe, xf, xg, xh, xw\n[params]\n"
                     "s = %g\n[drift]\n",
                     s);
  for (int i = 0; i < NLAWS; i++)
    len += snprintf(text + len, sizeof text - (size_t)len, "%s = 0\n", LAWS[i].v);
  len += snprintf(text + len, sizeof text - (size_t)len, "[levy]\n");
  for (int i = 0; i < NLAWS; i++)
    len += snprintf(text + len, sizeof text - (size_t)len, "%s = %g, %g, s\n", LAWS[i].v, LAWS[i].a,
                    LAWS[i].b);
  snprintf(text + len, sizeof text - (size_t)len, "[observe]\n");
  for (int i = 0; i < NLAWS; i++)
    cf_observables(text, sizeof text, LAWS[i].v);
  sdk_run *R = run(text, 2, "euler", single, (int64_t)1 << 18, dt, T, 10, "expr");
  if (!R) return;
  printf("s L(1) after 10 steps, %s precision: E exp(i k x) of S_a(s, b, mu)\n",
         single ? "single" : "double");
  for (int i = 0; i < NLAWS; i++) {
    double a = LAWS[i].a, b = LAWS[i].b;
    /* s L(T) ~ S_a(s T^(1/a), b, 0), and for a = 1 the location -(2/pi) b s T ln s */
    double mu = a == 1 ? -2 / PI * b * s * T * log(s) : 0;
    check_cf(R, LAWS[i].v, a, b, s * pow(T, 1 / a), mu, s * pow(T, 1 / a));
  }
  sdk_run_destroy(&R);
}

static void check_levy_ou(const char *scheme, int single) {
  const double k = 1, s = 0.5, dt = 0.01, T = 3;
  const double la[2] = {1.5, 0.7}, lb[2] = {0.5, 0};
  char text[2048] = "[model]\nname = levyou\nvars = x, y\n[params]\nk = 1\ns = 0.5\n"
                    "[drift]\nx = -k*x\ny = -k*y\n[levy]\nx = 1.5, 0.5, s\ny = 0.7, 0, s\n"
                    "[observe]\n";
  cf_observables(text, sizeof text, "x");
  cf_observables(text, sizeof text, "y");
  double A = 0, C = 0;
  if (!st_srk_linear(sdk_find_scheme(scheme), k, dt, &A, &C)) return;
  int64_t n = llround(T / dt);
  sdk_run *R = run(text, 3, scheme, single, (int64_t)1 << 16, dt, T, n, "expr");
  if (!R) return;
  printf("%s %s: Levy OU dx = -k x dt + s dL from 0 at T = %g\n", scheme,
         single ? "single" : "double", T);
  for (int i = 0; i < 2; i++) {
    double a = la[i], sum = 0;
    for (int64_t j = 0; j < n; j++)
      sum += pow(A, (double)j * a);
    double sig = C * s * pow(dt, 1 / a) * pow(sum, 1 / a);
    double lim = s * pow((1 - exp(-a * k * T)) / (a * k), 1 / a);
    printf("  scale: the recursion's %.6g, the continuum's %.6g (stationary %.6g)\n", sig, lim,
           s * pow(a * k, -1 / a));
    check_cf(R, i ? "y" : "x", a, lb[i], sig, 0, sig);
    check_cf(R, i ? "y" : "x", a, lb[i], sig, 0, lim);
  }
  sdk_run_destroy(&R);
}

/* the mean exit time from (-1, 1) from 0.3 at dt: *m, *e */
static void exit_time(double a, double dt, double *m, double *e) {
  char text[512];
  snprintf(text, sizeof text,
           "[model]\nname = getoor\nvars = x\n[params]\ns = 1\nL = 1\n[drift]\nx = 0\n"
           "[levy]\nx = %g, 0, s\n[init]\nx = 0.3\n[boundaries]\nup = absorb x >= L\n"
           "lo = absorb x <= -L\n",
           a);
  sdk_run *R = run(text, 4, "euler", 0, 50000, dt, 12, 0, "fpt");
  *m = *e = NAN;
  if (!R) return;
  const sdk_results *res = sdk_run_results(R);
  const double *mm = sdk_results_f64(res, "fpt/exit_mean"),
               *ee = sdk_results_f64(res, "fpt/exit_err");
  const sdk_dataset *cd = sdk_store_find(&res->store, "fpt/censored");
  const int64_t *cen = cd && cd->type == SDK_I64 ? sdk_ds_i64(cd) : NULL;
  TU_CHECK(mm && ee && cen && cen[0] == 0, "the exit times, every path absorbed");
  if (mm && ee) *m = mm[0], *e = ee[0];
  sdk_run_destroy(&R);
}

static void check_getoor(void) {
  const double a = 1.5, dt = 0.004, x0 = 0.3;
  double exact = pow(1 - x0 * x0, a / 2) / tgamma(1 + a), m1, e1, m2, e2;
  exit_time(a, dt, &m1, &e1);
  exit_time(a, dt / 4, &m2, &e2);
  double q = pow(4, 1 / a), ext = (q * m2 - m1) / (q - 1);
  double eext = sqrt(q * q * e2 * e2 + e1 * e1) / (q - 1);
  printf("symmetric 1.5-stable from 0.3 in (-1, 1): Getoor's E tau = %.6g\n", exact);
  printf("  dt %g: %.6g +- %.2g; dt %g: %.6g +- %.2g; bias ratio %.3g (4^(1/a) = %.3g)\n", dt, m1,
         e1, dt / 4, m2, e2, (m1 - exact) / (m2 - exact), q);
  near("E tau extrapolated (bias c dt^(1/a))", ext, eext, exact, 0);
  TU_CHECK(m1 > m2 && m2 > exact, "the bias of monitoring at the steps is positive and shrinks");
}

/* ---- the tails, and draws independent of where launches start ---- */

/* P(|X| > x) of the symmetric X ~ S_a(1, 0, 0): (2/pi) sum_{k >= 1} (-1)^(k+1)
 * Gamma(a k) / k! sin(k pi a / 2) x^(-a k) (the integral of the density's
 * series, W. Feller, vol. II, XVII.6: convergent for a < 1, asymptotic for
 * 1 < a < 2), to NT terms; *slack the next term's size */
static double stable_tail(double a, double x, int nt, double *slack) {
  double sum = 0, term = 0;
  for (int k = 1; k <= nt + 1; k++) {
    term = (k % 2 ? 1 : -1) * tgamma(a * k) / tgamma(k + 1.0) * sin(k * PI * a / 2) *
           pow(x, -a * k) * 2 / PI;
    if (k <= nt) sum += term;
  }
  *slack = fabs(term);
  return sum;
}

/* 8 variables of each of a = 0.5 and 1.5 (symmetric, scale 1), two steps
 * of dt = 1 (both halves of a single-precision pair's block): each is X1 + X2
 * ~ S_a(2^(1/a)); P(|x| > c) at c where it is 1e-2 ... 1e-6 against the
 * series, within 4 standard errors plus the truncation's size.  The tails
 * come from W -> 0 (a < 1) and cos V -> 0 (a > 1): kernels/levy_draw.h. */
static void check_tails(int single) {
  static const double A[2] = {0.5, 1.5}, P[5] = {1e-2, 1e-3, 1e-4, 1e-5, 1e-6};
  char text[16384];
  int len = snprintf(text, sizeof text, "[model]\nname = tails\nvars = ");
  for (int i = 0; i < 16; i++)
    len += snprintf(text + len, sizeof text - (size_t)len, "%s%c%d", i ? ", " : "", "ab"[i / 8],
                    i % 8);
  len += snprintf(text + len, sizeof text - (size_t)len, "\n[drift]\n");
  for (int i = 0; i < 16; i++)
    len += snprintf(text + len, sizeof text - (size_t)len, "%c%d = 0\n", "ab"[i / 8], i % 8);
  len += snprintf(text + len, sizeof text - (size_t)len, "[levy]\n");
  for (int i = 0; i < 16; i++)
    len += snprintf(text + len, sizeof text - (size_t)len, "%c%d = %g, 0, 1\n", "ab"[i / 8], i % 8,
                    A[i / 8]);
  len += snprintf(text + len, sizeof text - (size_t)len, "[observe]\n");
  double c[2][5];
  for (int g = 0; g < 2; g++)
    for (int q = 0; q < 5; q++) {
      /* the leading term's c, then P at c exactly from the series */
      double a = A[g], lead = 2 / PI * tgamma(a) * sin(PI * a / 2);
      c[g][q] = pow(2, 1 / a) * pow(P[q] / lead, -1 / a);
      len += snprintf(text + len, sizeof text - (size_t)len, "T%c%d = (", "ab"[g], q);
      for (int i = 0; i < 8; i++)
        len += snprintf(text + len, sizeof text - (size_t)len, "%s(fabs(%c%d) > %.17g)",
                        i ? "\n    + " : "", "ab"[g], i, c[g][q]); /* (one line each) */
      len += snprintf(text + len, sizeof text - (size_t)len, ") / 8\n");
    }
  sdk_run *R = run(text, 7, "euler", single, (int64_t)1 << 20, 1, 2, 2, "expr");
  if (!R) return;
  printf("tails of X1 + X2 ~ S_a(2^(1/a)), %s precision, 2^23 values per a:\n",
         single ? "single" : "double");
  for (int g = 0; g < 2; g++)
    for (int q = 0; q < 5; q++) {
      double slack, se = NAN, x = c[g][q] / pow(2, 1 / A[g]);
      double want = stable_tail(A[g], x, A[g] < 1 ? 40 : 6, &slack);
      char name[8], what[64];
      snprintf(name, sizeof name, "T%c%d", "ab"[g], q);
      snprintf(what, sizeof what, "a %g: P(|x| > %.4g)", A[g], c[g][q]);
      double got = obs_at(R, name, -1, &se);
      near(what, got, se, want, slack);
    }
  sdk_run_destroy(&R);
}

/* The same values whatever the launches: a run sampled every 3 and every 7
 * steps (launches starting at odd steps, inside a pair of single-precision
 * steps, or a GPU group) ends in the bits of one sampled only at its end. */
static void check_launch_starts(int single) {
  const char *text = "[model]\nname = starts\nvars = x, y\n[params]\ns = 0.4\n[drift]\nx = -x\n"
                     "y = -y\n[levy]\nx = 1.2, 0.3, s\ny = 0.8, -0.5, s\n[observe]\nX = x\n"
                     "Y = y*y/(1 + y*y)\n";
  double ref[2] = {0, 0};
  for (int k = 0; k < 3; k++) {
    static const int64_t every[3] = {21, 3, 7};
    sdk_run *R = run(text, 7, "srk2", single, 5000, 0.1, 2.1, every[k], "expr");
    if (!R) return;
    double se, v[2] = {obs_at(R, "X", -1, &se), obs_at(R, "Y", -1, &se)};
    if (k == 0) ref[0] = v[0], ref[1] = v[1];
    TU_CHECK(v[0] == ref[0] && v[1] == ref[1],
             "%s: sampled every %lld steps, E x = %.17g, E y^2/(1+y^2) = %.17g at step 21; "
             "every 21: %.17g, %.17g",
             single ? "single" : "double", (long long)every[k], v[0], v[1], ref[0], ref[1]);
    sdk_run_destroy(&R);
  }
  printf("[levy], %s: sampled every 3, 7 and 21 steps, the same bits at step 21\n",
         single ? "single" : "double");
}

/* ---- the same bits: threads and shards, a run stopped half way and resumed ---- */

static const char BOTH[] = "[model]\nname = both\nvars = x, y\n[params]\nk = 1\ns = 0.5\n"
                           "[colored]\neta = 0.2, 0.4\n[drift]\nx = -k*x + eta\ny = -k*y + x\n"
                           "[levy]\ny = 1.2, 0.3, s\n[observe]\nE = eta*y\n";

static void repro_config(sdk_run_config *c, int single) {
  sdk_run_config_defaults(c);
  c->backend = st_backend();
  c->model = st_model_file(BOTH, 6);
  c->scheme = "srk2";
  c->single = single;
  c->paths = 30000; /* (partial chunks) */
  c->dt = 0.01;
  c->t_end = 2;
  c->sample_every = 20;
  c->observe = "moments,expr";
  c->seed = 99;
}

static void check_repro(int single) {
  sdk_run_config c;
  repro_config(&c, single);
  c.threads = 1;
  sdk_run *one = st_run(&c);
  TU_CHECK(one != NULL, "repro run");
  if (!one) return;
  c.threads = 2;
  c.shards = 3;
  sdk_run *many = st_run(&c);
  TU_CHECK(many && st_same_store(sdk_run_results(one), sdk_run_results(many)),
           "[colored] and [levy]: 1 thread, 1 shard = 2 threads, 3 shards, bitwise");
  sdk_run_destroy(&many);
  char ck[4200];
  repro_config(&c, single);
  sdk_ckpt *k = st_stop_half_way(&c, ck, sizeof ck, "[colored] and [levy] run");
  if (k) {
    repro_config(&c, single);
    c.resume = k;
    sdk_run *r2 = st_run(&c);
    TU_CHECK(r2 && st_same_store(sdk_run_results(one), sdk_run_results(r2)),
             "[colored] and [levy] resumed from step %lld: bitwise the uninterrupted results",
             (long long)k->step);
    printf("[colored] and [levy], %s: threads, shards and a resume from step %lld: the same "
           "bits\n",
           single ? "single" : "double", (long long)k->step);
    sdk_run_destroy(&r2);
  }
  sdk_ckpt_destroy(&k);
  unlink(ck);
  sdk_run_destroy(&one);
}

/* ---- refusals ---- */

static void refused(const char *text, const char *scheme, const char *want) {
  st_refused(text, 5, scheme, want, NULL);
}

/* ALPHA = 0.003 at dt = 0.01: the increments' scale dt^(1/a - 1/2) is
 * 10^-665, no number of either precision (the single kernel had a literal
 * -inff, which did not compile; the double one gave NaN paths); 0.05
 * (2^-129.6) fits double only */
static void check_tiny_alpha(void) {
  const char *lv = "[model]\nname = r\nvars = x\n[drift]\nx = -x\n[levy]\nx = %s, 0, 1\n";
  char text[256];
  for (int single = 0; single < 2; single++)
    for (int k = 0; k < 2; k++) {
      snprintf(text, sizeof text, lv, k ? "0.05" : "0.003");
      sdk_run_config c;
      st_config_text(&c, "tiny.sde", text, 100, 0.01, 0.1);
      c.single = single;
      c.observe = "moments";
      sdk_errbuf eb = {0};
      sdk_run *r = NULL;
      st_env(&c.env);
      sdk_err e = sdk_run_execute(&c, &r, &eb);
      if (k && !single) {
        const double *m = r ? st_f64(sdk_run_results(r), "moments/mean_x") : NULL;
        TU_CHECK(e == SDK_OK && m && isfinite(m[0]), "ALPHA 0.05 in double: %s", eb.msg);
      } else {
        char want[200];
        snprintf(want, sizeof want,
                 "tiny.sde:7: [levy] x: ALPHA = %s at dt = 0.01: the increments' scale "
                 "dt^(1/ALPHA - 1/2) = 2^%s underflows %s precision",
                 k ? "0.05" : "0.003", k ? "-129.6" : "-2211", single ? "single" : "double");
        TU_CHECK(e == SDK_ERR_USAGE && strstr(eb.msg, want), "refused with '%s' (got %s: %s)", want,
                 sdk_err_name(e), eb.msg);
      }
      sdk_run_destroy(&r);
    }
}

static void check_refusals(void) {
  const char *lv = "[model]\nname = r\nvars = x\n[drift]\nx = -x\n[levy]\nx = %s\n";
  const struct {
    const char *levy, *scheme, *want;
  } L[] = {{"0, 0, 1", NULL, "ALPHA = '0' must be a number in (0, 2]"},
           {"2.5, 0, 1", NULL, "ALPHA = '2.5' must be a number in (0, 2]"},
           {"1.5, -1.5, 1", NULL, "BETA = '-1.5' must be a number in [-1, 1]"},
           {"a, 0, 1", NULL, "ALPHA = 'a' must be a number"},
           {"1.5, 0", NULL, "expected ALPHA, BETA, SCALE"},
           {"1.5, 0, 1", "milstein", "the Milstein term"},
           {"1.5, 0, 1", "weak2", "the moments of Gaussian values"},
           {"1.5, 0, x", "srk2", "in the Ito sense only"}};
  char text[256];
  for (size_t i = 0; i < sizeof L / sizeof L[0]; i++) {
    snprintf(text, sizeof text, lv, L[i].levy);
    refused(text, L[i].scheme, L[i].want);
  }
  refused("[model]\nname = r\nvars = x\n[drift]\nx = -x\n[noise]\nx = 1\n[levy]\nx = 1, 0, 1\n",
          NULL, "not both");
  /* (a stable jump crosses both walls at any dt: test_fpt's two_walls
   * shows the Gaussian case, which a smaller dt fixes) */
  refused("[model]\nname = r\nvars = x\n[drift]\nx = 0\n[levy]\nx = 0.8, 0, 1\n[boundaries]\n"
          "up = reflect x >= 1\nlo = reflect x <= -1\n",
          NULL,
          ".sde:10: [boundaries] lo: 'x' has [levy] noise (line 7) and reflecting boundaries on "
          "both sides (with 'up' on line 9): a stable jump can cross both walls in one step");
  const char *cl = "[model]\nname = r\nvars = x\n[params]\ntau = %s\n[colored]\neta = tau, 1\n"
                   "[drift]\nx = eta\n";
  snprintf(text, sizeof text, cl, "-1");
  refused(text, NULL, "TAU = -1, D = 1 (the correlation time must be finite and > 0");
  snprintf(text, sizeof text, cl, "0");
  refused(text, NULL, "TAU = 0");
  refused("[model]\nname = r\nvars = x\n[colored]\neta = 1, -2\n[drift]\nx = eta\n", NULL,
          "D = -2");
  refused("[model]\nname = r\nvars = x\n[colored]\neta = 1\n[drift]\nx = eta\n", NULL,
          "expected TAU, D");
  refused("[model]\nname = r\nvars = x\n[colored]\neta = 1, 1\n[drift]\nx = eta\neta = 1\n", NULL,
          "is a [colored] noise");
}

int main(void) {
  st_require_backend();
  check_refusals();
  check_tiny_alpha();
  check_repro(1);
  check_repro(0);
  check_colored_ou("euler", 0);
  check_colored_ou("srk2", 1);
  check_colored_relax();
  check_increments(0);
  check_increments(1);
  check_levy_ou("euler", 0);
  check_levy_ou("srk2", 1);
  check_getoor();
  check_tails(1);
  check_tails(0);
  check_launch_starts(1);
  check_launch_starts(0);
  return tu_finish("test_levy_colored");
}
