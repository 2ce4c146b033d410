/* The kernel cache (rules in cache.h). */
#include "backend/cache.h"

#include "core/atomicfile.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"

enum { DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC };

/* Six characters of a new name nobody can guess in advance (a name made
 * first by someone else only costs a retry: O_EXCL, mkdirat). */
static void random6(char out[7]) {
  static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  unsigned char r[6];
  if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long long x = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 32) ^
                           (unsigned long long)(uintptr_t)out;
    for (int i = 0; i < 6; i++) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      r[i] = (unsigned char)(x >> 33);
    }
  }
  for (int i = 0; i < 6; i++)
    out[i] = abc[r[i] % 62];
  out[6] = 0;
}

/* A directory stream of dfd with its own offset (fdopendir of dfd itself
 * would take it over; of a dup, share its offset). */
static DIR *open_stream(int dfd, int *sfd) {
  *sfd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = *sfd >= 0 ? fdopendir(*sfd) : NULL;
  if (!d && *sfd >= 0) close(*sfd);
  return d;
}

/* Split a directory name into its parent and last component, dropping
 * trailing "/" and "/." first: "link/" and "link/." name the link itself,
 * which the kernel would otherwise follow.  -1 when the last is "..". */
static int split_last(const char *path, char *parent, size_t np, char *last, size_t nl) {
  size_t n = strlen(path);
  for (;;) {
    while (n > 1 && path[n - 1] == '/')
      n--;
    if (n >= 2 && path[n - 1] == '.' && path[n - 2] == '/')
      n = n > 2 ? n - 2 : 1; /* "/." is "/" */
    else
      break;
  }
  size_t i = n;
  while (i > 0 && path[i - 1] != '/')
    i--;
  if (i == 0)
    snprintf(parent, np, ".");
  else
    snprintf(parent, np, "%.*s", (int)(i > 1 ? i - 1 : 1), path);
  snprintf(last, nl, "%.*s", (int)(n - i), path + i);
  if (!last[0]) snprintf(last, nl, ".");
  return strcmp(last, "..") ? 0 : -1;
}

/* Every parent of the opened directory fd (whose real path is `real`), up
 * to the root: owned by root or us, and writable by no one else unless
 * sticky (where others cannot rename what is not theirs).  Otherwise
 * another user could rename the cache, or a parent, under our feet. */
