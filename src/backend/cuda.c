/* CUDA backend: generated CUDA C++ compiled at run time by NVRTC to a cubin
 * for the device's own architecture, loaded through the CUDA driver API
 * (cuda_module.c), neither of them linked (cuda_driver.c); systems of
 * interacting particles in cuda_sys.c; an ensemble's memory in
 * cuda_ensemble.c.  This file: the backend's table.
 *
 * State lives in device memory (structure of arrays, as on the CPU); only
 * reduced results travel to the host.  Reductions follow backend.h: chunks
 * of SDK_RED_CHUNK consecutive paths of a grid point are reduced on the
 * device in a fixed tree order and merged on the host in chunk order, so the
 * results do not depend on the launch shape or on scheduling. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda_internal.h"

static int valid_arch(const char *a) {
  if (strncmp(a, "sm_", 3) != 0) return 0;
  const char *p = a + 3;
  int digits = 0;
  while (*p >= '0' && *p <= '9')
    p++, digits++;
  if (digits < 2 || digits > 3) return 0;
  if (*p == 'a' || *p == 'f') p++;
  return *p == 0;
}

static sdk_err cuda_open(const sdk_backend_opts *o, sdk_bctx **out, sdk_errbuf *eb) {
  *out = NULL;
  sdk_bctx *c = calloc(1, sizeof *c);
  if (!c) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  c->o = *o;
  sdk_cache_place_init(&c->cache, o->env.cache_dir, o->env.tmp_dir);
  sdk_err err = SDK_OK;
  if (o->arch) {
    /* compile only: NVRTC, no driver, no device */
    if (!valid_arch(o->arch)) {
      err = SDK_FAIL(eb, SDK_ERR_USAGE, "--arch '%s': expected sm_XY (e.g. sm_90)", o->arch);
      goto fail;
    }
    snprintf(c->arch, sizeof c->arch, "%s", o->arch);
    c->o.arch = NULL; /* do not keep the caller's pointer */
    if (!sdk_nv_load(&o->env)) {
      err = SDK_FAIL(eb, SDK_ERR_BACKEND, "%s", sdk_nv.why);
      goto fail;
    }
    *out = c;
    return SDK_OK;
  }
  if (!sdk_cu_load()) {
    err = SDK_FAIL(eb, SDK_ERR_BACKEND, "%s", sdk_cu.why);
    goto fail;
  }
  CUresult r = sdk_cu.Init(0);
  int count = 0;
  if (r == CUDA_SUCCESS) r = sdk_cu.DeviceGetCount(&count);
  if (r == CUDA_ERROR_NO_DEVICE || (r == CUDA_SUCCESS && count == 0)) {
    err = SDK_FAIL(eb, SDK_ERR_BACKEND, "no CUDA device");
    goto fail;
  }
  if (r != CUDA_SUCCESS) {
    err = sdk_cu_fail(eb, "cuInit", r);
    goto fail;
  }
  if (o->by_rank) c->o.device = o->local_rank % count;
  o = &c->o;
  if (o->device < 0 || o->device >= count) {
    err = SDK_FAIL(eb, SDK_ERR_BACKEND, "no CUDA device %d (%d device%s: 0..%d)", o->device, count,
                   count == 1 ? "" : "s", count - 1);
    goto fail;
  }
#define CUF(call, what)                                                                            \
  do {                                                                                             \
    CUresult r_ = (sdk_cu.call);                                                                   \
    if (r_ != CUDA_SUCCESS) {                                                                      \
      err = sdk_cu_fail(eb, what, r_);                                                             \
      goto fail;                                                                                   \
    }                                                                                              \
  } while (0)
  CUF(DeviceGet(&c->dev, o->device), "cuDeviceGet");
  CUF(DeviceGetName(c->name, (int)sizeof c->name, c->dev), "cuDeviceGetName");
  CUF(DeviceGetAttribute(&c->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, c->dev),
      "cuDeviceGetAttribute");
  CUF(DeviceGetAttribute(&c->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, c->dev),
      "cuDeviceGetAttribute");
  CUF(DeviceGetAttribute(&c->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, c->dev),
      "cuDeviceGetAttribute");
  CUF(DeviceTotalMem(&c->mem, c->dev), "cuDeviceTotalMem");
  if (sdk_cu.DeviceGetAttribute(&c->coop, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, c->dev) !=
          CUDA_SUCCESS ||
      !sdk_cu.LaunchCooperativeKernel || !sdk_cu.OccupancyMaxActiveBlocksPerMultiprocessor ||
      !sdk_cu.FuncSetAttribute)
    c->coop = 0;
  if (sdk_cu.DeviceGetAttribute(&c->uva, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, c->dev) !=
      CUDA_SUCCESS)
    c->uva = 0;
  if (sdk_cu.DeviceGetAttribute(&c->smem_optin,
                                CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                c->dev) != CUDA_SUCCESS)
    c->smem_optin = 48 * 1024;
  snprintf(c->arch, sizeof c->arch, "sm_%d%d", c->cc_major, c->cc_minor);
  if (!sdk_nv_load(&o->env)) {
    err = SDK_FAIL(eb, SDK_ERR_BACKEND, "%s", sdk_nv.why);
    goto fail;
  }
  CUF(DevicePrimaryCtxRetain(&c->cx, c->dev), "cuDevicePrimaryCtxRetain");
  c->has_device = 1;
  CUF(CtxSetCurrent(c->cx), "cuCtxSetCurrent");
#undef CUF
  *out = c;
  return SDK_OK;
fail:
  if (c->has_device) sdk_cu.DevicePrimaryCtxRelease(c->dev);
  free(c);
  return err;
}

