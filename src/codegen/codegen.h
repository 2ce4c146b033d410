/* sdekit: model + scheme (+ observables) -> kernel source.
 *
 * One generator serves both backends.  The per-path step is emitted once as
 * straight-line code over scalar locals (sdk_x<v> state, sdk_z<j> Gaussians,
 * sdk_t0 time, sdk_dt, sdk_sqdt) with the model's parameters declared as
 * typed constants (or per-path values when scanned); only the driver around
 * it (an OpenMP loop over blocks of paths, or a CUDA kernel with one thread
 * per path) differs.  The Philox header is embedded as text, so the source
 * is self-contained for the C compiler and NVRTC alike.
 *
 * Kernel ABI (both backends; state is structure-of-arrays, path fastest):
 *   st[v * npad + p]   state of variable v of local path p (npad padded)
 *   sv[g * nsv + j]    per-grid-point values: scanned parameters, then dt if
 *                      dt differs between grid points
 *   global path index  = path0 + p;  grid point g = (path0 + p) / ppg
 *                        (clamped to ngrid - 1 for padding paths)
 *   Gaussian k of a path's step n, noise j:  k = n * nnoise + j  (see rng/philox.h)
 */
#ifndef SDK_CODEGEN_H
#define SDK_CODEGEN_H

#include <stdint.h>

#include "codegen/scheme.h"
#include "core/error.h"
#include "model/model.h"

typedef enum { SDK_TARGET_CPU, SDK_TARGET_CUDA } sdk_target;

/* Paths per block of the CPU driver: a fixed block makes results
 * independent of the thread count (no path is ever handled by a remainder
 * loop), and is the unit of the deterministic reductions. */
#define SDK_CPU_BLOCK 64
/* Steps whose Gaussians are drawn together before integrating them. */
#define SDK_CPU_SUBSTEPS 16
/* Bump when the kernel ABI changes (checked when loading a module). */
#define SDK_KERNEL_ABI 2

typedef struct sdk_codegen_opts {
  const sdk_model *model;
  const sdk_scheme *scheme;
  sdk_target target;
  int single;             /* 1: float, 0: double */
  const double *pvalues;  /* value of every parameter (after --set) */
  const int *scan_column; /* per parameter: -1 = constant, else column in sv */
  int nsv;                /* columns of sv */
  int dt_column;          /* -1: dt is the constant below */
  double dt;
  int64_t spp; /* > 0: t = (n mod spp) * dt (periodic driving) */
  int64_t ngrid;
  /* systems of interacting particles (see sys.c): the module then holds
   * sdk_init and the system driver instead of sdk_advance */
  int sysmode;
  int order_var;       /* >= 0: reduce exp(i factor x_var) every step (order parameter) */
  double order_factor; /* 2 pi / period of order_var */
  int64_t particles;   /* particles per system (tunes the CUDA system kernel) */
} sdk_codegen_opts;

/* Generate the full kernel source; *out is malloc'd. */
sdk_err sdk_codegen(const sdk_codegen_opts *o, char **out, sdk_errbuf *eb);

#endif
