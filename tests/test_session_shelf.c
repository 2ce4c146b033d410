/* A session's shelf of device memory (sim/session.h, backend.h take_mem,
 * put_mem, drop_mem; issue 32): what the CUDA backend relies on, tested with
 * blocks that are plain host memory, so that it runs without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/session.h"
#include "testutil.h"

static int released; /* blocks released so far */

static void release(void *mem) {
  released++;
  free(mem);
}

static int *block(int id) {
  int *b = malloc(sizeof *b);
  if (b) *b = id;
  return b;
}

static void test_take_put(void) {
  sdk_session *s = NULL;
  TU_CHECK(sdk_session_create(&s, NULL) == SDK_OK && s, "a session");
  if (!s) return;
  const sdk_module_shelf *sh = sdk_session_shelf(s);
  released = 0;
  TU_CHECK(sh->take_mem(sh->user, "cuda-mem 0/state 100") == NULL, "nothing kept at first");
  /* two blocks under one key (two shards of one size): both kept, each taken once */
  TU_CHECK(sh->put_mem(sh->user, "cuda-mem 0/state 100", block(1), release) &&
               sh->put_mem(sh->user, "cuda-mem 0/state 100", block(2), release) &&
               sh->put_mem(sh->user, "cuda-mem 1/state 100", block(3), release),
           "blocks kept");
  TU_CHECK(sdk_session_kept_mem(s) == 3 && sdk_session_kept(s) == 0, "3 blocks, no module");
  int *a = sh->take_mem(sh->user, "cuda-mem 0/state 100");
  int *b = sh->take_mem(sh->user, "cuda-mem 0/state 100");
  TU_CHECK(a && b && *a == 1 && *b == 2, "taken in the order they were put");
  TU_CHECK(sh->take_mem(sh->user, "cuda-mem 0/state 100") == NULL, "a block is taken once");
  TU_CHECK(sh->take_mem(sh->user, "cuda-mem 0/state 101") == NULL, "another size is another key");
  free(a);
  free(b);
  /* drop_mem releases a device's blocks alone */
  TU_CHECK(sh->put_mem(sh->user, "cuda-mem 0/red 8", block(4), release), "kept");
  sh->drop_mem(sh->user, "cuda-mem 0/");
  TU_CHECK(released == 1 && sdk_session_kept_mem(s) == 1, "device 0's block released (%d)",
           released);
  int *c = sh->take_mem(sh->user, "cuda-mem 1/state 100");
  TU_CHECK(c && *c == 3, "device 1's block still kept");
  free(c);
  /* at most 16 blocks: the oldest released first */
  released = 0;
  for (int i = 0; i < 20; i++) {
    char key[64];
    snprintf(key, sizeof key, "cuda-mem 0/state %d", i);
    TU_CHECK(sh->put_mem(sh->user, key, block(i), release), "block %d kept", i);
  }
  TU_CHECK(sdk_session_kept_mem(s) == 16 && released == 4, "16 kept, 4 released (%d, %d)",
           sdk_session_kept_mem(s), released);
  TU_CHECK(sh->take_mem(sh->user, "cuda-mem 0/state 3") == NULL, "the oldest went first");
  int *d = sh->take_mem(sh->user, "cuda-mem 0/state 4");
  TU_CHECK(d && *d == 4, "the fifth is kept");
  free(d);
  /* the session releases what it keeps */
  released = 0;
  sdk_session_destroy(&s);
  TU_CHECK(released == 15 && s == NULL, "destroy released the 15 left (%d)", released);
}

/* Fake modules that, like the backends', try the shelf again when freed. */
static int freed;
static const sdk_module_shelf *fake_shelf;

static void free_fake(struct sdk_module **m) {
  if (!m || !*m) return;
  int *id = (int *)*m;
  char key[64];
  snprintf(key, sizeof key, "cpu-%d", *id);
  if (fake_shelf && fake_shelf->put(fake_shelf->user, key, *m, free_fake)) {
    *m = NULL;
    return;
  }
  freed++;
  free(*m);
  *m = NULL;
}

/* A full shelf of modules lets the least recently put go: it refused every
 * module after its first 48, so a long process reloaded those from disk at
 * every run. */
static void test_modules_full(void) {
  sdk_session *s = NULL;
  TU_CHECK(sdk_session_create(&s, NULL) == SDK_OK && s, "a session");
  if (!s) return;
  fake_shelf = sdk_session_shelf(s);
  freed = 0;
  for (int i = 0; i < 60; i++) {
    struct sdk_module *m = (struct sdk_module *)block(i);
    free_fake(&m); /* (a run's end: the module goes back to the shelf) */
    TU_CHECK(m == NULL, "module %d put on the shelf", i);
  }
  TU_CHECK(sdk_session_kept(s) == 48 && freed == 12, "48 kept, the 12 oldest freed (%d, %d)",
           sdk_session_kept(s), freed);
  TU_CHECK(fake_shelf->take(fake_shelf->user, "cpu-11") == NULL, "the oldest went first");
  struct sdk_module *t = fake_shelf->take(fake_shelf->user, "cpu-12");
  TU_CHECK(t && *(int *)t == 12, "the 13th is kept");
  free_fake(&t); /* (put back: now the most recent) */
  struct sdk_module *n = (struct sdk_module *)block(60);
  free_fake(&n);
  t = fake_shelf->take(fake_shelf->user, "cpu-12");
  TU_CHECK(t && freed == 13, "a module taken and put back is the newest (%d freed)", freed);
  free_fake(&t);
  sdk_session_destroy(&s);
  fake_shelf = NULL;
  TU_CHECK(freed == 61, "destroy freed the rest (%d)", freed);
}

int main(void) {
  test_take_put();
  test_modules_full();
  return tu_finish("session_shelf");
}
