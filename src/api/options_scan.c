/* The public API's --scan and --scan-file options (options.c's table calls
 * them): the scan axes of a run, plain, zipped or read from a table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "io/scantable.h"
#include "sim/run.h"

/* "NAME=V1,V2,..." (or one value "NAME=V"): the values as given */
static sdekit_status scan_list(const char *arg, const char *vals, sdk_scan_axis *ax,
                               sdekit_error *err) {
  int64_t n = 1;
  for (const char *p = vals; *p; p++)
    n += *p == ',';
  if (n > 10000000) return api_usage(err, "--scan '%s': more than 1e7 values", arg);
  ax->values = malloc((size_t)n * sizeof(double));
  char *copy = strdup(vals);
  if (!ax->values || !copy) {
    free(copy);
    sdk_scan_free(ax);
    return api_nomem(err);
  }
  int64_t k = 0;
  int bad = 0;
  for (char *s = copy, *e; !bad; s = e + 1) {
    e = strchr(s, ',');
    if (e) *e = 0;
    bad = !sdk_parse_number(s, &ax->values[k++]);
    if (!e) break;
  }
  free(copy);
  if (bad) {
    sdk_scan_free(ax);
    return api_usage(err,
                     "--scan '%s': expected NAME=START:STOP:N[:log] or NAME=V1,V2,... with "
                     "numbers",
                     arg);
  }
  ax->n = n;
  ax->start = ax->values[0];
  ax->stop = ax->values[n - 1];
  ax->log = 0;
  return SDEKIT_OK;
}

/* Append scanned parameters ax[0..n-1] (ax[k].zip set by the caller) to the
 * configuration; on error none is kept and all are freed. */
static sdekit_status scan_append(sdk_run_config *rc, sdk_scan_axis *ax, int n, const char *opt,
                                 sdekit_error *err) {
  const char *twice = NULL;
  for (int k = 0; k < n && !twice; k++) {
    for (int i = 0; i < rc->nscan && !twice; i++)
      if (!strcmp(rc->scan[i].name, ax[k].name)) twice = ax[k].name;
    for (int i = 0; i < k && !twice; i++)
      if (!strcmp(ax[i].name, ax[k].name)) twice = ax[k].name;
  }
  sdekit_status s = SDEKIT_OK;
  if (twice)
    s = api_usage(err, "%s: parameter %s scanned twice: scan each parameter once", opt, twice);
  else if (rc->nscan + n > SDK_MAX_SCAN_PARAMS)
    s = api_usage(err, "%s: more than %d scanned parameters in all", opt, SDK_MAX_SCAN_PARAMS);
  for (int k = 0; k < n; k++)
    if (s == SDEKIT_OK)
      rc->scan[rc->nscan++] = ax[k];
    else
      sdk_scan_free(&ax[k]);
  return s;
}

/* --scan a,b=1:2:10,3:4:10: parameters moving together, one range each, the
 * same N (a zipped axis of the grid) */
static sdekit_status scan_zip(sdk_run_config *rc, const char *arg, const char *eq,
                              sdekit_error *err) {
  sdk_scan_axis ax[SDK_MAX_SCAN_PARAMS];
  int n = 0, nn = 1, nr = 1;
  for (const char *p = arg; p < eq; p++)
    nn += *p == ',';
  for (const char *p = eq + 1; *p; p++)
    nr += *p == ',';
  if (nn != nr)
    return api_usage(err,
                     "--scan '%s': %d names but %d ranges: give one START:STOP:N[:log] per name "
                     "(a zipped scan moves them together)",
                     arg, nn, nr);
  char *names = strndup(arg, (size_t)(eq - arg)), *ranges = strdup(eq + 1);
  sdekit_status s = names && ranges ? SDEKIT_OK : api_nomem(err);
  char *np = names, *rp = ranges;
  while (s == SDEKIT_OK && np && rp) {
    char *nc = strchr(np, ','), *rcm = strchr(rp, ',');
    if (nc) *nc = 0;
    if (rcm) *rcm = 0;
    if (n == SDK_MAX_SCAN_PARAMS) {
      s = api_usage(err, "--scan '%s': more than %d parameters", arg, SDK_MAX_SCAN_PARAMS);
      break;
    }
    char spec[512];
    snprintf(spec, sizeof spec, "%s=%s", np, rp);
    sdk_errbuf eb = {0};
    sdk_err e = sdk_scan_parse(spec, &ax[n], &eb);
    if (e != SDK_OK) {
      s = api_fail(err, e, &eb);
      break;
    }
    ax[n].zip = n > 0;
    if (n > 0 && ax[n].n != ax[0].n)
      s = api_usage(err,
                    "--scan '%s': zipped parameters move together and need the same N (%s has "
                    "%lld points, %s has %lld)",
                    arg, ax[0].name, (long long)ax[0].n, ax[n].name, (long long)ax[n].n);
    n++;
    np = nc ? nc + 1 : NULL;
    rp = rcm ? rcm + 1 : NULL;
  }
  free(names), free(ranges);
  if (s != SDEKIT_OK) {
    for (int k = 0; k < n; k++)
      sdk_scan_free(&ax[k]);
    return s;
  }
  return scan_append(rc, ax, n, "--scan", err);
}

