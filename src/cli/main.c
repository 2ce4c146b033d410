/* sdekit: the command-line tool.  Every error becomes one line
 * "sdekit: error: ..." on stderr; exit status 2 for bad input, 1 for
 * failures at run time.  This file dispatches the commands and holds the
 * small ones (models, info, codegen, compile); run and resume are in run.c
 * (their options in runopts.c), plot in plot.c, the rest in the files that
 * cli.h names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/env.h"
#include "cli/info.h"
#include "cli/runopts.h"
#include "core/escape.h"
#include "core/nearest.h"
#include "core/strbuf.h"

static const char MAIN_HELP[] =
    "usage: sdekit COMMAND [options]\n"
    "\n"
    "Integrate large ensembles of stochastic differential equations on CPUs and GPUs.\n"
    "\n"
    "commands:\n"
    "  run MODEL [options]      integrate a model (built-in name or .sde file); see 'sdekit run "
    "--help'\n"
    "  models                   list the models of SDEKIT_MODEL_PATH and the built-in ones\n"
    "  resume CHECKPOINT        continue a run saved with --checkpoint\n"
    "  info FILE.h5             summarise a result file\n"
    "  plot FILE.h5 [-o FIG]    draw the results with gnuplot (PNG); see 'sdekit plot --help'\n"
    "  bench [options]          time the josephson SRK2 workload against the paper's scalar CPU "
    "code\n"
    "  codegen MODEL [options]  print the generated kernel source (--backend %s)\n"
    "  compile MODEL [options]  generate and compile the kernel, report the result\n"
    "  devices                  list CUDA devices\n"
    "  cache list|clean         show or empty the kernel cache; see 'sdekit cache --help'\n"
    "  help                     this text\n"
    "\n"
    "options: --help, --version\n"
    "\n"
    "environment (details: 'sdekit run --help', man sdekit):\n"
    "  SDEKIT_MODEL_PATH        ':'-separated directories searched for MODEL names before the\n"
    "                           built-in models\n"
    "  SDEKIT_CACHE_DIR         the kernel cache (default $XDG_CACHE_HOME/sdekit or\n"
    "                           ~/.cache/sdekit); SDEKIT_CACHE_MAX caps its size\n"
    "  SDEKIT_CC, SDEKIT_CFLAGS the C compiler of CPU kernels and its flags (also CC, CFLAGS)\n"
    "  CUDA_HOME, CUDA_PATH     where NVRTC is looked for\n"
    "\n"
    "examples:\n"
    "  sdekit run ou --paths 100000 --t-end 5 --observe moments -o ou.h5\n"
    "  sdekit run josephson --scan a=4.2:14.1:100 --paths 1024 --periods 200 \\\n"
    "         --transient-periods 50 -o drift.tsv\n";

/* One model of the catalog under the name that runs it (its file's): its
 * description, variables and the [model] name where that differs. */
static void show_model(const sdekit_catalog *cat, int i, const char *stem) {
  sdekit_model *m = NULL;
  sdekit_error err;
  char en[1024], ed[2048], ev[2048], em[4096];
  sdk_esc_term_buf(stem, en, sizeof en);
  if (sdekit_model_load(sdekit_catalog_path(cat, i), NULL, &m, &err) == SDEKIT_OK) {
    sdk_strbuf vars;
    sdk_sb_init(&vars);
    for (int v = 0; v < sdekit_model_nvars(m); v++)
      sdk_sb_printf(&vars, "%s%s", v ? ", " : "", sdekit_model_var(m, v));
    if (strcmp(sdekit_model_name(m), stem))
      sdk_sb_printf(&vars, "; [model] name: %s", sdekit_model_name(m));
    printf("  %-20s %s\n  %-20s vars: %s\n", en,
           sdk_esc_term_buf(sdekit_model_description(m), ed, sizeof ed), "",
           sdk_esc_term_buf(vars.s ? vars.s : "", ev, sizeof ev));
    sdk_sb_free(&vars);
  } else {
    printf("  %-20s (broken: %s)\n", en, sdk_esc_term_buf(err.message, em, sizeof em));
  }
  sdekit_model_destroy(&m);
}

