/* CPU backend: generated C compiled by the system C compiler into a shared
 * object (cached by a hash of source, compiler, flags and CPU), dlopen'ed,
 * and run with OpenMP over fixed blocks of paths. */
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

#include "backend/backend.h"
#include "backend/cache.h"
#include "backend/cpu_reduce.h"
#include "codegen/codegen.h"
#include "codegen/identity.h"
#include "core/escape.h"
#include "core/strbuf.h"

typedef void (*init_fn)(void *st, long long npad, const void *sv, long long ppg, long long ngrid,
                        long long path0, unsigned long long seed, int nthreads);
typedef void (*advance_fn)(void *st, long long npad, const void *sv, long long ppg, long long ngrid,
                           long long path0, long long step0, long long nsteps,
                           unsigned long long seed, int nthreads);
typedef int (*advance_sys_fn)(void *st, long long npad, const void *sv, long long ppg,
                              long long ngrid, long long path0, long long step0, long long nsteps,
                              unsigned long long seed, int nthreads, long long N,
                              long long obs_every, double *obs, long long nloc,
                              int (*xchg)(void *, double *), void *xu);

typedef void (*observe_fn)(const void *st, long long npad, const void *sv, long long ppg,
                           long long ngrid, long long path0, long long step, void *out,
                           int nthreads);

struct sdk_bctx {
  sdk_backend_opts o;
  char cc[512];
  char cflags[2048];
  char cpu_id[256];
  sdk_cache_place cache;
};

struct sdk_module {
  void *dl;
  init_fn init;
  advance_fn advance;
  advance_sys_fn advance_sys; /* system driver (interacting particles) */
  int sys_nred;               /* its sums per chunk (sdk_sys_nred) */
  observe_fn observe;         /* user observables (codegen/observe_paths.c), or NULL */
  int rows; /* rows of the state: sdk_state_rows (codegen.h: carried rows of the compensated
             * update, boundary rows, time averages), 0 when only the variables */
  sdk_cpu_parallel_fn parallel; /* the module's OpenMP team (cpu_reduce.h) */
};

struct sdk_ensemble {
  sdk_bctx *ctx;
  sdk_module *mod;
  sdk_layout lay;
  int64_t npad;
  size_t esize; /* bytes per real */
  void *st;     /* nvars * npad reals */
  void *sv;     /* ngrid * nsv reals */
  void *mark;   /* npad reals */
  void *obs;    /* user observables: nobs * npad reals, allocated on first use */
  int nobs;
  int64_t *xbytes; /* systems spanning MPI ranks: each rank's chunk sums, bytes (first use) */
};

/* Identify the CPU so a cache shared between machines never serves code
 * built with -march=native for another processor. */