static sdk_err check_parents(int fd, const char *path, const char *real, sdk_errbuf *eb) {
  char up[4096];
  snprintf(up, sizeof up, "%s", real);
  struct stat cur;
  if (fstat(fd, &cur) != 0)
    return SDK_FAIL(eb, SDK_ERR_IO, "cache directory '%s': %s", path, strerror(errno));
  int cfd = fd;
  sdk_err e = SDK_OK;
  for (int depth = 0; depth < 2048; depth++) {
    int pfd = openat(cfd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (cfd != fd) close(cfd);
    cfd = pfd;
    struct stat st;
    if (pfd < 0 || fstat(pfd, &st) != 0) {
      e = SDK_FAIL(eb, SDK_ERR_IO, "cannot check the parents of cache directory '%s': %s", path,
                   strerror(errno));
      break;
    }
    if (st.st_dev == cur.st_dev && st.st_ino == cur.st_ino) break; /* the root */
    char *s = strrchr(up, '/');
    if (s) s[s == up ? 1 : 0] = 0;
    if (st.st_uid != 0 && st.st_uid != geteuid()) {
      e = SDK_FAIL(eb, SDK_ERR_IO,
                   "cache directory '%s': its parent '%s' is owned by uid %ld, who could replace "
                   "the cache (refused: use a directory under folders only you and root own)",
                   path, up, (long)st.st_uid);
      break;
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
      e = SDK_FAIL(eb, SDK_ERR_IO,
                   "cache directory '%s': its parent '%s' is writable by %s without the sticky "
                   "bit (mode %04o), so another user could replace the cache (refused: use a "
                   "directory under folders only you can write)",
                   path, up, (st.st_mode & S_IWOTH) ? "others" : "its group",
                   (unsigned)(st.st_mode & 07777));
      break;
    }
    cur = st;
  }
  if (cfd != fd && cfd >= 0) close(cfd);
  return e;
}

/* The checks of an opened cache directory (cache.h); sets d->real. */
static sdk_err check_opened(int fd, sdk_cache_dir *d, sdk_errbuf *eb) {
  const char *dir = d->path;
  struct stat st;
  if (fstat(fd, &st) != 0)
    return SDK_FAIL(eb, SDK_ERR_IO, "cache directory '%s': %s", dir, strerror(errno));
  if (st.st_uid != geteuid())
    return SDK_FAIL(eb, SDK_ERR_IO,
                    "cache directory '%s' is owned by uid %ld, not by this user (uid %ld): refused",
                    dir, (long)st.st_uid, (long)geteuid());
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return SDK_FAIL(eb, SDK_ERR_IO,
                    "cache directory '%s' is writable by %s (mode %03o): refused (chmod 700 it)",
                    dir, (st.st_mode & S_IWOTH) ? "others" : "its group",
                    (unsigned)(st.st_mode & 0777));
  if (st.st_nlink == 0) return SDK_FAIL(eb, SDK_ERR_IO, "cache directory '%s' was removed", dir);
  /* where the descriptor is: no link on the way, for the compiler's paths */
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(proc, d->real, sizeof d->real - 1);
  if (n <= 0 || n >= (ssize_t)sizeof d->real - 1 || d->real[0] != '/')
    return SDK_FAIL(eb, SDK_ERR_IO, "cache directory '%s': cannot find its real path (%s): %s", dir,
                    proc, n < 0 ? strerror(errno) : "too long or not absolute");
  d->real[n] = 0;
  return check_parents(fd, dir, d->real, eb);
}

sdk_err sdk_cache_open_dir(const char *path, sdk_cache_dir *d, sdk_errbuf *eb) {
  d->fd = -1;
  d->real[0] = 0;
  if (snprintf(d->path, sizeof d->path, "%s", path) >= (int)sizeof d->path)
    return SDK_FAIL(eb, SDK_ERR_IO, "cache directory name too long");
  char parent[4096], last[4096];
  if (split_last(path, parent, sizeof parent, last, sizeof last) != 0)
    return SDK_FAIL(eb, SDK_ERR_IO,
                    "cache directory '%s' ends in '..': refused (name the directory itself)", path);
  int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int fd = pfd >= 0 ? openat(pfd, last, DIR_FLAGS) : -1;
  if (fd < 0) {
    int err = errno;
    struct stat st;
    int kind = pfd >= 0 && fstatat(pfd, last, &st, AT_SYMLINK_NOFOLLOW) == 0
                   ? (S_ISLNK(st.st_mode)   ? 1
                      : S_ISDIR(st.st_mode) ? 0
                                            : 2)
                   : 0;
    if (pfd >= 0) close(pfd);
    if (kind == 1)
      return SDK_FAIL(eb, SDK_ERR_IO,
                      "cache directory '%s' is a symbolic link (refused: name the real directory)",
                      path);
    if (kind == 2) return SDK_FAIL(eb, SDK_ERR_IO, "cache directory '%s' is not a directory", path);
    return SDK_FAIL(eb, SDK_ERR_IO, "cache directory '%s': %s", path, strerror(err));
  }
  close(pfd);
  sdk_err e = check_opened(fd, d, eb);
  if (e != SDK_OK) {
    close(fd);
    return e;
  }
  d->fd = fd;
  return SDK_OK;
}

void sdk_cache_close_dir(sdk_cache_dir *d) {
  if (d && d->fd >= 0) close(d->fd);
  if (d) d->fd = -1;
}

/* mkdir -p with mode 0700 for what it creates; existing parents are left as
 * they are (sdk_cache_open_dir then checks them all). */
static int mkdir_p(const char *path) {
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
    errno = ENAMETOOLONG;
    return -1;
  }
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(tmp, 0700) != 0 && errno != EEXIST) return -1;
      *p = '/';
    }
  if (mkdir(tmp, 0700) != 0 && errno != EEXIST) return -1;
  return 0;
}

