/* sdekit: the command-line tool.  Every error becomes one line
 * "sdekit: error: ..." on stderr; exit status 2 for bad input, 1 for
 * failures at run time. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "cli/env.h"
#include "core/escape.h"
#include "core/strbuf.h"
#include "io/io.h"
#include "model/model.h"
#include "sim/checkpoint.h"
#include "sim/run.h"
#include <time.h>

static int fail(sdk_err e, const sdk_errbuf *eb) {
  cli_error("%s", eb->msg[0] ? eb->msg : sdk_err_name(e));
  return sdk_err_exit_status(e);
}

static int usage_error(const char *fmt, const char *arg) {
  char msg[1024];
  snprintf(msg, sizeof msg, fmt, arg);
  cli_error("%s", msg);
  return 2;
}

static const char MAIN_HELP[] =
    "usage: sdekit COMMAND [options]\n"
    "\n"
    "Integrate large ensembles of stochastic differential equations on CPUs and GPUs.\n"
    "\n"
    "commands:\n"
    "  run MODEL [options]      integrate a model (built-in name or .sde file); see 'sdekit run "
    "--help'\n"
    "  models                   list the built-in models\n"
    "  resume CHECKPOINT        continue a run saved with --checkpoint\n"
    "  info FILE.h5             summarise a result file\n"
    "  plot FILE.h5 [-o FIG]    draw the results with gnuplot (PNG); see 'sdekit plot --help'\n"
    "  bench [options]          time the josephson SRK2 workload against the paper's scalar CPU "
    "code\n"
    "  codegen MODEL [options]  print the generated kernel source (--backend cpu|cuda)\n"
    "  compile MODEL [options]  generate and compile the kernel, report the result\n"
    "  devices                  list CUDA devices\n"
    "  cache list|clean         show or empty the kernel cache; see 'sdekit cache --help'\n"
    "  help                     this text\n"
    "\n"
    "options: --help, --version\n"
    "\n"
    "examples:\n"
    "  sdekit run ou --paths 100000 --t-end 5 --observe moments -o ou.h5\n"
    "  sdekit run josephson --scan a=4.2:14.1:100 --paths 1024 --periods 200 \\\n"
    "         --transient-periods 50 -o drift.tsv\n";

static const char RUN_HELP[] =
    "usage: sdekit run MODEL [options]\n"
    "\n"
    "MODEL is a path (it contains a '/' or ends in .sde: ./mymodel, mine.sde), or a bare\n"
    "name, looked up as NAME.sde in the directories of SDEKIT_MODEL_PATH (':'-separated,\n"
    "in order, before the built-ins) and then among the built-in models (see 'sdekit\n"
    "models'); never in the current directory.  Model files: regular files of UTF-8 text,\n"
    "at most 1 MiB (limits: README, 'Where a model comes from').\n"
    "\n"
    "parameters:\n"
    "  --set NAME=VALUE          set a parameter (repeatable)\n"
    "  --scan NAME=START:STOP:N[:log]\n"
    "                            scan a parameter over N values (up to two --scan: a grid)\n"
    "ensemble and time:\n"
    "  --paths N                 paths per grid point (default 1024; with --particles: 1 system)\n"
    "  --particles N             every path is a system of N particles (models with [meanfield]\n"
    "                            or [pair] need N >= 2; integrated with euler)\n"
    "  --dt DT                   time step (models without a period: default 0.01)\n"
    "  --spp N                   steps per period of the driving (periodic models; default 100)\n"
    "  --t-end T                 integrate up to time T (default 10, or 100 periods)\n"
    "  --periods N               integrate N periods (periodic models)\n"
    "  --transient T             start of the drift window (default 0)\n"
    "  --transient-periods N     the same in periods\n"
    "  --scheme NAME             euler | srk2 (default: srk2, or euler when the noise is\n"
    "                            multiplicative)\n"
    "  --seed N                  random seed (default 1); same seed, same results\n"
    "where and how:\n"
    "  --backend NAME            cpu | cuda | auto (default cpu)\n"
    "  --precision P             single | double (default single)\n"
    "  --threads N               CPU threads (default: all cores)\n"
    "  --device N                GPU ordinal (default 0)\n"
    "  --no-fast-math            compile kernels without fast-math (IEEE-exact order)\n"
    "  --no-compensation         single precision: plain x += dx state update, without the\n"
    "                            compensated (Kahan) sum that keeps long drifting runs exact\n"
    "observables:\n"
    "  --observe LIST            comma-separated: drift, moments, hist, density, order (default "
    "drift)\n"
    "                            order: r(t), psi(t) of the first periodic variable, per system\n"
    "                            of --particles, averaged over the systems\n"
    "  --drift VAR               variable whose drift <<v>> is measured (default: the first)\n"
    "  --sample-every N          steps between moment samples (default: one period, or 1/100 of "
    "the run)\n"
    "  --bins N                  histogram bins (default 100)\n"
    "  --hist-range VAR=LO:HI    fixed histogram range for VAR (default: from the data)\n"
    "  --density-var VAR         variable of --observe density (default: the first)\n"
    "  --coarse-grain[=WIDTH]    density bins exactly one period wide: WIDTH, or the period the\n"
    "                            model declares for the variable ([model] periodic = x : L)\n"
    "  --save-paths LIST         store these paths (indices per grid point, e.g. 0,1,2) at\n"
    "                            every sample\n"
    "long runs:\n"
    "  --checkpoint FILE         save the complete state to FILE (atomically) every\n"
    "                            --checkpoint-every seconds (default 600), at the end, and on\n"
    "                            SIGINT/SIGTERM; continue with 'sdekit resume FILE'\n"
    "  --checkpoint-every S      seconds between checkpoints (0: after every chunk of steps)\n"
    "output:\n"
    "  -o FILE                   FILE.h5 (HDF5, everything), FILE.tsv (text for gnuplot; one file "
    "per\n"
    "                            observable, BASE.OBS.tsv, when there are several) or - (stdout);\n"
    "                            repeat -o to write several formats from one run\n"
    "  --quiet                   no progress or summary on stderr\n"
    "  --verbose                 show compiler commands and cache use\n"
    "\n"
    "Results with the same seed and settings are bitwise identical whatever the thread count.\n";

enum {
  OPT_SET = 256,
  OPT_SCAN,
  OPT_PATHS,
  OPT_DT,
  OPT_SPP,
  OPT_TEND,
  OPT_PERIODS,
  OPT_TRANS,
  OPT_TRANSP,
  OPT_SCHEME,
  OPT_SEED,
  OPT_BACKEND,
  OPT_PREC,
  OPT_THREADS,
  OPT_DEVICE,
  OPT_NOFAST,
  OPT_NOCOMP,
  OPT_OBSERVE,
  OPT_DRIFT,
  OPT_SAMPLE,
  OPT_BINS,
  OPT_HRANGE,
  OPT_QUIET,
  OPT_VERBOSE,
  OPT_HELP,
  OPT_ARCH,
  OPT_STEPS,
  OPT_SAVE,
  OPT_DVAR,
  OPT_COARSE,
  OPT_CKPT,
  OPT_CKPT_EVERY,
  OPT_FORCE,
  OPT_PARTICLES
};

static const struct option RUN_OPTS[] = {{"set", required_argument, 0, OPT_SET},
                                         {"scan", required_argument, 0, OPT_SCAN},
                                         {"paths", required_argument, 0, OPT_PATHS},
                                         {"particles", required_argument, 0, OPT_PARTICLES},
                                         {"dt", required_argument, 0, OPT_DT},
                                         {"spp", required_argument, 0, OPT_SPP},
                                         {"t-end", required_argument, 0, OPT_TEND},
                                         {"periods", required_argument, 0, OPT_PERIODS},
                                         {"transient", required_argument, 0, OPT_TRANS},
                                         {"transient-periods", required_argument, 0, OPT_TRANSP},
                                         {"scheme", required_argument, 0, OPT_SCHEME},
                                         {"seed", required_argument, 0, OPT_SEED},
                                         {"backend", required_argument, 0, OPT_BACKEND},
                                         {"precision", required_argument, 0, OPT_PREC},
                                         {"threads", required_argument, 0, OPT_THREADS},
                                         {"device", required_argument, 0, OPT_DEVICE},
                                         {"no-fast-math", no_argument, 0, OPT_NOFAST},
                                         {"no-compensation", no_argument, 0, OPT_NOCOMP},
                                         {"observe", required_argument, 0, OPT_OBSERVE},
                                         {"drift", required_argument, 0, OPT_DRIFT},
                                         {"sample-every", required_argument, 0, OPT_SAMPLE},
                                         {"bins", required_argument, 0, OPT_BINS},
                                         {"hist-range", required_argument, 0, OPT_HRANGE},
                                         {"output", required_argument, 0, 'o'},
                                         {"quiet", no_argument, 0, OPT_QUIET},
                                         {"verbose", no_argument, 0, OPT_VERBOSE},
                                         {"arch", required_argument, 0, OPT_ARCH},
                                         {"steps", required_argument, 0, OPT_STEPS},
                                         {"save-paths", required_argument, 0, OPT_SAVE},
                                         {"density-var", required_argument, 0, OPT_DVAR},
                                         {"coarse-grain", optional_argument, 0, OPT_COARSE},
                                         {"checkpoint", required_argument, 0, OPT_CKPT},
                                         {"checkpoint-every", required_argument, 0, OPT_CKPT_EVERY},
                                         {"help", no_argument, 0, OPT_HELP},
                                         {0, 0, 0, 0}};

/* Strict parsers: the whole argument must be the number. */
static int parse_count(const char *s, int64_t lo, int64_t *out) {
  double v;
  if (!sdk_parse_number(s, &v) || v != floor(v) || v < (double)lo || v > 9.0e15) return 0;
  *out = (int64_t)v;
  return 1;
}

