/* Initial states from data and final states out (issue 28: sdk_run_config
 * .init, .save_final; sim/pathdata.c).  Runs on $SDK_TEST_BACKEND.
 *   - 10^5 initial states of a model that does not move (drift and noise 0)
 *     come back bit for bit as its final states, in any number of shards,
 *     with and without the compensated update (its high parts), with
 *     --dt-check (the coarse path starts there too), per grid point
 *     (count = ngrid * ppg) and the same for every grid point (count = ppg);
 *     single precision gives the values rounded to float, nothing else;
 *   - a run cut in two (0..T/2 with save_final, T/2..T from its final
 *     states) against the run in one piece: bitwise where the step is a
 *     function of the state alone (no noise, no compensation: the carried
 *     error of the compensated sum is not in the final states); with noise
 *     the second half draws the random numbers of steps 0.. again, not
 *     those of steps N/2.. (Philox keys (seed, path, step)): the same law,
 *     other numbers, which this test shows rather than hides;
 *   - values from a reader (a file's: sdk_path_values.read) are asked for
 *     by each rank for its own paths alone, every value once over the
 *     ranks (`test_pathdata mpi` under mpirun: tests/mpi_ranks.sh);
 *   - the check that refuses NaN and Inf in the arrays as they are uploaded
 *     (core/finite.h) against isfinite on every class of double, at and
 *     across its blocks' edges, and on random bit patterns; and the one that
 *     refuses, in single precision, values that round to an infinite float,
 *     at the rounding's edge. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/finite.h"
#include "simtest.h"
#include "testutil.h"

#define NP 100000

static const char *FROZEN = "[model]\nname = frozen\nvars = x, v\n[params]\nk = 1\n"
                            "[drift]\nx = 0\nv = 0\n[noise]\nx = 0\nv = 0\n[init]\nx = 0\nv = 0\n";

static void base(sdk_run_config *c, const char *model) {
  sdk_run_config_defaults(c);
  c->model = model;
  c->backend = st_backend();
  c->seed = 5;
  c->single = 0;
  c->dt = 0.01;
  c->t_end = 0.02;
  c->quiet = 1;
  c->save_final = 1;
}

/* final/<var> of r against want (n values, rounded to float where single) */
static int same_final(const sdk_run *r, const char *var, const double *want, int64_t n,
                      int single) {
  char path[64];
  snprintf(path, sizeof path, "final/%s", var);
  const sdk_dataset *d = sdk_store_find(&sdk_run_results(r)->store, path);
  if (!d || sdk_ds_count(d) != n) return 0;
  const double *got = sdk_ds_f64(d);
  for (int64_t i = 0; i < n; i++) {
    double w = single ? (double)(float)want[i] : want[i];
    if (memcmp(&got[i], &w, sizeof w)) return 0;
  }
  return 1;
}

static void round_trip(const char *model, double *x, double *v) {
  const char *names[] = {"x", "v"};
  const double *vals[] = {x, v};
  static const int shards[] = {1, 3, 7};
  for (int k = 0; k < 3; k++)
    for (int comp = 0; comp < 2; comp++) {
      sdk_run_config c;
      base(&c, model);
      c.init = (sdk_path_values){.n = 2, .names = names, .values = vals, .count = NP};
      c.paths = NP;
      c.shards = shards[k];
      c.no_compensation = !comp;
      sdk_run *r = st_run(&c);
      TU_CHECK(r && same_final(r, "x", x, NP, 0) && same_final(r, "v", v, NP, 0),
               "10^5 initial states back bit for bit, %d shards, compensation %s", shards[k],
               comp ? "on" : "off");
      sdk_run_destroy(&r);
    }
  sdk_run_config c;
  base(&c, model);
  c.init = (sdk_path_values){.n = 2, .names = names, .values = vals, .count = NP};
  c.paths = NP;
  c.single = 1;
  sdk_run *r = st_run(&c);
  TU_CHECK(r && same_final(r, "x", x, NP, 1) && same_final(r, "v", v, NP, 1),
           "single precision: the initial states rounded to float");
  sdk_run_destroy(&r);
  base(&c, model);
  c.init = (sdk_path_values){.n = 2, .names = names, .values = vals, .count = NP};
  c.paths = NP;
  c.dt_check = 1;
  c.observe = "moments";
  r = st_run(&c);
  TU_CHECK(r && same_final(r, "x", x, NP, 0), "--dt-check: the states back bit for bit");
  /* the coarse path starts where the fine one does: their difference is 0 */
  const sdk_dataset *b =
      r ? sdk_store_find(&sdk_run_results(r)->store, "moments/bias_mean_x") : NULL;
  int zero = b != NULL;
  for (int64_t i = 0; b && i < sdk_ds_count(b); i++)
    zero &= sdk_ds_f64(b)[i] == 0;
  TU_CHECK(zero, "--dt-check: no coarse-fine difference in a model that does not move (%s)",
           b ? "moments/bias_mean_x" : "no bias dataset");
  sdk_run_destroy(&r);
}

