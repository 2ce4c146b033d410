/* sdekit: gnuplot-ready TSV output.
 *
 * Number formats.  Everything computed from the run (drift, errors, means,
 * variances, densities) and the derived coordinates (times t = step * dt,
 * bin edges) are printed with %.10g: the statistics carry Monte-Carlo
 * errors many orders of magnitude above 1e-10 relative, and adjacent times
 * or bin edges stay distinct unless there are more than ~1e9 of them, so
 * ten digits lose nothing that means anything and keep the files readable.
 * The values the user chose (scan values, dt, fixed parameters, period)
 * are printed with the shortest of %.15g/%.16g/%.17g that reads back as the
 * identical double (sdk_fmt_exact): they identify grid points, so a value
 * read from the TSV must compare equal to the one in the HDF5 file and the
 * one the run used, yet 0.1 still prints as "0.1" (%.17g would give
 * 0.10000000000000001).  NaN always prints as "nan" (never "-nan"), so the
 * output is byte-identical for identical inputs.  The C locale is assumed
 * (decimal point '.').
 */
#include "core/atomicfile.h"
#include "core/escape.h"
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------- number formatting ---------------- */

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

static char *fmt_stat(char *buf, double x) {
  if (isnan(x))
    strcpy(buf, "nan");
  else
    snprintf(buf, 32, "%.10g", x);
  return buf;
}

/* ---------------- TSV ---------------- */

static int is_scanned(const sdk_results *r, const char *name) {
  for (int i = 0; i < r->nscan; i++)
    if (strcmp(r->scan[i].name, name) == 0) return 1;
  return 0;
}

static const char *str_or(const char *s, const char *dflt) {
  return s && s[0] ? s : dflt;
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
  fprintf(f, "# scheme: %s\n", str_or(r->scheme, "?"));
  fprintf(f, "# precision: %s\n", str_or(r->precision, "?"));
  fprintf(f, "# backend: %s\n", str_or(r->backend, "?"));
  fprintf(f, "# paths: %lld\n", (long long)r->paths);
  if (r->particles > 1)
    fprintf(f, "# particles per system: %lld (paths above are particles: %lld systems)\n",
            (long long)r->particles, (long long)(r->paths / r->particles));
  fprintf(f, "# seed: %llu\n", (unsigned long long)r->seed);
  int same_dt = 1;
  for (int64_t g = 1; g < r->ngrid; g++)
    if (r->dt[g] != r->dt[0]) same_dt = 0;
  if (same_dt)
    fprintf(f, "# dt: %s\n", sdk_fmt_exact(b1, r->dt[0]));
  else
    fprintf(f, "# dt: per grid point\n");
  fprintf(f, "# steps: %lld\n", (long long)r->nsteps);
  fprintf(f, "# transient_steps: %lld\n", (long long)r->transient_steps);
  fprintf(f, "# sample_every: %lld\n", (long long)r->sample_every);
  if (r->period > 0)
    fprintf(f, "# period: %s (%lld steps per period)\n", sdk_fmt_exact(b1, r->period),
            (long long)r->spp);
  for (int p = 0; p < r->nparams; p++)
    if (!is_scanned(r, r->param_names[p]))
      fprintf(f, "# param %s: %s\n", r->param_names[p], sdk_fmt_exact(b1, r->param_values[p]));
  for (int i = 0; i < r->nscan; i++)
    fprintf(f, "# scan %s: %s .. %s, n=%lld, %s\n", r->scan[i].name,
            sdk_fmt_exact(b1, r->scan[i].start), sdk_fmt_exact(b2, r->scan[i].stop),
            (long long)r->scan[i].n, r->scan[i].log ? "log" : "linear");
}

/* Header line: scan names, then the given columns (tab-separated). */
static void write_header_start(const sdk_results *r, FILE *f) {
  fputs("# ", f);
  for (int i = 0; i < r->nscan; i++)
    fprintf(f, "%s\t", r->scan[i].name);
}

/* Scan coordinates of grid point g, each followed by a tab. */
static void write_coords(const sdk_results *r, int64_t g, FILE *f) {
  char b[32];
  int64_t idx[SDK_MAX_SCAN] = {0};
  if (r->nscan == 2) {
    idx[0] = g / r->scan[1].n;
    idx[1] = g % r->scan[1].n;
  } else if (r->nscan == 1) {
    idx[0] = g;
  }
  for (int i = 0; i < r->nscan; i++) {
    fputs(sdk_fmt_exact(b, r->scan[i].values[idx[i]]), f);
    fputc('\t', f);
  }
}

