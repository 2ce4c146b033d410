/* CUDA backend, systems of interacting particles (codegen/sys_cuda.c
 * generates their kernels): the scheduler.  The state of step n and the sums
 * (mean fields) of step n are held on the device; each step runs either as
 * one launch of sdk_sys_step or, for mean-field models, inside one
 * cooperative launch of the persistent kernel sdk_sys_run, with the
 * particles in device memory or as many chunks as fit kept on chip.  Every
 * kernel follows one reduction contract: the same bits whichever runs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda_internal.h"

/* Chunks per group: a function of N alone (so sums never depend on the
 * device or the kernel), about 1024 groups per system for big systems;
 * tuning.sys_cpb overrides it (SDEKIT_SYS_CPB). */
static int64_t sys_cpb(const sdk_bctx *c, const sdk_module *m, int64_t N) {
  const int *info = m->sys_info;
  int64_t nchunk = (N + info[4] - 1) / info[4];
  int64_t cpb = info[1] > 0 ? 1 : nchunk / 1024;
  int forced = c->o.tuning.sys_cpb >= 1;
  if (forced && info[1] == 0) cpb = c->o.tuning.sys_cpb;
  if (cpb < 1) cpb = 1;
  if (cpb > 16 && !forced) cpb = 16;
  return cpb;
}

int64_t sdk_cuda_sys_unit(sdk_bctx *c, sdk_module *m, int64_t particles) {
  if (!m->sys_step || !m->sys_sums || m->sys_info[1] > 0 || particles < 1) return 0;
  return sys_cpb(c, m, particles) * m->sys_info[4];
}

/* systems spanning MPI ranks: this shard's groups are [b0, b1) */
static int spanning(const sdk_ensemble *e) {
  return e->lay.xchunks && sdk_comm_size(e->lay.comm) > 1;
}

/* The work list of sdk_sys_half (codegen/sys_cuda_pairs.c) over nfull full
 * tiles: for each tile I the tiles I + d (mod nfull), d = 0 .. (nfull - 1) / 2,
 * and d = nfull / 2 for I < nfull / 2 when nfull is even: each unordered pair
 * of tiles once.  Each item (I, d0, d1) is one warp's stream of tiles, about
 * 8192 warps in all, 2 to 8 tiles each (the pipeline of 31 steps to fill is
 * paid per item).  The cut never changes a result: every tile pair's sums
 * are written whole by one warp. */
static int *half_work(int64_t nfull, int64_t nsys, int *nwork) {
  int64_t per = nfull / 2 + 1, L = (nsys * nfull * per + 8191) / 8192;
  if (L < 2) L = 2;
  if (L > 8) L = 8;
  int64_t n = 0;
  for (int pass = 0; pass < 2; pass++) {
    int *w = pass ? malloc((size_t)(3 * n) * sizeof(int)) : NULL;
    if (pass && !w) return NULL;
    n = 0;
    for (int64_t I = 0; I < nfull; I++) {
      int64_t cnt = (nfull - 1) / 2 + 1 + (nfull % 2 == 0 && I < nfull / 2 && nfull > 1);
      for (int64_t d = 0; d < cnt; d += L, n++)
        if (w) {
          w[3 * n] = (int)I;
          w[3 * n + 1] = (int)d;
          w[3 * n + 2] = (int)(d + L < cnt ? d + L : cnt);
        }
    }
    if (pass) {
      *nwork = (int)n;
      return w;
    }
  }
  return NULL;
}

/* Pair models: evaluate each unordered pair once (sdk_sys_half) when the
 * module has the kernel and SDEKIT_SYS_PAIRS does not say full; by default
 * from 4 full tiles on and while the tiles' sums take at most an eighth of
 * the device's memory (SDEKIT_SYS_PAIRS=half: whatever fits).  Both give the
 * same bits. */
