/* CPU backend: generated C compiled by the system C compiler into a shared
 * object (cached by a hash of source, compiler, flags and CPU), dlopen'ed,
 * and run with OpenMP over fixed blocks of paths (the compiler, the cache
 * and the modules: cpu_module.c; backend/cpu_internal.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/cpu_internal.h"
#include "core/strbuf.h"

struct sdk_ensemble {
  sdk_bctx *ctx;
  sdk_module *mod;
  sdk_layout lay;
  int64_t npad;
  size_t esize; /* bytes per real */
  void *st;     /* nvars * npad reals */
  void *sv;     /* ngrid * nsv reals */
  void *mark;   /* npad reals */
  void *obs;    /* user observables: nobs * npad reals, allocated on first use */
  int nobs;
  int64_t *xbytes; /* systems spanning MPI ranks: each rank's chunk sums, bytes (first use) */
};

/* Identify the CPU so a cache shared between machines never serves code
 * built with -march=native for another processor. */
static void cpu_identity(char *out, size_t n) {
  snprintf(out, n, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[4096], model[256] = "", flags_hash[33] = "";
  /* (the first processor's lines are enough: a many-core machine's whole file
   * is hundreds of kilobytes, made afresh for every run) */
  while ((!model[0] || !flags_hash[0]) && fgets(line, sizeof line, f)) {
    if (!model[0] && !strncmp(line, "model name", 10)) snprintf(model, sizeof model, "%s", line);
    if (!flags_hash[0] && !strncmp(line, "flags", 5)) sdk_hash_hex(line, strlen(line), flags_hash);
  }
  fclose(f);
  model[strcspn(model, "\n")] = 0;
  snprintf(out, n, "%s|%s", model, flags_hash);
}

static sdk_err cpu_open(const sdk_backend_opts *o, sdk_bctx **out, sdk_errbuf *eb) {
  sdk_bctx *c = calloc(1, sizeof *c);
  if (!c) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  c->o = *o;
  /* the CLI's default is clang where it is on PATH (backend.h) */
  const char *cc = o->env.cc && *o->env.cc ? o->env.cc : "cc";
  int clang = strstr(cc, "clang") != NULL;
  snprintf(c->cc, sizeof c->cc, "%s", cc);
  const char *flags = o->env.cflags, *extra = o->env.cflags_extra;
  if (flags && *flags) {
    snprintf(c->cflags, sizeof c->cflags, "%s", flags);
  } else {
    /* clang vectorises libm calls through glibc's libmvec; gcc 12 does not.
     * gcc's reassociation (its tree-reassoc pass under -fassociative-math)
     * rewrote the step loop differently in the copies that a chunk's length
     * selects, so a path's bits depended on where the chunks ended, which
     * the run paces by the clock (josephson, single: three of eight runs
     * differed, and every --sample-every gave other bits); clang's do not
     * (cli_repro (h) checks both compilers) */
    snprintf(c->cflags, sizeof c->cflags,
             "-std=gnu11 -O3 -march=native %s -fopenmp -fPIC -shared%s %s",
             !o->fast_math ? "-ffp-contract=off"
             : clang       ? "-ffast-math -fno-finite-math-only"
                           : "-ffast-math -fno-finite-math-only -fno-associative-math",
             clang && o->fast_math ? " -fveclib=libmvec" : "", extra ? extra : "");
  }
  sdk_cache_place_init(&c->cache, o->env.cache_dir, o->env.tmp_dir);
  cpu_identity(c->cpu_id, sizeof c->cpu_id);
  *out = c;
  return SDK_OK;
}

static void cpu_close(sdk_bctx **c) {
  if (!c || !*c) return;
  sdk_cache_place_close(&(*c)->cache);
  free(*c);
  *c = NULL;
}

static void cpu_describe(sdk_bctx *c, char *buf, size_t n) {
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  int th = c->o.threads > 0 ? c->o.threads : (int)ncpu;
  snprintf(buf, n, "cpu: %ld cores, %d threads, %s", ncpu, th, c->cc);
}

static void cpu_free(sdk_ensemble **e) {
  if (!e || !*e) return;
  free((*e)->st);
  free((*e)->sv);
  free((*e)->mark);
  free((*e)->obs);
  free((*e)->xbytes);
  free(*e);
  *e = NULL;
}

static sdk_err cpu_alloc(sdk_bctx *c, sdk_module *mod, const sdk_layout *lay, sdk_ensemble **out,
                         sdk_errbuf *eb) {
  *out = NULL;
  sdk_ensemble *e = calloc(1, sizeof *e);
  if (!e) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  e->ctx = c;
  e->mod = mod;
  e->lay = *lay;
  e->lay.sv = NULL;
  e->esize = lay->single ? sizeof(float) : sizeof(double);
  e->npad = sdk_padded_paths(sdk_layout_npaths(lay));
  if (mod->rows && mod->rows <= lay->nvars) {
    free(e);
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "cpu: module has %d state rows for %d variables",
                    mod->rows, lay->nvars);
  }
  size_t bytes = (size_t)(mod->rows ? mod->rows : lay->nvars) * (size_t)e->npad * e->esize;
  e->st = aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (e->st && lay->zero) memset(e->st, 0, bytes);
  size_t nsv = (size_t)(lay->nsv > 0 ? lay->nsv : 1) * (size_t)lay->ngrid;
  e->sv = calloc(nsv, e->esize);
  if (!e->st || !e->sv) {
    cpu_free(&e);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for %lld paths x %d variables",
                    (long long)(lay->ngrid * lay->ppg), lay->nvars);
  }
  for (int64_t i = 0; i < lay->ngrid * lay->nsv; i++) {
    if (lay->single)
      ((float *)e->sv)[i] = (float)lay->sv[i];
    else
      ((double *)e->sv)[i] = lay->sv[i];
  }
  *out = e;
  return SDK_OK;
}