static int parse_u64(const char *s, uint64_t *out) {
  if (!*s) return 0;
  for (const char *p = s; *p; p++)
    if (*p < '0' || *p > '9') return 0;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end) return 0;
  *out = v;
  return 1;
}

typedef struct cli_run {
  sdk_run_config c;
  const char *outputs[4];
  int noutputs;
  const char *arch;
  int64_t bench_steps;
  int help;
  int force;
  char **argv_copy; /* the arguments before getopt_long permuted them */
  char cmdline[4096];
  char resolved[4][4200]; /* resume: outputs moved into the checkpoint's directory */
} cli_run;

static int parse_run_options(int argc, char **argv, cli_run *cr, int need_model) {
  sdk_run_config *c = &cr->c;
  sdk_errbuf eb = {0};
  if (cli_cache_max(&c->cache_max)) return 2;
  c->model_search_path = sdk_cli_env_model_path();
  optind = 1;
  opterr = 0;
  int ch, paths_given = 0;
  while ((ch = getopt_long(argc, argv, ":o:", RUN_OPTS, NULL)) != -1) {
    int64_t n;
    double v;
    switch (ch) {
    case OPT_HELP: cr->help = 1; return 0;
    case OPT_SET: {
      const char *eq = strchr(optarg, '=');
      if (!eq || eq == optarg || (size_t)(eq - optarg) >= 64)
        return usage_error("--set '%s': expected NAME=VALUE", optarg);
      if (!sdk_parse_number(eq + 1, &v))
        return usage_error("--set '%s': the value must be a number", optarg);
      if (c->nset == SDK_MAX_SET) return usage_error("too many --set (at most 64)%s", "");
      char *name = sdk_strndup(optarg, (size_t)(eq - optarg));
      if (!name) return usage_error("out of memory%s", "");
      c->set_name[c->nset] = name; /* lives until exit */
      c->set_value[c->nset++] = v;
      break;
    }
    case OPT_SCAN:
      if (c->nscan == SDK_MAX_SCAN) return usage_error("at most two --scan%s", "");
      if (sdk_scan_parse(optarg, &c->scan[c->nscan], &eb) != SDK_OK)
        return fail(SDK_ERR_USAGE, &eb);
      c->nscan++;
      break;
    case OPT_PARTICLES:
      if (!parse_count(optarg, 1, &n))
        return usage_error("--particles '%s': expected a whole number >= 1 (particles per system)",
                           optarg);
      c->particles = n;
      break;
    case OPT_PATHS:
      if (!parse_count(optarg, 1, &n))
        return usage_error("--paths '%s': expected a whole number >= 1", optarg);
      c->paths = n;
      paths_given = 1;
      break;
    case OPT_DT:
      if (!sdk_parse_number(optarg, &v) || v <= 0)
        return usage_error("--dt '%s': expected a number > 0", optarg);
      c->dt = v;
      break;
    case OPT_SPP:
      if (!parse_count(optarg, 1, &n))
        return usage_error("--spp '%s': expected a whole number >= 1", optarg);
      c->spp = n;
      break;
    case OPT_TEND:
      if (!sdk_parse_number(optarg, &v) || v <= 0)
        return usage_error("--t-end '%s': expected a number > 0", optarg);
      c->t_end = v;
      break;
    case OPT_PERIODS:
      if (!parse_count(optarg, 1, &n))
        return usage_error("--periods '%s': expected a whole number >= 1", optarg);
      c->periods = n;
      break;
    case OPT_TRANS:
      if (!sdk_parse_number(optarg, &v) || v < 0)
        return usage_error("--transient '%s': expected a number >= 0", optarg);
      c->transient = v;
      break;
    case OPT_TRANSP:
      if (!parse_count(optarg, 0, &n))
        return usage_error("--transient-periods '%s': expected a whole number >= 0", optarg);
      c->transient_periods = n;
      break;
    case OPT_SCHEME: c->scheme = optarg; break;
    case OPT_SEED:
      if (!parse_u64(optarg, &c->seed))
        return usage_error("--seed '%s': expected a whole number >= 0", optarg);
      break;
    case OPT_BACKEND:
      if (strcmp(optarg, "cpu") && strcmp(optarg, "cuda") && strcmp(optarg, "auto"))
        return usage_error("--backend '%s': expected cpu, cuda or auto", optarg);
      c->backend = optarg;
      break;
    case OPT_PREC:
      if (!strcmp(optarg, "single") || !strcmp(optarg, "float"))
        c->single = 1;
      else if (!strcmp(optarg, "double"))
        c->single = 0;
      else
        return usage_error("--precision '%s': expected single or double", optarg);
      break;
    case OPT_THREADS:
      if (!parse_count(optarg, 1, &n) || n > 4096)
        return usage_error("--threads '%s': expected a whole number >= 1", optarg);
      c->threads = (int)n;
      break;
    case OPT_DEVICE:
      if (!parse_count(optarg, 0, &n) || n > 1024)
        return usage_error("--device '%s': expected a GPU ordinal", optarg);
      c->device = (int)n;
      break;
    case OPT_NOFAST: c->fast_math = 0; break;
    case OPT_NOCOMP: c->no_compensation = 1; break;
    case OPT_OBSERVE: {
      c->observe = 0;
      char *copy = sdk_strdup(optarg), *save = NULL;
      if (!copy) return usage_error("out of memory%s", "");
      for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!strcmp(t, "drift"))
          c->observe |= SDK_OBS_DRIFT;
        else if (!strcmp(t, "moments"))
          c->observe |= SDK_OBS_MOMENTS;
        else if (!strcmp(t, "hist"))
          c->observe |= SDK_OBS_HIST;
        else if (!strcmp(t, "density"))
          c->observe |= SDK_OBS_DENSITY;
        else if (!strcmp(t, "order"))
          c->observe |= SDK_OBS_ORDER;
        else {
          int r = usage_error(
              "--observe: unknown observable '%s' (known: drift, moments, hist, density, order)",
              t);
          free(copy);
          return r;
        }
      }
      free(copy);
      if (!c->observe) return usage_error("--observe '%s': name at least one observable", optarg);
      break;
    }
    case OPT_DRIFT: c->drift_var = optarg; break;
    case OPT_SAMPLE:
      if (!parse_count(optarg, 1, &n))
        return usage_error("--sample-every '%s': expected a whole number >= 1", optarg);
      c->sample_every = n;
      break;
    case OPT_BINS:
      if (!parse_count(optarg, 1, &n) || n > 100000000)
        return usage_error("--bins '%s': expected a whole number between 1 and 1e8", optarg);
      c->bins = n;
      break;
    case OPT_HRANGE: {
      const char *eq = strchr(optarg, '='), *colon = eq ? strchr(eq, ':') : NULL;
      if (!eq || !colon || eq == optarg || (size_t)(eq - optarg) >= 64 || c->nhist_range == 8)
        return usage_error("--hist-range '%s': expected VAR=LO:HI", optarg);
      char lo[64], hi[64];
      snprintf(lo, sizeof lo, "%.*s", (int)(colon - eq - 1), eq + 1);
      snprintf(hi, sizeof hi, "%s", colon + 1);
      int k = c->nhist_range;
      if (!sdk_parse_number(lo, &c->hist_range_lo[k]) ||
          !sdk_parse_number(hi, &c->hist_range_hi[k]))
        return usage_error("--hist-range '%s': LO and HI must be numbers", optarg);
      snprintf(c->hist_range_var[k], sizeof c->hist_range_var[k], "%.*s", (int)(eq - optarg),
               optarg);
      c->nhist_range++;
      break;
    }
    case 'o':
      if (cr->noutputs == 4) return usage_error("at most four -o%s", "");
      cr->outputs[cr->noutputs++] = optarg;
      break;
    case OPT_QUIET: c->quiet = 1; break;
    case OPT_VERBOSE: c->verbose = 1; break;
    case OPT_ARCH: cr->arch = optarg; break;
    case OPT_SAVE: {
      char *copy = sdk_strdup(optarg), *save = NULL;
      if (!copy) return usage_error("out of memory%s", "");
      c->nsave = 0;
      int bad = 0;
      for (char *t = strtok_r(copy, ",", &save); t && !bad; t = strtok_r(NULL, ",", &save)) {
        int64_t k;
        if (!parse_count(t, 0, &k) || c->nsave == SDK_MAX_SAVE)
          bad = 1;
        else
          c->save_index[c->nsave++] = k;
      }
      free(copy);
      if (bad || c->nsave == 0)
        return usage_error("--save-paths '%s': expected path indices like 0,1,2 (at most 1024)",
                           optarg);
      break;
    }
    case OPT_DVAR: c->density_var = optarg; break;
    case OPT_COARSE:
      if (optarg) {
        if (!sdk_parse_number(optarg, &v) || v <= 0)
          return usage_error("--coarse-grain=%s: the bin width must be a number > 0", optarg);
        c->coarse_width = v;
      } else {
        c->coarse_width = -1; /* the model's period of the variable */
      }
      break;
    case OPT_CKPT: c->checkpoint = optarg; break;
    case OPT_CKPT_EVERY:
      if (!sdk_parse_number(optarg, &v) || v < 0)
        return usage_error("--checkpoint-every '%s': expected seconds >= 0", optarg);
      c->checkpoint_every = v;
      break;
    case OPT_STEPS:
      if (!parse_count(optarg, 1, &n))
        return usage_error("--steps '%s': expected a whole number >= 1", optarg);
      cr->bench_steps = n;
      break;
    case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
    case '?':
    default: return usage_error("unknown option '%s' (see 'sdekit run --help')", argv[optind - 1]);
    }
  }
  if (need_model) {
    if (optind >= argc) return usage_error("missing MODEL (a built-in name or a .sde file)%s", "");
    if (optind + 1 < argc) return usage_error("unexpected argument '%s'", argv[optind + 1]);
    c->model = argv[optind];
    /* one system of N particles unless asked for more (1024 systems of a
     * large N would be a surprise of many hours) */
    if (c->particles > 1 && !paths_given) c->paths = 1;
  } else if (optind < argc) {
    return usage_error("unexpected argument '%s'", argv[optind]);
  }
  return 0;
}

