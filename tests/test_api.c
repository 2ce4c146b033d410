/* The public C API (include/sdekit.h), used as a program outside sdekit
 * would use it: nothing but <sdekit.h>.
 *
 * - versions, errors (a model error carries its file and line)
 * - the OU variance of a scan against the exact variance of the Euler
 *   recursion (5 standard errors)
 * - typed setters and the CLI's option strings give bitwise the same results
 * - datasets: shapes, dimension names, standard errors; write + read back
 * - sample times as an array: bitwise the --sample-every run at those times
 * - cancellation through the callback, checkpoint, resume: bitwise the
 *   uninterrupted run
 * - the log callback; two runs in two threads at once; the caller's
 *   floating-point mode (no flush-to-zero left behind)
 * Backend from $SDK_TEST_BACKEND (default cpu). */
#include <math.h>
#include <pthread.h>
#include <sdekit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "testutil.h"

#define K_SIGMA 5.0

static const char *backend(void) {
  const char *b = getenv("SDK_TEST_BACKEND");
  return b && *b ? b : "cpu";
}

extern char **environ;

/* a call that must succeed (err holds the message otherwise) */
#define OK(call) TU_CHECK((call) == SDEKIT_OK, "%s: %s", #call, err.message)

/* An OU configuration: the scan k = 0.5, 1, 2 (given as values), Euler in
 * double precision, moments every 50 steps and the drift. */
static sdekit_config *ou_config(int64_t paths, sdekit_error *err) {
  sdekit_config *c = NULL;
  const double ks[3] = {0.5, 1.0, 2.0};
  if (sdekit_config_create(&c, err) ||
      sdekit_config_set_environment(c, (const char *const *)environ, err) ||
      sdekit_config_set_model(c, "ou", err) || sdekit_config_add_scan_values(c, "k", ks, 3, err) ||
      sdekit_config_set_param(c, "D", 0.4, err) || sdekit_config_set_paths(c, paths, err) ||
      sdekit_config_set_dt(c, 0.01, err) || sdekit_config_set_t_end(c, 2.0, err) ||
      sdekit_config_set_scheme(c, "euler", err) || sdekit_config_set_precision(c, "double", err) ||
      sdekit_config_set_sample_every(c, 50, err) ||
      sdekit_config_set_observe(c, "moments,drift", err) || sdekit_config_set_seed(c, 4242, err) ||
      sdekit_config_set_backend(c, backend(), err)) {
    sdekit_config_destroy(&c);
    return NULL;
  }
  return c;
}

/* The same from the CLI's words. */
static sdekit_config *ou_config_args(int64_t paths, sdekit_error *err) {
  char p[32];
  snprintf(p, sizeof p, "--paths=%lld", (long long)paths);
  const char *argv[] = {"ou",        "--scan",    "k=0.5,1,2",     "--set",   "D=0.4",
                        p,           "--dt",      "0.01",          "--t-end", "2",
                        "--scheme",  "euler",     "--precision",   "double",  "--sample-every",
                        "50",        "--observe", "moments,drift", "--seed",  "4242",
                        "--backend", backend()};
  sdekit_config *c = NULL;
  if (sdekit_config_create(&c, err) ||
      sdekit_config_set_environment(c, (const char *const *)environ, err) ||
      sdekit_config_args(c, (int)(sizeof argv / sizeof *argv), argv, NULL, NULL, err)) {
    sdekit_config_destroy(&c);
    return NULL;
  }
  return c;
}

static int same_dataset(const sdekit_result *a, const sdekit_result *b, const char *name) {
  sdekit_dataset x, y;
  if (sdekit_result_dataset(a, name, &x, NULL) || sdekit_result_dataset(b, name, &y, NULL))
    return 0;
  size_t es = 8;
  return x.count == y.count && x.rank == y.rank && !memcmp(x.dims, y.dims, sizeof x.dims) &&
         !memcmp(x.data, y.data, (size_t)x.count * es);
}

static int same_all(const sdekit_result *a, const sdekit_result *b) {
  int n = sdekit_result_ndatasets(a), ok = n > 0 && n == sdekit_result_ndatasets(b);
  for (int i = 0; ok && i < n; i++)
    if (!(ok = same_dataset(a, b, sdekit_result_dataset_name(a, i))))
      fprintf(stderr, "dataset %s differs\n", sdekit_result_dataset_name(a, i));
  return ok;
}

