/* The CUDA backend's rows of a module that keeps the delays' rings as quads
 * (codegen/delay_cuda.c; abi.h, sdk_quad_at; backend/cuda.c, quad_row),
 * with no GPU: the driver's copies are memcpy on host memory standing in
 * for the device's (sdk_cu's entries replaced), the state laid out as the
 * kernel lays it out.  Checkpoints, shards and ranks move carried rows only
 * through `rows`, so these are the canonical rows they see:
 *   a. reading each ring row of a shard's paths [first, first + n) gives
 *      row r's values of those paths, in single and double precision, for
 *      rings starting at a row that is not a multiple of 4;
 *   b. writing one ring row changes that row's values of those paths and
 *      nothing else of the state (the other 3 rows of its quads, the
 *      paths outside, the rows outside the rings);
 *   c. the rows before the rings (compensation) keep the plain layout. */
#include <stdlib.h>
#include <string.h>

#include "backend/cuda_internal.h"
#include "testutil.h"

static CUresult fake_set(CUcontext c) {
  (void)c;
  return CUDA_SUCCESS;
}
static CUresult fake_dtoh(void *dst, CUdeviceptr src, size_t n) {
  memcpy(dst, (const void *)(uintptr_t)src, n);
  return CUDA_SUCCESS;
}
static CUresult fake_htod(CUdeviceptr dst, const void *src, size_t n) {
  memcpy((void *)(uintptr_t)dst, src, n);
  return CUDA_SUCCESS;
}

enum { NV = 1, Q0 = 3, Q1 = 3 + 12, ROWS = 16, NPAD = 512 };

/* the value of state row r of path p as the test writes it (exact in float) */
static double value_of(int r, int64_t p) {
  return (double)(r * 1000 + p) + 0.25;
}

/* where the kernel keeps row r of path p */
static long long at_of(int r, int64_t p) {
  return r >= Q0 && r < Q1 ? sdk_quad_at(Q0, r, NPAD, p) : (long long)r * NPAD + p;
}

static double get(const void *st, size_t es, long long i) {
  return es == sizeof(float) ? (double)((const float *)st)[i] : ((const double *)st)[i];
}

static void put(void *st, size_t es, long long i, double v) {
  if (es == sizeof(float))
    ((float *)st)[i] = (float)v;
  else
    ((double *)st)[i] = v;
}

static void one_precision(size_t es) {
  const char *prec = es == sizeof(float) ? "single" : "double";
  void *st = calloc((size_t)ROWS * NPAD, es);
  sdk_module mod = {.comp = ROWS, .quads = {Q0, Q1}};
  sdk_bctx ctx = {0};
  sdk_ensemble e = {.ctx = &ctx, .mod = &mod, .npad = NPAD, .esize = es};
  e.lay.nvars = NV;
  e.st = (CUdeviceptr)(uintptr_t)st;
  TU_CHECK(st != NULL, "out of memory");
  if (!st) return;
  for (int r = 0; r < ROWS; r++)
    for (int64_t p = 0; p < NPAD; p++)
      put(st, es, at_of(r, p), value_of(r, p));
  const int64_t first = 37, n = 301;
  double buf[301];
  sdk_errbuf eb = {0};
  /* a, c: every row the backend has, read */
  int bad = 0;
  for (int r = 0; r < ROWS; r++) {
    int row = r < NV ? r : r + 1; /* (rows: the variables, the mark, then the carried rows) */
    sdk_err err = sdk_backend_cuda.rows(&e, row, first, n, buf, 0, &eb);
    TU_CHECK(err == SDK_OK, "%s: rows %d: %s", prec, row, eb.msg);
    for (int64_t i = 0; err == SDK_OK && i < n; i++)
      bad += buf[i] != value_of(r, first + i);
  }
  TU_CHECK(bad == 0, "%s: %d values of the rows read are not the state's", prec, bad);
  printf("a, c. %s: rows 0 .. %d but the mark read for paths %lld .. %lld (rings as quads in "
         "state rows %d .. %d): %d values differ\n",
         prec, ROWS, (long long)first, (long long)(first + n - 1), Q0, Q1 - 1, bad);
  /* b: one ring row written (state row 9: the second row of its quads) */
  const int wr = 9;
  for (int64_t i = 0; i < n; i++)
    buf[i] = -value_of(wr, first + i);
  sdk_err err = sdk_backend_cuda.rows(&e, wr + 1, first, n, buf, 1, &eb);
  TU_CHECK(err == SDK_OK, "%s: rows write: %s", prec, eb.msg);
  bad = 0;
  for (int r = 0; r < ROWS; r++)
    for (int64_t p = 0; p < NPAD; p++) {
      int in = r == wr && p >= first && p < first + n;
      bad += get(st, es, at_of(r, p)) != (in ? -1 : 1) * value_of(r, p);
    }
  TU_CHECK(bad == 0, "%s: %d values of the state wrong after writing a row", prec, bad);
  printf("b. %s: state row %d written for those paths: %d values of the state differ from "
         "what it should hold\n",
         prec, wr, bad);
  free(st);
}

int main(void) {
  sdk_cu_api saved = sdk_cu;
  sdk_cu.CtxSetCurrent = fake_set;
  sdk_cu.MemcpyDtoH = fake_dtoh;
  sdk_cu.MemcpyHtoD = fake_htod;
  one_precision(sizeof(float));
  one_precision(sizeof(double));
  sdk_cu = saved;
  return tu_finish("test_cuda_rows");
}