/* count = ngrid * ppg: grid point g, path i takes value g * ppg + i; count =
 * ppg: every grid point the same */
static void per_grid(const char *model, double *x, double *v) {
  const char *names[] = {"x", "v"};
  const double *vals[] = {x, v};
  for (int every = 0; every < 2; every++) {
    sdk_run_config c;
    base(&c, model);
    c.nscan = 1;
    TU_CHECK(sdk_scan_parse("k=1:2:4", &c.scan[0], NULL) == SDK_OK, "scan");
    c.paths = 1000;
    c.init =
        (sdk_path_values){.n = 2, .names = names, .values = vals, .count = every ? 1000 : 4000};
    c.shards = 5;
    sdk_run *r = st_run(&c);
    int ok = r != NULL;
    const sdk_dataset *d = r ? sdk_store_find(&sdk_run_results(r)->store, "final/v") : NULL;
    ok = ok && d && d->rank == 2 && d->dims[0] == 4 && d->dims[1] == 1000;
    for (int64_t i = 0; ok && i < 4000; i++)
      ok = sdk_ds_f64(d)[i] == v[every ? i % 1000 : i];
    TU_CHECK(ok, "4 grid points x 1000 paths, %s",
             every ? "the same values at every grid point" : "values per grid point and path");
    sdk_run_destroy(&r);
  }
}

static sdk_run *ou_run(double t_end, int noise, int comp, const double *x0) {
  static const char *names[] = {"x"};
  const double *vals[] = {x0};
  sdk_run_config c;
  base(&c, "ou");
  c.t_end = t_end;
  c.paths = 4096;
  c.nset = 1;
  c.set_name[0] = "D";
  c.set_value[0] = noise ? 0.5 : 0;
  c.no_compensation = !comp;
  if (x0) c.init = (sdk_path_values){.n = 1, .names = names, .values = vals, .count = 4096};
  return st_run(&c);
}

static void split(void) {
  for (int noise = 0; noise < 2; noise++)
    for (int comp = 0; comp < 2; comp++) {
      sdk_run *one = ou_run(1.0, noise, comp, NULL), *a = ou_run(0.5, noise, comp, NULL);
      const sdk_dataset *fa = a ? sdk_store_find(&sdk_run_results(a)->store, "final/x") : NULL;
      sdk_run *b = fa ? ou_run(0.5, noise, comp, sdk_ds_f64(fa)) : NULL;
      const sdk_dataset *f1 = one ? sdk_store_find(&sdk_run_results(one)->store, "final/x") : NULL,
                        *fb = b ? sdk_store_find(&sdk_run_results(b)->store, "final/x") : NULL;
      int same = f1 && fb && !memcmp(sdk_ds_f64(f1), sdk_ds_f64(fb), 4096 * sizeof(double));
      double maxd = 0;
      for (int64_t i = 0; f1 && fb && i < 4096; i++)
        maxd = fmax(maxd, fabs(sdk_ds_f64(f1)[i] - sdk_ds_f64(fb)[i]));
      printf("split 0..0.5 + 0.5..1 against 0..1: noise %s, compensation %s: %s (max |diff| "
             "%.3g)\n",
             noise ? "on" : "off", comp ? "on" : "off", same ? "bitwise equal" : "differs", maxd);
      if (!noise && !comp)
        TU_CHECK(same, "no noise, no compensation: the cut run equals the one-piece run bitwise");
      if (noise)
        TU_CHECK(f1 && fb && !same,
                 "with noise the second half draws the numbers of steps 0.. again (documented)");
      sdk_run_destroy(&one), sdk_run_destroy(&a), sdk_run_destroy(&b);
    }
}

/* A reader that counts the values asked for (sdk_path_values.read): a
 * rank asks for those of its own shards alone, each once. */
typedef struct counter {
  const double *const *vals;
  int64_t *hits; /* [2][count] */
  int64_t count, asked, calls, largest;
} counter;