static void check_errors(void) {
  TU_CHECK(sdekit_version_number() == SDEKIT_VERSION_NUMBER, "library %s, header %s",
           sdekit_version(), SDEKIT_VERSION_STRING);
  TU_CHECK(!strcmp(sdekit_version(), SDEKIT_VERSION_STRING), "version string");
  sdekit_model *m = NULL;
  sdekit_error err;
  const char *bad = "[model]\nname = bad\nvars = x\n[params]\nk = 1\n[drift]\nx = -k*y\n";
  sdekit_status s = sdekit_model_from_string(bad, "bad.sde", &m, &err);
  TU_CHECK(s == SDEKIT_ERR_MODEL && m == NULL, "a bad model is a model error (%d)", s);
  TU_CHECK(!strcmp(err.file, "bad.sde") && err.line == 7, "file '%s' line %d: %s", err.file,
           err.line, err.message);
  TU_CHECK(strstr(err.message, "unknown name 'y'") != NULL, "message: %s", err.message);
  TU_CHECK(sdekit_status_exit_code(s) == 2, "model errors exit 2");
  s = sdekit_model_load("no-such-model-anywhere", NULL, &m, &err);
  TU_CHECK(s == SDEKIT_ERR_USAGE && strstr(err.message, "unknown model"), "%s", err.message);
  OK(sdekit_model_load("josephson", NULL, &m, &err));
  TU_CHECK(m && sdekit_model_nvars(m) == 2 && !strcmp(sdekit_model_var(m, 1), "v") &&
               sdekit_model_has_period(m) && !strcmp(sdekit_model_kind(m), "paths"),
           "josephson: vars, period, kind");
  sdekit_model_destroy(&m);
  sdekit_model_destroy(&m); /* NULL: nothing */
  sdekit_catalog *cat = NULL;
  OK(sdekit_catalog_create(NULL, &cat, &err));
  int found = 0;
  for (int i = 0; i < sdekit_catalog_count(cat); i++)
    found |= !strcmp(sdekit_catalog_file(cat, i), "ou.sde");
  TU_CHECK(found, "the catalog lists ou.sde");
  sdekit_catalog_destroy(&cat);
  sdekit_config *c = NULL;
  OK(sdekit_config_create(&c, &err));
  s = sdekit_config_set_paths(c, 0, &err);
  TU_CHECK(s == SDEKIT_ERR_USAGE &&
               !strcmp(err.message, "--paths '0': expected a whole number >= 1"),
           "%s", err.message);
  s = sdekit_config_option(c, "no-such-option", "1", &err);
  TU_CHECK(s == SDEKIT_ERR_USAGE && strstr(err.message, "unknown option"), "%s", err.message);
  sdekit_result *r = NULL;
  s = sdekit_run(c, &r, &err);
  TU_CHECK(s == SDEKIT_ERR_USAGE && r == NULL, "a run without a model: %s", err.message);
  sdekit_config_destroy(&c);
  char *h = sdekit_config_help();
  TU_CHECK(h && strstr(h, "--paths N") && strstr(h, "SDEKIT_MODEL_PATH"), "help text");
  sdekit_free(h);
}

/* --observe-expr through the typed setter: the observable expr comes on with
 * mean and standard error datasets; the mean of the deterministic k*t is k t */
static void check_observe_expr(void) {
  sdekit_error err;
  sdekit_config *c = ou_config(256, &err);
  TU_CHECK(c != NULL, "configuration: %s", err.message);
  if (!c) return;
  TU_CHECK(sdekit_config_add_observe_expr(c, NULL, "x", &err) == SDEKIT_ERR_USAGE,
           "no name refused");
  OK(sdekit_config_add_observe_expr(c, "kt", "k*t", &err));
  sdekit_result *r = NULL;
  OK(sdekit_run(c, &r, &err));
  sdekit_dataset m, t;
  if (r && sdekit_result_dataset(r, "expr/mean_kt", &m, &err) == SDEKIT_OK &&
      sdekit_result_dataset(r, "expr/t", &t, &err) == SDEKIT_OK) {
    const double *mv = m.data, *tv = t.data;
    int64_t last = m.count - 1; /* k = 2, the last sample */
    TU_CHECK(m.std_error && !strcmp(m.std_error, "expr/err_kt"), "expr/mean_kt's standard error");
    TU_CHECK(fabs(mv[last] - 2.0 * tv[last]) < 1e-12, "k*t at k = 2, t = %g: %g", tv[last],
             mv[last]);
  } else
    TU_CHECK(0, "expr/mean_kt: %s", err.message);
  sdekit_result_destroy(&r);
  sdekit_config_destroy(&c);
}

