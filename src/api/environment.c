/* The public API: a configuration's surroundings from an environment given
 * as data (the CLI passes environ; the library never calls getenv), and the
 * kernel cache settings. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "core/strbuf.h"

/* $name in envp, or NULL. */
static const char *env_get(const char *const *envp, const char *name) {
  size_t n = strlen(name);
  for (int i = 0; envp && envp[i]; i++)
    if (!strncmp(envp[i], name, n) && envp[i][n] == '=') return envp[i] + n + 1;
  return NULL;
}

static const char *nonempty(const char *const *envp, const char *name) {
  const char *s = env_get(envp, name);
  return s && *s ? s : NULL;
}

/* sdekit's own variables are SDEKIT_NAME; until the next release the old
 * name SDK_NAME is taken where SDEKIT_NAME is not set, and said in one note
 * (all the old names the environment has, and which of them a new one
 * overrides) when a run starts. */
static const char *const RENAMED[] = {"CACHE_DIR", "SYS_KERNEL",    "SYS_PAIRS", "SYS_CPB",
                                      "SYS_BPS",   "SYS_RMAX",      "SYS_QI",    "SYS_MINB",
                                      "RUN_MINB",  "BASELINE_CUBIN"};
#define NRENAMED (sizeof RENAMED / sizeof *RENAMED)

/* SDEKIT_var, else SDK_var (var: one of RENAMED), "" as unset; name (n
 * bytes) gets the one it came from */
static const char *renamed(const char *const *envp, const char *var, char *name, size_t n) {
  snprintf(name, n, "SDEKIT_%s", var);
  const char *v = nonempty(envp, name);
  if (v) return v;
  snprintf(name, n, "SDK_%s", var);
  return nonempty(envp, name);
}

/* the note on the old names in envp (nothing when there are none):
 * "SDK_A, SDK_B deprecated: use SDEKIT_A, SDEKIT_B (...)" */
static void renamed_note(const char *const *envp, sdk_strbuf *b) {
  sdk_strbuf neu, both;
  sdk_sb_init(&neu);
  sdk_sb_init(&both);
  int n = 0, nboth = 0;
  for (size_t i = 0; i < NRENAMED; i++) {
    char old[64], name[64];
    snprintf(old, sizeof old, "SDK_%s", RENAMED[i]);
    snprintf(name, sizeof name, "SDEKIT_%s", RENAMED[i]);
    if (!env_get(envp, old)) continue;
    sdk_sb_printf(b, "%s%s", n ? ", " : "", old);
    sdk_sb_printf(&neu, "%s%s", n++ ? ", " : "", name);
    if (env_get(envp, name)) sdk_sb_printf(&both, "%s%s", nboth++ ? ", " : "", name);
  }
  if (n)
    sdk_sb_printf(b, " %s deprecated: use %s (the old names are taken until the next release%s%s)",
                  n > 1 ? "are" : "is", neu.s, nboth ? "; where both are set, the new one: " : "",
                  nboth ? both.s : "");
  sdk_sb_free(&neu);
  sdk_sb_free(&both);
}

/* An executable prog in a directory of $PATH. */
static int on_path(const char *path, const char *prog) {
  if (!path) return 0;
  char buf[4096];
  while (*path) {
    size_t n = strcspn(path, ":");
    if (n > 0 && n + strlen(prog) + 2 < sizeof buf) {
      snprintf(buf, sizeof buf, "%.*s/%s", (int)n, path, prog);
      if (access(buf, X_OK) == 0) return 1;
    }
    path += n + (path[n] == ':');
  }
  return 0;
}

/* SDEKIT_CACHE_MAX: bytes, with an optional K, M or G; 0 means no cap. */
static sdekit_status cache_max(const char *s, int64_t *out, sdekit_error *err) {
  *out = 0; /* the library's default */
  if (!s || !*s) return SDEKIT_OK;
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end), mul = 1;
  if (end && *end) {
    switch (*end) {
    case 'k':
    case 'K': mul = 1024.0; break;
    case 'm':
    case 'M': mul = 1024.0 * 1024; break;
    case 'g':
    case 'G': mul = 1024.0 * 1024 * 1024; break;
    default: mul = -1;
    }
    if (mul > 0) end++;
  }
  if (errno || end == s || *end || mul < 0 || !(v >= 0) || v * mul > 9e18)
    return api_usage(err, "SDEKIT_CACHE_MAX='%s' is not a size in bytes (examples: 0, 100M, 2G)",
                     s);
  *out = v == 0 ? -1 : (int64_t)(v * mul);
  return SDEKIT_OK;
}

/* $name as a whole number in lo..hi into *out; unset or empty: 0. */
static sdekit_status env_int(const char *const *envp, const char *var, int lo, int hi, int *out,
                             sdekit_error *err) {
  char name[64];
  const char *s = renamed(envp, var, name, sizeof name);
  *out = 0;
  if (!s) return SDEKIT_OK;
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) {
    if (hi == INT_MAX) return api_usage(err, "%s='%s': expected a whole number >= %d", name, s, lo);
    return api_usage(err, "%s='%s': expected a whole number from %d to %d", name, s, lo, hi);
  }
  *out = (int)v;
  return SDEKIT_OK;
}