void sdk_cache_place_init(sdk_cache_place *p, const char *dir, const char *tmp_dir) {
  memset(p, 0, sizeof *p);
  p->dir.fd = -1;
  if (dir && *dir && snprintf(p->named, sizeof p->named, "%s", dir) >= (int)sizeof p->named)
    p->too_long = 1;
  /* a relative TMPDIR is ignored, as by mkdtemp's users everywhere */
  if (!tmp_dir || *tmp_dir != '/') tmp_dir = "/tmp";
  snprintf(p->tmp, sizeof p->tmp, "%s", tmp_dir); /* too long: make_private fails */
}

/* No persistent cache: a directory of this backend only, never a fixed name
 * another user could create first. */
static sdk_err make_private(sdk_cache_place *p, sdk_errbuf *eb) {
  char tmpl[4096];
  if (snprintf(tmpl, sizeof tmpl, "%s/sdekit-run-XXXXXX", p->tmp) >= (int)sizeof tmpl ||
      !mkdtemp(tmpl))
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot create a private kernel cache in '%s': %s", p->tmp,
                    strerror(errno));
  snprintf(p->priv, sizeof p->priv, "%s", tmpl);
  return SDK_OK;
}

sdk_err sdk_cache_place_dir(sdk_cache_place *p, const sdk_cache_dir **out, sdk_errbuf *eb) {
  *out = &p->dir;
  if (p->dir.fd >= 0) return SDK_OK;
  if (p->too_long) return SDK_FAIL(eb, SDK_ERR_IO, "cache directory name too long");
  if (p->named[0]) {
    if (mkdir_p(p->named) != 0)
      return SDK_FAIL(eb, SDK_ERR_IO, "cannot create cache directory '%s': %s", p->named,
                      strerror(errno));
    return sdk_cache_open_dir(p->named, &p->dir, eb);
  }
  if (!p->priv[0]) SDK_CHECK(make_private(p, eb));
  return sdk_cache_open_dir(p->priv, &p->dir, eb);
}

int sdk_cache_place_private(const sdk_cache_place *p) {
  return !p->named[0];
}

void sdk_cache_place_keep_sources(sdk_cache_place *p) {
  p->keep_src = 1;
}

sdk_err sdk_cache_check_dir(const char *dir, sdk_errbuf *eb) {
  sdk_cache_dir d;
  SDK_CHECK(sdk_cache_open_dir(dir, &d, eb));
  sdk_cache_close_dir(&d);
  return SDK_OK;
}

static int is_source(const char *name) {
  size_t n = strlen(name);
  return (n > 2 && !strcmp(name + n - 2, ".c")) || (n > 3 && !strcmp(name + n - 3, ".cu"));
}

/* Remove directory `name` of dfd with the plain files in it (links are
 * removed, never followed; a subdirectory stays, and so does it). */
static int rm_sub(int dfd, const char *name) {
  int sfd = openat(dfd, name, DIR_FLAGS);
  DIR *s = sfd >= 0 ? fdopendir(sfd) : NULL;
  if (!s && sfd >= 0) close(sfd);
  struct dirent *de;
  while (s && (de = readdir(s)))
    if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) unlinkat(sfd, de->d_name, 0);
  if (s) closedir(s);
  return unlinkat(dfd, name, AT_REMOVEDIR);
}

void sdk_cache_place_close(sdk_cache_place *p) {
  if (!p) return;
  if (p->priv[0]) {
    int sfd;
    DIR *d = p->dir.fd >= 0 ? open_stream(p->dir.fd, &sfd) : NULL;
    struct dirent *de;
    while (d && (de = readdir(d))) {
      if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
      if (p->keep_src && is_source(de->d_name)) continue;
      if (unlinkat(p->dir.fd, de->d_name, 0) != 0 && errno == EISDIR) rm_sub(p->dir.fd, de->d_name);
    }
    if (d) closedir(d);
    rmdir(p->priv); /* stays when sources were kept */
    p->priv[0] = 0;
  }
  sdk_cache_close_dir(&p->dir);
}

int sdk_cache_open_file(int dfd, const char *name) {
  int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
      (st.st_mode & (S_IWGRP | S_IWOTH)) || st.st_size > SDK_CACHE_FILE_MAX) {
    close(fd);
    errno = EPERM;
    return -1;
  }
  return fd;
}

