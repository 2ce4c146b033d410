#include "cli/env.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------- backend (cache, compilers, CUDA toolkit) ---------------- */

int sdk_cli_env_cache_dir(char *out, size_t n) {
  const char *d = getenv("SDK_CACHE_DIR");
  const char *x = getenv("XDG_CACHE_HOME");
  const char *h = getenv("HOME");
  int w;
  if (d && *d)
    w = snprintf(out, n, "%s", d);
  else if (x && *x == '/') /* XDG: a relative value is invalid and ignored */
    w = snprintf(out, n, "%s/sdekit", x);
  else if (h && *h)
    w = snprintf(out, n, "%s/.cache/sdekit", h);
  else
    return 0;
  return w > 0 && (size_t)w < n;
}

/* An executable prog in a directory of $PATH. */
static int on_path(const char *prog) {
  const char *path = getenv("PATH");
  if (!path) return 0;
  char buf[4096];
  while (*path) {
    size_t n = strcspn(path, ":");
    snprintf(buf, sizeof buf, "%.*s/%s", (int)n, path, prog);
    if (access(buf, X_OK) == 0) return 1;
    path += n + (path[n] == ':');
  }
  return 0;
}

static const char *nonempty(const char *name) {
  const char *s = getenv(name);
  return s && *s ? s : NULL;
}

sdk_err sdk_cli_env_backend(sdk_backend_env *e, sdk_errbuf *eb) {
  (void)eb;
  /* the CLI is one process with one environment: one directory name */
  static char cache_dir[4096];
  memset(e, 0, sizeof *e);
  e->cache_dir = sdk_cli_env_cache_dir(cache_dir, sizeof cache_dir) ? cache_dir : NULL;
  e->tmp_dir = getenv("TMPDIR");
  e->cc = nonempty("SDEKIT_CC");
  if (!e->cc) e->cc = nonempty("CC");
  /* clang vectorises libm calls through glibc's libmvec; gcc 12 does not */
  if (!e->cc) e->cc = on_path("clang") ? "clang" : "cc";
  e->cflags = nonempty("SDEKIT_CFLAGS");
  e->cflags_extra = getenv("CFLAGS");
  e->cuda_home = getenv("CUDA_HOME");
  e->cuda_path = getenv("CUDA_PATH");
  return SDK_OK;
}

/* ---------------- tuning knobs ---------------- */

/* $name as a whole number in lo..hi into *out; unset or empty: 0. */
static sdk_err env_int(const char *name, int lo, int hi, int *out, sdk_errbuf *eb) {
  const char *s = nonempty(name);
  *out = 0;
  if (!s) return SDK_OK;
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) {
    if (hi == INT_MAX)
      return SDK_FAIL(eb, SDK_ERR_USAGE, "%s='%s': expected a whole number >= %d", name, s, lo);
    return SDK_FAIL(eb, SDK_ERR_USAGE, "%s='%s': expected a whole number from %d to %d", name, s,
                    lo, hi);
  }
  *out = (int)v;
  return SDK_OK;
}

sdk_err sdk_cli_env_tuning(sdk_tuning *t, sdk_errbuf *eb) {
  memset(t, 0, sizeof *t);
  const char *k = nonempty("SDK_SYS_KERNEL");
  if (k && strcmp(k, "auto") && strcmp(k, "launch") && strcmp(k, "persist") &&
      strcmp(k, "resident"))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "SDK_SYS_KERNEL='%s': expected launch, persist, resident or auto", k);
  t->sys_kernel = k && strcmp(k, "auto") ? k : NULL;
  SDK_CHECK(env_int("SDK_SYS_CPB", 1, INT_MAX, &t->sys_cpb, eb));
  SDK_CHECK(env_int("SDK_SYS_BPS", 1, 8, &t->sys_bps, eb));
  SDK_CHECK(env_int("SDK_SYS_RMAX", 1, INT_MAX, &t->sys_rmax, eb));
  SDK_CHECK(env_int("SDK_SYS_QI", 1, 4, &t->sys_qi, eb));
  SDK_CHECK(env_int("SDK_SYS_MINB", 1, 8, &t->sys_minb, eb));
  SDK_CHECK(env_int("SDK_RUN_MINB", 1, 8, &t->run_minb, eb));
  t->baseline_cubin = nonempty("SDK_BASELINE_CUBIN");
  return SDK_OK;
}

sdk_err sdk_cli_env_run(sdk_run_config *c, sdk_errbuf *eb) {
  SDK_CHECK(sdk_cli_env_backend(&c->env, eb));
  return sdk_cli_env_tuning(&c->tuning, eb);
}

/* ---------------- model search path ---------------- */

const char *sdk_cli_env_model_path(void) {
  return getenv("SDEKIT_MODEL_PATH");
}

/* ---------------- the whole environment, for the library ---------------- */

extern char **environ;

const char *const *cli_environ(void) {
  return (const char *const *)environ;
}

/* ---------------- the CLI's own ---------------- */

const char *sdk_cli_env_tmpdir(void) {
  return getenv("TMPDIR");
}

const char *sdk_cli_env_cache_max(void) {
  return getenv("SDEKIT_CACHE_MAX");
}
