/* The options of `sdekit run` (see runopts.h). */
#include "cli/runopts.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/env.h"
#include "core/strbuf.h"
#include "model/model.h"
#include "sim/registry.h"

int cli_fail(sdk_err e, const sdk_errbuf *eb) {
  cli_error("%s", eb->msg[0] ? eb->msg : sdk_err_name(e));
  return sdk_err_exit_status(e);
}

int cli_usage_error(const char *fmt, const char *arg) {
  char msg[1024];
  snprintf(msg, sizeof msg, fmt, arg);
  cli_error("%s", msg);
  return 2;
}

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
    "  --scheme NAME             (default: srk2, or euler when the noise is multiplicative or\n"
    "                            for systems of particles)\n"
    "@SCHEMES@"
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
    "  --observe LIST            comma-separated (default drift):\n"
    "@OBSERVABLES@"
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

/* The help, with the schemes and observables of the registry. */
void cli_run_help(FILE *f) {
  const char *s = RUN_HELP;
  for (;;) {
    const char *at = strchr(s, '@');
    if (!at) break;
    fwrite(s, 1, (size_t)(at - s), f);
    if (!strncmp(at, "@SCHEMES@", 9)) {
      for (int i = 0; sdk_registry_schemes[i]; i++)
        fprintf(f, "%28s%-9s %s\n", "", sdk_registry_schemes[i]->name,
                sdk_registry_schemes[i]->description);
      s = at + 9;
    } else if (!strncmp(at, "@OBSERVABLES@", 13)) {
      for (int i = 0; sdk_registry_observables[i]; i++)
        if (!(sdk_registry_observables[i]->flags & SDK_OBS_BY_OPTION))
          fprintf(f, "%28s%-9s %s\n", "", sdk_registry_observables[i]->name,
                  sdk_registry_observables[i]->description);
      s = at + 13;
    } else {
      fputc('@', f);
      s = at + 1;
    }
  }
  fputs(s, f);
}

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

/* The option handlers below each take a group of options: 0 when ch was
 * theirs and is now in cr, NOT_MINE when it was not, else the exit status
 * after printing the error. */
#define NOT_MINE (-1)

/* --set, --scan */
static int opt_params(int ch, const char *arg, sdk_run_config *c) {
  sdk_errbuf eb = {0};
  double v;
  switch (ch) {
  case OPT_SET: {
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || (size_t)(eq - arg) >= 64)
      return cli_usage_error("--set '%s': expected NAME=VALUE", arg);
    if (!sdk_parse_number(eq + 1, &v))
      return cli_usage_error("--set '%s': the value must be a number", arg);
    if (c->nset == SDK_MAX_SET) return cli_usage_error("too many --set (at most 64)%s", "");
    char *name = sdk_strndup(arg, (size_t)(eq - arg));
    if (!name) return cli_usage_error("out of memory%s", "");
    c->set_name[c->nset] = name; /* lives until exit */
    c->set_value[c->nset++] = v;
    return 0;
  }
  case OPT_SCAN:
    if (c->nscan == SDK_MAX_SCAN) return cli_usage_error("at most two --scan%s", "");
    if (sdk_scan_parse(arg, &c->scan[c->nscan], &eb) != SDK_OK) return cli_fail(SDK_ERR_USAGE, &eb);
    c->nscan++;
    return 0;
  }
  return NOT_MINE;
}

/* The ensemble and time: --paths, --particles, --dt, --spp, --t-end,
 * --periods, --transient, --transient-periods */
static int opt_time(int ch, const char *arg, sdk_run_config *c, int *paths_given) {
  int64_t n;
  double v;
  switch (ch) {
  case OPT_PARTICLES:
    if (!parse_count(arg, 1, &n))
      return cli_usage_error(
          "--particles '%s': expected a whole number >= 1 (particles per system)", arg);
    c->particles = n;
    return 0;
  case OPT_PATHS:
    if (!parse_count(arg, 1, &n))
      return cli_usage_error("--paths '%s': expected a whole number >= 1", arg);
    c->paths = n;
    *paths_given = 1;
    return 0;
  case OPT_DT:
    if (!sdk_parse_number(arg, &v) || v <= 0)
      return cli_usage_error("--dt '%s': expected a number > 0", arg);
    c->dt = v;
    return 0;
  case OPT_SPP:
    if (!parse_count(arg, 1, &n))
      return cli_usage_error("--spp '%s': expected a whole number >= 1", arg);
    c->spp = n;
    return 0;
  case OPT_TEND:
    if (!sdk_parse_number(arg, &v) || v <= 0)
      return cli_usage_error("--t-end '%s': expected a number > 0", arg);
    c->t_end = v;
    return 0;
  case OPT_PERIODS:
    if (!parse_count(arg, 1, &n))
      return cli_usage_error("--periods '%s': expected a whole number >= 1", arg);
    c->periods = n;
    return 0;
  case OPT_TRANS:
    if (!sdk_parse_number(arg, &v) || v < 0)
      return cli_usage_error("--transient '%s': expected a number >= 0", arg);
    c->transient = v;
    return 0;
  case OPT_TRANSP:
    if (!parse_count(arg, 0, &n))
      return cli_usage_error("--transient-periods '%s': expected a whole number >= 0", arg);
    c->transient_periods = n;
    return 0;
  }
  return NOT_MINE;
}

