/* The CPU backend's moments reduction (backend/cpu_reduce.h).
 *
 * Speed: one division per value bounds Welford's sums.  A chunk alone is one
 * dependency chain through that division (its latency, ~14 cycles); LANES
 * chunks side by side fill the divider instead (one vector division of VW
 * values per ~4 cycles on current x86 whether VW is 2, 4 or 8, so SSE2's
 * width is enough), and the threads share the chunks. */
#include "backend/cpu_reduce.h"

#include <string.h>
#include <unistd.h>

#define VW 2                 /* doubles per vector */
#define NVEC 8               /* vectors side by side: enough to cover the latency */
#define LANES (VW * NVEC)    /* chunks reduced together */
#define MIN_VALUES (1 << 15) /* fewer values per thread are not worth waking one */

typedef double vd __attribute__((vector_size(VW * sizeof(double))));
typedef long long vm __attribute__((vector_size(VW * sizeof(long long))));

/* the chunks of one group: lane j reads values first[j] .. first[j] + len[j] - 1
 * (a lane without a chunk reads lane 0's first value and keeps nothing) */
typedef struct {
  int64_t first[LANES], len[LANES], minlen, maxlen;
} group;

typedef struct {
  vd n[NVEC], mean[NVEC], m2[NVEC];
} sums;

static inline vd keep(vd x, vm m) {
  return (vd)((vm)x & m);
}

/* One value per lane of vector k; `in` marks the lanes that have one.  The
 * lanes whose value is finite do exactly n += 1; d = v - mean; mean += d / n;
 * m2 += d * (v - mean); the others add +0 to each sum, which leaves it bit
 * for bit (neither mean nor m2 can be -0: x + y is -0 only when both are). */
static inline __attribute__((always_inline)) void update(sums *s, int k, vd v, vm in, vd one) {
  vm ok = (vm)(v - v == 0) & in; /* v - v is 0 exactly when v is finite */
  s->n[k] += keep(one, ok);
  vd d = v - s->mean[k];
  s->mean[k] += keep(d / s->n[k], ok);
  s->m2[k] += keep(d * (v - s->mean[k]), ok);
}

static inline __attribute__((always_inline)) double value(const void *x, int single, int64_t i) {
  return single ? (double)((const float *)x)[i] : ((const double *)x)[i];
}

/* The value of lane j at index i (the caller makes i valid for the lane). */
static inline __attribute__((always_inline)) double
lane_value(const sdk_cpu_reduce *r, const void *x, int single, int has_sub, int64_t i) {
  double v = value(x, single, i);
  if (has_sub) v = (v - value(r->sub, single, i)) * r->scale;
  return v;
}

/* The sums of one group over the values at x (one row), specialised by the
 * constant arguments after inlining. */
static inline __attribute__((always_inline)) void group_sums(const sdk_cpu_reduce *r, const void *x,
                                                             const group *gp, int single,
                                                             int has_sub, sums *s) {
  memset(s, 0, sizeof *s);
  int64_t i = 0;
  vm all = {0};
  all -= 1;
  vd one = {0};
  one += 1.0;
  for (; i < gp->minlen; i++) {
#pragma GCC unroll 8
    for (int k = 0; k < NVEC; k++) {
      vd v;
      for (int l = 0; l < VW; l++)
        v[l] = lane_value(r, x, single, has_sub, gp->first[k * VW + l] + i);
      update(s, k, v, all, one);
    }
  }
  for (; i < gp->maxlen; i++) { /* chunks of different lengths: the rest masked */
    for (int k = 0; k < NVEC; k++) {
      vd v;
      vm in;
      for (int l = 0; l < VW; l++) {
        int j = k * VW + l, has = i < gp->len[j];
        v[l] = lane_value(r, x, single, has_sub, gp->first[j] + (has ? i : 0));
        in[l] = has ? -1 : 0;
      }
      update(s, k, v, in, one);
    }
  }
}