static void cpu_identity(char *out, size_t n) {
  snprintf(out, n, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[4096], model[256] = "", flags_hash[33] = "";
  while (fgets(line, sizeof line, f)) {
    if (!model[0] && !strncmp(line, "model name", 10)) snprintf(model, sizeof model, "%s", line);
    if (!flags_hash[0] && !strncmp(line, "flags", 5)) sdk_hash_hex(line, strlen(line), flags_hash);
  }
  fclose(f);
  model[strcspn(model, "\n")] = 0;
  snprintf(out, n, "%s|%s", model, flags_hash);
}

static sdk_err cpu_open(const sdk_backend_opts *o, sdk_bctx **out, sdk_errbuf *eb) {
  sdk_bctx *c = calloc(1, sizeof *c);
  if (!c) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  c->o = *o;
  /* the CLI's default is clang where it is on PATH (backend.h) */
  const char *cc = o->env.cc && *o->env.cc ? o->env.cc : "cc";
  int clang = strstr(cc, "clang") != NULL;
  snprintf(c->cc, sizeof c->cc, "%s", cc);
  const char *flags = o->env.cflags, *extra = o->env.cflags_extra;
  if (flags && *flags) {
    snprintf(c->cflags, sizeof c->cflags, "%s", flags);
  } else {
    /* clang vectorises libm calls through glibc's libmvec; gcc 12 does not */
    snprintf(c->cflags, sizeof c->cflags,
             "-std=gnu11 -O3 -march=native %s -fopenmp -fPIC -shared%s %s",
             o->fast_math ? "-ffast-math -fno-finite-math-only" : "-ffp-contract=off",
             clang && o->fast_math ? " -fveclib=libmvec" : "", extra ? extra : "");
  }
  sdk_cache_place_init(&c->cache, o->env.cache_dir, o->env.tmp_dir);
  cpu_identity(c->cpu_id, sizeof c->cpu_id);
  *out = c;
  return SDK_OK;
}

static void cpu_close(sdk_bctx **c) {
  if (!c || !*c) return;
  sdk_cache_place_close(&(*c)->cache);
  free(*c);
  *c = NULL;
}

static void cpu_describe(sdk_bctx *c, char *buf, size_t n) {
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  int th = c->o.threads > 0 ? c->o.threads : (int)ncpu;
  snprintf(buf, n, "cpu: %ld cores, %d threads, %s", ncpu, th, c->cc);
}

/* Turn the compiler's first error into one line, pointing at the model
 * file when the error is inside a user expression (#line directives).  The
 * compiler saw the source in the build directory (build_src); the message
 * names the copy kept in the cache (src_path) and sets *named when it does. */
static sdk_err compile_error(const char *log, const char *model_path, const char *build_src,
                             const char *src_path, int *named, sdk_errbuf *eb) {
  const char *l = log;
  size_t nb = strlen(build_src);
  while (l && *l) {
    const char *e = strchr(l, '\n');
    size_t n = e ? (size_t)(e - l) : strlen(l);
    const char *err = memmem(l, n, ": error:", 8);
    if (err) {
      char line[1024];
      if (n >= nb && !strncmp(l, build_src, nb))
        snprintf(line, sizeof line, "%s%.*s", src_path, (int)(n - nb < 900 ? n - nb : 900), l + nb);
      else
        snprintf(line, sizeof line, "%.*s", (int)(n < 1000 ? n : 1000), l);
      if (model_path && *model_path && !strncmp(l, model_path, strlen(model_path)))
        return SDK_FAIL(eb, SDK_ERR_COMPILE, "expression does not compile: %s", line);
      *named = 1;
      return SDK_FAIL(eb, SDK_ERR_COMPILE, "generated code did not compile (source kept in %s): %s",
                      src_path, line);
    }
    l = e ? e + 1 : NULL;
  }
  *named = 1;
  return SDK_FAIL(eb, SDK_ERR_COMPILE, "C compiler failed (source kept in %s): %.300s", src_path,
                  log && *log ? log : "no output");
}

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

static void cpu_module_free(sdk_module **m);

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
    e = compile_error(log, model_path, bsrc, csrc, &named, eb);
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
    cpu_module_free(&m);
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

static sdk_err cpu_compile(sdk_bctx *c, const char *src, const char *ident, const char *model_path,
                           sdk_module **out, char *report, size_t nreport, sdk_errbuf *eb) {
  *out = NULL;
  char idbuf[33]; /* the identity (codegen/identity.h) where none is given: tests */
  if (!ident) SDK_CHECK(sdk_cg_identity(src, idbuf, eb));
  ident = ident ? ident : idbuf;
  const sdk_cache_dir *d = NULL;
  SDK_CHECK(sdk_cache_place_dir(&c->cache, &d, eb));
  sdk_strbuf key;
  sdk_sb_init(&key);
  sdk_sb_printf(&key, "sdekit %s abi %d\n%s\n%s\n%s\nsource %s\n", SDK_VERSION, SDK_KERNEL_ABI,
                c->cc, c->cflags, c->cpu_id, ident);
  sdk_sb_puts(&key, sdk_cpu_parallel_source);
  if (key.oom) {
    sdk_sb_free(&key);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  char hash[33];
  sdk_hash_hex(key.s, key.len, hash);
  sdk_sb_free(&key);
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
  *out = m;
  return SDK_OK;
}

static void cpu_module_free(sdk_module **m) {
  if (!m || !*m) return;
  if ((*m)->dl) dlclose((*m)->dl);
  free(*m);
  *m = NULL;
}

static void cpu_free(sdk_ensemble **e) {
  if (!e || !*e) return;
  free((*e)->st);
  free((*e)->sv);
  free((*e)->mark);
  free((*e)->obs);
  free((*e)->xbytes);
  free(*e);
  *e = NULL;
}

static sdk_err cpu_alloc(sdk_bctx *c, sdk_module *mod, const sdk_layout *lay, sdk_ensemble **out,
                         sdk_errbuf *eb) {
  *out = NULL;
  sdk_ensemble *e = calloc(1, sizeof *e);
  if (!e) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  e->ctx = c;
  e->mod = mod;
  e->lay = *lay;
  e->lay.sv = NULL;
  e->esize = lay->single ? sizeof(float) : sizeof(double);
  e->npad = sdk_padded_paths(sdk_layout_npaths(lay));
  if (mod->rows && mod->rows <= lay->nvars) {
    free(e);
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "cpu: module has %d state rows for %d variables",
                    mod->rows, lay->nvars);
  }
  size_t bytes = (size_t)(mod->rows ? mod->rows : lay->nvars) * (size_t)e->npad * e->esize;
  e->st = aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (e->st && lay->zero) memset(e->st, 0, bytes);
  size_t nsv = (size_t)(lay->nsv > 0 ? lay->nsv : 1) * (size_t)lay->ngrid;
  e->sv = calloc(nsv, e->esize);
  if (!e->st || !e->sv) {
    cpu_free(&e);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for %lld paths x %d variables",
                    (long long)(lay->ngrid * lay->ppg), lay->nvars);
  }
  for (int64_t i = 0; i < lay->ngrid * lay->nsv; i++) {
    if (lay->single)
      ((float *)e->sv)[i] = (float)lay->sv[i];
    else
      ((double *)e->sv)[i] = lay->sv[i];
  }
  *out = e;
  return SDK_OK;
}