/* sdekit_config_set_sample_times: the times of a --sample-every 50 run as an
 * array give its datasets bitwise; not finite or 2-d refused; n = 0 unsets */
static void check_sample_times(const sdekit_result *every) {
  sdekit_error err;
  sdekit_config *c = ou_config(1 << 16, &err); /* check_ou's */
  TU_CHECK(c != NULL, "configuration: %s", err.message);
  if (!c) return;
  const double bad[2] = {0.5, NAN}, t[5] = {0, 0.5, 1, 1.5, 2};
  TU_CHECK(sdekit_config_set_sample_times(c, bad, 2, &err) == SDEKIT_ERR_USAGE &&
               strstr(err.message, "not a finite number"),
           "a NaN time refused: %s", err.message);
  OK(sdekit_config_set_sample_every(c, 0, &err));
  OK(sdekit_config_set_sample_times(c, t, 5, &err));
  sdekit_result *r = NULL;
  OK(sdekit_run(c, &r, &err));
  TU_CHECK(r && same_all(every, r), "--sample-times 0,0.5,...,2 == --sample-every 50");
  sdekit_result_destroy(&r);
  OK(sdekit_config_set_sample_times(c, NULL, 0, &err)); /* unset: the default interval */
  OK(sdekit_config_set_sample_every(c, 50, &err));
  OK(sdekit_run(c, &r, &err));
  TU_CHECK(r && same_all(every, r), "sample times unset");
  sdekit_result_destroy(&r);
  sdekit_config_destroy(&c);
}

/* Var(x_n) of x' = a x + sqrt(2 D dt) w, a = 1 - k dt, x_0 fixed. */
static double euler_var(double k, double D, double dt, double n) {
  double a = 1 - k * dt;
  return 2 * D * dt * (1 - pow(a, 2 * n)) / (1 - a * a);
}

static void check_ou(sdekit_result **keep) {
  sdekit_error err;
  const int64_t N = 1 << 16;
  sdekit_config *c = ou_config(N, &err), *c2 = ou_config_args(N, &err);
  TU_CHECK(c && c2, "configurations: %s", err.message);
  if (!c || !c2) return;
  sdekit_result *r = NULL, *r2 = NULL;
  OK(sdekit_run(c, &r, &err));
  OK(sdekit_run(c2, &r2, &err));
  if (!r || !r2) return;
  TU_CHECK(same_all(r, r2), "typed setters and option strings give the same results");
  TU_CHECK(sdekit_result_nscan(r) == 1 && !strcmp(sdekit_result_scan_name(r, 0), "k"), "scan");
  int64_t nk = 0;
  const double *kv = sdekit_result_scan_values(r, 0, &nk);
  TU_CHECK(nk == 3 && kv && kv[2] == 2.0, "scan values");
  sdekit_dataset var, t, dv;
  OK(sdekit_result_dataset(r, "moments/var_x", &var, &err));
  OK(sdekit_result_dataset(r, "moments/t", &t, &err));
  TU_CHECK(var.rank == 2 && var.dims[0] == 3 && var.grid_rank == 1 && var.sample_axis == 1,
           "moments/var_x: rank %d dims %lld x %lld grid %d sample %d", var.rank,
           (long long)var.dims[0], (long long)var.dims[1], var.grid_rank, var.sample_axis);
  TU_CHECK(var.dim_names[0] && !strcmp(var.dim_names[0], "k") && var.dim_names[1] &&
               !strcmp(var.dim_names[1], "sample"),
           "dimension names");
  OK(sdekit_result_dataset(r, "drift/value", &dv, &err));
  TU_CHECK(dv.std_error && !strcmp(dv.std_error, "drift/error"), "drift/value's standard error");
  const double *v = var.data, *tt = t.data;
  int64_t ns = var.dims[1];
  for (int64_t g = 0; g < nk && kv; g++)
    for (int64_t s = 1; s < ns; s++) {
      double time = tt[g * ns + s], n = floor(time / 0.01 + 0.5),
             want = euler_var(kv[g], 0.4, 0.01, n);
      double got = v[g * ns + s], se = got * sqrt(2.0 / (double)(N - 1));
      char what[96];
      snprintf(what, sizeof what, "OU variance k=%g t=%g", kv[g], time);
      TU_NEAR(got, want, K_SIGMA * se, what);
      if (s == ns - 1)
        printf("OU k=%g t=%g: variance %.6f, exact (Euler) %.6f, stationary D/k %.6f (%+.2f se)\n",
               kv[g], time, got, want, 0.4 / kv[g], (got - want) / se);
    }
  sdekit_attr a;
  OK(sdekit_result_attr(r, "", "seed", &a, &err));
  TU_CHECK(a.type == SDEKIT_ATTR_U64 && a.u64 && a.u64[0] == 4242, "seed attribute");
  sdekit_result_destroy(&r2);
  sdekit_config_destroy(&c);
  sdekit_config_destroy(&c2);
  *keep = r;
}

