/* CUDA backend: an ensemble's memory (cuda.c has the backend's table).
 * sdk_cuda_alloc places the state (structure of arrays: the rows of every
 * path, padded to whole blocks), the values per grid point, the buffers of
 * the chunk results and of their fold units on the device, and a host buffer
 * for the results' copies; sdk_cuda_free releases all of it and what later
 * calls added (drift mark, user observables, the alive list, the systems'
 * buffers). */
#include <stdlib.h>

#include "backend/cuda_internal.h"

/* ---- memory kept between runs (a session's shelf, backend.h) ----
 *
 * The large blocks of an ensemble (its state, the reductions' buffers, the
 * page-locked host buffers) go to the session's shelf when the ensemble is
 * freed, and the next ensemble of the same sizes on the device takes them
 * instead of allocating: cuMemAlloc and cuMemFree of hundreds of MB, and
 * cuMemAllocHost's page-locking, cost milliseconds a run (issue 32).  A
 * block taken holds what its last user left: every one is written before it
 * is read (the init kernel writes every row of every padded path, the
 * reductions their results), as after a cuMemAlloc, which gives no zeros
 * either.  A block on the shelf holds a retain of the device's primary
 * context, released with the block. */
typedef struct kept_mem {
  CUdevice dev;
  CUcontext cx;
  CUdeviceptr d; /* device memory, or */
  void *h;       /* page-locked host memory */
} kept_mem;

static void kept_release(void *p) {
  kept_mem *k = p;
  if (sdk_cu.CtxSetCurrent(k->cx) == CUDA_SUCCESS) {
    if (k->d) sdk_cu.MemFree(k->d);
    if (k->h) sdk_cu.MemFreeHost(k->h);
  }
  sdk_cu.DevicePrimaryCtxRelease(k->dev);
  free(k);
}

/* "cuda-mem DEVICE/" and the kind and size of a block after it */
static void mem_key(const sdk_bctx *c, const char *kind, size_t bytes, char *key, size_t n) {
  snprintf(key, n, "cuda-mem %d/%s %zu", c->o.device, kind, bytes);
}

static const sdk_module_shelf *shelf_of(const sdk_bctx *c) {
  return c->has_device && c->o.shelf && c->o.shelf->take_mem ? c->o.shelf : NULL;
}

/* A block of `bytes` kept on the shelf under kind, or 0 / NULL */
static kept_mem *take_kept(const sdk_bctx *c, const char *kind, size_t bytes) {
  const sdk_module_shelf *sh = shelf_of(c);
  char key[96];
  if (!sh) return NULL;
  mem_key(c, kind, bytes, key, sizeof key);
  return sh->take_mem(sh->user, key);
}

static void *take_done(kept_mem *k, CUdeviceptr *d) {
  void *h = k->h;
  if (d) *d = k->d;
  sdk_cu.DevicePrimaryCtxRelease(k->dev); /* (the run holds the context) */
  free(k);
  return h;
}

/* device memory of `bytes` for kind: kept, else allocated (where that
 * fails, the shelf's blocks of this device released and once more) */
CUresult sdk_cuda_dev_alloc(sdk_bctx *c, const char *kind, CUdeviceptr *d, size_t bytes) {
  kept_mem *k = take_kept(c, kind, bytes);
  if (k) {
    take_done(k, d);
    return CUDA_SUCCESS;
  }
  CUresult r = sdk_cu.MemAlloc(d, bytes);
  const sdk_module_shelf *sh = shelf_of(c);
  if (r != CUDA_SUCCESS && sh) {
    char prefix[32];
    snprintf(prefix, sizeof prefix, "cuda-mem %d/", c->o.device);
    sh->drop_mem(sh->user, prefix);
    (void)sdk_cu.CtxSetCurrent(c->cx);
    r = sdk_cu.MemAlloc(d, bytes);
  }
  if (r != CUDA_SUCCESS) *d = 0;
  return r;
}

/* A block (device d, or page-locked host h) to the shelf; 0: not kept (the
 * caller frees it) */