static sdk_err cpu_init(sdk_ensemble *e, uint64_t seed, sdk_errbuf *eb) {
  e->mod->init(e->st, e->npad, e->sv, e->lay.ppg, e->lay.ngrid, e->lay.path0, seed,
               e->ctx->o.threads);
  return SDK_OK;
}

static sdk_err cpu_advance(sdk_ensemble *e, int64_t step0, int64_t nsteps, uint64_t seed,
                           sdk_errbuf *eb) {
  if (!e->mod->advance)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL,
                    "this module integrates systems of particles (advance_sys)");
  e->mod->advance(e->st, e->npad, e->sv, e->lay.ppg, e->lay.ngrid, e->lay.path0, step0, nsteps,
                  seed, e->ctx->o.threads);
  return SDK_OK;
}

static inline double get(const sdk_ensemble *e, const void *base, int64_t i) {
  return e->esize == sizeof(float) ? (double)((const float *)base)[i] : ((const double *)base)[i];
}

static sdk_err cpu_mark(sdk_ensemble *e, int var, sdk_errbuf *eb) {
  if (!e->mark) {
    e->mark = malloc((size_t)e->npad * e->esize);
    if (!e->mark) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  memcpy(e->mark, (char *)e->st + (size_t)var * (size_t)e->npad * e->esize,
         (size_t)e->npad * e->esize);
  return SDK_OK;
}

/* variable v, or user observable v - nvars as last evaluated (backend.h) */
static const void *row_of(const sdk_ensemble *e, int v) {
  if (v >= e->lay.nvars)
    return (const char *)e->obs + (size_t)(v - e->lay.nvars) * (size_t)e->npad * e->esize;
  return (const char *)e->st + (size_t)v * (size_t)e->npad * e->esize;
}

/* Moments per fold unit of the shard's chunks (cpu_reduce.h, then
 * sdk_fold_units): rows of nrows values from base (minus mark, times scale,
 * when sub). */
static sdk_err reduce(const sdk_ensemble *e, const void *base, int nrows, const void *sub,
                      double scale, sdk_moments *out, int64_t *nonfinite, sdk_errbuf *eb) {
  sdk_span sp = sdk_layout_span(&e->lay);
  size_t nk = (size_t)(sp.c1 - sp.c0) * (size_t)nrows;
  int64_t nu = sdk_span_units(&sp, NULL);
  sdk_moments *chunk = malloc((nk ? nk : 1) * sizeof *chunk);
  int64_t *nfc = nonfinite ? malloc((nk ? nk : 1) * sizeof *nfc) : NULL;
  sdk_unit *u = malloc((size_t)(nu ? nu : 1) * sizeof *u);
  if (!chunk || !u || (nonfinite && !nfc)) {
    free(chunk), free(nfc), free(u);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the reductions");
  }
  sdk_cpu_reduce r = {.single = e->esize == sizeof(float),
                      .rows = base,
                      .row_stride = e->npad,
                      .nrows = nrows,
                      .sub = sub,
                      .scale = scale,
                      .ppg = e->lay.ppg,
                      .path0 = e->lay.path0,
                      .nch = sp.nch,
                      .c0 = sp.c0,
                      .c1 = sp.c1,
                      .out = chunk,
                      .nonfinite = nfc,
                      .threads = e->ctx->o.threads,
                      .parallel = e->mod->parallel};
  sdk_cpu_reduce_moments(&r);
  sdk_span_units(&sp, u);
  sdk_fold_units(u, nu, nrows, chunk, nfc, out, nonfinite);
  free(chunk), free(nfc), free(u);
  return SDK_OK;
}

static sdk_err cpu_moments(sdk_ensemble *e, sdk_moments *out, int64_t *nonfinite, sdk_errbuf *eb) {
  return reduce(e, e->st, e->lay.nvars, NULL, 1, out, nonfinite, eb);
}

/* The module evaluates the expressions into rows of reals, which the
 * moments reduction then reduces like variables. */
static sdk_err cpu_eval_observe(sdk_ensemble *e, int64_t step, int nobs, sdk_errbuf *eb) {
  if (!e->mod->observe)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "this module has no user observables");
  if (!e->obs || e->nobs != nobs) {
    free(e->obs);
    e->nobs = 0;
    e->obs = malloc((size_t)nobs * (size_t)e->npad * e->esize);
    if (!e->obs) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the user observables");
    e->nobs = nobs;
  }
  e->mod->observe(e->st, e->npad, e->sv, e->lay.ppg, e->lay.ngrid, e->lay.path0, step, e->obs,
                  e->ctx->o.threads);
  return SDK_OK;
}