static sdk_err cpu_init(sdk_ensemble *e, uint64_t seed, sdk_errbuf *eb) {
  e->mod->init(e->st, e->npad, e->sv, e->lay.ppg, e->lay.ngrid, e->lay.path0, seed,
               e->ctx->o.threads);
  return SDK_OK;
}

static sdk_err cpu_advance(sdk_ensemble *e, int64_t step0, int64_t nsteps, uint64_t seed,
                           sdk_errbuf *eb) {
  if (!e->mod->advance)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL,
                    "this module integrates systems of particles (advance_sys)");
  e->mod->advance(e->st, e->npad, e->sv, e->lay.ppg, e->lay.ngrid, e->lay.path0, step0, nsteps,
                  seed, e->ctx->o.threads);
  return SDK_OK;
}

static inline double get(const sdk_ensemble *e, const void *base, int64_t i) {
  return e->esize == sizeof(float) ? (double)((const float *)base)[i] : ((const double *)base)[i];
}

static sdk_err cpu_mark(sdk_ensemble *e, int var, sdk_errbuf *eb) {
  if (!e->mark) {
    e->mark = malloc((size_t)e->npad * e->esize);
    if (!e->mark) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  memcpy(e->mark, (char *)e->st + (size_t)var * (size_t)e->npad * e->esize,
         (size_t)e->npad * e->esize);
  return SDK_OK;
}

/* variable v, or user observable v - nvars as last evaluated (backend.h) */
static const void *row_of(const sdk_ensemble *e, int v) {
  if (v >= e->lay.nvars)
    return (const char *)e->obs + (size_t)(v - e->lay.nvars) * (size_t)e->npad * e->esize;
  return (const char *)e->st + (size_t)v * (size_t)e->npad * e->esize;
}

/* Moments per fold unit of the shard's chunks (cpu_reduce.h, then
 * sdk_fold_units): rows of nrows values from base (minus mark, times scale,
 * when sub). */
static sdk_err reduce(const sdk_ensemble *e, const void *base, int nrows, const void *sub,
                      double scale, sdk_moments *out, int64_t *nonfinite, sdk_errbuf *eb) {
  sdk_span sp = sdk_layout_span(&e->lay);
  size_t nk = (size_t)(sp.c1 - sp.c0) * (size_t)nrows;
  int64_t nu = sdk_span_units(&sp, NULL);
  sdk_moments *chunk = malloc((nk ? nk : 1) * sizeof *chunk);
  int64_t *nfc = nonfinite ? malloc((nk ? nk : 1) * sizeof *nfc) : NULL;
  sdk_unit *u = malloc((size_t)(nu ? nu : 1) * sizeof *u);
  if (!chunk || !u || (nonfinite && !nfc)) {
    free(chunk), free(nfc), free(u);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the reductions");
  }
  sdk_cpu_reduce r = {.single = e->esize == sizeof(float),
                      .rows = base,
                      .row_stride = e->npad,
                      .nrows = nrows,
                      .sub = sub,
                      .scale = scale,
                      .ppg = e->lay.ppg,
                      .path0 = e->lay.path0,
                      .nch = sp.nch,
                      .c0 = sp.c0,
                      .c1 = sp.c1,
                      .out = chunk,
                      .nonfinite = nfc,
                      .threads = e->ctx->o.threads,
                      .parallel = e->mod->parallel};
  sdk_cpu_reduce_moments(&r);
  sdk_span_units(&sp, u);
  sdk_fold_units(u, nu, nrows, chunk, nfc, out, nonfinite);
  free(chunk), free(nfc), free(u);
  return SDK_OK;
}

static sdk_err cpu_moments(sdk_ensemble *e, sdk_moments *out, int64_t *nonfinite, sdk_errbuf *eb) {
  return reduce(e, e->st, e->lay.nvars, NULL, 1, out, nonfinite, eb);
}

/* The module evaluates the expressions into rows of reals, which the
 * moments reduction then reduces like variables. */
static sdk_err cpu_eval_observe(sdk_ensemble *e, int64_t step, int nobs, sdk_errbuf *eb) {
  if (!e->mod->observe)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "this module has no user observables");
  if (!e->obs || e->nobs != nobs) {
    free(e->obs);
    e->nobs = 0;
    e->obs = malloc((size_t)nobs * (size_t)e->npad * e->esize);
    if (!e->obs) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for the user observables");
    e->nobs = nobs;
  }
  e->mod->observe(e->st, e->npad, e->sv, e->lay.ppg, e->lay.ngrid, e->lay.path0, step, e->obs,
                  e->ctx->o.threads);
  return SDK_OK;
}

