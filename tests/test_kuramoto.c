/* Systems of interacting particles: the noisy Kuramoto model (Januszewski &
 * Kostur 2010, Eq. 2) in its all-pairs ([pair], PROG2) and mean-field
 * ([meanfield], PROG3) forms, the order parameter, per-particle parameters.
 *
 *   dx_i = [w_i + (K/N) sum_j sin(x_j - x_i)] dt + sqrt(2T) dW_i
 *
 * Statistical checks use k = 5 standard errors plus the known systematic
 * errors of the method, each computed here (see the individual tests). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codegen/sys.h"
#include "model/model.h"
#include "rng/philox.h"
#include "simtest.h"
#include "testutil.h"

#define K_SIGMA 5.0

/* ---- the self-consistent order parameter of identical noisy oscillators ----
 * Stationary density of one oscillator in the mean field K r:
 * p(x) ~ exp((K r / T) cos x), so r = <cos x> = I1(K r / T) / I0(K r / T). */
static double bessel_i(int n, double x) {
  /* I_n(x) = sum_k (x/2)^(2k+n) / (k! (k+n)!) */
  double term = 1, sum = 0;
  for (int k = 1; k <= n; k++)
    term *= x / 2 / k;
  for (int k = 0; k < 200; k++) {
    sum += term;
    term *= (x / 2) * (x / 2) / ((double)(k + 1) * (double)(k + 1 + n));
    if (term < 1e-18 * sum) break;
  }
  return sum;
}

/* the nonzero root of r = I1(K r/T) / I0(K r/T) (K > 2T), by bisection */
static double r_selfconsistent(double K, double T) {
  double lo = 1e-9, hi = 1;
  for (int it = 0; it < 200; it++) {
    double r = 0.5 * (lo + hi), a = K * r / T;
    if (bessel_i(1, a) / bessel_i(0, a) > r)
      lo = r;
    else
      hi = r;
  }
  return 0.5 * (lo + hi);
}

/* ---- the same for the Euler scheme with step dt ----
 * In the stationary state of N -> infinity oscillators the mean field is
 * constant, r at phase 0, and every oscillator follows the Euler chain
 *   x' = x - K r dt sin x + sqrt(2 T dt) z.
 * Its stationary density on the circle solves pi = pi P with the Gaussian
 * transition kernel P, discretised on M points (the kernel is smooth and
 * periodic, so the trapezoid rule converges spectrally; M = 256 resolves a
 * kernel of width sqrt(2 T dt) >= 0.1 with 4 points per sigma), solved by
 * Gaussian elimination.  r_dt is the root of r = <cos x>_{pi(K r)}, so
 * |r_dt - r_selfconsistent| is the time-step bias of the simulation. */
#define TM 256
static double euler_cos_mean(double a, double T, double dt) {
  static double A[TM][TM + 1];
  double h = 2 * M_PI / TM, s = sqrt(2 * T * dt);
  /* A = P^T - I, row TM-1 replaced by sum(pi) = 1 */
  for (int i = 0; i < TM; i++) {
    double xi = i * h, mu = xi - a * dt * sin(xi), row = 0;
    double p[TM];
    for (int j = 0; j < TM; j++) {
      double d = j * h - mu, v = 0;
      d -= 2 * M_PI * floor(d / (2 * M_PI) + 0.5);
      for (int m = -2; m <= 2; m++) {
        double e = (d + 2 * M_PI * m) / s;
        v += exp(-0.5 * e * e);
      }
      p[j] = v;
      row += v;
    }
    for (int j = 0; j < TM; j++)
      A[j][i] = p[j] / row - (i == j);
  }
  for (int i = 0; i < TM; i++)
    A[TM - 1][i] = 1;
  for (int j = 0; j < TM; j++)
    A[j][TM] = j == TM - 1;
  for (int c = 0; c < TM; c++) {
    int piv = c;
    for (int r = c + 1; r < TM; r++)
      if (fabs(A[r][c]) > fabs(A[piv][c])) piv = r;
    if (piv != c)
      for (int k = 0; k <= TM; k++) {
        double t = A[c][k];
        A[c][k] = A[piv][k];
        A[piv][k] = t;
      }
    for (int r = c + 1; r < TM; r++) {
      double f = A[r][c] / A[c][c];
      if (f != 0)
        for (int k = c; k <= TM; k++)
          A[r][k] -= f * A[c][k];
    }
  }
  double pi[TM], m = 0;
  for (int r = TM - 1; r >= 0; r--) {
    double v = A[r][TM];
    for (int k = r + 1; k < TM; k++)
      v -= A[r][k] * pi[k];
    pi[r] = v / A[r][r];
  }
  for (int j = 0; j < TM; j++)
    m += pi[j] * cos(j * h);
  return m;
}