static sdk_err sys_half_alloc(sdk_ensemble *e, sdk_errbuf *eb) {
  const sdk_module *m = e->mod;
  int want = e->ctx->o.tuning.sys_pairs, npair = m->sys_info[1];
  int64_t N = e->lay.particles, nfull = N / SDK_CUDA_SYS_TPB,
          ntile = (N + SDK_CUDA_SYS_TPB - 1) / SDK_CUDA_SYS_TPB;
  if (npair < 1 || want == SDK_PAIRS_FULL) return SDK_OK;
  if (!m->sys_half)
    return want == SDK_PAIRS_HALF
               ? SDK_FAIL(eb, SDK_ERR_USAGE,
                          "SDEKIT_SYS_PAIRS=half: this module has no sdk_sys_half kernel")
               : SDK_OK;
  double bytes = (double)e->sys.nsys * npair * (double)ntile * (double)N * (double)e->esize;
  if (want != SDK_PAIRS_HALF && (nfull < 4 || bytes > (double)e->ctx->mem / 8)) return SDK_OK;
  if (bytes > 9e18 || nfull > 0x7fffffff)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "SDEKIT_SYS_PAIRS=half: %.3g bytes of pair sums", bytes);
  int *w = NULL;
  if (nfull > 0 && !(w = half_work(nfull, e->sys.nsys, &e->sys.nwork)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  e->sys.psum_bytes = (size_t)bytes;
  CUresult r = sdk_cuda_dev_alloc(e->ctx, "psum", &e->sys.psum, e->sys.psum_bytes);
  if (r == CUDA_SUCCESS && w) {
    e->sys.work_bytes = (size_t)(3 * e->sys.nwork) * sizeof(int);
    r = sdk_cuda_dev_alloc(e->ctx, "work", &e->sys.work, e->sys.work_bytes);
    if (r == CUDA_SUCCESS)
      r = sdk_cu.MemcpyHtoD(e->sys.work, w, (size_t)(3 * e->sys.nwork) * sizeof(int));
  }
  free(w);
  if (r != CUDA_SUCCESS) {
    if (e->sys.psum) sdk_cu.MemFree(e->sys.psum);
    if (e->sys.work) sdk_cu.MemFree(e->sys.work);
    e->sys.psum = e->sys.work = 0;
    e->sys.nwork = 0;
    if (want == SDK_PAIRS_HALF) return sdk_cu_fail(eb, "cuMemAlloc (SDEKIT_SYS_PAIRS=half)", r);
    return SDK_OK; /* the full loop needs no buffer */
  }
  e->sys.half = 1;
  return SDK_OK;
}

/* The pairs' tile sums of the state st for sdk_sys_step (sys.half). */
static sdk_err sys_half_launch(sdk_ensemble *e, CUdeviceptr st, int64_t n, sdk_errbuf *eb) {
  long long npad = e->npad, N = e->lay.particles, spg = e->lay.ppg / N, nsys = e->sys.nsys, nn = n;
  int64_t nfull = N / SDK_CUDA_SYS_TPB, ntile = (N + SDK_CUDA_SYS_TPB - 1) / SDK_CUDA_SYS_TPB;
  CUresult r = CUDA_SUCCESS;
  if (e->sys.nwork > 0) {
    int nw = e->sys.nwork;
    void *args[] = {&st, &npad, &e->sv, &N, &spg, &nsys, &nn, &e->sys.work, &nw, &e->sys.psum};
    int64_t blocks = (nsys * nw + SDK_CUDA_HALF_WPB - 1) / SDK_CUDA_HALF_WPB;
    r = sdk_cu.LaunchKernel(e->mod->sys_half, (unsigned)blocks, 1, 1, 32 * SDK_CUDA_HALF_WPB, 1, 1,
                            0, NULL, args, NULL);
    if (r != CUDA_SUCCESS) return sdk_cu_fail(eb, "cuLaunchKernel(sdk_sys_half)", r);
  }
  if (ntile > nfull) {
    void *args[] = {&st, &npad, &e->sv, &N, &spg, &nsys, &nn, &e->sys.psum};
    r = sdk_cu.LaunchKernel(e->mod->sys_edge, (unsigned)(nsys * (ntile + nfull)), 1, 1,
                            SDK_CUDA_SYS_TPB, 1, 1, 0, NULL, args, NULL);
    if (r != CUDA_SUCCESS) return sdk_cu_fail(eb, "cuLaunchKernel(sdk_sys_edge)", r);
  }
  return SDK_OK;
}

static sdk_err sys_alloc(sdk_ensemble *e, sdk_errbuf *eb) {
  const int *info = e->mod->sys_info;
  int nred = info[0] > 0 ? info[0] : 1, chunk = info[4];
  int64_t N = e->lay.particles;
  e->sys.nsys = e->lay.ngrid * e->lay.ppg / N;
  e->sys.nchunk = (N + chunk - 1) / chunk;
  int64_t cpb = sys_cpb(e->ctx, e->mod, N);
  e->sys.cpb = cpb;
  e->sys.nblk = (e->sys.nchunk + cpb - 1) / cpb;
  e->sys.sums_step = -1;
  e->sys.kernel = -1;
  if (e->sys.nsys * e->sys.nblk > 0x7fffffff || e->sys.nchunk > 0x7fffffff ||
      (int64_t)chunk * cpb > 0x7fffffff)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "cuda: too many blocks for %lld systems of %lld particles",
                    (long long)e->sys.nsys, (long long)N);
  struct {
    CUdeviceptr *p;
    size_t bytes;
  } bufs[] = {
      {&e->sys.sums, (size_t)(2 * e->sys.nsys * nred) * sizeof(double)},
      /* two halves: the persistent kernels alternate between them by step */
      {&e->sys.part, (size_t)(2 * e->sys.nsys * e->sys.nblk * nred) * sizeof(double)},
      {&e->sys.cnt, (size_t)e->sys.nsys * sizeof(unsigned)},
      {&e->sys.zsys, (size_t)(e->sys.nsys * 4) * sizeof(double)},
      {&e->sys.gcnt, (size_t)e->lay.ngrid * sizeof(unsigned)},
      {&e->sys.bar, sizeof(unsigned)}, /* the persistent kernel's step barrier */
      {&e->sys.st2, info[1] > 0 ? (size_t)e->lay.nvars * (size_t)e->npad * e->esize : 0},
  };
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
    if (!bufs[i].bytes) continue;
    if (bufs[i].p == &e->sys.st2) e->sys.st2_bytes = bufs[i].bytes;
    /* (the second state, as large as the first: kept between runs) */
    CUresult r = bufs[i].p == &e->sys.st2
                     ? sdk_cuda_dev_alloc(e->ctx, "st2", bufs[i].p, bufs[i].bytes)
                     : sdk_cu.MemAlloc(bufs[i].p, bufs[i].bytes);
    if (r != CUDA_SUCCESS) {
      *bufs[i].p = 0;
      return sdk_cu_fail(eb, "cuMemAlloc", r);
    }
  }
  if (spanning(e) &&
      (!(e->sys.xbuf = malloc((size_t)(e->sys.nsys * e->sys.nblk * nred) * sizeof(double))) ||
       !(e->sys.xbytes =
             sdk_layout_rank_bytes(&e->lay, nred * (int64_t)sizeof(double), &e->sys.b0))))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  CU(eb, MemsetD8(e->sys.cnt, 0, (size_t)e->sys.nsys * sizeof(unsigned)));
  CU(eb, MemsetD8(e->sys.gcnt, 0, (size_t)e->lay.ngrid * sizeof(unsigned)));
  SDK_CHECK(sys_half_alloc(e, eb));
  e->sys.on = 1;
  return SDK_OK;
}