/* Where and how: --scheme, --seed, --backend, --precision, --threads,
 * --device, --no-fast-math, --no-compensation */
static int opt_how(int ch, const char *arg, sdk_run_config *c) {
  int64_t n;
  switch (ch) {
  case OPT_SCHEME: c->scheme = arg; return 0;
  case OPT_SEED:
    if (!parse_u64(arg, &c->seed))
      return cli_usage_error("--seed '%s': expected a whole number >= 0", arg);
    return 0;
  case OPT_BACKEND:
    if (strcmp(arg, "cpu") && strcmp(arg, "cuda") && strcmp(arg, "auto"))
      return cli_usage_error("--backend '%s': expected cpu, cuda or auto", arg);
    c->backend = arg;
    return 0;
  case OPT_PREC:
    if (!strcmp(arg, "single") || !strcmp(arg, "float"))
      c->single = 1;
    else if (!strcmp(arg, "double"))
      c->single = 0;
    else
      return cli_usage_error("--precision '%s': expected single or double", arg);
    return 0;
  case OPT_THREADS:
    if (!parse_count(arg, 1, &n) || n > 4096)
      return cli_usage_error("--threads '%s': expected a whole number >= 1", arg);
    c->threads = (int)n;
    return 0;
  case OPT_DEVICE:
    if (!parse_count(arg, 0, &n) || n > 1024)
      return cli_usage_error("--device '%s': expected a GPU ordinal", arg);
    c->device = (int)n;
    return 0;
  case OPT_NOFAST: c->fast_math = 0; return 0;
  case OPT_NOCOMP: c->no_compensation = 1; return 0;
  }
  return NOT_MINE;
}

/* --observe LIST into c->observe (the names are the registry's). */
static int parse_observe(const char *arg, sdk_run_config *c) {
  const sdk_obs_type *t[SDK_MAX_OBSERVABLES];
  int n = 0;
  sdk_errbuf eb = {0};
  if (!arg[0] || arg[strlen(arg) - 1] == ',')
    return cli_usage_error("--observe '%s': name at least one observable", arg);
  c->observe = arg;
  if (sdk_run_config_observables(c, t, &n, &eb) != SDK_OK) return cli_usage_error("%s", eb.msg);
  if (n == 0) return cli_usage_error("--observe '%s': name at least one observable", arg);
  return 0;
}

static int parse_hist_range(const char *arg, sdk_run_config *c) {
  const char *eq = strchr(arg, '='), *colon = eq ? strchr(eq, ':') : NULL;
  if (!eq || !colon || eq == arg || (size_t)(eq - arg) >= 64 || c->obs.nhist_range == 8)
    return cli_usage_error("--hist-range '%s': expected VAR=LO:HI", arg);
  char lo[64], hi[64];
  snprintf(lo, sizeof lo, "%.*s", (int)(colon - eq - 1), eq + 1);
  snprintf(hi, sizeof hi, "%s", colon + 1);
  int k = c->obs.nhist_range;
  if (!sdk_parse_number(lo, &c->obs.hist_range_lo[k]) ||
      !sdk_parse_number(hi, &c->obs.hist_range_hi[k]))
    return cli_usage_error("--hist-range '%s': LO and HI must be numbers", arg);
  snprintf(c->obs.hist_range_var[k], sizeof c->obs.hist_range_var[k], "%.*s", (int)(eq - arg), arg);
  c->obs.nhist_range++;
  return 0;
}

/* --save-paths LIST (path indices) */
static int parse_save(const char *arg, sdk_run_config *c) {
  char *copy = sdk_strdup(arg), *save = NULL;
  if (!copy) return cli_usage_error("out of memory%s", "");
  c->obs.nsave = 0;
  int bad = 0;
  for (char *t = strtok_r(copy, ",", &save); t && !bad; t = strtok_r(NULL, ",", &save)) {
    int64_t k;
    if (!parse_count(t, 0, &k) || c->obs.nsave == SDK_MAX_SAVE)
      bad = 1;
    else
      c->obs.save_index[c->obs.nsave++] = k;
  }
  free(copy);
  if (bad || c->obs.nsave == 0)
    return cli_usage_error("--save-paths '%s': expected path indices like 0,1,2 (at most 1024)",
                           arg);
  return 0;
}

/* Observables: --observe, --drift, --sample-every, --bins, --hist-range,
 * --save-paths, --density-var, --coarse-grain */
