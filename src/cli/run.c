/* sdekit run and sdekit resume: a run from the command line (options:
 * runopts.h), its checks, signals and progress, and its outputs; resume
 * continues a checkpoint (sdekit_config_from_checkpoint).  Public API only. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/env.h"
#include "cli/runopts.h"
#include "core/nearest.h"
#include "figure/attrs.h"

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
  /* (a run to a requested error may find more work: its fraction goes back) */
  if (!p->on || (fabs(frac - p->last_frac) < 0.005 && frac < 1)) return;
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

/* SIGINT/SIGTERM during a run: finish the chunk (about a quarter of a
 * second of work, docs/API.md) or stop the compiler, checkpoint if asked, stop.
 * A second signal a second or more after the first kills at once (the
 * default action, raised again); one sooner is the same request delivered
 * twice (`timeout` and some schedulers signal the process and its process
 * group) and is ignored.  (A signal handler has nothing but globals to talk
 * to; clock_gettime and sigaction are async-signal-safe.) */
static volatile sig_atomic_t g_stop = 0;
static volatile sig_atomic_t g_stop_s = 0; /* monotonic seconds of the first signal */
static void on_signal(int sig) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  if (!g_stop) {
    g_stop = sig;
    g_stop_s = (sig_atomic_t)ts.tv_sec;
    return;
  }
  if ((sig_atomic_t)ts.tv_sec - g_stop_s < 1) return;
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigaction(sig, &dfl, NULL);
  raise(sig);
}

/* the library polls this after every chunk of steps */
static int stop_requested(void *user) {
  (void)user;
  return g_stop != 0;
}

/* Run c: SIGINT/SIGTERM finish the chunk, checkpoint if asked, and say
 * where the run stopped (a second signal later kills at once: on_signal); a
 * progress bar on a terminal. */
static sdekit_status execute(sdekit_config *c, sdekit_result **r, sdekit_error *err) {
  progress pr = {isatty(2) && !sdekit_config_quiet(c) && cli_rank() == 0, 0, mono_s()};
  struct sigaction sa, old_int, old_term;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  sdekit_config_set_cancel(c, stop_requested, NULL);
  sdekit_config_set_progress(c, show_progress, &pr);
  sdekit_status s = sdekit_run(c, r, err);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  if (pr.on && pr.last_frac > 0 && pr.last_frac < 1) fputc('\n', stderr);
  return s;
}

static void wrote(void *user, const char *path) {
  if (*(const int *)user) return; /* quiet */
  fputs("sdekit: wrote ", stderr);
  cli_put_escaped(stderr, path);
  fputc('\n', stderr);
}

/* Write the results to every output: "-" is stdout (one observable). */
static sdekit_status write_outputs(const sdekit_config *c, const sdekit_result *r,
                                   sdekit_error *err) {
  int quiet = sdekit_config_quiet(c), n = sdekit_config_noutputs(c);
  sdekit_status s = SDEKIT_OK;
  /* stdout: the observable asked for, not --adaptive's counts beside it
   * (the summary line has them; sdekit_config_check_outputs) */
  const char *one = NULL;
  for (int i = 0; sdekit_config_nobservables(c) > 1 && i < sdekit_config_nobservables(c); i++)
    if (!one && strcmp(sdekit_config_observable(c, i), "adaptive"))
      one = sdekit_config_observable(c, i);
  for (int k = 0; k < n && s == SDEKIT_OK; k++) {
    const char *out = sdekit_config_output(c, k);
    if (!strcmp(out, "-"))
      s = sdekit_result_write_tsv(r, one, stdout, err);
    else
      s = sdekit_result_write(r, out, wrote, &quiet, err);
  }
  return s;
}

/* A string attribute of the results' root ("" when absent). */
static const char *root_str(const sdekit_result *r, const char *name) {
  sdekit_attr a;
  if (sdekit_result_attr(r, "", name, &a, NULL) != SDEKIT_OK || a.type != SDEKIT_ATTR_STRING)
    return "";
  return a.s;
}

/* The summary line: the model and the file it was read from (data:
 * escaped), path-steps, time, speed, device; before it, the reason for a
 * scheme not asked for that is not the general default (never silent). */
