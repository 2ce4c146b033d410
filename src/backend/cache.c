/* The kernel cache (rules in cache.h). */
#include "backend/cache.h"

#include "core/atomicfile.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"

static void rm_dir(const char *path, int depth);

sdk_err sdk_cache_check_dir(const char *dir, sdk_errbuf *eb) {
  struct stat st;
  if (lstat(dir, &st) != 0)
    return SDK_FAIL(eb, SDK_ERR_IO, "cache directory '%s': %s", dir, strerror(errno));
  if (S_ISLNK(st.st_mode))
    return SDK_FAIL(eb, SDK_ERR_IO,
                    "cache directory '%s' is a symbolic link (refused: name the real directory)",
                    dir);
  if (!S_ISDIR(st.st_mode))
    return SDK_FAIL(eb, SDK_ERR_IO, "cache directory '%s' is not a directory", dir);
  if (st.st_uid != geteuid())
    return SDK_FAIL(eb, SDK_ERR_IO,
                    "cache directory '%s' is owned by uid %ld, not by this user (uid %ld): refused",
                    dir, (long)st.st_uid, (long)geteuid());
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return SDK_FAIL(eb, SDK_ERR_IO,
                    "cache directory '%s' is writable by %s (mode %03o): refused (chmod 700 it)",
                    dir, (st.st_mode & S_IWOTH) ? "others" : "its group",
                    (unsigned)(st.st_mode & 0777));
  return SDK_OK;
}

/* mkdir -p with mode 0700 for what it creates; existing parents are left as
 * they are (only the cache directory itself is checked). */
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

sdk_err sdk_cache_place_dir(sdk_cache_place *p, char *out, size_t n, sdk_errbuf *eb) {
  if (p->too_long) return SDK_FAIL(eb, SDK_ERR_IO, "cache directory name too long");
  if (p->named[0]) {
    if (snprintf(out, n, "%s", p->named) >= (int)n)
      return SDK_FAIL(eb, SDK_ERR_IO, "cache directory name too long");
    if (mkdir_p(out) != 0)
      return SDK_FAIL(eb, SDK_ERR_IO, "cannot create cache directory '%s': %s", out,
                      strerror(errno));
    return sdk_cache_check_dir(out, eb);
  }
  if (!p->priv[0]) SDK_CHECK(make_private(p, eb));
  if (snprintf(out, n, "%s", p->priv) >= (int)n)
    return SDK_FAIL(eb, SDK_ERR_IO, "cache directory name too long");
  return sdk_cache_check_dir(out, eb);
}

void sdk_cache_place_close(sdk_cache_place *p) {
  if (!p || !p->priv[0]) return;
  rm_dir(p->priv, 1); /* its files and build directories */
  p->priv[0] = 0;
}

char *sdk_cache_read(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return NULL;
  struct stat st;
  char *buf = NULL;
  if (fstat(fd, &st) != 0) goto fail;
  if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) ||
      st.st_size > SDK_CACHE_FILE_MAX) {
    errno = EPERM;
    goto fail;
  }
  size_t n = (size_t)st.st_size, got = 0;
  buf = malloc(n + 1);
  if (!buf) goto fail;
  while (got < n) {
    ssize_t r = read(fd, buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      if (r == 0) errno = EIO; /* shrank while reading */
      goto fail;
    }
    got += (size_t)r;
  }
  buf[n] = 0;
  futimens(fd, NULL); /* recently used: the cap prunes others first */
  close(fd);
  if (len) *len = n;
  return buf;
fail:;
  int e = errno;
  free(buf);
  close(fd);
  errno = e;
  return NULL;
}

int sdk_cache_write(const char *path, const void *data, size_t len) {
  /* rebuildable data: no fsync; mode 0600 (core/atomicfile.h) */
  return sdk_atomic_write(path, data, len, SDK_ATOMIC_PRIVATE | SDK_ATOMIC_NOSYNC, NULL) == SDK_OK
             ? 0
             : -1;
}

sdk_err sdk_cache_builddir(const char *dir, char *out, size_t n, sdk_errbuf *eb) {
  if (snprintf(out, n, "%s/build-XXXXXX", dir) >= (int)n)
    return SDK_FAIL(eb, SDK_ERR_IO, "cache directory name too long: '%s'", dir);
  if (!mkdtemp(out))
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot create a build directory in '%s': %s", dir,
                    strerror(errno));
  return SDK_OK;
}

static void rm_dir(const char *path, int depth) {
  int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dfd < 0) return;
  DIR *d = fdopendir(dfd);
  if (!d) {
    close(dfd);
    return;
  }
  struct dirent *de;
  while ((de = readdir(d))) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
    /* a link goes, its target stays */
    if (unlinkat(dfd, de->d_name, 0) != 0 && errno == EISDIR && depth > 0) {
      char sub[4400];
      if (snprintf(sub, sizeof sub, "%s/%s", path, de->d_name) < (int)sizeof sub)
        rm_dir(sub, depth - 1);
    }
  }
  closedir(d);
  rmdir(path);
}

void sdk_cache_rm_builddir(const char *path) {
  rm_dir(path, 0);
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

sdk_err sdk_cache_list(const char *dir, sdk_cache_entry **out, size_t *n, sdk_errbuf *eb) {
  *out = NULL;
  *n = 0;
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
  if (!d) {
    if (dfd >= 0) close(dfd);
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot read cache directory '%s': %s", dir, strerror(errno));
  }
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

int sdk_cache_remove(const char *dir, const sdk_cache_entry *e) {
  char p[4400];
  if (snprintf(p, sizeof p, "%s/%s", dir, e->name) >= (int)sizeof p) return -1;
  if (e->is_dir) {
    sdk_cache_rm_builddir(p);
    return access(p, F_OK) == 0 ? -1 : 0;
  }
  return unlink(p); /* never follows a link */
}

int sdk_cache_prune(const char *dir, int64_t max_bytes, const char *keep) {
  if (max_bytes <= 0) return 0;
  sdk_cache_entry *v = NULL;
  size_t n = 0;
  if (sdk_cache_list(dir, &v, &n, NULL) != SDK_OK) return 0;
  int64_t total = 0;
  for (size_t i = 0; i < n; i++)
    total += v[i].size;
  time_t now = time(NULL);
  int removed = 0;
  for (size_t i = 0; i < n && total > max_bytes; i++) {
    if (keep && *keep && strstr(v[i].name, keep)) continue;
    /* a build or a write of a concurrent run */
    if ((v[i].is_dir || strstr(v[i].name, ".tmp-")) && now - v[i].mtime < 3600) continue;
    if (sdk_cache_remove(dir, &v[i]) == 0) {
      total -= v[i].size;
      removed++;
    }
  }
  free(v);
  return removed;
}
