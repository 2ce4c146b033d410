/* Escaping for gnuplot scripts: see gnuplot.h for the rules and why. */
#include "cli/gnuplot.h"

#include <string.h>

/* Length of the well-formed UTF-8 sequence at s for a code point >= U+00A0
 * (no overlong forms, no surrogates, at most U+10FFFF), else 0. */
static int utf8_len(const unsigned char *s) {
  unsigned c = s[0];
  int n;
  unsigned cp;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  for (int i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (s[i] & 0x3F);
  }
  if (cp < 0xA0 || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

void sdk_gp_text(sdk_strbuf *b, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned c = *p;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        (c && strchr(" .,:;=+-*/()[]<>!?#%'|$", (int)c))) {
      sdk_sb_putn(b, (const char *)p, 1);
      p++;
    } else if (c && strchr("_^@&~{}", (int)c)) {
      /* in the script "\\_" is the string \_, which enhanced text shows as _ */
      sdk_sb_printf(b, "\\\\%c", (int)c);
      p++;
    } else if (c == '\\') {
      /* the string \\, which enhanced text shows as one backslash */
      sdk_sb_puts(b, "\\\\\\\\");
      p++;
    } else if (c == '"') {
      sdk_sb_puts(b, "\\\"");
      p++;
    } else if (c >= 0x80 && utf8_len(p) > 0) {
      int n = utf8_len(p);
      sdk_sb_putn(b, (const char *)p, (size_t)n);
      p += n;
    } else {
      sdk_sb_puts(b, "?");
      p++;
    }
  }
}