static void print_summary(const sdekit_result *r, int resumed) {
  const char *why = root_str(r, "scheme_default");
  if (why[0]) {
    fprintf(stderr, "sdekit: note: scheme %s, the default for ", root_str(r, "scheme"));
    cli_put_escaped(stderr, why);
    fputs("; --scheme picks another\n", stderr);
  }
  fputs("sdekit: ", stderr);
  cli_put_escaped(stderr, root_str(r, "model_name"));
  const char *path = root_str(r, "model_path");
  if (path[0]) {
    fputs(" (", stderr);
    cli_put_escaped(stderr, path);
    fputs(")", stderr);
  }
  double sec = sdekit_result_seconds(r), ps = sdekit_result_path_steps(r);
  int R = sdekit_comm_size(cli_comm());
  fprintf(stderr, ", %.3g path-steps in %.2f s (%.3g steps/s) on %s", ps, sec,
          ps / (sec > 0 ? sec : 1), sdekit_result_device(r));
  /* --adaptive: the sub-steps its paths accepted (adaptive/, per path) */
  sdekit_dataset acc;
  int64_t paths = 0;
  if (sdekit_result_dataset(r, "adaptive/accepted_mean", &acc, NULL) == SDEKIT_OK &&
      acc.type == SDEKIT_F64 && cli_attr_i64(r, "", "paths", &paths) == 0) {
    double n = 0;
    for (int64_t g = 0; g < acc.count; g++)
      n += ((const double *)acc.data)[g] * (double)paths;
    /* (resumed: the counts are the whole run's, the seconds this process's) */
    if (resumed)
      fprintf(stderr, "; %.3g accepted sub-steps since the run's start", n);
    else
      fprintf(stderr, "; %.3g accepted sub-steps (%.3g/s)", n, n / (sec > 0 ? sec : 1));
  }
  if (R > 1) fprintf(stderr, " (rank 0; %d ranks)", R);
  fputc('\n', stderr);
}

/* Seconds since this process started (/proc/self/stat's start time, in clock
 * ticks since boot: 10 ms steps), or -1 where that cannot be read. */
static double process_age(void) {
  FILE *f = fopen("/proc/self/stat", "r");
  char buf[1024];
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  buf[n] = 0;
  const char *p = strrchr(buf, ')'); /* (the command's name may hold spaces) */
  unsigned long long start = 0;
  /* after ") ": state, then fields 4..21, then starttime (field 22) */
  if (!p || sscanf(p + 2,
                   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d "
                   "%*d %llu",
                   &start) != 1)
    return -1;
  struct timespec ts;
  long tck = sysconf(_SC_CLK_TCK);
  if (tck <= 0 || clock_gettime(CLOCK_BOOTTIME, &ts) != 0) return -1;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec - (double)start / (double)tck;
}

/* --verbose: where the whole process's time went (docs/BENCHMARKS.md) */
static void print_process_times(double run_s, double write_s) {
  double age = process_age();
  if (age >= 0)
    fprintf(
        stderr,
        "sdekit: process times: %.3f s in all: %.3f s before the run (start, loading the "
        "libraries, arguments, model; 10 ms steps), %.3f s the run, %.3f s writing the results\n",
        age, age - run_s - write_s, run_s, write_s);
}

/* the other ranks' messages are rank 0's too */
static void no_log(void *user, sdekit_log_level level, const char *msg) {
  (void)user, (void)level, (void)msg;
}

/* Check, run and write; resumed: say where the results go, and replace no
 * file unless forced (--force: the configuration's, as for `sdekit run`). */