static sdk_err cpu_nonfinite(sdk_ensemble *e, int64_t *count, sdk_errbuf *eb);

static sdk_err cpu_observe(sdk_ensemble *e, int64_t step, int nobs, sdk_moments *out,
                           int64_t *nonfinite, int64_t *state_nonfinite, sdk_errbuf *eb) {
  if (state_nonfinite) SDK_CHECK(cpu_nonfinite(e, state_nonfinite, eb));
  SDK_CHECK(cpu_eval_observe(e, step, nobs, eb));
  return reduce(e, e->obs, nobs, NULL, 1, out, nonfinite, eb);
}

static sdk_err cpu_displacement(sdk_ensemble *e, int var, double scale, sdk_moments *out,
                                sdk_errbuf *eb) {
  if (!e->mark) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "displacement before mark");
  return reduce(e, row_of(e, var), 1, e->mark, scale, out, NULL, eb);
}

/* a user observable must have been evaluated */
static sdk_err check_row(const sdk_ensemble *e, int var, sdk_errbuf *eb) {
  if (var < 0 || (var >= e->lay.nvars && (!e->obs || var - e->lay.nvars >= e->nobs)))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "no row %d to reduce", var);
  return SDK_OK;
}

static sdk_err cpu_nonfinite(sdk_ensemble *e, int64_t *count, sdk_errbuf *eb) {
  (void)eb;
  sdk_span sp = sdk_layout_span(&e->lay);
  for (int64_t g = sp.g0; g < sp.g1; g++) {
    int64_t i0, i1;
    sdk_layout_grid_paths(&e->lay, g, &i0, &i1);
    for (int v = 0; v < e->lay.nvars; v++) {
      const void *base = row_of(e, v);
      int64_t bad = 0;
      for (int64_t i = i0; i < i1; i++)
        bad += !isfinite(get(e, base, i));
      count[(g - sp.g0) * e->lay.nvars + v] = bad;
    }
  }
  return SDK_OK;
}

static sdk_err cpu_minmax(sdk_ensemble *e, int var, double *lo, double *hi, sdk_errbuf *eb) {
  SDK_CHECK(check_row(e, var, eb));
  const void *base = row_of(e, var);
  sdk_span sp = sdk_layout_span(&e->lay);
  for (int64_t g = sp.g0; g < sp.g1; g++) {
    int64_t i0, i1;
    sdk_layout_grid_paths(&e->lay, g, &i0, &i1);
    double a = INFINITY, b = -INFINITY;
    for (int64_t i = i0; i < i1; i++) {
      double x = get(e, base, i);
      if (x < a) a = x;
      if (x > b) b = x;
    }
    lo[g - sp.g0] = a;
    hi[g - sp.g0] = b;
  }
  return SDK_OK;
}