static void check_file(const sdekit_result *r, const char *dir) {
  char path[4200];
  snprintf(path, sizeof path, "%s/ou.h5", dir);
  sdekit_error err;
  OK(sdekit_result_write(r, path, NULL, NULL, &err));
  sdekit_result *back = NULL;
  OK(sdekit_result_read(path, &back, &err));
  if (!back) return;
  TU_CHECK(same_all(r, back), "written and read back: the same datasets");
  TU_CHECK(sdekit_result_nobservables(back) == 2, "observables of the file: %d",
           sdekit_result_nobservables(back));
  sdekit_dataset d;
  OK(sdekit_result_dataset(back, "moments/var_x", &d, &err));
  TU_CHECK(d.grid_rank == 1 && d.sample_axis == 1, "axes read back");
  sdekit_result_destroy(&back);
  sdekit_status s = sdekit_result_read("/nonexistent/ou.h5", &back, &err);
  TU_CHECK(s != SDEKIT_OK && back == NULL && strstr(err.message, "/nonexistent/ou.h5"), "%s",
           err.message);
  unlink(path);
}

static void count_progress(void *user, double fraction, double steps_per_s) {
  (void)fraction, (void)steps_per_s;
  ++*(int *)user;
}

/* Issue 25 item 9: a TSV header naming two columns alike (cov_a_b_c of the
 * variables a_b, c and of a, b_c).  A configuration with a TSV output is
 * refused by sdekit_run before it integrates a step; results made without
 * one are refused by sdekit_result_write with nothing written, not even the
 * text of the observable before the one that clashes. */
static void check_tsv_names(const char *dir) {
  char model[4200], out[4200], one[4200];
  snprintf(model, sizeof model, "%s/clash.sde", dir);
  snprintf(out, sizeof out, "%s/clash.tsv", dir);
  snprintf(one, sizeof one, "%s/clash.drift.tsv", dir);
  FILE *f = fopen(model, "w");
  TU_CHECK(f != NULL, "cannot write %s", model);
  if (!f) return;
  fputs("[model]\nname = clash\nvars = a_b, c, a, b_c\n[drift]\na_b = -a_b\nc = -c\na = -a\n"
        "b_c = -b_c\n[noise]\na_b = 1\nc = 1\na = 1\nb_c = 1\n",
        f);
  fclose(f);
  sdekit_error err;
  sdekit_config *c = NULL;
  int progress = 0;
  OK(sdekit_config_create(&c, &err));
  if (!c) return;
  OK(sdekit_config_set_environment(c, (const char *const *)environ, &err));
  OK(sdekit_config_set_model(c, model, &err));
  OK(sdekit_config_set_paths(c, 8, &err));
  OK(sdekit_config_set_dt(c, 0.01, &err));
  OK(sdekit_config_set_t_end(c, 0.1, &err));
  OK(sdekit_config_set_observe(c, "drift,cov", &err));
  OK(sdekit_config_set_backend(c, backend(), &err));
  sdekit_config_set_progress(c, count_progress, &progress);
  sdekit_result *r = NULL;
  OK(sdekit_run(c, &r, &err)); /* no output: the HDF5 file keeps the names apart */
  TU_CHECK(progress > 0, "a run reports its progress");
  if (r) {
    sdekit_status s = sdekit_result_write(r, out, NULL, NULL, &err);
    TU_CHECK(s == SDEKIT_ERR_USAGE && strstr(err.message, "'cov_a_b_c'"), "TSV write: %d %s", s,
             err.message);
    TU_CHECK(access(one, F_OK) != 0, "%s written by a write that failed", one);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    s = m ? sdekit_result_write_tsv(r, NULL, m, &err) : SDEKIT_ERR_NOMEM;
    if (m) fclose(m);
    TU_CHECK(s == SDEKIT_ERR_USAGE && len == 0, "TSV to a stream: %d, %zu bytes written", s, len);
    free(text);
  }
  sdekit_result_destroy(&r);
  /* the same configuration with a TSV output */
  progress = 0;
  OK(sdekit_config_add_output(c, out, &err));
  sdekit_status s = sdekit_run(c, &r, &err);
  TU_CHECK(s == SDEKIT_ERR_USAGE && !r && strstr(err.message, "TSV output of --observe cov") &&
               strstr(err.message, "'cov_a_b_c'"),
           "a run with a TSV output: %d %s", s, err.message);
  TU_CHECK(progress == 0, "refused after %d reports of progress, not before the run", progress);
  sdekit_result_destroy(&r);
  sdekit_config_destroy(&c);
  unlink(model);
}

