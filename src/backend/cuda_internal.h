/* sdekit: what the CUDA backend's files share (not an interface of the
 * library: backend/cuda*.c and the paper's baseline programs of src/bench).
 *
 *   cuda_driver.c  libcuda and NVRTC, loaded with dlopen: the symbol tables,
 *                  the error helper
 *   cuda_module.c  NVRTC compilation, the kernel cache, loading a cubin and
 *                  checking the module's symbols, resources read from the ELF
 *   cuda.c         the backend table: open, launches, reductions, rows
 *   cuda_ensemble.c an ensemble's device and host memory: alloc and free
 *   cuda_sys.c     systems of interacting particles: the scheduler of the
 *                  system kernels (one launch per step or persistent)
 */
#ifndef SDK_CUDA_INTERNAL_H
#define SDK_CUDA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "backend/cache.h"

/* ---- the few driver API types and constants used (cuda.h is not needed) ---- */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef unsigned long long CUdeviceptr;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
  CUDA_ERROR_NO_DEVICE = 100,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

/* The driver API's entry points.  The library is loaded once per process
 * (a process has one driver; dlopen and cuInit are process-wide anyway). */
typedef struct sdk_cu_api {
  int tried, ok;
  char why[256];
  void *dl;
  CUresult (*Init)(unsigned);
  CUresult (*DriverGetVersion)(int *);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DeviceGetName)(char *, int, CUdevice);
  CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*DeviceTotalMem)(size_t *, CUdevice);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*DevicePrimaryCtxRelease)(CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*CtxSynchronize)(void);
  CUresult (*ModuleLoadData)(CUmodule *, const void *);
  CUresult (*ModuleUnload)(CUmodule);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*ModuleGetGlobal)(CUdeviceptr *, size_t *, CUmodule, const char *);
  CUresult (*FuncGetAttribute)(int *, int, CUfunction);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemAllocHost)(void **, size_t); /* optional (NULL): page-locked host memory */
  CUresult (*MemFreeHost)(void *);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*MemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, CUstream, void **, void **);
  CUresult (*GetErrorString)(CUresult, const char **);
  CUresult (*GetErrorName)(CUresult, const char **);
  CUresult (*EventCreate)(CUevent *, unsigned);
  CUresult (*EventRecord)(CUevent, CUstream);
  CUresult (*EventSynchronize)(CUevent);
  CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*EventDestroy)(CUevent);
  /* optional (the persistent system kernels need them) */
  CUresult (*FuncSetAttribute)(CUfunction, int, int);
  CUresult (*LaunchCooperativeKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                      unsigned, unsigned, CUstream, void **);
  CUresult (*OccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int, size_t);
  /* optional: the advance of each ensemble on a stream of its own */
  CUresult (*StreamCreate)(CUstream *, unsigned);
  CUresult (*StreamDestroy)(CUstream);
} sdk_cu_api;

/* ---- NVRTC ---- */
typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;

typedef struct sdk_nvrtc_api {
  int tried, ok;
  char why[512];
  char path[512]; /* the library loaded */
  void *dl;
  int major, minor;
  const char *(*GetErrorString)(nvrtcResult);
  nvrtcResult (*Version)(int *, int *);
  nvrtcResult (*CreateProgram)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                               const char *const *);
  nvrtcResult (*DestroyProgram)(nvrtcProgram *);
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char *const *);
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t *);
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char *);
  nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t *);
  nvrtcResult (*GetCUBIN)(nvrtcProgram, char *);
} sdk_nvrtc_api;

extern sdk_cu_api sdk_cu;
extern sdk_nvrtc_api sdk_nv;

/* Load libcuda.so.1 (the first call; later calls return its result): 1 when
 * usable, else 0 with the reason in sdk_cu.why. */
int sdk_cu_load(void);

/* Load NVRTC the same way: libnvrtc.so, .so.13, .so.12 through the dynamic
 * loader, then the newest lib64/libnvrtc.so* of env->cuda_home,
 * env->cuda_path and /usr/local/cuda; 0 with the reason in sdk_nv.why. */
int sdk_nv_load(const sdk_backend_env *env);

/* "cuda: cuFoo failed: CUDA_ERROR_X (text)" */
sdk_err sdk_cu_fail(sdk_errbuf *eb, const char *call, CUresult r);

