/* A session's held backends (sim/session.h). */
#include "sim/session.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SESSION_MAX 16
#define SHELF_MAX 48
/* blocks of device memory kept at most (the oldest released first) */
#define MEM_MAX 16
/* kernel sources kept with their identities (the newest; sdk_session_identity) */
#define IDENT_MAX 8

typedef struct held {
  const sdk_backend *be;
  int device;
  sdk_bctx *ctx;
} held;

/* a module (m), or a block of device memory (mem) */
typedef struct kept {
  char key[128];
  struct sdk_module *m;
  void (*free_module)(struct sdk_module **m);
  void *mem;
  void (*release)(void *mem);
} kept;

struct sdk_session {
  pthread_mutex_t mu;
  int n, nkept, closing, evicting;
  held h[SESSION_MAX];
  kept k[SHELF_MAX]; /* in the order they were put */
  sdk_module_shelf shelf;
  int nident;
  struct {
    char *src; /* the whole source, the key (compared in full) */
    size_t len;
    char ident[33];
  } id[IDENT_MAX]; /* the newest first */
};

/* (under the lock) entry i out, the order of the others kept */
static kept unshelve(sdk_session *s, int i) {
  kept k = s->k[i];
  memmove(&s->k[i], &s->k[i + 1], (size_t)(s->nkept - i - 1) * sizeof s->k[0]);
  s->nkept--;
  return k;
}

/* the shelf (backend.h): a module taken is the taker's alone until it is put back */
static struct sdk_module *take(void *user, const char *key) {
  sdk_session *s = user;
  struct sdk_module *m = NULL;
  pthread_mutex_lock(&s->mu);
  for (int i = 0; i < s->nkept && !m; i++)
    if (s->k[i].m && !strcmp(s->k[i].key, key)) m = unshelve(s, i).m;
  pthread_mutex_unlock(&s->mu);
  return m;
}

/* a new entry at the shelf's end (the caller holds the lock and has checked
 * that there is room) */
static kept *shelve(sdk_session *s, const char *key) {
  kept *k = &s->k[s->nkept++];
  memset(k, 0, sizeof *k);
  snprintf(k->key, sizeof k->key, "%s", key);
  return k;
}

/* A module put back.  A full shelf lets its least recently put entry go
 * (a module taken leaves it, so the order is that of last use): it kept its
 * first 48 kernels and refused every later one, so a process that had run
 * 48 others loaded the same kernel from disk at every run.  The entry let go
 * is freed after the lock, with puts refused meanwhile (s->evicting): a
 * module's free puts it back on the shelf where it can. */
static int put(void *user, const char *key, struct sdk_module *m,
               void (*free_module)(struct sdk_module **m)) {
  sdk_session *s = user;
  int ok = 0;
  kept old = {0};
  pthread_mutex_lock(&s->mu);
  if (!s->closing && !s->evicting && strlen(key) < sizeof s->k[0].key) {
    ok = 1;
    for (int i = 0; i < s->nkept && ok; i++)
      ok = !s->k[i].m || strcmp(s->k[i].key, key) != 0; /* (two runs loaded it at once: one is
                                                         * enough) */
    if (ok && s->nkept == SHELF_MAX) old = unshelve(s, 0), s->evicting++;
  }
  if (ok) {
    kept *k = shelve(s, key);
    k->m = m;
    k->free_module = free_module;
  }
  pthread_mutex_unlock(&s->mu);
  if (old.m || old.mem) {
    if (old.m) old.free_module(&old.m);
    if (old.mem) old.release(old.mem);
    pthread_mutex_lock(&s->mu);
    s->evicting--;
    pthread_mutex_unlock(&s->mu);
  }
  return ok;
}

static void *take_mem(void *user, const char *key) {
  sdk_session *s = user;
  void *mem = NULL;
  pthread_mutex_lock(&s->mu);
  for (int i = 0; i < s->nkept && !mem; i++)
    if (s->k[i].mem && !strcmp(s->k[i].key, key)) mem = unshelve(s, i).mem;
  pthread_mutex_unlock(&s->mu);
  return mem;
}

/* (several blocks under one key: the shards of a run, each its own) */
static int put_mem(void *user, const char *key, void *mem, void (*release)(void *mem)) {
  sdk_session *s = user;
  kept old = {0};
  int ok = 0;
  pthread_mutex_lock(&s->mu);
  if (!s->closing && strlen(key) < sizeof s->k[0].key) {
    int nmem = 0, first = -1;
    for (int i = 0; i < s->nkept; i++)
      if (s->k[i].mem) nmem++, first = first < 0 ? i : first;
    if (nmem >= MEM_MAX || (s->nkept == SHELF_MAX && first >= 0)) old = unshelve(s, first);
    ok = s->nkept < SHELF_MAX;
  }
  if (ok) {
    kept *k = shelve(s, key);
    k->mem = mem;
    k->release = release;
  }
  pthread_mutex_unlock(&s->mu);
  if (old.mem) old.release(old.mem);
  return ok;
}

