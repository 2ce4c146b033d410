/* Errors in the command-line tool's own code (see status.h). */
#include "figure/status.h"

#include <stdarg.h>
#include <stdio.h>

sdekit_status cli_raise_at(sdekit_error *err, sdekit_status s, const char *file, int line,
                           const char *fmt, ...) {
  if (!err || err->message[0]) return s;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  err->status = s;
  err->file[0] = 0;
  err->line = 0;
  err->source_file = file;
  err->source_line = line;
  return s;
}