static sdk_err cpu_histogram(sdk_ensemble *e, int var, int64_t bins, const double *lo,
                             const double *hi, uint64_t *counts, uint64_t *under, uint64_t *over,
                             sdk_errbuf *eb) {
  SDK_CHECK(check_row(e, var, eb));
  const void *base = row_of(e, var);
  sdk_span sp = sdk_layout_span(&e->lay);
  for (int64_t g = sp.g0; g < sp.g1; g++) {
    int64_t j = g - sp.g0, i0, i1;
    sdk_layout_grid_paths(&e->lay, g, &i0, &i1);
    uint64_t *c = counts + j * bins;
    memset(c, 0, (size_t)bins * sizeof *c);
    under[j] = over[j] = 0;
    double w = (hi[j] - lo[j]) / (double)bins;
    for (int64_t i = i0; i < i1; i++) {
      double x = get(e, base, i);
      if (x < lo[j])
        under[j]++;
      else if (x > hi[j])
        over[j]++;
      else {
        int64_t b = w > 0 ? (int64_t)((x - lo[j]) / w) : 0;
        if (b >= bins) b = bins - 1; /* x == hi belongs to the last bin */
        c[b]++;
      }
    }
  }
  return SDK_OK;
}

static sdk_err cpu_read_state(sdk_ensemble *e, int64_t first, int64_t n, double *out,
                              sdk_errbuf *eb) {
  for (int v = 0; v < e->lay.nvars; v++) {
    const void *base = (const char *)e->st + (size_t)v * (size_t)e->npad * e->esize;
    for (int64_t i = 0; i < n; i++)
      out[v * n + i] = get(e, base, first + i);
  }
  return SDK_OK;
}

static int cpu_carried_rows(const sdk_ensemble *e) {
  return e->mod->rows ? e->mod->rows - e->lay.nvars : 0;
}

static sdk_err cpu_rows(sdk_ensemble *e, int row, int64_t first, int64_t n, double *buf, int write,
                        sdk_errbuf *eb) {
  void *base;
  if (row < 0) { /* user observable -1 - row as eval_observe left it (backend.h) */
    if (write || !e->obs || -1 - row >= e->nobs)
      return SDK_FAIL(eb, SDK_ERR_INTERNAL, "no user observable row %d", -1 - row);
    base = (char *)e->obs + (size_t)(-1 - row) * (size_t)e->npad * e->esize;
  } else if (row < e->lay.nvars) {
    base = (char *)e->st + (size_t)row * (size_t)e->npad * e->esize;
  } else if (row > e->lay.nvars) { /* carried rows: compensated update, boundaries,
                                    * accumulators */
    if (!e->mod->rows || row - 1 >= e->mod->rows)
      return SDK_FAIL(eb, SDK_ERR_INTERNAL, "no state row %d", row);
    base = (char *)e->st + (size_t)(row - 1) * (size_t)e->npad * e->esize;
  } else {
    if (!e->mark) {
      if (!write) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "no drift mark to read");
      e->mark = calloc((size_t)e->npad, e->esize);
      if (!e->mark) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    }
    base = e->mark;
  }
  for (int64_t i = 0; i < n; i++) {
    if (e->esize == sizeof(float)) {
      if (write)
        ((float *)base)[first + i] = (float)buf[i];
      else
        buf[i] = ((float *)base)[first + i];
    } else {
      if (write)
        ((double *)base)[first + i] = buf[i];
      else
        buf[i] = ((double *)base)[first + i];
    }
  }
  return SDK_OK;
}

/* The zeros of a row per grid point held (backend.h), read where they lie. */
static sdk_err cpu_count_zero(sdk_ensemble *e, int row, int64_t *count, sdk_errbuf *eb) {
  if (row < 0 || row == e->lay.nvars ||
      (row > e->lay.nvars && (!e->mod->rows || row - 1 >= e->mod->rows)))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "count_zero: no state row %d", row);
  size_t at = (size_t)(row > e->lay.nvars ? row - 1 : row) * (size_t)e->npad;
  sdk_span sp = sdk_layout_span(&e->lay);
  int64_t n = sdk_layout_npaths(&e->lay), path0 = e->lay.path0, ppg = e->lay.ppg;
  memset(count, 0, (size_t)(sp.g1 - sp.g0) * sizeof *count);
  for (int64_t q = 0; q < n; q++) {
    double x = e->esize == sizeof(float) ? ((const float *)e->st)[at + (size_t)q]
                                         : ((const double *)e->st)[at + (size_t)q];
    if (x == 0) count[(path0 + q) / ppg - sp.g0]++;
  }
  return SDK_OK;
}

