/* Noises beyond one Wiener process per variable, against exact answers
 * (model/model.h, codegen/events.c, codegen/srk.c):
 *
 * Shared and correlated Wiener processes.  The two-dimensional OU process
 * dX = A X dt + B dW, dW with correlation matrix C, from X(0) = 0: every
 * step of euler and srk2 is X' = M X + N B sqrt(dt) L z (M = I + A dt
 * (+ A^2 dt^2 / 2 for srk2), N = I (I + A dt / 2)), so the covariance after n
 * steps is the recursion S' = M S M^T + dt N B C B^T N^T, matched by the runs
 * within 4 standard errors; its limit is the solution of the Lyapunov
 * equation A S + S A^T + B C B^T = 0, printed and matched too within 4
 * standard errors plus the recursion's own distance to it.  Geometric
 * Brownian motion on two correlated processes, dS = mu S dt + S (a dW1 +
 * b dW2): euler's moments are (1 + mu' dt)^n and ((1 + mu' dt)^2 + s^2 dt)^n,
 * s^2 = a^2 + b^2 + 2 a b rho, mu' = mu (Ito) or mu + s^2 / 2 (the
 * Stratonovich model through the drift correction with correlations).
 *
 * Poisson shot noise.  A pure jump process from 0: E x(T) = lambda T E z,
 * E x(T)^2 = lambda T E z^2 + (lambda T E z)^2, for every amplitude, with
 * few jumps per step (inversion) and many (the rejection samplers); one
 * step of Poisson(20) and Poisson(3) jumps of size 1: P(N = k) against the
 * Poisson probabilities.  Shot-noise-driven OU dx = -k x dt + dJ (centered
 * exponential jumps): the variance after n steps of x' = M x + J is
 * lambda dt E z^2 (1 - M^2n) / (1 - M^2), matched within 4 standard errors;
 * its limit lambda E z^2 / (2 k) as dt -> 0 printed.
 *
 * Dichotomous noise.  eta = +-a switching at rate g both ways, dx = -k x dt
 * + eta dt: with V_n = Var x_n and K_n = Cov(x_n, eta_n), x' = M x + c dt eta
 * (euler: M = 1 - k dt, c = 1; srk2: M = 1 - k dt + (k dt)^2 / 2, c = 1 -
 * k dt / 2) and E[eta' | eta] = r eta, r = exp(-2 g dt):
 *   K' = r (M K + c dt a^2),  V' = M^2 V + 2 M c dt K + c^2 dt^2 a^2,
 * matched within 4 standard errors; the limit a^2 / (k (k + 2 g)) printed.
 * The noise itself: stationary mean (A k_BA + B k_AB) / (k_AB + k_BA), and
 * from eta(0) = A the mean m + (A - m) exp(-(k_AB + k_BA) t) at every
 * sample: its correlation time.
 *
 * Refusals: a noise line that is not linear in the increments, a matrix
 * that is no correlation matrix, milstein with state-dependent shared
 * noise, a drift for a dichotomous noise. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "simtest.h"
#include "testutil.h"

#define MAXO 12

/* One run; the means and standard errors of the user observables names[]
 * at every sample (m[o * ns + s]); ns: the number of samples. */
static int run_obs(const char *model, const char *scheme, const char *calculus, int single,
                   int64_t paths, double dt, double tend, int64_t every, int nobs,
                   const char *const *names, double *m, double *se, int64_t *ns, double *t) {
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.backend = st_backend();
  c.model = model;
  c.scheme = scheme;
  c.single = single;
  c.paths = paths;
  c.dt = dt;
  c.t_end = tend;
  c.sample_every = every;
  c.observe = "expr";
  c.seed = 1234;
  if (calculus)
    c.calculus = !strcmp(calculus, "ito") ? SDK_CALCULUS_ITO : SDK_CALCULUS_STRATONOVICH;
  sdk_run *r = st_run(&c);
  if (!r) return 0;
  const sdk_results *R = sdk_run_results(r);
  int ok = 1;
  const sdk_dataset *ts = sdk_store_findf(&R->store, "expr/t");
  for (int o = 0; o < nobs && ok; o++) {
    const double *dm = NULL, *de = NULL;
    ok = st_expr_series(R, names[o], &dm, &de, ns) && *ns <= 64;
    for (int64_t s = 0; ok && s < *ns; s++) {
      m[o * *ns + s] = dm[s];
      se[o * *ns + s] = de[s];
      if (t) t[s] = ts ? sdk_ds_f64(ts)[s] : NAN;
    }
  }
  sdk_run_destroy(&r);
  TU_CHECK(ok, "%s: the run's observables", model);
  return ok;
}

