#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int sdk_log_on(const sdk_logger *lg, sdk_log_level level) {
  return lg && lg->fn && level >= lg->min_level;
}

void sdk_log(const sdk_logger *lg, sdk_log_level level, const char *fmt, ...) {
  if (!sdk_log_on(lg, level)) return;
  char msg[2048], *big = NULL;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (n >= (int)sizeof msg && (big = malloc((size_t)n + 1))) { /* whole, however long */
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  lg->fn(lg->user, level, big ? big : msg);
  free(big);
}