/* Progress bar on a terminal only. */
typedef struct progress {
  int on;
  double last_frac;
  double start;
} progress;

static double mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void show_progress(void *user, double frac, double sps) {
  progress *p = user;
  if (!p->on || (frac - p->last_frac < 0.005 && frac < 1)) return;
  p->last_frac = frac;
  int w = 30, k = (int)(frac * w + 0.5);
  char bar[64];
  for (int i = 0; i < w; i++)
    bar[i] = i < k ? '#' : '.';
  bar[w] = 0;
  double el = mono_s() - p->start, left = frac > 0 ? el * (1 - frac) / frac : 0;
  char eta[32];
  if (left >= 3600)
    snprintf(eta, sizeof eta, "%dh%02dm", (int)(left / 3600), (int)(left / 60) % 60);
  else
    snprintf(eta, sizeof eta, "%dm%02ds", (int)(left / 60), (int)left % 60);
  fprintf(stderr, "\r[%s] %5.1f%%  %.3g steps/s  %s left ", bar, 100 * frac, sps, eta);
  if (frac >= 1) fputc('\n', stderr);
  fflush(stderr);
}

static int has_suffix(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

/* Check up front that the output can be written, so a long run never ends
 * in a write error. */
static int check_output_dir(const char *out) {
  if (!strcmp(out, "-")) return 0;
  char *copy = sdk_strdup(out);
  if (!copy) return usage_error("out of memory%s", "");
  char *dir = dirname(copy);
  struct stat st;
  int r = 0;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    r = usage_error("cannot write '%s': the directory does not exist", out);
  else if (access(dir, W_OK) != 0)
    r = usage_error("cannot write '%s': the directory is not writable", out);
  else if (stat(out, &st) == 0 && S_ISDIR(st.st_mode))
    r = usage_error("cannot write '%s': it is a directory", out);
  free(copy);
  return r;
}

static const char *OBS_NAMES[] = {"drift", "moments", "hist", "density", "paths", "order"};
#define NOBS 6
static int has_obs(const sdk_run_config *c, int i) {
  if (i == 5) return (c->observe & SDK_OBS_ORDER) != 0;
  return i < 4 ? (c->observe >> i) & 1 : c->nsave > 0;
}

static void cli_run_free(cli_run *cr) {
  for (int i = 0; i < cr->c.nscan; i++)
    sdk_scan_free(&cr->c.scan[i]);
  for (int i = 0; i < cr->c.nset; i++)
    free((char *)cr->c.set_name[i]);
  cr->c.nscan = cr->c.nset = 0;
  free(cr->argv_copy);
  cr->argv_copy = NULL;
}

/* What `sdekit resume` adds to the arguments stored in a checkpoint.  The
 * checkpoint is data (docs/SECURITY.md): it may not choose where files are
 * written, so its outputs land in the checkpoint's own directory under their
 * base names (or where -o says), and it always checkpoints to itself. */
typedef struct resume_opts {
  const sdk_ckpt *k;
  const char *file; /* the checkpoint */
  const char *outputs[4];
  int noutputs; /* -o given to resume: these replace the stored ones */
  int force;    /* replace existing outputs */
} resume_opts;

static int cmd_run_parsed(cli_run *cr, int argc, char **argv, const resume_opts *ro);

static int cmd_run(int argc, char **argv) {
  cli_run cr;
  int rc = cmd_run_parsed(&cr, argc, argv, NULL);
  cli_run_free(&cr);
  return rc;
}

/* Is argv[i] the option `name` (as "--name V" or "--name=V")? Returns how
 * many words it takes (0: not it). */
static int is_opt(char **argv, int argc, int i, const char *name) {
  size_t n = strlen(name);
  if (strncmp(argv[i], name, n) != 0) return 0;
  if (argv[i][n] == '=') return 1;
  if (argv[i][n] == 0) return i + 1 < argc ? 2 : 1;
  return 0;
}

/* SIGINT/SIGTERM during a run with --checkpoint: finish the chunk, save, stop. */
static volatile sig_atomic_t g_stop = 0;
static void on_signal(int sig) {
  g_stop = sig;
}

static void warn_line(void *user, const char *msg) {
  (void)user;
  fputs("sdekit: warning: ", stderr);
  cli_put_escaped(stderr, msg);
  fputc('\n', stderr);
}

/* The files an output name stands for (FILE, or BASE.OBS.tsv for several
 * observables), for the check that resume replaces none silently. */
static int existing_output(const char *out, int nobs, const sdk_run_config *c, char *found,
                           size_t n);

static int cmd_run_parsed(cli_run *crp, int argc, char **argv, const resume_opts *ro) {
  const sdk_ckpt *resume = ro ? ro->k : NULL;
  memset(crp, 0, sizeof *crp);
  sdk_run_config_defaults(&crp->c);
  /* record the command as typed (getopt_long reorders argv), less the options
   * that cannot change the results, so that a run resumed from a checkpoint or
   * run with another thread count writes byte-identical files */
  sdk_strbuf cl;
  sdk_sb_init(&cl);
  sdk_sb_puts(&cl, "sdekit");
  for (int i = 0; i < argc; i++) {
    static const char *const valued[] = {"--checkpoint", "--checkpoint-every", "--threads", NULL};
    int skip = 0;
    for (int k = 0; valued[k] && !skip; k++)
      skip = is_opt(argv, argc, i, valued[k]);
    if (!skip && (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "--verbose"))) skip = 1;
    if (skip) {
      i += skip - 1;
      continue;
    }
    sdk_sb_printf(&cl, " %s", argv[i]);
  }
  crp->argv_copy = malloc(((size_t)argc + 1) * sizeof(char *));
  if (crp->argv_copy) memcpy(crp->argv_copy, argv, (size_t)argc * sizeof(char *));
  snprintf(crp->cmdline, sizeof crp->cmdline, "%s", cl.s ? cl.s : "");
  sdk_sb_free(&cl);
  int rc = parse_run_options(argc, argv, crp, 1);
  if (crp->help) {
    fputs(RUN_HELP, stdout);
    return 0;
  }
  if (rc) return rc;
  sdk_run_config *c = &crp->c;
  c->command_line = crp->cmdline;
  c->argc = crp->argv_copy ? argc : 0;
  c->argv = crp->argv_copy;
  if (resume) {
    c->resume = resume;
    c->model_text = resume->model_text;
    c->model_path = resume->model_path;
    c->checkpoint = ro->file;
    if (ro->noutputs) {
      crp->noutputs = ro->noutputs;
      memcpy(crp->outputs, ro->outputs, sizeof crp->outputs);
    } else {
      char *copy = sdk_strdup(ro->file);
      if (!copy) return usage_error("out of memory%s", "");
      const char *dir = dirname(copy);
      for (int k = 0; k < crp->noutputs; k++) {
        if (!strcmp(crp->outputs[k], "-")) continue;
        char *o = sdk_strdup(crp->outputs[k]);
        if (!o) {
          free(copy);
          return usage_error("out of memory%s", "");
        }
        snprintf(crp->resolved[k], sizeof crp->resolved[k], "%s/%s", dir, basename(o));
        free(o);
        crp->outputs[k] = crp->resolved[k];
      }
      free(copy);
    }
  }
  if (c->checkpoint_every >= 0 && !c->checkpoint)
    return usage_error("--checkpoint-every needs --checkpoint FILE%s", "");
  if (c->checkpoint && c->checkpoint_every < 0) c->checkpoint_every = 600;
  if (c->checkpoint && (rc = check_output_dir(c->checkpoint))) return rc;
  if (c->coarse_width != 0 && !(c->observe & SDK_OBS_DENSITY))
    return usage_error("--coarse-grain goes with --observe density%s", "");

  int nobs = 0;
  for (int i = 0; i < 4; i++)
    nobs += (c->observe >> i) & 1;
  nobs += (c->observe & SDK_OBS_ORDER) != 0;
  nobs += c->nsave > 0;
  if (crp->noutputs == 0) crp->outputs[crp->noutputs++] = "-";
  for (int k = 0; k < crp->noutputs; k++) {
    const char *out = crp->outputs[k];
    int h5 = has_suffix(out, ".h5") || has_suffix(out, ".hdf5");
    if (!h5 && !strcmp(out, "-") && nobs > 1)
      return usage_error("several observables need -o FILE.h5 or -o FILE.tsv (stdout takes one)%s",
                         "");
    if (!h5 && strcmp(out, "-") && !has_suffix(out, ".tsv") && !has_suffix(out, ".txt") &&
        !has_suffix(out, ".dat"))
      return usage_error("-o '%s': expected a name ending in .h5 or .tsv, or - for stdout", out);
    if ((rc = check_output_dir(out))) return rc;
  }
  if (ro) {
    /* resume writes where it says, and replaces nothing unless asked */
    for (int k = 0; k < crp->noutputs; k++) {
      const char *out = crp->outputs[k];
      char found[4200];
      if (strcmp(out, "-") && !ro->force && existing_output(out, nobs, c, found, sizeof found)) {
        cli_error("'%s' exists: give --force to replace it, or -o FILE to write elsewhere", found);
        return 2;
      }
    }
  }

  progress pr = {isatty(2) && !c->quiet, 0, mono_s()};
  /* SIGINT/SIGTERM: finish the chunk, checkpoint if asked, say where the run
   * stopped; a second signal kills at once (SA_RESETHAND) */
  struct sigaction sa, old_int, old_term;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  c->stop = &g_stop;
  c->warn = warn_line;
  c->progress = show_progress;
  c->progress_user = &pr;
  sdk_errbuf eb = {0};
  sdk_run *run = NULL;
  sdk_err e = sdk_run_execute(c, &run, &eb);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  if (pr.on && pr.last_frac > 0 && pr.last_frac < 1) fputc('\n', stderr);
  if (e == SDK_ERR_INTERRUPTED) {
    fputs("sdekit: ", stderr);
    cli_put_escaped(stderr, eb.msg);
    fputc('\n', stderr);
    return 128 + (int)g_stop;
  }
  if (e != SDK_OK) return fail(e, &eb);
  const sdk_results *R = sdk_run_results(run);
  for (int k = 0; ro && k < crp->noutputs; k++)
    if (strcmp(crp->outputs[k], "-")) {
      fputs("sdekit: resume: results go to ", stderr);
      cli_put_escaped(stderr, crp->outputs[k]);
      fputc('\n', stderr);
    }
  for (int k = 0; k < crp->noutputs && e == SDK_OK; k++) {
    const char *out = crp->outputs[k];
    int h5 = has_suffix(out, ".h5") || has_suffix(out, ".hdf5");
    if (h5) {
      e = sdk_write_h5(R, out, &eb);
    } else if (!strcmp(out, "-") || nobs == 1) {
      for (int i = 0; i < NOBS && e == SDK_OK; i++)
        if (has_obs(c, i)) e = sdk_write_tsv_file(R, OBS_NAMES[i], out, &eb);
    } else {
      /* several observables: BASE.OBS.tsv */
      size_t blen = strlen(out) - strlen(strrchr(out, '.'));
      for (int i = 0; i < NOBS && e == SDK_OK; i++)
        if (has_obs(c, i)) {
          char path[4096];
          snprintf(path, sizeof path, "%.*s.%s.tsv", (int)blen, out, OBS_NAMES[i]);
          e = sdk_write_tsv_file(R, OBS_NAMES[i], path, &eb);
          if (e == SDK_OK && !c->quiet) {
            fputs("sdekit: wrote ", stderr);
            cli_put_escaped(stderr, path);
            fputc('\n', stderr);
          }
        }
    }
    if (e == SDK_OK && !c->quiet && strcmp(out, "-") && (h5 || nobs == 1)) {
      fputs("sdekit: wrote ", stderr);
      cli_put_escaped(stderr, out);
      fputc('\n', stderr);
    }
  }
  if (e == SDK_OK && !c->quiet) {
    /* the model and the file it was read from (data: escaped) */
    fputs("sdekit: ", stderr);
    cli_put_escaped(stderr, R->model_name);
    if (R->model_path && R->model_path[0]) {
      fputs(" (", stderr);
      cli_put_escaped(stderr, R->model_path);
      fputs(")", stderr);
    }
    fprintf(stderr, ", %.3g path-steps in %.2f s (%.3g steps/s) on %s\n", sdk_run_path_steps(run),
            sdk_run_seconds(run),
            sdk_run_path_steps(run) / (sdk_run_seconds(run) > 0 ? sdk_run_seconds(run) : 1),
            sdk_run_device(run));
  }
  /* grid points that blew up: the results are written (NaN there), then
   * reported as an error so that scripts notice */
  const char *problem = sdk_run_problem(run);
  int prc = 0;
  if (e == SDK_OK && problem) {
    cli_error("%s", problem);
    prc = 1;
  }
  sdk_run_destroy(&run);
  return e == SDK_OK ? prc : fail(e, &eb);
}