/* got within k standard errors (plus slack) of want */
static void near(const char *what, double got, double se, double want, double slack) {
  double z = (got - want) / se;
  printf("  %-44s %.6g +- %.2g  exact %.6g  (%+.2f se)\n", what, got, se, want, z);
  TU_CHECK(fabs(got - want) <= 4 * se + slack, "%s: %.8g +- %.3g, exact %.8g", what, got, se, want);
}

/* ---- shared and correlated Wiener processes ---- */

static const char OU2[] = "[model]\nname = ou2c\nvars = x, y\nwiener = W1, W2\n"
                          "correlation = W1 W2 : rho\n"
                          "[params]\nk1 = 1\nk2 = 2\nc = 0.5\ns1 = 0.7\ns2 = 0.4\neps = 0.3\n"
                          "rho = 0.6\n"
                          "[drift]\nx = -k1*x\ny = -k2*y + c*x\n"
                          "[noise]\nx = s1*dW1\ny = s2*dW2 + eps*dW1\n"
                          "[observe]\nXX = x*x\nYY = y*y\nXY = x*y\n";

typedef double mat2[2][2];

static void mul(const mat2 a, const mat2 b, mat2 out) {
  mat2 r;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      r[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j];
  memcpy(out, r, sizeof r);
}

static void transpose(const mat2 a, mat2 out) {
  mat2 r = {{a[0][0], a[1][0]}, {a[0][1], a[1][1]}};
  memcpy(out, r, sizeof r);
}

static void check_ou2(const char *scheme, int single) {
  const double k1 = 1, k2 = 2, c = 0.5, s1 = 0.7, s2 = 0.4, eps = 0.3, rho = 0.6;
  const double dt = 0.01, T = 8;
  const mat2 A = {{-k1, 0}, {c, -k2}}, B = {{s1, 0}, {eps, s2}}, C = {{1, rho}, {rho, 1}};
  int srk2 = !strcmp(scheme, "srk2");
  mat2 M, N, Q, t1, t2;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      double a2 = A[i][0] * A[0][j] + A[i][1] * A[1][j];
      M[i][j] = (i == j) + A[i][j] * dt + (srk2 ? a2 * dt * dt / 2 : 0);
      N[i][j] = (i == j) + (srk2 ? A[i][j] * dt / 2 : 0);
    }
  /* Q = dt N B C B^T N^T */
  mul(N, B, t1);
  mul(t1, C, t2);
  transpose(t1, t1);
  mul(t2, t1, Q);
  mat2 S = {{0, 0}, {0, 0}}, Mt;
  transpose(M, Mt);
  int64_t n = (int64_t)llround(T / dt);
  for (int64_t i = 0; i < n; i++) {
    mul(M, S, t1);
    mul(t1, Mt, S);
    for (int a = 0; a < 2; a++)
      for (int b = 0; b < 2; b++)
        S[a][b] += dt * Q[a][b];
  }
  /* the Lyapunov equation's solution (A lower triangular, BCB^T by hand) */
  double q00 = s1 * s1, q01 = s1 * eps + s1 * s2 * rho,
         q11 = eps * eps + 2 * eps * s2 * rho + s2 * s2;
  double l00 = q00 / (2 * k1), l01 = (c * l00 + q01) / (k1 + k2),
         l11 = (2 * c * l01 + q11) / (2 * k2);
  const char *names[] = {"XX", "YY", "XY"};
  double m[3 * 2], se[3 * 2];
  int64_t ns = 0;
  if (!run_obs(st_model_file(OU2, 0), scheme, NULL, single, (int64_t)1 << 20, dt, T,
               (int64_t)llround(T / dt), 3, names, m, se, &ns, NULL))
    return;
  printf("%s %s: 2-d OU, correlated and shared noise, covariance at t = %g\n", scheme,
         single ? "single" : "double", T);
  double rec[3] = {S[0][0], S[1][1], S[0][1]}, lyap[3] = {l00, l11, l01};
  for (int o = 0; o < 3; o++) {
    char what[96];
    snprintf(what, sizeof what, "E %s vs the scheme's recursion", names[o]);
    near(what, m[o * ns + ns - 1], se[o * ns + ns - 1], rec[o], 0);
    snprintf(what, sizeof what, "E %s vs Lyapunov (+ recursion's bias)", names[o]);
    near(what, m[o * ns + ns - 1], se[o * ns + ns - 1], lyap[o], fabs(rec[o] - lyap[o]));
  }
}