static int put_kept(const sdk_bctx *c, const char *kind, CUdeviceptr d, void *h, size_t bytes) {
  const sdk_module_shelf *sh = shelf_of(c);
  if (!sh || bytes == 0) return 0;
  kept_mem *k = calloc(1, sizeof *k);
  if (!k) return 0;
  CUcontext held;
  if (sdk_cu.DevicePrimaryCtxRetain(&held, c->dev) != CUDA_SUCCESS) {
    free(k);
    return 0;
  }
  *k = (kept_mem){.dev = c->dev, .cx = c->cx, .d = d, .h = h};
  char key[96];
  mem_key(c, kind, bytes, key, sizeof key);
  int ok = sh->put_mem(sh->user, key, k, kept_release);
  /* (an older block it released, maybe of another device, made that
   * device's context current on this thread) */
  (void)sdk_cu.CtxSetCurrent(c->cx);
  if (ok) return 1;
  sdk_cu.DevicePrimaryCtxRelease(c->dev);
  free(k);
  return 0;
}

void sdk_cuda_dev_free(const sdk_bctx *c, const char *kind, CUdeviceptr d, size_t bytes) {
  if (d && !put_kept(c, kind, d, NULL, bytes)) sdk_cu.MemFree(d);
}

/* page-locked host memory of `bytes` for kind: kept, else allocated (NULL:
 * none to be had) */
static void *host_pinned_alloc(const sdk_bctx *c, const char *kind, size_t bytes) {
  kept_mem *k = take_kept(c, kind, bytes);
  if (k) return take_done(k, NULL);
  void *h = NULL;
  if (sdk_cu.MemAllocHost && sdk_cu.MemAllocHost(&h, bytes) == CUDA_SUCCESS) return h;
  return NULL;
}

static void host_pinned_free(const sdk_bctx *c, const char *kind, void *h, size_t bytes) {
  if (h && !put_kept(c, kind, 0, h, bytes)) sdk_cu.MemFreeHost(h);
}

/* The host buffer of reduction results: page-locked when the driver can
 * (a copy then goes straight to it: each sample's copies wait less). */
static void host_free(sdk_ensemble *e) {
  if (e->host && e->host_pinned)
    host_pinned_free(e->ctx, "host", e->host, e->host_bytes);
  else
    free(e->host);
  e->host = NULL;
  e->host_pinned = 0;
  e->host_bytes = 0;
}

int sdk_cuda_host_alloc(sdk_ensemble *e, size_t bytes) {
  host_free(e);
  if ((e->host = host_pinned_alloc(e->ctx, "host", bytes))) {
    e->host_pinned = 1;
    e->host_bytes = bytes;
    return 1;
  }
  e->host = malloc(bytes);
  return e->host != NULL;
}

static void stage_free(sdk_ensemble *e) {
  if (e->stage && e->stage_pinned)
    host_pinned_free(e->ctx, "stage", e->stage, e->stage_bytes);
  else
    free(e->stage);
  e->stage = NULL;
  e->stage_bytes = 0;
  e->stage_pinned = 0;
}

void *sdk_cuda_stage(sdk_ensemble *e, size_t bytes) {
  if (bytes <= e->stage_bytes) return e->stage;
  stage_free(e);
  /* (at least a block of the row cache's 65536 paths in double precision:
   * one size for the copies a run makes, one block kept between runs) */
  if (bytes < ((size_t)1 << 19)) bytes = (size_t)1 << 19;
  if ((e->stage = host_pinned_alloc(e->ctx, "stage", bytes)))
    e->stage_pinned = 1;
  else
    e->stage = malloc(bytes);
  if (e->stage) e->stage_bytes = bytes;
  return e->stage;
}

