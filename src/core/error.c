#include "core/error.h"

#include <stdio.h>

const char *sdk_err_name(sdk_err e) {
  switch (e) {
  case SDK_OK: return "ok";
  case SDK_ERR_USAGE: return "usage";
  case SDK_ERR_MODEL: return "model";
  case SDK_ERR_COMPILE: return "compile";
  case SDK_ERR_IO: return "io";
  case SDK_ERR_NOMEM: return "out of memory";
  case SDK_ERR_BACKEND: return "backend";
  case SDK_ERR_NONFINITE: return "non-finite";
  case SDK_ERR_FORMAT: return "format";
  case SDK_ERR_INTERRUPTED: return "interrupted";
  case SDK_ERR_INTERNAL: return "internal";
  }
  return "unknown";
}

sdk_err sdk_error_at(sdk_errbuf *eb, sdk_err e, const char *file, int line, const char *fmt, ...) {
  if (!eb || eb->msg[0]) return e; /* keep the first, most specific message */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(eb->msg, sizeof eb->msg, fmt, ap);
  va_end(ap);
  eb->file = file;
  eb->line = line;
  return e;
}

int sdk_err_exit_status(sdk_err e) {
  switch (e) {
  case SDK_OK: return 0;
  case SDK_ERR_USAGE:
  case SDK_ERR_MODEL:
  case SDK_ERR_COMPILE:
  case SDK_ERR_FORMAT: return 2;
  default: return 1;
  }
}
