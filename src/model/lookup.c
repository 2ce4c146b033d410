/* Where a model name leads (model/model.h, sdk_model_load): a path is read
 * as given; a bare name is looked up in the directories of the search path
 * the caller passes (the CLI's SDEKIT_MODEL_PATH), then among the built-in
 * models, found relative to the binary that holds this code (never through
 * a path of the build machine); never in the current directory.  Model files are read as
 * untrusted input: regular files only, opened without blocking, at most
 * SDK_MODEL_MAX_BYTES. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/strbuf.h"
#include "model/limits.h"
#include "model/model_internal.h"

/* The directory of the binary object this code was linked into: the
 * shared library when sdekit is one (its link map names the file the loader
 * opened), else the executable (the link map of the main program has no
 * name; /proc/self/exe has it, whatever argv[0] says). */
static int own_object_dir(char *out, size_t n) {
  Dl_info info;
  struct link_map *lm = NULL;
  if (!dladdr1((void *)(uintptr_t)&own_object_dir, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
    return 0;
  const char *file = lm->l_name && lm->l_name[0] ? lm->l_name : "/proc/self/exe";
  char *real = realpath(file, NULL); /* the file itself, not a link to it */
  const char *p = real ? real : file;
  const char *slash = strrchr(p, '/');
  int w = slash ? snprintf(out, n, "%.*s", (int)(slash - p), p) : -1;
  free(real);
  return w > 0 && (size_t)w < n; /* "/x" (an object at the root) is not a prefix */
}

int sdk_model_builtin_dir(char *out, size_t n) {
  char dir[PATH_MAX];
  if (!own_object_dir(dir, sizeof dir)) return 0;
  /* PREFIX/{bin,lib}/x -> PREFIX/share/...; a build tree or a flat package
   * has share/ beside the object */
  static const char *const rel[] = {"/../share/sdekit/models", "/share/sdekit/models"};
  char cand[PATH_MAX + 32], real[PATH_MAX];
  struct stat st;
  for (int i = 0; i < 2; i++) {
    snprintf(cand, sizeof cand, "%s%s", dir, rel[i]);
    /* the canonical name (no "..", the build tree's link resolved: the
     * names of the models in messages and #line are the files' own) */
    if (stat(cand, &st) == 0 && S_ISDIR(st.st_mode) && realpath(cand, real)) {
      int w = snprintf(out, n, "%s", real);
      return w > 0 && (size_t)w < n;
    }
  }
  /* neither exists: name the first, for messages */
  int w = snprintf(out, n, "%s%s", dir, rel[0]);
  return w > 0 && (size_t)w < n;
}

void sdk_model_dirs(const char *search_path, sdk_model_dirlist *d) {
  d->n = 0;
  if (search_path && *search_path) d->dir[d->n++] = search_path;
  if (sdk_model_builtin_dir(d->builtin, sizeof d->builtin)) d->dir[d->n++] = d->builtin;
}

/* Calls fn(dir, len, user) for every directory searched for a bare model
 * name, in order: the entries of search_path (empty entries are skipped:
 * they do not mean the current directory), then the built-in directories.  Stops when fn returns
 * nonzero and returns that value. */
static int each_model_dir(const char *search_path,
                          int (*fn)(const char *dir, size_t len, void *user), void *user) {
  sdk_model_dirlist dl;
  sdk_model_dirs(search_path, &dl);
  int r = 0;
  for (int i = 0; i < dl.n && !r; i++)
    for (const char *d = dl.dir[i]; *d && !r;) {
      size_t len = strcspn(d, ":");
      if (len > 0) r = fn(d, len, user);
      d += len + (d[len] == ':');
    }
  return r;
}

typedef struct {
  char **names;
  int n, cap, oom;
} name_set;

static int collect_dir(const char *dir, size_t len, void *user) {
  name_set *ns = user;
  char path[PATH_MAX];
  if (len >= sizeof path) return 0;
  memcpy(path, dir, len);
  path[len] = 0;
  DIR *d = opendir(path);
  if (!d) return 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n <= 4 || strcmp(e->d_name + n - 4, ".sde") || e->d_name[0] == '.') continue;
    int dup = 0;
    for (int i = 0; i < ns->n && !dup; i++)
      dup = strlen(ns->names[i]) == n - 4 && !strncmp(ns->names[i], e->d_name, n - 4);
    if (dup) continue;
    if (ns->n == ns->cap) {
      int cap = ns->cap ? 2 * ns->cap : 16;
      char **nn = realloc(ns->names, (size_t)cap * sizeof *nn);
      if (!nn) {
        ns->oom = 1;
        break;
      }
      ns->names = nn, ns->cap = cap;
    }
    if (!(ns->names[ns->n] = sdk_strndup(e->d_name, n - 4))) {
      ns->oom = 1;
      break;
    }
    ns->n++;
  }
  closedir(d);
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

char *sdk_model_builtin_names(const char *search_path) {
  name_set ns = {0};
  each_model_dir(search_path, collect_dir, &ns);
  if (ns.n > 1) qsort(ns.names, (size_t)ns.n, sizeof *ns.names, cmp_str);
  char *s = ns.oom ? NULL : sdk_md_join(ns.names, ns.n);
  for (int i = 0; i < ns.n; i++)
    free(ns.names[i]);
  free(ns.names);
  return s;
}

static sdk_err not_regular(const char *path, mode_t mode, sdk_errbuf *eb) {
  return SDK_FAIL(eb, SDK_ERR_USAGE, "cannot read model file '%s': it is %s, not a regular file",
                  path,
                  S_ISDIR(mode)    ? "a directory"
                  : S_ISFIFO(mode) ? "a FIFO"
                  : S_ISCHR(mode)  ? "a character device"
                  : S_ISBLK(mode)  ? "a block device"
                  : S_ISSOCK(mode) ? "a socket"
                                   : "a special file");
}

sdk_err sdk_model_read_file(const char *path, char **text, size_t *len, char **resolved,
                            int *missing, sdk_errbuf *eb) {
  *text = NULL;
  *resolved = NULL;
  /* Anything but a regular file is refused before it is opened: opening a
   * device or a FIFO is an action (a terminal may become the controlling
   * one, a FIFO's writer is released, a tape rewinds).  The open itself
   * still neither blocks nor takes a terminal, and fstat checks what was
   * opened, in case the name changed in between. */
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) return not_regular(path, st.st_mode, eb);
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (missing && (errno == ENOENT || errno == ENOTDIR)) return *missing = 1, SDK_OK;
    return SDK_FAIL(eb, SDK_ERR_USAGE, "cannot read model file '%s': %s", path, strerror(errno));
  }
  sdk_err err = SDK_OK;
  char *buf = NULL;
  size_t n = 0;
  if (fstat(fd, &st) != 0) {
    err = SDK_FAIL(eb, SDK_ERR_USAGE, "cannot read model file '%s': %s", path, strerror(errno));
    goto out;
  }
  if (!S_ISREG(st.st_mode)) {
    err = not_regular(path, st.st_mode, eb);
    goto out;
  }
  if (st.st_size > SDK_MODEL_MAX_BYTES) {
    err = SDK_FAIL(eb, SDK_ERR_USAGE,
                   "model file '%s' is %lld bytes, more than the %d bytes a model may have", path,
                   (long long)st.st_size, SDK_MODEL_MAX_BYTES);
    goto out;
  }
  /* one byte more than the limit: a file that grew since fstat is caught */
  buf = malloc((size_t)SDK_MODEL_MAX_BYTES + 2);
  if (!buf) {
    err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    goto out;
  }
  while (n <= SDK_MODEL_MAX_BYTES) {
    ssize_t r = read(fd, buf + n, (size_t)SDK_MODEL_MAX_BYTES + 1 - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      err = SDK_FAIL(eb, SDK_ERR_USAGE, "cannot read model file '%s': %s", path, strerror(errno));
      goto out;
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  if (n > SDK_MODEL_MAX_BYTES) {
    err = SDK_FAIL(eb, SDK_ERR_USAGE, "model file '%s' is more than the %d bytes a model may have",
                   path, SDK_MODEL_MAX_BYTES);
    goto out;
  }
  buf[n] = 0;
  *resolved = realpath(path, NULL); /* NULL (unknown) is not an error */
out:
  close(fd);
  if (err != SDK_OK) {
    free(buf);
    return err;
  }
  *text = buf;
  *len = n;
  return SDK_OK;
}

typedef struct {
  const char *name;
  char *text, *resolved;
  size_t len;
  char path[PATH_MAX];
  sdk_errbuf *eb;
  sdk_err err;
} search;

static int try_dir(const char *dir, size_t len, void *user) {
  search *s = user;
  int n = snprintf(s->path, sizeof s->path, "%.*s/%s.sde", (int)len, dir, s->name);
  if (n < 0 || (size_t)n >= sizeof s->path) return 0;
  int missing = 0;
  s->err = sdk_model_read_file(s->path, &s->text, &s->len, &s->resolved, &missing, s->eb);
  return s->err != SDK_OK || !missing;
}

static int has_sde_suffix(const char *s) {
  size_t n = strlen(s);
  return n >= 4 && !strcmp(s + n - 4, ".sde");
}

static int find_dir(const char *dir, size_t len, void *user) {
  search *s = user;
  struct stat st;
  int n = snprintf(s->path, sizeof s->path, "%.*s/%s.sde", (int)len, dir, s->name);
  if (n < 0 || (size_t)n >= sizeof s->path) return 0;
  /* (where sdk_model_load_from stops: at the first name that exists) */
  return stat(s->path, &st) == 0 || (errno != ENOENT && errno != ENOTDIR);
}

int sdk_model_locate(const char *name, const char *search_path, char *out, size_t n) {
  if (!name || !*name) return 0;
  search s = {.name = name};
  const char *p = name;
  if (!strchr(name, '/') && !has_sde_suffix(name)) {
    if (!each_model_dir(search_path, find_dir, &s)) return 0;
    p = s.path;
  }
  int w = snprintf(out, n, "%s", p);
  return w > 0 && (size_t)w < n;
}

sdk_err sdk_model_load_from(const char *name, const char *search_path, sdk_model **out,
                            sdk_errbuf *eb) {
  *out = NULL;
  if (!name || !*name) return SDK_FAIL(eb, SDK_ERR_USAGE, "empty model name");
  search s = {.name = name, .eb = eb};
  const char *path = name;
  if (strchr(name, '/') || has_sde_suffix(name)) {
    /* a path: read it, and only it */
    SDK_CHECK(sdk_model_read_file(name, &s.text, &s.len, &s.resolved, NULL, eb));
  } else {
    /* a bare name is a model of the search path or a built-in, never a
     * file of the current directory that happens to have that name */
    if (!each_model_dir(search_path, try_dir, &s)) {
      char *known = sdk_model_builtin_names(search_path);
      /* a file of that name (or NAME.sde) here is most likely what was meant */
      char sde[PATH_MAX];
      struct stat st;
      snprintf(sde, sizeof sde, "%s.sde", name);
      const char *here = stat(name, &st) == 0 ? "./" : stat(sde, &st) == 0 ? "" : NULL;
      sdk_err e = SDK_FAIL(eb, SDK_ERR_USAGE,
                           "unknown model '%s' (see 'sdekit models': %s); a model file needs a "
                           "'/' or the .sde suffix%s%s%s%s",
                           name, known ? known : "?", here ? " (for the file here, write " : "",
                           here ? here : "", here ? name : "", here ? (*here ? ")" : ".sde)") : "");
      free(known);
      return e;
    }
    SDK_CHECK(s.err);
    path = s.path;
  }
  sdk_err err = sdk_model_parse_buffer(s.text, s.len, path, out, eb);
  free(s.text);
  if (err == SDK_OK) {
    (*out)->file = s.resolved;
    s.resolved = NULL;
  }
  free(s.resolved);
  return err;
}

sdk_err sdk_model_load(const char *name, sdk_model **out, sdk_errbuf *eb) {
  return sdk_model_load_from(name, NULL, out, eb);
}
