/* sdekit bench: our josephson SRK2 kernel (generated from the model file)
 * against the paper's PROG1 step as plain scalar C, in one process. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "bench/baseline.h"
#include "bench/prog_cuda.h"
#include "cli/cli.h"
#include "cli/env.h"
#include "core/escape.h"
#include "model/model.h"
#include "sim/run.h"

static const char BENCH_HELP[] =
    "usage: sdekit bench [options]\n"
    "\n"
    "Times the josephson model (paper Eq. 1) with SRK2 on a backend and, in the same\n"
    "process, the paper's PROG1 CPU code (xorshift, Box-Muller, SRK2; scalar C, one\n"
    "thread), and prints steps/s of both and their ratio.\n"
    "\n"
    "  --backend NAME     cpu | cuda (default cpu)\n"
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
    "                     update (the default) and with --no-compensation, alternated in\n"
    "                     one process on --backend (cuda: 2^22 paths unless --paths);\n"
    "                     prints both steps/s and their ratio\n"
    "  --sampling         the cost of sampling: --model (default ou) with Euler,\n"
    "                     --observe moments, --paths (default 10^6), --steps (default\n"
    "                     1000, dt = 0.001) as whole runs with the default 100 samples,\n"
    "                     with samples every 8 steps and final-only (--sample-every\n"
    "                     STEPS: samples at t = 0 and t_end alone), alternated in one\n"
    "                     process; prints steps/s and the ratios to final-only\n";

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Median loop time of whole runs (after one warm-up run).  With `why`, a
 * run that fails leaves its error there and returns 0. */
static int time_runs(const sdk_run_config *c, int repeats, double *median, char *device, size_t nd,
                     char *why, size_t nwhy) {
  double t[16];
  if (repeats > 15) repeats = 15;
  for (int i = -1; i < repeats; i++) {
    sdk_errbuf eb = {0};
    sdk_run *run = NULL;
    sdk_err e = sdk_run_execute(c, &run, &eb);
    if (e != SDK_OK && why) {
      snprintf(why, nwhy, "%s", eb.msg);
      return 0;
    }
    if (e != SDK_OK) {
      cli_error("%s\n", eb.msg);
      return sdk_err_exit_status(e);
    }
    if (i >= 0) t[i] = sdk_run_seconds(run);
    snprintf(device, nd, "%s", sdk_run_device(run));
    sdk_run_destroy(&run);
  }
  qsort(t, (size_t)repeats, sizeof *t, cmp);
  *median = t[repeats / 2];
  return 0;
}