static void write_drift(const sdk_results *r, FILE *f) {
  char b1[32], b2[32];
  const char *vn = r->var_names[r->drift_var];
  fprintf(f, "# drift of: %s\n", vn);
  write_header_start(r, f);
  /* grid points that blew up (NaN values) get their count of non-finite paths */
  fprintf(f, "drift_%s\tdrift_%s_err%s\n", vn, vn, r->nonfinite ? "\tnonfinite" : "");
  for (int64_t g = 0; g < r->ngrid; g++) {
    /* 2-D scan: a blank line whenever the axis-0 value changes (splot). */
    if (r->nscan == 2 && g > 0 && g % r->scan[1].n == 0) fputc('\n', f);
    write_coords(r, g, f);
    fprintf(f, "%s\t%s", fmt_stat(b1, r->drift[g]), fmt_stat(b2, r->drift_err[g]));
    if (r->nonfinite) fprintf(f, "\t%lld", (long long)r->nonfinite[g]);
    fputc('\n', f);
  }
}

static void write_moments(const sdk_results *r, FILE *f) {
  char b[32];
  int64_t ns = r->nsamples, nv = r->nvars;
  write_header_start(r, f);
  fputs("t", f);
  for (int64_t v = 0; v < nv; v++)
    fprintf(f, "\tmean_%s\tvar_%s", r->var_names[v], r->var_names[v]);
  fputc('\n', f);
  for (int64_t g = 0; g < r->ngrid; g++) {
    if (g > 0) fputc('\n', f);
    for (int64_t s = 0; s < ns; s++) {
      write_coords(r, g, f);
      fputs(fmt_stat(b, (double)r->sample_step[s] * r->dt[g]), f);
      for (int64_t v = 0; v < nv; v++) {
        fprintf(f, "\t%s", fmt_stat(b, r->mean[(g * ns + s) * nv + v]));
        fprintf(f, "\t%s", fmt_stat(b, r->var[(g * ns + s) * nv + v]));
      }
      fputc('\n', f);
    }
  }
}

/* Edge e (0..bins) of the histogram [lo, hi]: the last one is hi exactly. */
static double bin_edge(double lo, double hi, int64_t e, int64_t bins) {
  return e == bins ? hi : lo + (hi - lo) * ((double)e / (double)bins);
}

static void write_hist(const sdk_results *r, FILE *f) {
  char b1[32], b2[32], b3[32];
  int64_t nb = r->bins, nv = r->nvars;
  for (int64_t v = 0; v < nv; v++) {
    const char *vn = r->var_names[v];
    if (v > 0) fputs("\n\n", f); /* next gnuplot index */
    fprintf(f, "# hist of: %s (index %lld)\n", vn, (long long)v);
    if (r->hist_under || r->hist_over) {
      unsigned long long under = 0, over = 0;
      for (int64_t g = 0; g < r->ngrid; g++) {
        if (r->hist_under) under += r->hist_under[g * nv + v];
        if (r->hist_over) over += r->hist_over[g * nv + v];
      }
      fprintf(f, "# outside the range (paths, all grid points): %llu below, %llu above\n", under,
              over);
    }
    write_header_start(r, f);
    fprintf(f, "%s_lo\t%s_hi\tdensity\n", vn, vn);
    for (int64_t g = 0; g < r->ngrid; g++) {
      if (g > 0) fputc('\n', f);
      double lo = r->hist_lo[g * nv + v], hi = r->hist_hi[g * nv + v];
      for (int64_t k = 0; k < nb; k++) {
        write_coords(r, g, f);
        fprintf(f, "%s\t%s\t%s\n", fmt_stat(b1, bin_edge(lo, hi, k, nb)),
                fmt_stat(b2, bin_edge(lo, hi, k + 1, nb)),
                fmt_stat(b3, r->density[(g * nv + v) * nb + k]));
      }
    }
  }
}

/* Density over time: one block per grid point, one line per (t, bin):
 * columns params, t, VAR_lo, VAR_hi, density; a blank line between sample
 * times so that gnuplot's splot/pm3d draws it as a surface. */
static void write_density(const sdk_results *r, FILE *f) {
  char b0[32], b1[32], b2[32], b3[32];
  int64_t ns = r->nsamples, nb = r->dbins;
  const char *vn = r->var_names[r->density_var];
  fprintf(f, "# density of: %s%s\n", vn,
          r->coarse_width > 0 ? " (coarse-grained: bins one period wide)" : "");
  write_header_start(r, f);
  fprintf(f, "t\t%s_lo\t%s_hi\tdensity\n", vn, vn);
  for (int64_t g = 0; g < r->ngrid; g++) {
    if (g > 0) fputs("\n\n", f);
    for (int64_t s = 0; s < ns; s++) {
      if (s > 0) fputc('\n', f);
      double lo = r->dlo[g * ns + s], hi = r->dhi[g * ns + s];
      fmt_stat(b0, (double)r->sample_step[s] * r->dt[g]);
      for (int64_t k = 0; k < nb; k++) {
        write_coords(r, g, f);
        fprintf(f, "%s\t%s\t%s\t%s\n", b0, fmt_stat(b1, bin_edge(lo, hi, k, nb)),
                fmt_stat(b2, bin_edge(lo, hi, k + 1, nb)),
                fmt_stat(b3, r->dP[(g * ns + s) * nb + k]));
      }
    }
  }
}