static sdk_err cpu_nonfinite(sdk_ensemble *e, int64_t *count, sdk_errbuf *eb);

static sdk_err cpu_observe(sdk_ensemble *e, int64_t step, int nobs, sdk_moments *out,
                           int64_t *nonfinite, int64_t *state_nonfinite, sdk_errbuf *eb) {
  if (state_nonfinite) SDK_CHECK(cpu_nonfinite(e, state_nonfinite, eb));
  SDK_CHECK(cpu_eval_observe(e, step, nobs, eb));
  return reduce(e, e->obs, nobs, NULL, 1, out, nonfinite, eb);
}

static sdk_err cpu_displacement(sdk_ensemble *e, int var, double scale, sdk_moments *out,
                                sdk_errbuf *eb) {
  if (!e->mark) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "displacement before mark");
  return reduce(e, row_of(e, var), 1, e->mark, scale, out, NULL, eb);
}

/* a user observable must have been evaluated */
static sdk_err check_row(const sdk_ensemble *e, int var, sdk_errbuf *eb) {
  if (var < 0 || (var >= e->lay.nvars && (!e->obs || var - e->lay.nvars >= e->nobs)))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "no row %d to reduce", var);
  return SDK_OK;
}

static sdk_err cpu_nonfinite(sdk_ensemble *e, int64_t *count, sdk_errbuf *eb) {
  (void)eb;
  sdk_span sp = sdk_layout_span(&e->lay);
  for (int64_t g = sp.g0; g < sp.g1; g++) {
    int64_t i0, i1;
    sdk_layout_grid_paths(&e->lay, g, &i0, &i1);
    for (int v = 0; v < e->lay.nvars; v++) {
      const void *base = row_of(e, v);
      int64_t bad = 0;
      for (int64_t i = i0; i < i1; i++)
        bad += !isfinite(get(e, base, i));
      count[(g - sp.g0) * e->lay.nvars + v] = bad;
    }
  }
  return SDK_OK;
}

static sdk_err cpu_minmax(sdk_ensemble *e, int var, double *lo, double *hi, sdk_errbuf *eb) {
  SDK_CHECK(check_row(e, var, eb));
  const void *base = row_of(e, var);
  sdk_span sp = sdk_layout_span(&e->lay);
  for (int64_t g = sp.g0; g < sp.g1; g++) {
    int64_t i0, i1;
    sdk_layout_grid_paths(&e->lay, g, &i0, &i1);
    double a = INFINITY, b = -INFINITY;
    for (int64_t i = i0; i < i1; i++) {
      double x = get(e, base, i);
      if (x < a) a = x;
      if (x > b) b = x;
    }
    lo[g - sp.g0] = a;
    hi[g - sp.g0] = b;
  }
  return SDK_OK;
}