/* The CUDA backend for the paper's programs, with the run's surroundings. */
static sdk_err open_cuda(const sdk_run_config *c, sdk_bctx **ctx, sdk_errbuf *eb) {
  sdk_backend_opts bo = {
      .device = c->device, .fast_math = 1, .env = c->env, .tuning = c->tuning, .logger = c->logger};
  return sdk_backend_cuda.open(&bo, ctx, eb);
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
static void particles_cpu_baseline(int pair, double ours) {
  long long bn = pair ? 4096 : 1 << 18, bs = pair ? 3 : 40;
  sdk_baseline_result br[3];
  sdk_baseline_kuramoto_cpu(pair, 256, 2, 1, &br[0]); /* warm-up */
  for (int i = 0; i < 3; i++)
    sdk_baseline_kuramoto_cpu(pair, bn, bs, 1u + (unsigned)i, &br[i]);
  double bt[3] = {br[0].seconds, br[1].seconds, br[2].seconds};
  qsort(bt, 3, sizeof *bt, cmp);
  double base = br[0].path_steps / bt[1];
  printf("%-52s %10.4f %18.3e\n",
         pair ? "baseline: the paper's PROG2 as scalar C, 1 thread"
              : "baseline: the paper's PROG3 as scalar C, 1 thread",
         bt[1], base);
  printf("  (%lld particles x %lld steps, xorshift + Box-Muller, float; final r = %.3f)\n", bn, bs,
         br[1].checksum);
  printf("ratio to the baseline: %.1fx with the observables\n", ours / base);
}

/* The paper's program for this workload on the GPU, same process, same size
 * and steps, and the device's copy bandwidth (the roofline). */
static void particles_cuda_baseline(const sdk_run_config *c, int pair, int64_t steps, int repeats,
                                    const double *secs) {
  sdk_errbuf eb = {0};
  sdk_bctx *ctx = NULL;
  double N = (double)c->particles, ps = N * (double)steps;
  size_t es = c->single ? 4 : 8;
  double gbps = 0, base_ms = 0, rend = 0;
  if (open_cuda(c, &ctx, &eb) != SDK_OK) return;
  if (c->single &&
      sdk_cuda_bench_kuramoto_paper(ctx, pair, c->particles, steps, repeats < 3 ? repeats : 3,
                                    &base_ms, &rend, &eb) == SDK_OK) {
    double base = (pair ? N * ps : ps) / (base_ms * 1e-3);
    printf("%-52s %10.4f %18.3e\n",
           pair ? "baseline: the paper's PROG2 (tiled UpdateRHS + Advance)"
                : "baseline: the paper's PROG3 (sums via the host)",
           base_ms * 1e-3, base);
    printf("  (Kuramoto, K = 4, T = 1, xorshift + Box-Muller, fast math; final r = %.3f)\n", rend);
    printf("ratio to the baseline: %.2fx with the observables, %.2fx without\n",
           base_ms * 1e-3 / secs[0], base_ms * 1e-3 / secs[1]);
  } else if (c->single) {
    printf("baseline: %s\n", eb.msg);
  }
  if (sdk_cuda_bench_copy(ctx, (size_t)1 << 30, 9, &gbps, &eb) == SDK_OK)
    printf("device-to-device copy, 1 GiB (read + write): %.1f GB/s%s", gbps, pair ? "\n" : "");
  if (gbps > 0 && !pair)
    printf(" -> roofline %.3e particle-steps/s for x in DRAM (%.0f%% reached)\n",
           gbps * 1e9 / (2.0 * (double)es), 100 * ps / secs[0] / (gbps * 1e9 / (2.0 * es)));
  sdk_backend_cuda.close(&ctx);
}

/* Systems of interacting particles: the paper's Kuramoto workloads (PROG2/PROG3). */
static int bench_particles(sdk_run_config *c, int64_t steps, int repeats, int particles_given,
                           int workload_only) {
  sdk_errbuf eb = {0};
  sdk_model *m = NULL;
  sdk_err e = sdk_model_load_from(c->model, c->model_search_path, &m, &eb);
  if (e != SDK_OK) {
    cli_error("%s\n", eb.msg);
    return sdk_err_exit_status(e);
  }
  int pair = m->npair > 0;
  if (!m->interacting) {
    cli_error("bench --model: model '%s' has no [meanfield] or [pair]\n", m->name);
    sdk_model_destroy(&m);
    return 2;
  }
  char name[256];
  sdk_esc_term_buf(m->name, name, sizeof name); /* printed below */
  int periodic = sdk_model_first_periodic(m) >= 0;
  sdk_model_destroy(&m);
  if (!particles_given) c->particles = pair ? 65536 : (int64_t)1 << 24;
  c->paths = 1;
  c->scheme = "euler";
  c->dt = 1.0 / 128;
  c->t_end = (double)steps / 128;
  c->observe = periodic ? "density,order" : "";
  c->obs.order_every = 1;
  c->sample_every = 100;
  c->obs.bins = 100;
  c->quiet = 1;
  int cuda = !strcmp(c->backend, "cuda");
  /* the workload, then without observables; the mean-field model also with
   * each observable alone (what each costs) and, on the GPU, with each of the
   * system kernels forced */
  int nrows = workload_only ? 1 : pair || !periodic ? 2 : cuda ? 7 : 4;
  double secs[7] = {0};
  char dev[256] = "", why[7][160] = {{0}};
  const char *kernel = c->tuning.sys_kernel; /* SDK_SYS_KERNEL, for the rows that force none */
  for (int i = 0; i < nrows; i++) {
    c->observe = periodic ? PARTICLE_ROWS[i].obs : "";
    c->tuning.sys_kernel = PARTICLE_ROWS[i].kernel ? PARTICLE_ROWS[i].kernel : kernel;
    int rc = time_runs(c, repeats, &secs[i], dev, sizeof dev,
                       PARTICLE_ROWS[i].kernel ? why[i] : NULL, sizeof why[i]);
    c->tuning.sys_kernel = kernel;
    if (rc) return rc;
  }
  double N = (double)c->particles, ps = N * (double)steps;
  printf("sdekit bench: %s, one system of N = %lld particles, %lld Euler steps, %s precision,\n"
         "median of %d runs after a warm-up (the stepping loop, host work included)\n%s\n\n",
         name, (long long)c->particles, (long long)steps, c->single ? "single" : "double", repeats,
         dev);
  size_t es = c->single ? 4 : 8;
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
  if (!cuda && !workload_only) particles_cpu_baseline(pair, (pair ? N * ps : ps) / secs[0]);
  if (cuda && !workload_only) particles_cuda_baseline(c, pair, steps, repeats, secs);
  return 0;
}

/* Single precision with and without the compensated update (codegen.h), in
 * one process: three alternating rounds of each, the best median of each
 * kept (the machine's other load only ever slows a round down). */
static int bench_compensation(sdk_run_config *c, int64_t steps, int repeats, int paths_given) {
  c->single = 1;
  if (!strcmp(c->backend, "cuda") && !paths_given) c->paths = (int64_t)1 << 22;
  double best[2] = {0, 0};
  char dev[256] = "";
  for (int round = 0; round < 3; round++)
    for (int k = 0; k < 2; k++) {
      c->no_compensation = k;
      sdk_errbuf eb = {0};
      sdk_bench_timing tm;
      sdk_err e = sdk_run_time_advance(c, steps, repeats, &tm, &eb);
      if (e != SDK_OK) {
        cli_error("%s\n", eb.msg);
        return sdk_err_exit_status(e);
      }
      double r = tm.path_steps / tm.median_s;
      if (r > best[k]) best[k] = r;
      snprintf(dev, sizeof dev, "%s", tm.device);
    }
  printf("sdekit bench: josephson (paper Eq. 1), srk2, single precision, %lld paths x %lld steps,\n"
         "median of %d, best of 3 alternating rounds; %s\n",
         (long long)c->paths, (long long)steps, repeats, dev);
  printf("%-40s %14.3e steps/s\n", "compensated (default)", best[0]);
  printf("%-40s %14.3e steps/s\n", "--no-compensation", best[1]);
  printf("ratio compensated / plain: %.3f\n", best[0] / best[1]);
  return 0;
}

/* The cost of sampling: whole runs (the execute stage: stepping, samples,
 * NaN checks) with the default sample interval (nsteps / 100), with samples
 * every 8 steps (the runs then stop only between the 4-step blocks of
 * Gaussians the kernels draw: a stop inside a block draws it twice), and
 * with final-only output (--sample-every nsteps: the samples at step 0 and
 * at the end, which every run checks anyway), alternated in one process,
 * the best of three rounds' medians kept as in bench_compensation. */
static int bench_sampling(sdk_run_config *c, int64_t steps, int repeats, int paths_given) {
  if (!paths_given) c->paths = 1000000;
  c->scheme = "euler";
  c->observe = "moments";
  c->dt = 0.001;
  c->t_end = (double)steps * c->dt;
  c->quiet = 1;
  const int64_t every[3] = {0, 8, steps};
  double best[3] = {0, 0, 0};
  char dev[256] = "";
  for (int round = 0; round < 3; round++)
    for (int k = 0; k < 3; k++) {
      c->sample_every = every[k];
      double med = 0;
      int rc = time_runs(c, repeats, &med, dev, sizeof dev, NULL, 0);
      if (rc) return rc;
      double r = (double)c->paths * (double)steps / med;
      if (r > best[k]) best[k] = r;
    }
  char name[256];
  sdk_esc_term_buf(c->model, name, sizeof name);
  printf("sdekit bench: %s, euler, %s precision, %lld paths x %lld steps, --observe moments,\n"
         "median of %d whole runs, best of 3 alternating rounds; %s\n",
         name, c->single ? "single" : "double", (long long)c->paths, (long long)steps, repeats,
         dev);
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

/* GPU: our kernel and the paper's PROG1 kernel at 2^17..2^24 paths. */
static int bench_cuda(sdk_run_config *c, int64_t steps, int repeats, int paths_given) {
  sdk_errbuf eb = {0};
  sdk_bctx *ctx = NULL;
  sdk_err e = open_cuda(c, &ctx, &eb);
  if (e != SDK_OK) {
    cli_error("%s\n", eb.msg);
    return sdk_err_exit_status(e);
  }
  char dev[256];
  sdk_backend_cuda.describe(ctx, dev, sizeof dev);
  printf("sdekit bench: josephson (paper Eq. 1), SRK2, %lld steps per timed run, median of %d,\n"
         "CUDA events; ours: %s precision from models/josephson.sde, Philox + Box-Muller;\n"
         "baseline: the paper's PROG1 kernel (xorshift32, Box-Muller, float t = t0 + i dt,\n"
         "100 steps per launch, --use_fast_math), same process\n%s\n\n",
         (long long)steps, repeats, c->single ? "single" : "double", dev);
  printf("%10s %16s %16s %8s\n", "paths", "ours steps/s", "PROG1 steps/s", "ratio");
  int lo = 17, hi = 24;
  if (paths_given) lo = hi = -1;
  int rc = 0;
  for (int k = lo; k <= hi; k++) {
    int64_t n = k < 0 ? c->paths : (int64_t)1 << k;
    c->paths = n;
    c->backend = "cuda";
    sdk_bench_timing tm;
    e = sdk_run_time_advance(c, steps, repeats, &tm, &eb);
    double base_ms = 0, chk = 0;
    if (e == SDK_OK) e = sdk_cuda_bench_prog1(ctx, n, steps, repeats, &base_ms, &chk, &eb);
    if (e != SDK_OK) {
      cli_error("%s\n", eb.msg);
      rc = sdk_err_exit_status(e);
      break;
    }
    double ours = tm.path_steps / tm.median_s, base = (double)n * (double)steps / (base_ms * 1e-3);
    printf("%10lld %16.3e %16.3e %7.2fx\n", (long long)n, ours, base, ours / base);
    fflush(stdout);
  }
  sdk_backend_cuda.close(&ctx);
  return rc;
}

/* CPU: our kernel against the paper's PROG1 CPU code, in one process. */
static int bench_cpu(const sdk_run_config *c, int64_t steps, int repeats) {
  sdk_errbuf eb = {0};
  sdk_bench_timing tm;
  sdk_err e = sdk_run_time_advance(c, steps, repeats, &tm, &eb);
  if (e != SDK_OK) {
    cli_error("%s\n", eb.msg);
    return sdk_err_exit_status(e);
  }
  double ours = tm.path_steps / tm.median_s;
  /* baseline: enough work for ~0.3 s per repeat on a current core */
  const long long bpaths = 4096, bsteps = 2000;
  double bt[9];
  int brep = repeats < 9 ? repeats : 9;
  sdk_baseline_result br;
  sdk_baseline_prog1_cpu(256, 100, 100, 1, &br); /* warm-up */
  for (int i = 0; i < brep; i++) {
    sdk_baseline_prog1_cpu(bpaths, bsteps, 100, 1u + (unsigned)i, &br);
    bt[i] = br.seconds;
  }
  qsort(bt, (size_t)brep, sizeof *bt, cmp);
  double base = br.path_steps / bt[brep / 2];
  printf("sdekit bench: josephson (paper Eq. 1), srk2, %s precision, median of %d\n",
         c->single ? "single" : "double", repeats);
  printf("%-58s %14s\n", "", "SRK2 steps/s");
  printf("%-58.58s %14.3e\n", tm.device, ours);
  printf("  (%lld paths x %lld steps per repeat, %.3f s median, %.3f..%.3f s)\n",
         (long long)c->paths, (long long)steps, tm.median_s, tm.min_s, tm.max_s);
  printf("%-58s %14.3e\n", "baseline: paper's PROG1 CPU code, scalar C, 1 thread", base);
  printf("  (%lld paths x %lld steps, xorshift + Box-Muller + SRK2, float; checksum %.4f)\n",
         bpaths, bsteps, br.checksum);
  printf("ratio: %.1fx\n", ours / base);
  return 0;
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
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model_search_path = sdk_cli_env_model_path();
  c.model = "josephson";
  c.scheme = "srk2";
  c.paths = 65536;
  int64_t steps = 2000;
  int repeats = 5;
  int paths_given = 0, particles_given = 0, workload_only = 0, comp = 0, sampling = 0;
  int steps_given = 0;
  const char *model = NULL;
  optind = 1;
  opterr = 0;
  int ch;
  double v;
  while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    switch (ch) {
    case 'b':
      if (strcmp(optarg, "cpu") && strcmp(optarg, "cuda")) {
        cli_error("--backend '%s': expected cpu or cuda\n", optarg);
        return 2;
      }
      c.backend = optarg;
      break;
    case 'm': model = optarg; break;
    case 'n':
    case 'p':
    case 's':
    case 'r':
    case 't':
      if (!sdk_parse_number(optarg, &v) || v < 1 || v != floor(v) || v > 1e12) {
        cli_error("%s '%s': expected a whole number >= 1\n", argv[optind - 1], optarg);
        return 2;
      }
      if (ch == 'p') c.paths = (int64_t)v, paths_given = 1;
      if (ch == 'n') c.particles = (int64_t)v, particles_given = 1;
      if (ch == 's') steps = (int64_t)v, steps_given = 1;
      if (ch == 'r') repeats = (int)v;
      if (ch == 't') c.threads = (int)v;
      break;
    case 'P':
      if (strcmp(optarg, "single") && strcmp(optarg, "double")) {
        cli_error("--precision '%s': expected single or double\n", optarg);
        return 2;
      }
      c.single = !strcmp(optarg, "single");
      break;
    case 'w': workload_only = 1; break;
    case 'c': comp = 1; break;
    case 'S': sampling = 1; break;
    case 'h': fputs(BENCH_HELP, stdout); return 0;
    default:
      cli_error("unknown option '%s' (see 'sdekit bench --help')\n", argv[optind - 1]);
      return 2;
    }
  }
  sdk_errbuf eb = {0};
  sdk_err e = sdk_cli_env_run(&c, &eb); /* the kernel cache, compilers, tuning */
  if (e != SDK_OK) {
    cli_error("%s\n", eb.msg);
    return sdk_err_exit_status(e);
  }
  c.logger = cli_logger(c.verbose);
  if (sampling) {
    c.model = model ? model : "ou";
    return bench_sampling(&c, steps_given ? steps : 1000, repeats, paths_given);
  }
  if (model) {
    c.model = model;
    return bench_particles(&c, steps, repeats, particles_given, workload_only);
  }
  if (workload_only) {
    cli_error("--workload-only times the workload of --model MODEL; "
              "give a model with [meanfield] or [pair]\n");
    return 2;
  }
  if (comp) return bench_compensation(&c, steps, repeats, paths_given);
  if (!strcmp(c.backend, "cuda")) return bench_cuda(&c, steps, repeats, paths_given);
  return bench_cpu(&c, steps, repeats);
}
