/* The public API: the registry, CUDA devices, the kernel cache, and the
 * timings of `sdekit bench` (our runs and the paper's programs). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "backend/cache.h"
#include "bench/baseline.h"
#include "bench/prog_cuda.h"
#include "sim/registry.h"

/* ------------------------------------------------------------ registry */

/* The selectable observables: those --observe names (not the ones an option
 * turns on, like paths by --save-paths). */
static const sdk_obs_type *observable(int i) {
  for (int k = 0, n = 0; sdk_registry_observables[k]; k++)
    if (!(sdk_registry_observables[k]->flags & SDK_OBS_BY_OPTION) && n++ == i)
      return sdk_registry_observables[k];
  return NULL;
}

static int count(const void *const *list) {
  int n = 0;
  while (list[n])
    n++;
  return n;
}

SDEKIT_API const char *sdekit_registry_name(const char *kind, int i) {
  if (!kind || i < 0) return NULL;
  if (!strcmp(kind, "scheme"))
    return i < count((const void *const *)sdk_registry_schemes) ? sdk_registry_schemes[i]->name
                                                                : NULL;
  if (!strcmp(kind, "noise"))
    return i < count((const void *const *)sdk_registry_noises) ? sdk_registry_noises[i]->name
                                                               : NULL;
  if (!strcmp(kind, "backend"))
    return i < count((const void *const *)sdk_registry_backends) ? sdk_registry_backends[i]->name
                                                                 : NULL;
  if (!strcmp(kind, "observable")) return observable(i) ? observable(i)->name : NULL;
  return NULL;
}

SDEKIT_API const char *sdekit_registry_description(const char *kind, int i) {
  if (!sdekit_registry_name(kind, i)) return NULL;
  if (!strcmp(kind, "scheme")) return sdk_registry_schemes[i]->description;
  if (!strcmp(kind, "noise")) return sdk_registry_noises[i]->description;
  if (!strcmp(kind, "observable")) return observable(i)->description;
  return sdk_registry_backends[i]->description;
}

SDEKIT_API int64_t sdekit_registry_value(const char *kind, int i, const char *key) {
  if (!sdekit_registry_name(kind, i) || !key || strcmp(kind, "backend")) return -1;
  const sdk_backend *b = sdk_registry_backends[i];
  if (!strcmp(key, "device")) return b->device;
  if (!strcmp(key, "auto")) return b->auto_rank;
  if (!strcmp(key, "bench-paths")) return b->bench_paths;
  return -1;
}

/* ------------------------------------------------------------ CUDA */

static sdk_backend_opts backend_opts(const sdekit_config *c, const sdk_logger *lg) {
  sdk_backend_opts bo = {0};
  if (c) {
    bo.threads = c->c.threads;
    bo.device = c->c.device;
    bo.fast_math = 1;
    bo.cache_max = c->c.cache_max;
    bo.env = c->c.env;
    bo.tuning = c->c.tuning;
    bo.logger = lg;
  }
  return bo;
}

SDEKIT_API sdekit_status sdekit_cuda_info_get(const sdekit_config *c, sdekit_cuda_info *out,
                                              sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!out) return api_usage(err, "sdekit_cuda_info_get: no place for it");
  memset(out, 0, sizeof *out);
  sdk_backend_opts bo = backend_opts(c, NULL);
  sdk_cuda_sysinfo info;
  sdk_errbuf eb = {0};
  sdk_err e = sdk_cuda_query(c ? &bo : NULL, &info, &eb);
  if (e != SDK_OK) return api_fail(err, e, &eb);
  out->driver_version = info.driver;
  out->nvrtc_major = info.nvrtc_major;
  out->nvrtc_minor = info.nvrtc_minor;
  snprintf(out->nvrtc_path, sizeof out->nvrtc_path, "%s", info.nvrtc_path);
  out->ndevices = info.ndevices;
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API sdekit_status sdekit_cuda_device(const sdekit_config *c, int ordinal,
                                            sdekit_device_info *out, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!out) return api_usage(err, "sdekit_cuda_device: no place for it");
  memset(out, 0, sizeof *out);
  sdk_cuda_devinfo d;
  sdk_errbuf eb = {0};
  sdk_err e = sdk_cuda_query_device(ordinal, &d, &eb);
  if (e != SDK_OK) return api_fail(err, e, &eb);
  out->ordinal = ordinal;
  snprintf(out->name, sizeof out->name, "%s", d.name);
  snprintf(out->arch, sizeof out->arch, "sm_%d%d", d.major, d.minor);
  out->multiprocessors = d.sms;
  out->memory_bytes = d.memory;
  api_ok(err);
  return SDEKIT_OK;
}

/* ------------------------------------------------------------ kernel cache */

_Static_assert(sizeof(((sdekit_cache_entry *)0)->name) >= sizeof(((sdk_cache_entry *)0)->name),
               "cache entry names");