/* The models a bare name can mean, each directory under its own heading in
 * the order `sdekit run NAME` searches them (SDEKIT_MODEL_PATH, then the
 * built-in models), each sorted by name.  A file that an earlier directory
 * has too is shadowed: run loads the earlier one, which is named. */
static int cmd_models(int argc, char **argv) {
  sdekit_catalog *cat = NULL;
  sdekit_error err;
  if (sdekit_catalog_create(sdk_cli_env_model_path(), &cat, &err) != SDEKIT_OK)
    return cli_fail(&err);
  int nd = sdekit_catalog_ndirs(cat), n = sdekit_catalog_count(cat), builtin = 0;
  for (int d = 0; d <= nd; d++) {
    char en[1024], ep[4096];
    int in_builtin = d < nd && sdekit_catalog_dir_builtin(cat, d);
    if (d == nd && builtin) break; /* (the line below when there is no built-in directory) */
    builtin |= in_builtin;
    if (d < nd && !in_builtin)
      printf("models on SDEKIT_MODEL_PATH (%s):\n",
             sdk_esc_term_buf(sdekit_catalog_dir(cat, d), ep, sizeof ep));
    else
      printf("built-in models:\n");
    int shown = 0;
    for (int i = 0; d < nd && i < n; i++) {
      if (sdekit_catalog_entry_dir(cat, i) != d) continue;
      const char *f = sdekit_catalog_file(cat, i); /* NAME.sde */
      char stem[1024];
      snprintf(stem, sizeof stem, "%.*s", (int)(strlen(f) - 4), f);
      int by = -1;
      for (int k = 0; k < i && by < 0; k++)
        if (sdekit_catalog_entry_dir(cat, k) < d && !strcmp(sdekit_catalog_file(cat, k), f)) by = k;
      if (by < 0) {
        show_model(cat, i, stem);
      } else {
        sdk_esc_term_buf(stem, en, sizeof en);
        printf("  %-20s (shadowed by %s: 'sdekit run %s' loads that one)\n", en,
               sdk_esc_term_buf(sdekit_catalog_path(cat, by), ep, sizeof ep), en);
      }
      shown++;
    }
    if (!shown)
      printf("  (none found%s%s)\n", in_builtin ? "; searched " : "",
             in_builtin ? sdk_esc_term_buf(sdekit_catalog_dir(cat, d), ep, sizeof ep) : "");
  }
  sdekit_catalog_destroy(&cat);
  return 0;
}

static int cmd_info(int argc, char **argv) {
  if (argc != 2 || !strcmp(argv[1], "--help")) {
    if (argc == 2) return printf("usage: sdekit info FILE.h5\n"), 0;
    return cli_usage_error("usage: sdekit info FILE.h5%s", "");
  }
  struct stat st;
  if (stat(argv[1], &st) != 0) return cli_usage_error("cannot read '%s': no such file", argv[1]);
  sdekit_error err = {0};
  return cli_info(argv[1], stdout, &err) == SDEKIT_OK ? 0 : cli_fail(&err);
}

/* --normalised: the kernel's identity text instead (sdekit_codegen_normalised;
 * scripts/codegen-golden.sh hashes it) */