static int run_config(sdekit_config *c, int resumed) {
  sdekit_error err;
  int nobs = sdekit_config_nobservables(c);
  for (int i = 0, n = nobs; n > 1 && i < n; i++) /* (stdout: write_outputs) */
    nobs -= !strcmp(sdekit_config_observable(c, i), "adaptive");
  if (sdekit_config_noutputs(c) == 0 && nobs > 1)
    return cli_usage_error(
        "several observables need -o FILE.h5 or -o FILE.tsv (stdout takes one)%s", "");
  /* no -o: the TSV goes to stdout, an output the library is told of, so
   * that the run checks its header before it starts */
  if (sdekit_config_noutputs(c) == 0 && sdekit_config_add_output(c, "-", &err) != SDEKIT_OK)
    return cli_fail(&err);
  if (sdekit_config_check_outputs(c, resumed, &err) != SDEKIT_OK) return cli_fail(&err);
  /* several ranks: each runs its share, rank 0 alone speaks and writes */
  int rank = cli_rank();
  if (sdekit_config_set_comm(c, cli_comm(), &err) != SDEKIT_OK) return cli_fail(&err);
  if (rank != 0) sdekit_config_set_log(c, no_log, NULL, SDEKIT_LOG_WARN);
  sdekit_result *r = NULL;
  double t0 = mono_s();
  sdekit_status s = execute(c, &r, &err);
  double t1 = mono_s();
  if (s == SDEKIT_ERR_CANCELLED) {
    if (rank == 0) {
      fputs("sdekit: ", stderr);
      cli_put_escaped(stderr, err.message);
      fputc('\n', stderr);
    }
    return 128 + (g_stop ? (int)g_stop : SIGINT);
  }
  if (s != SDEKIT_OK) return cli_run_failed(&err);
  if (rank != 0) {
    int rc = g_stop ? 128 + (int)g_stop : sdekit_result_problem(r) ? 1 : 0;
    sdekit_result_destroy(&r);
    return rc;
  }
  for (int k = 0; resumed && k < sdekit_config_noutputs(c); k++)
    if (strcmp(sdekit_config_output(c, k), "-")) {
      fputs("sdekit: resume: results go to ", stderr);
      cli_put_escaped(stderr, sdekit_config_output(c, k));
      fputc('\n', stderr);
    }
  s = write_outputs(c, r, &err);
  if (s == SDEKIT_OK && sdekit_config_verbose(c)) print_process_times(t1 - t0, mono_s() - t1);
  if (s == SDEKIT_OK && !sdekit_config_quiet(c)) print_summary(r, resumed);
  /* grid points that blew up: the results are written (NaN there), then
   * reported as an error so that scripts notice */
  const char *problem = sdekit_result_problem(r);
  int rc = 0;
  if (s == SDEKIT_OK && problem) {
    cli_error("%s", problem);
    rc = 1;
  }
  /* a signal during the last chunk of steps found the run complete: its
   * outputs are written, and the exit status still says it was stopped */
  if (s == SDEKIT_OK && g_stop) {
    fprintf(stderr,
            "sdekit: interrupted (signal %d) during the last chunk of steps: the run is "
            "complete and its results are written\n",
            (int)g_stop);
    rc = 128 + (int)g_stop;
  }
  sdekit_result_destroy(&r);
  return s == SDEKIT_OK ? rc : cli_fail(&err);
}

static int run_cmd(int argc, char **argv) {
  cli_run cr;
  memset(&cr, 0, sizeof cr);
  int rc = cli_run_parse(argc, argv, &cr, 1);
  if (cr.help) {
    char *h = sdekit_config_help();
    if (h) fputs(h, stdout);
    sdekit_free(h);
  } else if (!rc) {
    rc = run_config(cr.c, 0);
  }
  cli_run_free(&cr);
  return rc;
}

int sdk_cli_run(int argc, char **argv) {
  int rc = cli_mpi_start();
  if (!rc) rc = run_cmd(argc, argv);
  cli_mpi_stop();
  return rc;
}

static const char RESUME_HELP[] =
    "usage: sdekit resume CHECKPOINT [--periods N | --t-end T] [-o FILE]... [--force]\n"
    "                                [--stored-model] [--threads N] [--device D] [--ranks N]\n"
    "                                [--quiet]\n"
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
    "                   'sdekit run' replaces its -o files, as typed), or the model file\n"
    "  --stored-model   resume although the model file has changed since, with the model\n"
    "                   text stored in the checkpoint\n"
    "  --threads N, --device D, --ranks N\n"
    "                   where to run it now (as for 'sdekit run'): any number of GPUs or\n"
    "                   ranks resumes a checkpoint of any other, with the same results\n";

/* Is argv[i] the option `name` (as "--name V" or "--name=V")? Returns how
 * many words it takes (0: not it). */
static int is_opt(char **argv, int argc, int i, const char *name) {
  size_t n = strlen(name);
  if (strncmp(argv[i], name, n) != 0) return 0;
  if (argv[i][n] == '=') return 1;
  if (argv[i][n] == 0) return i + 1 < argc ? 2 : 1;
  return 0;
}

/* The options resume takes (RESUME_HELP), applied to the checkpoint's
 * configuration after it is read. */
typedef struct resume_args {
  const char *file, *periods, *tend, *threads, *device, *ranks;
  const char *outputs[4];
  int noutputs, force, stored_model, quiet, verbose;
} resume_args;