/* The GPU tuning knobs (core/tuning.h). */
static sdekit_status tuning(sdekit_config *c, const char *const *envp, sdekit_error *err) {
  sdk_tuning *t = &c->c.tuning;
  char kname[64], pname[64], cname[64];
  const char *k = renamed(envp, "SYS_KERNEL", kname, sizeof kname);
  const char *pairs = renamed(envp, "SYS_PAIRS", pname, sizeof pname);
  if (k && strcmp(k, "auto") && strcmp(k, "launch") && strcmp(k, "persist") &&
      strcmp(k, "resident"))
    return api_usage(err, "%s='%s': expected launch, persist, resident or auto", kname, k);
  if (pairs && strcmp(pairs, "auto") && strcmp(pairs, "full") && strcmp(pairs, "half"))
    return api_usage(err, "%s='%s': expected full, half or auto", pname, pairs);
  t->sys_pairs = !pairs || !strcmp(pairs, "auto") ? SDK_PAIRS_AUTO
                 : !strcmp(pairs, "full")         ? SDK_PAIRS_FULL
                                                  : SDK_PAIRS_HALF;
  sdekit_status s;
  if ((s = env_int(envp, "SYS_CPB", 1, INT_MAX, &t->sys_cpb, err)) ||
      (s = env_int(envp, "SYS_BPS", 1, 8, &t->sys_bps, err)) ||
      (s = env_int(envp, "SYS_RMAX", 1, INT_MAX, &t->sys_rmax, err)) ||
      (s = env_int(envp, "SYS_QI", 1, 4, &t->sys_qi, err)) ||
      (s = env_int(envp, "SYS_MINB", 1, 8, &t->sys_minb, err)) ||
      (s = env_int(envp, "RUN_MINB", 1, 8, &t->run_minb, err)))
    return s;
  if (api_set_str(&c->sys_kernel, k && strcmp(k, "auto") ? k : NULL) != SDK_OK ||
      api_set_str(&c->baseline_cubin, renamed(envp, "BASELINE_CUBIN", cname, sizeof cname)) !=
          SDK_OK)
    return api_nomem(err);
  t->sys_kernel = c->sys_kernel;
  t->baseline_cubin = c->baseline_cubin;
  return SDEKIT_OK;
}

/* The persistent kernel cache: $SDEKIT_CACHE_DIR, else $XDG_CACHE_HOME/sdekit
 * (an absolute XDG_CACHE_HOME only), else $HOME/.cache/sdekit; none: a
 * private directory per run. */
static int cache_dir(const char *const *envp, char *out, size_t n) {
  char name[64];
  const char *d = renamed(envp, "CACHE_DIR", name, sizeof name);
  const char *x = env_get(envp, "XDG_CACHE_HOME");
  const char *h = env_get(envp, "HOME");
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

static int own(char **slot, const char **field, const char *v) {
  if (api_set_str(slot, v) != SDK_OK) return 0;
  *field = *slot;
  return 1;
}

SDEKIT_API sdekit_status sdekit_config_set_environment(sdekit_config *c, const char *const *envp,
                                                       sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!c) return api_usage(err, "no configuration");
  sdekit_status s;
  int64_t cap = 0;
  if ((s = cache_max(env_get(envp, "SDEKIT_CACHE_MAX"), &cap, err)) != SDEKIT_OK) return s;
  if ((s = tuning(c, envp, err)) != SDEKIT_OK) return s;
  char dir[4096];
  const char *cc = nonempty(envp, "SDEKIT_CC");
  if (!cc) cc = nonempty(envp, "CC");
  /* clang vectorises libm calls through glibc's libmvec; gcc 12 does not */
  if (!cc) cc = on_path(env_get(envp, "PATH"), "clang") ? "clang" : "cc";
  sdk_backend_env *e = &c->c.env;
  if (!own(&c->cache_dir, &e->cache_dir, cache_dir(envp, dir, sizeof dir) ? dir : NULL) ||
      !own(&c->tmp_dir, &e->tmp_dir, env_get(envp, "TMPDIR")) || !own(&c->cc, &e->cc, cc) ||
      !own(&c->cflags, &e->cflags, nonempty(envp, "SDEKIT_CFLAGS")) ||
      !own(&c->cflags_extra, &e->cflags_extra, env_get(envp, "CFLAGS")) ||
      !own(&c->cuda_home, &e->cuda_home, env_get(envp, "CUDA_HOME")) ||
      !own(&c->cuda_path, &e->cuda_path, env_get(envp, "CUDA_PATH")))
    return api_nomem(err);
  c->c.cache_max = cap;
  sdk_strbuf note;
  sdk_sb_init(&note);
  renamed_note(envp, &note);
  int oom = note.oom || api_set_str(&c->env_note, note.s && *note.s ? note.s : NULL) != SDK_OK;
  sdk_sb_free(&note);
  if (oom) return api_nomem(err);
  c->c.env_note = c->env_note;
  if ((s = sdekit_config_set_model_search_path(c, env_get(envp, "SDEKIT_MODEL_PATH"), err)))
    return s;
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API sdekit_status sdekit_config_set_cache(sdekit_config *c, const char *dir,
                                                 int64_t max_bytes, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!c) return api_usage(err, "no configuration");
  if (!own(&c->cache_dir, &c->c.env.cache_dir, dir && *dir ? dir : NULL)) return api_nomem(err);
  c->c.cache_max = max_bytes;
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API const char *sdekit_config_environment_note(const sdekit_config *c) {
  return c && c->env_note ? c->env_note : "";
}

SDEKIT_API const char *sdekit_config_cache_dir(const sdekit_config *c) {
  return c && c->c.env.cache_dir ? c->c.env.cache_dir : "";
}
