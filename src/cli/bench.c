/* sdekit bench: our josephson SRK2 kernel (generated from the model file)
 * against the paper's PROG1 step as plain scalar C, in one process. */
#include <getopt.h>
#include <math.h>
#include <sdekit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/env.h"
#include "cli/runopts.h"
#include "core/escape.h"
#include "core/numfmt.h"

static const char BENCH_HELP[] =
    "usage: sdekit bench [options]\n"
    "\n"
    "Times the josephson model (paper Eq. 1) with SRK2 on a backend and, in the same\n"
    "process, the paper's PROG1 CPU code (xorshift, Box-Muller, SRK2; scalar C, one\n"
    "thread), and prints steps/s of both and their ratio.\n"
    "\n"
    "  --backend NAME     %s (default %s)\n"
    "  --paths N          paths (default 65536)\n"
    "  --steps N          steps per timed launch (default 2000)\n"
    "  --repeats N        timed repeats, median reported (default 5)\n"
    "  --threads N        CPU threads (default: all cores)\n"
    "  --precision P      single | double (default single)\n"
    "\n"
    "With --model kuramoto-meanfield or --model kuramoto (or any model with [meanfield]\n"
    "or [pair]): one system of --particles N particles (default 2^24 mean-field, 65536\n"
    "pairwise), --steps Euler steps (default 2000) with the order parameter r(t) every\n"
    "step and the density P(x mod 2 pi; t) every 100 steps, timed as a whole run (median\n"
    "of --repeats after a warm-up), and once more with no observables; prints\n"
    "particle-steps/s (and bytes/s), or pair interactions/s for [pair] models.  On the\n"
    "GPU the mean-field workload is also timed with each system kernel forced, and the\n"
    "paper's PROG3 or PROG2 (re-implemented) runs the same workload in the same process.\n"
    "  --workload-only    only the workload, with the kernel sdekit chooses (tuning)\n"
    "\n"
    "  --compensation     josephson SRK2 in single precision with the compensated state\n"
    "                     update on its rule's variables (x; the default, --compensate auto),\n"
    "                     on every variable (--compensate all) and with --no-compensation,\n"
    "                     alternated\n"
    "                     in one process on --backend (cuda: 2^22 paths unless --paths); prints\n"
    "                     the steps/s and the ratios to the plain update\n"
    "  --sampling         the cost of sampling: --model (default ou) with Euler,\n"
    "                     --observe moments, --paths (default 10^6), --steps (default\n"
    "                     1000, dt = 0.001) as whole runs with the default 100 samples,\n"
    "                     with samples every 8 steps and final-only (--sample-every\n"
    "                     STEPS: samples at t = 0 and t_end alone), alternated in one\n"
    "                     process; prints steps/s and the ratios to final-only\n"
    "  --observables      the cost of observables on the PROG1 workload: josephson SRK2\n"
    "                     (--model to change it), --paths (cuda: 2^22, cpu: 65536),\n"
    "                     --steps (default 20000, dt = 1/100 of the drive's period) as\n"
    "                     whole runs: no observables (final state only), the same\n"
    "                     stopping every 100 steps, a user observable\n"
    "                     E = v*v/2 + sin(2*pi*x) every 100 steps, moments\n"
    "                     every 100 steps, alternated in one process; prints steps/s\n"
    "                     and the ratios to the first\n"
    "  --fpt              the cost of first-passage tracking on the PROG1 workload\n"
    "                     (josephson SRK2, --paths, --steps as --observables): with two\n"
    "                     absorbing boundaries out of reach and --observe fpt against no\n"
    "                     boundaries; and, with a third variable m ~ U(0,1) that never\n"
    "                     moves and a boundary m >= c, all paths alive (c = 2) against\n"
    "                     90%% absorbed at the first step (c = 0.1)\n"
    "  --noises           issue 14's noises on the PROG1 workload (--paths, cuda: 2^22;\n"
    "                     launches of --steps): srk2 Gaussian, weak2 Gaussian, weak2 and\n"
    "                     euler with --noise three-point, and josephson on two Wiener\n"
    "                     processes, independent against correlated (rho = 0.5)\n"
    "  --published NAME   published workloads side by side with their JAX versions:\n"
    "                     `--published list` names them (python/sdekit/bench.py)\n";

/* What the command line sets; every timed configuration is made from it
 * afresh (bench_config), so one row's settings never leak into the next. */
typedef struct bench {
  const char *backend, *model, *precision, *scheme, *observe, *observe_expr;
  const char *noise;      /* --noise, or NULL */
  const char *model_text; /* the model as text (bench --fpt), instead of `model` */
  const char *set;        /* one --set NAME=VALUE, or NULL */
  int64_t paths, particles, sample_every, order_every, bins;
  double dt, t_end;
  int threads, no_compensation; /* 1: --no-compensation, 2: --compensate all */
  const char *sys_kernel;       /* forces SDEKIT_SYS_KERNEL for one row (NULL: as set) */
} bench;

