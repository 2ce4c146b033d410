/* The CPU backend's modules (backend/cpu_internal.h): the system C compiler
 * run on the generated source, the kernel cache (backend/cache.h), loading
 * and checking a module, and a session's shelf of loaded modules. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fenv.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/cpu_internal.h"
#include "codegen/codegen.h"
#include "codegen/identity.h"
#include "core/escape.h"
#include "core/strbuf.h"

/* Split environment text on blanks into words appended to argv (never
 * interpreted: no quotes, no expansion).  Returns the new count, or -1 when
 * more than max words. */
static int split_words(char *s, char **argv, int n, int max) {
  for (char *t = strtok(s, " \t\n\r\f\v"); t; t = strtok(NULL, " \t\n\r\f\v")) {
    if (n >= max) return -1;
    argv[n++] = t;
  }
  return n;
}

extern char **environ;

/* "sdekit: cc -std=gnu11 ... -lm" (--verbose), each word escaped for the terminal. */
static void log_command(const sdk_logger *lg, char **argv, int n) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_sb_puts(&b, "sdekit:");
  for (int i = 0; i < n; i++) {
    char w[4400];
    sdk_sb_printf(&b, " %s", sdk_esc_term_buf(argv[i], w, sizeof w));
  }
  sdk_sb_puts(&b, "\n");
  if (!b.oom) sdk_log(lg, SDK_LOG_DEBUG, "%s", b.s);
  sdk_sb_free(&b);
}

static void nap_10ms(void) {
  struct timespec ts = {0, 10000000};
  nanosleep(&ts, NULL); /* (a signal ends it early: then the flag is seen at once) */
}

/* Wait for the compiler.  A stop request (o.cancel, polled every 10 ms)
 * terminates its process group instead, the driver and the compilers and
 * linker it started: SIGTERM, which lets them remove their temporary
 * files, then SIGKILL for whatever is left once the driver is gone (at
 * most half a second on).  Returns 0 when it exited (*status), 1 when
 * stopped, -1 on an error (errno). */
static int wait_compiler(const sdk_bctx *c, pid_t pid, int *status) {
  int polled = c->o.cancel != NULL;
  for (;;) {
    pid_t w = waitpid(pid, status, polled ? WNOHANG : 0);
    if (w == pid) return 0;
    if (w < 0 && errno != EINTR) return -1;
    if (polled && c->o.cancel(c->o.cancel_user)) break;
    if (w == 0) nap_10ms();
  }
  kill(-pid, SIGTERM);
  for (int i = 0; i < 50; i++) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid) break;
    nap_10ms();
  }
  kill(-pid, SIGKILL); /* (the driver, unreaped, still holds the group's id) */
  while (waitpid(pid, status, 0) < 0 && errno == EINTR)
    ;
  return 1;
}

/* The compiler's environment: ours with TMPDIR set to its build directory,
 * so that its temporary files go where they are removed whatever becomes of
 * it (a compiler stopped by a signal leaves them: wait_compiler).  NULL when
 * out of memory; free the result and *tmpvar. */
static char **compiler_env(const char *tmpdir, char **tmpvar) {
  size_t n = 0;
  while (environ && environ[n])
    n++;
  char **env = malloc((n + 2) * sizeof *env);
  size_t len = strlen("TMPDIR=") + strlen(tmpdir) + 1;
  *tmpvar = malloc(len);
  if (!env || !*tmpvar) {
    free(env);
    free(*tmpvar);
    *tmpvar = NULL;
    return NULL;
  }
  snprintf(*tmpvar, len, "TMPDIR=%s", tmpdir);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "TMPDIR=", 7)) env[k++] = environ[i];
  env[k++] = *tmpvar;
  env[k] = NULL;
  return env;
}

/* Run the compiler from an argument vector (no shell), its output to the
 * log file, its input from /dev/null, its temporary files in tmpdir. */