static const char GBM2[] = "[model]\nname = gbm2c\nvars = S\nwiener = W1, W2\n"
                           "correlation = W1 W2 : rho\n"
                           "[params]\nmu = 0.3\na = 0.3\nb = 0.2\nrho = -0.4\n"
                           "[drift]\nS = mu*S\n[noise]\nS = S*(a*dW1 + b*dW2)\n[init]\nS = 1\n"
                           "[observe]\nS1 = S\nS2 = S*S\n";

static void check_gbm2(const char *calculus) {
  const double mu = 0.3, a = 0.3, b = 0.2, rho = -0.4, dt = 1.0 / 64, T = 1;
  double s2 = a * a + b * b + 2 * a * b * rho;
  double mud = !strcmp(calculus, "ito") ? mu : mu + s2 / 2;
  double n = T / dt;
  double e1 = pow(1 + mud * dt, n), e2 = pow((1 + mud * dt) * (1 + mud * dt) + s2 * dt, n);
  const char *names[] = {"S1", "S2"};
  double m[2 * 2], se[2 * 2];
  int64_t ns = 0;
  if (!run_obs(st_model_file(GBM2, 1), "euler", calculus, 0, (int64_t)1 << 20, dt, T, 64, 2, names,
               m, se, &ns, NULL))
    return;
  printf("euler: GBM on two correlated Wiener processes, %s\n", calculus);
  near("E S(1) vs the recursion", m[ns - 1], se[ns - 1], e1, 0);
  near("E S(1)^2 vs the recursion", m[2 * ns - 1], se[2 * ns - 1], e2, 0);
}

/* ---- Poisson shot noise ---- */

static const char JUMPS[] =
    "[model]\nname = jumps\nvars = xa, xb, xc, xd, xe, xf, xg, xh\n"
    "[params]\nlam = 3\n"
    "[drift]\nxa = 0\nxb = 0\nxc = 0\nxd = 0\nxe = 0\nxf = 0\nxg = 0\nxh = 0\n"
    "[jumps]\n"
    "xa = lam : fixed(0.5)\n"
    "xb = lam : exp(0.5)\n"
    "xc = lam : uniform(-1, 2)\n"
    "xd = lam : normal(0.3, 0.5)\n"
    "xe = 2000 : exp(0.2)\n"
    "xf = 1500 : uniform(-0.1, 0.2)\n"
    "xg = 5000 : normal(0.03, 0.05)\n"
    "xh = lam : fixed(0.5) centered\n"
    "[observe]\nA1 = xa\nA2 = xa*xa\nB1 = xb\nB2 = xb*xb\nC1 = xc\nC2 = xc*xc\nD1 = xd\n"
    "D2 = xd*xd\nE1 = xe\nE2 = xe*xe\nF1 = xf\nF2 = xf*xf\nG1 = xg\nG2 = xg*xg\nH1 = xh\n"
    "H2 = xh*xh\n";