/* Systems spanning MPI ranks, after the step kernel wrote this shard's
 * group sums of the new state: every rank's into part[] (the same array one
 * device fills), then sdk_sys_sums forms the systems' sums and order rows
 * exactly as the step kernel's last block would. */
static sdk_err sys_exchange(sdk_ensemble *e, CUdeviceptr sout, CUdeviceptr obs_row,
                            sdk_errbuf *eb) {
  int nred = e->mod->sys_info[0] > 0 ? e->mod->sys_info[0] : 1;
  size_t off = (size_t)(e->sys.b0 * nred) * sizeof(double),
         all = (size_t)(e->sys.nsys * e->sys.nblk * nred) * sizeof(double);
  CUresult r = sdk_cu.MemcpyDtoH((char *)e->sys.xbuf + off, e->sys.part + off,
                                 (size_t)e->sys.xbytes[sdk_comm_rank(e->lay.comm)]);
  if (r != CUDA_SUCCESS) return sdk_cu_fail(eb, "cuMemcpyDtoH (group sums)", r);
  SDK_CHECK(sdk_comm_allgatherv(e->lay.comm, e->sys.xbuf, e->sys.xbytes, eb));
  CU(eb, MemcpyHtoD(e->sys.part, e->sys.xbuf, all));
  long long N = e->lay.particles, spg = e->lay.ppg / N;
  int nblk = (int)e->sys.nblk;
  CUdeviceptr nocnt = 0;
  void *args[] = {&e->sys.part, &nblk,        &N,           &spg,    &sout,
                  &nocnt,       &e->sys.zsys, &e->sys.gcnt, &obs_row};
  r = sdk_cu.LaunchKernel(e->mod->sys_sums, (unsigned)e->sys.nsys, 1, 1,
                          (unsigned)e->mod->sys_info[5], 1, 1, 0, NULL, args, NULL);
  if (r != CUDA_SUCCESS) return sdk_cu_fail(eb, "cuLaunchKernel(sdk_sys_sums)", r);
  return SDK_OK;
}

