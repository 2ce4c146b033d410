/* The CPU backend's moments reduction (backend/cpu.c): Welford sums per
 * chunk of SDK_RED_CHUNK paths, many chunks side by side in vector registers
 * and the chunks shared out among threads.
 *
 * Chunk k = g * nch + c (global id, backend.h) holds paths c * SDK_RED_CHUNK
 * .. of grid point g; in the rows its values are at g * ppg + i - path0.  A
 * chunk's sums are n = number of finite values, and for each finite value v
 * in path order
 *     n += 1;  d = v - mean;  mean += d / n;  m2 += d * (v - mean)
 * (Welford 1962), NaN/Inf left out and counted.  Every chunk is this same
 * sequence of operations whichever lane, vector, thread or grouping computes
 * it, so the results are bitwise the same for any thread count and equal to
 * the one-chunk-at-a-time scalar loop.
 */
#ifndef SDK_CPU_REDUCE_H
#define SDK_CPU_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"

/* Runs body(arg, t, nt) on threads t = 0 .. nt - 1 (nt at most nthreads,
 * which is >= 2) and returns when all have: the module's OpenMP team. */
typedef void (*sdk_cpu_parallel_fn)(void (*body)(void *arg, int t, int nt), void *arg,
                                    int nthreads);

typedef struct sdk_cpu_reduce {
  int single;         /* the rows hold floats, else doubles */
  const void *rows;   /* row r (r < nrows) begins row_stride values after row r - 1 */
  int64_t row_stride; /* values between rows */
  int nrows;
  const void *sub; /* NULL, or the values are (row[i] - sub[i]) * scale */
  double scale;
  int64_t ppg, path0, nch; /* the layout (backend.h) */
  int64_t c0, c1;          /* the chunks reduced: [c0, c1) */
  /* out[(k - c0) * nrows + r], nonfinite[same] (NULL: not counted) */
  sdk_moments *out;
  int64_t *nonfinite;
  int threads;                  /* at most this many (0: one per core) */
  sdk_cpu_parallel_fn parallel; /* NULL: the calling thread alone */
} sdk_cpu_reduce;

void sdk_cpu_reduce_moments(const sdk_cpu_reduce *r);

/* The text appended to every CPU kernel module: sdk_parallel, an
 * sdk_cpu_parallel_fn on the module's own OpenMP runtime (the one its
 * advance already runs on, so no second thread pool competes for the
 * cores).  It does no floating-point work, so the module's compiler flags
 * (fast math) cannot change the reductions' bits. */
extern const char sdk_cpu_parallel_source[];

#endif