/* a stop after `limit` chunks of steps (the progress callback counts them:
 * cancel is also polled while the kernel is made) */
typedef struct cancel_after {
  int chunks, limit;
} cancel_after;

static void chunk_cb(void *user, double frac, double sps) {
  (void)frac, (void)sps;
  ((cancel_after *)user)->chunks++;
}

static int cancel_cb(void *user) {
  cancel_after *ca = user;
  return ca->chunks >= ca->limit;
}

static void check_cancel(const sdekit_result *whole, const char *dir) {
  sdekit_error err;
  sdekit_config *c = ou_config(1 << 16, &err);
  if (!c) return;
  char ck[4200];
  snprintf(ck, sizeof ck, "%s/ou.ckpt", dir);
  OK(sdekit_config_set_checkpoint(c, ck, 0, &err));
  cancel_after ca = {0, 3};
  sdekit_config_set_cancel(c, cancel_cb, &ca);
  sdekit_config_set_progress(c, chunk_cb, &ca);
  sdekit_result *r = NULL;
  sdekit_status s = sdekit_run(c, &r, &err);
  TU_CHECK(s == SDEKIT_ERR_CANCELLED && r == NULL, "cancelled run: %d %s", s, err.message);
  TU_CHECK(strstr(err.message, "checkpoint saved to") != NULL, "%s", err.message);
  sdekit_config_destroy(&c);
  OK(sdekit_config_from_checkpoint(ck, 0, &c, &err));
  if (!c) return;
  /* the same surroundings (the same C compiler: another one rounds differently) */
  OK(sdekit_config_set_environment(c, (const char *const *)environ, &err));
  /* what the checkpoint holds cannot change (a seed given was recorded, not
   * used); where it runs can */
  TU_CHECK(sdekit_config_option(c, "seed", "7", &err) == SDEKIT_ERR_USAGE &&
               strstr(err.message, "--seed cannot change a resumed run"),
           "resumed: --seed refused (%s)", err.message);
  TU_CHECK(sdekit_config_set_fast_math(c, 0, &err) == SDEKIT_ERR_USAGE,
           "resumed: fast math off refused (%s)", err.message);
  OK(sdekit_config_option(c, "threads", "1", &err));
  OK(sdekit_run(c, &r, &err));
  TU_CHECK(r && same_all(whole, r), "resumed = uninterrupted, bitwise");
  sdekit_result_destroy(&r);
  sdekit_config_destroy(&c);
  unlink(ck);
}

typedef struct cancel_poll {
  int polls, at;
} cancel_poll;

static int cancel_at_poll(void *user) {
  cancel_poll *cp = user;
  return ++cp->polls >= cp->at;
}

/* A stop before the first step: at the first poll (before the backend
 * opens) and at the second (the code generator's first); nothing to save. */
static void check_cancel_early(const char *dir) {
  static const char *const when[] = {"while preparing the run", "while generating the kernel"};
  for (int k = 0; k < 2; k++) {
    sdekit_error err;
    sdekit_config *c = ou_config(1 << 10, &err);
    if (!c) return;
    char ck[4200];
    snprintf(ck, sizeof ck, "%s/early.ckpt", dir);
    OK(sdekit_config_set_checkpoint(c, ck, 0, &err));
    cancel_poll cp = {0, k + 1};
    sdekit_config_set_cancel(c, cancel_at_poll, &cp);
    sdekit_result *r = NULL;
    sdekit_status s = sdekit_run(c, &r, &err);
    TU_CHECK(s == SDEKIT_ERR_CANCELLED && r == NULL && strstr(err.message, when[k]) &&
                 strstr(err.message, "nothing to save"),
             "stopped at poll %d: %d %s", k + 1, s, err.message);
    TU_CHECK(access(ck, F_OK) != 0, "stopped at poll %d: no checkpoint written", k + 1);
    sdekit_config_destroy(&c);
  }
}