static int existing_output(const char *out, int nobs, const sdk_run_config *c, char *found,
                           size_t n) {
  struct stat st;
  int h5 = has_suffix(out, ".h5") || has_suffix(out, ".hdf5");
  if (h5 || nobs == 1) {
    snprintf(found, n, "%s", out);
    return lstat(out, &st) == 0;
  }
  size_t blen = strlen(out) - strlen(strrchr(out, '.'));
  for (int i = 0; i < NOBS; i++)
    if (has_obs(c, i)) {
      snprintf(found, n, "%.*s.%s.tsv", (int)blen, out, OBS_NAMES[i]);
      if (lstat(found, &st) == 0) return 1;
    }
  return 0;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .sde files of a directory, sorted (free each and the array). */
static char **sde_files(const char *dir, size_t *count) {
  *count = 0;
  DIR *d = opendir(dir);
  if (!d) return NULL;
  char **v = NULL;
  size_t n = 0, cap = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (de->d_name[0] == '.' || !has_suffix(de->d_name, ".sde")) continue;
    if (n == cap) {
      size_t nc = cap ? 2 * cap : 16;
      char **nv = realloc(v, nc * sizeof *nv);
      if (!nv) break;
      v = nv;
      cap = nc;
    }
    if (!(v[n] = sdk_strdup(de->d_name))) break;
    n++;
  }
  closedir(d);
  if (n) qsort(v, n, sizeof *v, cmp_names);
  *count = n;
  return v;
}

