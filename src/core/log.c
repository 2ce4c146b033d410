#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>

void sdk_log(const sdk_logger *lg, sdk_log_level level, const char *fmt, ...) {
  if (!lg || !lg->fn || level < lg->min_level) return;
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  lg->fn(lg->user, level, msg);
}
