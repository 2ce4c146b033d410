/* sdekit: gnuplot-ready TSV output: a '#' header of the run's settings, then
 * the observable's own text (observe/obs_*.c, observe/tsvfmt.h); numbers as
 * core/numfmt.h says. */
#include "core/atomicfile.h"
#include "core/escape.h"
#include "core/strbuf.h"
#include "io/io.h"
#include "observe/tsvfmt.h"
#include "sim/registry.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------- TSV ---------------- */

/* is parameter name given per path (--path-params, path_params=)? */
static int per_path(const sdk_results *r, const char *name) {
  for (int k = 0; k < r->npath_params; k++)
    if (!strcmp(r->path_param_names[k], name)) return 1;
  return 0;
}

static int is_scanned(const sdk_results *r, const char *name) {
  for (int i = 0; i < sdk_results_nscan_params(r); i++)
    if (strcmp(sdk_results_scan_param(r, i)->name, name) == 0) return 1;
  return 0;
}

static const char *str_or(const char *s, const char *dflt) {
  return s && s[0] ? s : dflt;
}

/* where the values per path came from (a file's name, escaped as the
 * model's: a newline would end the comment line) */
static void write_per_path(const sdk_results *r, FILE *f) {
  for (int k = 0; k < 2; k++) {
    const char *from = k ? r->path_params_from : r->init_from;
    if (!from) continue;
    sdk_strbuf fb;
    sdk_sb_init(&fb);
    sdk_esc_term(&fb, from);
    const char *fs = fb.oom || !fb.s ? "?" : fb.s;
    if (!k) fprintf(f, "# init: per path, from %s\n", fs);
    for (int p = 0; k && p < r->nparams; p++)
      if (per_path(r, r->param_names[p]))
        fprintf(f, "# param %s: per path, from %s\n", r->param_names[p], fs);
    sdk_sb_free(&fb);
  }
}