static int cmd_models(int argc, char **argv) {
  const char *dirs[8];
  int nd = sdk_model_dirs(sdk_cli_env_model_path(), dirs, 8);
  int shown = 0;
  printf("built-in models:\n");
  for (int i = 0; i < nd; i++) {
    size_t nf = 0;
    char **files = sde_files(dirs[i], &nf);
    for (size_t f = 0; f < nf; f++) {
      const char *name = files[f];
      char path[5000];
      snprintf(path, sizeof path, "%s/%s", dirs[i], name);
      sdk_model *m = NULL;
      sdk_errbuf eb = {0};
      if (sdk_model_load(path, &m, &eb) == SDK_OK) {
        char *vars = sdk_model_var_list(m);
        char en[512], ed[2048], ev[2048];
        printf("  %-20s %s\n  %-20s vars: %s\n", sdk_esc_term_buf(m->name, en, sizeof en),
               sdk_esc_term_buf(m->description ? m->description : "", ed, sizeof ed), "",
               sdk_esc_term_buf(vars ? vars : "", ev, sizeof ev));
        free(vars);
        shown++;
      } else {
        char en[1024], em[4096];
        printf("  %-20s (broken: %s)\n", sdk_esc_term_buf(name, en, sizeof en),
               sdk_esc_term_buf(eb.msg, em, sizeof em));
      }
      sdk_model_destroy(&m);
      free(files[f]);
    }
    free(files);
  }
  char ed0[4096];
  if (!shown)
    printf("  (none found; searched %s)\n",
           nd ? sdk_esc_term_buf(dirs[0], ed0, sizeof ed0) : "nothing");
  return 0;
}