/* The backend's row in the registry, or -1. */
static int backend_row(const char *name) {
  for (int i = 0; sdekit_registry_name("backend", i); i++)
    if (!strcmp(sdekit_registry_name("backend", i), name)) return i;
  return -1;
}

/* it computes on a device (its row's "device": the GPU's bench) */
static int on_device(const char *backend) {
  return sdekit_registry_value("backend", backend_row(backend), "device") == 1;
}

static int set_opt(sdekit_config *c, const char *name, const char *value, sdekit_error *err) {
  return sdekit_config_option(c, name, value, err) != SDEKIT_OK;
}

static int set_int(sdekit_config *c, const char *name, int64_t v, sdekit_error *err) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", (long long)v);
  return set_opt(c, name, buf, err);
}

static int set_real(sdekit_config *c, const char *name, double v, sdekit_error *err) {
  char buf[40];
  snprintf(buf, sizeof buf, "%.17g", v);
  return set_opt(c, name, buf, err);
}

/* The environment with SDEKIT_SYS_KERNEL replaced (for the rows that force a
 * system kernel), or as it is. */
static const char **bench_environ(const char *sys_kernel, char *kv, size_t nkv) {
  const char *const *env = cli_environ();
  size_t n = 0;
  while (env[n])
    n++;
  const char **out = malloc((n + 2) * sizeof *out);
  if (!out) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (!sys_kernel ||
        (strncmp(env[i], "SDEKIT_SYS_KERNEL=", 18) && strncmp(env[i], "SDK_SYS_KERNEL=", 15)))
      out[k++] = env[i];
  if (sys_kernel) {
    snprintf(kv, nkv, "SDEKIT_SYS_KERNEL=%s", sys_kernel);
    out[k++] = kv;
  }
  out[k] = NULL;
  return out;
}

/* A configuration of b: NULL with err set when an option is refused. */
static sdekit_config *bench_config(const bench *b, sdekit_error *err) {
  sdekit_config *c = NULL;
  if (sdekit_config_create(&c, err) != SDEKIT_OK) return NULL;
  char kv[64];
  const char **env = bench_environ(b->sys_kernel, kv, sizeof kv);
  int bad = !env || sdekit_config_set_environment(c, env, err) != SDEKIT_OK;
  free(env);
  if (!env) {
    err->status = SDEKIT_ERR_NOMEM;
    snprintf(err->message, sizeof err->message, "out of memory");
  }
  sdekit_config_set_log(c, cli_log, NULL, SDEKIT_LOG_INFO);
  if (b->model_text)
    bad = bad || sdekit_config_set_model_text(c, b->model_text, "bench", err) != SDEKIT_OK;
  else
    bad = bad || sdekit_config_set_model(c, b->model, err) != SDEKIT_OK;
  if (b->set) bad = bad || set_opt(c, "set", b->set, err);
  bad = bad || set_opt(c, "backend", b->backend, err) || set_opt(c, "scheme", b->scheme, err);
  bad = bad || set_opt(c, "precision", b->precision, err) || set_opt(c, "quiet", NULL, err);
  if (b->paths > 0) bad = bad || set_int(c, "paths", b->paths, err);
  if (b->particles > 0) bad = bad || set_int(c, "particles", b->particles, err);
  if (b->threads > 0) bad = bad || set_int(c, "threads", b->threads, err);
  if (b->dt > 0) bad = bad || set_real(c, "dt", b->dt, err);
  if (b->t_end > 0) bad = bad || set_real(c, "t-end", b->t_end, err);
  if (b->observe) bad = bad || set_opt(c, "observe", b->observe, err);
  if (b->observe_expr) bad = bad || set_opt(c, "observe-expr", b->observe_expr, err);
  if (b->sample_every > 0) bad = bad || set_int(c, "sample-every", b->sample_every, err);
  if (b->order_every > 0) bad = bad || set_int(c, "order-every", b->order_every, err);
  if (b->bins > 0) bad = bad || set_int(c, "bins", b->bins, err);
  if (b->no_compensation)
    bad = bad || set_opt(c, "compensate", b->no_compensation == 2 ? "all" : "none", err);
  if (b->noise) bad = bad || set_opt(c, "noise", b->noise, err);
  if (bad) sdekit_config_destroy(&c);
  return c;
}

/* Median of whole runs of b (after one warm-up run), or of `steps` steps
 * alone (steps > 0). */
static sdekit_status bench_time(const bench *b, int64_t steps, int repeats, sdekit_timing *t,
                                sdekit_error *err) {
  sdekit_config *c = bench_config(b, err);
  if (!c) return err->status;
  sdekit_status s = steps > 0 ? sdekit_time_steps(c, steps, repeats, t, err)
                              : sdekit_time_runs(c, repeats, t, err);
  sdekit_config_destroy(&c);
  return s;
}

/* A baseline of the paper's programs (sdekit_time_baseline) in this
 * environment (the CUDA toolkit). */
