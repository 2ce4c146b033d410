#include "core/strbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sdk_sb_init(sdk_strbuf *b) {
  memset(b, 0, sizeof *b);
}

void sdk_sb_free(sdk_strbuf *b) {
  free(b->s);
  memset(b, 0, sizeof *b);
}

static int sb_reserve(sdk_strbuf *b, size_t extra) {
  if (b->oom || b->over) return 0;
  if (b->max > 0 && (extra > b->max || b->len > b->max - extra)) {
    b->over = 1;
    return 0;
  }
  if (b->len + extra + 1 <= b->cap) return 1;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1)
    cap *= 2;
  char *s = realloc(b->s, cap);
  if (!s) {
    b->oom = 1;
    return 0;
  }
  b->s = s;
  b->cap = cap;
  return 1;
}

void sdk_sb_putn(sdk_strbuf *b, const char *s, size_t n) {
  if (!sb_reserve(b, n)) return;
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = 0;
}

void sdk_sb_puts(sdk_strbuf *b, const char *s) {
  sdk_sb_putn(b, s, strlen(s));
}

void sdk_sb_printf(sdk_strbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || !sb_reserve(b, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

char *sdk_sb_take(sdk_strbuf *b) {
  if (b->oom || b->over) { /* (never a truncated text) */
    sdk_sb_free(b);
    return NULL;
  }
  if (!b->s) sdk_sb_puts(b, "");
  char *s = b->s;
  memset(b, 0, sizeof *b);
  return s;
}

char *sdk_strdup(const char *s) {
  return s ? sdk_strndup(s, strlen(s)) : NULL;
}

char *sdk_strndup(const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (!d) return NULL;
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

char *sdk_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  sdk_strbuf b;
  sdk_sb_init(&b);
  char chunk[8192];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    sdk_sb_putn(&b, chunk, n);
  int bad = ferror(f);
  fclose(f);
  if (bad || b.oom) {
    sdk_sb_free(&b);
    errno = bad ? EIO : ENOMEM;
    return NULL;
  }
  if (len) *len = b.len;
  return sdk_sb_take(&b);
}

void sdk_hash_hex(const void *data, size_t n, char out[33]) {
  const unsigned char *p = data;
  uint64_t h1 = 0xcbf29ce484222325ull, h2 = 0x84222325cbf29ce4ull;
  for (size_t i = 0; i < n; i++) {
    h1 = (h1 ^ p[i]) * 0x100000001b3ull;
    h2 = (h2 ^ p[i]) * 0x00000100000001b3ull;
    h2 ^= h2 >> 29;
  }
  /* final avalanche so that short inputs spread over all bits */
  h1 ^= h1 >> 33;
  h1 *= 0xff51afd7ed558ccdull;
  h1 ^= h1 >> 33;
  h2 ^= h2 >> 31;
  h2 *= 0xc4ceb9fe1a85ec53ull;
  h2 ^= h2 >> 33;
  snprintf(out, 33, "%016llx%016llx", (unsigned long long)h1, (unsigned long long)h2);
}