static int cmd_info(int argc, char **argv) {
  if (argc != 2 || !strcmp(argv[1], "--help")) {
    if (argc == 2) return printf("usage: sdekit info FILE.h5\n"), 0;
    return usage_error("usage: sdekit info FILE.h5%s", "");
  }
  struct stat st;
  if (stat(argv[1], &st) != 0) return usage_error("cannot read '%s': no such file", argv[1]);
  sdk_errbuf eb = {0};
  sdk_err e = sdk_h5_info(argv[1], stdout, &eb);
  return e == SDK_OK ? 0 : fail(e, &eb);
}

static int cmd_codegen(int argc, char **argv) {
  cli_run cr;
  memset(&cr, 0, sizeof cr);
  sdk_run_config_defaults(&cr.c);
  int rc = parse_run_options(argc, argv, &cr, 1);
  if (cr.help || rc) cli_run_free(&cr);
  if (cr.help) return printf("usage: sdekit codegen MODEL [--backend cpu|cuda] [run options]\n"), 0;
  if (rc) return rc;
  sdk_errbuf eb = {0};
  char *src = NULL;
  sdk_err e = sdk_run_codegen(&cr.c, !strcmp(cr.c.backend, "cuda"), &src, &eb);
  cli_run_free(&cr);
  if (e != SDK_OK) return fail(e, &eb);
  fputs(src, stdout);
  free(src);
  return 0;
}