static sdekit_status bench_baseline(const char *prog, const char *backend, int64_t size,
                                    int64_t steps, int repeats, sdekit_timing *t,
                                    sdekit_error *err) {
  sdekit_config *c = NULL;
  sdekit_status s = sdekit_config_create(&c, err);
  if (s == SDEKIT_OK) s = sdekit_config_set_environment(c, cli_environ(), err);
  if (s == SDEKIT_OK) s = sdekit_time_baseline(c, prog, backend, size, steps, repeats, 1, t, err);
  sdekit_config_destroy(&c);
  return s;
}

/* The workloads of bench_particles: the observables of each row and, on the
 * GPU, the system kernel forced (codegen/sys_cuda.c: they give the same bits). */
static const struct {
  const char *obs;
  const char *kernel, *what;
} PARTICLE_ROWS[] = {{"density,order", NULL, "r(t) every step, P(x;t) every 100 steps"},
                     {"", NULL, "no observables"},
                     {"order", NULL, "r(t) every step only"},
                     {"density", NULL, "P(x;t) every 100 steps only"},
                     {"density,order", "launch", "  the same, one launch per step"},
                     {"density,order", "persist", "  the same, persistent, x in DRAM"},
                     {"density,order", "resident", "  the same, persistent, x on chip"}};

/* The paper's program as scalar C on one core, same process: sized for
 * about half a second (its rate does not depend on the size). */
static void particles_cpu_baseline(const char *backend, int pair, double ours) {
  long long bn = pair ? 4096 : 1 << 18, bs = pair ? 3 : 40;
  sdekit_timing t;
  sdekit_error err;
  if (bench_baseline(pair ? "prog2" : "prog3", backend, bn, bs, 3, &t, &err) != SDEKIT_OK) {
    cli_fail(&err);
    return;
  }
  double base = t.work / t.median_s;
  printf("%-52s %10.4f %18.3e\n",
         pair ? "baseline: the paper's PROG2 as scalar C, 1 thread"
              : "baseline: the paper's PROG3 as scalar C, 1 thread",
         t.median_s, base);
  printf("  (%lld particles x %lld steps, xorshift + Box-Muller, float; final r = %.3f)\n", bn, bs,
         t.checksum);
  printf("ratio to the baseline: %.1fx with the observables\n", ours / base);
}

/* The paper's program for this workload on the GPU, same process, same size
 * and steps, and the device's copy bandwidth (the roofline). */
static void particles_cuda_baseline(const bench *b, int pair, int64_t steps, int repeats,
                                    const double *secs) {
  sdekit_timing t;
  sdekit_error err;
  double N = (double)b->particles, ps = N * (double)steps;
  int single = !strcmp(b->precision, "single");
  size_t es = single ? 4 : 8;
  double gbps = 0;
  if (single) {
    if (bench_baseline(pair ? "prog2" : "prog3", b->backend, b->particles, steps,
                       repeats < 3 ? repeats : 3, &t, &err) == SDEKIT_OK) {
      printf("%-52s %10.4f %18.3e\n",
             pair ? "baseline: the paper's PROG2 (tiled UpdateRHS + Advance)"
                  : "baseline: the paper's PROG3 (sums via the host)",
             t.median_s, t.work / t.median_s);
      printf("  (Kuramoto, K = 4, T = 1, xorshift + Box-Muller, fast math; final r = %.3f)\n",
             t.checksum);
      printf("ratio to the baseline: %.2fx with the observables, %.2fx without\n",
             t.median_s / secs[0], t.median_s / secs[1]);
    } else {
      printf("baseline: %s\n", err.message);
    }
  }
  if (bench_baseline("copy", b->backend, (int64_t)1 << 30, 0, 9, &t, &err) == SDEKIT_OK &&
      t.median_s > 0)
    gbps = t.work / t.median_s / 1e9;
  if (gbps > 0)
    printf("device-to-device copy, 1 GiB (read + write): %.1f GB/s%s", gbps, pair ? "\n" : "");
  if (gbps > 0 && !pair)
    printf(" -> roofline %.3e particle-steps/s for x in DRAM (%.0f%% reached)\n",
           gbps * 1e9 / (2.0 * (double)es), 100 * ps / secs[0] / (gbps * 1e9 / (2.0 * es)));
}