static void cuda_close(sdk_bctx **c) {
  if (!c || !*c) return;
  if ((*c)->has_device) sdk_cu.DevicePrimaryCtxRelease((*c)->dev);
  sdk_cache_place_close(&(*c)->cache);
  free(*c);
  *c = NULL;
}

static void cuda_describe(sdk_bctx *c, char *buf, size_t n) {
  if (!c->has_device)
    snprintf(buf, n, "cuda: no device, compiling for %s with NVRTC %d.%d", c->arch, sdk_nv.major,
             sdk_nv.minor);
  else
    snprintf(buf, n, "cuda: device %d, %s, %d SMs, %s, %.1f GiB", c->o.device, c->name, c->sms,
             c->arch, (double)c->mem / (1024.0 * 1024.0 * 1024.0));
}

/* A launch of `blocks` blocks of `threads` threads, not waited for (stream
 * order: a later copy to the host waits for it). */
static sdk_err launch_async_n(sdk_ensemble *e, CUfunction f, const char *name, int64_t blocks,
                              unsigned threads, void **args, sdk_errbuf *eb) {
  if (blocks <= 0) return SDK_OK;
  CU(eb, CtxSetCurrent(e->ctx->cx));
  CUresult r = sdk_cu.LaunchKernel(f, (unsigned)blocks, 1, 1, threads, 1, 1, 0, NULL, args, NULL);
  if (r != CUDA_SUCCESS) {
    char what[128];
    snprintf(what, sizeof what, "cuLaunchKernel(%s)", name);
    return sdk_cu_fail(eb, what, r);
  }
  return SDK_OK;
}

static sdk_err launch_async(sdk_ensemble *e, CUfunction f, const char *name, int64_t blocks,
                            void **args, sdk_errbuf *eb) {
  return launch_async_n(e, f, name, blocks, 256, args, eb);
}

static sdk_err launch(sdk_ensemble *e, CUfunction f, const char *name, int64_t blocks, void **args,
                      sdk_errbuf *eb) {
  if (blocks <= 0) return SDK_OK;
  CU(eb, CtxSetCurrent(e->ctx->cx));
  CUresult r = sdk_cu.LaunchKernel(f, (unsigned)blocks, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
  if (r != CUDA_SUCCESS) {
    char what[128];
    snprintf(what, sizeof what, "cuLaunchKernel(%s)", name);
    return sdk_cu_fail(eb, what, r);
  }
  /* errors inside the kernel surface here, attributed to it */
  r = sdk_cu.CtxSynchronize();
  if (r != CUDA_SUCCESS) {
    char what[128];
    snprintf(what, sizeof what, "cuCtxSynchronize after %s", name);
    return sdk_cu_fail(eb, what, r);
  }
  return SDK_OK;
}

static sdk_err cuda_init(sdk_ensemble *e, uint64_t seed, sdk_errbuf *eb) {
  long long npad = e->npad, ppg = e->lay.ppg, ngrid = e->lay.ngrid, path0 = e->lay.path0;
  unsigned long long s = seed;
  void *args[] = {&e->st, &npad, &e->sv, &ppg, &ngrid, &path0, &s};
  return launch(e, e->mod->init, "sdk_init", e->npad / 256, args, eb);
}

/* [boundaries]: the list of the paths still alive (sdk_live_list), its
 * length into *n.  Built before every launch: absorbed paths scattered over
 * the warps would keep them all busy, the listed ones fill whole warps. */
static sdk_err live_list(sdk_ensemble *e, unsigned long long *n, sdk_errbuf *eb) {
  CUresult r;
  if (!e->live) {
    if ((r = sdk_cuda_dev_alloc(e->ctx, "live", &e->live, (size_t)e->npad * sizeof(unsigned))) !=
        CUDA_SUCCESS) {
      e->live = 0;
      return sdk_cu_fail(eb, "cuMemAlloc", r);
    }
    if ((r = sdk_cu.MemAlloc(&e->nlive, sizeof *n)) != CUDA_SUCCESS) {
      e->nlive = 0;
      return sdk_cu_fail(eb, "cuMemAlloc", r);
    }
  }
  CU(eb, MemsetD8(e->nlive, 0, sizeof *n));
  long long npad = e->npad;
  void *args[] = {&e->st, &npad, &e->live, &e->nlive};
  r = sdk_cu.LaunchKernel(e->mod->live, (unsigned)(e->npad / SDK_CUDA_TPB), 1, 1, SDK_CUDA_TPB, 1,
                          1, 0, NULL, args, NULL);
  if (r != CUDA_SUCCESS) return sdk_cu_fail(eb, "cuLaunchKernel(sdk_live_list)", r);
  CU(eb, MemcpyDtoH(n, e->nlive, sizeof *n));
  return SDK_OK;
}

static sdk_err cuda_advance(sdk_ensemble *e, int64_t step0, int64_t nsteps, uint64_t seed,
                            sdk_errbuf *eb) {
  long long npad = e->npad, ppg = e->lay.ppg, ngrid = e->lay.ngrid, path0 = e->lay.path0;
  long long s0 = step0, ns = nsteps;
  unsigned long long s = seed, nlive = 0;
  long long nl = 0;
  void *args[] = {&e->st, &npad, &e->sv, &ppg, &ngrid, &path0, &s0, &ns, &s, &e->live, &nl};
  unsigned blocks = (unsigned)(e->npad / 256);
  e->last_ms = -1;
  if (!e->mod->advance)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL,
                    "this module integrates systems of particles (advance_sys)");
  if (!e->ev0 && (sdk_cu.EventCreate(&e->ev0, 0) != CUDA_SUCCESS ||
                  sdk_cu.EventCreate(&e->ev1, 0) != CUDA_SUCCESS))
    e->ev0 = e->ev1 = NULL;
  CU(eb, CtxSetCurrent(e->ctx->cx));
  /* (flags 0: a blocking stream, ordered with the NULL stream's work) */
  if (!e->stream && sdk_cu.StreamCreate && sdk_cu.StreamCreate(&e->stream, 0) != CUDA_SUCCESS)
    e->stream = NULL;
  int timed = e->ev0 && sdk_cu.EventRecord(e->ev0, e->stream) == CUDA_SUCCESS;
  if (e->npad % 256)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "cuda: %lld paths are not a multiple of %d",
                    (long long)e->npad, 256);
  if (e->mod->live) { /* [boundaries]: over the paths still alive alone */
    if (e->npad > 0xffffffffLL || SDK_CUDA_TPB != 256)
      return SDK_FAIL(eb, SDK_ERR_INTERNAL, "cuda: no list of live paths for this ensemble");
    SDK_CHECK(live_list(e, &nlive, eb));
    if (nlive == 0) { /* every path absorbed: nothing moves */
      e->last_ms = 0, e->timed = 0;
      return SDK_OK;
    }
    nl = (long long)nlive;
    blocks = (unsigned)((nlive + 255) / 256);
  }
  CUresult r =
      sdk_cu.LaunchKernel(e->mod->advance, blocks, 1, 1, 256, 1, 1, 0, e->stream, args, NULL);
  if (r != CUDA_SUCCESS) return sdk_cu_fail(eb, "cuLaunchKernel(sdk_advance)", r);
  /* not waited for: the reductions that follow queue behind it and the
   * host waits once, for their results (errors inside the kernel surface
   * at that copy) */
  e->timed = timed && sdk_cu.EventRecord(e->ev1, e->stream) == CUDA_SUCCESS;
  return SDK_OK;
}

