/* sdekit bench --published NAME: the published workloads side by side (issue 32).
 *
 * The driver is python/sdekit/bench.py: sdekit (through the C API, ctypes) and the
 * hand-written JAX peers are timed in ONE Python process, as a user calling both would,
 * each whole call after the first.  This command only starts it: posix_spawn of the
 * interpreter fixed at configure time (SDEKIT_PYTHON), with a fixed program text, the
 * package directory of the source tree this build's library lies in (python/ beside the
 * library's directory: build/libsdekit.so.0 of a checkout; none elsewhere, where an
 * installed `sdekit` package is imported) and the user's arguments as separate argv
 * entries: no shell, no PATH search, no path taken from the environment, and no path
 * compiled in (the installed tree can be moved).  The child gets
 * SDEKIT_LIBRARY set to the library this process runs, so both sides time the same
 * build.  The arguments themselves are checked by the driver (a bad NAME: one error
 * with the list, exit 2). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <sdekit.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"

extern char **environ;

#ifndef SDK_PYTHON
#define SDK_PYTHON "/usr/bin/python3"
#endif

/* The program the interpreter runs: the package directory comes as sys.argv[1]
 * (data, never part of the program text). */
static const char PROGRAM[] = "import sys; d = sys.argv.pop(1); d and sys.path.insert(0, d); "
                              "from sdekit.bench import main; sys.exit(main(sys.argv[1:]))";

/* The environment with SDEKIT_LIBRARY=LIB in place of any other value. */
static char **child_env(const char *lib_entry) {
  size_t n = 0;
  while (environ && environ[n])
    n++;
  char **env = calloc(n + 2, sizeof *env);
  if (!env) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "SDEKIT_LIBRARY=", 15) != 0) env[k++] = environ[i];
  if (lib_entry) env[k++] = (char *)lib_entry;
  env[k] = NULL;
  return env;
}

int sdk_cli_bench_published(int argc, char **argv) {
  char **args = calloc((size_t)argc + 4, sizeof *args);
  if (!args) {
    cli_error("out of memory\n");
    return 1;
  }
  args[0] = (char *)SDK_PYTHON;
  args[1] = (char *)"-c";
  args[2] = (char *)PROGRAM;
  for (int i = 1; i < argc; i++)
    args[3 + i] = argv[i];
  /* the library this process runs (the tool links libsdekit.so.0) */
  Dl_info info;
  char *lib_entry = NULL, pydir[4096] = "";
  if (dladdr((void *)&sdekit_version, &info) && info.dli_fname && info.dli_fname[0] == '/' &&
      strstr(info.dli_fname, "libsdekit")) {
    size_t len = strlen(info.dli_fname) + 16;
    lib_entry = malloc(len);
    if (lib_entry) snprintf(lib_entry, len, "SDEKIT_LIBRARY=%s", info.dli_fname);
    /* DIR/build/libsdekit.so.0 -> DIR/python, when it holds the driver */
    char lib[4096], probe[4200];
    snprintf(lib, sizeof lib, "%s", info.dli_fname);
    for (int up = 0; up < 2; up++) {
      char *slash = strrchr(lib, '/');
      if (slash) *slash = '\0';
    }
    snprintf(probe, sizeof probe, "%s/python/sdekit/bench.py", lib);
    if (lib[0] && access(probe, R_OK) == 0) snprintf(pydir, sizeof pydir, "%s/python", lib);
  }
  args[3] = pydir;
  char **env = child_env(lib_entry);
  pid_t pid;
  int rc = env ? posix_spawn(&pid, SDK_PYTHON, NULL, NULL, args, env) : ENOMEM;
  free(env);
  free(lib_entry);
  free(args);
  if (rc != 0) {
    cli_error("bench --published needs Python 3 at %s (the interpreter set at configure "
              "time, -DSDEKIT_PYTHON=...): %s\n",
              SDK_PYTHON, strerror(rc));
    return 2;
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return 1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