/* Systems of interacting particles: the paper's Kuramoto workloads (PROG2/PROG3). */
static int bench_particles(bench *b, int64_t steps, int repeats, int particles_given,
                           int workload_only) {
  sdekit_error err;
  sdekit_model *m = NULL;
  if (sdekit_model_load(b->model, sdk_cli_env_model_path(), &m, &err) != SDEKIT_OK)
    return cli_fail(&err);
  const char *kind = sdekit_model_kind(m);
  int pair = !strcmp(kind, "pair");
  if (!strcmp(kind, "paths")) {
    char nm[256];
    sdk_esc_term_buf(sdekit_model_name(m), nm, sizeof nm);
    cli_error("bench --model: model '%s' has no [meanfield] or [pair]\n", nm);
    sdekit_model_destroy(&m);
    return 2;
  }
  char name[256];
  sdk_esc_term_buf(sdekit_model_name(m), name, sizeof name); /* printed below */
  int periodic = sdekit_model_periodic_var(m) >= 0;
  sdekit_model_destroy(&m);
  if (!particles_given) b->particles = pair ? 65536 : (int64_t)1 << 24;
  b->paths = 1;
  b->scheme = "euler";
  b->dt = 1.0 / 128;
  b->t_end = (double)steps / 128;
  b->order_every = 1;
  b->sample_every = 100;
  b->bins = 100;
  int cuda = on_device(b->backend); /* the GPU's programs and system kernels */
  /* the workload, then without observables; the mean-field model also with
   * each observable alone (what each costs) and, on the GPU, with each of the
   * system kernels forced */
  int nrows = workload_only ? 1 : pair || !periodic ? 2 : cuda ? 7 : 4;
  double secs[7] = {0};
  char dev[256] = "", why[7][160] = {{0}};
  for (int i = 0; i < nrows; i++) {
    b->observe = periodic && PARTICLE_ROWS[i].obs[0] ? PARTICLE_ROWS[i].obs : "none";
    b->sys_kernel = PARTICLE_ROWS[i].kernel;
    sdekit_timing t;
    sdekit_status s = bench_time(b, 0, repeats, &t, &err);
    b->sys_kernel = NULL;
    if (s != SDEKIT_OK && PARTICLE_ROWS[i].kernel) {
      snprintf(why[i], sizeof why[i], "%s", err.message);
      continue;
    }
    if (s != SDEKIT_OK) return cli_fail(&err);
    secs[i] = t.median_s;
    snprintf(dev, sizeof dev, "%s", t.device);
  }
  int single = !strcmp(b->precision, "single");
  double N = (double)b->particles, ps = N * (double)steps;
  printf("sdekit bench: %s, one system of N = %lld particles, %lld Euler steps, %s precision,\n"
         "median of %d runs after a warm-up (the stepping loop, host work included)\n%s\n\n",
         name, (long long)b->particles, (long long)steps, single ? "single" : "double", repeats,
         dev);
  size_t es = single ? 4 : 8;
  if (pair)
    printf("%-52s %10s %18s\n", "", "seconds", "pair interactions/s");
  else
    printf("%-52s %10s %18s %10s\n", "", "seconds", "particle-steps/s", "GB/s");
  for (int i = 0; i < nrows; i++) {
    if (why[i][0])
      printf("%-52s %10s %18s  (%s)\n", PARTICLE_ROWS[i].what, "-", "-", why[i]);
    else if (pair)
      printf("%-52s %10.4f %18.3e\n", PARTICLE_ROWS[i].what, secs[i], N * ps / secs[i]);
    else
      printf("%-52s %10.4f %18.3e %10.1f\n", PARTICLE_ROWS[i].what, secs[i], ps / secs[i],
             ps * 2 * (double)es / secs[i] / 1e9);
  }
  if (!pair) printf("(GB/s: one read and one write of x per particle-step, %zu bytes each)\n", es);
  if (!cuda && !workload_only)
    particles_cpu_baseline(b->backend, pair, (pair ? N * ps : ps) / secs[0]);
  if (cuda && !workload_only) particles_cuda_baseline(b, pair, steps, repeats, secs);
  return 0;
}

/* One timing of a row of the comparisons below (alternated rounds): its
 * rate, work / median (work <= 0: the timing's own), kept in *best when
 * higher (the machine's other load only ever slows a round down), and the
 * device named in dev[256].  Returns 0, or the CLI's exit code. */
static int keep_best(const bench *b, int64_t steps, int repeats, double work, double *best,
                     char *dev) {
  sdekit_error err;
  sdekit_timing tm;
  if (bench_time(b, steps, repeats, &tm, &err) != SDEKIT_OK) return cli_fail(&err);
  double r = (work > 0 ? work : tm.work) / tm.median_s;
  if (r > *best) *best = r;
  snprintf(dev, 256, "%s", tm.device);
  return 0;
}

/* Single precision with the compensated update (codegen.h) on the variables
 * the rule of --compensate auto (the default) picks (x), on every variable and
 * without it, in one process: three alternating rounds of each, the best median of each kept
 * (the machine's other load only ever slows a round down). */
static int bench_compensation(bench *b, int64_t steps, int repeats) {
  b->precision = "single";
  double best[3] = {0, 0, 0};
  char dev[256] = "";
  for (int round = 0; round < 3; round++)
    for (int k = 0; k < 3; k++) {
      b->no_compensation = k;
      int rc = keep_best(b, steps, repeats, 0, &best[k], dev);
      if (rc) return rc;
    }
  printf("sdekit bench: josephson (paper Eq. 1), srk2, single precision, %lld paths x %lld steps,\n"
         "median of %d, best of 3 alternating rounds; %s\n",
         (long long)b->paths, (long long)steps, repeats, dev);
  printf("%-40s %14.3e steps/s\n", "default (--compensate auto: x)", best[0]);
  printf("%-40s %14.3e steps/s\n", "--compensate all", best[2]);
  printf("%-40s %14.3e steps/s\n", "--no-compensation", best[1]);
  printf("ratio compensated / plain: %.3f (default, auto), %.3f (all)\n", best[0] / best[1],
         best[2] / best[1]);
  return 0;
}