static void count_log(void *user, sdekit_log_level level, const char *msg) {
  (void)level;
  (void)msg;
  ++*(int *)user;
}

static void *thread_run(void *arg) {
  sdekit_result **out = arg;
  sdekit_config *c = ou_config(1 << 14, NULL);
  if (c) sdekit_run(c, out, NULL);
  sdekit_config_destroy(&c);
  return NULL;
}

static void check_threads_and_log(void) {
  sdekit_result *a = NULL, *b = NULL, *seq = NULL;
  pthread_t ta, tb;
  pthread_create(&ta, NULL, thread_run, &a);
  pthread_create(&tb, NULL, thread_run, &b);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  sdekit_error err;
  sdekit_config *c = ou_config(1 << 14, &err);
  int nlog = 0;
  if (c) {
    sdekit_config_set_log(c, count_log, &nlog, SDEKIT_LOG_DEBUG);
    OK(sdekit_config_set_verbose(c, 1, &err));
    OK(sdekit_run(c, &seq, &err));
  }
  TU_CHECK(a && b && seq && same_all(a, seq) && same_all(b, seq),
           "two runs in two threads = one run alone");
  TU_CHECK(nlog > 0, "the log callback heard %d messages", nlog);
  sdekit_result_destroy(&a);
  sdekit_result_destroy(&b);
  sdekit_result_destroy(&seq);
  sdekit_config_destroy(&c);
}

/* sdekit_config_add_scan_table: the zipped values, added whole or refused whole;
 * the run equals the same points given as --scan k=LIST --scan +D=LIST. */
static void check_scan_table(void) {
  sdekit_error err;
  const double k[3] = {0.5, 1, 2}, d[3] = {0.1, 0.2, 0.4}, bad[3] = {0.1, NAN, 0.4};
  const char *names[2] = {"k", "D"}, *twice[2] = {"k", "k"};
  const double *vals[2] = {k, d}, *badv[2] = {k, bad};
  sdekit_config *c = NULL;
  sdekit_result *a = NULL, *b = NULL;
  OK(sdekit_config_create(&c, &err));
  TU_CHECK(sdekit_config_add_scan_table(c, 2, names, badv, 3, &err) == SDEKIT_ERR_USAGE &&
               strstr(err.message, "not a finite number"),
           "a NaN in a table is refused: %s", err.message);
  TU_CHECK(sdekit_config_add_scan_table(c, 2, twice, vals, 3, &err) == SDEKIT_ERR_USAGE &&
               strstr(err.message, "twice"),
           "a name twice in a table is refused: %s", err.message);
  const char *argv[] = {"ou",        "--paths", "64",        "--t-end", "0.5",
                        "--observe", "drift",   "--backend", backend()};
  OK(sdekit_config_set_environment(c, (const char *const *)environ, &err));
  OK(sdekit_config_args(c, 9, argv, NULL, NULL, &err));
  OK(sdekit_config_add_scan_table(c, 2, names, vals, 3, &err)); /* nothing added before */
  OK(sdekit_run(c, &a, &err));
  sdekit_config_destroy(&c);
  const char *argv2[] = {
      "ou",        "--paths", "64",     "--t-end",   "0.5",    "--observe",     "drift",
      "--backend", backend(), "--scan", "k=0.5,1,2", "--scan", "+D=0.1,0.2,0.4"};
  OK(sdekit_config_create(&c, &err));
  OK(sdekit_config_set_environment(c, (const char *const *)environ, &err));
  OK(sdekit_config_args(c, 13, argv2, NULL, NULL, &err));
  OK(sdekit_run(c, &b, &err));
  sdekit_config_destroy(&c);
  if (a && b) {
    TU_CHECK(sdekit_result_nscan(a) == 1, "a table is one axis (%d)", sdekit_result_nscan(a));
    TU_CHECK(same_dataset(a, b, "drift/value") && same_dataset(a, b, "scan/D"),
             "scan table = --scan k=LIST --scan +D=LIST, bit for bit");
  }
  sdekit_result_destroy(&a);
  sdekit_result_destroy(&b);
}