/* --scan NAME=START:STOP:N[:log] | NAME=V1,V2,... | A,B=RANGE_A,RANGE_B */
sdekit_status api_opt_scan(sdekit_config *c, const char *arg, sdekit_error *err) {
  sdk_run_config *rc = &c->c;
  sdk_scan_axis ax;
  memset(&ax, 0, sizeof ax);
  /* +NAME=...: moves with the --scan before it (a zipped axis) */
  int zip = arg[0] == '+';
  if (zip && rc->nscan == 0)
    return api_usage(err,
                     "--scan '%s': '+' zips a parameter with the --scan before it, and there "
                     "is none",
                     arg);
  arg += zip;
  const char *eq = strchr(arg, '=');
  if (eq && memchr(arg, ',', (size_t)(eq - arg))) {
    if (zip) return api_usage(err, "--scan '+%s': give '+' to one parameter", arg);
    return scan_zip(rc, arg, eq, err);
  }
  if (eq && eq != arg && !strchr(eq, ':') && (size_t)(eq - arg) < sizeof ax.name) {
    snprintf(ax.name, sizeof ax.name, "%.*s", (int)(eq - arg), arg);
    sdekit_status s = scan_list(arg, eq + 1, &ax, err);
    if (s != SDEKIT_OK) return s;
  } else {
    sdk_errbuf eb = {0};
    sdk_err e = sdk_scan_parse(arg, &ax, &eb);
    if (e != SDK_OK) return api_fail(err, e, &eb);
  }
  ax.zip = zip;
  const sdk_scan_axis *prev = zip ? &rc->scan[rc->nscan - 1] : NULL;
  if (prev && prev->n != ax.n) {
    sdk_scan_free(&ax);
    return api_usage(err,
                     "--scan '+%s': zipped parameters move together and need the same N (%s has "
                     "%lld points, %s has %lld)",
                     arg, prev->name, (long long)prev->n, ax.name, (long long)ax.n);
  }
  return scan_append(rc, &ax, 1, "--scan", err);
}

/* --scan-file TABLE: a header of parameter names, a row per grid point (one
 * zipped axis) */
sdekit_status api_opt_scan_file(sdekit_config *c, const char *path, sdekit_error *err) {
  sdk_scan_axis ax[SDK_MAX_SCAN_PARAMS];
  int n = 0;
  sdk_errbuf eb = {0};
  sdk_err e = sdk_scan_table_read(path, ax, SDK_MAX_SCAN_PARAMS, &n, &eb);
  if (e != SDK_OK) return api_fail(err, e, &eb);
  sdk_run_config *rc = &c->c;
  sdekit_status s = scan_append(rc, ax, n, "--scan-file", err);
  /* recorded as the values read, not the file's name: a resumed run must
   * not read a table changed since (the option is NOREC) */
  for (int k = 0; s == SDEKIT_OK && k < n; k++) {
    const sdk_scan_axis *a = &rc->scan[rc->nscan - n + k];
    char *word = api_scan_word("--scan=", a->name, k > 0, a->values, a->n);
    s = word ? api_record(c, "scan", word, NULL, err) : api_nomem(err);
    free(word);
  }
  return s;
}
