/* A kernel's identity over its normalised source (identity.h). */
#include "codegen/identity.h"

#include <string.h>

/* identifier and number characters (ASCII, whatever the locale) */
static int word(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.';
}

/* Would a and b, written side by side, read as one token (or start a
 * comment, or glue a prefix to a literal, or an exponent to its sign)? */
static int joins(char a, char b) {
  /* (every pair with its space, the last too: the scan steps by 3) */
  static const char PAIRS[] = "++ -- -> && || << >> <= >= == != += -= *= /= %= &= |= ^= ## :: "
                              "/* // <: :> <% %> %: ";
  if (word(a) && (word(b) || b == '"' || b == '\'')) return 1;
  if ((a == 'e' || a == 'E' || a == 'p' || a == 'P') && (b == '+' || b == '-')) return 1;
  for (const char *p = PAIRS; *p; p += 3)
    if (p[0] == a && p[1] == b) return 1;
  return 0;
}

static int blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* s at the '#' of a directive: is it #line or a line marker `# N`? */
static int line_directive(const char *s) {
  s++;
  while (blank(*s))
    s++;
  if (*s >= '0' && *s <= '9') return 1;
  return !strncmp(s, "line", 4) && !word(s[4]);
}

/* past the end of the logical line at s (splices continue it) */
static const char *line_end(const char *s) {
  while (*s && *s != '\n')
    s += s[0] == '\\' && s[1] == '\n' ? 2 : 1;
  return s;
}

/* a string or character literal at s, copied; returns what follows it */
static const char *literal(const char *s, sdk_strbuf *out) {
  const char *p = s + 1;
  while (*p && *p != *s && *p != '\n')
    p += p[0] == '\\' && p[1] ? 2 : 1;
  if (*p == *s) p++;
  sdk_sb_putn(out, s, (size_t)(p - s));
  return p;
}

void sdk_cg_normalise(const char *s, sdk_strbuf *out) {
  int bol = 1;   /* only blanks since the line began */
  int dir = 0;   /* in a preprocessor directive (its newline is kept) */
  int space = 0; /* blanks or a comment since the last character written */
  char last = 0; /* the last character written (0: none yet) */
  while (*s) {
    if (s[0] == '\\' && s[1] == '\n') {
      s += 2;
    } else if (*s == '\n') {
      if (dir) sdk_sb_putn(out, "\n", 1), last = '\n';
      dir = 0, bol = 1, space = 1, s++;
    } else if (blank(*s)) {
      space = 1, s++;
    } else if (s[0] == '/' && s[1] == '*') {
      const char *e = strstr(s + 2, "*/");
      s = e ? e + 2 : s + strlen(s);
      space = 1;
    } else if (s[0] == '/' && s[1] == '/') {
      s = line_end(s);
      space = 1;
    } else if (bol && *s == '#' && line_directive(s)) {
      s = line_end(s);
    } else {
      if (bol && *s == '#') {
        dir = 1;
        if (last && last != '\n') sdk_sb_putn(out, "\n", 1);
        last = '\n';
      }
      if (space && last && last != '\n' && joins(last, *s)) sdk_sb_putn(out, " ", 1);
      bol = 0, space = 0;
      if (*s == '"' || *s == '\'') {
        last = *s;
        s = literal(s, out);
      } else {
        /* with it the run of characters that none of the cases above
         * treats apart (bol and space are 0 from here): one copy, not one
         * a character (a repeated call normalises its kernel, issue 32) */
        size_t n = 1;
        while (s[n] && !strchr("\n/\"'\\", s[n]) && !blank(s[n]))
          n++;
        last = s[n - 1];
        sdk_sb_putn(out, s, n);
        s += n;
      }
    }
  }
}

sdk_err sdk_cg_identity(const char *src, char out[33], sdk_errbuf *eb) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_cg_normalise(src, &b);
  if (b.oom) {
    sdk_sb_free(&b);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory hashing the kernel source");
  }
  sdk_hash_hex(b.s ? b.s : "", b.len, out);
  sdk_sb_free(&b);
  return SDK_OK;
}
