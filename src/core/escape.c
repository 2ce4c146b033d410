#include "core/escape.h"

#include <string.h>

int sdk_is_identifier(const char *s, int maxlen) {
  if (!s || !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_')) return 0;
  int n = 0;
  for (; *s; s++, n++) {
    char c = *s;
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
      return 0;
  }
  return maxlen <= 0 || n <= maxlen;
}

void sdk_esc_c(sdk_strbuf *b, const char *s) {
  static const char plain[] = " _.,:;=+-()[]{}#<>!~^&|%@$'";
  sdk_sb_puts(b, "\"");
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    unsigned c = *p;
    int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
             (c != 0 && strchr(plain, (int)c) != NULL);
    if (ok)
      sdk_sb_putn(b, (const char *)p, 1);
    else
      sdk_sb_printf(b, "\\%03o", c);
  }
  sdk_sb_puts(b, "\"");
}

/* length of a well-formed UTF-8 sequence at p that is not a C1 control, else 0 */
static int utf8_len(const unsigned char *p) {
  unsigned c = p[0];
  int n;
  unsigned min;
  if (c >= 0xC2 && c <= 0xDF)
    n = 2, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF)
    n = 3, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4)
    n = 4, min = 0x10000;
  else
    return 0;
  unsigned cp = c & (0x7F >> n);
  for (int i = 1; i < n; i++) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  if (cp >= 0x80 && cp <= 0x9F) return 0; /* C1 controls (CSI is U+009B) */
  return n;
}

void sdk_esc_term(sdk_strbuf *b, const char *s) {
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
    unsigned c = *p;
    if (c == '\\') {
      sdk_sb_puts(b, "\\\\");
      p++;
    } else if (c == '\n') {
      sdk_sb_puts(b, "\\n");
      p++;
    } else if (c == '\t') {
      sdk_sb_puts(b, "\\t");
      p++;
    } else if (c >= 0x20 && c < 0x7F) {
      sdk_sb_putn(b, (const char *)p, 1);
      p++;
    } else {
      int n = c >= 0x80 ? utf8_len(p) : 0;
      if (n > 0) {
        sdk_sb_putn(b, (const char *)p, (size_t)n);
        p += n;
      } else {
        sdk_sb_printf(b, "\\x%02X", c);
        p++;
      }
    }
  }
}

char *sdk_esc_term_buf(const char *s, char *out, size_t n) {
  if (!out || n == 0) return out;
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_esc_term(&b, s);
  if (b.oom || !b.s) {
    out[0] = 0;
  } else {
    size_t k = b.len < n - 1 ? b.len : n - 1;
    memcpy(out, b.s, k);
    out[k] = 0;
  }
  sdk_sb_free(&b);
  return out;
}