/* Systems spanning MPI ranks: the chunk sums of every other rank into part
 * (each rank's chunks are consecutive, ranks in order: backend.h, xchunks). */
static int cpu_xchg(void *user, double *part) {
  const sdk_ensemble *e = user;
  return sdk_comm_allgatherv(e->lay.comm, part, e->xbytes, NULL) != SDK_OK;
}

static sdk_err cpu_advance_sys(sdk_ensemble *e, int64_t step0, int64_t nsteps, uint64_t seed,
                               int64_t obs_every, double *obs, sdk_errbuf *eb) {
  int span = sdk_comm_size(e->lay.comm) > 1 && e->lay.xchunks;
  if (!e->mod->advance_sys || e->lay.particles < 1 || (e->lay.path0 != 0 && !span) ||
      e->lay.ppg % e->lay.particles)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL,
                    "advance_sys: not a module or layout of particle systems");
  int64_t first;
  if (span && !e->xbytes &&
      !(e->xbytes =
            sdk_layout_rank_bytes(&e->lay, e->mod->sys_nred * (int64_t)sizeof(double), &first)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  if (e->mod->advance_sys(e->st, e->npad, e->sv, e->lay.ppg, e->lay.ngrid, e->lay.path0, step0,
                          nsteps, seed, e->ctx->o.threads, e->lay.particles, obs_every, obs,
                          sdk_layout_npaths(&e->lay), span ? cpu_xchg : NULL, e))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for %lld particles", (long long)e->npad);
  return SDK_OK;
}

static int64_t cpu_sys_unit(sdk_bctx *ctx, sdk_module *mod, int64_t particles) {
  (void)ctx, (void)particles;
  return mod->advance_sys ? SDK_CPU_BLOCK : 0;
}

static sdk_err cpu_histogram_mod(sdk_ensemble *e, int var, int64_t bins, double period,
                                 uint64_t *counts, sdk_errbuf *eb) {
  const void *base = row_of(e, var);
  sdk_span sp = sdk_layout_span(&e->lay);
  for (int64_t g = sp.g0; g < sp.g1; g++) {
    int64_t i0, i1;
    sdk_layout_grid_paths(&e->lay, g, &i0, &i1);
    uint64_t *c = counts + (g - sp.g0) * bins;
    memset(c, 0, (size_t)bins * sizeof *c);
    for (int64_t i = i0; i < i1; i++) {
      double x = get(e, base, i);
      if (!isfinite(x)) continue;
      double u = x / period;
      u -= floor(u); /* in [0, 1], 1 only by rounding */
      int64_t b = (int64_t)(u * (double)bins);
      if (b >= bins) b = bins - 1;
      if (b < 0) b = 0;
      c[b]++;
    }
  }
  return SDK_OK;
}

const sdk_backend sdk_backend_cpu = {
    .advance_sys = cpu_advance_sys,
    .sys_unit = cpu_sys_unit,
    .histogram_mod = cpu_histogram_mod,
    .rows = cpu_rows,
    .count_zero = cpu_count_zero,
    .carried_rows = cpu_carried_rows,
    .name = "cpu",
    .description = "CPU cores: kernels compiled by the system C compiler, OpenMP threads",
    .target = SDK_TARGET_CPU,
    .auto_rank = 1,
    .bench_paths = 65536,
    .open = cpu_open,
    .close = cpu_close,
    .describe = cpu_describe,
    .compile = cpu_compile,
    .module_free = cpu_module_free,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .observe = cpu_observe,
    .nonfinite = cpu_nonfinite,
    .eval_observe = cpu_eval_observe,
    .init = cpu_init,
    .advance = cpu_advance,
    .mark = cpu_mark,
    .moments = cpu_moments,
    .displacement = cpu_displacement,
    .minmax = cpu_minmax,
    .histogram = cpu_histogram,
    .read_state = cpu_read_state,
};
