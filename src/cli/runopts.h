/* The command lines of `sdekit run`, resume, codegen and compile: the
 * library parses every run option (sdekit_config_args, the same parser a
 * checkpoint goes through); the CLI adds its own few (--help, --arch, --normalised) and
 * the environment, and turns errors into its one error line. */
#ifndef SDK_CLI_RUNOPTS_H
#define SDK_CLI_RUNOPTS_H

#include <sdekit.h>
#include <stdint.h>

/* A parsed command line. */
typedef struct cli_run {
  sdekit_config *c;
  int help;       /* --help was given */
  int allow_arch; /* --arch is an option of this command (compile) */
  const char *arch;
  int arch_twice;       /* --arch given again (refused: the last would win silently) */
  int allow_normalised; /* --normalised is an option of this command (codegen) */
  int normalised;
  int nmodels; /* operands seen */
} cli_run;

/* Parse argv[1..] (argv[0] is the command) into a new configuration with
 * the environment applied, the model from the one operand when need_model
 * (else none is allowed).  0, or the exit status after printing the error
 * (cr->c is then NULL or to be freed with cli_run_free all the same). */
int cli_run_parse(int argc, char **argv, cli_run *cr, int need_model);
void cli_run_free(cli_run *cr);

/* The commands' error reports (through cli_error): the library's error with
 * the exit status that goes with it; a usage error built from fmt with one
 * string argument, exit status 2. */
int cli_fail(const sdekit_error *err);
int cli_usage_error(const char *fmt, const char *arg);

#endif