static void write_settings(const sdk_results *r, const char *obs, FILE *f) {
  char b1[32], b2[32];
  fprintf(f, "# sdekit: %s\n", str_or(r->version, "?"));
  fprintf(f, "# observable: %s\n", obs);
  /* escaped: a newline in a name or path would end the comment line */
  sdk_strbuf mb;
  sdk_sb_init(&mb);
  sdk_esc_term(&mb, str_or(r->model_name, "?"));
  if (r->model_path && r->model_path[0]) {
    sdk_sb_puts(&mb, " (");
    sdk_esc_term(&mb, r->model_path);
    sdk_sb_puts(&mb, ")");
  }
  fprintf(f, "# model: %s\n", mb.oom || !mb.s ? "?" : mb.s);
  sdk_sb_free(&mb);
  fprintf(f, "# scheme: %s", str_or(r->scheme, "?"));
  if (r->scheme_why) fprintf(f, " (the default for %s)", r->scheme_why);
  fputc('\n', f);
  if (r->calculus) fprintf(f, "# calculus: %s\n", r->calculus);
  if (r->noise) fprintf(f, "# noise: %s\n", r->noise);
  fprintf(f, "# precision: %s\n", str_or(r->precision, "?"));
  fprintf(f, "# backend: %s\n", str_or(r->backend, "?"));
  /* runs in batches: each grid point's paths (the column paths_used) */
  const sdk_dataset *pu = sdk_store_find(&r->store, "paths_used");
  int64_t plo = r->paths, phi = r->paths;
  for (int64_t g = 0; pu && pu->type == SDK_I64 && g < sdk_ds_count(pu); g++) {
    int64_t n = ((const int64_t *)pu->data)[g];
    plo = g == 0 || n < plo ? n : plo, phi = g == 0 || n > phi ? n : phi;
  }
  if (plo < phi)
    fprintf(f, "# paths: %lld to %lld per grid point (the column paths_used)\n", (long long)plo,
            (long long)phi);
  else
    fprintf(f, "# paths: %lld\n", (long long)phi);
  if (r->particles > 1)
    fprintf(f, "# particles per system: %lld (paths above are particles: %lld systems)\n",
            (long long)r->particles, (long long)(r->paths / r->particles));
  fprintf(f, "# seed: %llu\n", (unsigned long long)r->seed);
  if (sdk_results_same_dt(r))
    fprintf(f, "# dt: %s\n", sdk_fmt_exact(b1, r->dt[0]));
  else
    fprintf(f, "# dt: per grid point\n");
  if (r->dt_asked > 0) fprintf(f, "# dt_asked: %s\n", sdk_fmt_exact(b1, r->dt_asked));
  /* --target-error: each grid point's dt its own steps (target/steps) */
  const sdk_dataset *ts = sdk_store_find(&r->store, "target/steps");
  int64_t slo = r->nsteps, shi = r->nsteps;
  for (int64_t g = 0; ts && ts->type == SDK_I64 && g < sdk_ds_count(ts); g++) {
    int64_t n = ((const int64_t *)ts->data)[g];
    slo = n < slo ? n : slo, shi = n > shi ? n : shi;
  }
  if (slo < shi)
    fprintf(f, "# steps: %lld to %lld (per grid point: target/steps, at target/dt)\n",
            (long long)slo, (long long)shi);
  else
    fprintf(f, "# steps: %lld\n", (long long)r->nsteps);
  if (r->t_end_asked > 0)
    fprintf(f, "# t_end: %s (asked: %s)\n", sdk_fmt_exact(b1, r->t_end),
            sdk_fmt_exact(b2, r->t_end_asked));
  fprintf(f, "# transient_steps: %lld\n", (long long)r->transient_steps);
  if (r->transient_asked > 0)
    fprintf(f, "# transient_asked: %s\n", sdk_fmt_exact(b1, r->transient_asked));
  if (r->sample_spacing)
    fprintf(f, "# sample_times: %lld, %s (the column t)\n", (long long)r->nsample_times,
            r->sample_spacing);
  else if (slo < shi)
    fprintf(f, "# sample_every: per grid point (samples at t = 0 and t_end alone)\n");
  else
    fprintf(f, "# sample_every: %lld\n", (long long)r->sample_every);
  /* --extrapolate marks the values it replaced (observe/bias.h) */
  size_t ol = strlen(obs);
  for (int i = 0; i < r->store.n; i++) {
    const sdk_dataset *d = r->store.ds[i];
    const sdk_attr *a = sdk_attr_find(d->attr, d->nattr, "extrapolated");
    if (a && a->kind == SDK_ATTR_I64 && a->i == 1 && !strncmp(d->path, obs, ol) &&
        d->path[ol] == '/') {
      fprintf(f, "# extrapolated: the values are value - bias (--extrapolate), their standard "
                 "errors err + bias_err\n");
      break;
    }
  }
  if (isnan(r->period) && r->spp > 0)
    fprintf(f, "# period: per grid point (%lld steps per period: spp x dt)\n", (long long)r->spp);
  else if (r->period > 0)
    fprintf(f, "# period: %s (%lld steps per period)\n", sdk_fmt_exact(b1, r->period),
            (long long)r->spp);
  write_per_path(r, f);
  for (int p = 0; p < r->nparams; p++)
    if (per_path(r, r->param_names[p]))
      continue;
    else if (!is_scanned(r, r->param_names[p]) && isnan(r->param_values[p]))
      fprintf(f, "# param %s: per grid point (defined from a scanned parameter)\n",
              r->param_names[p]);
    else if (!is_scanned(r, r->param_names[p]))
      fprintf(f, "# param %s: %s\n", r->param_names[p], sdk_fmt_exact(b1, r->param_values[p]));
  for (int i = 0; i < sdk_results_nscan_params(r); i++) {
    const sdk_scan_axis *a = sdk_results_scan_param(r, i);
    if (sdk_scan_is_range(a)) {
      fprintf(f, "# scan %s: %s .. %s, n=%lld, %s", a->name, sdk_fmt_exact(b1, a->start),
              sdk_fmt_exact(b2, a->stop), (long long)a->n, a->log ? "log" : "linear");
    } else { /* (values given one by one: no range describes them) */
      fprintf(f, "# scan %s: n=%lld values given:", a->name, (long long)a->n);
      for (int64_t k = 0; k < a->n && k < 16; k++)
        fprintf(f, "%s %s", k ? "," : "", sdk_fmt_exact(b1, a->values[k]));
      if (a->n > 16) fprintf(f, ", ... (column %s)", a->name);
    }
    if (a != &r->scan[a->axis]) fprintf(f, ", zipped with %s", r->scan[a->axis].name);
    fputc('\n', f);
  }
  if (r->nscan > 2)
    fprintf(f,
            "# grid: a block per combination of all scan axes but %s, each headed by "
            "'# block: NAME=VALUE ...', two blank lines between blocks (gnuplot: index)\n",
            r->scan[r->nscan - 1].name);
}