static int opt_observe(int ch, const char *arg, sdk_run_config *c) {
  int64_t n;
  double v;
  switch (ch) {
  case OPT_OBSERVE: return parse_observe(arg, c);
  case OPT_DRIFT: c->obs.drift_var = arg; return 0;
  case OPT_SAMPLE:
    if (!parse_count(arg, 1, &n))
      return cli_usage_error("--sample-every '%s': expected a whole number >= 1", arg);
    c->sample_every = n;
    return 0;
  case OPT_BINS:
    if (!parse_count(arg, 1, &n) || n > 100000000)
      return cli_usage_error("--bins '%s': expected a whole number between 1 and 1e8", arg);
    c->obs.bins = n;
    return 0;
  case OPT_HRANGE: return parse_hist_range(arg, c);
  case OPT_SAVE: return parse_save(arg, c);
  case OPT_DVAR: c->obs.density_var = arg; return 0;
  case OPT_COARSE:
    if (arg) {
      if (!sdk_parse_number(arg, &v) || v <= 0)
        return cli_usage_error("--coarse-grain=%s: the bin width must be a number > 0", arg);
      c->obs.coarse_width = v;
    } else {
      c->obs.coarse_width = -1; /* the model's period of the variable */
    }
    return 0;
  }
  return NOT_MINE;
}

/* Output, long runs and the other commands: -o, --quiet, --verbose,
 * --checkpoint, --checkpoint-every, --arch, --steps */
static int opt_output(int ch, const char *arg, cli_run *cr) {
  sdk_run_config *c = &cr->c;
  int64_t n;
  double v;
  switch (ch) {
  case 'o':
    if (cr->noutputs == 4) return cli_usage_error("at most four -o%s", "");
    cr->outputs[cr->noutputs++] = arg;
    return 0;
  case OPT_QUIET: c->quiet = 1; return 0;
  case OPT_VERBOSE: c->verbose = 1; return 0;
  case OPT_ARCH: cr->arch = arg; return 0;
  case OPT_CKPT: c->checkpoint = arg; return 0;
  case OPT_CKPT_EVERY:
    if (!sdk_parse_number(arg, &v) || v < 0)
      return cli_usage_error("--checkpoint-every '%s': expected seconds >= 0", arg);
    c->checkpoint_every = v;
    return 0;
  case OPT_STEPS:
    if (!parse_count(arg, 1, &n))
      return cli_usage_error("--steps '%s': expected a whole number >= 1", arg);
    cr->bench_steps = n;
    return 0;
  }
  return NOT_MINE;
}

int cli_run_parse(int argc, char **argv, cli_run *cr, int need_model) {
  sdk_run_config *c = &cr->c;
  if (cli_cache_max(&c->cache_max)) return 2;
  c->model_search_path = sdk_cli_env_model_path();
  optind = 1;
  opterr = 0;
  int ch, paths_given = 0;
  while ((ch = getopt_long(argc, argv, ":o:", RUN_OPTS, NULL)) != -1) {
    if (ch == OPT_HELP) {
      cr->help = 1;
      return 0;
    }
    if (ch == ':') return cli_usage_error("option '%s' needs a value", argv[optind - 1]);
    int r = opt_params(ch, optarg, c);
    if (r == NOT_MINE) r = opt_time(ch, optarg, c, &paths_given);
    if (r == NOT_MINE) r = opt_how(ch, optarg, c);
    if (r == NOT_MINE) r = opt_observe(ch, optarg, c);
    if (r == NOT_MINE) r = opt_output(ch, optarg, cr);
    if (r == NOT_MINE)
      return cli_usage_error("unknown option '%s' (see 'sdekit run --help')", argv[optind - 1]);
    if (r) return r;
  }
  if (need_model) {
    if (optind >= argc)
      return cli_usage_error("missing MODEL (a built-in name or a .sde file)%s", "");
    if (optind + 1 < argc) return cli_usage_error("unexpected argument '%s'", argv[optind + 1]);
    c->model = argv[optind];
    /* one system of N particles unless asked for more (1024 systems of a
     * large N would be a surprise of many hours) */
    if (c->particles > 1 && !paths_given) c->paths = 1;
  } else if (optind < argc) {
    return cli_usage_error("unexpected argument '%s'", argv[optind]);
  }
  /* the backend's surroundings and tuning from the environment (cli/env.h) */
  sdk_errbuf eb = {0};
  sdk_err e = sdk_cli_env_run(c, &eb);
  if (e != SDK_OK) return cli_fail(e, &eb);
  c->logger = cli_logger(c->verbose);
  return 0;
}

void cli_run_free(cli_run *cr) {
  for (int i = 0; i < cr->c.nscan; i++)
    sdk_scan_free(&cr->c.scan[i]);
  for (int i = 0; i < cr->c.nset; i++)
    free((char *)cr->c.set_name[i]);
  cr->c.nscan = cr->c.nset = 0;
  free(cr->argv_copy);
  cr->argv_copy = NULL;
}
