/* A session's held backends (sim/session.h). */
#include "sim/session.h"

#include <pthread.h>
#include <stdlib.h>

#define SESSION_MAX 16

typedef struct held {
  const sdk_backend *be;
  int device;
  sdk_bctx *ctx;
} held;

struct sdk_session {
  pthread_mutex_t mu;
  int n;
  held h[SESSION_MAX];
};

sdk_err sdk_session_create(sdk_session **out, sdk_errbuf *eb) {
  *out = calloc(1, sizeof **out);
  if (!*out) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  pthread_mutex_init(&(*out)->mu, NULL);
  return SDK_OK;
}

void sdk_session_destroy(sdk_session **sp) {
  if (!sp || !*sp) return;
  sdk_session *s = *sp;
  for (int i = 0; i < s->n; i++)
    s->h[i].be->close(&s->h[i].ctx);
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
