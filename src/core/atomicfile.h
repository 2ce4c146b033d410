/* sdekit: the one way files are written: a temporary next to the target,
 * then (after the data are on disk, when asked) a rename onto the name.
 *
 * rename() is atomic within a file system, so a reader sees the old file or
 * the whole new one, never a torn one, and concurrent writers of the same name
 * never mix their bytes.  The temporary is created fresh (mkstemp: O_EXCL,
 * never following a planted link) as "<path>.tmp.XXXXXX".  Every writer of
 * results, checkpoints, plots and the kernel cache goes through here.
 * On failure errno still holds the cause (for callers that word their own
 * message) and no temporary is left.
 */
#ifndef SDK_ATOMICFILE_H
#define SDK_ATOMICFILE_H

#include <stddef.h>

#include "core/error.h"

enum {
  SDK_ATOMIC_PRIVATE = 1, /* mode 0600 (caches); else 0666 & ~umask, as creat() */
  SDK_ATOMIC_NOSYNC = 2   /* skip the fsync before the rename (rebuildable data) */
};

typedef struct sdk_atomic {
  const char *path; /* the final name (not copied: must outlive the writer) */
  char *tmp;        /* the temporary's name, NULL when none */
  int fd;           /* open descriptor of the temporary, -1 once handed off or closed */
  unsigned flags;
} sdk_atomic;

/* Create the temporary; on failure nothing is left behind. */
sdk_err sdk_atomic_open(sdk_atomic *a, const char *path, unsigned flags, sdk_errbuf *eb);
/* Write all of data to a->fd (retrying short writes and EINTR). */
sdk_err sdk_atomic_put(sdk_atomic *a, const void *data, size_t len, sdk_errbuf *eb);
/* Close, sync (unless NOSYNC) and rename onto the final name; on failure the
 * temporary is removed. */
sdk_err sdk_atomic_commit(sdk_atomic *a, sdk_errbuf *eb);
/* Remove the temporary (safe to call twice, or after a commit). */
void sdk_atomic_abort(sdk_atomic *a);
/* The whole thing for data in memory. */
sdk_err sdk_atomic_write(const char *path, const void *data, size_t len, unsigned flags,
                         sdk_errbuf *eb);
/* Is `name` (a file name without directory) a temporary of this module for
 * the file `base` + any suffix?  For caches that tidy up after killed runs:
 * returns the length of the ".tmp.XXXXXX" tail when `name` ends in one. */
size_t sdk_atomic_tmp_suffix(const char *name);

#endif
