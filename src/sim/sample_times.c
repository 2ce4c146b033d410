/* --sample-times: parsing the times and the step that fits them
 * (sim/sample_times.h); the plan maps them to steps (plan_times.c). */
#include "sim/sample_times.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "sim/run.h"

#define SYNTAX                                                                                     \
  "expected increasing times T1,T2,... or lin:A:B:N or log:A:B:N (N >= 2 times from A to B, "      \
  "optionally :round)"

void sdk_sample_times_free(sdk_sample_times *st) {
  free(st->t);
  memset(st, 0, sizeof *st);
}

/* lin:A:B:N[:round] | log:A:B:N[:round], fields split by hand so that an
 * empty one is an error */
static sdk_err parse_spaced(const char *spec, sdk_sample_times *st, sdk_errbuf *eb) {
  char *copy = strdup(spec), *f[6] = {0};
  if (!copy) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  int nf = 0;
  for (char *p = copy; nf < 6;) {
    f[nf++] = p;
    char *c = strchr(p, ':');
    if (!c) break;
    *c = 0;
    p = c + 1;
  }
  sdk_scan_axis ax;
  memset(&ax, 0, sizeof ax);
  snprintf(ax.name, sizeof ax.name, "--sample-times");
  double n = 0;
  int ok = (nf == 4 || (nf == 5 && !strcmp(f[4], "round"))) && sdk_parse_number(f[1], &ax.start) &&
           sdk_parse_number(f[2], &ax.stop) && sdk_parse_number(f[3], &n) && n == floor(n) &&
           n >= 2 && n <= SDK_MAX_SAMPLE_TIMES;
  st->log = ax.log = !strcmp(f[0], "log");
  st->round = nf == 5;
  free(copy);
  if (!ok) return SDK_FAIL(eb, SDK_ERR_USAGE, "--sample-times '%.200s': %s", spec, SYNTAX);
  if (!(ax.start >= 0) || !(ax.stop > ax.start) || !isfinite(ax.stop) || (ax.log && ax.start <= 0))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--sample-times '%.200s': expected %s < B (finite) for %s spacing", spec,
                    ax.log ? "0 < A" : "0 <= A", ax.log ? "log" : "lin");
  ax.n = (int64_t)n;
  SDK_CHECK(sdk_scan_fill(&ax, eb));
  st->t = ax.values;
  st->n = ax.n;
  for (int64_t i = 1; i < st->n; i++)
    if (!(st->t[i] > st->t[i - 1])) {
      sdk_sample_times_free(st);
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--sample-times '%.200s': times %lld and %lld are equal to 15 digits: "
                      "give fewer times",
                      spec, (long long)i - 1, (long long)i);
    }
  return SDK_OK;
}

