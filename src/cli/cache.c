/* sdekit cache list|clean, and the cache size cap from the environment. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/env.h"
#include "cli/runopts.h"

static const char CACHE_HELP[] =
    "usage: sdekit cache list|clean\n"
    "\n"
    "The kernel cache holds the compiled modules of models already run.\n"
    "  list    show each entry with its size and age, and the total\n"
    "  clean   remove every entry sdekit made (nothing else in the directory)\n"
    "\n"
    "Directory: $SDEKIT_CACHE_DIR, else $XDG_CACHE_HOME/sdekit, else $HOME/.cache/sdekit\n"
    "(created mode 0700; refused if another user owns it or others may write to it,\n"
    "or to a folder above it without the sticky bit, as /tmp has).\n"
    "With none of these set, every run uses a private directory removed at its end.\n"
    "Size cap: $SDEKIT_CACHE_MAX bytes (suffix K, M or G; 0 = no cap), default 512M;\n"
    "the least recently used entries are removed first after a new module is built.\n";

static void human(double b, char *out, size_t n) {
  const char *u[] = {"B", "KiB", "MiB", "GiB"};
  int i = 0;
  while (b >= 1024 && i < 3) {
    b /= 1024;
    i++;
  }
  snprintf(out, n, i ? "%.1f %s" : "%.0f %s", b, u[i]);
}

static void age(time_t t, char *out, size_t n) {
  double s = difftime(time(NULL), t);
  if (s < 0) s = 0;
  if (s < 120)
    snprintf(out, n, "%.0f s", s);
  else if (s < 7200)
    snprintf(out, n, "%.0f min", s / 60);
  else if (s < 172800)
    snprintf(out, n, "%.0f h", s / 3600);
  else
    snprintf(out, n, "%.0f days", s / 86400);
}

int sdk_cli_cache(int argc, char **argv) {
  if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
    return fputs(CACHE_HELP, stdout), 0;
  if (argc != 2 || (strcmp(argv[1], "list") && strcmp(argv[1], "clean"))) {
    cli_error("usage: sdekit cache list|clean (see 'sdekit cache --help')\n");
    return 2;
  }
  int clean = !strcmp(argv[1], "clean");
  sdekit_error err;
  sdekit_config *c = NULL;
  if (sdekit_config_create(&c, &err) != SDEKIT_OK ||
      sdekit_config_set_environment(c, cli_environ(), &err) != SDEKIT_OK) {
    sdekit_config_destroy(&c);
    return cli_fail(&err);
  }
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", sdekit_config_cache_dir(c));
  /* (said here: no run starts to log it) */
  if (*sdekit_config_environment_note(c))
    fprintf(stderr, "sdekit: note: %s\n", sdekit_config_environment_note(c));
  sdekit_config_destroy(&c);
  if (!dir[0]) {
    printf("no persistent kernel cache: SDEKIT_CACHE_DIR, XDG_CACHE_HOME and HOME are unset "
           "(every run uses a private directory, removed at its end)\n");
    return 0;
  }
  struct stat st;
  if (lstat(dir, &st) != 0 && errno == ENOENT) { /* not created yet: empty, not an error */
    printf("kernel cache: ");
    cli_put_escaped(stdout, dir);
    printf(" (empty: not created yet)\n");
    return 0;
  }
  sdekit_cache_entry *v = NULL;
  size_t n = 0;
  if (sdekit_cache_list(dir, &v, &n, &err) != SDEKIT_OK) {
    cli_error("%s\n", err.message);
    return 1;
  }
  printf("kernel cache: ");
  cli_put_escaped(stdout, dir);
  printf("\n");
  double total = 0, freed = 0;
  size_t removed = 0, failed = 0;
  for (size_t i = 0; i < n; i++) {
    char sz[32], ag[32];
    human((double)v[i].size, sz, sizeof sz);
    age((time_t)v[i].mtime, ag, sizeof ag);
    total += (double)v[i].size;
    if (clean) {
      if (sdekit_cache_remove(dir, &v[i], &err) == SDEKIT_OK) {
        removed++;
        freed += (double)v[i].size;
      } else {
        failed++;
        fprintf(stderr, "sdekit: warning: ");
        cli_put_escaped(stderr, err.message);
        fputc('\n', stderr);
      }
    } else {
      printf("  %-44s %10s  %8s old%s\n", v[i].name, sz, ag,
             v[i].is_dir ? "  (build directory)" : "");
    }
  }
  sdekit_free(v);
  char t[32];
  if (clean) {
    human(freed, t, sizeof t);
    printf("removed %zu entries (%s)\n", removed, t);
    return failed ? 1 : 0;
  }
  human(total, t, sizeof t);
  printf("%zu entries, %s\n", n, t);
  return 0;
}