static double cuda_last_advance_ms(sdk_ensemble *e) {
  float ms;
  if (e->timed && sdk_cu.EventSynchronize(e->ev1) == CUDA_SUCCESS &&
      sdk_cu.EventElapsedTime(&ms, e->ev0, e->ev1) == CUDA_SUCCESS)
    e->last_ms = ms;
  e->timed = 0;
  return e->last_ms;
}

static sdk_err cuda_mark(sdk_ensemble *e, int var, sdk_errbuf *eb) {
  CU(eb, CtxSetCurrent(e->ctx->cx));
  size_t n = (size_t)e->npad * e->esize;
  if (!e->mark) {
    CUresult r = sdk_cu.MemAlloc(&e->mark, n);
    if (r != CUDA_SUCCESS) {
      e->mark = 0;
      return sdk_cu_fail(eb, "cuMemAlloc", r);
    }
  }
  CU(eb, MemcpyDtoD(e->mark, e->st + (CUdeviceptr)((size_t)var * n), n));
  return SDK_OK;
}

/* Where the reduction kernels write their unit results: straight into the
 * page-locked host buffer where the device addresses it (unified
 * addressing: its host address is its device address), which spares a copy
 * and its latency at every sample; else the device buffer `fold`, copied by
 * results_wait. */
static CUdeviceptr results_base(const sdk_ensemble *e) {
  return e->host_pinned && e->ctx->uva ? (CUdeviceptr)(uintptr_t)e->host : e->fold;
}

/* The unit results in e->host once the kernels are done (errors inside them
 * surface here). */
static sdk_err results_wait(sdk_ensemble *e, size_t nbytes, sdk_errbuf *eb) {
  if (results_base(e) != e->fold) {
    CU(eb, CtxSynchronize());
  } else {
    CU(eb, MemcpyDtoH(e->host, e->fold, nbytes));
  }
  return SDK_OK;
}

/* Moments of variables v0..v0+nvr-1 (or the displacement) on the device per
 * fold unit held (sdk_red_units: the chunks and their fold in one kernel):
 * out[k * nvr + v] per unit k held (backend.h), merged by the caller in unit
 * order.  Only the units' results cross to the host, 1/SDK_RED_FOLD of the
 * chunks'. */
static sdk_err chunk_moments(sdk_ensemble *e, CUdeviceptr rows, int v0, int nvr, CUdeviceptr mark,
                             double scale, sdk_moments *out, int64_t *nonfinite, sdk_errbuf *eb) {
  long long npad = e->npad, ppg = e->lay.ppg, path0 = e->lay.path0, nch = e->nch;
  long long c0 = e->span.c0, nu = e->nunits;
  int a = v0, b = nvr;
  CUdeviceptr base = results_base(e);
  CUdeviceptr fout = base, fnf = base + (size_t)nu * (size_t)nvr * 3 * sizeof(double);
  void *args[] = {&rows,  &npad, &a,  &b,        &mark, &scale, &ppg,
                  &path0, &nch,  &c0, &e->units, &fout, &fnf};
  /* a block per unit, no more warps than its chunks */
  unsigned warps = e->unitmax < SDK_RED_WARPS ? (unsigned)e->unitmax : SDK_RED_WARPS;
  SDK_CHECK(launch_async_n(e, e->mod->red_units, "sdk_red_units", nu, 32 * warps, args, eb));
  size_t nbytes = (size_t)nu * (size_t)nvr * (3 * sizeof(double) + sizeof(int));
  SDK_CHECK(results_wait(e, nbytes, eb));
  const double *h = e->host;
  const int *hnf = (const int *)(h + (size_t)nu * (size_t)nvr * 3);
  for (size_t i = 0; i < (size_t)nu * (size_t)nvr; i++) {
    out[i] = (sdk_moments){h[3 * i], h[3 * i + 1], h[3 * i + 2]};
    if (nonfinite) nonfinite[i] = hnf[i];
  }
  return SDK_OK;
}

