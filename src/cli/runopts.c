/* The command lines of run, resume, codegen and compile (runopts.h). */
#include "cli/runopts.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/env.h"

int cli_fail(const sdekit_error *err) {
  cli_error("%s", err->message[0] ? err->message : sdekit_status_name(err->status));
  return sdekit_status_exit_code(err->status);
}

int cli_usage_error(const char *fmt, const char *arg) {
  char msg[1024];
  snprintf(msg, sizeof msg, fmt, arg);
  cli_error("%s", msg);
  return 2;
}

/* What the library does not parse: --help, --arch (compile), --normalised
 * (codegen), the operand. */
static int other(void *user, const char *name, const char *value) {
  cli_run *cr = user;
  if (!name) {
    if (cr->nmodels++ > 0) return -1;
    sdekit_error err;
    return sdekit_config_set_model(cr->c, value, &err) == SDEKIT_OK ? 0 : -1;
  }
  if (!strcmp(name, "help") && !value) return cr->help = 1, 0;
  if (cr->allow_normalised && !strcmp(name, "normalised") && !value) return cr->normalised = 1, 0;
  if (cr->allow_arch && !strcmp(name, "arch")) {
    if (!value) return 1; /* the next word */
    if (cr->arch) cr->arch_twice = 1;
    cr->arch = value;
    return 0;
  }
  return -1;
}

int cli_run_parse(int argc, char **argv, cli_run *cr, int need_model) {
  sdekit_error err;
  if (sdekit_config_create(&cr->c, &err) != SDEKIT_OK) return cli_fail(&err);
  /* the environment first: options given on the command line come after */
  if (sdekit_config_set_environment(cr->c, cli_environ(), &err) != SDEKIT_OK) return cli_fail(&err);
  sdekit_config_set_log(cr->c, cli_log, NULL, SDEKIT_LOG_INFO);
  for (int i = 1; i < argc; i++) /* --help wins over everything else */
    if (!strcmp(argv[i], "--help")) return cr->help = 1, 0;
  if (sdekit_config_args(cr->c, argc - 1, (const char *const *)argv + 1, other, cr, &err) !=
      SDEKIT_OK)
    return cli_fail(&err);
  if (cr->arch_twice) return cli_usage_error("--arch given twice: give it once%s", "");
  if (need_model && cr->nmodels == 0)
    return cli_usage_error("missing MODEL (a built-in name or a .sde file)%s", "");
  if (!need_model && cr->nmodels > 0) return cli_usage_error("unexpected argument%s", "");
  return 0;
}

void cli_run_free(cli_run *cr) {
  sdekit_config_destroy(&cr->c);
}