/* The observable obs of r, checked for TSV: known, computed, results whole. */
static sdk_err tsv_type(const sdk_results *r, const char *obs, const char *name,
                        const sdk_obs_type **out, sdk_errbuf *eb) {
  const sdk_obs_type *t = sdk_find_observable(obs ? obs : "");
  if (!t) {
    sdk_strbuf b;
    sdk_sb_init(&b);
    for (int i = 0; sdk_registry_observables[i]; i++)
      sdk_sb_printf(&b, "%s%s", i ? ", " : "", sdk_registry_observables[i]->name);
    sdk_err e = SDK_FAIL(eb, SDK_ERR_USAGE, "unknown observable '%s' for TSV output (expected %s)",
                         obs ? obs : "", b.s ? b.s : "");
    sdk_sb_free(&b);
    return e;
  }
  if (!sdk_results_has(r, t->name) || !t->write_tsv)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "observable '%s' was not computed in this run", obs);
  if (!r->dt || r->ngrid < 1 || r->nscan < 0 || r->nscan > SDK_MAX_SCAN || !r->var_names)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "writing %s: incomplete results", name);
  *out = t;
  return SDK_OK;
}

sdk_err sdk_check_tsv(const sdk_results *r, const char *obs, sdk_errbuf *eb) {
  const sdk_obs_type *t = NULL;
  SDK_CHECK(tsv_type(r, obs, "TSV output", &t, eb));
  return sdk_tsv_check_headers(r, t, eb);
}

static sdk_err tsv_write(const sdk_results *r, const char *obs, FILE *f, const char *name,
                         sdk_errbuf *eb) {
  const sdk_obs_type *t = NULL;
  SDK_CHECK(tsv_type(r, obs, name, &t, eb));
  /* a header that cannot be written is found before anything is */
  SDK_CHECK(sdk_tsv_check_headers(r, t, eb));
  errno = 0;
  write_settings(r, obs, f);
  SDK_CHECK(t->write_tsv(r, f, eb));
  if (fflush(f) != 0 || ferror(f)) {
    int err = errno;
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot write %s: %s", name,
                    err ? strerror(err) : "write error");
  }
  return SDK_OK;
}

sdk_err sdk_write_tsv(const sdk_results *r, const char *obs, FILE *f, sdk_errbuf *eb) {
  return tsv_write(r, obs, f, "TSV output", eb);
}

sdk_err sdk_write_tsv_named(const sdk_results *r, const char *obs, FILE *f, const char *name,
                            sdk_errbuf *eb) {
  return tsv_write(r, obs, f, name, eb);
}

sdk_err sdk_write_tsv_file(const sdk_results *r, const char *obs, const char *path,
                           sdk_errbuf *eb) {
  char name[1024];
  sdk_atomic t;
  SDK_CHECK(sdk_atomic_open(&t, path, 0, eb));
  snprintf(name, sizeof name, "'%s'", path);
  FILE *f = fdopen(t.fd, "w");
  if (!f) {
    int err = errno;
    sdk_atomic_abort(&t);
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot write '%s': %s", path, strerror(err));
  }
  t.fd = -1; /* owned by f now */
  sdk_err e = tsv_write(r, obs, f, name, eb);
  if (fclose(f) != 0 && e == SDK_OK) {
    int err = errno;
    e = SDK_FAIL(eb, SDK_ERR_IO, "cannot write '%s': %s", path, strerror(err));
  }
  if (e != SDK_OK) {
    sdk_atomic_abort(&t);
    return e;
  }
  return sdk_atomic_commit(&t, eb);
}