/* every dataset of a in b, with the same bytes */
static int same_datasets(const sdekit_result *a, const sdekit_result *b) {
  int n = sdekit_result_ndatasets(a), same = n == sdekit_result_ndatasets(b) && n > 0;
  for (int i = 0; same && i < n; i++) {
    sdekit_dataset da, db;
    sdekit_error err;
    const char *name = sdekit_result_dataset_name(a, i);
    same = sdekit_result_dataset(a, name, &da, &err) == SDEKIT_OK &&
           sdekit_result_dataset(b, name, &db, &err) == SDEKIT_OK && da.count == db.count &&
           da.type == db.type && !memcmp(da.data, db.data, (size_t)da.count * 8);
  }
  return same;
}

/* A session (issue 32): runs given it keep a device's context between them
 * (one held context on a GPU, none on the CPU) and give the same bits; a
 * second configuration in the same session finds it held. */
static void check_session(void) {
  sdekit_error err;
  sdekit_session *s = NULL;
  sdekit_result *plain = NULL, *one = NULL, *two = NULL;
  sdekit_config *c = ou_config(2000, &err);
  TU_CHECK(c != NULL, "session: configuration: %s", err.message);
  if (!c) return;
  OK(sdekit_session_create(&s, &err));
  OK(sdekit_run(c, &plain, &err));
  OK(sdekit_config_set_session(c, s, &err));
  OK(sdekit_run(c, &one, &err));
  int held = sdekit_session_held(s);
  OK(sdekit_run(c, &two, &err));
  int gpu = !strcmp(backend(), "cuda");
  TU_CHECK(held == gpu && sdekit_session_held(s) == gpu,
           "session: %d context(s) held after one run, %d after two (expected %d)", held,
           sdekit_session_held(s), gpu);
  TU_CHECK(plain && one && two && same_datasets(plain, one) && same_datasets(plain, two),
           "session: runs in a session give the bits of a run without one");
  sdekit_config_destroy(&c);
  sdekit_session_destroy(&s);
  TU_CHECK(s == NULL, "session: destroyed");
  sdekit_result_destroy(&plain);
  sdekit_result_destroy(&one);
  sdekit_result_destroy(&two);
}

/* The same with first passage (issue 32: the survival counted where the
 * paths live, the live list, the staging buffer): a session's later runs,
 * given the device memory of the earlier ones (a GPU), the bits of a run
 * without a session; another seed between them leaves other values in the
 * memory taken. */
static void check_session_fpt(void) {
  static const char BM[] = "[model]\nname = bm\nvars = x\n[params]\nD = 1\n[drift]\n"
                           "x = 0.2\n[noise]\nx = sqrt(2*D)\n[init]\nx = 0.5\n"
                           "[boundaries]\nleft = absorb x <= 0\nright = absorb x >= 1\n";
  sdekit_error err;
  sdekit_session *s = NULL;
  sdekit_result *plain = NULL, *one = NULL, *other = NULL, *two = NULL;
  sdekit_config *c = NULL;
  if (sdekit_config_create(&c, &err) ||
      sdekit_config_set_environment(c, (const char *const *)environ, &err) ||
      sdekit_config_set_model_text(c, BM, "bm.sde", &err) ||
      sdekit_config_set_paths(c, 70000, &err) || sdekit_config_set_dt(c, 0.001, &err) ||
      sdekit_config_set_t_end(c, 0.3, &err) || sdekit_config_set_observe(c, "fpt", &err) ||
      sdekit_config_set_seed(c, 7, &err) || sdekit_config_set_backend(c, backend(), &err)) {
    TU_CHECK(0, "session fpt: configuration: %s", err.message);
    sdekit_config_destroy(&c);
    return;
  }
  OK(sdekit_session_create(&s, &err));
  OK(sdekit_run(c, &plain, &err));
  OK(sdekit_config_set_session(c, s, &err));
  OK(sdekit_run(c, &one, &err));
  OK(sdekit_config_set_seed(c, 8, &err));
  OK(sdekit_run(c, &other, &err));
  OK(sdekit_config_set_seed(c, 7, &err));
  OK(sdekit_run(c, &two, &err));
  TU_CHECK(plain && one && two && other && same_datasets(plain, one) && same_datasets(plain, two) &&
               !same_datasets(plain, other),
           "session fpt: runs in a session give the bits of a run without one");
  sdekit_config_destroy(&c);
  sdekit_session_destroy(&s);
  sdekit_result_destroy(&plain);
  sdekit_result_destroy(&one);
  sdekit_result_destroy(&other);
  sdekit_result_destroy(&two);
}

