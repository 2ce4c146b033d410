/* sdekit: the kernel ABI, the contract between generated modules and the
 * backends that load them.
 *
 * Every number here is compiled into the generated source and read by a
 * backend, so the two sides share this one header (backend/backend.h
 * includes it; nothing in codegen includes the backend).  Changing a value
 * or the meaning of an entry means bumping SDK_KERNEL_ABI, so that modules
 * and checkpoints of the old form are refused when loaded.
 *
 * State and per-grid-point values (both backends; structure of arrays, path
 * fastest, codegen/codegen.h has the details):
 *   st[v * npad + p]   state of variable v of local path p (npad padded)
 *   sv[g * nsv + j]    per-grid-point values: scanned parameters, then dt
 */
#ifndef SDK_CODEGEN_ABI_H
#define SDK_CODEGEN_ABI_H

/* Bump when the kernel ABI changes (checked when loading a module, part of
 * the kernel cache key and of a checkpoint's identity). */
#define SDK_KERNEL_ABI 4

/* The language a module is generated in: C for the system compiler
 * (OpenMP) or CUDA C++ for NVRTC.  A backend's row names the one its
 * compile takes (backend/backend.h: sdk_backend.target). */
typedef enum { SDK_TARGET_CPU, SDK_TARGET_CUDA } sdk_target;

/* Paths per block of the CPU driver: a fixed block makes results
 * independent of the thread count (no path is ever handled by a remainder
 * loop), and is the unit of the deterministic reductions. */
#define SDK_CPU_BLOCK 64
/* Steps whose Gaussians the CPU driver draws together before integrating them. */
#define SDK_CPU_SUBSTEPS 16

/* Reductions are deterministic: the paths of a grid point are cut into
 * chunks of SDK_RED_CHUNK consecutive paths (the block size of the CUDA
 * reduction kernels), each reduced in a fixed order. */
#define SDK_RED_CHUNK 256
/* Chunks per fold unit: the backends fold the chunk results of every run of
 * SDK_RED_FOLD chunks of a grid point they hold whole (in chunk order, by
 * sdk_moments_merge's arithmetic) and return one partial result for it, so
 * that a GPU sends the host 1/64 of the chunk results (backend.h, units). */
#define SDK_RED_FOLD 64
/* Warps per block of the CUDA kernel that reduces a fold unit (sdk_red_units):
 * each takes every SDK_RED_WARPS-th chunk of the unit. */
#define SDK_RED_WARPS 16
/* User observables reduced per launch of the CUDA kernel that evaluates and
 * reduces them (sdk_observe_units): its shared memory holds their chunk
 * results. */
#define SDK_OBS_GROUP 8

/* Threads per block of the CUDA kernels of independent paths (sdk_init,
 * sdk_advance) and of the system kernels (sdk_sys_step, sdk_sys_run). */
#define SDK_CUDA_TPB 256
#define SDK_CUDA_SYS_TPB 256
/* Warps per block of sdk_sys_half (pair models evaluated once per unordered
 * pair: codegen/sys_cuda_pairs.c), each on its own item of the work list. */
#define SDK_CUDA_HALF_WPB 4

/* Largest period (in steps) whose time-only values the CUDA driver tabulates
 * (sdk_ttab, filled by sdk_ttab_fill). */
#define SDK_CUDA_MAX_TTAB 65536

/* The rings of delays that a CUDA module keeps as quads (its
 * sdk_ring_quads = {first, end}: rows [first, end) of the state, every ring
 * in them a multiple of 4 rows long; codegen/delay_cuda.c): the value of
 * row r in [first, end) of local path p sits at st[sdk_quad_at(first, r,
 * npad, p)], 4 consecutive reals per path in every 4 rows.  The backend's
 * rows (and so checkpoints) are the canonical rows st[r * npad + p]. */
static inline long long sdk_quad_at(long long first, long long r, long long npad, long long p) {
  return (first + ((r - first) & ~3LL)) * npad + 4 * p + ((r - first) & 3);
}

/* sdk_sys_info[SDK_SYS_INFO_N] of a CUDA system module: what the backend
 * needs to launch its kernels. */
enum {
  SDK_SYS_INFO_NRED = 0,    /* sums per system and step (0: none) */
  SDK_SYS_INFO_NPAIR = 1,   /* [pair] functions: all-pairs kernel when > 0 */
  SDK_SYS_INFO_OCOS = 2,    /* index of the order parameter's cos sum, -1 without */
  SDK_SYS_INFO_OSIN = 3,    /* index of its sin sum, -1 without */
  SDK_SYS_INFO_CHUNK = 4,   /* particles per chunk */
  SDK_SYS_INFO_TPB = 5,     /* threads per block */
  SDK_SYS_INFO_NMEAN = 6,   /* [meanfield] entries */
  SDK_SYS_INFO_PERSIST = 7, /* the persistent kernel sdk_sys_run exists */
  SDK_SYS_INFO_N = 8
};

#endif