/* Call sdk_cu.call and return its error from the function. */
#define CU(eb, call)                                                                               \
  do {                                                                                             \
    CUresult cu_r_ = (sdk_cu.call);                                                                \
    if (cu_r_ != CUDA_SUCCESS) return sdk_cu_fail((eb), "cu" #call, cu_r_);                        \
  } while (0)

/* ---- objects ---- */
struct sdk_bctx {
  sdk_backend_opts o;
  int has_device;
  CUdevice dev;
  CUcontext cx;
  int sms, cc_major, cc_minor;
  int coop;       /* cooperative launches possible */
  int uva;        /* unified addressing: page-locked host memory is a device address */
  int smem_optin; /* most shared memory a block may ask for */
  size_t mem;
  char name[256];
  char arch[32];         /* sm_XY: what kernels are compiled for */
  sdk_cache_place cache; /* where compiled modules go */
};

/* Shape of a launch of the persistent system kernel (see cuda_sys.c). */
typedef struct {
  unsigned blocks;
  int R, msys;      /* chunks per block resident in shared memory; systems per block */
  size_t smem;      /* dynamic shared memory per block */
  int64_t resident; /* chunks resident in all */
} sys_shape;

/* A persistent kernel's shape found for a size of systems (cuda_sys.c):
 * the inputs of the search, its result (found 1, or -1: none runs) */
typedef struct {
  int64_t in[8];
  int found;
  sys_shape sh;
} sys_shape_memo;

struct sdk_module {
  CUmodule mod;
  CUcontext cx; /* the context it was loaded into */
  /* where it goes at the run's end instead of being unloaded (NULL: nowhere),
   * under this key (backend.h sdk_module_shelf) */
  const sdk_module_shelf *shelf;
  char key[128];
  /* a module that may outlive its run holds its device's primary context
   * itself (released after the module is unloaded) */
  int retained;
  CUdevice dev;
  int comp; /* rows of the state, sdk_state_rows (codegen.h: compensated update, boundaries,
             * time averages), 0 when only the variables */
  /* the rows [quads[0], quads[1]) of the state hold the delays' rings as
   * quads (abi.h, sdk_quad_at; sdk_ring_quads), {0, 0} when none */
  int quads[2];
  CUfunction init, advance, red_units, red_nonfinite, red_minmax, red_hist;
  CUfunction red_hist_mod;  /* may be absent (modules of older builds) */
  CUfunction red_zero;      /* may be absent (modules of older builds) */
  CUfunction observe;       /* user observables (codegen/observe_paths.c), or NULL */
  CUfunction observe_units; /* their evaluation fused with the reduction, or NULL */
  /* [boundaries] (codegen/cuda_paths.c): lists the paths still alive; its
   * sdk_advance then takes the list (two more arguments); else NULL */
  CUfunction live;
  CUfunction sys_step; /* system driver (interacting particles), else NULL */
  CUfunction sys_run;  /* persistent system kernel (mean-field modules), or NULL */
  CUfunction sys_sums; /* the systems' sums from part[] (mean field over MPI ranks), or NULL */
  /* pair models with odd or even pair functions: each unordered pair once
   * (codegen/sys_cuda_pairs.c), the pairs of a last partial tile, and the step
   * from their sums; or NULL */
  CUfunction sys_half, sys_edge, sys_step_half;
  int sys_run_smem; /* dynamic shared memory it may use (bytes) */
  /* nred, npair, ocos, osin, particles per chunk, block size, nmean, persistent */
  int sys_info[8];
  /* the shapes of its persistent kernel found so far, kept with the module
   * for the later runs of a session (each search asks the driver's occupancy
   * calculator about a hundred times) */
  sys_shape_memo shapes[4];
  int nshapes;
};

struct sdk_ensemble {
  sdk_bctx *ctx;
  sdk_module *mod;
  sdk_layout lay;
  int64_t npad;
  int64_t nch;    /* chunks per grid point */
  sdk_span span;  /* the chunks and grid points held (backend.h) */
  size_t esize;   /* bytes per real */
  CUdeviceptr st; /* nvars * npad reals (2 nvars with compensation) */
  size_t st_bytes;
  CUdeviceptr sv; /* ngrid * max(nsv, 1) reals */
  size_t sv_bytes, units_bytes;
  CUdeviceptr mark;
  CUdeviceptr obs; /* user observables: nobs * npad reals, allocated on first use */
  /* [boundaries]: the paths still alive (npad unsigned) and their count, for
   * sdk_advance over them alone (allocated by the first advance) */
  CUdeviceptr live, nlive;
  int nobs;
  CUdeviceptr red; /* chunk results */
  size_t red_bytes;
  CUdeviceptr fold;  /* fold unit results (red_bytes too) */
  CUdeviceptr units; /* the fold units held: (first chunk, chunks) pairs */
  int64_t nunits;
  int64_t unitmax;   /* the most chunks in a unit held */
  int64_t *unit_g;   /* the grid point of each unit held (host) */
  void *host;        /* host copy of chunk results */
  int host_pinned;   /* host is page-locked (cuMemAllocHost): copies skip a staging buffer */
  size_t host_bytes; /* (page-locked) */
  /* the rows copied to the host (rows, read_state) land here first: one
   * buffer kept for the ensemble's life, page-locked where the driver can
   * (sdk_cuda_stage), instead of a malloc and a pageable copy per call */
  void *stage;
  size_t stage_bytes;
  int stage_pinned;
  /* count_zero's device buffer: per grid point held lo (-0.5), hi (0.5),
   * then the counts, under and over of sdk_red_hist (made by its first call) */
  CUdeviceptr zc;
  /* the stream of its advances (0: the NULL stream): a blocking stream, so
   * everything else, on the NULL stream, keeps its order with them, while
   * the advances of several ensembles (a run over windows of paths, one
   * ensemble per grid point's piece) run side by side on the device */
  CUstream stream;
  CUevent ev0, ev1; /* around the last advance */
  double last_ms;   /* its duration by CUDA events, -1 if unknown */
  int timed;        /* the events of the last advance are recorded, not yet read */
  struct {          /* systems of particles (allocated by the first advance_sys) */
    int on;
    CUdeviceptr st2;  /* second state buffer of pair models (st and st2 swap every step) */
    CUdeviceptr sums; /* [2][nsys][nred]: the sums of step n in half n & 1 */
    CUdeviceptr part, cnt, zsys, gcnt, obs, bar;
    /* pair models run by sdk_sys_half (half = 1): the tiles' pair sums
     * [nsys][npair][ntile][N] and the work list (nwork items of 3 ints) */
    int half, nwork;
    CUdeviceptr psum, work;
    size_t psum_bytes, work_bytes, st2_bytes; /* (the blocks kept between runs) */
    size_t obs_bytes;
    /* systems; chunks, blocks and chunks per block per system; the step whose
     * sums are held (-1 none) */
    int64_t nsys, nchunk, nblk, cpb, sums_step;
    int kernel; /* the kernel of the last advance (SYS_LAUNCH, ...) */
                /* shapes of the persistent kernel without and with resident chunks
                 * (computed once: many occupancy queries): 0 unknown, 1 found, -1 none */
    int shape_known[2];
    sys_shape shape[2];
    /* spanning MPI ranks: every rank's group sums (host), their bytes per
     * rank, this shard's first group */
    double *xbuf;
    int64_t *xbytes, b0;
    CUdeviceptr hist; /* counts of histogram_mod, kept between samples */
    size_t hist_bytes;
  } sys;
};

/* ---- cuda_module.c ---- */

/* Compile src with NVRTC (no cache): the cubin (malloc'ed) and NVRTC's log
 * (malloc'ed, may be NULL).  src_path names the source in messages; the
 * command is logged (SDK_LOG_DEBUG). */
sdk_err sdk_cuda_nvrtc(sdk_bctx *c, const char *src, const char *model_path,
                       const char *const *opts, int nopts, const char *src_path, char **cubin,
                       size_t *cubin_len, char **log_out, sdk_errbuf *eb);

/* backend.h build_hash: the key of the module of source `ident` */
sdk_err sdk_cuda_build_hash(sdk_bctx *c, const char *ident, char hash[33], sdk_errbuf *eb);
/* The backend's compile and module_free (backend.h). */
sdk_err sdk_cuda_compile(sdk_bctx *c, const char *src, const char *ident, const char *model_path,
                         sdk_module **out, char *report, size_t nreport, sdk_errbuf *eb);
void sdk_cuda_module_free(sdk_module **m);

/* ---- cuda_ensemble.c ---- */

/* The backend's alloc and free (backend.h). */
sdk_err sdk_cuda_alloc(sdk_bctx *c, sdk_module *mod, const sdk_layout *lay, sdk_ensemble **out,
                       sdk_errbuf *eb);
void sdk_cuda_free(sdk_ensemble **e);
/* e->host (its previous buffer freed): `bytes` of page-locked memory where
 * the driver can give it (a copy then goes straight to it), else malloc'ed;
 * 0 when out of memory. */
int sdk_cuda_host_alloc(sdk_ensemble *e, size_t bytes);
/* Device memory of `bytes` for a kind of buffer ("state", "red", ...): a
 * block the session kept from an earlier run of the device, else allocated;
 * freed to the session's shelf where there is one (cuda_ensemble.c). */
CUresult sdk_cuda_dev_alloc(sdk_bctx *c, const char *kind, CUdeviceptr *d, size_t bytes);
void sdk_cuda_dev_free(const sdk_bctx *c, const char *kind, CUdeviceptr d, size_t bytes);
/* e->stage with room for `bytes` (grown as needed; NULL when out of memory). */
void *sdk_cuda_stage(sdk_ensemble *e, size_t bytes);

/* ---- cuda_sys.c ---- */

/* The backend's advance_sys (backend.h). */
sdk_err sdk_cuda_advance_sys(sdk_ensemble *e, int64_t step0, int64_t nsteps, uint64_t seed,
                             int64_t obs_every, double *obs, sdk_errbuf *eb);
/* The backend's sys_unit (backend.h): a group of the system kernels. */
int64_t sdk_cuda_sys_unit(sdk_bctx *c, sdk_module *m, int64_t particles);

#endif