static double r_euler(double K, double T, double dt) {
  double lo = 0.05, hi = 1;
  for (int it = 0; it < 40; it++) {
    double r = 0.5 * (lo + hi);
    if (euler_cos_mean(K * r, T, dt) > r)
      lo = r;
    else
      hi = r;
  }
  return 0.5 * (lo + hi);
}

/* Identical oscillators (omega_i = 0), mean-field form, with the initial
 * phases of a given spread. */
static const char *mf_model(const char *init, int slot) {
  static char text[2][1024];
  snprintf(text[slot], sizeof text[slot],
           "[model]\nname = kmf\nvars = x\nperiodic = x : 2*pi\n[params]\nK = 4\nT = 1\n"
           "[meanfield]\nS = sin(x)\nC = cos(x)\n[drift]\nx = K*(S*cos(x) - C*sin(x))\n"
           "[noise]\nx = sqrt(2*T)\n[init]\nx = %s\n",
           init);
  return st_model_file(text[slot], slot);
}

static void config(sdk_run_config *c, const char *model, int64_t N, int64_t systems, double dt,
                   double t_end, int64_t every, uint64_t seed) {
  sdk_run_config_defaults(c);
  c->model = model;
  c->backend = st_backend();
  c->particles = N;
  c->paths = systems;
  c->dt = dt;
  c->t_end = t_end;
  c->observe = "order";
  c->sample_every = every;
  c->seed = seed;
}

/* Mean of r over samples with t >= t0 and its standard error by batch means
 * (nb batches of consecutive samples: the series is correlated in time). */
static void time_average(const sdk_results *R, double t0, int nb, double *mean, double *se) {
  const st_view *Rv = st_view_of(R);
  int64_t ns = Rv->order_nsamples, first = 0;
  while (first < ns && (double)Rv->order_step[first] * R->dt[0] < t0)
    first++;
  int64_t n = ns - first, per = n / nb;
  double sum = 0, bm[64], bsum = 0;
  for (int64_t s = first; s < ns; s++)
    sum += Rv->order_r[s];
  *mean = sum / (double)n;
  for (int b = 0; b < nb; b++) {
    double a = 0;
    for (int64_t s = 0; s < per; s++)
      a += Rv->order_r[first + b * per + s];
    bm[b] = a / (double)per;
    bsum += bm[b];
  }
  double bmean = bsum / nb, v = 0;
  for (int b = 0; b < nb; b++)
    v += (bm[b] - bmean) * (bm[b] - bmean);
  *se = sqrt(v / (nb - 1) / nb);
}

/* The order parameter itself: phases normal(0, s) and no dynamics give
 * r = exp(-k^2 s^2 / 2) (k = 2 pi / period) up to the O(1/N) bias of |Z| and
 * its fluctuation, and psi = 0. */
static void test_order_reduction(void) {
  const char *m1 = st_model_file("[model]\nname = still\nvars = x\nperiodic = x : 2*pi\n"
                                 "[drift]\nx = 0\n[init]\nx = normal(0, 0.8)\n",
                                 0);
  const char *m2 = st_model_file("[model]\nname = still1\nvars = x\nperiodic = x : 1\n"
                                 "[drift]\nx = 0\n[init]\nx = normal(0.25, 0.1)\n",
                                 1);
  struct {
    const char *model;
    double want, psi;
  } cases[] = {{m1, exp(-0.32), 0}, {m2, exp(-0.5 * pow(2 * M_PI * 0.1, 2)), M_PI / 2}};
  for (int k = 0; k < 2; k++) {
    sdk_run_config c;
    config(&c, cases[k].model, 4096, 64, 0.1, 0.2, 1, 5 + k);
    sdk_run *run = st_run(&c);
    TU_CHECK(run != NULL, "order run %d", k);
    if (!run) continue;
    const sdk_results *R = sdk_run_results(run);
    const st_view *Rv = st_view_of(R);
    TU_CHECK(Rv->order_nsamples == 3 && R->particles == 4096 && R->paths == 64 * 4096,
             "samples %lld particles %lld paths %lld", (long long)Rv->order_nsamples,
             (long long)R->particles, (long long)R->paths);
    for (int64_t s = 0; s < Rv->order_nsamples; s++) {
      char what[64];
      snprintf(what, sizeof what, "r of normal phases (case %d, sample %lld)", k, (long long)s);
      TU_NEAR(Rv->order_r[s], cases[k].want, K_SIGMA * Rv->order_r_err[s] + 1.0 / 4096, what);
      snprintf(what, sizeof what, "psi of normal phases (case %d)", k);
      TU_NEAR(Rv->order_psi[s], cases[k].psi, 0.01, what);
    }
    printf("order of still phases %d: r %.5f (want %.5f, se %.1e), psi %.4f (want %.4f)\n", k,
           Rv->order_r[0], cases[k].want, Rv->order_r_err[0], Rv->order_psi[0], cases[k].psi);
    sdk_run_destroy(&run);
  }
}