SDEKIT_API sdekit_status sdekit_cache_list(const char *dir, sdekit_cache_entry **entries, size_t *n,
                                           sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!entries || !n) return api_usage(err, "sdekit_cache_list: no place for the entries");
  *entries = NULL;
  *n = 0;
  if (!dir || !*dir) return api_usage(err, "no kernel cache directory");
  sdk_errbuf eb = {0};
  sdk_cache_dir d;
  sdk_err e = sdk_cache_open_dir(dir, &d, &eb);
  sdk_cache_entry *v = NULL;
  size_t m = 0;
  if (e == SDK_OK) e = sdk_cache_list(d.fd, &v, &m, &eb);
  sdk_cache_close_dir(&d);
  if (e != SDK_OK) return api_fail(err, e, &eb);
  sdekit_cache_entry *out = calloc(m ? m : 1, sizeof *out);
  if (!out) {
    free(v);
    return api_nomem(err);
  }
  for (size_t i = 0; i < m; i++) {
    snprintf(out[i].name, sizeof out[i].name, "%s", v[i].name);
    out[i].size = (int64_t)v[i].size;
    out[i].mtime = (int64_t)v[i].mtime;
    out[i].is_dir = v[i].is_dir;
  }
  free(v);
  *entries = out;
  *n = m;
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API sdekit_status sdekit_cache_remove(const char *dir, const sdekit_cache_entry *e,
                                             sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!dir || !e) return api_usage(err, "sdekit_cache_remove: no directory or entry");
  sdk_cache_entry ce;
  memset(&ce, 0, sizeof ce);
  snprintf(ce.name, sizeof ce.name, "%s", e->name);
  ce.is_dir = e->is_dir;
  if (!sdk_cache_is_ours(ce.name))
    return api_usage(err, "'%s' is not a kernel cache entry", e->name);
  sdk_errbuf eb = {0};
  sdk_cache_dir d;
  sdk_err r = sdk_cache_open_dir(dir, &d, &eb);
  if (r != SDK_OK) return api_fail(err, r, &eb);
  int bad = sdk_cache_remove(d.fd, &ce) != 0;
  int why = errno;
  sdk_cache_close_dir(&d);
  if (bad) {
    SDK_FAIL(&eb, SDK_ERR_IO, "cannot remove %s: %s", e->name, strerror(why));
    return api_fail(err, SDK_ERR_IO, &eb);
  }
  api_ok(err);
  return SDEKIT_OK;
}

/* ------------------------------------------------------------ timing */

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

SDEKIT_API sdekit_status sdekit_time_steps(const sdekit_config *c, int64_t nsteps, int repeats,
                                           sdekit_timing *out, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!out || !c) return api_usage(err, "sdekit_time_steps: no configuration or no place");
  memset(out, 0, sizeof *out);
  api_exec x;
  sdekit_status s = api_exec_make(c, &x, err);
  if (s != SDEKIT_OK) return s;
  sdk_bench_timing tm;
  sdk_errbuf eb = {0};
  sdk_err e = sdk_run_time_advance(&x.rc, nsteps, repeats, &tm, &eb);
  api_exec_free(&x);
  if (e != SDK_OK) return api_fail(err, e, &eb);
  out->median_s = tm.median_s;
  out->min_s = tm.min_s;
  out->max_s = tm.max_s;
  out->work = tm.path_steps;
  out->checksum = tm.check_hi;
  snprintf(out->device, sizeof out->device, "%s", tm.device);
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API sdekit_status sdekit_time_runs(const sdekit_config *c, int repeats, sdekit_timing *out,
                                          sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!out || !c) return api_usage(err, "sdekit_time_runs: no configuration or no place");
  memset(out, 0, sizeof *out);
  if (repeats < 1) repeats = 1;
  if (repeats > 15) repeats = 15;
  double t[16];
  for (int i = -1; i < repeats; i++) {
    sdekit_result *r = NULL;
    sdekit_status s = sdekit_run(c, &r, err);
    if (s != SDEKIT_OK) return s;
    if (i >= 0) t[i] = sdekit_result_seconds(r);
    out->work = sdekit_result_path_steps(r);
    snprintf(out->device, sizeof out->device, "%s", sdekit_result_device(r));
    sdekit_result_destroy(&r);
  }
  qsort(t, (size_t)repeats, sizeof *t, cmp_d);
  out->median_s = t[repeats / 2];
  out->min_s = t[0];
  out->max_s = t[repeats - 1];
  api_ok(err);
  return SDEKIT_OK;
}