static sdk_err cuda_moments(sdk_ensemble *e, sdk_moments *out, int64_t *nonfinite, sdk_errbuf *eb) {
  return chunk_moments(e, e->st, 0, e->lay.nvars, 0, 1.0, out, nonfinite, eb);
}

static sdk_err cuda_displacement(sdk_ensemble *e, int var, double scale, sdk_moments *out,
                                 sdk_errbuf *eb) {
  if (!e->mark) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "displacement before mark");
  return chunk_moments(e, e->st, var, 1, e->mark, scale, out, NULL, eb);
}

/* The module's sdk_observe evaluates the expressions into rows of reals on
 * the device, which sdk_red_units then reduces like variables. */
static sdk_err cuda_eval_observe(sdk_ensemble *e, int64_t step, int nobs, sdk_errbuf *eb) {
  if (!e->mod->observe)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "this module has no user observables");
  CU(eb, CtxSetCurrent(e->ctx->cx));
  CUresult r;
  if (!e->obs || e->nobs != nobs) {
    if (e->obs) sdk_cu.MemFree(e->obs);
    e->obs = 0;
    e->nobs = 0;
    if ((r = sdk_cu.MemAlloc(&e->obs, (size_t)nobs * (size_t)e->npad * e->esize)) != CUDA_SUCCESS) {
      e->obs = 0;
      return sdk_cu_fail(eb, "cuMemAlloc", r);
    }
    e->nobs = nobs;
  }
  long long npad = e->npad, ppg = e->lay.ppg, ngrid = e->lay.ngrid, path0 = e->lay.path0;
  long long st = step;
  void *args[] = {&e->st, &npad, &e->sv, &ppg, &ngrid, &path0, &st, &e->obs};
  return launch_async(e, e->mod->observe, "sdk_observe", e->npad / 256, args, eb);
}

static sdk_err cuda_nonfinite(sdk_ensemble *e, int64_t *count, sdk_errbuf *eb);

/* sdk_observe_units: the expressions evaluated where they are reduced, in
 * groups of SDK_OBS_GROUP, and with state_nf the NaN/Inf count of the
 * variables in the first group's pass (the check between samples). */
static sdk_err observe_fused(sdk_ensemble *e, int64_t step, int nobs, sdk_moments *out,
                             int64_t *nonfinite, int64_t *state_nf, sdk_errbuf *eb) {
  long long npad = e->npad, ppg = e->lay.ppg, path0 = e->lay.path0, nch = e->nch;
  long long c0 = e->span.c0, st = step;
  size_t nu = (size_t)e->nunits, nv = (size_t)e->lay.nvars;
  CUdeviceptr fout = results_base(e), fnf = fout + nu * (size_t)nobs * 3 * sizeof(double);
  CUdeviceptr fns = fnf + nu * (size_t)nobs * sizeof(int);
  unsigned warps = e->unitmax < SDK_RED_WARPS ? (unsigned)e->unitmax : SDK_RED_WARPS;
  for (int k0 = 0; k0 < nobs; k0 += SDK_OBS_GROUP) {
    int k = k0;
    CUdeviceptr ns = k0 == 0 && state_nf ? fns : 0;
    void *args[] = {&e->st, &npad,     &e->sv, &ppg,  &path0, &st, &nch,
                    &c0,    &e->units, &k,     &fout, &fnf,   &ns};
    SDK_CHECK(launch_async_n(e, e->mod->observe_units, "sdk_observe_units", (int64_t)nu, 32 * warps,
                             args, eb));
  }
  size_t nbytes = nu * (size_t)nobs * (3 * sizeof(double) + sizeof(int));
  if (state_nf) nbytes += nu * nv * sizeof(int);
  SDK_CHECK(results_wait(e, nbytes, eb));
  const double *h = e->host;
  const int *hnf = (const int *)(h + nu * (size_t)nobs * 3), *hns = hnf + nu * (size_t)nobs;
  for (size_t i = 0; i < nu * (size_t)nobs; i++) {
    out[i] = (sdk_moments){h[3 * i], h[3 * i + 1], h[3 * i + 2]};
    if (nonfinite) nonfinite[i] = hnf[i];
  }
  if (state_nf) { /* per grid point held, as cuda_nonfinite */
    int64_t g0 = e->span.g0;
    memset(state_nf, 0, (size_t)(e->span.g1 - g0) * nv * sizeof *state_nf);
    for (size_t j = 0; j < nu; j++)
      for (size_t v = 0; v < nv; v++)
        state_nf[(size_t)(e->unit_g[j] - g0) * nv + v] += hns[j * nv + v];
  }
  return SDK_OK;
}

static sdk_err cuda_observe(sdk_ensemble *e, int64_t step, int nobs, sdk_moments *out,
                            int64_t *nonfinite, int64_t *state_nf, sdk_errbuf *eb) {
  if (!e->mod->observe)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "this module has no user observables");
  CU(eb, CtxSetCurrent(e->ctx->cx));
  size_t nchunks = (size_t)(e->span.c1 - e->span.c0);
  size_t need = nchunks * (size_t)nobs * (3 * sizeof(double) + sizeof(int));
  size_t fused = (size_t)e->nunits *
                 ((size_t)nobs * (3 * sizeof(double) + sizeof(int)) + e->lay.nvars * sizeof(int));
  if (fused > need) need = fused;
  CUresult r;
  if (need > e->red_bytes) { /* more observables than variables */
    if (!sdk_cuda_host_alloc(e, need)) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    sdk_cu.MemFree(e->red);
    sdk_cu.MemFree(e->fold);
    e->red_bytes = 0;
    e->fold = 0;
    if ((r = sdk_cu.MemAlloc(&e->red, need)) != CUDA_SUCCESS) {
      e->red = 0;
      return sdk_cu_fail(eb, "cuMemAlloc", r);
    }
    if ((r = sdk_cu.MemAlloc(&e->fold, need)) != CUDA_SUCCESS) {
      e->fold = 0;
      return sdk_cu_fail(eb, "cuMemAlloc", r);
    }
    e->red_bytes = need;
  }
  if (e->mod->observe_units) return observe_fused(e, step, nobs, out, nonfinite, state_nf, eb);
  if (state_nf) SDK_CHECK(cuda_nonfinite(e, state_nf, eb));
  SDK_CHECK(cuda_eval_observe(e, step, nobs, eb));
  return chunk_moments(e, e->obs, 0, nobs, 0, 1.0, out, nonfinite, eb);
}