/* The noise stream of systems (rng/philox.h, domain 3) as a known answer:
 * with zero drift, unit noise, x(0) = 0 and dt = 1, particle i of system s
 * has x(1) = z_0 and x(2) = z_0 + z_1 exactly, z_n being lane i & 3 of
 * sdk_gauss4_d(seed, s * NQ + i / 4, n * NN + j, 3) for its noise channel j.
 * N = 8 (quads aligned with the global index) and N = 7 (they are not; a
 * system's last quad is partial); two channels (x, y) check k = n * NN + j.
 * Double precision without fast math: the CPU and the GPU both agree with the
 * contract to rounding. */
static void test_system_stream(void) {
  const char *model = st_model_file("[model]\nname = zs\nvars = x, y\n[meanfield]\nM = x\n"
                                    "[drift]\nx = 0*M\ny = 0\n[noise]\nx = 1\ny = 1\n"
                                    "[init]\nx = 0\ny = 0\n",
                                    3);
  static const int64_t Ns[2] = {8, 7};
  for (int c8 = 0; c8 < 2; c8++) {
    const int64_t N = Ns[c8], S = 3, nq = (N + 3) / 4;
    const uint64_t seed = 0x5eed0000ull + (uint64_t)N;
    sdk_run_config c;
    config(&c, model, N, S, 1, 2, 1, seed);
    c.single = 0;
    c.fast_math = 0;
    c.observe = "moments";
    c.obs.nsave = (int)(N * S);
    for (int64_t p = 0; p < N * S; p++)
      c.obs.save_index[p] = p;
    sdk_run *run = st_run(&c);
    TU_CHECK(run != NULL, "system-stream run N = %lld", (long long)N);
    if (!run) continue;
    const sdk_results *R = sdk_run_results(run);
    const st_view *Rv = st_view_of(R);
    int64_t ns = Rv->nsamples, bad = 0;
    TU_CHECK(ns == 3 && Rv->nsaved == N * S, "samples %lld saved %lld", (long long)ns,
             (long long)Rv->nsaved);
    double worst = 0;
    for (int64_t p = 0; p < N * S && ns == 3; p++) {
      int64_t s = p / N, i = p % N;
      double want[2] = {0, 0};
      for (int n = 0; n < 2; n++)
        for (int j = 0; j < 2; j++) {
          double g[4];
          sdk_gauss4_d(seed, (sdk_u64)(s * nq + i / 4), (sdk_u64)(n * 2 + j), 3, g);
          want[j] += g[i & 3];
          double got = Rv->saved[(p * ns + n + 1) * 2 + j];
          double d = fabs(got - want[j]);
          if (d > worst) worst = d;
          if (d > 1e-13 * (1 + fabs(want[j]))) bad++;
        }
    }
    TU_CHECK(bad == 0, "N = %lld: %lld particle values differ from the domain-3 stream",
             (long long)N, (long long)bad);
    printf("system stream, N = %lld x %lld systems, 2 channels, 2 steps: largest difference "
           "%.1e\n",
           (long long)N, (long long)S, worst);
    sdk_run_destroy(&run);
  }
}

/* The GPU's three system kernels (one launch per step, persistent with x in
 * DRAM, persistent with x on chip: codegen/sys_cuda.c) follow one reduction
 * contract, so the same run gives the same bits with each.  A forced kernel
 * that cannot run is an error, so each run below really used its kernel.
 * Case A: one system of 2^21 + 12 particles (vector accesses, a last group of
 * 12), two chunks per group (tuning.sys_cpb), one block per multiprocessor
 * (tuning.sys_bps: blocks own several groups) and at most three resident chunks
 * per block (tuning.sys_rmax: some chunks on chip, some in DRAM); per-particle
 * frequencies (domain 2), r(t) every step.  Case B: three systems of 4099
 * particles (scalar accesses, partial quads), moments. */