void sdk_cuda_free(sdk_ensemble **e) {
  if (!e || !*e) return;
  sdk_ensemble *x = *e;
  if (x->ctx && sdk_cu.CtxSetCurrent(x->ctx->cx) == CUDA_SUCCESS)
    sdk_cu.CtxSynchronize(); /* (an advance may still run) */
  if (x->st) sdk_cuda_dev_free(x->ctx, "state", x->st, x->st_bytes);
  if (x->sv) sdk_cuda_dev_free(x->ctx, "sv", x->sv, x->sv_bytes);
  if (x->mark) sdk_cu.MemFree(x->mark);
  if (x->obs) sdk_cu.MemFree(x->obs);
  if (x->live) sdk_cuda_dev_free(x->ctx, "live", x->live, (size_t)x->npad * sizeof(unsigned));
  if (x->nlive) sdk_cu.MemFree(x->nlive);
  if (x->red) sdk_cuda_dev_free(x->ctx, "red", x->red, x->red_bytes);
  if (x->fold) sdk_cuda_dev_free(x->ctx, "fold", x->fold, x->red_bytes);
  if (x->units) sdk_cuda_dev_free(x->ctx, "units", x->units, x->units_bytes);
  if (x->zc) sdk_cu.MemFree(x->zc);
  if (x->ev0) sdk_cu.EventDestroy(x->ev0);
  if (x->ev1) sdk_cu.EventDestroy(x->ev1);
  if (x->stream) sdk_cu.StreamDestroy(x->stream);
  if (x->sys.st2) sdk_cuda_dev_free(x->ctx, "st2", x->sys.st2, x->sys.st2_bytes);
  if (x->sys.psum) sdk_cuda_dev_free(x->ctx, "psum", x->sys.psum, x->sys.psum_bytes);
  if (x->sys.work) sdk_cuda_dev_free(x->ctx, "work", x->sys.work, x->sys.work_bytes);
  CUdeviceptr sysbufs[] = {x->sys.sums, x->sys.part, x->sys.cnt,  x->sys.zsys,
                           x->sys.gcnt, x->sys.obs,  x->sys.hist, x->sys.bar};
  for (size_t i = 0; i < sizeof sysbufs / sizeof sysbufs[0]; i++)
    if (sysbufs[i]) sdk_cu.MemFree(sysbufs[i]);
  host_free(x);
  stage_free(x);
  free(x->unit_g);
  free(x->sys.xbuf);
  free(x->sys.xbytes);
  free(x);
  *e = NULL;
}

/* The fold units of the span (backend.h) as (first chunk, chunks) pairs on
 * the device, for sdk_red_units. */
