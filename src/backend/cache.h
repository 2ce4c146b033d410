/* sdekit: the kernel cache.
 *
 * A cache file is untrusted data until checked: another process (or a
 * person) may have planted, truncated or replaced it, or left a symbolic
 * link in its place.  So the directory must belong to us and be writable by
 * nobody else; files are opened without following links, must be regular
 * files we own, and carry a key that is checked before use; anything that
 * fails a check is rebuilt (once) and replaced by an atomic rename, never
 * written through.  New files are created under unpredictable names
 * (mkostemp/mkdtemp) and renamed into place, so concurrent runs compiling
 * the same model never see each other's half-written files.
 *
 * Directory: the one the backend's options name (the CLI: $SDK_CACHE_DIR,
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

/* The kernel cache of one opened backend: the directory its options name,
 * else a private one made on first use; kept in the backend's context (no
 * state outside it). */
typedef struct sdk_cache_place {
  char named[4096]; /* the directory named ("" when none) */
  char tmp[4096];   /* where the private one goes */
  char priv[4096];  /* the private directory once made ("" before) */
  int too_long;     /* the directory named does not fit */
} sdk_cache_place;

/* Remember the directories (copied): dir NULL or empty for a private one,
 * tmp_dir NULL or not absolute for /tmp. */
void sdk_cache_place_init(sdk_cache_place *p, const char *dir, const char *tmp_dir);

/* The cache directory into out, created (mode 0700) if needed and checked:
 * a directory, not a symbolic link, owned by the effective user, not
 * writable by group or others.  The private one is made on the first call. */
sdk_err sdk_cache_place_dir(sdk_cache_place *p, char *out, size_t n, sdk_errbuf *eb);

/* Remove the private directory, if one was made, with its files and build
 * directories.  The named one stays.  Accepts NULL. */
void sdk_cache_place_close(sdk_cache_place *p);

/* Check an existing directory against the rules above (clear message). */
sdk_err sdk_cache_check_dir(const char *dir, sdk_errbuf *eb);

/* Read a cache file: not a symbolic link (O_NOFOLLOW), a regular file owned
 * by us, not group/world-writable, at most SDK_CACHE_FILE_MAX bytes.  NULL
 * with errno set otherwise (ENOENT: absent).  *len gets the size.  The file's
 * modification time is refreshed (the cap prunes least recently used). */
char *sdk_cache_read(const char *path, size_t *len);

/* Write data to `path` atomically: a new file with an unpredictable name in
 * the same directory (mode 0600, O_EXCL), renamed over `path` (a link
 * there is replaced, not followed).  0 or -1 with errno. */
int sdk_cache_write(const char *path, const void *data, size_t len);

/* A private build directory inside the cache (mkdtemp, mode 0700). */
sdk_err sdk_cache_builddir(const char *dir, char *out, size_t n, sdk_errbuf *eb);

/* Remove a build directory: the plain files in it, then itself; links are
 * removed, never followed; subdirectories are left (rmdir then fails). */
void sdk_cache_rm_builddir(const char *path);

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

/* Our entries of the cache directory, oldest first (free *out). */
sdk_err sdk_cache_list(const char *dir, sdk_cache_entry **out, size_t *n, sdk_errbuf *eb);

/* Remove one entry (a file or link by unlink, a build directory by
 * sdk_cache_rm_builddir); 0 or -1. */
int sdk_cache_remove(const char *dir, const sdk_cache_entry *e);

/* Remove oldest entries until the total is at most max_bytes (<= 0: no
 * cap), never those whose name contains `keep` (the entry just used), nor
 * build directories younger than an hour (a concurrent compile).  Returns
 * the number of entries removed. */
int sdk_cache_prune(const char *dir, int64_t max_bytes, const char *keep);

#endif