static void check_jumps(int single) {
  /* E z, E z^2 of each variable's amplitude, its rate, and whether centered */
  const struct {
    double rate, ez, ez2;
    int centered;
  } j[8] = {
      {3, 0.5, 0.25, 0},
      {3, 0.5, 0.5, 0},
      {3, 0.5, (1 - 2 + 4) / 3.0, 0},
      {3, 0.3, 0.09 + 0.25, 0},
      {2000, 0.2, 0.08, 0},
      {1500, 0.05, (0.01 - 0.02 + 0.04) / 3.0, 0},
      {5000, 0.03, 0.0009 + 0.0025, 0},
      {3, 0.5, 0.25, 1},
  };
  const char *names[16] = {"A1", "A2", "B1", "B2", "C1", "C2", "D1", "D2",
                           "E1", "E2", "F1", "F2", "G1", "G2", "H1", "H2"};
  const double dt = 0.01, T = 1;
  double m[16 * 2], se[16 * 2];
  int64_t ns = 0;
  if (!run_obs(st_model_file(JUMPS, 2), "euler", NULL, single, (int64_t)1 << 18, dt, T, 100, 16,
               names, m, se, &ns, NULL))
    return;
  printf("pure jump processes at t = 1 (%s)\n", single ? "single" : "double");
  for (int v = 0; v < 8; v++) {
    double lt = j[v].rate * T, mean = j[v].centered ? 0 : lt * j[v].ez;
    double m2 = lt * j[v].ez2 + mean * mean;
    char what[96];
    snprintf(what, sizeof what, "%c: E x, rate %g", 'a' + v, j[v].rate);
    /* (single precision: the sum of up to 5000 jumps a step rounds in float) */
    double slack = single ? 1e-5 * fabs(m2) : 0;
    near(what, m[(2 * v) * ns + ns - 1], se[(2 * v) * ns + ns - 1], mean, slack);
    snprintf(what, sizeof what, "%c: E x^2", 'a' + v);
    near(what, m[(2 * v + 1) * ns + ns - 1], se[(2 * v + 1) * ns + ns - 1], m2, slack);
  }
}

/* one step of Poisson(mu) jumps of size 1: the law of N */
static void check_poisson_law(double mu) {
  char text[512];
  int k0 = (int)mu;
  snprintf(text, sizeof text,
           "[model]\nname = pois\nvars = n\n[drift]\nn = 0\n[jumps]\nn = %g : fixed(1)\n"
           "[observe]\nN = n\nN2 = n*n\nP0 = n == %d\nP1 = n == %d\nP2 = n == 0\n",
           mu, k0, k0 + 3);
  const char *names[] = {"N", "N2", "P0", "P1", "P2"};
  double m[5 * 2], se[5 * 2];
  int64_t ns = 0;
  if (!run_obs(st_model_file(text, 3), "euler", NULL, 0, (int64_t)1 << 20, 1, 1, 1, 5, names, m, se,
               &ns, NULL))
    return;
  printf("one step of Poisson(%g) jumps\n", mu);
  double p0 = exp(-mu), pk0 = exp(-mu + k0 * log(mu) - lgamma(k0 + 1.0)),
         pk3 = exp(-mu + (k0 + 3) * log(mu) - lgamma(k0 + 4.0));
  near("E N", m[ns - 1], se[ns - 1], mu, 0);
  near("E N^2", m[2 * ns - 1], se[2 * ns - 1], mu + mu * mu, 0);
  near("P(N = floor(mu))", m[3 * ns - 1], se[3 * ns - 1], pk0, 0);
  near("P(N = floor(mu) + 3)", m[4 * ns - 1], se[4 * ns - 1], pk3, 0);
  if (p0 * (1 << 20) >= 100) near("P(N = 0)", m[5 * ns - 1], se[5 * ns - 1], p0, 0);
}

static const char SHOT[] = "[model]\nname = shot\nvars = x\n[params]\nk = 1\nlam = 4\nmz = 0.5\n"
                           "[drift]\nx = -k*x\n[jumps]\nx = lam : exp(mz) centered\n"
                           "[observe]\nX = x\nX2 = x*x\n";