static void test_kernels_agree(void) {
  if (strcmp(st_backend(), "cuda")) {
    printf("system kernels: CPU backend, nothing to compare\n");
    return;
  }
  static const char *const kern[3] = {"launch", "persist", "resident"};
  for (int cs = 0; cs < 2; cs++) {
    sdk_run *run[3] = {NULL, NULL, NULL};
    for (int k = 0; k < 3; k++) {
      sdk_run_config c;
      if (cs == 0) {
        config(&c, "kuramoto-meanfield", ((int64_t)1 << 21) + 12, 1, 0.01, 0.3, 1, 61);
        c.tuning.sys_cpb = 2;
        c.tuning.sys_bps = 1;
        c.tuning.sys_rmax = 3;
        c.nset = 1;
        c.set_name[0] = "sigma";
        c.set_value[0] = 0.5;
        c.observe = "order,moments";
      } else {
        config(&c, mf_model("normal(0, 0.5)", 0), 4099, 3, 0.01, 0.3, 5, 62);
        c.observe = "moments";
      }
      c.obs.nsave = 4;
      c.obs.save_index[0] = 0, c.obs.save_index[1] = 1, c.obs.save_index[2] = 4097;
      c.obs.save_index[3] = cs == 0 ? ((int64_t)1 << 21) + 11 : 3 * 4099 - 1;
      c.tuning.sys_kernel = kern[k];
      run[k] = st_run(&c);
      TU_CHECK(run[k] != NULL, "case %d with the %s kernel", cs, kern[k]);
    }
    if (run[0] && run[1] && run[2]) {
      const sdk_results *A = sdk_run_results(run[0]);
      const st_view *Av = st_view_of(A);
      for (int k = 1; k < 3; k++) {
        const sdk_results *B = sdk_run_results(run[k]);
        const st_view *Bv = st_view_of(B);
        size_t nsv = (size_t)(Av->nsaved * Av->nsamples * 1);
        int same = Av->nsamples == Bv->nsamples && Av->nsaved == Bv->nsaved &&
                   !memcmp(Av->saved, Bv->saved, nsv * sizeof(double));
        if (cs == 0)
          same = same && Av->order_nsamples == Bv->order_nsamples &&
                 !memcmp(Av->order_r, Bv->order_r, (size_t)Av->order_nsamples * sizeof(double)) &&
                 !memcmp(Av->order_psi, Bv->order_psi, (size_t)Av->order_nsamples * sizeof(double));
        else
          same = same && !memcmp(Av->mean, Bv->mean, (size_t)Av->nsamples * sizeof(double)) &&
                 !memcmp(Av->var, Bv->var, (size_t)Av->nsamples * sizeof(double));
        TU_CHECK(same, "case %d: the %s kernel's results differ from one launch per step", cs,
                 kern[k]);
      }
      if (cs == 0)
        printf("system kernels agree bit for bit: N = 2^21 + 12, r(0.3) = %.6f (%lld samples)\n",
               Av->order_r[Av->order_nsamples - 1], (long long)Av->order_nsamples);
      else
        printf("system kernels agree bit for bit: 3 x 4099 particles, <x>(0.3) = %.6f\n",
               Av->mean[Av->nsamples - 1]);
    }
    for (int k = 0; k < 3; k++)
      sdk_run_destroy(&run[k]);
  }
  /* a kernel name the backend does not know is an error, not the default */
  sdk_run_config cb;
  config(&cb, "kuramoto-meanfield", 4096, 1, 0.01, 0.05, 1, 63);
  cb.tuning.sys_kernel = "fastest";
  st_env(&cb.env);
  sdk_run *bad = NULL;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_run_execute(&cb, &bad, &eb) == SDK_ERR_USAGE && !bad &&
               strstr(eb.msg, "SDEKIT_SYS_KERNEL='fastest'") &&
               strstr(eb.msg, "expected launch, persist, resident or auto"),
           "sys_kernel fastest: %s", eb.msg);
  sdk_run_destroy(&bad);
}

/* The parity rules of pair functions (codegen/pair_sym.c): which pair
 * functions the half all-pairs kernel may evaluate once per unordered pair
 * (-1 odd, 1 even, 0 not claimed: the full loop). */