/* The cost of sampling: whole runs (the execute stage: stepping, samples,
 * NaN checks) with the default sample interval (nsteps / 100), with samples
 * every 8 steps (the runs then stop only between the 4-step blocks of
 * Gaussians the kernels draw: a stop inside a block draws it twice), and
 * with final-only output (--sample-every nsteps: the samples at step 0 and
 * at the end, which every run checks anyway), alternated in one process,
 * the best of three rounds' medians kept as in bench_compensation. */
static int bench_sampling(bench *b, int64_t steps, int repeats, int paths_given) {
  if (!paths_given) b->paths = 1000000;
  b->scheme = "euler";
  b->observe = "moments";
  b->dt = 0.001;
  b->t_end = (double)steps * b->dt;
  const int64_t every[3] = {0, 8, steps};
  double best[3] = {0, 0, 0};
  char dev[256] = "";
  for (int round = 0; round < 3; round++)
    for (int k = 0; k < 3; k++) {
      b->sample_every = every[k];
      int rc = keep_best(b, 0, repeats, (double)b->paths * (double)steps, &best[k], dev);
      if (rc) return rc;
    }
  char name[256];
  sdk_esc_term_buf(b->model, name, sizeof name);
  printf("sdekit bench: %s, euler, %s precision, %lld paths x %lld steps, --observe moments,\n"
         "median of %d whole runs, best of 3 alternating rounds; %s\n",
         name, b->precision, (long long)b->paths, (long long)steps, repeats, dev);
  char what[3][80];
  snprintf(what[0], sizeof what[0], "default sampling (every %lld steps)",
           (long long)(steps >= 100 ? steps / 100 : 1));
  snprintf(what[1], sizeof what[1], "--sample-every 8 (stops between noise blocks)");
  snprintf(what[2], sizeof what[2], "final only (--sample-every %lld)", (long long)steps);
  for (int k = 0; k < 3; k++)
    printf("%-46s %12.3e steps/s  %.3f\n", what[k], best[k], best[k] / best[2]);
  printf("ratio default / final-only: %.3f\n", best[0] / best[2]);
  return 0;
}

/* The cost of observables on the PROG1 workload (issue 13's budget: a user
 * observable sampled every 100 steps at most 10% of the throughput): whole
 * runs alternated in one process, best of three rounds' medians as in
 * bench_sampling. */
static int bench_observables(bench *b, int64_t steps, int repeats) {
  /* josephson's dt is a hundredth of the drive's period 2 pi / omega */
  b->t_end = (double)steps / 100.0 * (2.0 * 3.14159265358979323846 / 4.9);
  static const struct {
    const char *obs, *expr, *what;
    int every;
  } rows[] = {{"none", NULL, "no observables (final state only)", 0},
              {"expr", "E=v*v/2+sin(2*pi*x)", "user observable E every 100 steps", 100},
              {"moments", NULL, "moments every 100 steps", 100}};
  enum { NR = sizeof rows / sizeof rows[0] };
  double best[NR] = {0};
  char dev[256] = "";
  for (int round = 0; round < 3; round++)
    for (int k = 0; k < NR; k++) {
      b->observe = rows[k].obs;
      b->observe_expr = rows[k].expr;
      b->sample_every = rows[k].every ? rows[k].every : steps;
      int rc = keep_best(b, 0, repeats, (double)b->paths * (double)steps, &best[k], dev);
      if (rc) return rc;
    }
  char name[256];
  sdk_esc_term_buf(b->model, name, sizeof name);
  printf("sdekit bench: %s, %s, %s precision, %lld paths x %lld steps, median of %d whole\n"
         "runs, best of 3 alternating rounds; %s\n",
         name, b->scheme, b->precision, (long long)b->paths, (long long)steps, repeats, dev);
  for (int k = 0; k < NR; k++)
    printf("%-46s %12.3e steps/s  %.3f\n", rows[k].what, best[k], best[k] / best[0]);
  return 0;
}

/* The josephson model (models/josephson.sde) with two absorbing boundaries
 * at x = -L and x = L, and (MARK) a variable m that never moves with a
 * boundary at m >= c: with m ~ U(0, 1), c = 0.1 absorbs 90% of the paths at
 * their first step and leaves the others alive to the end. */
#define JOSEPHSON_ESCAPE(MARK_VAR, MARK_DRIFT, MARK_INIT, MARK_BOUND)                              \
  "[model]\nname = josephson-escape\nvars = x, v" MARK_VAR "\nperiod = 2*pi/omega\n"               \
  "[params]\na = 4.2\ngamma = 0.9\nomega = 4.9\nD = 0.001\nf = 0.1\nL = 1e9\nc = 2\n"              \
  "[drift]\nx = v\nv = -gamma*v - 2*pi*cos(2*pi*x) + a*cos(omega*t) + f\n" MARK_DRIFT              \
  "[noise]\nv = sqrt(2*gamma*D)\n"                                                                 \
  "[init]\nx = uniform(0, 1)\nv = uniform(-2, 2)\n" MARK_INIT                                      \
  "[boundaries]\nleft = absorb x <= -L\nright = absorb x >= L\n" MARK_BOUND