static void drop_mem(void *user, const char *prefix) {
  sdk_session *s = user;
  size_t n = strlen(prefix);
  for (;;) {
    kept k = {0};
    pthread_mutex_lock(&s->mu);
    for (int i = 0; i < s->nkept && !k.mem; i++)
      if (s->k[i].mem && !strncmp(s->k[i].key, prefix, n)) k = unshelve(s, i);
    pthread_mutex_unlock(&s->mu);
    if (!k.mem) return;
    k.release(k.mem);
  }
}

int sdk_session_identity(sdk_session *s, const char *src, char out[33]) {
  if (!s) return 0;
  size_t len = strlen(src);
  int hit = 0;
  pthread_mutex_lock(&s->mu);
  for (int i = 0; i < s->nident && !hit; i++)
    if (s->id[i].len == len && !memcmp(s->id[i].src, src, len)) {
      memcpy(out, s->id[i].ident, 33);
      hit = 1;
    }
  pthread_mutex_unlock(&s->mu);
  return hit;
}

void sdk_session_identity_put(sdk_session *s, const char *src, const char ident[33]) {
  if (!s) return;
  size_t len = strlen(src);
  char *copy = malloc(len + 1);
  if (!copy) return;
  memcpy(copy, src, len + 1);
  char *old = NULL;
  pthread_mutex_lock(&s->mu);
  if (s->nident == IDENT_MAX) old = s->id[--s->nident].src;
  memmove(&s->id[1], &s->id[0], (size_t)s->nident * sizeof s->id[0]);
  s->id[0].src = copy;
  s->id[0].len = len;
  memcpy(s->id[0].ident, ident, 33);
  s->nident++;
  pthread_mutex_unlock(&s->mu);
  free(old);
}

const sdk_module_shelf *sdk_session_shelf(const sdk_session *s) {
  return s ? &s->shelf : NULL;
}

sdk_err sdk_session_create(sdk_session **out, sdk_errbuf *eb) {
  *out = calloc(1, sizeof **out);
  if (!*out) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  pthread_mutex_init(&(*out)->mu, NULL);
  (*out)->shelf = (sdk_module_shelf){.user = *out,
                                     .take = take,
                                     .put = put,
                                     .take_mem = take_mem,
                                     .put_mem = put_mem,
                                     .drop_mem = drop_mem};
  return SDK_OK;
}

void sdk_session_destroy(sdk_session **sp) {
  if (!sp || !*sp) return;
  sdk_session *s = *sp;
  /* the modules first, while the contexts they live in are held */
  pthread_mutex_lock(&s->mu);
  s->closing = 1;
  pthread_mutex_unlock(&s->mu);
  for (int i = 0; i < s->nkept; i++) {
    if (s->k[i].m) s->k[i].free_module(&s->k[i].m);
    if (s->k[i].mem) s->k[i].release(s->k[i].mem);
  }
  for (int i = 0; i < s->n; i++)
    s->h[i].be->close(&s->h[i].ctx);
  for (int i = 0; i < s->nident; i++)
    free(s->id[i].src);
  pthread_mutex_destroy(&s->mu);
  free(s);
  *sp = NULL;
}

void sdk_session_hold(sdk_session *s, const sdk_backend *be, const sdk_backend_opts *bo,
                      int device) {
  if (!s || !be->device) return;
  pthread_mutex_lock(&s->mu);
  int found = 0;
  for (int i = 0; i < s->n && !found; i++)
    found = s->h[i].be == be && s->h[i].device == device;
  sdk_bctx *ctx = NULL;
  if (!found && s->n < SESSION_MAX && be->open(bo, &ctx, NULL) == SDK_OK)
    s->h[s->n++] = (held){.be = be, .device = device, .ctx = ctx};
  pthread_mutex_unlock(&s->mu);
}

int sdk_session_held(const sdk_session *s) {
  return s ? s->n : 0;
}

int sdk_session_kept(const sdk_session *s) {
  int n = 0;
  for (int i = 0; s && i < s->nkept; i++)
    n += s->k[i].m != NULL;
  return n;
}

int sdk_session_kept_mem(const sdk_session *s) {
  int n = 0;
  for (int i = 0; s && i < s->nkept; i++)
    n += s->k[i].mem != NULL;
  return n;
}
