#include "core/atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char TMP_SUFFIX[] = ".tmp.XXXXXX";

sdk_err sdk_atomic_open(sdk_atomic *a, const char *path, unsigned flags, sdk_errbuf *eb) {
  a->tmp = NULL;
  a->path = path;
  a->fd = -1;
  a->flags = flags;
  if (!path || !path[0]) return SDK_FAIL(eb, SDK_ERR_IO, "cannot write '': empty file name");
  size_t n = strlen(path);
  a->tmp = malloc(n + sizeof TMP_SUFFIX);
  if (!a->tmp) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory writing '%s'", path);
  memcpy(a->tmp, path, n);
  memcpy(a->tmp + n, TMP_SUFFIX, sizeof TMP_SUFFIX);
  a->fd = mkostemp(a->tmp, O_CLOEXEC); /* O_EXCL, mode 0600 */
  if (a->fd < 0) {
    int err = errno;
    free(a->tmp);
    a->tmp = NULL;
    errno = err;
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot write '%s': %s", path, strerror(err));
  }
  if (flags & SDK_ATOMIC_PRIVATE) return SDK_OK;
  /* the permissions a plain creat() would give (reading the umask needs
   * setting it: restored at once) */
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(a->fd, 0666 & ~mask) != 0) {
    int err = errno;
    sdk_atomic_abort(a);
    errno = err;
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot write '%s': %s", path, strerror(err));
  }
  return SDK_OK;
}

sdk_err sdk_atomic_put(sdk_atomic *a, const void *data, size_t len, sdk_errbuf *eb) {
  const char *p = data;
  size_t off = 0;
  while (off < len) {
    ssize_t w = write(a->fd, p + off, len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      int err = w < 0 ? errno : ENOSPC;
      errno = err;
      return SDK_FAIL(eb, SDK_ERR_IO, "cannot write '%s': %s", a->path, strerror(err));
    }
    off += (size_t)w;
  }
  return SDK_OK;
}

void sdk_atomic_abort(sdk_atomic *a) {
  int saved = errno; /* callers may report the errno of the failure */
  if (a->fd >= 0) close(a->fd);
  a->fd = -1;
  if (a->tmp) unlink(a->tmp);
  free(a->tmp);
  a->tmp = NULL;
  errno = saved;
}

sdk_err sdk_atomic_commit(sdk_atomic *a, sdk_errbuf *eb) {
  int err = 0;
  if (!a->tmp) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "'%s': nothing to commit", a->path);
  if (a->fd >= 0) {
    /* the data on disk before the name points at it: a crash leaves the old
     * file or the new one, never a truncated one */
    if (!(a->flags & SDK_ATOMIC_NOSYNC) && fsync(a->fd) != 0) err = errno;
    if (close(a->fd) != 0 && !err) err = errno;
    a->fd = -1;
  } else if (!(a->flags & SDK_ATOMIC_NOSYNC)) {
    /* handed to a library that wrote by name: sync through a new descriptor */
    int fd = open(a->tmp, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 || fsync(fd) != 0) err = errno;
    if (fd >= 0) close(fd);
  }
  if (!err && rename(a->tmp, a->path) != 0) err = errno;
  if (err) {
    sdk_atomic_abort(a);
    errno = err;
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot write '%s': %s", a->path, strerror(err));
  }
  free(a->tmp);
  a->tmp = NULL;
  return SDK_OK;
}

sdk_err sdk_atomic_write(const char *path, const void *data, size_t len, unsigned flags,
                         sdk_errbuf *eb) {
  sdk_atomic a;
  SDK_CHECK(sdk_atomic_open(&a, path, flags, eb));
  sdk_err e = sdk_atomic_put(&a, data, len, eb);
  if (e != SDK_OK) {
    sdk_atomic_abort(&a);
    return e;
  }
  return sdk_atomic_commit(&a, eb);
}

size_t sdk_atomic_tmp_suffix(const char *name) {
  size_t n = strlen(name), k = sizeof TMP_SUFFIX - 1;
  if (n < k || strncmp(name + n - k, ".tmp.", 5)) return 0;
  for (size_t i = n - 6; i < n; i++)
    if (name[i] == '/' || name[i] == 0) return 0;
  return k;
}