/* The rows the reduction kernels read for `var`: the state, or the user
 * observables last evaluated (backend.h); *v becomes the row within them. */
static sdk_err reduce_base(const sdk_ensemble *e, int *v, CUdeviceptr *base, sdk_errbuf *eb) {
  *base = e->st;
  if (*v < e->lay.nvars) return SDK_OK;
  if (!e->obs || *v - e->lay.nvars >= e->nobs)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "no row %d to reduce", *v);
  *v -= e->lay.nvars;
  *base = e->obs;
  return SDK_OK;
}

static sdk_err cuda_minmax(sdk_ensemble *e, int var, double *lo, double *hi, sdk_errbuf *eb) {
  long long npad = e->npad, ppg = e->lay.ppg, path0 = e->lay.path0, nch = e->nch;
  long long c0 = e->span.c0;
  int v = var;
  CUdeviceptr base;
  SDK_CHECK(reduce_base(e, &v, &base, eb));
  size_t nchunks = (size_t)(e->span.c1 - e->span.c0);
  void *args[] = {&base, &npad, &v, &ppg, &path0, &nch, &c0, &e->red};
  SDK_CHECK(launch(e, e->mod->red_minmax, "sdk_red_minmax", (int64_t)nchunks, args, eb));
  CU(eb, MemcpyDtoH(e->host, e->red, nchunks * 2 * sizeof(double)));
  const double *h = e->host;
  for (int64_t j = 0; j < e->span.g1 - e->span.g0; j++)
    lo[j] = INFINITY, hi[j] = -INFINITY;
  for (size_t i = 0; i < nchunks; i++) {
    int64_t j = ((int64_t)i + e->span.c0) / e->nch - e->span.g0;
    if (h[2 * i] < lo[j]) lo[j] = h[2 * i];
    if (h[2 * i + 1] > hi[j]) hi[j] = h[2 * i + 1];
  }
  return SDK_OK;
}

/* (the counts use the fold buffer: ngrid held x nvars <= its chunk results) */
static sdk_err cuda_nonfinite(sdk_ensemble *e, int64_t *count, sdk_errbuf *eb) {
  CU(eb, CtxSetCurrent(e->ctx->cx));
  int64_t ng = e->span.g1 - e->span.g0;
  size_t nc = (size_t)ng * (size_t)e->lay.nvars;
  if (nc * sizeof(uint64_t) > e->red_bytes)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "cuda: no room for %zu counts", nc);
  CU(eb, MemsetD8(e->fold, 0, nc * sizeof(uint64_t)));
  long long npad = e->npad, ppg = e->lay.ppg, n = sdk_layout_npaths(&e->lay);
  long long path0 = e->lay.path0, g0 = e->span.g0;
  int nvr = e->lay.nvars;
  void *args[] = {&e->st, &npad, &nvr, &ppg, &n, &path0, &g0, &e->fold};
  SDK_CHECK(launch_async(e, e->mod->red_nonfinite, "sdk_red_nonfinite", (n + 255) / 256, args, eb));
  CU(eb, MemcpyDtoH(e->host, e->fold, nc * sizeof(uint64_t)));
  for (size_t i = 0; i < nc; i++)
    count[i] = (int64_t)((const uint64_t *)e->host)[i];
  return SDK_OK;
}

static sdk_err cuda_histogram(sdk_ensemble *e, int var, int64_t bins, const double *lo,
                              const double *hi, uint64_t *counts, uint64_t *under, uint64_t *over,
                              sdk_errbuf *eb) {
  CU(eb, CtxSetCurrent(e->ctx->cx));
  int v = var;
  CUdeviceptr base;
  SDK_CHECK(reduce_base(e, &v, &base, eb));
  int64_t ng = e->span.g1 - e->span.g0; /* the grid points held */
  size_t ncount = (size_t)(ng * bins);
  /* one allocation: lo, hi, counts, under, over */
  size_t bytes = (size_t)ng * 2 * sizeof(double) + (ncount + 2 * (size_t)ng) * sizeof(uint64_t);
  CUdeviceptr d = 0;
  CUresult r = sdk_cu.MemAlloc(&d, bytes);
  if (r != CUDA_SUCCESS) return sdk_cu_fail(eb, "cuMemAlloc", r);
  CUdeviceptr dlo = d, dhi = d + (size_t)ng * sizeof(double),
              dcnt = d + (size_t)ng * 2 * sizeof(double), dun = dcnt + ncount * sizeof(uint64_t),
              dov = dun + (size_t)ng * sizeof(uint64_t);
  sdk_err err = SDK_OK;
#define CUH(call, what)                                                                            \
  do {                                                                                             \
    CUresult r_ = (sdk_cu.call);                                                                   \
    if (r_ != CUDA_SUCCESS) {                                                                      \
      err = sdk_cu_fail(eb, what, r_);                                                             \
      goto out;                                                                                    \
    }                                                                                              \
  } while (0)
  CUH(MemcpyHtoD(dlo, lo, (size_t)ng * sizeof(double)), "cuMemcpyHtoD");
  CUH(MemcpyHtoD(dhi, hi, (size_t)ng * sizeof(double)), "cuMemcpyHtoD");
  CUH(MemsetD8(dcnt, 0, (ncount + 2 * (size_t)ng) * sizeof(uint64_t)), "cuMemsetD8");
  {
    long long npad = e->npad, ppg = e->lay.ppg, n = sdk_layout_npaths(&e->lay);
    long long path0 = e->lay.path0, g0 = e->span.g0, nb = bins;
    void *args[] = {&base, &npad, &v, &ppg, &n, &path0, &g0, &nb, &dlo, &dhi, &dcnt, &dun, &dov};
    int64_t total = n;
    err = launch(e, e->mod->red_hist, "sdk_red_hist", (total + 255) / 256, args, eb);
    if (err != SDK_OK) goto out;
  }
  CUH(MemcpyDtoH(counts, dcnt, ncount * sizeof(uint64_t)), "cuMemcpyDtoH");
  CUH(MemcpyDtoH(under, dun, (size_t)ng * sizeof(uint64_t)), "cuMemcpyDtoH");
  CUH(MemcpyDtoH(over, dov, (size_t)ng * sizeof(uint64_t)), "cuMemcpyDtoH");
#undef CUH
out:
  sdk_cu.MemFree(d);
  return err;
}