static void test_pair_parity(void) {
  static const struct {
    const char *f;
    int want;
  } cases[] = {
      {"sin(xj - x)", -1},
      {"x - xj", -1},
      {"cos(xj - x)", 1},
      {"(xj - x)*(yj - y)", 1},
      {"sin(xj - x)*cos(yj - y)", -1},
      {"K*atan(xj - x)/2", -1},
      {"tanh(xj - x)", 0}, /* not odd bit for bit with fast math (denormals) */
      {"exp(xj - x)", 0},
      {"sin(xj - x + 1)", 0},
      {"xj*y - x*yj", 0}, /* products: fast math may fuse one of the two */
      {"xj + x", 1},
      {"fabs(x - xj)", 1},
      {"xj > x ? 1 : -1", 0},
      {"w*wj*sin(xj - x)", -1},
      {"pow(xj - x, 3)", 0},
      {"(xj - x)/(yj - y)", 0},
      {"(xj - x)/(1 + (yj - y)*(yj - y))", -1},
      {"fma(xj - x, K, sin(yj - y))", -1},
      {"t*sin(xj - x)", -1},
      {"sin(xj) - sin(x)", -1},
      {"exp(-(xj - x)*(xj - x))*(yj - y)", -1},
      {"K", 1},
      {"x", 0},
      {"atan(y - yj) + cos(xj - x)", 0}, /* odd plus even */
      {"atan(yj - y) + sinh(xj - x)", -1},
  };
  enum { NC = sizeof cases / sizeof cases[0] };
  char text[4096];
  int len = snprintf(text, sizeof text,
                     "[model]\nname = par\nvars = x, y\n[params]\nK = 2\n[particle]\n"
                     "w = normal(0, 1)\n[pair]\n");
  for (int k = 0; k < NC; k++)
    len += snprintf(text + len, sizeof text - (size_t)len, "F%d = %s\n", k, cases[k].f);
  snprintf(text + len, sizeof text - (size_t)len, "[drift]\nx = F0\ny = w\n");
  sdk_model *m = NULL;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_model_parse(text, "par.sde", &m, &eb) == SDK_OK, "parity model: %s", eb.msg);
  if (!m) return;
  int bad = 0;
  for (int k = 0; k < NC && k < m->npair; k++) {
    int got = sdk_cg_pair_parity(m->pair[k]);
    if (got != cases[k].want) bad++;
    TU_CHECK(got == cases[k].want, "parity of %s: %d, expected %d", cases[k].f, got, cases[k].want);
  }
  printf("pair parity rules: %d of %d pair functions as expected\n", NC - bad, NC);
  sdk_model_destroy(&m);
}

/* The half all-pairs kernel (each unordered pair once) gives the full loop's
 * bits: SDEKIT_SYS_PAIRS half against full (tuning.sys_pairs), in single and
 * double precision, with a partial last tile (the edge kernel), an odd and
 * an even number of full tiles, several systems, per-particle frequencies,
 * and a model of two variables with odd and even pair functions. */
static const char *two_var_model(void) {
  return st_model_file("[model]\nname = pair2\nvars = x, y\nperiodic = x : 2*pi\n[params]\n"
                       "K = 2\n[pair]\nA = sin(xj - x)*cos(yj - y)\n"
                       "B = (yj - y)*exp(-fabs(xj - x))\nC = cos(xj - x) + 0.5\n"
                       "[drift]\nx = K*A + 0.1*C\ny = B - y\n[noise]\nx = 0.5\ny = 0.3\n"
                       "[init]\nx = uniform(0, 2*pi)\ny = normal(0, 1)\n",
                       1);
}

