/* The public API: version, status codes, error reports. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

/* the public codes are the internal ones, number for number */
_Static_assert(SDEKIT_ERR_USAGE == (int)SDK_ERR_USAGE, "status codes");
_Static_assert(SDEKIT_ERR_MODEL == (int)SDK_ERR_MODEL, "status codes");
_Static_assert(SDEKIT_ERR_COMPILE == (int)SDK_ERR_COMPILE, "status codes");
_Static_assert(SDEKIT_ERR_IO == (int)SDK_ERR_IO, "status codes");
_Static_assert(SDEKIT_ERR_NOMEM == (int)SDK_ERR_NOMEM, "status codes");
_Static_assert(SDEKIT_ERR_BACKEND == (int)SDK_ERR_BACKEND, "status codes");
_Static_assert(SDEKIT_ERR_NONFINITE == (int)SDK_ERR_NONFINITE, "status codes");
_Static_assert(SDEKIT_ERR_FORMAT == (int)SDK_ERR_FORMAT, "status codes");
_Static_assert(SDEKIT_ERR_CANCELLED == (int)SDK_ERR_INTERRUPTED, "status codes");
_Static_assert(SDEKIT_ERR_INTERNAL == (int)SDK_ERR_INTERNAL, "status codes");
_Static_assert(SDEKIT_LOG_DEBUG == (int)SDK_LOG_DEBUG && SDEKIT_LOG_WARN == (int)SDK_LOG_WARN,
               "log levels");

SDEKIT_API const char *sdekit_version(void) {
  return SDEKIT_VERSION_STRING;
}

SDEKIT_API int sdekit_version_number(void) {
  return SDEKIT_VERSION_NUMBER;
}

SDEKIT_API const char *sdekit_status_name(sdekit_status s) {
  if (s == SDEKIT_ERR_CANCELLED) return "cancelled";
  return sdk_err_name((sdk_err)s);
}

SDEKIT_API int sdekit_status_exit_code(sdekit_status s) {
  return sdk_err_exit_status((sdk_err)s);
}

SDEKIT_API void sdekit_free(void *p) {
  free(p);
}

void api_ok(sdekit_error *err) {
  if (err) memset(err, 0, sizeof *err);
}

sdekit_status api_fail(sdekit_error *err, sdk_err e, const sdk_errbuf *eb) {
  if (!err) return (sdekit_status)e;
  memset(err, 0, sizeof *err);
  err->status = (sdekit_status)e;
  snprintf(err->message, sizeof err->message, "%s", eb && eb->msg[0] ? eb->msg : sdk_err_name(e));
  size_t n = strlen(err->message);
  while (n > 0 && err->message[n - 1] == '\n')
    err->message[--n] = 0;
  if (eb) {
    err->source_file = eb->file;
    err->source_line = eb->line;
    err->alone = eb->alone;
  }
  return err->status;
}

/* Model messages start "PATH:LINE: " or "PATH: " (model/), PATH being the
 * file the model was read from: the path given, or DIR/NAME.sde found for a
 * bare name.  The file and the line are read back from there. */
sdekit_status api_fail_model(sdekit_error *err, sdk_err e, const sdk_errbuf *eb, const char *path) {
  sdekit_status s = api_fail(err, e, eb);
  if (!err || e != SDK_ERR_MODEL) return s;
  const char *m = err->message;
  size_t n = 0;
  if (path && *path && !strncmp(m, path, strlen(path)) && m[strlen(path)] == ':')
    n = strlen(path);
  else if (strstr(m, ".sde:"))
    n = (size_t)(strstr(m, ".sde:") - m) + 4;
  if (n == 0 || n >= sizeof err->file) return s;
  snprintf(err->file, sizeof err->file, "%.*s", (int)n, m);
  const char *p = m + n + 1;
  int line = 0;
  while (*p >= '0' && *p <= '9' && line < 100000000)
    line = line * 10 + (*p++ - '0');
  if (p > m + n + 1 && *p == ':') err->line = line;
  return s;
}

sdekit_status api_usage(sdekit_error *err, const char *fmt, ...) {
  sdk_errbuf eb = {0};
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(eb.msg, sizeof eb.msg, fmt, ap);
  va_end(ap);
  return api_fail(err, SDK_ERR_USAGE, &eb);
}

sdekit_status api_nomem(sdekit_error *err) {
  sdk_errbuf eb = {0};
  snprintf(eb.msg, sizeof eb.msg, "out of memory");
  return api_fail(err, SDK_ERR_NOMEM, &eb);
}

int api_set_str(char **slot, const char *s) {
  char *copy = NULL;
  if (s && !(copy = strdup(s))) return SDK_ERR_NOMEM;
  free(*slot);
  *slot = copy;
  return SDK_OK;
}