static const char RESUME_HELP[] =
    "usage: sdekit resume CHECKPOINT [--periods N | --t-end T] [-o FILE]... [--force]\n"
    "                                [--stored-model] [--threads N] [--quiet]\n"
    "\n"
    "Continues a run saved with --checkpoint (after SIGINT/SIGTERM, a crash, or its end):\n"
    "the same arguments, model and state; the results are bitwise those of the run done\n"
    "in one go.  --periods/--t-end raise the run's length (extend a finished run).\n"
    "\n"
    "A checkpoint is data, not a command: its model text passes the model parser like any\n"
    "model file, and it only works with the sdekit build (version, kernel ABI, compiler,\n"
    "generated kernel) that wrote it.  The results go to the checkpoint's own directory,\n"
    "under the base names of the run's -o files (printed first), or to the -o FILEs given\n"
    "here; the run checkpoints to CHECKPOINT itself.\n"
    "  -o FILE          write here instead (repeatable, as for 'sdekit run')\n"
    "  --force          replace result files that exist (resume never does so silently;\n"
    "                   'sdekit run' replaces its -o files, as typed)\n"
    "  --stored-model   resume although the model file has changed since, with the model\n"
    "                   text stored in the checkpoint\n";

/* A model file to compare with the checkpoint's text: a regular file of
 * bounded size, opened without waiting on a FIFO; NULL otherwise. */
static char *read_model_file(const char *path) {
  enum { MAX_MODEL = 16 << 20 };
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  char *buf = NULL;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= MAX_MODEL &&
      (buf = malloc((size_t)st.st_size + 1))) {
    size_t got = 0;
    ssize_t r;
    while (got < (size_t)st.st_size &&
           ((r = read(fd, buf + got, (size_t)st.st_size - got)) > 0 || (r < 0 && errno == EINTR)))
      got += r > 0 ? (size_t)r : 0;
    buf[got] = 0;
  }
  close(fd);
  return buf;
}

