/* sdekit: the command-line tool.  Every error becomes one line
 * "sdekit: error: ..." on stderr; exit status 2 for bad input, 1 for
 * failures at run time.  This file dispatches the commands and holds the
 * small ones (models, info, codegen, compile); run and resume are in run.c
 * (their options in runopts.c), plot in plot.c, the rest in the files that
 * cli.h names. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/env.h"
#include "cli/runopts.h"
#include "core/escape.h"
#include "core/strbuf.h"
#include "io/io.h"
#include "model/model.h"
#include "sim/run.h"

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

static int has_suffix(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
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
  sdk_model_dirlist dl;
  sdk_model_dirs(sdk_cli_env_model_path(), &dl);
  const char **dirs = dl.dir;
  int nd = dl.n;
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
    return cli_usage_error("usage: sdekit info FILE.h5%s", "");
  }
  struct stat st;
  if (stat(argv[1], &st) != 0) return cli_usage_error("cannot read '%s': no such file", argv[1]);
  sdk_errbuf eb = {0};
  sdk_err e = sdk_h5_info(argv[1], stdout, &eb);
  return e == SDK_OK ? 0 : cli_fail(e, &eb);
}

static int cmd_codegen(int argc, char **argv) {
  cli_run cr;
  memset(&cr, 0, sizeof cr);
  sdk_run_config_defaults(&cr.c);
  int rc = cli_run_parse(argc, argv, &cr, 1);
  if (cr.help || rc) cli_run_free(&cr);
  if (cr.help) return printf("usage: sdekit codegen MODEL [--backend cpu|cuda] [run options]\n"), 0;
  if (rc) return rc;
  sdk_errbuf eb = {0};
  char *src = NULL;
  sdk_err e = sdk_run_codegen(&cr.c, !strcmp(cr.c.backend, "cuda"), &src, &eb);
  cli_run_free(&cr);
  if (e != SDK_OK) return cli_fail(e, &eb);
  fputs(src, stdout);
  free(src);
  return 0;
}

int sdk_cli_compile(int argc, char **argv) {
  cli_run cr;
  memset(&cr, 0, sizeof cr);
  sdk_run_config_defaults(&cr.c);
  int rc = cli_run_parse(argc, argv, &cr, 1);
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
  return cli_usage_error("unknown command '%s' (see 'sdekit --help')", cmd);
}