/* The paper's programs on one CPU core: a warm-up, then the median. */
static sdekit_status cpu_baseline(const sdekit_config *c, const char *program, int64_t size,
                                  int64_t steps, int repeats, unsigned seed, sdekit_timing *out,
                                  sdekit_error *err) {
  (void)c;
  int prog1 = !strcmp(program, "prog1"), pairs = !strcmp(program, "prog2");
  if (!prog1 && !pairs && strcmp(program, "prog3"))
    return api_usage(err, "baseline '%s' on the CPU: expected prog1, prog2 or prog3", program);
  double t[16];
  if (repeats > 15) repeats = 15;
  sdk_baseline_result br;
  if (prog1)
    sdk_baseline_prog1_cpu(256, 100, 100, seed, &br);
  else
    sdk_baseline_kuramoto_cpu(pairs, 256, 2, seed, &br);
  for (int i = 0; i < repeats; i++) {
    if (prog1)
      sdk_baseline_prog1_cpu(size, steps, 100, seed + (unsigned)i, &br);
    else
      sdk_baseline_kuramoto_cpu(pairs, size, steps, seed + (unsigned)i, &br);
    t[i] = br.seconds;
  }
  qsort(t, (size_t)repeats, sizeof *t, cmp_d);
  out->median_s = t[repeats / 2];
  out->min_s = t[0];
  out->max_s = t[repeats - 1];
  out->work = br.path_steps;
  out->checksum = br.checksum;
  snprintf(out->device, sizeof out->device, "one CPU core, scalar C");
  return SDEKIT_OK;
}

/* The paper's programs on the GPU (and the copy roofline). */
static sdekit_status cuda_baseline(const sdekit_config *c, const char *program, int64_t size,
                                   int64_t steps, int repeats, unsigned seed, sdekit_timing *out,
                                   sdekit_error *err) {
  (void)seed;
  sdk_logger lg = {0};
  sdk_backend_opts bo = backend_opts(c, &lg);
  sdk_bctx *ctx = NULL;
  sdk_errbuf eb = {0};
  sdk_err e = sdk_backend_cuda.open(&bo, &ctx, &eb);
  double ms = 0, chk = 0, gbps = 0;
  if (e == SDK_OK) {
    sdk_backend_cuda.describe(ctx, out->device, sizeof out->device);
    if (!strcmp(program, "prog1")) {
      e = sdk_cuda_bench_prog1(ctx, size, steps, repeats, &ms, &chk, &eb);
      out->work = (double)size * (double)steps;
    } else if (!strcmp(program, "prog2") || !strcmp(program, "prog3")) {
      int pairs = !strcmp(program, "prog2");
      e = sdk_cuda_bench_kuramoto_paper(ctx, pairs, size, steps, repeats, &ms, &chk, &eb);
      out->work = (double)size * (double)steps * (pairs ? (double)size : 1.0);
    } else if (!strcmp(program, "copy")) {
      e = sdk_cuda_bench_copy(ctx, (size_t)size, repeats, &gbps, &eb);
      out->work = 2.0 * (double)size;
      ms = gbps > 0 ? out->work / (gbps * 1e9) * 1e3 : 0;
    } else {
      e = SDK_FAIL(&eb, SDK_ERR_USAGE, "baseline '%s': expected prog1, prog2, prog3 or copy",
                   program);
    }
  }
  if (ctx) sdk_backend_cuda.close(&ctx);
  if (e != SDK_OK) return api_fail(err, e, &eb);
  out->median_s = out->min_s = out->max_s = ms * 1e-3;
  out->checksum = chk;
  return SDEKIT_OK;
}

/* The paper's programs by the backend they are the baselines of (a backend
 * without a row here has none). */
static const struct {
  const sdk_backend *backend;
  sdekit_status (*run)(const sdekit_config *c, const char *program, int64_t size, int64_t steps,
                       int repeats, unsigned seed, sdekit_timing *out, sdekit_error *err);
} BASELINES[] = {{&sdk_backend_cpu, cpu_baseline}, {&sdk_backend_cuda, cuda_baseline}};
enum { NBASELINES = sizeof BASELINES / sizeof BASELINES[0] };

static int has_baseline(const sdk_backend *b) {
  for (int k = 0; k < NBASELINES; k++)
    if (BASELINES[k].backend == b) return 1;
  return 0;
}

SDEKIT_API sdekit_status sdekit_time_baseline(const sdekit_config *c, const char *program,
                                              const char *backend, int64_t size, int64_t steps,
                                              int repeats, unsigned seed, sdekit_timing *out,
                                              sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!out || !program || !backend) return api_usage(err, "sdekit_time_baseline: missing argument");
  memset(out, 0, sizeof *out);
  if (size < 1 || steps < 1) return api_usage(err, "baseline: size and steps must be >= 1");
  if (repeats < 1) repeats = 1;
  const sdk_backend *be = sdk_find_backend(backend);
  int k = 0;
  while (k < NBASELINES && (!be || BASELINES[k].backend != be))
    k++;
  if (k == NBASELINES) {
    char known[256];
    return api_usage(
        err, "baseline backend '%s': expected %s", backend,
        sdk_registry_backend_names(known, sizeof known, has_baseline, NULL, ", ", " or "));
  }
  sdekit_status s = BASELINES[k].run(c, program, size, steps, repeats, seed, out, err);
  if (s == SDEKIT_OK) api_ok(err);
  return s;
}