static sdk_err cpu_histogram(sdk_ensemble *e, int var, int64_t bins, const double *lo,
                             const double *hi, uint64_t *counts, uint64_t *under, uint64_t *over,
                             sdk_errbuf *eb) {
  SDK_CHECK(check_row(e, var, eb));
  const void *base = row_of(e, var);
  sdk_span sp = sdk_layout_span(&e->lay);
  for (int64_t g = sp.g0; g < sp.g1; g++) {
    int64_t j = g - sp.g0, i0, i1;
    sdk_layout_grid_paths(&e->lay, g, &i0, &i1);
    uint64_t *c = counts + j * bins;
    memset(c, 0, (size_t)bins * sizeof *c);
    under[j] = over[j] = 0;
    double w = (hi[j] - lo[j]) / (double)bins;
    for (int64_t i = i0; i < i1; i++) {
      double x = get(e, base, i);
      if (x < lo[j])
        under[j]++;
      else if (x > hi[j])
        over[j]++;
      else {
        int64_t b = w > 0 ? (int64_t)((x - lo[j]) / w) : 0;
        if (b >= bins) b = bins - 1; /* x == hi belongs to the last bin */
        c[b]++;
      }
    }
  }
  return SDK_OK;
}

static sdk_err cpu_read_state(sdk_ensemble *e, int64_t first, int64_t n, double *out,
                              sdk_errbuf *eb) {
  for (int v = 0; v < e->lay.nvars; v++) {
    const void *base = (const char *)e->st + (size_t)v * (size_t)e->npad * e->esize;
    for (int64_t i = 0; i < n; i++)
      out[v * n + i] = get(e, base, first + i);
  }
  return SDK_OK;
}

static int cpu_carried_rows(const sdk_ensemble *e) {
  return e->mod->rows ? e->mod->rows - e->lay.nvars : 0;
}

static sdk_err cpu_rows(sdk_ensemble *e, int row, int64_t first, int64_t n, double *buf, int write,
                        sdk_errbuf *eb) {
  void *base;
  if (row < 0) { /* user observable -1 - row as eval_observe left it (backend.h) */
    if (write || !e->obs || -1 - row >= e->nobs)
      return SDK_FAIL(eb, SDK_ERR_INTERNAL, "no user observable row %d", -1 - row);
    base = (char *)e->obs + (size_t)(-1 - row) * (size_t)e->npad * e->esize;
  } else if (row < e->lay.nvars) {
    base = (char *)e->st + (size_t)row * (size_t)e->npad * e->esize;
  } else if (row > e->lay.nvars) { /* carried rows: compensated update, boundaries,
                                    * accumulators */
    if (!e->mod->rows || row - 1 >= e->mod->rows)
      return SDK_FAIL(eb, SDK_ERR_INTERNAL, "no state row %d", row);
    base = (char *)e->st + (size_t)(row - 1) * (size_t)e->npad * e->esize;
  } else {
    if (!e->mark) {
      if (!write) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "no drift mark to read");
      e->mark = calloc((size_t)e->npad, e->esize);
      if (!e->mark) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    }
    base = e->mark;
  }
  for (int64_t i = 0; i < n; i++) {
    if (e->esize == sizeof(float)) {
      if (write)
        ((float *)base)[first + i] = (float)buf[i];
      else
        buf[i] = ((float *)base)[first + i];
    } else {
      if (write)
        ((double *)base)[first + i] = buf[i];
      else
        buf[i] = ((double *)base)[first + i];
    }
  }
  return SDK_OK;
}

/* The zeros of a row per grid point held (backend.h), read where they lie. */
static sdk_err cpu_count_zero(sdk_ensemble *e, int row, int64_t *count, sdk_errbuf *eb) {
  if (row < 0 || row == e->lay.nvars ||
      (row > e->lay.nvars && (!e->mod->rows || row - 1 >= e->mod->rows)))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "count_zero: no state row %d", row);
  size_t at = (size_t)(row > e->lay.nvars ? row - 1 : row) * (size_t)e->npad;
  sdk_span sp = sdk_layout_span(&e->lay);
  int64_t n = sdk_layout_npaths(&e->lay), path0 = e->lay.path0, ppg = e->lay.ppg;
  memset(count, 0, (size_t)(sp.g1 - sp.g0) * sizeof *count);
  for (int64_t q = 0; q < n; q++) {
    double x = e->esize == sizeof(float) ? ((const float *)e->st)[at + (size_t)q]
                                         : ((const double *)e->st)[at + (size_t)q];
    if (x == 0) count[(path0 + q) / ppg - sp.g0]++;
  }
  return SDK_OK;
}