char *sdk_cache_read_fd(int fd, size_t *len) {
  struct stat st;
  if (fstat(fd, &st) != 0) return NULL;
  if (!S_ISREG(st.st_mode) || st.st_size > SDK_CACHE_FILE_MAX) {
    errno = EPERM;
    return NULL;
  }
  size_t n = (size_t)st.st_size, got = 0;
  char *buf = malloc(n + 1);
  if (!buf) return NULL;
  while (got < n) {
    ssize_t r = pread(fd, buf + got, n - got, (off_t)got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      int e = r == 0 ? EIO : errno; /* shrank while reading */
      free(buf);
      errno = e;
      return NULL;
    }
    got += (size_t)r;
  }
  buf[n] = 0;
  futimens(fd, NULL); /* recently used: the cap prunes others first */
  if (len) *len = n;
  return buf;
}

char *sdk_cache_read(int dfd, const char *name, size_t *len) {
  int fd = sdk_cache_open_file(dfd, name);
  if (fd < 0) return NULL;
  char *buf = sdk_cache_read_fd(fd, len);
  int e = errno;
  close(fd);
  errno = e;
  return buf;
}

static int write_all(int fd, const void *data, size_t n) {
  const char *s = data;
  while (n) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = ENOSPC;
      return -1;
    }
    s += w;
    n -= (size_t)w;
  }
  return 0;
}

int sdk_cache_write(int dfd, const char *name, const void *data, size_t len) {
  /* rebuildable data: no fsync; the temporary's name is one
   * sdk_atomic_tmp_suffix knows, so a killed run's leftover is ours */
  char tmp[512];
  int fd = -1;
  for (int i = 0; i < 100 && fd < 0; i++) {
    char r[7];
    random6(r);
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%s", name, r) >= (int)sizeof tmp) {
      errno = ENAMETOOLONG;
      return -1;
    }
    fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) return -1;
  }
  if (fd < 0) return -1;
  int ok = write_all(fd, data, len) == 0, e = errno;
  if (close(fd) != 0 && ok) ok = 0, e = errno;
  if (ok && renameat(dfd, tmp, dfd, name) == 0) return 0;
  if (ok) e = errno;
  unlinkat(dfd, tmp, 0);
  errno = e;
  return -1;
}

/* 32 random bits (a clock and the process where the kernel gives none) */
static unsigned rand32(unsigned salt) {
  unsigned r;
  if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r) return r;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  unsigned long long x = ((unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 32)) +
                         salt * 0x9E3779B97F4A7C15ULL;
  x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(x >> 32);
}

void *sdk_cache_dlopen(int fd, int flags) {
  /* The loader answers a name it has seen with the object it loaded then,
   * and /proc/self/fd/N names whatever N holds now: find a name of N that no
   * object has.  The probe holds a directory, which no object can be, so
   * that an answer means the name was taken (never "this file is loaded").
   * Every load leaves its name taken, and the descriptor numbers end at the
   * process's limit (often 1024): the names are /proc/self/fd/./N with 0 to
   * 63 "./", N and the count random, so a process may load tens of
   * thousands of modules, and a free name is found at the first or second
   * try (from N = 0 up, a thousandth load asked for each of the 999 names
   * before it, and about the 1020th found none). */
  int probe = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = -1;
  struct rlimit rl;
  unsigned span =
      getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 4096
          ? (unsigned)rl.rlim_cur
          : 4096u;
  char name[224];
  for (unsigned t = 0; probe >= 0 && t < 4096; t++) {
    const unsigned r = rand32(t);
    n = span > 3 ? fcntl(probe, F_DUPFD_CLOEXEC, (int)(3 + (r & 0xffff) % (span - 3))) : -1;
    if (n < 0) n = fcntl(probe, F_DUPFD_CLOEXEC, 0); /* (none free above that) */
    if (n < 0) break;
    int w = snprintf(name, sizeof name, "/proc/self/fd/");
    for (unsigned k = (r >> 16) % 64; k > 0; k--)
      w += snprintf(name + w, sizeof name - (size_t)w, "./");
    snprintf(name + w, sizeof name - (size_t)w, "%d", n);
    void *old = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
    if (!old) break;
    dlclose(old);
    close(n);
    n = -1;
  }
  if (probe >= 0) close(probe);
  dlerror(); /* the probe's "cannot open" */
  if (n < 0) return NULL;
  void *h = dup3(fd, n, O_CLOEXEC) == n ? dlopen(name, flags) : NULL;
  close(n);
  return h;
}