static int cmd_codegen(int argc, char **argv) {
  cli_run cr;
  memset(&cr, 0, sizeof cr);
  cr.allow_normalised = 1;
  int rc = cli_run_parse(argc, argv, &cr, 1);
  if (cr.help) {
    cli_run_free(&cr);
    char names[256];
    return printf("usage: sdekit codegen MODEL [--backend %s] [--normalised] [run options]\n"
                  "  --normalised  the kernel's identity instead: the source without comments,\n"
                  "                whitespace and #line (the kernel cache and checkpoints key on "
                  "it)\n",
                  cli_backend_names(names, sizeof names, "|", "|")),
           0;
  }
  char *src = NULL, *norm = NULL;
  sdekit_error err;
  if (!rc && sdekit_codegen(cr.c, NULL, &src, &err) != SDEKIT_OK) rc = cli_fail(&err);
  if (!rc && cr.normalised && sdekit_codegen_normalised(src, &norm, &err) != SDEKIT_OK)
    rc = cli_fail(&err);
  cli_run_free(&cr);
  if (!rc) fputs(norm ? norm : src, stdout);
  sdekit_free(src);
  sdekit_free(norm);
  return rc;
}

int sdk_cli_compile(int argc, char **argv) {
  cli_run cr;
  memset(&cr, 0, sizeof cr);
  cr.allow_arch = 1;
  int rc = cli_run_parse(argc, argv, &cr, 1);
  if (cr.help) {
    cli_run_free(&cr);
    char names[256];
    printf("usage: sdekit compile MODEL [--backend %s] [--arch sm_XY] [--precision P] [run "
           "options]\n\nGenerates and compiles the kernel and reports the result (registers and "
           "spills for CUDA).\nWith --arch, CUDA code is compiled by NVRTC without a GPU.\n",
           cli_backend_names(names, sizeof names, "|", "|"));
    return 0;
  }
  sdekit_compile_report rep;
  sdekit_error err;
  if (!rc && sdekit_compile(cr.c, NULL, cr.arch, &rep, &err) != SDEKIT_OK) rc = cli_fail(&err);
  cli_run_free(&cr);
  if (rc) return rc;
  char ename[1024];
  printf("sdekit: %s: %s precision, %s, %sfast-math, on %s\nsdekit: %s\n",
         sdk_esc_term_buf(rep.model, ename, sizeof ename), rep.precision, rep.scheme,
         rep.fast_math ? "" : "no ", rep.where, rep.report);
  return 0;
}

int main(int argc, char **argv) {
  char names[256];
  if (argc < 2) {
    fprintf(stderr, MAIN_HELP, cli_backend_names(names, sizeof names, "|", "|"));
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    printf(MAIN_HELP, cli_backend_names(names, sizeof names, "|", "|"));
    return 0;
  }
  if (!strcmp(cmd, "--version")) {
    printf("sdekit %s\n", sdekit_version());
    return 0;
  }
  if (!strcmp(cmd, "run")) return sdk_cli_run(argc - 1, argv + 1);
  if (!strcmp(cmd, "resume")) return sdk_cli_resume(argc - 1, argv + 1);
  if (!strcmp(cmd, "models")) return cmd_models(argc - 1, argv + 1);
  if (!strcmp(cmd, "info")) return cmd_info(argc - 1, argv + 1);
  if (!strcmp(cmd, "codegen")) return cmd_codegen(argc - 1, argv + 1);
  if (!strcmp(cmd, "bench")) return sdk_cli_bench(argc - 1, argv + 1);
  if (!strcmp(cmd, "compile")) return sdk_cli_compile(argc - 1, argv + 1);
  if (!strcmp(cmd, "devices")) return sdk_cli_devices(argc - 1, argv + 1);
  if (!strcmp(cmd, "plot")) return sdk_cli_plot(argc - 1, argv + 1);
  if (!strcmp(cmd, "cache")) return sdk_cli_cache(argc - 1, argv + 1);
  static const char *const commands[] = {"run",     "resume", "models",  "info",
                                         "codegen", "bench",  "compile", "devices",
                                         "plot",    "cache",  "help"};
  int k = sdk_nearest(cmd, commands, sizeof commands / sizeof *commands);
  if (k >= 0) {
    cli_error("unknown command '%s' (did you mean '%s'? see 'sdekit --help')", cmd, commands[k]);
    return 2;
  }
  return cli_usage_error("unknown command '%s' (see 'sdekit --help')", cmd);
}