/* Issue 13's budgets for first passage: two absorbing boundaries cost at
 * most 25% of the PROG1 throughput while the paths are alive, and with 90%
 * absorbed a step costs at most a third of one with all alive.  Whole runs
 * alternated in one process, best of three rounds' medians. */
static int bench_fpt(bench *b, int64_t steps, int repeats) {
  b->t_end = (double)steps / 100.0 * (2.0 * 3.14159265358979323846 / 4.9);
  b->sample_every = steps;
  static const char two[] = JOSEPHSON_ESCAPE("", "", "", "");
  static const char marked[] =
      JOSEPHSON_ESCAPE(", m", "m = 0\n", "m = uniform(0, 1)\n", "marked = absorb m >= c\n");
  static const struct {
    const char *text, *obs, *set, *what;
  } rows[] = {{NULL, "none", NULL, "PROG1: josephson, no boundaries"},
              {two, "fpt", NULL, "two absorbing boundaries, --observe fpt"},
              {marked, "fpt", "c=2", "with m: all paths alive"},
              {marked, "fpt", "c=0.1", "with m: 90% absorbed at the first step"}};
  enum { NR = sizeof rows / sizeof rows[0] };
  /* [0]: whole runs (stepping, checks, the observable); [1]: launches of
   * the steps alone (the cost of a step) */
  double best[2][NR] = {{0}};
  char dev[256] = "";
  for (int round = 0; round < 3; round++)
    for (int k = 0; k < NR; k++)
      for (int alone = 0; alone < 2; alone++) {
        b->model_text = rows[k].text;
        b->observe = rows[k].obs;
        b->set = rows[k].set;
        int rc = keep_best(b, alone ? 1000 : 0, repeats,
                           alone ? 0 : (double)b->paths * (double)steps, &best[alone][k], dev);
        if (rc) return rc;
      }
  b->model_text = NULL;
  b->set = NULL;
  printf("sdekit bench: josephson, %s, %s precision, %lld paths; whole runs of %lld steps and\n"
         "launches of 1000 steps alone, median of %d, best of 3 alternating rounds;\n%s\n",
         b->scheme, b->precision, (long long)b->paths, (long long)steps, repeats, dev);
  printf("%-46s %16s %16s\n", "", "whole runs", "steps alone");
  for (int k = 0; k < NR; k++)
    printf("%-46s %9.3e %.3f %9.3e %.3f\n", rows[k].what, best[0][k], best[0][k] / best[0][0],
           best[1][k], best[1][k] / best[1][0]);
  printf("two boundaries / none: %.3f (whole runs), %.3f (steps alone)\n", best[0][1] / best[0][0],
         best[1][1] / best[1][0]);
  printf("cost of a step with 90%% absorbed / all alive: %.3f (steps alone), %.3f (whole runs)\n",
         best[1][2] / best[1][3], best[0][2] / best[0][3]);
  return 0;
}

/* josephson with noise on x too, from two Wiener processes, independent or
 * correlated (CORR: a [model] correlation line) */
#define JOSEPHSON_2W(CORR)                                                                         \
  "[model]\nname = josephson-2w\nvars = x, v\nperiod = 2*pi/omega\nwiener = W1, W2\n" CORR         \
  "[params]\na = 4.2\ngamma = 0.9\nomega = 4.9\nD = 0.001\nf = 0.1\nrho = 0.5\n"                   \
  "[drift]\nx = v\nv = -gamma*v - 2*pi*cos(2*pi*x) + a*cos(omega*t) + f\n"                         \
  "[noise]\nx = 0.1*sqrt(2*D)*dW1\nv = sqrt(2*gamma*D)*dW2\n"                                      \
  "[init]\nx = uniform(0, 1)\nv = uniform(-2, 2)\n"

/* Issue 14's speed figures on the PROG1 workload: launches of `steps` steps
 * alone (CUDA events on the GPU), alternated in one process, best of three
 * rounds' medians: srk2 with Gaussian noise (today's PROG1), weak2 with
 * Gaussian and with three-point noise; and josephson driven by two Wiener
 * processes, independent against correlated (the 2x2 Cholesky factor). */