/* One launch of sdk_sys_step: mode 1 steps n -> n + 1, mode 0 only sums step n;
 * spanning MPI ranks, over this shard's groups, then the exchange. */
static sdk_err sys_launch(sdk_ensemble *e, int64_t n, int mode, uint64_t seed, CUdeviceptr obs_row,
                          sdk_errbuf *eb) {
  int nred = e->mod->sys_info[0] > 0 ? e->mod->sys_info[0] : 1, span = spanning(e);
  size_t half = (size_t)(e->sys.nsys * nred) * sizeof(double);
  CUdeviceptr s_in = e->sys.sums + (CUdeviceptr)((size_t)(n & 1) * half);
  CUdeviceptr sout = e->sys.sums + (CUdeviceptr)((size_t)((n + mode) & 1) * half);
  /* pair models step into the other buffer (then the two swap) */
  int swap = e->mod->sys_info[1] > 0 && mode;
  CUdeviceptr out = swap ? e->sys.st2 : e->st;
  long long npad = e->npad, ppg = e->lay.ppg, N = e->lay.particles, spg = e->lay.ppg / N, nn = n;
  int nchunk = (int)e->sys.nchunk, nblk = (int)e->sys.nblk, cpb = (int)e->sys.cpb, md = mode;
  unsigned long long sd = seed;
  long long b0 = e->sys.b0;
  unsigned grid = (unsigned)(e->sys.nsys * e->sys.nblk), tpb = (unsigned)e->mod->sys_info[5];
  /* spanning: the kernel indexes particles globally; the shard's state
   * begins at particle path0 (a group's start) */
  CUdeviceptr st = e->st, cnt = e->sys.cnt, orow = obs_row;
  if (span) {
    grid = (unsigned)e->lay.xchunks[sdk_comm_rank(e->lay.comm)];
    st = out = e->st - (CUdeviceptr)((size_t)e->lay.path0 * e->esize);
    cnt = 0, orow = 0;
  }
  /* pair models by sdk_sys_half: the tiles' pair sums first, then the step
   * from them (sdk_sys_step_half takes them as one more argument) */
  int by_half = e->sys.half && mode;
  if (by_half) SDK_CHECK(sys_half_launch(e, st, n, eb));
  void *args[] = {&st,   &out,         &npad,        &e->sv, &ppg, &N,          &spg,  &nchunk,
                  &nblk, &cpb,         &nn,          &sd,    &md,  &s_in,       &sout, &e->sys.part,
                  &cnt,  &e->sys.zsys, &e->sys.gcnt, &orow,  &b0,  &e->sys.psum};
  CUfunction step = by_half ? e->mod->sys_step_half : e->mod->sys_step;
  CUresult r;
  /* (programmatic dependent launch, letting the next step's Gaussians overlap
   * this step's tail, measured no faster here and slower for pair systems on
   * the H100: docs/BENCHMARKS.md) */
  r = grid ? sdk_cu.LaunchKernel(step, grid, 1, 1, tpb, 1, 1, 0, NULL, args, NULL) : CUDA_SUCCESS;
  if (r != CUDA_SUCCESS)
    return sdk_cu_fail(
        eb, by_half ? "cuLaunchKernel(sdk_sys_step_half)" : "cuLaunchKernel(sdk_sys_step)", r);
  if (span) SDK_CHECK(sys_exchange(e, sout, obs_row, eb));
  if (swap) { /* pair models: the new state is in the other buffer */
    e->sys.st2 = e->st;
    e->st = out;
  }
  e->sys.sums_step = n + mode;
  return SDK_OK;
}