static sdk_err run_compiler(sdk_bctx *c, const char *src_path, const char *obj_path, int logfd,
                            const char *tmpdir, sdk_errbuf *eb) {
  enum { MAXW = 256 };
  char *argv[MAXW + 8];
  char ccw[sizeof c->cc], flw[sizeof c->cflags];
  memcpy(ccw, c->cc, sizeof ccw);
  memcpy(flw, c->cflags, sizeof flw);
  int n = split_words(ccw, argv, 0, MAXW);
  if (n > 0) n = split_words(flw, argv, n, MAXW);
  if (n <= 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    n == 0 ? "the C compiler command (SDEKIT_CC/CC) is empty"
                           : "the C compiler command and flags have more than 256 words");
  argv[n++] = "-o";
  argv[n++] = (char *)obj_path;
  argv[n++] = (char *)src_path;
  argv[n++] = "-lm";
  if (strstr(c->cflags, "libmvec")) argv[n++] = "-lmvec";
  argv[n] = NULL;
  if (sdk_log_on(c->o.logger, SDK_LOG_DEBUG)) log_command(c->o.logger, argv, n);
  posix_spawn_file_actions_t fa;
  if (posix_spawn_file_actions_init(&fa) != 0) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  int rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, logfd, 1);
  if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, logfd, 2);
  /* stoppable: in a process group of its own, so that all of it can be
   * stopped (wait_compiler) */
  posix_spawnattr_t sa;
  int has_sa = c->o.cancel && posix_spawnattr_init(&sa) == 0;
  if (!rc && has_sa) rc = posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETPGROUP);
  if (!rc && has_sa) rc = posix_spawnattr_setpgroup(&sa, 0);
  char *tmpvar = NULL, **env = compiler_env(tmpdir, &tmpvar);
  if (!env) rc = ENOMEM;
  pid_t pid = -1;
  if (!rc) rc = posix_spawnp(&pid, argv[0], &fa, has_sa ? &sa : NULL, argv, env);
  posix_spawn_file_actions_destroy(&fa);
  if (has_sa) posix_spawnattr_destroy(&sa);
  free(env);
  free(tmpvar);
  if (rc != 0) {
    char w[600];
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "cannot start the C compiler '%s': %s",
                    sdk_esc_term_buf(argv[0], w, sizeof w), strerror(rc));
  }
  int status = 0, w = wait_compiler(c, pid, &status);
  if (w < 0)
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "waiting for the C compiler: %s", strerror(errno));
  if (w > 0) return SDK_FAIL(eb, SDK_ERR_INTERRUPTED, "interrupted while compiling the kernel");
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? SDK_OK : SDK_ERR_COMPILE;
}

/* Load a checked shared object, through the descriptor it was checked by
 * (backend/cache.h), and check its key: a module built from other source
 * (planted, stale) is refused.  why receives the reason. */