/* 0, 1 for --help (printed), or the exit status of a usage error */
static int parse_resume(int argc, char **argv, resume_args *ra) {
  for (int i = 1; i < argc; i++) {
    int k;
    const char **slot = NULL;
    if (!strcmp(argv[i], "--help")) return fputs(RESUME_HELP, stdout), 1;
    if (!strcmp(argv[i], "--force"))
      ra->force = 1;
    else if (!strcmp(argv[i], "--stored-model"))
      ra->stored_model = 1;
    else if (!strcmp(argv[i], "--quiet"))
      ra->quiet = 1;
    else if (!strcmp(argv[i], "--verbose"))
      ra->verbose = 1;
    else if ((k = is_opt(argv, argc, i, "-o")) || (k = is_opt(argv, argc, i, "--output")) ||
             (k = is_opt(argv, argc, i, "--threads")) || (k = is_opt(argv, argc, i, "--periods")) ||
             (k = is_opt(argv, argc, i, "--t-end")) || (k = is_opt(argv, argc, i, "--device")) ||
             (k = is_opt(argv, argc, i, "--ranks"))) {
      const char *val = k == 2                 ? argv[i + 1]
                        : strchr(argv[i], '=') ? strchr(argv[i], '=') + 1
                                               : NULL;
      if (!val) return cli_usage_error("option '%s' needs a value", argv[i]);
      if (!strncmp(argv[i], "--threads", 9))
        slot = &ra->threads;
      else if (!strncmp(argv[i], "--periods", 9))
        slot = &ra->periods;
      else if (!strncmp(argv[i], "--t-end", 7))
        slot = &ra->tend;
      else if (!strncmp(argv[i], "--device", 8))
        slot = &ra->device;
      else if (!strncmp(argv[i], "--ranks", 7))
        slot = &ra->ranks;
      else if (ra->noutputs == 4)
        return cli_usage_error("at most four -o%s", "");
      else
        slot = &ra->outputs[ra->noutputs++];
      if (*slot) { /* the last value would win silently */
        char nm[32];
        snprintf(nm, sizeof nm, "%.*s", (int)strcspn(argv[i], "="), argv[i]);
        return cli_usage_error("%s given twice: give it once", nm);
      }
      *slot = val;
      i += k - 1;
    } else if (argv[i][0] == '-') {
      static const char *const opts[] = {"--force",  "--stored-model", "--quiet",   "--verbose",
                                         "--output", "--threads",      "--periods", "--t-end"};
      char nm[128];
      snprintf(nm, sizeof nm, "%.*s", (int)strcspn(argv[i], "="), argv[i]);
      int near = sdk_nearest(nm, opts, sizeof opts / sizeof *opts);
      if (near >= 0) {
        cli_error("unknown option '%s' (did you mean '%s'? see 'sdekit resume --help')", argv[i],
                  opts[near]);
        return 2;
      }
      return cli_usage_error("unknown option '%s' (see 'sdekit resume --help')", argv[i]);
    } else if (!ra->file) {
      ra->file = argv[i];
    } else {
      return cli_usage_error("unexpected argument '%s'", argv[i]);
    }
  }
  if (!ra->file)
    return cli_usage_error("usage: sdekit resume CHECKPOINT [--periods N | --t-end T]%s", "");
  if (ra->periods && ra->tend) return cli_usage_error("give --periods or --t-end, not both%s", "");
  return 0;
}

/* resume's options on the checkpoint's configuration */
static sdekit_status apply_resume(sdekit_config *c, const resume_args *ra, sdekit_error *err) {
  sdekit_status s = sdekit_config_set_environment(c, cli_environ(), err);
  if (!s && ra->periods) s = sdekit_config_option(c, "periods", ra->periods, err);
  if (!s && ra->tend) s = sdekit_config_option(c, "t-end", ra->tend, err);
  if (!s && ra->threads) s = sdekit_config_option(c, "threads", ra->threads, err);
  if (!s && ra->device) s = sdekit_config_option(c, "device", ra->device, err);
  if (!s && ra->ranks) s = sdekit_config_option(c, "ranks", ra->ranks, err);
  if (!s && ra->quiet) s = sdekit_config_set_quiet(c, 1, err);
  if (!s && ra->verbose) s = sdekit_config_set_verbose(c, 1, err);
  if (!s && ra->force) s = sdekit_config_option(c, "force", NULL, err);
  if (!s && ra->noutputs) sdekit_config_clear_outputs(c);
  for (int k = 0; !s && k < ra->noutputs; k++)
    s = sdekit_config_add_output(c, ra->outputs[k], err);
  return s;
}

static int resume_cmd(int argc, char **argv) {
  resume_args ra;
  memset(&ra, 0, sizeof ra);
  int rc = parse_resume(argc, argv, &ra);
  if (rc) return rc == 1 ? 0 : rc;
  sdekit_error err;
  sdekit_config *c = NULL;
  if (sdekit_config_from_checkpoint(ra.file, ra.stored_model ? SDEKIT_RESUME_STORED_MODEL : 0, &c,
                                    &err) != SDEKIT_OK)
    return cli_fail(&err);
  sdekit_config_set_log(c, cli_log, NULL, SDEKIT_LOG_INFO);
  if (apply_resume(c, &ra, &err) != SDEKIT_OK)
    rc = cli_fail(&err);
  else
    rc = run_config(c, 1);
  sdekit_config_destroy(&c);
  return rc;
}

int sdk_cli_resume(int argc, char **argv) {
  int rc = cli_mpi_start();
  if (!rc) rc = resume_cmd(argc, argv);
  cli_mpi_stop();
  return rc;
}