static void test_half_pairs(void) {
  if (strcmp(st_backend(), "cuda")) {
    printf("half all-pairs kernel: CPU backend, nothing to compare\n");
    return;
  }
  static const struct {
    int model; /* 0 kuramoto, 1 two variables */
    int64_t N, systems;
    const char *precision;
  } cases[] = {
      {0, 2048 + 100, 3, "single"}, {0, 1024, 2, "double"}, {1, 1300, 2, "single"},
      {1, 768, 1, "double"},        {0, 200, 2, "single"},
  };
  for (size_t cs = 0; cs < sizeof cases / sizeof cases[0]; cs++) {
    sdk_run *run[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
      sdk_run_config c;
      config(&c, cases[cs].model ? two_var_model() : "kuramoto", cases[cs].N, cases[cs].systems,
             0.01, 0.2, 2, 71 + cs);
      c.single = !strcmp(cases[cs].precision, "single");
      if (!cases[cs].model) {
        c.nset = 1;
        c.set_name[0] = "sigma";
        c.set_value[0] = 0.5;
        c.observe = "order,moments";
      } else {
        c.observe = "moments";
      }
      c.obs.nsave = 3;
      c.obs.save_index[0] = 0, c.obs.save_index[1] = cases[cs].N - 1;
      c.obs.save_index[2] = cases[cs].N * cases[cs].systems - 1;
      c.tuning.sys_pairs = k ? SDK_PAIRS_HALF : SDK_PAIRS_FULL;
      run[k] = st_run(&c);
      TU_CHECK(run[k] != NULL, "case %zu with the %s pairs", cs, k ? "half" : "full");
    }
    if (run[0] && run[1]) {
      const st_view *A = st_view_of(sdk_run_results(run[0]));
      const st_view *B = st_view_of(sdk_run_results(run[1]));
      size_t ns = (size_t)A->nsamples, nv = cases[cs].model ? 2 : 1;
      int same = A->nsamples == B->nsamples && A->nsaved == B->nsaved &&
                 !memcmp(A->saved, B->saved, (size_t)A->nsaved * ns * nv * sizeof(double)) &&
                 !memcmp(A->mean, B->mean, ns * nv * sizeof(double)) &&
                 !memcmp(A->var, B->var, ns * nv * sizeof(double));
      if (!cases[cs].model)
        same = same && A->order_nsamples == B->order_nsamples &&
               !memcmp(A->order_r, B->order_r, (size_t)A->order_nsamples * sizeof(double));
      TU_CHECK(same,
               "case %zu (N = %lld, %s): the half kernel's results differ from the full "
               "loop's",
               cs, (long long)cases[cs].N, cases[cs].precision);
      printf("half all-pairs kernel = full loop bit for bit: %s, N = %lld x %lld systems, %s, "
             "<x>(0.2) = %.6f\n",
             cases[cs].model ? "two variables" : "kuramoto", (long long)cases[cs].N,
             (long long)cases[cs].systems, cases[cs].precision, A->mean[(ns - 1) * nv]);
    }
    for (int k = 0; k < 2; k++)
      sdk_run_destroy(&run[k]);
  }
  /* forced on a model whose pairs it cannot halve: an error, not the full loop */
  sdk_run_config c;
  config(&c,
         st_model_file("[model]\nname = asym\nvars = x\n[pair]\nF = exp(xj - x)\n"
                       "[drift]\nx = -F\n[noise]\nx = 1\n",
                       1),
         512, 1, 0.01, 0.05, 1, 79);
  c.observe = "moments";
  c.tuning.sys_pairs = SDK_PAIRS_HALF;
  st_env(&c.env);
  sdk_run *bad = NULL;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_run_execute(&c, &bad, &eb) == SDK_ERR_USAGE && !bad &&
               strstr(eb.msg, "SDEKIT_SYS_PAIRS=half") && strstr(eb.msg, "[pair] F is not shown"),
           "forced half on exp(xj - x): %s", eb.msg);
  sdk_run_destroy(&bad);
}

/* Identical oscillators above threshold: the stationary r (time average over
 * t in [5, 25] and over 32 systems of N = 2000) against the self-consistency
 * r = I1(4r)/I0(4r) = 0.8315.  Tolerance: 5 standard errors (batch means),
 * plus the time-step bias |r_dt - r| of the Euler scheme computed above for
 * this dt, plus 1/N for the finite system (|Z| of N particles is biased by
 * about <sin^2(x - psi)> / (2 r N) = 0.15/N; 1/N bounds it generously). */
static void test_stationary(void) {
  const double K = 4, T = 1, dt = 0.01;
  const int64_t N = 2000;
  double rs = r_selfconsistent(K, T), rdt = r_euler(K, T, dt);
  TU_NEAR(rs, 0.8315, 5e-5, "self-consistent r for K = 4, T = 1");
  printf("r = I1(4r)/I0(4r): %.6f; Euler dt = %g: %.6f (time-step bias %+.2e)\n", rs, dt, rdt,
         rdt - rs);
  sdk_run_config c;
  config(&c, mf_model("normal(0, 0.5)", 0), N, 32, dt, 25, 10, 11);
  sdk_run *run = st_run(&c);
  TU_CHECK(run != NULL, "stationary run");
  if (!run) return;
  const sdk_results *R = sdk_run_results(run);
  double mean, se;
  time_average(R, 5, 10, &mean, &se);
  double tol = K_SIGMA * se + fabs(rdt - rs) + 1.0 / (double)N;
  TU_NEAR(mean, rs, tol, "stationary r against I1/I0");
  /* sharper: against the Euler scheme's own stationary r */
  TU_NEAR(mean, rdt, K_SIGMA * se + 1.0 / (double)N, "stationary r against the Euler chain's");
  printf("stationary r %.5f +- %.5f (self-consistent %.5f: %+.2f se; Euler %.5f: %+.2f se); "
         "tolerance %.4f\n",
         mean, se, rs, (mean - rs) / se, rdt, (mean - rdt) / se, tol);
  sdk_run_destroy(&run);
}