static void sums_double(const sdk_cpu_reduce *r, const void *x, const group *gp, sums *s) {
  group_sums(r, x, gp, 0, 0, s);
}
static void sums_float(const sdk_cpu_reduce *r, const void *x, const group *gp, sums *s) {
  group_sums(r, x, gp, 1, 0, s);
}
static void sums_double_sub(const sdk_cpu_reduce *r, const void *x, const group *gp, sums *s) {
  group_sums(r, x, gp, 0, 1, s);
}
static void sums_float_sub(const sdk_cpu_reduce *r, const void *x, const group *gp, sums *s) {
  group_sums(r, x, gp, 1, 1, s);
}

/* The chunks k0 .. k0 + nl - 1 as a group. */
static void make_group(const sdk_cpu_reduce *r, int64_t k0, int nl, group *gp) {
  gp->minlen = SDK_RED_CHUNK;
  gp->maxlen = 0;
  for (int j = 0; j < LANES; j++) {
    gp->first[j] = gp->first[0];
    gp->len[j] = 0;
    if (j < nl) {
      int64_t k = k0 + j, g = k / r->nch, c = k - g * r->nch, i0 = c * SDK_RED_CHUNK;
      gp->first[j] = g * r->ppg - r->path0 + i0;
      gp->len[j] = (i0 + SDK_RED_CHUNK < r->ppg ? i0 + SDK_RED_CHUNK : r->ppg) - i0;
    }
    if (gp->len[j] < gp->minlen) gp->minlen = gp->len[j];
    if (gp->len[j] > gp->maxlen) gp->maxlen = gp->len[j];
  }
}

/* Groups [g0, g1) of LANES chunks, every row. */
static void reduce_groups(const sdk_cpu_reduce *r, int64_t g0, int64_t g1) {
  size_t es = r->single ? sizeof(float) : sizeof(double);
  void (*fn)(const sdk_cpu_reduce *, const void *, const group *, sums *) =
      r->sub ? (r->single ? sums_float_sub : sums_double_sub)
             : (r->single ? sums_float : sums_double);
  for (int64_t q = g0; q < g1; q++) {
    int64_t k0 = r->c0 + q * LANES;
    int nl = r->c1 - k0 < LANES ? (int)(r->c1 - k0) : LANES;
    group gp;
    make_group(r, k0, nl, &gp);
    for (int v = 0; v < r->nrows; v++) {
      sums s;
      fn(r, (const char *)r->rows + (size_t)v * (size_t)r->row_stride * es, &gp, &s);
      for (int j = 0; j < nl; j++) {
        int64_t at = (k0 + j - r->c0) * r->nrows + v;
        double n = s.n[j / VW][j % VW];
        r->out[at] = (sdk_moments){n, s.mean[j / VW][j % VW], s.m2[j / VW][j % VW]};
        if (r->nonfinite) r->nonfinite[at] = gp.len[j] - (int64_t)n;
      }
    }
  }
}

static int64_t ngroups(const sdk_cpu_reduce *r) {
  return (r->c1 - r->c0 + LANES - 1) / LANES;
}

/* thread t of nt: a contiguous share of the groups */
static void body(void *arg, int t, int nt) {
  const sdk_cpu_reduce *r = arg;
  int64_t ng = ngroups(r);
  reduce_groups(r, ng * t / nt, ng * (t + 1) / nt);
}

void sdk_cpu_reduce_moments(const sdk_cpu_reduce *r) {
  if (r->c1 <= r->c0) return;
  int64_t ng = ngroups(r);
  int64_t values = (r->c1 - r->c0) * SDK_RED_CHUNK * r->nrows;
  long nt = r->threads > 0 ? r->threads : sysconf(_SC_NPROCESSORS_ONLN);
  if (nt > values / MIN_VALUES) nt = values / MIN_VALUES;
  if (nt > ng) nt = ng;
  if (nt >= 2 && r->parallel)
    r->parallel(body, (void *)r, (int)nt);
  else
    reduce_groups(r, 0, ng);
}

const char sdk_cpu_parallel_source[] =
    "\n/* sdekit CPU backend (backend/cpu_reduce.h): the module's OpenMP team for the\n"
    " * backend's reductions */\n"
    "__attribute__((visibility(\"default\"))) void sdk_parallel(void (*body)(void *, int, int),\n"
    "                                                         void *arg, int nthreads) {\n"
    "#pragma omp parallel num_threads(nthreads)\n"
    "  body(arg, omp_get_thread_num(), omp_get_num_threads());\n"
    "}\n";