/* The kernels of a system module (all give the same bits, see
 * codegen/sys_cuda.c); the persistent one only for mean-field models. */
enum { SYS_LAUNCH, SYS_PERSIST, SYS_RESIDENT };
static const char *const sys_kernel_names[] = {"launch", "persist", "resident"};

/* The best shape with (res) or without resident chunks; 0 when none runs
 * here (res: when not even one chunk per block fits). */
static int sys_persist_shape_(const sdk_ensemble *e, int res, sys_shape *sh) {
  const sdk_module *m = e->mod;
  CUfunction f = m->sys_run;
  if (!f) return 0;
  int64_t G = e->sys.nsys * e->sys.nblk, cpb = e->sys.cpb;
  size_t cbytes = (size_t)m->sys_info[4] * (size_t)e->lay.nvars * e->esize;
  int nred = m->sys_info[0] > 0 ? m->sys_info[0] : 1, tpb = m->sys_info[5];
  int sms = e->ctx->sms, found = 0, only = 0;
  double best = 0;
  const sdk_tuning *tu = &e->ctx->o.tuning;
  if (tu->sys_bps >= 1 && tu->sys_bps <= 8) only = tu->sys_bps; /* blocks per multiprocessor */
  /* at most this many resident chunks per block (tests: partial residency) */
  int64_t rmax = tu->sys_rmax >= 1 ? tu->sys_rmax : INT64_MAX;
  /* blocks per multiprocessor: the best balance of groups over the
   * multiprocessors (each runs bps blocks of up to ceil(G/B) groups), then the
   * most chunks on chip, then the most warps */
  for (int bps = 8; bps >= 1; bps--) {
    if (only && bps != only) continue;
    int64_t B = (int64_t)sms * bps;
    if (B > G) B = G;
    int64_t slots = (G + B - 1) / B;
    int need = (int)((B + sms - 1) / sms); /* blocks that must fit on one multiprocessor */
    int64_t msys = (slots + e->sys.nblk - 1) / e->sys.nblk + 1;
    if (msys > e->sys.nsys) msys = e->sys.nsys;
    size_t base = (((size_t)msys * (size_t)nred * sizeof(double)) + 15) & ~(size_t)15;
    int occ = 0;
    int64_t R = 0;
    /* the chunks' slot table (shorts) after the resident x */
    base += ((size_t)(slots * cpb) * sizeof(short) + 15) & ~(size_t)15;
    if (slots * cpb > 32767) continue;
    if (res) { /* the most chunks per block that still let bps blocks run */
      int64_t lo = 0, hi = slots * cpb;
      if (base + (size_t)hi * cbytes > (size_t)m->sys_run_smem)
        hi = ((int64_t)m->sys_run_smem - (int64_t)base) / (int64_t)cbytes;
      while (lo < hi) {
        int64_t mid = (lo + hi + 1) / 2;
        if (sdk_cu.OccupancyMaxActiveBlocksPerMultiprocessor(
                &occ, f, tpb, base + (size_t)mid * cbytes) == CUDA_SUCCESS &&
            occ >= need)
          lo = mid;
        else
          hi = mid - 1;
      }
      R = lo < rmax ? lo : rmax;
      if (R < 1) continue;
    }
    size_t smem = base + (size_t)R * cbytes;
    if (smem > (size_t)m->sys_run_smem ||
        sdk_cu.OccupancyMaxActiveBlocksPerMultiprocessor(&occ, f, tpb, smem) != CUDA_SUCCESS ||
        occ < need)
      continue;
    int64_t per_sm = slots * need;
    double eff = (double)G / (double)(B < sms ? B : sms) / (double)per_sm;
    int64_t resident = B * R < G * cpb ? B * R : G * cpb;
    if (!found || eff > best + 1e-9 || (eff > best - 1e-9 && resident > sh->resident)) {
      found = 1;
      best = eff;
      sh->blocks = (unsigned)B;
      sh->R = (int)R;
      sh->msys = (int)msys;
      sh->smem = smem;
      sh->resident = resident;
    }
  }
  return found;
}

/* (a function of the module, the device, the sizes and the tuning alone:
 * found again from the module's memo, the same shape) */