static sdk_err count_read(void *ctx, int k, int64_t first, int64_t n, double *out, sdk_errbuf *eb) {
  counter *c = ctx;
  (void)eb;
  memcpy(out, c->vals[k] + first, (size_t)n * sizeof *out);
  for (int64_t i = first; i < first + n; i++)
    c->hits[k * c->count + i]++;
  c->asked += n, c->calls++;
  if (n > c->largest) c->largest = n;
  return SDK_OK;
}

/* 4 grid points x 25000 paths (NP / 4) in 7 shards over the ranks of comm (NULL:
 * one process): together the ranks ask for every value once (count =
 * ngrid * ppg) or once per grid point (count = ppg), none twice, in pieces
 * of at most 65536, and the final states are the values bit for bit */
static void shares(const char *model, double *x, double *v, sdk_comm *comm) {
  const char *names[] = {"x", "v"};
  const double *vals[] = {x, v};
  int R = sdk_comm_size(comm), me = sdk_comm_rank(comm);
  for (int every = 0; every < 2; every++) {
    int64_t ppg = NP / 4, count = every ? ppg : 4 * ppg; /* (4 ppg values: all of x and v) */
    counter ct = {.vals = vals, .count = count, .hits = calloc((size_t)(2 * count), 8)};
    if (!ct.hits) return;
    sdk_run_config c;
    base(&c, model);
    c.comm = comm;
    c.nscan = 1;
    TU_CHECK(sdk_scan_parse("k=1:2:4", &c.scan[0], NULL) == SDK_OK, "scan");
    c.paths = ppg;
    c.init = (sdk_path_values){
        .n = 2, .names = names, .count = count, .read = count_read, .read_ctx = &ct};
    c.shards = 7;
    sdk_run *r = st_run(&c);
    const sdk_dataset *d = r ? sdk_store_find(&sdk_run_results(r)->store, "final/v") : NULL;
    int ok = me != 0 || (d && sdk_ds_count(d) == 4 * ppg);
    for (int64_t i = 0; ok && me == 0 && i < 4 * ppg; i++) {
      ok = sdk_ds_f64(d)[i] == v[every ? i % ppg : i];
      if (!ok) /* (where, for the record) */
        printf("final/v[%lld] (grid point %lld, path %lld) = %.17g, given %.17g\n", (long long)i,
               (long long)(i / ppg), (long long)(i % ppg), sdk_ds_f64(d)[i],
               v[every ? i % ppg : i]);
    }
    if (me == 0 && !d) printf("no final/v (run %s)\n", r ? "done" : "failed");
    TU_CHECK(r && ok, "rank %d: %d ranks, values from a reader: the final states bit for bit", me,
             R);
    int64_t mine = ct.asked;
    TU_CHECK(sdk_comm_allreduce(comm, ct.hits, 2 * count, SDK_COMM_I64, SDK_COMM_SUM, NULL) ==
                 SDK_OK,
             "allreduce");
    int64_t want = every ? 4 : 1, bad = 0;
    for (int64_t i = 0; i < 2 * count; i++)
      bad += ct.hits[i] != want;
    printf("rank %d of %d (%s): %lld of %lld values asked for (%lld calls, at most %lld at once)\n",
           me, R, every ? "the same for every grid point" : "per grid point and path",
           (long long)mine, (long long)(2 * 4 * ppg), (long long)ct.calls, (long long)ct.largest);
    TU_CHECK(bad == 0 && ct.largest <= 65536 && (R == 1 || mine < 2 * 4 * ppg),
             "rank %d of %d: the ranks together ask for every value %lld time(s), none more "
             "(%lld wrong), at most 65536 at once",
             me, R, (long long)want, (long long)bad);
    free(ct.hits);
    sdk_run_destroy(&r);
  }
}

/* sdk_first_nonfinite against a plain isfinite loop */
static int64_t first_bad_plain(const double *v, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(v[i])) return i;
  return -1;
}