/* The paths whose row `row` is 0 per grid point held (backend.h): the
 * module's sdk_red_zero (a module without it: sdk_red_hist over the row with
 * one bin [-0.5, 0.5] per grid point, which for a row of whole numbers, a
 * boundary's status, counts its zeros; one same-address atomic per path);
 * only the counts cross to the host. */
static sdk_err cuda_count_zero(sdk_ensemble *e, int row, int64_t *count, sdk_errbuf *eb) {
  int v = row;
  if (row > e->lay.nvars && e->mod->comp && row - 1 < e->mod->comp)
    v = row - 1; /* a carried row (rows' numbering) */
  else if (row < 0 || row >= e->lay.nvars)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "count_zero: no state row %d", row);
  CU(eb, CtxSetCurrent(e->ctx->cx));
  int64_t ng = e->span.g1 - e->span.g0;
  size_t nc = 3 * (size_t)ng * sizeof(uint64_t); /* counts, under, over */
  CUdeviceptr dlo, dhi, dcnt;
  CUresult r;
  if (!e->zc) {
    size_t bytes = 2 * (size_t)ng * sizeof(double) + nc;
    double *h = sdk_cuda_stage(e, 2 * (size_t)ng * sizeof(double));
    if (!h) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    for (int64_t j = 0; j < ng; j++)
      h[j] = -0.5, h[ng + j] = 0.5;
    if ((r = sdk_cu.MemAlloc(&e->zc, bytes)) != CUDA_SUCCESS) {
      e->zc = 0;
      return sdk_cu_fail(eb, "cuMemAlloc", r);
    }
    CU(eb, MemcpyHtoD(e->zc, h, 2 * (size_t)ng * sizeof(double)));
  }
  dlo = e->zc, dhi = dlo + (size_t)ng * sizeof(double), dcnt = dhi + (size_t)ng * sizeof(double);
  CUdeviceptr dun = dcnt + (size_t)ng * sizeof(uint64_t), dov = dun + (size_t)ng * sizeof(uint64_t);
  CU(eb, MemsetD8(dcnt, 0, nc));
  long long npad = e->npad, ppg = e->lay.ppg, n = sdk_layout_npaths(&e->lay);
  long long path0 = e->lay.path0, g0 = e->span.g0, nb = 1;
  if (e->mod->red_zero) { /* (one atomic per block: sdk_red_zero) */
    void *za[] = {&e->st, &npad, &v, &ppg, &n, &path0, &g0, &dcnt};
    SDK_CHECK(launch_async(e, e->mod->red_zero, "sdk_red_zero", (n + 255) / 256, za, eb));
  } else {
    void *args[] = {&e->st, &npad, &v, &ppg, &n, &path0, &g0, &nb, &dlo, &dhi, &dcnt, &dun, &dov};
    SDK_CHECK(launch_async(e, e->mod->red_hist, "sdk_red_hist", (n + 255) / 256, args, eb));
  }
  uint64_t *h = sdk_cuda_stage(e, (size_t)ng * sizeof(uint64_t));
  if (!h) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  CU(eb, MemcpyDtoH(h, dcnt, (size_t)ng * sizeof(uint64_t)));
  for (int64_t j = 0; j < ng; j++)
    count[j] = (int64_t)h[j];
  return SDK_OK;
}

static sdk_err cuda_read_state(sdk_ensemble *e, int64_t first, int64_t n, double *out,
                               sdk_errbuf *eb) {
  if (n <= 0) return SDK_OK;
  CU(eb, CtxSetCurrent(e->ctx->cx));
  void *tmp = sdk_cuda_stage(e, (size_t)n * e->esize);
  if (!tmp) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int v = 0; v < e->lay.nvars; v++) {
    CUdeviceptr src =
        e->st + (CUdeviceptr)(((size_t)v * (size_t)e->npad + (size_t)first) * e->esize);
    CU(eb, MemcpyDtoH(tmp, src, (size_t)n * e->esize));
    for (int64_t i = 0; i < n; i++)
      out[v * n + i] = e->esize == sizeof(float) ? (double)((float *)tmp)[i] : ((double *)tmp)[i];
  }
  return SDK_OK;
}

static int cuda_carried_rows(const sdk_ensemble *e) {
  return e->mod->comp ? e->mod->comp - e->lay.nvars : 0;
}