static int sys_persist_shape(sdk_ensemble *e, int res, sys_shape *sh) {
  sdk_module *m = e->mod;
  const sdk_tuning *tu = &e->ctx->o.tuning;
  const int64_t in[8] = {res,          e->sys.nsys,       e->sys.nblk, e->sys.cpb,
                         e->lay.nvars, (int64_t)e->esize, tu->sys_bps, tu->sys_rmax};
  for (int i = 0; i < m->nshapes && !e->sys.shape_known[res]; i++)
    if (!memcmp(m->shapes[i].in, in, sizeof in)) {
      e->sys.shape_known[res] = m->shapes[i].found;
      e->sys.shape[res] = m->shapes[i].sh;
    }
  if (!e->sys.shape_known[res]) {
    e->sys.shape_known[res] = sys_persist_shape_(e, res, &e->sys.shape[res]) ? 1 : -1;
    sys_shape_memo *k = &m->shapes[m->nshapes < 4 ? m->nshapes++ : 3];
    memcpy(k->in, in, sizeof in);
    k->found = e->sys.shape_known[res];
    k->sh = e->sys.shape[res];
  }
  *sh = e->sys.shape[res];
  return e->sys.shape_known[res] > 0;
}

/* nsteps steps in cooperative launches of the persistent kernel (the sums of
 * step0 are held); order rows (one system per grid point) to obs.  *done:
 * the steps taken; a launch the device refuses as too large (other work on
 * it, e.g. under MPS) returns SDK_OK with *done < nsteps. */
static sdk_err sys_persist(sdk_ensemble *e, const sys_shape *sh, int64_t step0, int64_t nsteps,
                           uint64_t seed, int64_t obs_every, CUdeviceptr obs, int64_t *donep,
                           sdk_errbuf *eb) {
  long long npad = e->npad, N = e->lay.particles, nsys = e->sys.nsys, spg = e->lay.ppg / N;
  int nblk = (int)e->sys.nblk, cpb = (int)e->sys.cpb, R = sh->R, msys = sh->msys;
  unsigned long long sd = seed;
  long long oe = obs_every;
  int64_t done = 0;
  while (done < nsteps) {
    /* (the barrier counts (steps so far + 1) * blocks in 32 bits) */
    int64_t chunk = nsteps - done, cap = 0x7fffffff / (int64_t)sh->blocks - 1;
    if (chunk > cap) chunk = cap;
    long long s0 = step0 + done;
    int ns = (int)chunk;
    /* order rows of this launch start after those of the previous ones */
    CUdeviceptr orow =
        obs ? obs + (CUdeviceptr)((size_t)((step0 + done) / obs_every - step0 / obs_every) *
                                  (size_t)nsys * 4 * sizeof(double))
            : 0;
    void *args[] = {&e->st,       &npad,       &e->sv, &N,  &nsys, &spg,
                    &nblk,        &cpb,        &s0,    &ns, &sd,   &e->sys.sums,
                    &e->sys.part, &e->sys.bar, &orow,  &oe, &R,    &msys};
    CU(eb, MemsetD8(e->sys.bar, 0, sizeof(unsigned)));
    CUresult r = sdk_cu.LaunchCooperativeKernel(e->mod->sys_run, sh->blocks, 1, 1,
                                                (unsigned)e->mod->sys_info[5], 1, 1,
                                                (unsigned)sh->smem, NULL, args);
    if (r == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE) break;
    if (r != CUDA_SUCCESS) return sdk_cu_fail(eb, "cuLaunchCooperativeKernel(sdk_sys_run)", r);
    done += chunk;
    e->sys.sums_step = step0 + done;
  }
  *donep = done;
  return SDK_OK;
}

/* Which kernel runs nsteps steps: tuning.sys_kernel (launch; persist: the
 * persistent kernel with x in device memory; resident: with as many chunks on
 * chip as fit) where it can run (-1 when it cannot: a forced choice is never
 * silently replaced), else the persistent kernel with as many chunks on chip
 * as fit (when a block spans at most 4 systems), else one launch per step.
 * The persistent kernel needs cooperative launches and mean-field coupling,
 * and writes order rows only for one system per grid point. */
