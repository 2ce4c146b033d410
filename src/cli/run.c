/* sdekit run and sdekit resume: a run from the command line (options:
 * runopts.h), its checks, signals and progress, and its outputs; resume
 * rebuilds the command line of a checkpoint and runs it on. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/runopts.h"
#include "core/strbuf.h"
#include "io/io.h"
#include "sim/checkpoint.h"
#include "sim/run.h"

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
  if (!copy) return cli_usage_error("out of memory%s", "");
  char *dir = dirname(copy);
  struct stat st;
  int r = 0;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    r = cli_usage_error("cannot write '%s': the directory does not exist", out);
  else if (access(dir, W_OK) != 0)
    r = cli_usage_error("cannot write '%s': the directory is not writable", out);
  else if (stat(out, &st) == 0 && S_ISDIR(st.st_mode))
    r = cli_usage_error("cannot write '%s': it is a directory", out);
  free(copy);
  return r;
}

/* The observables the run computes, in the order of its results (names[]
 * holds SDK_MAX_OBSERVABLES); their number. */
static int obs_list(const sdk_run_config *c, const char **names) {
  const sdk_obs_type *t[SDK_MAX_OBSERVABLES];
  int n = 0;
  if (sdk_run_config_observables(c, t, &n, NULL) != SDK_OK) return 0;
  for (int i = 0; i < n; i++)
    names[i] = t[i]->name;
  return n;
}

