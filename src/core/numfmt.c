#include "core/numfmt.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *sdk_fmt_exact(char *buf, double x) {
  if (isnan(x)) {
    strcpy(buf, "nan");
    return buf;
  }
  for (int p = 15; p <= 17; p++) {
    snprintf(buf, 32, "%.*g", p, x);
    if (strtod(buf, NULL) == x) break;
  }
  return buf;
}

char *sdk_fmt_literal(char *buf, double v, int single) {
  float f = (float)v;
  if (single && (isfinite(f) || !isfinite(v)))
    snprintf(buf, 40, "%.9g", (double)f);
  else
    snprintf(buf, 40, "%.17g", v);
  if (!strpbrk(buf, ".eEn")) strcat(buf, ".0");
  if (single) strcat(buf, "f");
  return buf;
}

char *sdk_fmt_stat(char *buf, double x) {
  if (isnan(x))
    strcpy(buf, "nan");
  else
    snprintf(buf, 32, "%.10g", x);
  return buf;
}

int sdk_parse_decimal(const char *s, double *out) {
  if (!s) return 0;
  while (isspace((unsigned char)*s))
    s++;
  if (!*s) return 0;
  for (const char *p = s; *p; p++)
    if (!(isdigit((unsigned char)*p) || strchr("+-.eE \t", *p))) return 0;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno == ERANGE || !isfinite(v)) return 0;
  while (isspace((unsigned char)*end))
    end++;
  if (*end) return 0;
  *out = v;
  return 1;
}