static int sys_choose(sdk_ensemble *e, int order, const char *want, sys_shape *sh) {
  int can = e->mod->sys_run && (!order || e->lay.ppg == e->lay.particles);
  if (want && !strcmp(want, "launch")) return SYS_LAUNCH;
  if (want && !strcmp(want, "persist"))
    return can && sys_persist_shape(e, 0, sh) ? SYS_PERSIST : -1;
  if (want && !strcmp(want, "resident"))
    return can && sys_persist_shape(e, 1, sh) ? SYS_RESIDENT : -1;
  /* (a block forms the sums of each of its systems in turn after the barrier:
   * for many small systems per block one launch per step, whose last block of
   * each system does that in parallel, is faster) */
  if (can && sys_persist_shape(e, 1, sh) && sh->msys <= 4) return SYS_RESIDENT;
  if (can && sys_persist_shape(e, 0, sh) && sh->msys <= 4) return SYS_PERSIST;
  return SYS_LAUNCH;
}

/* The device buffer of the order rows of this call (grown when needed):
 * *rows of them. */
static sdk_err sys_obs_buffer(sdk_ensemble *e, int64_t step0, int64_t nsteps, int64_t obs_every,
                              int64_t *rows, sdk_errbuf *eb) {
  *rows = nsteps == 0 ? 1 : (step0 + nsteps) / obs_every - step0 / obs_every;
  size_t need = (size_t)((*rows > 0 ? *rows : 1) * e->lay.ngrid * 4) * sizeof(double);
  if (need > e->sys.obs_bytes) {
    if (e->sys.obs) sdk_cu.MemFree(e->sys.obs);
    e->sys.obs = 0;
    e->sys.obs_bytes = 0;
    CUresult r = sdk_cu.MemAlloc(&e->sys.obs, need);
    if (r != CUDA_SUCCESS) {
      e->sys.obs = 0;
      return sdk_cu_fail(eb, "cuMemAlloc", r);
    }
    e->sys.obs_bytes = need;
  }
  return SDK_OK;
}

/* The kernel of this call (sys_choose), with the tuning's choice checked;
 * the choice is logged when it changes. */
static sdk_err sys_pick(sdk_ensemble *e, int order, int64_t nsteps, const char *want, int *kindp,
                        sys_shape *sh, sdk_errbuf *eb) {
  if (want && strcmp(want, "launch") && strcmp(want, "persist") && strcmp(want, "resident"))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "SDEKIT_SYS_KERNEL='%s': expected launch, persist, resident or auto", want);
  if (spanning(e) && want && strcmp(want, "launch"))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "SDEKIT_SYS_KERNEL=%s: systems spanning MPI ranks run one launch per step",
                    want);
  /* (spanning MPI ranks: one launch per step, each followed by the exchange) */
  int kind = nsteps > 0 && !spanning(e) ? sys_choose(e, order, want, sh) : SYS_LAUNCH;
  if (kind < 0)
    return SDK_FAIL(
        eb, SDK_ERR_USAGE,
        "SDEKIT_SYS_KERNEL=%s cannot run these systems here (it needs mean-field "
        "coupling, cooperative launches, one system per grid point with --observe "
        "order%s)",
        want, !strcmp(want, "resident") ? ", and the particles must fit in shared memory" : "");
  const sdk_logger *lg = e->ctx->o.logger;
  if (kind != e->sys.kernel)
    sdk_log(lg, SDK_LOG_DEBUG, "sdekit: systems: %s kernel (%lld groups of %lld particles%s)\n",
            sys_kernel_names[kind], (long long)(e->sys.nsys * e->sys.nblk),
            (long long)(e->mod->sys_info[4] * e->sys.cpb),
            kind == SYS_LAUNCH ? ", one launch per step" : ", cooperative launch");
  if (kind != SYS_LAUNCH && kind != e->sys.kernel)
    sdk_log(lg, SDK_LOG_DEBUG,
            "sdekit: systems: %u blocks, %d chunks per block on chip (%lld of %lld), %zu bytes "
            "of shared memory\n",
            sh->blocks, sh->R, (long long)sh->resident,
            (long long)(e->sys.nsys * e->sys.nblk * e->sys.cpb), sh->smem);
  e->sys.kernel = kind;
  *kindp = kind;
  return SDK_OK;
}

/* Steps step0 .. step0 + nsteps with the kernel picked: the persistent one
 * as far as the device takes its launches, then one launch per step. */