/* T1,T2,...: finite, >= 0, strictly increasing */
static sdk_err parse_list(const char *spec, sdk_sample_times *st, sdk_errbuf *eb) {
  int64_t n = 1;
  for (const char *p = spec; *p; p++)
    n += *p == ',';
  if (n > SDK_MAX_SAMPLE_TIMES)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--sample-times: more than %d times", SDK_MAX_SAMPLE_TIMES);
  char *copy = strdup(spec);
  st->t = malloc((size_t)n * sizeof(double));
  if (!copy || !st->t) {
    free(copy);
    sdk_sample_times_free(st);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  sdk_err e = SDK_OK;
  int64_t k = 0;
  for (char *s = copy, *c; e == SDK_OK; s = c + 1, k++) {
    c = strchr(s, ',');
    if (c) *c = 0;
    double v;
    if (!sdk_parse_number(s, &v) || !isfinite(v))
      e = SDK_FAIL(eb, SDK_ERR_USAGE, "--sample-times: time %lld '%.40s' is not a number; %s",
                   (long long)k + 1, s, SYNTAX);
    else if (v < 0)
      e = SDK_FAIL(eb, SDK_ERR_USAGE, "--sample-times: time %lld (%.15g) is negative",
                   (long long)k + 1, v);
    else if (k > 0 && !(v > st->t[k - 1]))
      e = SDK_FAIL(eb, SDK_ERR_USAGE,
                   "--sample-times: the times must increase: time %lld (%.15g) comes after "
                   "%.15g",
                   (long long)k + 1, v, st->t[k - 1]);
    if (e == SDK_OK) st->t[k] = v;
    if (!c) break;
  }
  free(copy);
  if (e != SDK_OK) {
    sdk_sample_times_free(st);
    return e;
  }
  st->n = n;
  return SDK_OK;
}

sdk_err sdk_sample_times_parse(const char *spec, sdk_sample_times *st, sdk_errbuf *eb) {
  memset(st, 0, sizeof *st);
  if (!spec || !*spec) return SDK_FAIL(eb, SDK_ERR_USAGE, "--sample-times: %s", SYNTAX);
  if (!strncmp(spec, "lin:", 4) || !strncmp(spec, "log:", 4)) return parse_spaced(spec, st, eb);
  return parse_list(spec, st, eb);
}

/* The greatest common measure of a and b to eps (Euclid on remainders, each
 * fmod exact; a remainder within eps of 0 or of b ends it): near 0 where
 * a / b is far from any ratio of small whole numbers. */
static double common_measure(double a, double b, double eps) {
  if (a < b) {
    double x = a;
    a = b, b = x;
  }
  for (int i = 0; i < 200 && b > eps; i++) {
    double r = fmod(a, b);
    if (r <= eps || r >= b - eps) r = 0;
    a = b, b = r;
  }
  return a;
}

static int whole_steps(double t, double dt) {
  double x = t / dt;
  return fabs(x - floor(x + 0.5)) <= SDK_TIME_TOL * x;
}

sdk_err sdk_sample_times_dt(const sdk_sample_times *st, const double *also, int nalso,
                            const char *also_what, double dmax, int even, double *dt,
                            sdk_errbuf *eb) {
  double lo = INFINITY, hi = 0, g = 0;
  for (int64_t i = 0; i < st->n + nalso; i++) {
    double t = i < st->n ? st->t[i] : also[i - st->n];
    if (t > 0 && t < lo) lo = t;
    if (t > hi) hi = t;
  }
  if (!(hi > 0)) { /* only t = 0: any step will do */
    *dt = dmax;
    return SDK_OK;
  }
  /* the default itself where every time is a whole number of its steps
   * (with `even`, of two of them): the same run as with --dt DEFAULT */
  int fits = 1;
  for (int64_t i = 0; fits && i < st->n + nalso; i++)
    fits = whole_steps(i < st->n ? st->t[i] : also[i - st->n], even ? 2 * dmax : dmax);
  if (fits) {
    *dt = dmax;
    return SDK_OK;
  }
  const double eps = SDK_TIME_TOL * lo;
  for (int64_t i = 0; i < st->n + nalso; i++) {
    double t = i < st->n ? st->t[i] : also[i - st->n];
    if (t > 0) g = g > 0 ? common_measure(g, t, eps) : t;
  }
  double k = ceil(g / dmax * (1 - SDK_TIME_TOL));
  if (k < 1) k = 1;
  if (even && fmod(k, 2) != 0) k += 1;
  /* to 15 significant digits (0.05 / 5 is 0.009999999999999998): the
   * step a user would have typed; checked against every time below */
  char buf[40];
  snprintf(buf, sizeof buf, "%.15g", g / k);
  *dt = strtod(buf, NULL);
  int ok = hi / g <= SDK_SAMPLE_TIMES_MAX_UNITS;
  for (int64_t i = 0; ok && i < st->n + nalso; i++)
    ok = whole_steps(i < st->n ? st->t[i] : also[i - st->n], *dt);
  if (ok) return SDK_OK;
  return SDK_FAIL(
      eb, SDK_ERR_USAGE,
      "--sample-times: no time step up to the default %.15g makes every sample time%s%s "
      "a whole number of steps (their ratios are not ratios of whole numbers up to "
      "%.0e, as with log spacing): give --dt (the times must then be whole numbers "
      "of its steps), append :round to lin:/log: to round each time to the nearest "
      "step, or give times rounded to a common step",
      dmax, nalso > 0 ? " and " : "", nalso > 0 ? also_what : "", SDK_SAMPLE_TIMES_MAX_UNITS);
}