/* Saved paths: columns params, path, t, then every variable; one block per path. */
static void write_paths(const sdk_results *r, FILE *f) {
  char b[32];
  int64_t ns = r->nsamples, nk = r->nsaved, nv = r->nvars;
  write_header_start(r, f);
  fputs("path\tt", f);
  for (int64_t v = 0; v < nv; v++)
    fprintf(f, "\t%s", r->var_names[v]);
  fputc('\n', f);
  for (int64_t g = 0; g < r->ngrid; g++)
    for (int64_t k = 0; k < nk; k++) {
      if (g > 0 || k > 0) fputs("\n\n", f);
      for (int64_t s = 0; s < ns; s++) {
        write_coords(r, g, f);
        fprintf(f, "%lld\t%s", (long long)r->saved_index[k],
                fmt_stat(b, (double)r->sample_step[s] * r->dt[g]));
        for (int64_t v = 0; v < nv; v++)
          fprintf(f, "\t%s", fmt_stat(b, r->saved[((g * nk + k) * ns + s) * nv + v]));
        fputc('\n', f);
      }
    }
}

/* Order parameter of systems of particles: columns params, t, r, r_err, psi;
 * one block per grid point. */
static void write_order(const sdk_results *r, FILE *f) {
  char b0[32], b1[32], b2[32], b3[32];
  int64_t ns = r->order_nsamples;
  fprintf(f, "# order parameter of: %s (period %s), %lld particles per system, %lld systems\n",
          r->var_names[r->order_var], sdk_fmt_exact(b0, r->order_period), (long long)r->particles,
          (long long)(r->particles > 0 ? r->paths / r->particles : r->paths));
  fputs("# r = mean over systems of |Z|, Z = <exp(2 pi i x / period)> over a system's particles;\n"
        "# r_err = its standard error over systems; psi = arg of the mean of Z\n",
        f);
  write_header_start(r, f);
  fputs("t\tr\tr_err\tpsi\n", f);
  for (int64_t g = 0; g < r->ngrid; g++) {
    if (g > 0) fputs("\n\n", f);
    for (int64_t s = 0; s < ns; s++) {
      write_coords(r, g, f);
      fprintf(f, "%s\t%s\t%s\t%s\n", fmt_stat(b0, (double)r->order_step[s] * r->dt[g]),
              fmt_stat(b1, r->order_r[g * ns + s]), fmt_stat(b2, r->order_r_err[g * ns + s]),
              fmt_stat(b3, r->order_psi[g * ns + s]));
    }
  }
}

static sdk_err tsv_write(const sdk_results *r, const char *obs, FILE *f, const char *name,
                         sdk_errbuf *eb) {
  enum { DRIFT, MOMENTS, HIST, DENSITY, PATHS, ORDER } kind;
  int have;
  if (!obs) obs = "";
  if (strcmp(obs, "drift") == 0) {
    kind = DRIFT;
    have = r->drift && r->drift_err && r->drift_var >= 0 && r->drift_var < r->nvars;
  } else if (strcmp(obs, "moments") == 0) {
    kind = MOMENTS;
    have = r->mean && r->var && (r->nsamples == 0 || r->sample_step);
  } else if (strcmp(obs, "hist") == 0) {
    kind = HIST;
    have = r->density && r->hist_lo && r->hist_hi && r->bins > 0;
  } else if (strcmp(obs, "density") == 0) {
    kind = DENSITY;
    have = r->dP && r->dlo && r->dhi && r->dbins > 0 && r->sample_step;
  } else if (strcmp(obs, "paths") == 0) {
    kind = PATHS;
    have = r->saved && r->saved_index && r->sample_step;
  } else if (strcmp(obs, "order") == 0) {
    kind = ORDER;
    have = r->order_r && r->order_r_err && r->order_psi && r->order_step && r->order_var >= 0 &&
           r->order_var < r->nvars;
  } else {
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "unknown observable '%s' for TSV output (expected drift, moments, hist, "
                    "density, paths or order)",
                    obs);
  }
  if (!have)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "observable '%s' was not computed in this run", obs);
  if (!r->dt || r->ngrid < 1 || r->nscan < 0 || r->nscan > SDK_MAX_SCAN || !r->var_names)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "writing %s: incomplete results", name);

  errno = 0;
  write_settings(r, obs, f);
  switch (kind) {
  case DRIFT: write_drift(r, f); break;
  case MOMENTS: write_moments(r, f); break;
  case HIST: write_hist(r, f); break;
  case DENSITY: write_density(r, f); break;
  case PATHS: write_paths(r, f); break;
  case ORDER: write_order(r, f); break;
  }
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