static sdk_err sys_steps(sdk_ensemble *e, int kind, const sys_shape *sh, const char *want,
                         int64_t step0, int64_t nsteps, uint64_t seed, int64_t obs_every, int order,
                         sdk_errbuf *eb) {
  int64_t done = 0;
  if (kind != SYS_LAUNCH) {
    SDK_CHECK(
        sys_persist(e, sh, step0, nsteps, seed, obs_every, order ? e->sys.obs : 0, &done, eb));
    if (done < nsteps) { /* refused: one launch per step from here on, for this ensemble */
      if (want)
        return SDK_FAIL(eb, SDK_ERR_BACKEND,
                        "cuda: the device refused the cooperative launch of %u blocks (other "
                        "work on it?), and SDEKIT_SYS_KERNEL=%s asks for it",
                        sh->blocks, want);
      e->sys.shape_known[0] = e->sys.shape_known[1] = -1;
      sdk_log(e->ctx->o.logger, SDK_LOG_DEBUG,
              "sdekit: systems: cooperative launch refused; one launch per step\n");
    }
  }
  if (done < nsteps) {
    int64_t row = (step0 + done) / obs_every - step0 / obs_every;
    for (int64_t n = step0 + done; n < step0 + nsteps; n++) {
      CUdeviceptr orow = 0;
      if (order && (n + 1) % obs_every == 0)
        orow = e->sys.obs + (CUdeviceptr)((size_t)(row++ * e->lay.ngrid * 4) * sizeof(double));
      SDK_CHECK(sys_launch(e, n, 1, seed, orow, eb));
    }
  }
  return SDK_OK;
}

sdk_err sdk_cuda_advance_sys(sdk_ensemble *e, int64_t step0, int64_t nsteps, uint64_t seed,
                             int64_t obs_every, double *obs, sdk_errbuf *eb) {
  if (!e->mod->sys_step || e->lay.particles < 1 || (e->lay.path0 != 0 && !spanning(e)) ||
      e->lay.ppg % e->lay.particles || (spanning(e) && !e->mod->sys_sums))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL,
                    "advance_sys: not a module or layout of particle systems");
  CU(eb, CtxSetCurrent(e->ctx->cx));
  if (!e->sys.on) SDK_CHECK(sys_alloc(e, eb));
  int order = obs && e->mod->sys_info[2] >= 0;
  int64_t ng = e->lay.ngrid, rows = 0;
  if (obs_every < 1) obs_every = 1;
  if (order) SDK_CHECK(sys_obs_buffer(e, step0, nsteps, obs_every, &rows, eb));
  e->last_ms = -1;
  if (!e->ev0 && (sdk_cu.EventCreate(&e->ev0, 0) != CUDA_SUCCESS ||
                  sdk_cu.EventCreate(&e->ev1, 0) != CUDA_SUCCESS))
    e->ev0 = e->ev1 = NULL;
  int timed = e->ev0 && sdk_cu.EventRecord(e->ev0, NULL) == CUDA_SUCCESS;
  /* the sums of step0 must be held (a state written from the host, a first call) */
  if (e->sys.sums_step != step0 || nsteps == 0)
    SDK_CHECK(sys_launch(e, step0, 0, seed, nsteps == 0 && order ? e->sys.obs : 0, eb));
  /* tuning.sys_kernel: launch, persist, resident, auto (NULL, empty: auto) */
  const char *want = e->ctx->o.tuning.sys_kernel;
  if (want && (!*want || !strcmp(want, "auto"))) want = NULL;
  sys_shape sh = {0};
  int kind = SYS_LAUNCH;
  SDK_CHECK(sys_pick(e, order, nsteps, want, &kind, &sh, eb));
  SDK_CHECK(sys_steps(e, kind, &sh, want, step0, nsteps, seed, obs_every, order, eb));
  timed = timed && sdk_cu.EventRecord(e->ev1, NULL) == CUDA_SUCCESS;
  CUresult r = sdk_cu.CtxSynchronize();
  if (r != CUDA_SUCCESS) return sdk_cu_fail(eb, "cuCtxSynchronize after the system kernels", r);
  float ms;
  if (timed && sdk_cu.EventElapsedTime(&ms, e->ev0, e->ev1) == CUDA_SUCCESS) e->last_ms = ms;
  if (order && rows > 0)
    CU(eb, MemcpyDtoH(obs, e->sys.obs, (size_t)(rows * ng * 4) * sizeof(double)));
  return SDK_OK;
}
