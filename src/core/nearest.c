/* sdekit: the nearest name (optimal string alignment distance). */
#include "core/nearest.h"

#include <string.h>

/* long enough for every option and command name; longer words are no typo
 * of one */
#define NEAREST_MAX 64

static int same(char a, char b) {
  return a == b || ((a == '-' || a == '_') && (b == '-' || b == '_'));
}

static size_t min3(size_t a, size_t b, size_t c) {
  size_t m = a < b ? a : b;
  return m < c ? m : c;
}

/* the distance of a (la chars) and b (lb chars), both < NEAREST_MAX: three
 * rows of the dynamic programme suffice for the adjacent swap */
static size_t distance(const char *a, size_t la, const char *b, size_t lb) {
  size_t rows[3][NEAREST_MAX + 1];
  size_t *pp = rows[0], *p = rows[1], *d = rows[2];
  for (size_t j = 0; j <= lb; j++)
    p[j] = j;
  for (size_t i = 1; i <= la; i++) {
    d[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t cost = same(a[i - 1], b[j - 1]) ? 0 : 1;
      d[j] = min3(p[j] + 1, d[j - 1] + 1, p[j - 1] + cost);
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]) &&
          pp[j - 2] + 1 < d[j])
        d[j] = pp[j - 2] + 1;
    }
    size_t *t = pp;
    pp = p;
    p = d;
    d = t;
  }
  return p[lb];
}

int sdk_nearest(const char *word, const char *const *names, size_t n) {
  size_t lw = word ? strlen(word) : 0;
  if (lw < 2 || lw >= NEAREST_MAX) return -1;
  int best = -1;
  size_t bestd = (size_t)-1;
  for (size_t i = 0; i < n; i++) {
    size_t ln = names[i] ? strlen(names[i]) : 0;
    if (!ln || ln >= NEAREST_MAX) continue;
    size_t d = distance(word, lw, names[i], ln);
    size_t lim = (lw > ln ? lw : ln) / 3;
    if (d <= (lim ? lim : 1) && d < bestd) {
      best = (int)i;
      bestd = d;
    }
  }
  return best;
}