static void check_first_nonfinite(void) {
  enum { N = 10000 };
  static double a[N];
  const double finite[] = {0.0, -0.0, 1.0, -1.0, DBL_MAX, -DBL_MAX, DBL_MIN, 4.9e-324, -4.9e-324};
  for (int i = 0; i < N; i++)
    a[i] = finite[i % (int)(sizeof finite / sizeof *finite)];
  TU_CHECK(sdk_first_nonfinite(a, N) == -1, "every finite class (0, -0, max, min, subnormal)");
  const double bad[] = {NAN, -NAN, INFINITY, -INFINITY};
  const int64_t at[] = {0, 1, 4095, 4096, 4097, 8191, 8192, N - 1};
  for (size_t b = 0; b < sizeof bad / sizeof *bad; b++)
    for (size_t k = 0; k < sizeof at / sizeof *at; k++) {
      double keep = a[at[k]];
      a[at[k]] = bad[b];
      int64_t got = sdk_first_nonfinite(a, N);
      TU_CHECK(got == at[k], "%g at %lld: found at %lld", bad[b], (long long)at[k], (long long)got);
      a[at[k]] = keep;
    }
  uint64_t s = 0x9e3779b97f4a7c15ull; /* random bits: every exponent, NaN payloads */
  int agree = 1, some = 0;
  for (int r = 0; r < 200; r++) {
    for (int i = 0; i < N; i++) {
      s ^= s << 13, s ^= s >> 7, s ^= s << 17;
      uint64_t bits = s & ~(1ull << 62); /* finite, but now and then NaN or Inf */
      if (i % 1009 == (r * 31) % 1009 && (s >> 60) < 4) bits |= 0x7ff0000000000000ull;
      memcpy(&a[i], &bits, sizeof bits);
    }
    int64_t n = N - r * 37, want = first_bad_plain(a, n);
    agree &= sdk_first_nonfinite(a, n) == want;
    some += want >= 0;
  }
  /* rounded to float: FLT_MAX + 2^103 (half an ulp) is a tie, which goes to
   * the even neighbour, 2^128: Inf; the double just below it goes to FLT_MAX */
  const double half = ldexp(1.0, 103), edge = (double)FLT_MAX + half;
  for (int i = 0; i < N; i++)
    a[i] = i % 3 ? (double)FLT_MAX : -(double)FLT_MAX;
  a[N - 2] = nextafter(edge, 0.0);
  TU_CHECK(sdk_first_not_float(a, N) == -1, "FLT_MAX and just below the tie: float-finite");
  a[4100] = -edge;
  TU_CHECK(sdk_first_not_float(a, N) == 4100, "-(FLT_MAX + half an ulp) at 4100: found at %lld",
           (long long)sdk_first_not_float(a, N));
  a[17] = 1e300;
  TU_CHECK(sdk_first_not_float(a, N) == 17, "1e300 at 17 first");
  /* below FLT_MIN a float is subnormal or 0 (fast math flushes it to 0): a
   * value not 0 that rounds there fails; 0, -0, FLT_MIN and -FLT_MIN hold */
  for (int i = 0; i < N; i++)
    a[i] = i % 4 == 0 ? 0.0 : i % 4 == 1 ? -0.0 : i % 4 == 2 ? (double)FLT_MIN : -(double)FLT_MIN;
  TU_CHECK(sdk_first_not_float(a, N) == -1, "0, -0, +-FLT_MIN: floats");
  a[5000] = -1e-39;
  TU_CHECK(sdk_first_not_float(a, N) == 5000, "-1e-39 (a subnormal float) at 5000: found at %lld",
           (long long)sdk_first_not_float(a, N));
  a[4097] = 1e-300;
  TU_CHECK(sdk_first_not_float(a, N) == 4097, "1e-300 (float 0) at 4097 first");
  TU_CHECK(agree && some > 50 && some < 200,
           "random bit patterns (%d of 200 with NaN or Inf): the first non-finite value as "
           "isfinite finds it",
           some);
}

int main(int argc, char **argv) {
  st_require_backend();
  check_first_nonfinite();
  const char *model = st_model_file(FROZEN, 0);
  double *x = malloc(NP * sizeof *x), *v = malloc(NP * sizeof *v);
  if (!x || !v) return 1;
  uint64_t s = 88172645463325252ull;
  for (int i = 0; i < NP; i++) { /* xorshift: any bits of finite doubles */
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    x[i] = ldexp((double)(s >> 11), -53) * 2 - 1;
    x[i] = ldexp(x[i], (int)(s % 40) - 20);
    v[i] = -x[i] * 3.0 + (double)i;
  }
  /* `test_pathdata mpi` under mpirun (tests/mpi_ranks.sh): the shares alone */
  if (argc > 1 && !strcmp(argv[1], "mpi")) {
    sdk_comm *comm = NULL;
    sdk_errbuf eb = {0};
    TU_CHECK(sdk_comm_world(&comm, &eb) == SDK_OK, "MPI: %s", eb.msg);
    if (comm) shares(model, x, v, comm);
    int fails = tu_finish("test_pathdata mpi");
    sdk_comm_destroy(&comm);
    free(x), free(v);
    return fails;
  }
  round_trip(model, x, v);
  per_grid(model, x, v);
  shares(model, x, v, NULL);
  split();
  free(x), free(v);
  return tu_finish("test_pathdata");
}