/* Below threshold (K = 1 < 2T): from a synchronised start r decays to the
 * fluctuation level of N incoherent oscillators.  Linear response gives
 * Z ~ complex Gaussian with <|Z|^2> = chi / N, chi = 1 / (1 - K/(2T)) = 2,
 * so <r> sqrt(N) = sqrt(pi chi / 4) = 1.25: O(1).  Checked: 0.5 <= r sqrt(N)
 * <= 2.5 in the late window, and within 15% (finite-N and dt corrections,
 * plus 5 se) of the linear-response value; early r ~ 0.8 has decayed. */
static void test_below_threshold(void) {
  const int64_t N = 500;
  const char *model = mf_model("normal(0, 0.5)", 1);
  sdk_run_config c;
  config(&c, model, N, 64, 0.01, 40, 20, 21);
  c.nset = 1;
  c.set_name[0] = "K";
  c.set_value[0] = 1;
  sdk_run *run = st_run(&c);
  TU_CHECK(run != NULL, "below-threshold run");
  if (!run) return;
  const sdk_results *R = sdk_run_results(run);
  const st_view *Rv = st_view_of(R);
  double mean, se;
  time_average(R, 20, 10, &mean, &se);
  double rn = mean * sqrt((double)N), want = sqrt(M_PI * 2 / 4);
  TU_CHECK(Rv->order_r[0] > 0.7, "initial r %g", Rv->order_r[0]);
  TU_CHECK(rn >= 0.5 && rn <= 2.5, "r sqrt(N) = %g is not O(1)", rn);
  TU_NEAR(rn, want, 0.15 * want + K_SIGMA * se * sqrt((double)N), "r sqrt(N) below threshold");
  printf("below threshold: r(0) %.3f, late r sqrt(N) %.3f +- %.3f (linear response %.3f)\n",
         Rv->order_r[0], rn, se * sqrt((double)N), want);
  sdk_run_destroy(&run);
}

/* The pairwise (PROG2) and mean-field (PROG3) forms of the same system, with
 * independent noise (different seeds): r(t) during the synchronisation from
 * uniform phases agrees within the statistical error of both. */
static void test_pair_vs_meanfield(void) {
  const int64_t N = 256, M = 48;
  sdk_run_config c;
  config(&c, "kuramoto", N, M, 0.01, 5, 50, 31);
  sdk_run *pr = st_run(&c);
  config(&c, "kuramoto-meanfield", N, M, 0.01, 5, 50, 32);
  sdk_run *mr = st_run(&c);
  TU_CHECK(pr && mr, "pair and mean-field runs");
  if (pr && mr) {
    const sdk_results *P = sdk_run_results(pr), *Q = sdk_run_results(mr);
    const st_view *Pv = st_view_of(P);
    const st_view *Qv = st_view_of(Q);
    TU_CHECK(Pv->order_nsamples == Qv->order_nsamples && Pv->order_nsamples == 11,
             "samples %lld %lld", (long long)Pv->order_nsamples, (long long)Qv->order_nsamples);
    double worst = 0;
    for (int64_t s = 0; s < Pv->order_nsamples && s < Qv->order_nsamples; s++) {
      double d = Pv->order_r[s] - Qv->order_r[s];
      double se =
          sqrt(Pv->order_r_err[s] * Pv->order_r_err[s] + Qv->order_r_err[s] * Qv->order_r_err[s]);
      char what[96];
      snprintf(what, sizeof what, "r(t = %g) pairwise vs mean-field",
               (double)Pv->order_step[s] * 0.01);
      TU_NEAR(Pv->order_r[s], Qv->order_r[s], K_SIGMA * se, what);
      if (fabs(d) / se > worst) worst = fabs(d) / se;
    }
    printf("pairwise vs mean-field: r(5) %.4f vs %.4f; largest difference %.2f se\n",
           Pv->order_r[Pv->order_nsamples - 1], Qv->order_r[Qv->order_nsamples - 1], worst);
  }
  sdk_run_destroy(&pr);
  sdk_run_destroy(&mr);
}

/* The same run twice gives the same bits (fixed reduction order); on the CPU
 * the second run uses one thread instead of all. */
static void test_deterministic(void) {
  sdk_run_config c;
  config(&c, "kuramoto-meanfield", 1000, 6, 0.01, 1, 10, 41);
  sdk_run *a = st_run(&c);
  c.threads = 1;
  sdk_run *b = st_run(&c);
  TU_CHECK(a && b, "runs");
  if (a && b) {
    const sdk_results *A = sdk_run_results(a), *B = sdk_run_results(b);
    const st_view *Av = st_view_of(A);
    const st_view *Bv = st_view_of(B);
    TU_CHECK(Av->order_nsamples == Bv->order_nsamples &&
                 !memcmp(Av->order_r, Bv->order_r, (size_t)Av->order_nsamples * sizeof(double)) &&
                 !memcmp(Av->order_psi, Bv->order_psi, (size_t)Av->order_nsamples * sizeof(double)),
             "order parameter differs between identical runs");
  }
  sdk_run_destroy(&a);
  sdk_run_destroy(&b);
}