/* Systems spanning MPI ranks: the chunk sums of every other rank into part
 * (each rank's chunks are consecutive, ranks in order: backend.h, xchunks). */
static int cpu_xchg(void *user, double *part) {
  const sdk_ensemble *e = user;
  return sdk_comm_allgatherv(e->lay.comm, part, e->xbytes, NULL) != SDK_OK;
}

static sdk_err cpu_advance_sys(sdk_ensemble *e, int64_t step0, int64_t nsteps, uint64_t seed,
                               int64_t obs_every, double *obs, sdk_errbuf *eb) {
  int span = sdk_comm_size(e->lay.comm) > 1 && e->lay.xchunks;
  if (!e->mod->advance_sys || e->lay.particles < 1 || (e->lay.path0 != 0 && !span) ||
      e->lay.ppg % e->lay.particles)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL,
                    "advance_sys: not a module or layout of particle systems");
  int64_t first;
  if (span && !e->xbytes &&
      !(e->xbytes =
            sdk_layout_rank_bytes(&e->lay, e->mod->sys_nred * (int64_t)sizeof(double), &first)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  if (e->mod->advance_sys(e->st, e->npad, e->sv, e->lay.ppg, e->lay.ngrid, e->lay.path0, step0,
                          nsteps, seed, e->ctx->o.threads, e->lay.particles, obs_every, obs,
                          sdk_layout_npaths(&e->lay), span ? cpu_xchg : NULL, e))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory for %lld particles", (long long)e->npad);
  return SDK_OK;
}

static int64_t cpu_sys_unit(sdk_bctx *ctx, sdk_module *mod, int64_t particles) {
  (void)ctx, (void)particles;
  return mod->advance_sys ? SDK_CPU_BLOCK : 0;
}

static sdk_err cpu_histogram_mod(sdk_ensemble *e, int var, int64_t bins, double period,
                                 uint64_t *counts, sdk_errbuf *eb) {
  const void *base = row_of(e, var);
  sdk_span sp = sdk_layout_span(&e->lay);
  for (int64_t g = sp.g0; g < sp.g1; g++) {
    int64_t i0, i1;
    sdk_layout_grid_paths(&e->lay, g, &i0, &i1);
    uint64_t *c = counts + (g - sp.g0) * bins;
    memset(c, 0, (size_t)bins * sizeof *c);
    for (int64_t i = i0; i < i1; i++) {
      double x = get(e, base, i);
      if (!isfinite(x)) continue;
      double u = x / period;
      u -= floor(u); /* in [0, 1], 1 only by rounding */
      int64_t b = (int64_t)(u * (double)bins);
      if (b >= bins) b = bins - 1;
      if (b < 0) b = 0;
      c[b]++;
    }
  }
  return SDK_OK;
}

const sdk_backend sdk_backend_cpu = {
    .advance_sys = cpu_advance_sys,
    .sys_unit = cpu_sys_unit,
    .histogram_mod = cpu_histogram_mod,
    .rows = cpu_rows,
    .count_zero = cpu_count_zero,
    .carried_rows = cpu_carried_rows,
    .name = "cpu",
    .description = "CPU cores: kernels compiled by the system C compiler, OpenMP threads",
    .target = SDK_TARGET_CPU,
    .auto_rank = 1,
    .bench_paths = 65536,
    .open = cpu_open,
    .close = cpu_close,
    .describe = cpu_describe,
    .compile = sdk_cpu_compile,
    .build_hash = sdk_cpu_build_hash,
    .module_free = sdk_cpu_module_free,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .observe = cpu_observe,
    .nonfinite = cpu_nonfinite,
    .eval_observe = cpu_eval_observe,
    .init = cpu_init,
    .advance = cpu_advance,
    .mark = cpu_mark,
    .moments = cpu_moments,
    .displacement = cpu_displacement,
    .minmax = cpu_minmax,
    .histogram = cpu_histogram,
    .read_state = cpu_read_state,
};