static sdk_err upload_units(sdk_ensemble *e, sdk_errbuf *eb) {
  e->nunits = sdk_span_units(&e->span, NULL);
  size_t n = (size_t)(e->nunits > 0 ? e->nunits : 1);
  sdk_unit *u = malloc(n * sizeof *u);
  long long *kn = malloc(2 * n * sizeof *kn);
  if (!u || !kn) {
    free(u), free(kn);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  sdk_span_units(&e->span, u);
  free(e->unit_g);
  e->unit_g = malloc(n * sizeof *e->unit_g);
  if (!e->unit_g) {
    free(u), free(kn);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  e->unitmax = 1;
  for (int64_t j = 0; j < e->nunits; j++) {
    kn[2 * j] = u[j].k, kn[2 * j + 1] = u[j].n;
    e->unit_g[j] = u[j].g;
    if (u[j].n > e->unitmax) e->unitmax = u[j].n;
  }
  free(u);
  e->units_bytes = 2 * n * sizeof *kn;
  CUresult r = sdk_cuda_dev_alloc(e->ctx, "units", &e->units, e->units_bytes);
  if (r == CUDA_SUCCESS) r = sdk_cu.MemcpyHtoD(e->units, kn, 2 * n * sizeof *kn);
  free(kn);
  if (r != CUDA_SUCCESS) return sdk_cu_fail(eb, "cuMemAlloc/cuMemcpyHtoD", r);
  return SDK_OK;
}

sdk_err sdk_cuda_alloc(sdk_bctx *c, sdk_module *mod, const sdk_layout *lay, sdk_ensemble **out,
                       sdk_errbuf *eb) {
  *out = NULL;
  if (!c->has_device)
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "cuda: compiled for %s only; no device to run on",
                    c->arch);
  /* (one ensemble holds the systems, or a shard of them spans MPI ranks) */
  if (lay->particles > 0 && !lay->xchunks &&
      (lay->path0 != 0 || sdk_layout_npaths(lay) != lay->ngrid * lay->ppg))
    return SDK_FAIL(eb, SDK_ERR_USAGE, "cuda: systems of particles are held in one ensemble");
  CU(eb, CtxSetCurrent(c->cx));
  sdk_ensemble *e = calloc(1, sizeof *e);
  if (!e) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  e->ctx = c;
  e->mod = mod;
  e->lay = *lay;
  e->lay.sv = NULL;
  e->esize = lay->single ? sizeof(float) : sizeof(double);
  e->npad = sdk_padded_paths(sdk_layout_npaths(lay));
  e->nch = sdk_chunks_per_grid(lay->ppg);
  e->span = sdk_layout_span(lay);
  sdk_err err = SDK_OK;
  if (e->npad / 256 > 0x7fffffff || lay->ngrid * e->nch > 0x7fffffff) {
    err = SDK_FAIL(eb, SDK_ERR_USAGE, "cuda: too many paths for one device (%lld)",
                   (long long)(lay->ngrid * lay->ppg));
    goto fail;
  }
  if (mod->comp && mod->comp <= lay->nvars) {
    err = SDK_FAIL(eb, SDK_ERR_INTERNAL, "cuda: module has %d state rows for %d variables",
                   mod->comp, lay->nvars);
    goto fail;
  }
  size_t bytes = (size_t)(mod->comp ? mod->comp : lay->nvars) * (size_t)e->npad * e->esize;
  CUresult r = sdk_cuda_dev_alloc(c, "state", &e->st, bytes);
  e->st_bytes = bytes;
  if (r != CUDA_SUCCESS) {
    err = SDK_FAIL(eb, SDK_ERR_NOMEM,
                   "cuda: cannot allocate %.3g GiB of device memory for %lld paths x %d variables "
                   "(%s has %.3g GiB)",
                   (double)bytes / 1073741824.0, (long long)(lay->ngrid * lay->ppg), lay->nvars,
                   c->name, (double)c->mem / 1073741824.0);
    e->st = 0;
    goto fail;
  }
  if (lay->zero && (r = sdk_cu.MemsetD8(e->st, 0, bytes)) != CUDA_SUCCESS) {
    err = sdk_cu_fail(eb, "cuMemsetD8", r);
    goto fail;
  }
  /* chunk results: moments (3 doubles + 1 int per variable) or min/max */
  size_t nchunks = (size_t)(e->span.c1 - e->span.c0);
  e->red_bytes = nchunks * (size_t)lay->nvars * (3 * sizeof(double) + sizeof(int));
  if (e->red_bytes < nchunks * 2 * sizeof(double)) e->red_bytes = nchunks * 2 * sizeof(double);
  if ((r = sdk_cuda_dev_alloc(c, "red", &e->red, e->red_bytes)) == CUDA_SUCCESS)
    r = sdk_cuda_dev_alloc(c, "fold", &e->fold, e->red_bytes);
  if (r != CUDA_SUCCESS) {
    err = sdk_cu_fail(eb, "cuMemAlloc", r);
    goto fail;
  }
  sdk_cuda_host_alloc(e, e->red_bytes);
  if ((err = upload_units(e, eb)) != SDK_OK) goto fail;
  int64_t nsv = lay->nsv > 0 ? lay->nsv : 1;
  size_t svn = (size_t)(nsv * lay->ngrid);
  void *hsv = calloc(svn, e->esize);
  if (!e->host || !hsv) {
    free(hsv);
    err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    goto fail;
  }
  for (int64_t i = 0; i < lay->ngrid * lay->nsv; i++) {
    if (lay->single)
      ((float *)hsv)[i] = (float)lay->sv[i];
    else
      ((double *)hsv)[i] = lay->sv[i];
  }
  e->sv_bytes = svn * e->esize;
  if ((r = sdk_cuda_dev_alloc(c, "sv", &e->sv, e->sv_bytes)) != CUDA_SUCCESS) {
    e->sv = 0;
    free(hsv);
    err = sdk_cu_fail(eb, "cuMemAlloc", r);
    goto fail;
  }
  r = sdk_cu.MemcpyHtoD(e->sv, hsv, svn * e->esize);
  free(hsv);
  if (r != CUDA_SUCCESS) {
    err = sdk_cu_fail(eb, "cuMemcpyHtoD", r);
    goto fail;
  }
  *out = e;
  return SDK_OK;
fail:
  sdk_cuda_free(&e);
  return err;
}