static void check_shot_ou(const char *scheme) {
  const double k = 1, lam = 4, mz = 0.5, dt = 0.005, T = 6;
  int srk2 = !strcmp(scheme, "srk2");
  double M = 1 - k * dt + (srk2 ? k * k * dt * dt / 2 : 0), n = llround(T / dt);
  double ez2 = 2 * mz * mz;
  double var = lam * dt * ez2 * (1 - pow(M, 2 * n)) / (1 - M * M), limit = lam * ez2 / (2 * k);
  const char *names[] = {"X", "X2"};
  double m[2 * 2], se[2 * 2];
  int64_t ns = 0;
  if (!run_obs(st_model_file(SHOT, 4), scheme, NULL, 0, (int64_t)1 << 18, dt, T, (int64_t)n, 2,
               names, m, se, &ns, NULL))
    return;
  printf("%s: shot-noise OU (centered exponential jumps), limit dt -> 0: Var = %g\n", scheme,
         limit);
  near("E x vs 0", m[ns - 1], se[ns - 1], 0, 0);
  near("E x^2 vs the recursion", m[2 * ns - 1], se[2 * ns - 1], var, 0);
  near("E x^2 vs lambda E z^2 / 2k (+ recursion's bias)", m[2 * ns - 1], se[2 * ns - 1], limit,
       fabs(var - limit));
}

/* ---- dichotomous noise ---- */

static const char DICH[] = "[model]\nname = dich\nvars = x\n[params]\nk = 1\ng = 2\na = 1\n"
                           "[dichotomous]\neta = a, -a, g, g\n"
                           "[drift]\nx = -k*x + eta\n"
                           "[observe]\nX2 = x*x\nEta = eta\n";

static void check_dich_ou(const char *scheme, int single) {
  const double k = 1, g = 2, a = 1, dt = 0.01, T = 8;
  int srk2 = !strcmp(scheme, "srk2");
  double M = 1 - k * dt + (srk2 ? k * k * dt * dt / 2 : 0), cc = srk2 ? 1 - k * dt / 2 : 1;
  double r = exp(-2 * g * dt), V = 0, K = 0;
  int64_t n = llround(T / dt);
  for (int64_t i = 0; i < n; i++) {
    double K1 = r * (M * K + cc * dt * a * a);
    V = M * M * V + 2 * M * cc * dt * K + cc * cc * dt * dt * a * a;
    K = K1;
  }
  const char *names[] = {"X2", "Eta"};
  double m[2 * 2], se[2 * 2];
  int64_t ns = 0;
  if (!run_obs(st_model_file(DICH, 5), scheme, NULL, single, (int64_t)1 << 20, dt, T, n, 2, names,
               m, se, &ns, NULL))
    return;
  printf("%s %s: OU driven by dichotomous noise, limit a^2/(k(k+2g)) = %g\n", scheme,
         single ? "single" : "double", a * a / (k * (k + 2 * g)));
  near("E x^2 vs the recursion", m[ns - 1], se[ns - 1], V, 0);
  near("E x^2 vs a^2/(k(k+2g)) (+ recursion's bias)", m[ns - 1], se[ns - 1],
       a * a / (k * (k + 2 * g)), fabs(V - a * a / (k * (k + 2 * g))));
  near("E eta (stationary, symmetric)", m[2 * ns - 1], se[2 * ns - 1], 0, 0);
}