static int bench_noises(bench *b, int64_t steps, int repeats) {
  static const char indep[] = JOSEPHSON_2W(""),
                    corr[] = JOSEPHSON_2W("correlation = W1 W2 : rho\n");
  static const struct {
    const char *text, *scheme, *noise, *what;
    int plain;
  } rows[] = {{NULL, "srk2", NULL, "PROG1: josephson, srk2, Gaussian", 0},
              {NULL, "weak2", NULL, "weak2, Gaussian", 0},
              {NULL, "weak2", "three-point", "weak2 --noise three-point", 0},
              {NULL, "euler", "three-point", "euler --noise three-point", 0},
              {indep, "srk2", NULL, "two Wiener processes, independent (srk2)", 0},
              {corr, "srk2", NULL, "two Wiener processes, correlated rho = 0.5", 0},
              {NULL, "weak2", "three-point", "weak2 three-point --no-compensation", 1},
              {NULL, "srk2", NULL, "srk2 Gaussian --no-compensation", 1}};
  enum { NR = sizeof rows / sizeof rows[0] };
  double best[NR] = {0};
  char dev[256] = "";
  for (int round = 0; round < 3; round++)
    for (int k = 0; k < NR; k++) {
      b->model_text = rows[k].text;
      b->scheme = rows[k].scheme;
      b->noise = rows[k].noise;
      b->no_compensation = rows[k].plain;
      int rc = keep_best(b, steps, repeats, 0, &best[k], dev);
      if (rc) return rc;
    }
  b->model_text = NULL;
  b->noise = NULL;
  b->no_compensation = 0;
  printf(
      "sdekit bench: josephson (paper Eq. 1), %s precision, %lld paths, launches of %lld steps,\n"
      "median of %d, best of 3 alternating rounds; %s\n",
      b->precision, (long long)b->paths, (long long)steps, repeats, dev);
  for (int k = 0; k < NR; k++)
    printf("%-46s %12.3e steps/s  %.3f\n", rows[k].what, best[k], best[k] / best[0]);
  printf("weak2 three-point / PROG1 srk2: %.3f; correlated / independent: %.3f\n",
         best[2] / best[0], best[5] / best[4]);
  return 0;
}

/* GPU: our kernel and the paper's PROG1 kernel at 2^17..2^24 paths. */
static int bench_cuda(bench *b, int64_t steps, int repeats, int paths_given) {
  sdekit_error err;
  int lo = 17, hi = 24;
  if (paths_given) lo = hi = -1;
  for (int k = lo; k <= hi; k++) {
    int64_t n = k < 0 ? b->paths : (int64_t)1 << k;
    b->paths = n;
    sdekit_timing tm, tb;
    if (bench_time(b, steps, repeats, &tm, &err) != SDEKIT_OK ||
        bench_baseline("prog1", b->backend, n, steps, repeats, &tb, &err) != SDEKIT_OK)
      return cli_fail(&err);
    if (k == lo) {
      printf("sdekit bench: josephson (paper Eq. 1), SRK2, %lld steps per timed run, median of "
             "%d,\nCUDA events; ours: %s precision from models/josephson.sde, Philox + "
             "Box-Muller;\nbaseline: the paper's PROG1 kernel (xorshift32, Box-Muller, float t = "
             "t0 + i dt,\n100 steps per launch, --use_fast_math), same process\n%s\n\n",
             (long long)steps, repeats, b->precision, tm.device);
      printf("%10s %16s %16s %8s\n", "paths", "ours steps/s", "PROG1 steps/s", "ratio");
    }
    double ours = tm.work / tm.median_s, base = tb.work / tb.median_s;
    printf("%10lld %16.3e %16.3e %7.2fx\n", (long long)n, ours, base, ours / base);
    fflush(stdout);
  }
  return 0;
}

/* CPU: our kernel against the paper's PROG1 CPU code, in one process. */
static int bench_cpu(const bench *b, int64_t steps, int repeats) {
  sdekit_error err;
  sdekit_timing tm, tb;
  if (bench_time(b, steps, repeats, &tm, &err) != SDEKIT_OK) return cli_fail(&err);
  double ours = tm.work / tm.median_s;
  /* baseline: enough work for ~0.3 s per repeat on a current core */
  const long long bpaths = 4096, bsteps = 2000;
  if (bench_baseline("prog1", b->backend, bpaths, bsteps, repeats < 9 ? repeats : 9, &tb, &err) !=
      SDEKIT_OK)
    return cli_fail(&err);
  double base = tb.work / tb.median_s;
  printf("sdekit bench: josephson (paper Eq. 1), srk2, %s precision, median of %d\n", b->precision,
         repeats);
  printf("%-58s %14s\n", "", "SRK2 steps/s");
  printf("%-58.58s %14.3e\n", tm.device, ours);
  printf("  (%lld paths x %lld steps per repeat, %.3f s median, %.3f..%.3f s)\n",
         (long long)b->paths, (long long)steps, tm.median_s, tm.min_s, tm.max_s);
  printf("%-58s %14.3e\n", "baseline: paper's PROG1 CPU code, scalar C, 1 thread", base);
  printf("  (%lld paths x %lld steps, xorshift + Box-Muller + SRK2, float; checksum %.4f)\n",
         bpaths, bsteps, tb.checksum);
  printf("ratio: %.1fx\n", ours / base);
  return 0;
}

static int bench_help(void) {
  char names[256];
  printf(BENCH_HELP, cli_backend_names(names, sizeof names, " | ", " | "),
         sdekit_registry_name("backend", 0));
  return 0;
}