sdk_err sdk_cache_compile_error(const char *log, const char *const *marks, const char *model_path,
                                const char *build_src, const char *src_path, const char *who,
                                int *named, sdk_errbuf *eb) {
  size_t nb = build_src ? strlen(build_src) : 0;
  *named = 1;
  for (const char *l = log; l && *l;) {
    const char *e = strchr(l, '\n');
    size_t n = e ? (size_t)(e - l) : strlen(l);
    int hit = 0;
    for (int k = 0; marks[k] && !hit; k++)
      hit = memmem(l, n, marks[k], strlen(marks[k])) != NULL;
    if (hit) {
      char line[1024];
      if (nb && n >= nb && !strncmp(l, build_src, nb))
        snprintf(line, sizeof line, "%s%.*s", src_path, (int)(n - nb < 900 ? n - nb : 900), l + nb);
      else
        snprintf(line, sizeof line, "%.*s", (int)(n < 1000 ? n : 1000), l);
      if (model_path && *model_path && !strncmp(l, model_path, strlen(model_path))) {
        *named = 0;
        return SDK_FAIL(eb, SDK_ERR_COMPILE, "expression does not compile: %s", line);
      }
      return SDK_FAIL(eb, SDK_ERR_COMPILE, "generated code did not compile (source kept in %s): %s",
                      src_path, line);
    }
    l = e ? e + 1 : NULL;
  }
  return SDK_FAIL(eb, SDK_ERR_COMPILE, "%s failed (source kept in %s): %.300s", who, src_path,
                  log && *log ? log : "no output");
}

sdk_err sdk_cache_builddir(const sdk_cache_dir *d, sdk_cache_build *b, sdk_errbuf *eb) {
  b->fd = -1;
  int made = 0;
  for (int i = 0; i < 100 && !made; i++) {
    char r[7];
    random6(r);
    snprintf(b->name, sizeof b->name, "build-%s", r);
    made = mkdirat(d->fd, b->name, 0700) == 0;
    if (!made && errno != EEXIST) break;
  }
  struct stat st;
  int bad = !made || (b->fd = openat(d->fd, b->name, DIR_FLAGS)) < 0 || fstat(b->fd, &st) != 0;
  if (!bad && (st.st_uid != geteuid() || (st.st_mode & 077))) bad = 1, errno = EPERM;
  if (bad) {
    int e = errno;
    if (made) sdk_cache_rm_builddir(d->fd, b);
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot create a build directory in '%s': %s", d->path,
                    strerror(e));
  }
  if (snprintf(b->real, sizeof b->real, "%s/%s", d->real, b->name) >= (int)sizeof b->real) {
    sdk_cache_rm_builddir(d->fd, b);
    return SDK_FAIL(eb, SDK_ERR_IO, "cache directory name too long: '%s'", d->path);
  }
  return SDK_OK;
}

void sdk_cache_rm_builddir(int dfd, sdk_cache_build *b) {
  if (b->fd >= 0) close(b->fd);
  b->fd = -1;
  if (b->name[0]) rm_sub(dfd, b->name);
  b->name[0] = 0;
}

int sdk_cache_check_elf(const void *data, size_t len, const char *key) {
  const unsigned char *b = data;
  if (len < sizeof(Elf64_Ehdr) || memcmp(b, ELFMAG, SELFMAG) != 0 || b[EI_CLASS] != ELFCLASS64)
    return -1;
  Elf64_Ehdr h;
  memcpy(&h, b, sizeof h);
  if (h.e_type != ET_DYN || h.e_phentsize != sizeof(Elf64_Phdr) ||
      (h.e_shnum && h.e_shentsize != sizeof(Elf64_Shdr)))
    return -1;
  if (h.e_phoff > len || (uint64_t)h.e_phnum * sizeof(Elf64_Phdr) > len - h.e_phoff) return -1;
  if (h.e_shoff > len || (uint64_t)h.e_shnum * sizeof(Elf64_Shdr) > len - h.e_shoff) return -1;
  for (unsigned i = 0; i < h.e_phnum; i++) {
    Elf64_Phdr ph;
    memcpy(&ph, b + h.e_phoff + (size_t)i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD && (ph.p_offset > len || ph.p_filesz > len - ph.p_offset)) return -1;
  }
  if (key && !memmem(b, len, key, strlen(key) + 1)) return -1;
  return 0;
}