static int has_observable(const sdk_run_config *c, const char *name) {
  const char *names[SDK_MAX_OBSERVABLES];
  int n = obs_list(c, names);
  for (int i = 0; i < n; i++)
    if (!strcmp(names[i], name)) return 1;
  return 0;
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

/* Is argv[i] the option `name` (as "--name V" or "--name=V")? Returns how
 * many words it takes (0: not it). */
static int is_opt(char **argv, int argc, int i, const char *name) {
  size_t n = strlen(name);
  if (strncmp(argv[i], name, n) != 0) return 0;
  if (argv[i][n] == '=') return 1;
  if (argv[i][n] == 0) return i + 1 < argc ? 2 : 1;
  return 0;
}

/* SIGINT/SIGTERM during a run: finish the chunk, checkpoint if asked, stop.
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

static void warn_line(void *user, const char *msg) {
  (void)user;
  fputs("sdekit: warning: ", stderr);
  cli_put_escaped(stderr, msg);
  fputc('\n', stderr);
}

/* The files an output name stands for (FILE, or BASE.OBS.tsv for several
 * observables), for the check that resume replaces none silently: 1 when
 * one exists (its name in found). */
static int existing_output(const char *out, int nobs, const sdk_run_config *c, char *found,
                           size_t n) {
  struct stat st;
  int h5 = has_suffix(out, ".h5") || has_suffix(out, ".hdf5");
  if (h5 || nobs == 1) {
    snprintf(found, n, "%s", out);
    return lstat(out, &st) == 0;
  }
  size_t blen = strlen(out) - strlen(strrchr(out, '.'));
  const char *names[SDK_MAX_OBSERVABLES];
  int no = obs_list(c, names);
  for (int i = 0; i < no; i++) {
    snprintf(found, n, "%.*s.%s.tsv", (int)blen, out, names[i]);
    if (lstat(found, &st) == 0) return 1;
  }
  return 0;
}

/* Record the command as typed (getopt_long reorders argv), less the options
 * that cannot change the results, so that a run resumed from a checkpoint or
 * run with another thread count writes byte-identical files; and keep the
 * arguments in their order for the checkpoint. */
static void record_command(cli_run *cr, int argc, char **argv) {
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
  cr->argv_copy = malloc(((size_t)argc + 1) * sizeof(char *));
  if (cr->argv_copy) memcpy(cr->argv_copy, argv, (size_t)argc * sizeof(char *));
  snprintf(cr->cmdline, sizeof cr->cmdline, "%s", cl.s ? cl.s : "");
  sdk_sb_free(&cl);
}

/* Resume: the checkpoint's model text and state; the outputs are the -o of
 * resume, else the run's own moved into the checkpoint's directory. */
static int apply_resume(cli_run *cr, const resume_opts *ro) {
  sdk_run_config *c = &cr->c;
  c->resume = ro->k;
  c->model_text = ro->k->model_text;
  c->model_path = ro->k->model_path;
  c->checkpoint = ro->file;
  if (ro->noutputs) {
    cr->noutputs = ro->noutputs;
    memcpy(cr->outputs, ro->outputs, sizeof cr->outputs);
    return 0;
  }
  char *copy = sdk_strdup(ro->file);
  if (!copy) return cli_usage_error("out of memory%s", "");
  const char *dir = dirname(copy);
  for (int k = 0; k < cr->noutputs; k++) {
    if (!strcmp(cr->outputs[k], "-")) continue;
    char *o = sdk_strdup(cr->outputs[k]);
    if (!o) {
      free(copy);
      return cli_usage_error("out of memory%s", "");
    }
    snprintf(cr->resolved[k], sizeof cr->resolved[k], "%s/%s", dir, basename(o));
    free(o);
    cr->outputs[k] = cr->resolved[k];
  }
  free(copy);
  return 0;
}

/* How many observables the run writes (one TSV file each). */
static int count_obs(const sdk_run_config *c) {
  const char *names[SDK_MAX_OBSERVABLES];
  return obs_list(c, names);
}

/* The checks before a run: checkpoint options, --coarse-grain, every
 * output's name and directory (stdout when none is given) and, for resume,
 * that no result file is replaced unless asked.  0 or the exit status. */
static int check_run(cli_run *cr, const resume_opts *ro, int nobs) {
  sdk_run_config *c = &cr->c;
  int rc;
  if (c->checkpoint_every >= 0 && !c->checkpoint)
    return cli_usage_error("--checkpoint-every needs --checkpoint FILE%s", "");
  if (c->checkpoint && c->checkpoint_every < 0) c->checkpoint_every = 600;
  if (c->checkpoint && (rc = check_output_dir(c->checkpoint))) return rc;
  if (c->obs.coarse_width != 0 && !has_observable(c, "density"))
    return cli_usage_error("--coarse-grain goes with --observe density%s", "");
  if (cr->noutputs == 0) cr->outputs[cr->noutputs++] = "-";
  for (int k = 0; k < cr->noutputs; k++) {
    const char *out = cr->outputs[k];
    int h5 = has_suffix(out, ".h5") || has_suffix(out, ".hdf5");
    if (!h5 && !strcmp(out, "-") && nobs > 1)
      return cli_usage_error(
          "several observables need -o FILE.h5 or -o FILE.tsv (stdout takes one)%s", "");
    if (!h5 && strcmp(out, "-") && !has_suffix(out, ".tsv") && !has_suffix(out, ".txt") &&
        !has_suffix(out, ".dat"))
      return cli_usage_error("-o '%s': expected a name ending in .h5 or .tsv, or - for stdout",
                             out);
    if ((rc = check_output_dir(out))) return rc;
  }
  /* resume writes where it says, and replaces nothing unless asked */
  for (int k = 0; ro && k < cr->noutputs; k++) {
    const char *out = cr->outputs[k];
    char found[4200];
    if (strcmp(out, "-") && !ro->force && existing_output(out, nobs, c, found, sizeof found)) {
      cli_error("'%s' exists: give --force to replace it, or -o FILE to write elsewhere", found);
      return 2;
    }
  }
  return 0;
}

/* Run c: SIGINT/SIGTERM finish the chunk, checkpoint if asked, and say
 * where the run stopped (a second signal later kills at once: on_signal); a
 * progress bar on a terminal. */
static sdk_err execute(sdk_run_config *c, sdk_run **run, sdk_errbuf *eb) {
  progress pr = {isatty(2) && !c->quiet, 0, mono_s()};
  struct sigaction sa, old_int, old_term;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  c->stop = &g_stop;
  c->warn = warn_line;
  c->progress = show_progress;
  c->progress_user = &pr;
  sdk_err e = sdk_run_execute(c, run, eb);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  if (pr.on && pr.last_frac > 0 && pr.last_frac < 1) fputc('\n', stderr);
  return e;
}

static void wrote(const char *path) {
  fputs("sdekit: wrote ", stderr);
  cli_put_escaped(stderr, path);
  fputc('\n', stderr);
}

/* Write the results R to every output: HDF5, one TSV (a file, or stdout
 * for "-"), or BASE.OBS.tsv per observable. */
static sdk_err write_outputs(const cli_run *cr, const sdk_results *R, int nobs, sdk_errbuf *eb) {
  const sdk_run_config *c = &cr->c;
  sdk_err e = SDK_OK;
  const char *names[SDK_MAX_OBSERVABLES];
  (void)obs_list(c, names);
  for (int k = 0; k < cr->noutputs && e == SDK_OK; k++) {
    const char *out = cr->outputs[k];
    int h5 = has_suffix(out, ".h5") || has_suffix(out, ".hdf5");
    if (h5) {
      e = sdk_write_h5(R, out, eb);
    } else if (!strcmp(out, "-")) {
      for (int i = 0; i < nobs && e == SDK_OK; i++)
        e = sdk_write_tsv_named(R, names[i], stdout, "to standard output", eb);
    } else if (nobs == 1) {
      e = sdk_write_tsv_file(R, names[0], out, eb);
    } else {
      /* several observables: BASE.OBS.tsv */
      size_t blen = strlen(out) - strlen(strrchr(out, '.'));
      for (int i = 0; i < nobs && e == SDK_OK; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%.*s.%s.tsv", (int)blen, out, names[i]);
        e = sdk_write_tsv_file(R, names[i], path, eb);
        if (e == SDK_OK && !c->quiet) wrote(path);
      }
    }
    if (e == SDK_OK && !c->quiet && strcmp(out, "-") && (h5 || nobs == 1)) wrote(out);
  }
  return e;
}

/* The summary line: the model and the file it was read from (data:
 * escaped), path-steps, time, speed, device. */
static void print_summary(const sdk_results *R, const sdk_run *run) {
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

/* `sdekit run` with argv (the checkpoint's arguments plus resume's for
 * resume, ro != NULL); cr is filled (free with cli_run_free). */
static int cmd_run_parsed(cli_run *cr, int argc, char **argv, const resume_opts *ro) {
  memset(cr, 0, sizeof *cr);
  sdk_run_config_defaults(&cr->c);
  record_command(cr, argc, argv);
  int rc = cli_run_parse(argc, argv, cr, 1);
  if (cr->help) {
    cli_run_help(stdout);
    return 0;
  }
  if (rc) return rc;
  sdk_run_config *c = &cr->c;
  c->command_line = cr->cmdline;
  c->argc = cr->argv_copy ? argc : 0;
  c->argv = cr->argv_copy;
  if (ro && (rc = apply_resume(cr, ro))) return rc;
  int nobs = count_obs(c);
  if ((rc = check_run(cr, ro, nobs))) return rc;
  sdk_errbuf eb = {0};
  sdk_run *run = NULL;
  sdk_err e = execute(c, &run, &eb);
  if (e == SDK_ERR_INTERRUPTED) {
    fputs("sdekit: ", stderr);
    cli_put_escaped(stderr, eb.msg);
    fputc('\n', stderr);
    return 128 + (int)g_stop;
  }
  if (e != SDK_OK) return cli_fail(e, &eb);
  const sdk_results *R = sdk_run_results(run);
  for (int k = 0; ro && k < cr->noutputs; k++)
    if (strcmp(cr->outputs[k], "-")) {
      fputs("sdekit: resume: results go to ", stderr);
      cli_put_escaped(stderr, cr->outputs[k]);
      fputc('\n', stderr);
    }
  e = write_outputs(cr, R, nobs, &eb);
  if (e == SDK_OK && !c->quiet) print_summary(R, run);
  /* grid points that blew up: the results are written (NaN there), then
   * reported as an error so that scripts notice */
  const char *problem = sdk_run_problem(run);
  int prc = 0;
  if (e == SDK_OK && problem) {
    cli_error("%s", problem);
    prc = 1;
  }
  sdk_run_destroy(&run);
  return e == SDK_OK ? prc : cli_fail(e, &eb);
}

int sdk_cli_run(int argc, char **argv) {
  cli_run cr;
  int rc = cmd_run_parsed(&cr, argc, argv, NULL);
  cli_run_free(&cr);
  return rc;
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

int sdk_cli_resume(int argc, char **argv) {
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
      if (!val) return cli_usage_error("option '%s' needs a value", argv[i]);
      if (ro.noutputs == 4) return cli_usage_error("at most four -o%s", "");
      ro.outputs[ro.noutputs++] = val;
      if (val == argv[i + 1]) i++;
    } else if ((k = is_opt(argv, argc, i, "--threads"))) {
      threads = k == 2 ? argv[i + 1] : strchr(argv[i], '=') ? strchr(argv[i], '=') + 1 : NULL;
      if (!threads) return cli_usage_error("option '%s' needs a value", argv[i]);
      i += k - 1;
    } else if ((k = is_opt(argv, argc, i, "--periods")) || (k = is_opt(argv, argc, i, "--t-end"))) {
      const char *val = k == 2                 ? argv[i + 1]
                        : strchr(argv[i], '=') ? strchr(argv[i], '=') + 1
                                               : NULL;
      if (!val) return cli_usage_error("option '%s' needs a value", argv[i]);
      if (!strncmp(argv[i], "--periods", 9))
        periods = val;
      else
        tend = val;
      i += k - 1;
    } else if (argv[i][0] == '-') {
      return cli_usage_error("unknown option '%s' (see 'sdekit resume --help')", argv[i]);
    } else if (!file) {
      file = argv[i];
    } else {
      return cli_usage_error("unexpected argument '%s'", argv[i]);
    }
  }
  if (!file)
    return cli_usage_error("usage: sdekit resume CHECKPOINT [--periods N | --t-end T]%s", "");
  sdk_errbuf eb = {0};
  sdk_ckpt *k = NULL;
  sdk_err e = sdk_ckpt_read(file, &k, &eb);
  if (e != SDK_OK) return cli_fail(e, &eb);
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
    return cli_usage_error("out of memory%s", "");
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
