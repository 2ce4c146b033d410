/* Growable string used by the code generator and the writers. */
#ifndef SDK_STRBUF_H
#define SDK_STRBUF_H
#include <stddef.h>

typedef struct sdk_strbuf {
  char *s;
  size_t len, cap;
  int oom; /* set when an allocation failed; further appends are ignored */
  /* > 0: the text may not grow past max bytes; an append that would is
   * dropped with every later one and `over` is set (the code generator's
   * cap, checked as the text grows so that it never gets near memory's end) */
  size_t max;
  int over;
} sdk_strbuf;

void sdk_sb_init(sdk_strbuf *b);
void sdk_sb_free(sdk_strbuf *b);
void sdk_sb_puts(sdk_strbuf *b, const char *s);
void sdk_sb_putn(sdk_strbuf *b, const char *s, size_t n);
void sdk_sb_printf(sdk_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Take ownership of the string (NULL after oom or over, never a truncated
 * text). */
char *sdk_sb_take(sdk_strbuf *b);

char *sdk_strdup(const char *s);
char *sdk_strndup(const char *s, size_t n);
/* Read a whole file; NULL with errno set on failure. */
char *sdk_read_file(const char *path, size_t *len);

/* 128-bit FNV-1a style hash (two independent 64-bit lanes) as 32 hex chars. */
void sdk_hash_hex(const void *data, size_t n, char out[33]);

#endif
