/* The public face of sim/session.h: many runs in one process (include/sdekit.h). */
#include <stdlib.h>

#include "api/api.h"
#include "sim/session.h"

struct sdekit_session {
  sdk_session *s;
};

SDEKIT_API sdekit_status sdekit_session_create(sdekit_session **out, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!out) return api_usage(err, "sdekit_session_create: no place for the session");
  *out = NULL;
  sdekit_session *s = calloc(1, sizeof *s);
  if (!s) return api_nomem(err);
  sdk_errbuf eb = {0};
  sdk_err e = sdk_session_create(&s->s, &eb);
  if (e != SDK_OK) {
    free(s);
    return api_fail(err, e, &eb);
  }
  *out = s;
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API void sdekit_session_destroy(sdekit_session **s) {
  if (!s || !*s) return;
  sdk_session_destroy(&(*s)->s);
  free(*s);
  *s = NULL;
}

SDEKIT_API sdekit_status sdekit_config_set_session(sdekit_config *c, sdekit_session *s,
                                                   sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!c) return api_usage(err, "no configuration");
  c->c.session = s ? s->s : NULL;
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API int sdekit_session_held(const sdekit_session *s) {
  return s ? sdk_session_held(s->s) : 0;
}
