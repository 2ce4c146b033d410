/* sdekit: the kernel cache.
 *
 * A cache file is untrusted data until checked: another process (or a
 * person) may have planted, truncated or replaced it, or left a symbolic
 * link in its place.  So the directory must belong to us and be writable by
 * nobody else; files are opened without following links, must be regular
 * files we own, and carry a key that is checked before use; anything that
 * fails a check is rebuilt (once) and replaced by an atomic rename, never
 * written through.  New files are created under unpredictable names and
 * renamed into place, so concurrent runs compiling the same model never see
 * each other's half-written files.
 *
 * The directory is opened once (sdk_cache_open_dir) and every later step
 * goes through that descriptor (openat, mkdirat, renameat, unlinkat), so
 * renaming the path or a parent afterwards changes nothing: the directory
 * checked is the one used.  A module is loaded through the descriptor of the
 * very file that was checked (sdk_cache_dlopen).  Only a child process (the
 * C compiler) is given a path: the directory's real path, every component a
 * directory, and the directory is refused unless every parent is owned by
 * root or us and is writable by nobody else (or is sticky, like /tmp), so
 * no other user can rename anything on that path.
 *
 * Directory: the one the backend's options name (the CLI: $SDEKIT_CACHE_DIR,
 * else $XDG_CACHE_HOME/sdekit, else $HOME/.cache/sdekit), else a private
 * directory of the opened backend only (mkdtemp under $TMPDIR or /tmp),
 * removed when it is closed.
 */
#ifndef SDK_CACHE_H
#define SDK_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "core/error.h"

/* Default size cap of the cache (bytes); oldest entries go first. */
#define SDK_CACHE_MAX_DEFAULT (512LL << 20)
/* No cached module is larger than this (a larger file is not ours). */
#define SDK_CACHE_FILE_MAX (256LL << 20)

/* An opened and checked cache directory. */
typedef struct sdk_cache_dir {
  int fd;          /* O_DIRECTORY|O_NOFOLLOW, checked; -1 when not open */
  char path[4096]; /* as named: for messages */
  char real[4096]; /* its real path (for child processes), see above */
} sdk_cache_dir;

/* The kernel cache of one opened backend: the directory its options name,
 * else a private one made on first use; kept in the backend's context (no
 * state outside it). */
typedef struct sdk_cache_place {
  char named[4096]; /* the directory named ("" when none) */
  char tmp[4096];   /* where the private one goes */
  char priv[4096];  /* the private directory once made ("" before) */
  int too_long;     /* the directory named does not fit */
  int keep_src;     /* a message names a source in the private directory: keep it */
  sdk_cache_dir dir;
} sdk_cache_place;

/* Remember the directories (copied): dir NULL or empty for a private one,
 * tmp_dir NULL or not absolute for /tmp. */
void sdk_cache_place_init(sdk_cache_place *p, const char *dir, const char *tmp_dir);

/* The cache directory, created (mode 0700) if needed, opened and checked
 * (sdk_cache_open_dir) on the first call; the private one is made then. */
sdk_err sdk_cache_place_dir(sdk_cache_place *p, const sdk_cache_dir **out, sdk_errbuf *eb);

/* Whether the cache is the private directory (removed at close). */
int sdk_cache_place_private(const sdk_cache_place *p);

/* A compile error names a source in the cache: when the cache is the
 * private directory, sdk_cache_place_close leaves the sources (*.c, *.cu)
 * and their directory in place, so the name stays true. */
void sdk_cache_place_keep_sources(sdk_cache_place *p);

/* Close the directory; remove the private one, if one was made, with its
 * files and build directories.  The named one stays.  Accepts NULL. */
void sdk_cache_place_close(sdk_cache_place *p);

/* Open `path` as a cache directory and check it: the last component (also
 * when written "DIR/" or "DIR/.") not a symbolic link, a directory owned by
 * the effective user, not writable by group or others, and every parent
 * owned by root or the effective user and writable by no one else unless
 * sticky.  Clear message naming the path (and the parent) otherwise. */
sdk_err sdk_cache_open_dir(const char *path, sdk_cache_dir *d, sdk_errbuf *eb);
void sdk_cache_close_dir(sdk_cache_dir *d);
/* sdk_cache_open_dir, then close: the checks alone. */
sdk_err sdk_cache_check_dir(const char *dir, sdk_errbuf *eb);

