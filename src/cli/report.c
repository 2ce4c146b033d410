#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/escape.h"
#include "core/strbuf.h"

static void put_error(const char *fmt, va_list ap) {
  char msg[4096];
  vsnprintf(msg, sizeof msg, fmt, ap);
  size_t n = strlen(msg);
  while (n > 0 && msg[n - 1] == '\n')
    msg[--n] = 0;
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_esc_term(&b, msg);
  fprintf(stderr, "sdekit: error: %s\n", b.s && !b.oom ? b.s : "(message lost: out of memory)");
  sdk_sb_free(&b);
}

void cli_error(const char *fmt, ...) {
  if (cli_rank() != 0) return; /* every rank has it: rank 0 says it */
  va_list ap;
  va_start(ap, fmt);
  put_error(fmt, ap);
  va_end(ap);
}

void cli_error_rank(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  put_error(fmt, ap);
  va_end(ap);
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

const char *cli_backend_names(char *buf, size_t n, const char *sep, const char *last) {
  size_t at = 0;
  buf[0] = 0;
  for (int i = 0; sdekit_registry_name("backend", i) && at < n; i++) {
    const char *s = i == 0 ? "" : sdekit_registry_name("backend", i + 1) ? sep : last;
    int k = snprintf(buf + at, n - at, "%s%s", s, sdekit_registry_name("backend", i));
    at += k > 0 ? (size_t)k : 0;
  }
  return buf;
}
