#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/escape.h"
#include "core/strbuf.h"

void cli_error(const char *fmt, ...) {
  char msg[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  size_t n = strlen(msg);
  while (n > 0 && msg[n - 1] == '\n')
    msg[--n] = 0;
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_esc_term(&b, msg);
  fprintf(stderr, "sdekit: error: %s\n", b.s && !b.oom ? b.s : "(message lost: out of memory)");
  sdk_sb_free(&b);
}

void cli_put_escaped(FILE *f, const char *s) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_esc_term(&b, s);
  if (b.s && !b.oom) fputs(b.s, f);
  sdk_sb_free(&b);
}

void cli_log(void *user, sdekit_log_level level, const char *msg) {
  (void)user;
  (void)level;
  fputs(msg, stderr);
}
