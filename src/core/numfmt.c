#include "core/numfmt.h"

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

char *sdk_fmt_stat(char *buf, double x) {
  if (isnan(x))
    strcpy(buf, "nan");
  else
    snprintf(buf, 32, "%.10g", x);
  return buf;
}