static void check_dich_relax(void) {
  const double A = 1, B = -0.5, kab = 1, kba = 3, dt = 0.05, T = 1;
  double mst = (A * kba + B * kab) / (kab + kba);
  char text[512];
  const char *fmt = "[model]\nname = tele\nvars = x\n[params]\nkab = %g\nkba = %g\n"
                    "[dichotomous]\neta = %g, %g, kab, kba\n[drift]\nx = 0\n%s"
                    "[observe]\nEta = eta\n";
  const char *names[] = {"Eta"};
  double m[64], se[64], t[64];
  int64_t ns = 0;
  /* stationary from the start */
  snprintf(text, sizeof text, fmt, kab, kba, A, B, "");
  if (!run_obs(st_model_file(text, 6), "euler", NULL, 0, (int64_t)1 << 20, dt, T, 20, 1, names, m,
               se, &ns, t))
    return;
  printf("telegraph noise A = %g, B = %g, k_AB = %g, k_BA = %g\n", A, B, kab, kba);
  near("E eta(0) (stationary initial value)", m[0], se[0], mst, 0);
  near("E eta(1)", m[ns - 1], se[ns - 1], mst, 0);
  /* from eta(0) = A: relaxes with the correlation time 1 / (k_AB + k_BA) */
  snprintf(text, sizeof text, fmt, kab, kba, A, B, "[init]\neta = 1\n");
  if (!run_obs(st_model_file(text, 7), "euler", NULL, 0, (int64_t)1 << 20, dt, T, 2, 1, names, m,
               se, &ns, t))
    return;
  double worst = 0;
  for (int64_t s = 1; s < ns; s++) {
    double want = mst + (A - mst) * exp(-(kab + kba) * t[s]);
    double z = fabs(m[s] - want) / se[s];
    worst = z > worst ? z : worst;
    TU_CHECK(z <= 4, "E eta(%g) = %.6g +- %.2g, exact %.6g", t[s], m[s], se[s], want);
  }
  printf("  E eta(t) from A at %lld times: largest deviation %.2f se from m + (A - m) "
         "exp(-(k_AB + k_BA) t)\n",
         (long long)(ns - 1), worst);
}

/* ---- refusals ---- */

static void refused(const char *text, const char *scheme, const char *want1, const char *want2) {
  st_refused(text, 0, scheme, want1, want2);
}

static void check_refusals(void) {
  refused("[model]\nname = r1\nvars = x\nwiener = W1, W2\n[drift]\nx = 0\n[noise]\n"
          "x = dW1*dW2\n",
          NULL, "linear in the increments", NULL);
  refused("[model]\nname = r2\nvars = x\nwiener = W1, W2\n[drift]\nx = 0\n[noise]\nx = 1 + dW1\n",
          NULL, "every term with one", NULL);
  refused("[model]\nname = r3\nvars = x\nwiener = A, B, C\n"
          "correlation = A B : 0.9, A C : 0.9, B C : -0.9\n[drift]\nx = 0\n[noise]\n"
          "x = dA + dB + dC\n",
          NULL, "not positive semi-definite", NULL);
  refused("[model]\nname = r4\nvars = x\nwiener = A, B\ncorrelation = A B : r\n[params]\n"
          "r = 1.5\n[drift]\nx = 0\n[noise]\nx = dA + dB\n",
          NULL, "must be in [-1, 1]", NULL);
  refused("[model]\nname = r5\nvars = x\nwiener = A, B\n[drift]\nx = 0\n[noise]\n"
          "x = x*dA + dB\n",
          "milstein", "Levy areas", "--scheme euler");
  refused("[model]\nname = r6\nvars = x\n[dichotomous]\neta = 1, -1, 1, 1\n[drift]\nx = eta\n"
          "eta = 1\n",
          NULL, "is a [dichotomous] noise", NULL);
  refused("[model]\nname = r7\nvars = x\n[dichotomous]\neta = 1, -1, 1, 1\n[drift]\nx = eta\n"
          "[init]\neta = 0.5\n",
          NULL, "starts at A = 1 or B = -1", NULL);
  refused("[model]\nname = r8\nvars = x\n[drift]\nx = 0\n[jumps]\nx = -1 : fixed(1)\n", NULL,
          "the rate is -1", NULL);
  refused("[model]\nname = r9\nvars = x\n[drift]\nx = 0\n[jumps]\nx = 1 : gamma(1)\n", NULL,
          "expected RATE : AMPLITUDE", NULL);
}

int main(void) {
  st_require_backend();
  check_ou2("srk2", 0);
  check_ou2("euler", 1);
  check_gbm2("ito");
  check_gbm2("stratonovich");
  check_jumps(0);
  check_jumps(1);
  check_poisson_law(3);
  check_poisson_law(20);
  check_shot_ou("euler");
  check_shot_ou("srk2");
  check_dich_ou("euler", 0);
  check_dich_ou("srk2", 1);
  check_dich_relax();
  check_refusals();
  return tu_finish("test_noises");
}