/* A whole number >= 1 (at most 1e12), or -1. */
static double whole(const char *s) {
  double v;
  if (!sdk_parse_decimal(s, &v) || v < 1 || v != floor(v) || v > 1e12) return -1;
  return v;
}

int sdk_cli_bench(int argc, char **argv) {
  static const struct option opts[] = {{"backend", required_argument, 0, 'b'},
                                       {"model", required_argument, 0, 'm'},
                                       {"particles", required_argument, 0, 'n'},
                                       {"paths", required_argument, 0, 'p'},
                                       {"steps", required_argument, 0, 's'},
                                       {"repeats", required_argument, 0, 'r'},
                                       {"threads", required_argument, 0, 't'},
                                       {"precision", required_argument, 0, 'P'},
                                       {"workload-only", no_argument, 0, 'w'},
                                       {"compensation", no_argument, 0, 'c'},
                                       {"sampling", no_argument, 0, 'S'},
                                       {"observables", no_argument, 0, 'O'},
                                       {"fpt", no_argument, 0, 'F'},
                                       {"noises", no_argument, 0, 'N'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  for (int i = 1; i < argc; i++) /* the published workloads: the Python driver's */
    if (strncmp(argv[i], "--published", 11) == 0) return sdk_cli_bench_published(argc, argv);
  bench b = {.backend = sdekit_registry_name("backend", 0),
             .model = "josephson",
             .precision = "single",
             .scheme = "srk2",
             .paths = 65536};
  int64_t steps = 2000;
  int repeats = 5;
  int paths_given = 0, particles_given = 0, workload_only = 0, comp = 0, sampling = 0;
  int steps_given = 0, observables = 0, fpt = 0, noises = 0;
  const char *model = NULL;
  optind = 1;
  opterr = 0;
  int ch, li = 0;
  unsigned char given[128] = {0};
  while ((ch = getopt_long(argc, argv, "", opts, &li)) != -1) {
    /* an option with a value given twice: the last would win silently */
    if (ch > 0 && ch < 128 && optarg && given[ch]++) {
      cli_error("--%s given twice: give it once\n", opts[li].name);
      return 2;
    }
    switch (ch) {
    case 'b':
      if (backend_row(optarg) < 0) {
        char names[256];
        cli_error("--backend '%s': expected %s\n", optarg,
                  cli_backend_names(names, sizeof names, ", ", " or "));
        return 2;
      }
      b.backend = optarg;
      break;
    case 'm': model = optarg; break;
    case 'n':
    case 'p':
    case 's':
    case 'r':
    case 't': {
      double v = whole(optarg);
      if (v < 1) {
        cli_error("--%s '%s': expected a whole number >= 1\n", opts[li].name, optarg);
        return 2;
      }
      if (ch == 'p') b.paths = (int64_t)v, paths_given = 1;
      if (ch == 'n') b.particles = (int64_t)v, particles_given = 1;
      if (ch == 's') steps = (int64_t)v, steps_given = 1;
      if (ch == 'r') repeats = (int)v;
      if (ch == 't') b.threads = (int)v;
      break;
    }
    case 'P':
      if (strcmp(optarg, "single") && strcmp(optarg, "double")) {
        cli_error("--precision '%s': expected single or double\n", optarg);
        return 2;
      }
      b.precision = optarg;
      break;
    case 'w': workload_only = 1; break;
    case 'c': comp = 1; break;
    case 'S': sampling = 1; break;
    case 'O': observables = 1; break;
    case 'F': fpt = 1; break;
    case 'N': noises = 1; break;
    case 'h': return bench_help();
    default:
      cli_error("unknown option '%s' (see 'sdekit bench --help')\n", argv[optind - 1]);
      return 2;
    }
  }
  /* the paths of the whole-run rows: the backend's (its row in the registry) */
  if (!paths_given)
    b.paths = sdekit_registry_value("backend", backend_row(b.backend), "bench-paths");
  /* the environment (kernel cache, compilers, tuning) is checked once here,
   * before anything is timed */
  sdekit_error err;
  sdekit_config *c = bench_config(&b, &err);
  if (!c) return cli_fail(&err);
  sdekit_config_destroy(&c);
  if (sampling) {
    b.model = model ? model : "ou";
    return bench_sampling(&b, steps_given ? steps : 1000, repeats, paths_given);
  }
  if (fpt) return bench_fpt(&b, steps_given ? steps : 20000, repeats);
  if (noises) return bench_noises(&b, steps, repeats);
  if (observables) {
    if (model) b.model = model;
    return bench_observables(&b, steps_given ? steps : 20000, repeats);
  }
  if (model) {
    b.model = model;
    return bench_particles(&b, steps, repeats, particles_given, workload_only);
  }
  if (workload_only) {
    cli_error("--workload-only times the workload of --model MODEL; "
              "give a model with [meanfield] or [pair]\n");
    return 2;
  }
  if (comp) return bench_compensation(&b, steps, repeats);
  if (on_device(b.backend)) return bench_cuda(&b, steps, repeats, paths_given);
  return bench_cpu(&b, steps, repeats);
}