static sdk_module *open_module(int fd, const char *key, char *why, size_t nwhy) {
  sdk_module *m = calloc(1, sizeof *m);
  if (!m) {
    snprintf(why, nwhy, "out of memory");
    return NULL;
  }
  /* NODELETE: the module brings the OpenMP runtime; unloading it while its
   * worker threads idle would crash (seen with gcc's libgomp).  A module
   * linked with -ffast-math carries crtfastmath.o, whose constructor sets
   * flush-to-zero and denormals-are-zero in the loading thread (gcc < 13,
   * clang): the caller's floating-point mode is put back, so a run changes
   * neither the host program's arithmetic nor, through the thread that also
   * steps paths, which paths see denormals. */
  fenv_t fe;
  int saved = fegetenv(&fe) == 0;
  m->dl = sdk_cache_dlopen(fd, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (saved) fesetenv(&fe);
  if (!m->dl) {
    const char *d = dlerror();
    snprintf(why, nwhy, "cannot load: %s", d ? d : "?");
    free(m);
    return NULL;
  }
  const char *k = (const char *)dlsym(m->dl, "sdk_module_key");
  int (*abi)(void) = (int (*)(void))dlsym(m->dl, "sdk_abi");
  m->init = (init_fn)dlsym(m->dl, "sdk_init");
  m->advance = (advance_fn)dlsym(m->dl, "sdk_advance");
  m->advance_sys = (advance_sys_fn)dlsym(m->dl, "sdk_advance_sys");
  int (*nred)(void) = (int (*)(void))dlsym(m->dl, "sdk_sys_nred");
  m->sys_nred = nred ? nred() : 0;
  m->observe = (observe_fn)dlsym(m->dl, "sdk_observe");
  int (*rows)(void) = (int (*)(void))dlsym(m->dl, "sdk_state_rows");
  m->rows = rows ? rows() : 0;
  m->parallel = (sdk_cpu_parallel_fn)dlsym(m->dl, "sdk_parallel");
  if (!k || strcmp(k, key) != 0)
    snprintf(why, nwhy, "its key does not match this source and build");
  else if (!abi || abi() != SDK_KERNEL_ABI || !m->init || (!m->advance && !m->advance_sys))
    snprintf(why, nwhy, "not an sdekit kernel module of this version");
  else
    return m;
  dlclose(m->dl);
  free(m);
  return NULL;
}

/* Create a file of directory dfd that must not exist yet, never through a
 * link. */
static int create_new(int dfd, const char *name) {
  return openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

static int write_all(int fd, const char *s, size_t n) {
  while (n) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    s += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Check a module file opened by sdk_cache_open_file (complete, with the
 * key) and load it through the same descriptor; NULL with why set. */
static sdk_module *load_checked(int fd, const char *key, char *why, size_t nwhy) {
  size_t len = 0;
  char *bin = sdk_cache_read_fd(fd, &len);
  int ok = bin && sdk_cache_check_elf(bin, len, key) == 0;
  free(bin);
  if (ok) return open_module(fd, key, why, nwhy);
  snprintf(why, nwhy, "not a complete module built from this source");
  return NULL;
}

/* Compile into a private build directory, check and load the result from
 * there, and only then rename it (and its source) into the cache.  The
 * compiler is given the build directory's real path (backend/cache.h);
 * everything else goes through the descriptors. */
static sdk_err build_module(sdk_bctx *c, const sdk_cache_dir *d, const char *hash, const char *src,
                            const char *keyline, const char *key, const char *model_path,
                            sdk_module **out, sdk_errbuf *eb) {
  char nsrc[48], nso[48], bsrc[4400], bso[4400], so[4200], csrc[4200];
  sdk_cache_build b;
  SDK_CHECK(sdk_cache_builddir(d, &b, eb));
  snprintf(nsrc, sizeof nsrc, "cpu-%s.c", hash);
  snprintf(nso, sizeof nso, "cpu-%s.so", hash);
  snprintf(bsrc, sizeof bsrc, "%s/%s", b.real, nsrc);
  snprintf(bso, sizeof bso, "%s/%s", b.real, nso);
  snprintf(so, sizeof so, "%s/%s", d->path, nso);
  snprintf(csrc, sizeof csrc, "%s/%s", d->path, nsrc);
  sdk_err e = SDK_OK;
  int sfd = create_new(b.fd, nsrc), lfd = -1, mfd = -1;
  if (sfd < 0 || write_all(sfd, src, strlen(src)) || write_all(sfd, keyline, strlen(keyline))) {
    e = SDK_FAIL(eb, SDK_ERR_IO, "cannot write '%s': %s", bsrc, strerror(errno));
    goto done;
  }
  close(sfd);
  sfd = -1;
  lfd = create_new(b.fd, "compiler.log");
  if (lfd < 0) {
    e = SDK_FAIL(eb, SDK_ERR_IO, "cannot write '%s/compiler.log': %s", b.real, strerror(errno));
    goto done;
  }
  e = run_compiler(c, bsrc, bso, lfd, b.real, eb);
  close(lfd);
  lfd = -1;
  if (e == SDK_ERR_COMPILE) {
    char *log = sdk_cache_read(b.fd, "compiler.log", NULL);
    renameat(b.fd, nsrc, d->fd, nsrc); /* kept for the user to read */
    int named = 0;
    static const char *const marks[] = {": error:", NULL};
    e = sdk_cache_compile_error(log, marks, model_path, bsrc, csrc, "C compiler", &named, eb);
    if (named) sdk_cache_place_keep_sources(&c->cache);
    free(log);
    goto done;
  }
  if (e != SDK_OK) goto done;
  char why[600] = "";
  mfd = sdk_cache_open_file(b.fd, nso);
  sdk_module *m = mfd >= 0 ? load_checked(mfd, key, why, sizeof why) : NULL;
  if (!m) {
    e = SDK_FAIL(eb, SDK_ERR_BACKEND, "the C compiler's module '%s' is unusable: %s", bso,
                 mfd >= 0 ? why : strerror(errno));
    goto done;
  }
  /* rename is atomic: other runs see the old file or the whole new one */
  if (renameat(b.fd, nso, d->fd, nso) != 0) {
    e = SDK_FAIL(eb, SDK_ERR_IO, "cannot install '%s': %s", so, strerror(errno));
    sdk_cpu_module_free(&m);
    goto done;
  }
  renameat(b.fd, nsrc, d->fd, nsrc);
  *out = m;
done:
  if (sfd >= 0) close(sfd);
  if (lfd >= 0) close(lfd);
  if (mfd >= 0) close(mfd);
  sdk_cache_rm_builddir(d->fd, &b);
  return e;
}

sdk_err sdk_cpu_build_hash(sdk_bctx *c, const char *ident, char hash[33], sdk_errbuf *eb) {
  sdk_strbuf key;
  sdk_sb_init(&key);
  sdk_sb_printf(&key, "sdekit %s abi %d\n%s\n%s\n%s\nsource %s\n", SDK_VERSION, SDK_KERNEL_ABI,
                c->cc, c->cflags, c->cpu_id, ident);
  sdk_sb_puts(&key, sdk_cpu_parallel_source);
  if (key.oom) {
    sdk_sb_free(&key);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  sdk_hash_hex(key.s, key.len, hash);
  sdk_sb_free(&key);
  return SDK_OK;
}

sdk_err sdk_cpu_compile(sdk_bctx *c, const char *src, const char *ident, const char *model_path,
                        sdk_module **out, char *report, size_t nreport, sdk_errbuf *eb) {
  *out = NULL;
  char idbuf[33]; /* the identity (codegen/identity.h) where none is given: tests */
  if (!ident) SDK_CHECK(sdk_cg_identity(src, idbuf, eb));
  ident = ident ? ident : idbuf;
  char hash[33];
  SDK_CHECK(sdk_cpu_build_hash(c, ident, hash, eb));
  /* kept by the session from an earlier run with the same cache: the module
   * it loaded then (without it every run read and loaded the file again,
   * issue 32; another cache directory is used as asked) */
  char skey[80], dhash[33];
  const char *dir = c->o.env.cache_dir ? c->o.env.cache_dir : "";
  sdk_hash_hex(dir, strlen(dir), dhash);
  snprintf(skey, sizeof skey, "cpu/%s/%s", hash, dhash);
  sdk_module *kept = c->o.shelf ? c->o.shelf->take(c->o.shelf->user, skey) : NULL;
  if (kept) {
    if (report)
      snprintf(report, nreport, "kept from an earlier run of this session: cpu-%s.so", hash);
    *out = kept;
    return SDK_OK;
  }
  const sdk_cache_dir *d = NULL;
  SDK_CHECK(sdk_cache_place_dir(&c->cache, &d, eb));
  /* the module carries its key: a file in its place without it (stale,
   * half-written, built from other source) is refused before dlopen; one
   * with it whose sdk_module_key differs is refused after (README.md) */
  char modkey[96];
  snprintf(modkey, sizeof modkey, "sdekit-module/1 cpu %s", hash);
  sdk_strbuf kl; /* appended to the source: the backend's part, the key */
  sdk_sb_init(&kl);
  sdk_sb_puts(&kl, sdk_cpu_parallel_source);
  sdk_sb_puts(&kl,
              "\n__attribute__((visibility(\"default\"), used)) const char sdk_module_key[] = ");
  sdk_esc_c(&kl, modkey);
  sdk_sb_puts(&kl, ";\n");
  if (kl.oom) {
    sdk_sb_free(&kl);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  char nso[48], so[4200], why[600] = "";
  snprintf(nso, sizeof nso, "cpu-%s.so", hash);
  snprintf(so, sizeof so, "%s/%s", d->path, nso);
  sdk_module *m = NULL;
  int fd = sdk_cache_open_file(d->fd, nso);
  if (fd >= 0) {
    m = load_checked(fd, modkey, why, sizeof why);
    close(fd);
  } else if (errno != ENOENT) {
    snprintf(why, sizeof why, "%s", errno == ELOOP ? "a symbolic link" : strerror(errno));
  }
  int cached = m != NULL;
  sdk_err e = SDK_OK;
  if (!m) e = build_module(c, d, hash, src, kl.s, modkey, model_path, &m, eb);
  sdk_sb_free(&kl);
  if (e != SDK_OK) return e;
  if (!cached)
    sdk_cache_prune(d->fd, c->o.cache_max ? c->o.cache_max : SDK_CACHE_MAX_DEFAULT, hash);
  if (report) {
    if (cached)
      snprintf(report, nreport, "cached %s", so);
    else if (why[0])
      snprintf(report, nreport, "rebuilt %s (the cached file was refused: %s)", so, why);
    else
      snprintf(report, nreport, "compiled %s", so);
  }
  if (c->o.shelf) {
    m->shelf = c->o.shelf;
    snprintf(m->key, sizeof m->key, "%s", skey);
  }
  *out = m;
  return SDK_OK;
}

void sdk_cpu_module_free(sdk_module **m) {
  if (!m || !*m) return;
  sdk_module *k = *m;
  if (k->shelf && k->shelf->put(k->shelf->user, k->key, k, sdk_cpu_module_free)) {
    *m = NULL;
    return;
  }
  if ((*m)->dl) dlclose((*m)->dl);
  free(*m);
  *m = NULL;
}