/* A row of the delays' rings kept as quads (abi.h, sdk_quad_at): its
 * values of paths [first, first + n) are every 4th real of the 4 n from
 * the path first's quad, which go between host and device whole (a write
 * reads them first: the other 3 rows' values go back unchanged). */
static sdk_err quad_row(sdk_ensemble *e, int srow, int64_t first, int64_t n, double *buf, int write,
                        sdk_errbuf *eb) {
  const int *q = e->mod->quads;
  const long long lane = (srow - q[0]) & 3; /* (the row's place in its quads) */
  size_t bytes = 4 * (size_t)n * e->esize;
  CUdeviceptr at = e->st + (CUdeviceptr)(sdk_quad_at(q[0], srow, e->npad, first) - lane) * e->esize;
  void *tmp = malloc(bytes);
  if (!tmp) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  CUresult r = sdk_cu.MemcpyDtoH(tmp, at, bytes);
  for (int64_t i = 0; r == CUDA_SUCCESS && i < n; i++) {
    size_t j = 4 * (size_t)i + (size_t)lane;
    if (!write)
      buf[i] = e->esize == sizeof(float) ? (double)((float *)tmp)[j] : ((double *)tmp)[j];
    else if (e->esize == sizeof(float))
      ((float *)tmp)[j] = (float)buf[i];
    else
      ((double *)tmp)[j] = buf[i];
  }
  if (r == CUDA_SUCCESS && write) r = sdk_cu.MemcpyHtoD(at, tmp, bytes);
  free(tmp);
  if (r != CUDA_SUCCESS) return sdk_cu_fail(eb, write ? "cuMemcpyHtoD" : "cuMemcpyDtoH", r);
  return SDK_OK;
}

static sdk_err cuda_rows(sdk_ensemble *e, int row, int64_t first, int64_t n, double *buf, int write,
                         sdk_errbuf *eb) {
  if (n <= 0) return SDK_OK;
  CU(eb, CtxSetCurrent(e->ctx->cx));
  if (row > e->lay.nvars && row - 1 >= e->mod->quads[0] && row - 1 < e->mod->quads[1])
    return quad_row(e, row - 1, first, n, buf, write, eb);
  size_t rowbytes = (size_t)e->npad * e->esize;
  CUdeviceptr base;
  if (row < 0 && !write && e->obs && -1 - row < e->nobs) { /* user observable (backend.h) */
    base = e->obs + (CUdeviceptr)((size_t)(-1 - row) * rowbytes);
  } else if (row >= 0 && row < e->lay.nvars) {
    base = e->st + (CUdeviceptr)((size_t)row * rowbytes);
  } else if (row != e->lay.nvars) { /* carried rows: compensated update, boundaries */
    if (row < 0 || !e->mod->comp || row - 1 >= e->mod->comp)
      return SDK_FAIL(eb, SDK_ERR_INTERNAL, "no state row %d", row);
    base = e->st + (CUdeviceptr)((size_t)(row - 1) * rowbytes);
  } else {
    if (!e->mark) {
      if (!write) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "no drift mark to read");
      CUresult r = sdk_cu.MemAlloc(&e->mark, rowbytes);
      if (r != CUDA_SUCCESS) {
        e->mark = 0;
        return sdk_cu_fail(eb, "cuMemAlloc", r);
      }
      CU(eb, MemsetD8(e->mark, 0, rowbytes));
    }
    base = e->mark;
  }
  void *tmp = sdk_cuda_stage(e, (size_t)n * e->esize);
  if (!tmp) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  CUdeviceptr at = base + (CUdeviceptr)((size_t)first * e->esize);
  CUresult r = CUDA_SUCCESS;
  /* (one loop per precision: a test per value kept the conversion of a
   * million-path row scalar) */
  float *tf = tmp;
  if (write) {
    if (e->esize == sizeof(float))
      for (int64_t i = 0; i < n; i++)
        tf[i] = (float)buf[i];
    else
      memcpy(tmp, buf, (size_t)n * sizeof *buf);
    r = sdk_cu.MemcpyHtoD(at, tmp, (size_t)n * e->esize);
  } else {
    r = sdk_cu.MemcpyDtoH(tmp, at, (size_t)n * e->esize);
    if (r == CUDA_SUCCESS && e->esize == sizeof(float))
      for (int64_t i = 0; i < n; i++)
        buf[i] = (double)tf[i];
    else if (r == CUDA_SUCCESS)
      memcpy(buf, tmp, (size_t)n * sizeof *buf);
  }
  if (r != CUDA_SUCCESS) return sdk_cu_fail(eb, write ? "cuMemcpyHtoD" : "cuMemcpyDtoH", r);
  return SDK_OK;
}

