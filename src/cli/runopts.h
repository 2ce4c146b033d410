/* The options of `sdekit run` (also read by resume, codegen and compile):
 * the command line into an sdk_run_config, strictly (every value checked,
 * one error line naming the option), and the help text that lists them. */
#ifndef SDK_CLI_RUNOPTS_H
#define SDK_CLI_RUNOPTS_H

#include <stdio.h>

#include <stdint.h>

#include "core/error.h"
#include "sim/run.h"

/* A parsed `sdekit run` command line. */
typedef struct cli_run {
  sdk_run_config c;
  const char *outputs[4]; /* -o, as given */
  int noutputs;
  const char *arch;    /* --arch (compile) */
  int64_t bench_steps; /* --steps */
  int help;            /* --help was given: nothing else was parsed */
  int force;
  char **argv_copy; /* the arguments before getopt_long permuted them */
  char cmdline[4096];
  char resolved[4][4200]; /* resume: outputs moved into the checkpoint's directory */
} cli_run;

/* Parse the options of argv[1..] into cr (cr->c holds the defaults, or what
 * was set before), the model from the one operand when need_model (else no
 * operand is allowed).  Besides the options: the kernel cache cap and the
 * model search path from the environment (cli/env.h).  0, or the exit status
 * after printing the error (2). */
int cli_run_parse(int argc, char **argv, cli_run *cr, int need_model);
/* Free what cli_run_parse allocated (scan axes, --set names, argv_copy). */
void cli_run_free(cli_run *cr);
/* The text of `sdekit run --help`. */
void cli_run_help(FILE *f);

/* The commands' error reports (through cli_error): the error's message (or
 * its name) with the exit status that goes with it; a usage error built from
 * fmt with one string argument, exit status 2. */
int cli_fail(sdk_err e, const sdk_errbuf *eb);
int cli_usage_error(const char *fmt, const char *arg);

#endif