/* (a log callback: whether a message containing user->what was heard) */
typedef struct heard {
  const char *what;
  int n;
} heard;
static void heard_log(void *user, sdekit_log_level level, const char *msg) {
  (void)level;
  heard *h = user;
  h->n += strstr(msg, h->what) != NULL;
}

/* Many runs in one process (issue 32): on the CPU each run without a session
 * loads its kernel module, each load taking a name the dynamic loader keeps;
 * with the usual limit of 1024 descriptors the names once ran out at about the
 * 1016th run ("cannot load"), each load first asking for every name before it.
 * In a session the second run takes the module the first loaded. */
static void check_many_runs(void) {
  if (strcmp(backend(), "cpu") != 0) return;
  sdekit_error err;
  sdekit_config *c = ou_config(4, &err);
  TU_CHECK(c != NULL, "many runs: configuration: %s", err.message);
  if (!c) return;
  OK(sdekit_config_set_t_end(c, 0.05, &err));
  struct rlimit old, low;
  int lowered = getrlimit(RLIMIT_NOFILE, &old) == 0;
  low = old;
  if (lowered && (low.rlim_cur == RLIM_INFINITY || low.rlim_cur > 1024)) low.rlim_cur = 1024;
  lowered = lowered && setrlimit(RLIMIT_NOFILE, &low) == 0;
  int ok = 0, n = 1100;
  for (; ok < n; ok++) {
    sdekit_result *r = NULL;
    if (sdekit_run(c, &r, &err) != SDEKIT_OK) break;
    sdekit_result_destroy(&r);
  }
  if (lowered) setrlimit(RLIMIT_NOFILE, &old);
  TU_CHECK(ok == n, "many runs: %d of %d runs in one process (at most %lld descriptors): %s", ok, n,
           (long long)low.rlim_cur, ok < n ? err.message : "");
  sdekit_session *s = NULL;
  heard h = {"kept from an earlier run of this session", 0};
  OK(sdekit_session_create(&s, &err));
  OK(sdekit_config_set_session(c, s, &err));
  sdekit_config_set_log(c, heard_log, &h, SDEKIT_LOG_DEBUG);
  OK(sdekit_config_set_verbose(c, 1, &err));
  for (int i = 0; i < 3; i++) {
    sdekit_result *r = NULL;
    OK(sdekit_run(c, &r, &err));
    sdekit_result_destroy(&r);
  }
  TU_CHECK(h.n == 2, "session: the CPU module kept for the second and third run (%d)", h.n);
  sdekit_config_destroy(&c);
  sdekit_session_destroy(&s);
}

int main(void) {
  const char *dir = tu_scratch(); /* removed at exit (testutil.h) */
  if (!dir) return perror("scratch directory"), 1;
  if (!strcmp(backend(), "cuda")) { /* the GPU list: skipped without a device */
    sdekit_config *c = NULL;
    sdekit_cuda_info ci;
    sdekit_error err;
    int ok = sdekit_config_create(&c, &err) == SDEKIT_OK &&
             sdekit_config_set_environment(c, (const char *const *)environ, &err) == SDEKIT_OK &&
             sdekit_cuda_info_get(c, &ci, &err) == SDEKIT_OK && ci.ndevices > 0 &&
             ci.nvrtc_major > 0;
    sdekit_config_destroy(&c);
    if (!ok) return printf("backend cuda not available: skipped\n"), 77;
  }
  check_errors();
  sdekit_result *r = NULL;
  check_ou(&r);
  check_observe_expr();
  /* a run leaves the caller's floating-point mode as it was: loading a
   * fast-math module must not switch on flush-to-zero in this thread */
  volatile double tiny = 4.9406564584124654e-324, one = 1.0;
  TU_CHECK(tiny * one > 0, "denormals survive a run (the caller's MXCSR untouched)");
  if (r) {
    check_sample_times(r);
    check_file(r, dir);
    check_cancel(r, dir);
  }
  check_cancel_early(dir);
  sdekit_result_destroy(&r);
  check_threads_and_log();
  check_tsv_names(dir);
  check_scan_table();
  check_session();
  check_session_fpt();
  check_many_runs();
  return tu_finish("test_api");
}