static sdk_err cuda_histogram_mod(sdk_ensemble *e, int var, int64_t bins, double period,
                                  uint64_t *counts, sdk_errbuf *eb) {
  if (!e->mod->red_hist_mod)
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "cuda: this kernel module has no periodic histogram");
  CU(eb, CtxSetCurrent(e->ctx->cx));
  int64_t ng = e->span.g1 - e->span.g0, total = sdk_layout_npaths(&e->lay);
  size_t ncount = (size_t)(ng * bins);
  CUresult r;
  if (e->sys.hist_bytes < ncount * sizeof(uint64_t)) { /* one buffer for all the samples */
    if (e->sys.hist) sdk_cu.MemFree(e->sys.hist);
    e->sys.hist = 0;
    e->sys.hist_bytes = 0;
    if ((r = sdk_cu.MemAlloc(&e->sys.hist, ncount * sizeof(uint64_t))) != CUDA_SUCCESS) {
      e->sys.hist = 0;
      return sdk_cu_fail(eb, "cuMemAlloc", r);
    }
    e->sys.hist_bytes = ncount * sizeof(uint64_t);
  }
  CUdeviceptr d = e->sys.hist;
  sdk_err err = SDK_OK;
  if ((r = sdk_cu.MemsetD8(d, 0, ncount * sizeof(uint64_t))) != CUDA_SUCCESS) {
    err = sdk_cu_fail(eb, "cuMemsetD8", r);
    goto out;
  }
  {
    /* about eight blocks per multiprocessor, each counting into shared memory */
    int64_t nb = (int64_t)e->ctx->sms * 8, per = (total + nb - 1) / nb;
    if (per < 4096) per = 4096;
    nb = (total + per - 1) / per;
    int shbins = bins <= 8192 ? (int)bins : 0;
    long long npad = e->npad, ppg = e->lay.ppg, n = total, path0 = e->lay.path0;
    long long g0 = e->span.g0, b = bins, pr = per;
    int v = var;
    double P = period;
    void *args[] = {&e->st, &npad, &v, &ppg, &n, &path0, &g0, &b, &P, &pr, &shbins, &d};
    r = sdk_cu.LaunchKernel(e->mod->red_hist_mod, (unsigned)nb, 1, 1, 256, 1, 1,
                            (unsigned)shbins * sizeof(unsigned), NULL, args, NULL);
    if (r == CUDA_SUCCESS) r = sdk_cu.CtxSynchronize();
    if (r != CUDA_SUCCESS) {
      err = sdk_cu_fail(eb, "sdk_red_hist_mod", r);
      goto out;
    }
  }
  if ((r = sdk_cu.MemcpyDtoH(counts, d, ncount * sizeof(uint64_t))) != CUDA_SUCCESS)
    err = sdk_cu_fail(eb, "cuMemcpyDtoH", r);
out:
  return err;
}

static sdk_err cuda_count(const sdk_backend_opts *o, int *n, sdk_errbuf *eb) {
  sdk_cuda_sysinfo info;
  *n = 0;
  SDK_CHECK(sdk_cuda_query(o, &info, eb));
  *n = info.ndevices;
  return SDK_OK;
}

/* List the devices (for `sdekit devices`); returns the number found. */
sdk_err sdk_cuda_query(const sdk_backend_opts *o, sdk_cuda_sysinfo *info, sdk_errbuf *eb) {
  memset(info, 0, sizeof *info);
  if (!sdk_cu_load()) return SDK_FAIL(eb, SDK_ERR_BACKEND, "%s", sdk_cu.why);
  CUresult r = sdk_cu.Init(0);
  int n = 0;
  if (r == CUDA_SUCCESS) r = sdk_cu.DeviceGetCount(&n);
  if (r == CUDA_ERROR_NO_DEVICE || (r == CUDA_SUCCESS && n == 0))
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "no CUDA device");
  if (r != CUDA_SUCCESS) return sdk_cu_fail(eb, "cuInit", r);
  sdk_cu.DriverGetVersion(&info->driver);
  if (sdk_nv_load(o ? &o->env : NULL)) {
    info->nvrtc_major = sdk_nv.major;
    info->nvrtc_minor = sdk_nv.minor;
    snprintf(info->nvrtc_path, sizeof info->nvrtc_path, "%s", sdk_nv.path);
  }
  info->ndevices = n;
  return SDK_OK;
}

sdk_err sdk_cuda_query_device(int i, sdk_cuda_devinfo *d, sdk_errbuf *eb) {
  memset(d, 0, sizeof *d);
  if (!sdk_cu_load()) return SDK_FAIL(eb, SDK_ERR_BACKEND, "%s", sdk_cu.why);
  CUresult r = sdk_cu.Init(0);
  if (r != CUDA_SUCCESS) return sdk_cu_fail(eb, "cuInit", r);
  CUdevice dev;
  CU(eb, DeviceGet(&dev, i));
  CU(eb, DeviceGetName(d->name, (int)sizeof d->name, dev));
  CU(eb, DeviceGetAttribute(&d->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
  CU(eb, DeviceGetAttribute(&d->major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  CU(eb, DeviceGetAttribute(&d->minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
  size_t mem = 0;
  CU(eb, DeviceTotalMem(&mem, dev));
  d->memory = (double)mem;
  return SDK_OK;
}

const sdk_backend sdk_backend_cuda = {
    .name = "cuda",
    .description = "NVIDIA GPUs: kernels compiled by NVRTC, run through the driver API",
    .target = SDK_TARGET_CUDA,
    .device = 1,
    .auto_rank = 2,
    .bench_paths = (int64_t)1 << 22,
    .fixed_chunks = 1,
    .count_devices = cuda_count,
    .open = cuda_open,
    .close = cuda_close,
    .describe = cuda_describe,
    .compile = sdk_cuda_compile,
    .build_hash = sdk_cuda_build_hash,
    .module_free = sdk_cuda_module_free,
    .alloc = sdk_cuda_alloc,
    .free = sdk_cuda_free,
    .init = cuda_init,
    .advance = cuda_advance,
    .mark = cuda_mark,
    .moments = cuda_moments,
    .observe = cuda_observe,
    .nonfinite = cuda_nonfinite,
    .eval_observe = cuda_eval_observe,
    .displacement = cuda_displacement,
    .minmax = cuda_minmax,
    .histogram = cuda_histogram,
    .read_state = cuda_read_state,
    .last_advance_ms = cuda_last_advance_ms,
    .advance_sys = sdk_cuda_advance_sys,
    .sys_unit = sdk_cuda_sys_unit,
    .histogram_mod = cuda_histogram_mod,
    .rows = cuda_rows,
    .count_zero = cuda_count_zero,
    .carried_rows = cuda_carried_rows,
};