/* Per-particle parameters drawn from normal() are the same bits for any
 * number of threads: x' = w + K C with K = 0 from 0 gives x(1) = w, and the
 * final states of 1, 3 and 6 threads (shares that do not begin on a block)
 * must agree; the draw loop was vectorised from each thread's share and
 * 1 to 15 of 60000 particles differed by an ulp (a review, 2026-11-29). */
static void test_particle_threads(void) {
  const char *model = st_model_file("[model]\nname = mfw\nvars = x\n[params]\nK = 0\n"
                                    "[particle]\nw = normal(0, 1)\n[meanfield]\nC = cos(x)\n"
                                    "[drift]\nx = w + K*C\n[init]\nx = 0\n",
                                    3);
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = model;
  c.backend = st_backend();
  c.particles = 20000;
  c.paths = 3;
  c.dt = 1;
  c.t_end = 1;
  c.observe = "moments";
  c.save_final = 1;
  c.seed = 5;
  sdk_run *r[3] = {NULL, NULL, NULL};
  const int threads[3] = {1, 3, 6};
  for (int k = 0; k < 3; k++) {
    c.threads = threads[k];
    r[k] = st_run(&c);
  }
  for (int k = 1; k < 3; k++)
    TU_CHECK(r[0] && r[k] && st_same_store(sdk_run_results(r[0]), sdk_run_results(r[k])),
             "[particle] normal(): %d threads give bitwise the results of 1", threads[k]);
  for (int k = 0; k < 3; k++)
    sdk_run_destroy(&r[k]);
  unlink(model);
}

/* Per-particle parameters: x' = w with x(0) = 0 gives x(1) = w for dt = 1. */
static void test_particle_params(void) {
  const char *model = st_model_file("[model]\nname = pp\nvars = x, y, z\n[params]\nm = 1\ns = 2\n"
                                    "[particle]\nw = normal(m, s)\nu = uniform(-1, 3)\n"
                                    "c = cauchy(1, 0.5)\n[drift]\nx = w\ny = u\nz = c\n",
                                    2);
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = model;
  c.backend = st_backend();
  c.paths = 1 << 17;
  c.dt = 1;
  c.t_end = 1;
  c.observe = "moments,hist";
  c.sample_every = 1;
  c.obs.nhist_range = 1;
  snprintf(c.obs.hist_range_var[0], sizeof c.obs.hist_range_var[0], "z");
  c.obs.hist_range_lo[0] = 0.5;
  c.obs.hist_range_hi[0] = 1.5;
  c.obs.bins = 1;
  sdk_run *run = st_run(&c);
  TU_CHECK(run != NULL, "particle-parameter run");
  if (!run) return;
  const sdk_results *R = sdk_run_results(run);
  const st_view *Rv = st_view_of(R);
  double n = (double)c.paths;
  const double *mean = Rv->mean + 3, *var = Rv->var + 3; /* sample 1 */
  TU_NEAR(mean[0], 1, K_SIGMA * 2 / sqrt(n), "normal(1, 2) mean");
  TU_NEAR(var[0], 4, K_SIGMA * 4 * sqrt(2 / n), "normal(1, 2) variance");
  TU_NEAR(mean[1], 1, K_SIGMA * sqrt(16.0 / 12 / n), "uniform(-1, 3) mean");
  TU_NEAR(var[1], 16.0 / 12, K_SIGMA * sqrt(256.0 / 180 / n), "uniform(-1, 3) variance");
  /* cauchy(1, 0.5): P(|z - 1| <= 0.5) = 1/2 */
  double frac = Rv->density[2] * 1.0; /* density * width 1 */
  TU_NEAR(frac, 0.5, K_SIGMA * 0.5 / sqrt(n), "cauchy(1, 0.5) within one scale");
  printf("particle parameters: normal %.4f/%.4f, uniform %.4f/%.4f, cauchy P(|z-1|<0.5) %.4f\n",
         mean[0], var[0], mean[1], var[1], frac);
  sdk_run_destroy(&run);
}

int main(void) {
  st_require_backend();
  test_system_stream();
  test_kernels_agree();
  test_pair_parity();
  test_half_pairs();
  test_order_reduction();
  test_particle_params();
  test_particle_threads();
  test_deterministic();
  test_pair_vs_meanfield();
  test_stationary();
  test_below_threshold();
  return tu_finish("test_kuramoto");
}