int sdk_cache_is_ours(const char *name) {
  size_t n = strlen(name);
  if (n == 12 && !strncmp(name, "build-", 6)) return 1; /* mkdtemp's 6 characters */
  const char *p = NULL;
  if (!strncmp(name, "cpu-", 4))
    p = name + 4;
  else if (!strncmp(name, "cuda-", 5))
    p = name + 5;
  else
    return 0;
  for (int i = 0; i < 32; i++)
    if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f'))) return 0;
  p += 32;
  static const char *const ext[] = {".so", ".c", ".cubin", ".cu", ".txt", NULL};
  for (int i = 0; ext[i]; i++) {
    size_t k = strlen(ext[i]);
    if (strncmp(p, ext[i], k)) continue;
    if (!p[k]) return 1;
    /* a temporary of sdk_cache_write left by a killed process */
    if (sdk_atomic_tmp_suffix(p + k) == strlen(p + k)) return 1;
  }
  return 0;
}

static int by_age(const void *a, const void *b) {
  const sdk_cache_entry *x = a, *y = b;
  if (x->mtime != y->mtime) return x->mtime < y->mtime ? -1 : 1;
  return strcmp(x->name, y->name);
}

sdk_err sdk_cache_list(int dirfd, sdk_cache_entry **out, size_t *n, sdk_errbuf *eb) {
  *out = NULL;
  *n = 0;
  int dfd;
  DIR *d = open_stream(dirfd, &dfd);
  if (!d) return SDK_FAIL(eb, SDK_ERR_IO, "cannot read the cache directory: %s", strerror(errno));
  sdk_cache_entry *v = NULL;
  size_t cap = 0, k = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (!sdk_cache_is_ours(de->d_name)) continue;
    struct stat st;
    if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (k == cap) {
      size_t nc = cap ? 2 * cap : 64;
      sdk_cache_entry *nv = realloc(v, nc * sizeof *nv);
      if (!nv) {
        free(v);
        closedir(d);
        return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
      }
      v = nv;
      cap = nc;
    }
    snprintf(v[k].name, sizeof v[k].name, "%s", de->d_name);
    v[k].is_dir = S_ISDIR(st.st_mode);
    v[k].size = S_ISREG(st.st_mode) ? (int64_t)st.st_size : 0;
    v[k].mtime = st.st_mtime;
    if (v[k].is_dir) { /* a build directory: what it holds counts */
      int sfd = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      DIR *s = sfd >= 0 ? fdopendir(sfd) : NULL;
      if (!s && sfd >= 0) close(sfd);
      struct dirent *se;
      while (s && (se = readdir(s))) {
        struct stat ss;
        if (fstatat(sfd, se->d_name, &ss, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(ss.st_mode))
          v[k].size += ss.st_size;
      }
      if (s) closedir(s);
    }
    k++;
  }
  closedir(d);
  if (k) qsort(v, k, sizeof *v, by_age);
  *out = v;
  *n = k;
  return SDK_OK;
}

int sdk_cache_remove(int dfd, const sdk_cache_entry *e) {
  if (e->is_dir) return rm_sub(dfd, e->name);
  return unlinkat(dfd, e->name, 0); /* never follows a link */
}

int sdk_cache_prune(int dfd, int64_t max_bytes, const char *keep) {
  if (max_bytes <= 0) return 0;
  sdk_cache_entry *v = NULL;
  size_t n = 0;
  if (sdk_cache_list(dfd, &v, &n, NULL) != SDK_OK) return 0;
  int64_t total = 0;
  for (size_t i = 0; i < n; i++)
    total += v[i].size;
  time_t now = time(NULL);
  int removed = 0;
  for (size_t i = 0; i < n && total > max_bytes; i++) {
    if (keep && *keep && strstr(v[i].name, keep)) continue;
    /* a build or a write of a concurrent run */
    if ((v[i].is_dir || strstr(v[i].name, ".tmp-")) && now - v[i].mtime < 3600) continue;
    if (sdk_cache_remove(dfd, &v[i]) == 0) {
      total -= v[i].size;
      removed++;
    }
  }
  free(v);
  return removed;
}