static int cmd_resume(int argc, char **argv) {
  const char *file = NULL, *periods = NULL, *tend = NULL, *threads = NULL;
  int force = 0, stored_model = 0, quiet = 0, verbose = 0;
  resume_opts ro;
  memset(&ro, 0, sizeof ro);
  for (int i = 1; i < argc; i++) {
    int k;
    if (!strcmp(argv[i], "--help")) return fputs(RESUME_HELP, stdout), 0;
    if (!strcmp(argv[i], "--force"))
      force = 1;
    else if (!strcmp(argv[i], "--stored-model"))
      stored_model = 1;
    else if (!strcmp(argv[i], "--quiet"))
      quiet = 1;
    else if (!strcmp(argv[i], "--verbose"))
      verbose = 1;
    else if (!strcmp(argv[i], "-o") || !strncmp(argv[i], "--output", 8)) {
      const char *val = !strcmp(argv[i], "-o") || !strcmp(argv[i], "--output") ? argv[i + 1]
                        : argv[i][8] == '='                                    ? argv[i] + 9
                                                                               : NULL;
      if (!val) return usage_error("option '%s' needs a value", argv[i]);
      if (ro.noutputs == 4) return usage_error("at most four -o%s", "");
      ro.outputs[ro.noutputs++] = val;
      if (val == argv[i + 1]) i++;
    } else if ((k = is_opt(argv, argc, i, "--threads"))) {
      threads = k == 2 ? argv[i + 1] : strchr(argv[i], '=') ? strchr(argv[i], '=') + 1 : NULL;
      if (!threads) return usage_error("option '%s' needs a value", argv[i]);
      i += k - 1;
    } else if ((k = is_opt(argv, argc, i, "--periods")) || (k = is_opt(argv, argc, i, "--t-end"))) {
      const char *val = k == 2                 ? argv[i + 1]
                        : strchr(argv[i], '=') ? strchr(argv[i], '=') + 1
                                               : NULL;
      if (!val) return usage_error("option '%s' needs a value", argv[i]);
      if (!strncmp(argv[i], "--periods", 9))
        periods = val;
      else
        tend = val;
      i += k - 1;
    } else if (argv[i][0] == '-') {
      return usage_error("unknown option '%s' (see 'sdekit resume --help')", argv[i]);
    } else if (!file) {
      file = argv[i];
    } else {
      return usage_error("unexpected argument '%s'", argv[i]);
    }
  }
  if (!file) return usage_error("usage: sdekit resume CHECKPOINT [--periods N | --t-end T]%s", "");
  sdk_errbuf eb = {0};
  sdk_ckpt *k = NULL;
  sdk_err e = sdk_ckpt_read(file, &k, &eb);
  if (e != SDK_OK) return fail(e, &eb);
  /* a checkpoint of another model (the file changed since) is not used silently */
  char *now = k->model_path[0] ? read_model_file(k->model_path) : NULL;
  if (now && strcmp(now, k->model_text) != 0 && !stored_model) {
    cli_error("model file '%s' has changed since checkpoint '%s' was written "
              "(--stored-model resumes with the model stored in the checkpoint)",
              k->model_path, file);
    free(now);
    sdk_ckpt_destroy(&k);
    return 2;
  }
  free(now);
  /* the stored arguments, less --periods/--t-end when new ones are given */
  char **av = calloc((size_t)k->argc + 10, sizeof *av);
  int ac = 0;
  if (!av) {
    sdk_ckpt_destroy(&k);
    return usage_error("out of memory%s", "");
  }
  for (int i = 0; i < k->argc; i++) {
    int w = 0;
    if ((periods || tend) && ((w = is_opt(k->argv, k->argc, i, "--periods")) ||
                              (w = is_opt(k->argv, k->argc, i, "--t-end")))) {
      i += w - 1;
      continue;
    }
    av[ac++] = k->argv[i];
  }
  char pbuf[128], tbuf[128];
  if (periods) snprintf(pbuf, sizeof pbuf, "--periods=%s", periods), av[ac++] = pbuf;
  if (tend) snprintf(tbuf, sizeof tbuf, "--t-end=%s", tend), av[ac++] = tbuf;
  char thbuf[64];
  if (quiet) av[ac++] = "--quiet";
  if (verbose) av[ac++] = "--verbose";
  if (threads) snprintf(thbuf, sizeof thbuf, "--threads=%s", threads), av[ac++] = thbuf;
  ro.k = k;
  ro.file = file;
  ro.force = force;
  cli_run cr;
  int rc = cmd_run_parsed(&cr, ac, av, &ro);
  cli_run_free(&cr);
  free(av);
  sdk_ckpt_destroy(&k);
  return rc;
}

int sdk_cli_compile(int argc, char **argv) {
  cli_run cr;
  memset(&cr, 0, sizeof cr);
  sdk_run_config_defaults(&cr.c);
  int rc = parse_run_options(argc, argv, &cr, 1);
  if (cr.help) {
    cli_run_free(&cr);
    printf("usage: sdekit compile MODEL [--backend cpu|cuda] [--arch sm_XY] [--precision P] [run "
           "options]\n\nGenerates and compiles the kernel and reports the result (registers and "
           "spills for CUDA).\nWith --arch, CUDA code is compiled by NVRTC without a GPU.\n");
    return 0;
  }
  if (!rc) rc = sdk_cli_compile_cfg(&cr.c, cr.arch, !strcmp(cr.c.backend, "cuda"));
  cli_run_free(&cr);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(MAIN_HELP, stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    fputs(MAIN_HELP, stdout);
    return 0;
  }
  if (!strcmp(cmd, "--version")) {
    printf("sdekit %s\n", SDK_VERSION);
    return 0;
  }
  if (!strcmp(cmd, "run")) return cmd_run(argc - 1, argv + 1);
  if (!strcmp(cmd, "resume")) return cmd_resume(argc - 1, argv + 1);
  if (!strcmp(cmd, "models")) return cmd_models(argc - 1, argv + 1);
  if (!strcmp(cmd, "info")) return cmd_info(argc - 1, argv + 1);
  if (!strcmp(cmd, "codegen")) return cmd_codegen(argc - 1, argv + 1);
  if (!strcmp(cmd, "bench")) return sdk_cli_bench(argc - 1, argv + 1);
  if (!strcmp(cmd, "compile")) return sdk_cli_compile(argc - 1, argv + 1);
  if (!strcmp(cmd, "devices")) return sdk_cli_devices(argc - 1, argv + 1);
  if (!strcmp(cmd, "plot")) return sdk_cli_plot(argc - 1, argv + 1);
  if (!strcmp(cmd, "cache")) return sdk_cli_cache(argc - 1, argv + 1);
  return usage_error("unknown command '%s' (see 'sdekit --help')", cmd);
}