/* Open a cache file of directory dfd for reading: not a symbolic link
 * (O_NOFOLLOW), a regular file owned by us, not group/world-writable, at
 * most SDK_CACHE_FILE_MAX bytes.  The descriptor, or -1 with errno set
 * (ENOENT: absent, ELOOP: a link, EPERM: a check failed). */
int sdk_cache_open_file(int dfd, const char *name);

/* All of an opened cache file (NUL-terminated; free it); NULL with errno set.
 * *len gets the size.  The modification time is refreshed (the cap prunes
 * least recently used).  The descriptor stays open. */
char *sdk_cache_read_fd(int fd, size_t *len);

/* sdk_cache_open_file + sdk_cache_read_fd + close. */
char *sdk_cache_read(int dfd, const char *name, size_t *len);

/* Write data to `name` in directory dfd atomically: a new file with an
 * unpredictable name beside it (mode 0600, O_EXCL), renamed over `name` (a
 * link there is replaced, not followed).  0 or -1 with errno. */
int sdk_cache_write(int dfd, const char *name, const void *data, size_t len);

/* Load a shared object through the descriptor of the checked file
 * (/proc/self/fd/N, written with some "./" in it), so that the file loaded
 * is the one checked whatever happens to its name.  The name is chosen so
 * that it was never used for another object of this process (the dynamic
 * loader returns an object already loaded under the same name); there are
 * about 64 times the descriptor limit of them.  NULL when the loader
 * refuses it (dlerror says why). */
void *sdk_cache_dlopen(int fd, int flags);

/* A compiler's failure as one message (both backends): its log's first line
 * holding one of marks (NULL-ended) is the message, said as an expression of
 * the model when it names model_path (#line directives: *named = 0), else as
 * generated code kept in src_path (*named = 1); a line naming build_src (the
 * source the compiler saw in a build directory; NULL: none) names src_path
 * instead.  No such line: "<who> failed" with the log's start. */
sdk_err sdk_cache_compile_error(const char *log, const char *const *marks, const char *model_path,
                                const char *build_src, const char *src_path, const char *who,
                                int *named, sdk_errbuf *eb);

/* A private build directory inside an opened cache: mkdirat of an
 * unpredictable name "build-XXXXXX", mode 0700, opened like the cache. */
typedef struct sdk_cache_build {
  int fd;
  char name[16];
  char real[4200]; /* its real path (for the compiler) */
} sdk_cache_build;
sdk_err sdk_cache_builddir(const sdk_cache_dir *d, sdk_cache_build *b, sdk_errbuf *eb);

/* Remove a build directory of dfd (closing b->fd): the plain files in it,
 * then itself; links are removed, never followed; subdirectories are left
 * (it then stays). */
void sdk_cache_rm_builddir(int dfd, sdk_cache_build *b);

/* A shared object is complete: an ELF header of this machine's class, a
 * shared object, program and section header tables and every loaded
 * segment inside the file (a truncated file fails), and the key string
 * present in it.  0 if so. */
int sdk_cache_check_elf(const void *data, size_t len, const char *key);

/* One file of the cache. */
typedef struct sdk_cache_entry {
  char name[128];
  int64_t size;
  time_t mtime;
  int is_dir; /* a build directory left by an interrupted run */
} sdk_cache_entry;

/* Whether a directory entry name is one sdekit creates in the cache. */
int sdk_cache_is_ours(const char *name);

/* Our entries of the cache directory dfd, oldest first (free *out). */
sdk_err sdk_cache_list(int dfd, sdk_cache_entry **out, size_t *n, sdk_errbuf *eb);

/* Remove one entry of dfd (a file or link by unlink, a build directory with
 * its plain files); 0 or -1. */
int sdk_cache_remove(int dfd, const sdk_cache_entry *e);

/* Remove oldest entries of dfd until the total is at most max_bytes (<= 0:
 * no cap), never those whose name contains `keep` (the entry just used), nor
 * build directories younger than an hour (a concurrent compile).  Returns
 * the number of entries removed. */
int sdk_cache_prune(int dfd, int64_t max_bytes, const char *keep);

#endif
