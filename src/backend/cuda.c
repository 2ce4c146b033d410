/* CUDA backend: generated CUDA C++ compiled at run time by NVRTC to a cubin
 * for the device's own architecture (cached by a hash of source, options,
 * architecture and NVRTC version), loaded through the CUDA driver API.
 *
 * Neither libcuda nor NVRTC is linked: both are dlopen'ed when the backend
 * is opened, so the same binary runs the CPU backend on machines without a
 * GPU or toolkit, and `sdekit compile --arch sm_XY` needs NVRTC only.
 *
 * State lives in device memory (structure of arrays, as on the CPU); only
 * reduced results travel to the host.  Reductions follow backend.h: chunks
 * of SDK_RED_CHUNK consecutive paths of a grid point are reduced on the
 * device in a fixed tree order and merged on the host in chunk order, so the
 * results do not depend on the launch shape or on scheduling. */
#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/cache.h"
#include "codegen/codegen.h"
#include "core/atomicfile.h"
#include "core/strbuf.h"

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

static sdk_cu_api sdk_cu;
static sdk_nvrtc_api sdk_nv;

#define SYM(tab, field, name)                                                                      \
  do {                                                                                             \
    *(void **)&tab.field = dlsym(tab.dl, name);                                                    \
    if (!tab.field) {                                                                              \
      missing = name;                                                                              \
      goto bad;                                                                                    \
    }                                                                                              \
  } while (0)

static int sdk_cu_load(void) {
  if (sdk_cu.tried) return sdk_cu.ok;
  sdk_cu.tried = 1;
  const char *missing = NULL;
  sdk_cu.dl = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!sdk_cu.dl) {
    snprintf(sdk_cu.why, sizeof sdk_cu.why, "no CUDA driver (libcuda.so.1 not found)");
    return 0;
  }
  SYM(sdk_cu, Init, "cuInit");
  SYM(sdk_cu, DriverGetVersion, "cuDriverGetVersion");
  SYM(sdk_cu, DeviceGetCount, "cuDeviceGetCount");
  SYM(sdk_cu, DeviceGet, "cuDeviceGet");
  SYM(sdk_cu, DeviceGetName, "cuDeviceGetName");
  SYM(sdk_cu, DeviceGetAttribute, "cuDeviceGetAttribute");
  SYM(sdk_cu, DeviceTotalMem, "cuDeviceTotalMem_v2");
  SYM(sdk_cu, DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  SYM(sdk_cu, DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  SYM(sdk_cu, CtxSetCurrent, "cuCtxSetCurrent");
  SYM(sdk_cu, CtxSynchronize, "cuCtxSynchronize");
  SYM(sdk_cu, ModuleLoadData, "cuModuleLoadData");
  SYM(sdk_cu, ModuleUnload, "cuModuleUnload");
  SYM(sdk_cu, ModuleGetFunction, "cuModuleGetFunction");
  SYM(sdk_cu, ModuleGetGlobal, "cuModuleGetGlobal_v2");
  SYM(sdk_cu, FuncGetAttribute, "cuFuncGetAttribute");
  SYM(sdk_cu, MemAlloc, "cuMemAlloc_v2");
  SYM(sdk_cu, MemFree, "cuMemFree_v2");
  SYM(sdk_cu, MemcpyHtoD, "cuMemcpyHtoD_v2");
  SYM(sdk_cu, MemcpyDtoH, "cuMemcpyDtoH_v2");
  SYM(sdk_cu, MemcpyDtoD, "cuMemcpyDtoD_v2");
  SYM(sdk_cu, MemsetD8, "cuMemsetD8_v2");
  SYM(sdk_cu, LaunchKernel, "cuLaunchKernel");
  SYM(sdk_cu, GetErrorString, "cuGetErrorString");
  SYM(sdk_cu, GetErrorName, "cuGetErrorName");
  SYM(sdk_cu, EventCreate, "cuEventCreate");
  SYM(sdk_cu, EventRecord, "cuEventRecord");
  SYM(sdk_cu, EventSynchronize, "cuEventSynchronize");
  SYM(sdk_cu, EventElapsedTime, "cuEventElapsedTime");
  SYM(sdk_cu, EventDestroy, "cuEventDestroy_v2");
  *(void **)&sdk_cu.FuncSetAttribute = dlsym(sdk_cu.dl, "cuFuncSetAttribute");
  *(void **)&sdk_cu.LaunchCooperativeKernel = dlsym(sdk_cu.dl, "cuLaunchCooperativeKernel");
  *(void **)&sdk_cu.OccupancyMaxActiveBlocksPerMultiprocessor =
      dlsym(sdk_cu.dl, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  sdk_cu.ok = 1;
  return 1;
bad:
  snprintf(sdk_cu.why, sizeof sdk_cu.why, "the CUDA driver (libcuda.so.1) lacks %s: too old?",
           missing);
  dlclose(sdk_cu.dl);
  sdk_cu.dl = NULL;
  return 0;
}

static void *try_nvrtc(const char *name) {
  void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (h) snprintf(sdk_nv.path, sizeof sdk_nv.path, "%s", name);
  return h;
}

static int sdk_nv_load(const sdk_backend_env *env) {
  if (sdk_nv.tried) return sdk_nv.ok;
  sdk_nv.tried = 1;
  const char *missing = NULL;
  static const char *const names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", NULL};
  for (int i = 0; names[i] && !sdk_nv.dl; i++)
    sdk_nv.dl = try_nvrtc(names[i]);
  const char *homes[] = {env ? env->cuda_home : NULL, env ? env->cuda_path : NULL,
                         "/usr/local/cuda"};
  for (int i = 0; i < 3 && !sdk_nv.dl; i++) {
    if (!homes[i] || !*homes[i]) continue;
    char pat[600];
    snprintf(pat, sizeof pat, "%s/lib64/libnvrtc.so*", homes[i]);
    glob_t gl;
    if (glob(pat, 0, NULL, &gl) == 0) {
      /* newest version last in lexical order; skip the builtins library */
      for (size_t k = gl.gl_pathc; k-- > 0 && !sdk_nv.dl;)
        if (!strstr(gl.gl_pathv[k], "builtins") && !strstr(gl.gl_pathv[k], ".alt."))
          sdk_nv.dl = try_nvrtc(gl.gl_pathv[k]);
      globfree(&gl);
    }
  }
  if (!sdk_nv.dl) {
    snprintf(sdk_nv.why, sizeof sdk_nv.why,
             "NVRTC not found (tried libnvrtc.so, libnvrtc.so.13, libnvrtc.so.12 and "
             "/usr/local/cuda/lib64/libnvrtc.so*): install the CUDA toolkit's NVRTC");
    return 0;
  }
  SYM(sdk_nv, GetErrorString, "nvrtcGetErrorString");
  SYM(sdk_nv, Version, "nvrtcVersion");
  SYM(sdk_nv, CreateProgram, "nvrtcCreateProgram");
  SYM(sdk_nv, DestroyProgram, "nvrtcDestroyProgram");
  SYM(sdk_nv, CompileProgram, "nvrtcCompileProgram");
  SYM(sdk_nv, GetProgramLogSize, "nvrtcGetProgramLogSize");
  SYM(sdk_nv, GetProgramLog, "nvrtcGetProgramLog");
  SYM(sdk_nv, GetCUBINSize, "nvrtcGetCUBINSize");
  SYM(sdk_nv, GetCUBIN, "nvrtcGetCUBIN");
  if (sdk_nv.Version(&sdk_nv.major, &sdk_nv.minor) != 0) {
    missing = "a working nvrtcVersion";
    goto bad;
  }
  sdk_nv.ok = 1;
  return 1;
bad:
  snprintf(sdk_nv.why, sizeof sdk_nv.why, "NVRTC (%s) lacks %s: CUDA 11.1 or newer is needed",
           sdk_nv.path, missing);
  dlclose(sdk_nv.dl);
  sdk_nv.dl = NULL;
  return 0;
}

/* "cuda: cuFoo failed: CUDA_ERROR_X (text)" */
static sdk_err sdk_cu_fail(sdk_errbuf *eb, const char *call, CUresult r) {
  const char *name = NULL, *text = NULL;
  if (sdk_cu.GetErrorName) sdk_cu.GetErrorName(r, &name);
  if (sdk_cu.GetErrorString) sdk_cu.GetErrorString(r, &text);
  return SDK_FAIL(eb, SDK_ERR_BACKEND, "cuda: %s failed: %s (%s)", call, name ? name : "?",
                  text ? text : "unknown error");
}

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
  int smem_optin; /* most shared memory a block may ask for */
  size_t mem;
  char name[256];
  char arch[32];         /* sm_XY: what kernels are compiled for */
  sdk_cache_place cache; /* where compiled modules go */
};

struct sdk_module {
  CUmodule mod;
  int ilp;  /* paths per thread of sdk_advance */
  int comp; /* compensated update: sdk_state_rows (2 or 3 nvars), 0 without (codegen.h) */
  CUfunction init, advance, red_moments, red_minmax, red_hist;
  CUfunction red_hist_mod; /* may be absent (modules of older builds) */
  CUfunction sys_step;     /* system driver (interacting particles), else NULL */
  CUfunction sys_run;      /* persistent system kernel (mean-field modules), or NULL */
  int sys_run_smem;        /* dynamic shared memory it may use (bytes) */
  /* nred, npair, ocos, osin, particles per chunk, block size, nmean, persistent */
  int sys_info[8];
};

/* Shape of a launch of the persistent system kernel (see cuda_sys.c). */
typedef struct {
  unsigned blocks;
  int R, msys;      /* chunks per block resident in shared memory; systems per block */
  size_t smem;      /* dynamic shared memory per block */
  int64_t resident; /* chunks resident in all */
} sys_shape;

struct sdk_ensemble {
  sdk_bctx *ctx;
  sdk_module *mod;
  sdk_layout lay;
  int64_t npad;
  int64_t nch;    /* chunks per grid point */
  size_t esize;   /* bytes per real */
  CUdeviceptr st; /* nvars * npad reals (2 nvars with compensation) */
  CUdeviceptr sv; /* ngrid * max(nsv, 1) reals */
  CUdeviceptr mark;
  CUdeviceptr red; /* chunk results */
  size_t red_bytes;
  void *host;       /* host copy of chunk results */
  CUevent ev0, ev1; /* around the last advance */
  double last_ms;   /* its duration by CUDA events, -1 if unknown */
  struct {          /* systems of particles (allocated by the first advance_sys) */
    int on;
    CUdeviceptr st2;  /* second state buffer of pair models (st and st2 swap every step) */
    CUdeviceptr sums; /* [2][nsys][nred]: the sums of step n in half n & 1 */
    CUdeviceptr part, cnt, zsys, gcnt, obs, bar;
    size_t obs_bytes;
    /* systems; chunks, blocks and chunks per block per system; the step whose
     * sums are held (-1 none) */
    int64_t nsys, nchunk, nblk, cpb, sums_step;
    int kernel; /* the kernel of the last advance (SYS_LAUNCH, ...) */
                /* shapes of the persistent kernel without and with resident chunks
                 * (computed once: many occupancy queries): 0 unknown, 1 found, -1 none */
    int shape_known[2];
    sys_shape shape[2];
    CUdeviceptr hist; /* counts of histogram_mod, kept between samples */
    size_t hist_bytes;
  } sys;
};

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

/* ---- compilation ---- */

/* Turn NVRTC's first error into one line; point at the model file when the
 * error is inside a user expression (#line directives). */
static sdk_err compile_error(const char *log, const char *model_path, const char *src_path,
                             sdk_errbuf *eb) {
  const char *l = log;
  while (l && *l) {
    const char *e = strchr(l, '\n');
    size_t n = e ? (size_t)(e - l) : strlen(l);
    if (memmem(l, n, ": error", 7) || memmem(l, n, ": catastrophic error", 20)) {
      char line[1024];
      snprintf(line, sizeof line, "%.*s", (int)(n < 1000 ? n : 1000), l);
      if (model_path && *model_path && !strncmp(l, model_path, strlen(model_path)))
        return SDK_FAIL(eb, SDK_ERR_COMPILE, "expression does not compile: %s", line);
      return SDK_FAIL(eb, SDK_ERR_COMPILE, "generated code did not compile (source kept in %s): %s",
                      src_path, line);
    }
    l = e ? e + 1 : NULL;
  }
  return SDK_FAIL(eb, SDK_ERR_COMPILE, "NVRTC failed (source kept in %s): %.300s", src_path,
                  log && *log ? log : "no output");
}

/* From ptxas's verbose log (--ptxas-options=-v): the spill line of function
 * `fn`, as "S bytes spill stores, L bytes spill loads" (empty if absent). */
static void ptxas_spills(const char *log, const char *fn, char *out, size_t n) {
  out[0] = 0;
  if (!log) return;
  char key[128];
  snprintf(key, sizeof key, "Function properties for %s\n", fn);
  const char *p = strstr(log, key);
  if (!p) return;
  p += strlen(key);
  /* "ptxas         .     32 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads" */
  const char *eol = strchr(p, '\n');
  const char *q = strstr(p, "bytes stack frame");
  if (!q || (eol && q > eol)) return;
  while (q > p && q[-1] == ' ')
    q--;
  while (q > p && q[-1] >= '0' && q[-1] <= '9')
    q--;
  int stack, sst, sld;
  if (sscanf(q, "%d bytes stack frame, %d bytes spill stores, %d bytes spill loads", &stack, &sst,
             &sld) == 3)
    snprintf(out, n, "%d bytes spill stores, %d bytes spill loads", sst, sld);
}

/* Registers and stack frame of function `fn`, read from the cubin itself
 * (ELF64: the symbol's index, then the EIATTR_REGCOUNT (0x2f) and
 * EIATTR_FRAME_SIZE (0x11) records of section .nv.info), so that the report
 * needs neither a driver nor the compiler's log.  Returns 0 if not found. */
static uint32_t rd32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const unsigned char *p) {
  return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}
static int cubin_resources(const char *bin, size_t len, const char *fn, int *regs, int *frame) {
  const unsigned char *d = (const unsigned char *)bin;
  *regs = *frame = -1;
  if (len < 64 || memcmp(d, "\177ELF", 4) != 0 || d[4] != 2) return 0;
  uint64_t shoff = rd64(d + 0x28);
  unsigned shentsize = d[0x3a] | d[0x3b] << 8, shnum = d[0x3c] | d[0x3d] << 8,
           shstrndx = d[0x3e] | d[0x3f] << 8;
  if (shentsize < 64 || shstrndx >= shnum || shoff > len ||
      (uint64_t)shnum * shentsize > len - shoff)
    return 0;
#define SH(i) (d + shoff + (uint64_t)(i)*shentsize)
  uint64_t stroff = rd64(SH(shstrndx) + 24), strsize = rd64(SH(shstrndx) + 32);
  if (stroff > len || strsize > len - stroff) return 0;
  const unsigned char *sym = NULL, *names = NULL, *info = NULL;
  uint64_t nsym = 0, namesz = 0, infosz = 0;
  for (unsigned i = 0; i < shnum; i++) {
    const unsigned char *h = SH(i);
    uint32_t name = rd32(h), type = rd32(h + 4);
    uint64_t off = rd64(h + 24), size = rd64(h + 32);
    if (off > len || size > len - off) continue;
    if (type == 2 /* SHT_SYMTAB */) {
      uint32_t link = rd32(h + 40);
      if (link >= shnum) continue;
      uint64_t lo = rd64(SH(link) + 24), ls = rd64(SH(link) + 32);
      if (lo > len || ls > len - lo) continue;
      sym = d + off, nsym = size / 24, names = d + lo, namesz = ls;
    } else if (name < strsize && strsize - name >= 9 && !memcmp(d + stroff + name, ".nv.info", 9)) {
      info = d + off, infosz = size;
    }
  }
#undef SH
  if (!sym || !info) return 0;
  size_t fl = strlen(fn);
  uint32_t idx = 0;
  for (uint64_t i = 1; i < nsym && !idx; i++) {
    uint32_t nm = rd32(sym + 24 * i);
    if (nm < namesz && namesz - nm > fl && !memcmp(names + nm, fn, fl + 1)) idx = (uint32_t)i;
  }
  if (!idx) return 0;
  for (uint64_t p = 0; p + 4 <= infosz;) {
    unsigned fmt = info[p], attr = info[p + 1];
    if (fmt == 3) { /* 16-bit value */
      p += 4;
    } else if (fmt == 4) { /* sized value */
      unsigned sz = info[p + 2] | info[p + 3] << 8;
      if (p + 4 + sz > infosz) break;
      if (sz == 8 && rd32(info + p + 4) == idx) {
        if (attr == 0x2f) *regs = (int)rd32(info + p + 8);
        if (attr == 0x11) *frame = (int)rd32(info + p + 8);
      }
      p += 4 + sz;
    } else {
      break; /* unknown record format: stop rather than guess */
    }
  }
  return *regs >= 0;
}

/* "sdk_advance: 31 registers/thread, 0 bytes stack frame, 0 bytes spill stores, ..." */
static void resource_line(const char *bin, size_t len, const char *spills, char *out, size_t n) {
  int regs, frame;
  out[0] = 0;
  const char *fn = "sdk_advance";
  if (!cubin_resources(bin, len, fn, &regs, &frame) &&
      !cubin_resources(bin, len, fn = "sdk_sys_step", &regs, &frame))
    return;
  int k = snprintf(out, n, "%s: %d registers/thread, %d bytes stack frame%s%s", fn, regs,
                   frame < 0 ? 0 : frame, spills && *spills ? ", " : "", spills ? spills : "");
  int r2, f2; /* the persistent system kernel, where there is one */
  if (k > 0 && (size_t)k < n && cubin_resources(bin, len, "sdk_sys_run", &r2, &f2))
    snprintf(out + k, n - (size_t)k, "; sdk_sys_run: %d registers/thread, %d bytes stack frame", r2,
             f2 < 0 ? 0 : f2);
}

/* "sdekit: NVRTC 12.4 (libnvrtc.so.12): OPTIONS SOURCE" (--verbose) */
static void log_nvrtc(const sdk_logger *lg, const char *const *opts, int nopts,
                      const char *src_path) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_sb_printf(&b, "sdekit: NVRTC %d.%d (%s):", sdk_nv.major, sdk_nv.minor, sdk_nv.path);
  for (int i = 0; i < nopts; i++)
    sdk_sb_printf(&b, " %s", opts[i]);
  sdk_sb_printf(&b, " %s\n", src_path);
  if (!b.oom) sdk_log(lg, SDK_LOG_DEBUG, "%s", b.s);
  sdk_sb_free(&b);
}

static sdk_err sdk_cuda_nvrtc(sdk_bctx *c, const char *src, const char *model_path,
                              const char *const *opts, int nopts, const char *src_path,
                              char **cubin, size_t *cubin_len, char **log_out, sdk_errbuf *eb) {
  nvrtcProgram prog = NULL;
  nvrtcResult r = sdk_nv.CreateProgram(&prog, src, "sdekit_kernel.cu", 0, NULL, NULL);
  if (r != 0)
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "cuda: nvrtcCreateProgram failed: %s",
                    sdk_nv.GetErrorString(r));
  if (sdk_log_on(c->o.logger, SDK_LOG_DEBUG)) log_nvrtc(c->o.logger, opts, nopts, src_path);
  nvrtcResult rc = sdk_nv.CompileProgram(prog, nopts, opts);
  size_t loglen = 0;
  char *log = NULL;
  if (sdk_nv.GetProgramLogSize(prog, &loglen) == 0 && loglen > 0 && (log = malloc(loglen + 1))) {
    if (sdk_nv.GetProgramLog(prog, log) != 0) log[0] = 0;
    log[loglen] = 0;
  }
  sdk_err err = SDK_OK;
  if (rc != 0) {
    err = compile_error(log, model_path, src_path, eb);
    goto out;
  }
  size_t n = 0;
  if ((r = sdk_nv.GetCUBINSize(prog, &n)) != 0 || n == 0) {
    err = SDK_FAIL(eb, SDK_ERR_BACKEND, "cuda: nvrtcGetCUBINSize failed: %s",
                   r ? sdk_nv.GetErrorString(r) : "empty cubin");
    goto out;
  }
  char *bin = malloc(n);
  if (!bin) {
    err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    goto out;
  }
  if ((r = sdk_nv.GetCUBIN(prog, bin)) != 0) {
    free(bin);
    err = SDK_FAIL(eb, SDK_ERR_BACKEND, "cuda: nvrtcGetCUBIN failed: %s", sdk_nv.GetErrorString(r));
    goto out;
  }
  *cubin = bin;
  *cubin_len = n;
  *log_out = log;
  log = NULL;
out:
  free(log);
  sdk_nv.DestroyProgram(&prog);
  return err;
}

static void sdk_cuda_module_free(sdk_module **m) {
  if (!m || !*m) return;
  if ((*m)->mod) sdk_cu.ModuleUnload((*m)->mod);
  free(*m);
  *m = NULL;
}

/* The kernels of a module: sdk_advance or, in a module of systems of
 * particles, sdk_sys_step (with sdk_sys_info and, for mean-field models on a
 * device with cooperative launches, the persistent sdk_sys_run), the
 * reductions; sdk_red_hist_mod where present. */
static sdk_err module_functions(sdk_bctx *c, sdk_module *m, const char *path, sdk_errbuf *eb) {
  CUresult r;
  struct {
    CUfunction *f;
    const char *name;
  } fns[] = {{&m->init, "sdk_init"},
             {&m->advance, "sdk_advance"},
             {&m->red_moments, "sdk_red_moments"},
             {&m->red_minmax, "sdk_red_minmax"},
             {&m->red_hist, "sdk_red_hist"}};
  /* a module of systems of particles has sdk_sys_step instead of sdk_advance */
  if (sdk_cu.ModuleGetFunction(&m->sys_step, m->mod, "sdk_sys_step") != CUDA_SUCCESS)
    m->sys_step = NULL;
  if (sdk_cu.ModuleGetFunction(&m->red_hist_mod, m->mod, "sdk_red_hist_mod") != CUDA_SUCCESS)
    m->red_hist_mod = NULL;
  if (m->sys_step) {
    CUdeviceptr ip = 0;
    size_t in = 0;
    if ((r = sdk_cu.ModuleGetGlobal(&ip, &in, m->mod, "sdk_sys_info")) != CUDA_SUCCESS ||
        in != sizeof m->sys_info || (r = sdk_cu.MemcpyDtoH(m->sys_info, ip, in)) != CUDA_SUCCESS)
      return SDK_FAIL(eb, SDK_ERR_BACKEND, "'%s' is not an sdekit kernel module (no sdk_sys_info)",
                      path);
  }
  /* the persistent system kernel (mean-field modules): its dynamic shared
   * memory may grow to the device's opt-in limit */
  if (m->sys_step && m->sys_info[7] && c->coop) {
    int stat = 0;
    if (sdk_cu.ModuleGetFunction(&m->sys_run, m->mod, "sdk_sys_run") != CUDA_SUCCESS ||
        sdk_cu.FuncGetAttribute(&stat, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, m->sys_run) !=
            CUDA_SUCCESS ||
        c->smem_optin <= stat ||
        sdk_cu.FuncSetAttribute(m->sys_run, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                c->smem_optin - stat) != CUDA_SUCCESS)
      m->sys_run = NULL;
    else
      m->sys_run_smem = c->smem_optin - stat;
  }
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
    if (!(m->sys_step && fns[i].f == &m->advance) &&
        (r = sdk_cu.ModuleGetFunction(fns[i].f, m->mod, fns[i].name)) != CUDA_SUCCESS)
      return SDK_FAIL(eb, SDK_ERR_BACKEND, "'%s' is not an sdekit kernel module (no %s)", path,
                      fns[i].name);
  return SDK_OK;
}

/* The module's constants: its kernel ABI (must match this build where it is
 * exported), the rows of its state (compensated update) and the paths per
 * thread of sdk_advance. */
static sdk_err module_globals(sdk_module *m, const char *path, sdk_errbuf *eb) {
  CUdeviceptr abi_p = 0;
  size_t abi_n = 0;
  int abi = -1;
  if (sdk_cu.ModuleGetGlobal(&abi_p, &abi_n, m->mod, "sdk_abi") == CUDA_SUCCESS &&
      abi_n == sizeof abi && sdk_cu.MemcpyDtoH(&abi, abi_p, sizeof abi) == CUDA_SUCCESS &&
      abi != SDK_KERNEL_ABI)
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "'%s' has kernel ABI %d, this sdekit needs %d", path, abi,
                    SDK_KERNEL_ABI);
  /* compensated update: the module's state has sdk_state_rows rows, 2 or 3
   * nvars (codegen.h) */
  CUdeviceptr rows_p = 0;
  size_t rows_n = 0;
  int rows = 0;
  m->comp = 0;
  if (sdk_cu.ModuleGetGlobal(&rows_p, &rows_n, m->mod, "sdk_state_rows") == CUDA_SUCCESS) {
    if (rows_n != sizeof rows || sdk_cu.MemcpyDtoH(&rows, rows_p, sizeof rows) != CUDA_SUCCESS ||
        rows < 2)
      return SDK_FAIL(eb, SDK_ERR_BACKEND, "'%s' has an unreadable sdk_state_rows", path);
    m->comp = rows;
  }
  m->ilp = 1;
  CUdeviceptr ilp_p = 0;
  size_t ilp_n = 0;
  int ilp = 1;
  if (sdk_cu.ModuleGetGlobal(&ilp_p, &ilp_n, m->mod, "sdk_paths_per_thread") == CUDA_SUCCESS &&
      ilp_n == sizeof ilp && sdk_cu.MemcpyDtoH(&ilp, ilp_p, sizeof ilp) == CUDA_SUCCESS &&
      ilp >= 1 && ilp <= 8)
    m->ilp = ilp;
  return SDK_OK;
}

/* Time-only values of periodic models: fill the per-phase table once. */
static sdk_err module_fill_ttab(sdk_module *m, sdk_errbuf *eb) {
  CUfunction fill;
  CUdeviceptr tab = 0;
  size_t tab_n = 0;
  CUresult r;
  if (sdk_cu.ModuleGetFunction(&fill, m->mod, "sdk_ttab_fill") == CUDA_SUCCESS &&
      sdk_cu.ModuleGetGlobal(&tab, &tab_n, m->mod, "sdk_ttab") == CUDA_SUCCESS) {
    unsigned blocks = (unsigned)((tab_n / 4 + 255) / 256); /* >= one thread per phase */
    if ((r = sdk_cu.LaunchKernel(fill, blocks, 1, 1, 256, 1, 1, 0, NULL, NULL, NULL)) !=
            CUDA_SUCCESS ||
        (r = sdk_cu.CtxSynchronize()) != CUDA_SUCCESS)
      return sdk_cu_fail(eb, "sdk_ttab_fill", r);
  }
  return SDK_OK;
}

/* Load a cubin on the device and check it is an sdekit module of this
 * build; res (optional) gets sdk_advance's registers from the driver. */
static sdk_err load_module(sdk_bctx *c, const char *cubin, const char *path, sdk_module **out,
                           char *res, size_t nres, sdk_errbuf *eb) {
  CU(eb, CtxSetCurrent(c->cx));
  sdk_module *m = calloc(1, sizeof *m);
  if (!m) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  CUresult r = sdk_cu.ModuleLoadData(&m->mod, cubin);
  sdk_err err = SDK_OK;
  if (r != CUDA_SUCCESS) {
    free(m);
    return sdk_cu_fail(eb, "cuModuleLoadData", r);
  }
  SDK_TRY(err, module_functions(c, m, path, eb), bad);
  SDK_TRY(err, module_globals(m, path, eb), bad);
  SDK_TRY(err, module_fill_ttab(m, eb), bad);
  int regs = 0, local = 0;
  if (res &&
      sdk_cu.FuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, m->advance) == CUDA_SUCCESS &&
      sdk_cu.FuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, m->advance) ==
          CUDA_SUCCESS)
    snprintf(res, nres, "sdk_advance: %d registers/thread, %d bytes local memory/thread", regs,
             local);
  *out = m;
  return SDK_OK;
bad:
  sdk_cuda_module_free(&m);
  return err;
}

/* One module in the cache: cuda-HASH.cubin, its source cuda-HASH.cu and its
 * record cuda-HASH.txt.  The record names the cubin it describes (key, size,
 * hash of its bytes): a cubin planted, truncated or left by another build is
 * rebuilt. */
typedef struct cache_entry {
  char dir[4096], hash[33], modkey[96];
  char bin[4200], src[4200], info[4200];
} cache_entry;

/* NVRTC's options for the backend's modules; returns their number. */
static int module_options(const sdk_bctx *c, char *archopt, size_t narch, const char **opts) {
  int nopts = 0;
  snprintf(archopt, narch, "--gpu-architecture=%s", c->arch);
  opts[nopts++] = archopt;
  opts[nopts++] = "-default-device";
  /* no fast math: no contraction either, like the CPU's -ffp-contract=off */
  opts[nopts++] = c->o.fast_math ? "--use_fast_math" : "--fmad=false";
  opts[nopts++] = "-lineinfo";
  opts[nopts++] = "--ptxas-options=-v";
  return nopts;
}

/* The entry of this source: a hash of the build, NVRTC, the architecture,
 * the options and the source. */
static sdk_err cache_entry_for(sdk_bctx *c, const char *src, const char *const *opts, int nopts,
                               cache_entry *ce, sdk_errbuf *eb) {
  SDK_CHECK(sdk_cache_place_dir(&c->cache, ce->dir, sizeof ce->dir, eb));
  sdk_strbuf key;
  sdk_sb_init(&key);
  sdk_sb_printf(&key, "sdekit %s abi %d\nnvrtc %d.%d\n%s\n", SDK_VERSION, SDK_KERNEL_ABI,
                sdk_nv.major, sdk_nv.minor, c->arch);
  for (int i = 0; i < nopts; i++)
    sdk_sb_printf(&key, "%s\n", opts[i]);
  sdk_sb_puts(&key, src);
  if (key.oom) {
    sdk_sb_free(&key);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  sdk_hash_hex(key.s, key.len, ce->hash);
  sdk_sb_free(&key);
  snprintf(ce->bin, sizeof ce->bin, "%s/cuda-%s.cubin", ce->dir, ce->hash);
  snprintf(ce->src, sizeof ce->src, "%s/cuda-%s.cu", ce->dir, ce->hash);
  snprintf(ce->info, sizeof ce->info, "%s/cuda-%s.txt", ce->dir, ce->hash);
  snprintf(ce->modkey, sizeof ce->modkey, "sdekit-module/1 cuda %s", ce->hash);
  return SDK_OK;
}

/* The cached cubin when its record matches it: 1 with *cubin, *len and *info
 * (ptxas's spill counts, kept after the record) set; else 0, with why the
 * files were refused (empty when there were none). */
static int cache_lookup(const cache_entry *ce, char **cubin, size_t *len, char **info, char *why,
                        size_t nwhy) {
  char *meta = sdk_cache_read(ce->info, NULL);
  int cached = 0;
  *cubin = *info = NULL;
  *len = 0;
  if (meta) {
    size_t klen = strlen(ce->modkey);
    unsigned long long want_len = 0;
    char want_sum[33] = "", sum[33];
    int pos = 0;
    if (!strncmp(meta, ce->modkey, klen) &&
        sscanf(meta + klen, " size=%llu sum=%32[0-9a-f]%n", &want_len, want_sum, &pos) == 2 &&
        meta[klen + pos] == '\n') {
      *cubin = sdk_cache_read(ce->bin, len);
      if (*cubin && *len == want_len && *len >= 4 && !memcmp(*cubin, "\177ELF", 4)) {
        sdk_hash_hex(*cubin, *len, sum);
        cached = !strcmp(sum, want_sum);
      }
      if (!cached)
        snprintf(why, nwhy, "%s",
                 *cubin ? "its size or contents do not match its record"
                        : (errno == ELOOP ? "a symbolic link" : strerror(errno)));
    } else {
      snprintf(why, nwhy, "its record is not for this source and build");
    }
    if (cached) *info = sdk_strdup(meta + klen + pos + 1);
  } else if (errno != ENOENT) {
    snprintf(why, nwhy, "record: %s", errno == ELOOP ? "a symbolic link" : strerror(errno));
  }
  free(meta);
  if (!cached) {
    free(*cubin);
    *cubin = NULL;
    *len = 0;
  }
  return cached;
}

/* Compile with NVRTC and install the cubin and its record in the cache
 * (source first, for the user to read when NVRTC fails). */
static sdk_err cache_build(sdk_bctx *c, const cache_entry *ce, const char *src,
                           const char *model_path, const char *const *opts, int nopts, char **cubin,
                           size_t *len, char **info, sdk_errbuf *eb) {
  if (sdk_cache_write(ce->src, src, strlen(src)) != 0)
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot write '%s': %s", ce->src, strerror(errno));
  char *log = NULL;
  SDK_CHECK(sdk_cuda_nvrtc(c, src, model_path, opts, nopts, ce->src, cubin, len, &log, eb));
  char spills[256];
  ptxas_spills(log, "sdk_advance", spills, sizeof spills);
  if (!spills[0]) ptxas_spills(log, "sdk_sys_step", spills, sizeof spills);
  if (log) sdk_log(c->o.logger, SDK_LOG_DEBUG, "%s", log);
  free(log);
  *info = sdk_strdup(spills);
  char sum[33];
  sdk_hash_hex(*cubin, *len, sum);
  sdk_strbuf rec;
  sdk_sb_init(&rec);
  /* ptxas's spill counts after the record, so that a cache hit can report them too */
  sdk_sb_printf(&rec, "%s size=%llu sum=%s\n%s", ce->modkey, (unsigned long long)*len, sum, spills);
  /* the cubin first: a reader that sees the new record sees its cubin */
  int bad = rec.oom || sdk_cache_write(ce->bin, *cubin, *len) != 0 ||
            sdk_cache_write(ce->info, rec.s, rec.len) != 0;
  int werr = errno;
  sdk_sb_free(&rec);
  if (bad) {
    free(*cubin);
    free(*info);
    *cubin = *info = NULL;
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot install '%s': %s", ce->bin, strerror(werr));
  }
  sdk_cache_prune(ce->dir, c->o.cache_max ? c->o.cache_max : SDK_CACHE_MAX_DEFAULT, ce->hash);
  return SDK_OK;
}

static sdk_err sdk_cuda_compile(sdk_bctx *c, const char *src, const char *model_path,
                                sdk_module **out, char *report, size_t nreport, sdk_errbuf *eb) {
  *out = NULL;
  char archopt[64];
  const char *opts[8];
  int nopts = module_options(c, archopt, sizeof archopt, opts);
  cache_entry *ce = malloc(sizeof *ce);
  if (!ce) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err err = cache_entry_for(c, src, opts, nopts, ce, eb);
  size_t len = 0;
  char *cubin = NULL, *info = NULL, why[300] = "";
  int cached = err == SDK_OK && cache_lookup(ce, &cubin, &len, &info, why, sizeof why);
  if (cached)
    sdk_log(c->o.logger, SDK_LOG_DEBUG, "sdekit: cached %s\n", ce->bin);
  else if (err == SDK_OK)
    err = cache_build(c, ce, src, model_path, opts, nopts, &cubin, &len, &info, eb);
  if (err != SDK_OK) {
    free(ce);
    return err;
  }
  char res[512] = "", line[768];
  if (c->has_device) err = load_module(c, cubin, ce->bin, out, res, sizeof res, eb);
  resource_line(cubin, len, info, line, sizeof line);
  if (!line[0]) snprintf(line, sizeof line, "%s", res); /* from the driver */
  if (err == SDK_OK && report)
    snprintf(report, nreport, "%s %s (%s%s%s)%s%s%s",
             cached   ? "cached"
             : why[0] ? "rebuilt"
                      : "compiled",
             ce->bin, c->arch, line[0] ? "; " : "", line,
             why[0] ? " (the cached file was refused: " : "", why, why[0] ? ")" : "");
  free(cubin);
  free(info);
  free(ce);
  return err;
}

/* ---- ensembles ---- */
static void cuda_free(sdk_ensemble **e) {
  if (!e || !*e) return;
  sdk_ensemble *x = *e;
  if (x->st) sdk_cu.MemFree(x->st);
  if (x->sv) sdk_cu.MemFree(x->sv);
  if (x->mark) sdk_cu.MemFree(x->mark);
  if (x->red) sdk_cu.MemFree(x->red);
  if (x->ev0) sdk_cu.EventDestroy(x->ev0);
  if (x->ev1) sdk_cu.EventDestroy(x->ev1);
  CUdeviceptr sysbufs[] = {x->sys.st2,  x->sys.sums, x->sys.part, x->sys.cnt, x->sys.zsys,
                           x->sys.gcnt, x->sys.obs,  x->sys.hist, x->sys.bar};
  for (size_t i = 0; i < sizeof sysbufs / sizeof sysbufs[0]; i++)
    if (sysbufs[i]) sdk_cu.MemFree(sysbufs[i]);
  free(x->host);
  free(x);
  *e = NULL;
}

static sdk_err cuda_alloc(sdk_bctx *c, sdk_module *mod, const sdk_layout *lay, sdk_ensemble **out,
                          sdk_errbuf *eb) {
  *out = NULL;
  if (!c->has_device)
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "cuda: compiled for %s only; no device to run on",
                    c->arch);
  CU(eb, CtxSetCurrent(c->cx));
  sdk_ensemble *e = calloc(1, sizeof *e);
  if (!e) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  e->ctx = c;
  e->mod = mod;
  e->lay = *lay;
  e->lay.sv = NULL;
  e->esize = lay->single ? sizeof(float) : sizeof(double);
  e->npad = sdk_padded_paths(lay->ngrid * lay->ppg);
  e->nch = (lay->ppg + SDK_RED_CHUNK - 1) / SDK_RED_CHUNK;
  sdk_err err = SDK_OK;
  if (e->npad / 256 > 0x7fffffff || lay->ngrid * e->nch > 0x7fffffff) {
    err = SDK_FAIL(eb, SDK_ERR_USAGE, "cuda: too many paths for one device (%lld)",
                   (long long)(lay->ngrid * lay->ppg));
    goto fail;
  }
  if (mod->comp && mod->comp != 2 * lay->nvars && mod->comp != 3 * lay->nvars) {
    err = SDK_FAIL(eb, SDK_ERR_INTERNAL, "cuda: module has %d state rows for %d variables",
                   mod->comp, lay->nvars);
    goto fail;
  }
  size_t bytes = (size_t)(mod->comp ? mod->comp : lay->nvars) * (size_t)e->npad * e->esize;
  CUresult r = sdk_cu.MemAlloc(&e->st, bytes);
  if (r != CUDA_SUCCESS) {
    err = SDK_FAIL(eb, SDK_ERR_NOMEM,
                   "cuda: cannot allocate %.3g GiB of device memory for %lld paths x %d variables "
                   "(%s has %.3g GiB)",
                   (double)bytes / 1073741824.0, (long long)(lay->ngrid * lay->ppg), lay->nvars,
                   c->name, (double)c->mem / 1073741824.0);
    e->st = 0;
    goto fail;
  }
  /* chunk results: moments (3 doubles + 1 int per variable) or min/max */
  size_t nchunks = (size_t)(lay->ngrid * e->nch);
  e->red_bytes = nchunks * (size_t)lay->nvars * (3 * sizeof(double) + sizeof(int));
  if (e->red_bytes < nchunks * 2 * sizeof(double)) e->red_bytes = nchunks * 2 * sizeof(double);
  if ((r = sdk_cu.MemAlloc(&e->red, e->red_bytes)) != CUDA_SUCCESS) {
    e->red = 0;
    err = sdk_cu_fail(eb, "cuMemAlloc", r);
    goto fail;
  }
  e->host = malloc(e->red_bytes);
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
  if ((r = sdk_cu.MemAlloc(&e->sv, svn * e->esize)) != CUDA_SUCCESS) {
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
  cuda_free(&e);
  return err;
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

static sdk_err cuda_advance(sdk_ensemble *e, int64_t step0, int64_t nsteps, uint64_t seed,
                            sdk_errbuf *eb) {
  long long npad = e->npad, ppg = e->lay.ppg, ngrid = e->lay.ngrid, path0 = e->lay.path0;
  long long s0 = step0, ns = nsteps;
  unsigned long long s = seed;
  void *args[] = {&e->st, &npad, &e->sv, &ppg, &ngrid, &path0, &s0, &ns, &s};
  e->last_ms = -1;
  if (!e->mod->advance)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL,
                    "this module integrates systems of particles (advance_sys)");
  if (!e->ev0 && (sdk_cu.EventCreate(&e->ev0, 0) != CUDA_SUCCESS ||
                  sdk_cu.EventCreate(&e->ev1, 0) != CUDA_SUCCESS))
    e->ev0 = e->ev1 = NULL;
  int timed = e->ev0 && sdk_cu.EventRecord(e->ev0, NULL) == CUDA_SUCCESS;
  CU(eb, CtxSetCurrent(e->ctx->cx));
  if (e->npad % (256 * e->mod->ilp))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "cuda: %lld paths are not a multiple of %d",
                    (long long)e->npad, 256 * e->mod->ilp);
  CUresult r = sdk_cu.LaunchKernel(e->mod->advance, (unsigned)(e->npad / (256 * e->mod->ilp)), 1, 1,
                                   256, 1, 1, 0, NULL, args, NULL);
  if (r != CUDA_SUCCESS) return sdk_cu_fail(eb, "cuLaunchKernel(sdk_advance)", r);
  timed = timed && sdk_cu.EventRecord(e->ev1, NULL) == CUDA_SUCCESS;
  if ((r = sdk_cu.CtxSynchronize()) != CUDA_SUCCESS)
    return sdk_cu_fail(eb, "cuCtxSynchronize after sdk_advance", r);
  float ms;
  if (timed && sdk_cu.EventElapsedTime(&ms, e->ev0, e->ev1) == CUDA_SUCCESS) e->last_ms = ms;
  return SDK_OK;
}

static double cuda_last_advance_ms(sdk_ensemble *e) {
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

/* Chunk moments of variables v0..v0+nvr-1 (or the displacement) on the
 * device; merged here in chunk order. */
static sdk_err chunk_moments(sdk_ensemble *e, int v0, int nvr, CUdeviceptr mark, double scale,
                             sdk_moments *out, int64_t *nonfinite, sdk_errbuf *eb) {
  long long npad = e->npad, ppg = e->lay.ppg, path0 = e->lay.path0, nch = e->nch;
  int a = v0, b = nvr;
  size_t nchunks = (size_t)(e->lay.ngrid * e->nch);
  CUdeviceptr dout = e->red, dnf = e->red + nchunks * (size_t)nvr * 3 * sizeof(double);
  void *args[] = {&e->st, &npad, &a, &b, &mark, &scale, &ppg, &path0, &nch, &dout, &dnf};
  SDK_CHECK(launch(e, e->mod->red_moments, "sdk_red_moments", (int64_t)nchunks, args, eb));
  size_t nbytes = nchunks * (size_t)nvr * (3 * sizeof(double) + sizeof(int));
  CU(eb, MemcpyDtoH(e->host, e->red, nbytes));
  const double *h = e->host;
  const int *hnf = (const int *)(h + nchunks * (size_t)nvr * 3);
  for (int64_t g = 0; g < e->lay.ngrid; g++) {
    int64_t nfmax = 0;
    for (int k = 0; k < nvr; k++) {
      sdk_moments tot = {0, 0, 0};
      int64_t nf = 0;
      for (int64_t c = 0; c < e->nch; c++) {
        size_t i = (size_t)((g * e->nch + c) * nvr + k);
        sdk_moments ch = {h[3 * i], h[3 * i + 1], h[3 * i + 2]};
        sdk_moments_merge(&tot, &ch);
        nf += hnf[i];
      }
      out[g * nvr + k] = tot;
      if (nf > nfmax) nfmax = nf;
    }
    if (nonfinite) nonfinite[g] = nfmax;
  }
  return SDK_OK;
}

static sdk_err cuda_moments(sdk_ensemble *e, sdk_moments *out, int64_t *nonfinite, sdk_errbuf *eb) {
  return chunk_moments(e, 0, e->lay.nvars, 0, 1.0, out, nonfinite, eb);
}

static sdk_err cuda_displacement(sdk_ensemble *e, int var, double scale, sdk_moments *out,
                                 sdk_errbuf *eb) {
  if (!e->mark) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "displacement before mark");
  return chunk_moments(e, var, 1, e->mark, scale, out, NULL, eb);
}

static sdk_err cuda_minmax(sdk_ensemble *e, int var, double *lo, double *hi, sdk_errbuf *eb) {
  long long npad = e->npad, ppg = e->lay.ppg, path0 = e->lay.path0, nch = e->nch;
  int v = var;
  size_t nchunks = (size_t)(e->lay.ngrid * e->nch);
  void *args[] = {&e->st, &npad, &v, &ppg, &path0, &nch, &e->red};
  SDK_CHECK(launch(e, e->mod->red_minmax, "sdk_red_minmax", (int64_t)nchunks, args, eb));
  CU(eb, MemcpyDtoH(e->host, e->red, nchunks * 2 * sizeof(double)));
  const double *h = e->host;
  for (int64_t g = 0; g < e->lay.ngrid; g++) {
    double a = INFINITY, b = -INFINITY;
    for (int64_t c = 0; c < e->nch; c++) {
      size_t i = (size_t)(g * e->nch + c);
      if (h[2 * i] < a) a = h[2 * i];
      if (h[2 * i + 1] > b) b = h[2 * i + 1];
    }
    lo[g] = a;
    hi[g] = b;
  }
  return SDK_OK;
}

static sdk_err cuda_histogram(sdk_ensemble *e, int var, int64_t bins, const double *lo,
                              const double *hi, uint64_t *counts, uint64_t *under, uint64_t *over,
                              sdk_errbuf *eb) {
  CU(eb, CtxSetCurrent(e->ctx->cx));
  int64_t ng = e->lay.ngrid;
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
    long long npad = e->npad, ppg = e->lay.ppg, ngrid = ng, path0 = e->lay.path0, nb = bins;
    int v = var;
    void *args[] = {&e->st, &npad, &v, &ppg, &ngrid, &path0, &nb, &dlo, &dhi, &dcnt, &dun, &dov};
    int64_t total = ng * e->lay.ppg;
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

static sdk_err cuda_read_state(sdk_ensemble *e, int64_t first, int64_t n, double *out,
                               sdk_errbuf *eb) {
  if (n <= 0) return SDK_OK;
  CU(eb, CtxSetCurrent(e->ctx->cx));
  void *tmp = malloc((size_t)n * e->esize);
  if (!tmp) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int v = 0; v < e->lay.nvars; v++) {
    CUdeviceptr src =
        e->st + (CUdeviceptr)(((size_t)v * (size_t)e->npad + (size_t)first) * e->esize);
    CUresult r = sdk_cu.MemcpyDtoH(tmp, src, (size_t)n * e->esize);
    if (r != CUDA_SUCCESS) {
      free(tmp);
      return sdk_cu_fail(eb, "cuMemcpyDtoH", r);
    }
    for (int64_t i = 0; i < n; i++)
      out[v * n + i] = e->esize == sizeof(float) ? (double)((float *)tmp)[i] : ((double *)tmp)[i];
  }
  free(tmp);
  return SDK_OK;
}

static int cuda_carried_rows(const sdk_ensemble *e) {
  return e->mod->comp ? e->mod->comp - e->lay.nvars : 0;
}

static sdk_err cuda_rows(sdk_ensemble *e, int row, int64_t first, int64_t n, double *buf, int write,
                         sdk_errbuf *eb) {
  if (n <= 0) return SDK_OK;
  CU(eb, CtxSetCurrent(e->ctx->cx));
  size_t rowbytes = (size_t)e->npad * e->esize;
  CUdeviceptr base;
  if (row < e->lay.nvars) {
    base = e->st + (CUdeviceptr)((size_t)row * rowbytes);
  } else if (row > e->lay.nvars) { /* carried rows of the compensated update */
    if (!e->mod->comp || row - 1 >= e->mod->comp)
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
  void *tmp = malloc((size_t)n * e->esize);
  if (!tmp) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  CUdeviceptr at = base + (CUdeviceptr)((size_t)first * e->esize);
  CUresult r = CUDA_SUCCESS;
  if (write) {
    for (int64_t i = 0; i < n; i++) {
      if (e->esize == sizeof(float))
        ((float *)tmp)[i] = (float)buf[i];
      else
        ((double *)tmp)[i] = buf[i];
    }
    r = sdk_cu.MemcpyHtoD(at, tmp, (size_t)n * e->esize);
  } else {
    r = sdk_cu.MemcpyDtoH(tmp, at, (size_t)n * e->esize);
    for (int64_t i = 0; r == CUDA_SUCCESS && i < n; i++)
      buf[i] = e->esize == sizeof(float) ? (double)((float *)tmp)[i] : ((double *)tmp)[i];
  }
  free(tmp);
  if (r != CUDA_SUCCESS) return sdk_cu_fail(eb, write ? "cuMemcpyHtoD" : "cuMemcpyDtoH", r);
  return SDK_OK;
}

/* ---- systems of interacting particles (codegen/sys_cuda.c) ---- */

static sdk_err sys_alloc(sdk_ensemble *e, sdk_errbuf *eb) {
  const int *info = e->mod->sys_info;
  int nred = info[0] > 0 ? info[0] : 1, chunk = info[4];
  int64_t N = e->lay.particles;
  e->sys.nsys = e->lay.ngrid * e->lay.ppg / N;
  e->sys.nchunk = (N + chunk - 1) / chunk;
  /* chunks per group: a function of N alone (so sums never depend on the
   * device or the kernel), about 1024 groups per system for big systems;
   * tuning.sys_cpb overrides it (SDK_SYS_CPB) */
  int64_t cpb = info[1] > 0 ? 1 : e->sys.nchunk / 1024;
  int forced = e->ctx->o.tuning.sys_cpb >= 1;
  if (forced && info[1] == 0) cpb = e->ctx->o.tuning.sys_cpb;
  if (cpb < 1) cpb = 1;
  if (cpb > 16 && !forced) cpb = 16;
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
    CUresult r = sdk_cu.MemAlloc(bufs[i].p, bufs[i].bytes);
    if (r != CUDA_SUCCESS) {
      *bufs[i].p = 0;
      return sdk_cu_fail(eb, "cuMemAlloc", r);
    }
  }
  CU(eb, MemsetD8(e->sys.cnt, 0, (size_t)e->sys.nsys * sizeof(unsigned)));
  CU(eb, MemsetD8(e->sys.gcnt, 0, (size_t)e->lay.ngrid * sizeof(unsigned)));
  e->sys.on = 1;
  return SDK_OK;
}

/* One launch of sdk_sys_step: mode 1 steps n -> n + 1, mode 0 only sums step n. */
static sdk_err sys_launch(sdk_ensemble *e, int64_t n, int mode, uint64_t seed, CUdeviceptr obs_row,
                          sdk_errbuf *eb) {
  int nred = e->mod->sys_info[0] > 0 ? e->mod->sys_info[0] : 1;
  size_t half = (size_t)(e->sys.nsys * nred) * sizeof(double);
  CUdeviceptr s_in = e->sys.sums + (CUdeviceptr)((size_t)(n & 1) * half);
  CUdeviceptr sout = e->sys.sums + (CUdeviceptr)((size_t)((n + mode) & 1) * half);
  CUdeviceptr out = e->mod->sys_info[1] > 0 && mode ? e->sys.st2 : e->st;
  long long npad = e->npad, ppg = e->lay.ppg, N = e->lay.particles, spg = e->lay.ppg / N, nn = n;
  int nchunk = (int)e->sys.nchunk, nblk = (int)e->sys.nblk, cpb = (int)e->sys.cpb, md = mode;
  unsigned long long sd = seed;
  void *args[] = {&e->st,  &out,         &npad,       &e->sv,       &ppg,         &N,      &spg,
                  &nchunk, &nblk,        &cpb,        &nn,          &sd,          &md,     &s_in,
                  &sout,   &e->sys.part, &e->sys.cnt, &e->sys.zsys, &e->sys.gcnt, &obs_row};
  unsigned grid = (unsigned)(e->sys.nsys * e->sys.nblk), tpb = (unsigned)e->mod->sys_info[5];
  CUresult r;
  /* (programmatic dependent launch, letting the next step's Gaussians overlap
   * this step's tail, measured no faster here and slower for pair systems on
   * the H100: docs/BENCHMARKS.md) */
  r = sdk_cu.LaunchKernel(e->mod->sys_step, grid, 1, 1, tpb, 1, 1, 0, NULL, args, NULL);
  if (r != CUDA_SUCCESS) return sdk_cu_fail(eb, "cuLaunchKernel(sdk_sys_step)", r);
  if (out != e->st) { /* pair models: the new state is in the other buffer */
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

static int sys_persist_shape(sdk_ensemble *e, int res, sys_shape *sh) {
  if (!e->sys.shape_known[res])
    e->sys.shape_known[res] = sys_persist_shape_(e, res, &e->sys.shape[res]) ? 1 : -1;
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
                    "SDK_SYS_KERNEL='%s': expected launch, persist, resident or auto", want);
  int kind = nsteps > 0 ? sys_choose(e, order, want, sh) : SYS_LAUNCH;
  if (kind < 0)
    return SDK_FAIL(
        eb, SDK_ERR_USAGE,
        "SDK_SYS_KERNEL=%s cannot run these systems here (it needs mean-field "
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
                        "work on it?), and SDK_SYS_KERNEL=%s asks for it",
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

static sdk_err sdk_cuda_advance_sys(sdk_ensemble *e, int64_t step0, int64_t nsteps, uint64_t seed,
                                    int64_t obs_every, double *obs, sdk_errbuf *eb) {
  if (!e->mod->sys_step || e->lay.particles < 1 || e->lay.path0 != 0 ||
      e->lay.ppg % e->lay.particles)
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

static sdk_err cuda_histogram_mod(sdk_ensemble *e, int var, int64_t bins, double period,
                                  uint64_t *counts, sdk_errbuf *eb) {
  if (!e->mod->red_hist_mod)
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "cuda: this kernel module has no periodic histogram");
  CU(eb, CtxSetCurrent(e->ctx->cx));
  int64_t ng = e->lay.ngrid, total = ng * e->lay.ppg;
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
    long long npad = e->npad, ppg = e->lay.ppg, ngrid = ng, b = bins, pr = per;
    int v = var;
    double P = period;
    void *args[] = {&e->st, &npad, &v, &ppg, &ngrid, &b, &P, &pr, &shbins, &d};
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

/* List the devices (for `sdekit devices`); returns the number found. */
sdk_err sdk_cuda_list_devices(const sdk_backend_opts *o, FILE *out, int *count, sdk_errbuf *eb) {
  *count = 0;
  if (!sdk_cu_load()) return SDK_FAIL(eb, SDK_ERR_BACKEND, "%s", sdk_cu.why);
  CUresult r = sdk_cu.Init(0);
  int n = 0;
  if (r == CUDA_SUCCESS) r = sdk_cu.DeviceGetCount(&n);
  if (r == CUDA_ERROR_NO_DEVICE || (r == CUDA_SUCCESS && n == 0))
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "no CUDA device");
  if (r != CUDA_SUCCESS) return sdk_cu_fail(eb, "cuInit", r);
  int drv = 0;
  sdk_cu.DriverGetVersion(&drv);
  fprintf(out, "CUDA driver %d.%d; NVRTC %s\n", drv / 1000, (drv % 1000) / 10,
          sdk_nv_load(&o->env) ? "found" : "not found (needed to run kernels)");
  if (sdk_nv.ok) fprintf(out, "NVRTC %d.%d: %s\n", sdk_nv.major, sdk_nv.minor, sdk_nv.path);
  fprintf(out, "%-7s %-32s %-8s %5s %10s\n", "device", "name", "arch", "SMs", "memory");
  for (int i = 0; i < n; i++) {
    CUdevice d;
    char name[256] = "?";
    int sms = 0, ma = 0, mi = 0;
    size_t mem = 0;
    CU(eb, DeviceGet(&d, i));
    CU(eb, DeviceGetName(name, (int)sizeof name, d));
    CU(eb, DeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d));
    CU(eb, DeviceGetAttribute(&ma, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d));
    CU(eb, DeviceGetAttribute(&mi, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d));
    CU(eb, DeviceTotalMem(&mem, d));
    char arch[32];
    snprintf(arch, sizeof arch, "sm_%d%d", ma, mi);
    fprintf(out, "%-7d %-32s %-8s %5d %6.1f GiB\n", i, name, arch, sms, (double)mem / 1073741824.0);
  }
  *count = n;
  return SDK_OK;
}

const sdk_backend sdk_backend_cuda = {
    .name = "cuda",
    .open = cuda_open,
    .close = cuda_close,
    .describe = cuda_describe,
    .compile = sdk_cuda_compile,
    .module_free = sdk_cuda_module_free,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .init = cuda_init,
    .advance = cuda_advance,
    .mark = cuda_mark,
    .moments = cuda_moments,
    .displacement = cuda_displacement,
    .minmax = cuda_minmax,
    .histogram = cuda_histogram,
    .read_state = cuda_read_state,
    .last_advance_ms = cuda_last_advance_ms,
    .advance_sys = sdk_cuda_advance_sys,
    .histogram_mod = cuda_histogram_mod,
    .rows = cuda_rows,
    .carried_rows = cuda_carried_rows,
};

/* ---- the paper's PROG1 as a CUDA baseline for `sdekit bench` ----
 * Written here from the paper's description (Alg. 1 and 2): one thread per
 * path, a 32-bit xorshift generator per thread, two uniforms -> Box-Muller ->
 * two Gaussians per step, SRK2 for Eq. 1, float time t = t0 + i*dt, and
 * M = 100 steps per launch with the state in global memory between launches.
 * It is compiled with --use_fast_math like the original. */
static const char PROG1_SRC[] =
    "extern \"C\" __global__ void prog1(float *x_, float *v_, const float *a_, unsigned *seed_,\n"
    "                                  float t0, float dt, int m, float gamma, float omega,\n"
    "                                  float D, float f, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i >= n) return;\n"
    "  float x = x_[i], v = v_[i], a = a_[i];\n"
    "  unsigned s = seed_[i];\n"
    "  const float pi2 = 6.2831853f, sq = sqrtf(2.0f * gamma * D * dt);\n"
    "  for (int k = 0; k < m; k++) {\n"
    "    s ^= s << 13; s ^= s >> 17; s ^= s << 5;\n"
    "    float u1 = (s + 1.0f) * 2.3283064e-10f;\n"
    "    s ^= s << 13; s ^= s >> 17; s ^= s << 5;\n"
    "    float u2 = s * 2.3283064e-10f;\n"
    "    float r = sqrtf(-2.0f * logf(u1));\n"
    "    float n1 = r * cosf(pi2 * u2), n2 = r * sinf(pi2 * u2);\n"
    "    float psi = (n1 + n2) * 0.70710678f; /* one noise channel: both Gaussians used */\n"
    "    float t = t0 + k * dt;\n"
    "    float fx1 = v;\n"
    "    float fv1 = -gamma * v - pi2 * cosf(pi2 * x) + a * cosf(omega * t) + f;\n"
    "    float xt = x + dt * fx1, vt = v + dt * fv1 + sq * psi;\n"
    "    float fx2 = vt;\n"
    "    float fv2 = -gamma * vt - pi2 * cosf(pi2 * xt) + a * cosf(omega * (t + dt)) + f;\n"
    "    x = x + 0.5f * dt * (fx1 + fx2);\n"
    "    v = v + 0.5f * dt * (fv1 + fv2) + sq * psi;\n"
    "  }\n"
    "  x_[i] = x; v_[i] = v; seed_[i] = s;\n"
    "}\n";

/* The paper's PROG3 and PROG2 for the Kuramoto model (Eq. 2 with w_i = 0),
 * written from its description (Sec. 5): xorshift32 per particle and
 * Box-Muller as PROG1, Euler, --use_fast_math.
 *   PROG3: per step, a kernel sums sin x and cos x per block of 256 (shared
 *          memory tree), the partial sums go to the host, which adds them and
 *          launches the update with S and C as arguments.
 *   PROG2: per step, UpdateRHS sums sin(x_j - x_i) over tiles of 256 j in
 *          shared memory (tile = block, one i per thread), then AdvanceSystem. */
static const char PROG23_SRC[] =
    "extern \"C\" __global__ void prog3_sums(const float *x, int n, float *ps, float *pc) {\n"
    "  __shared__ float ss[256], sc[256];\n"
    "  const int t = threadIdx.x, i = blockIdx.x * 256 + t;\n"
    "  const float xi = i < n ? x[i] : 0.0f;\n"
    "  ss[t] = i < n ? sinf(xi) : 0.0f;\n"
    "  sc[t] = i < n ? cosf(xi) : 0.0f;\n"
    "  __syncthreads();\n"
    "  for (int o = 128; o > 0; o >>= 1) {\n"
    "    if (t < o) { ss[t] += ss[t + o]; sc[t] += sc[t + o]; }\n"
    "    __syncthreads();\n"
    "  }\n"
    "  if (t == 0) { ps[blockIdx.x] = ss[0]; pc[blockIdx.x] = sc[0]; }\n"
    "}\n"
    "__device__ float gauss(unsigned &s) {\n"
    "  s ^= s << 13; s ^= s >> 17; s ^= s << 5;\n"
    "  const float u1 = (s + 1.0f) * 2.3283064e-10f;\n"
    "  s ^= s << 13; s ^= s >> 17; s ^= s << 5;\n"
    "  const float u2 = s * 2.3283064e-10f;\n"
    "  return sqrtf(-2.0f * logf(u1)) * cosf(6.2831853f * u2);\n"
    "}\n"
    "extern \"C\" __global__ void prog3_advance(float *x, unsigned *seed, int n, float S, float "
    "C,\n"
    "                                         float K, float dt, float sq) {\n"
    "  const int i = blockIdx.x * 256 + threadIdx.x;\n"
    "  if (i >= n) return;\n"
    "  float xi = x[i];\n"
    "  unsigned s = seed[i];\n"
    "  xi += dt * K * (S * cosf(xi) - C * sinf(xi)) + sq * gauss(s);\n"
    "  x[i] = xi; seed[i] = s;\n"
    "}\n"
    "extern \"C\" __global__ void prog2_rhs(const float *x, float *rhs, int n) {\n"
    "  __shared__ float sx[256];\n"
    "  const int t = threadIdx.x, i = blockIdx.x * 256 + t;\n"
    "  const float xi = i < n ? x[i] : 0.0f;\n"
    "  float acc = 0.0f;\n"
    "  for (int tile = 0; tile * 256 < n; tile++) {\n"
    "    const int j = tile * 256 + t;\n"
    "    __syncthreads();\n"
    "    sx[t] = j < n ? x[j] : 0.0f;\n"
    "    __syncthreads();\n"
    "    if (n - tile * 256 >= 256) {\n"
    "#pragma unroll 8\n"
    "      for (int jj = 0; jj < 256; jj++) acc += sinf(sx[jj] - xi);\n"
    "    } else {\n"
    "      for (int jj = 0; jj < n - tile * 256; jj++) acc += sinf(sx[jj] - xi);\n"
    "    }\n"
    "  }\n"
    "  if (i < n) rhs[i] = acc;\n"
    "}\n"
    "extern \"C\" __global__ void prog2_advance(float *x, const float *rhs, unsigned *seed, int "
    "n,\n"
    "                                         float KN, float dt, float sq) {\n"
    "  const int i = blockIdx.x * 256 + threadIdx.x;\n"
    "  if (i >= n) return;\n"
    "  unsigned s = seed[i];\n"
    "  x[i] += dt * KN * rhs[i] + sq * gauss(s);\n"
    "  seed[i] = s;\n"
    "}\n";

static int cmp_d(const void *a, const void *b);

/* A driver call of the programs below: on failure, its error in err (with
 * CUresult r) and to the cleanup at out. */
#define BCU(call)                                                                                  \
  do {                                                                                             \
    if ((r = (call)) != CUDA_SUCCESS) {                                                            \
      err = sdk_cu_fail(eb, #call, r);                                                             \
      goto out;                                                                                    \
    }                                                                                              \
  } while (0)

/* A program compiled as the paper's were: for the device, with fast math. */
static sdk_err compile_prog(sdk_bctx *c, const char *src, const char *name, char **bin, size_t *len,
                            sdk_errbuf *eb) {
  char arch[64];
  snprintf(arch, sizeof arch, "--gpu-architecture=%s", c->arch);
  const char *opts[] = {arch, "--use_fast_math", "-default-device"};
  char *log = NULL;
  SDK_CHECK(sdk_cuda_nvrtc(c, src, NULL, opts, 3, name, bin, len, &log, eb));
  free(log);
  return SDK_OK;
}

/* The median of v[0..n) (reorders v). */
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return v[n / 2];
}

/* Milliseconds from e0 (recorded) to now: record e1 and wait for it. */
static CUresult event_ms(CUevent e0, CUevent e1, float *ms) {
  CUresult r = sdk_cu.EventRecord(e1, NULL);
  if (r == CUDA_SUCCESS) r = sdk_cu.EventSynchronize(e1);
  if (r == CUDA_SUCCESS) r = sdk_cu.EventElapsedTime(ms, e0, e1);
  return r;
}

sdk_err sdk_cuda_bench_kuramoto_paper(sdk_bctx *c, int pairs, int64_t particles, int64_t steps,
                                      int repeats, double *median_ms, double *r_end,
                                      sdk_errbuf *eb) {
  if (!c->has_device)
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "cuda: no device to run the baseline on");
  if (particles < 1 || particles > 0x7fffff00 || repeats < 1)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "cuda: baseline size out of range");
  char *bin = NULL;
  size_t len = 0;
  SDK_CHECK(compile_prog(c, PROG23_SRC, "prog23.cu", &bin, &len, eb));
  const char *dump = c->o.tuning.baseline_cubin; /* for SASS comparisons */
  if (dump && *dump && sdk_atomic_write(dump, bin, len, 0, NULL) != SDK_OK)
    sdk_log(c->o.logger, SDK_LOG_WARN, "sdekit: warning: could not write %s\n", dump);
  sdk_err err = SDK_OK;
  CUmodule mod = NULL;
  CUfunction f1, f2;
  CUdeviceptr x = 0, sd = 0, aux = 0, aux2 = 0;
  CUevent e0 = NULL, e1 = NULL;
  int n = (int)particles;
  unsigned blocks = (unsigned)((n + 255) / 256);
  float *hx = malloc((size_t)n * sizeof *hx), *hp = malloc((size_t)blocks * 2 * sizeof *hp);
  unsigned *hs = malloc((size_t)n * sizeof *hs);
  double *ms = calloc((size_t)repeats, sizeof *ms);
  CUresult r;
  if (!hx || !hp || !hs || !ms) {
    err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    goto out;
  }
  BCU(sdk_cu.CtxSetCurrent(c->cx));
  BCU(sdk_cu.ModuleLoadData(&mod, bin));
  BCU(sdk_cu.ModuleGetFunction(&f1, mod, pairs ? "prog2_rhs" : "prog3_sums"));
  BCU(sdk_cu.ModuleGetFunction(&f2, mod, pairs ? "prog2_advance" : "prog3_advance"));
  BCU(sdk_cu.MemAlloc(&x, (size_t)n * 4));
  BCU(sdk_cu.MemAlloc(&sd, (size_t)n * 4));
  BCU(sdk_cu.MemAlloc(&aux, pairs ? (size_t)n * 4 : (size_t)blocks * 4));
  BCU(sdk_cu.MemAlloc(&aux2, (size_t)blocks * 4));
  BCU(sdk_cu.EventCreate(&e0, 0));
  BCU(sdk_cu.EventCreate(&e1, 0));
  const float K = 4.0f, T = 1.0f, dt = 1.0f / 128, sq = sqrtf(2.0f * T * dt), KN = K / (float)n;
  for (int rep = -1; rep < repeats; rep++) { /* rep -1: warm-up */
    /* uniform initial phases, host-chosen seeds (as the paper's programs) */
    uint32_t h = 2463534242u + (uint32_t)rep;
    for (int i = 0; i < n; i++) {
      h ^= h << 13, h ^= h >> 17, h ^= h << 5;
      hs[i] = h ? h : 1;
      hx[i] = 6.2831853f * (float)(h >> 8) * (1.0f / 16777216.0f);
    }
    BCU(sdk_cu.MemcpyHtoD(sd, hs, (size_t)n * 4));
    BCU(sdk_cu.MemcpyHtoD(x, hx, (size_t)n * 4));
    BCU(sdk_cu.EventRecord(e0, NULL));
    for (int64_t k = 0; k < steps; k++) {
      if (pairs) {
        void *a1[] = {&x, &aux, &n};
        BCU(sdk_cu.LaunchKernel(f1, blocks, 1, 1, 256, 1, 1, 0, NULL, a1, NULL));
        float kn = KN, d = dt, q = sq;
        void *a2[] = {&x, &aux, &sd, &n, &kn, &d, &q};
        BCU(sdk_cu.LaunchKernel(f2, blocks, 1, 1, 256, 1, 1, 0, NULL, a2, NULL));
      } else {
        void *a1[] = {&x, &n, &aux, &aux2};
        BCU(sdk_cu.LaunchKernel(f1, blocks, 1, 1, 256, 1, 1, 0, NULL, a1, NULL));
        BCU(sdk_cu.MemcpyDtoH(hp, aux, (size_t)blocks * 4));
        BCU(sdk_cu.MemcpyDtoH(hp + blocks, aux2, (size_t)blocks * 4));
        double S = 0, C = 0;
        for (unsigned b = 0; b < blocks; b++)
          S += hp[b], C += hp[blocks + b];
        float Sf = (float)(S / n), Cf = (float)(C / n), k4 = K, d = dt, q = sq;
        void *a2[] = {&x, &sd, &n, &Sf, &Cf, &k4, &d, &q};
        BCU(sdk_cu.LaunchKernel(f2, blocks, 1, 1, 256, 1, 1, 0, NULL, a2, NULL));
      }
    }
    float t;
    BCU(event_ms(e0, e1, &t));
    if (rep >= 0) ms[rep] = t;
  }
  *median_ms = median(ms, repeats);
  /* the final order parameter, a check that the baseline integrates the model */
  BCU(sdk_cu.MemcpyDtoH(hx, x, (size_t)n * 4));
  double S = 0, C = 0;
  for (int i = 0; i < n; i++)
    S += sin(hx[i]), C += cos(hx[i]);
  *r_end = sqrt(S * S + C * C) / n;
out:
  if (e0) sdk_cu.EventDestroy(e0);
  if (e1) sdk_cu.EventDestroy(e1);
  CUdeviceptr bufs[] = {x, sd, aux, aux2};
  for (int i = 0; i < 4; i++)
    if (bufs[i]) sdk_cu.MemFree(bufs[i]);
  if (mod) sdk_cu.ModuleUnload(mod);
  free(bin);
  free(hx);
  free(hp);
  free(hs);
  free(ms);
  return err;
}

sdk_err sdk_cuda_bench_copy(sdk_bctx *c, size_t bytes, int repeats, double *GBps, sdk_errbuf *eb) {
  if (!c->has_device) return SDK_FAIL(eb, SDK_ERR_BACKEND, "cuda: no device");
  CU(eb, CtxSetCurrent(c->cx));
  CUdeviceptr a = 0, b = 0;
  CUevent e0 = NULL, e1 = NULL;
  double ms[32];
  if (repeats > 32) repeats = 32;
  if (repeats < 1) repeats = 1;
  sdk_err err = SDK_OK;
  CUresult r;
  if ((r = sdk_cu.MemAlloc(&a, bytes)) != CUDA_SUCCESS ||
      (r = sdk_cu.MemAlloc(&b, bytes)) != CUDA_SUCCESS ||
      (r = sdk_cu.MemsetD8(a, 1, bytes)) != CUDA_SUCCESS ||
      (r = sdk_cu.EventCreate(&e0, 0)) != CUDA_SUCCESS ||
      (r = sdk_cu.EventCreate(&e1, 0)) != CUDA_SUCCESS) {
    err = sdk_cu_fail(eb, "copy benchmark setup", r);
    goto out;
  }
  for (int i = -1; i < repeats; i++) {
    float t;
    if ((r = sdk_cu.EventRecord(e0, NULL)) != CUDA_SUCCESS ||
        (r = sdk_cu.MemcpyDtoD(b, a, bytes)) != CUDA_SUCCESS ||
        (r = sdk_cu.EventRecord(e1, NULL)) != CUDA_SUCCESS ||
        (r = sdk_cu.EventSynchronize(e1)) != CUDA_SUCCESS ||
        (r = sdk_cu.EventElapsedTime(&t, e0, e1)) != CUDA_SUCCESS) {
      err = sdk_cu_fail(eb, "copy benchmark", r);
      goto out;
    }
    if (i >= 0) ms[i] = t;
  }
  *GBps = 2.0 * (double)bytes / (median(ms, repeats) * 1e-3) / 1e9;
out:
  if (e0) sdk_cu.EventDestroy(e0);
  if (e1) sdk_cu.EventDestroy(e1);
  if (a) sdk_cu.MemFree(a);
  if (b) sdk_cu.MemFree(b);
  return err;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

sdk_err sdk_cuda_bench_prog1(sdk_bctx *c, int64_t paths, int64_t steps, int repeats,
                             double *median_ms, double *checksum, sdk_errbuf *eb) {
  if (!c->has_device)
    return SDK_FAIL(eb, SDK_ERR_BACKEND, "cuda: no device to run the baseline on");
  char *bin = NULL;
  size_t len = 0;
  SDK_CHECK(compile_prog(c, PROG1_SRC, "prog1.cu", &bin, &len, eb));
  sdk_err err = SDK_OK;
  CUmodule mod = NULL;
  CUfunction fn;
  CUdeviceptr x = 0, v = 0, a = 0, sd = 0;
  CUevent e0 = NULL, e1 = NULL;
  float *hf = NULL;
  unsigned *hs = NULL;
  double *ms = calloc((size_t)repeats, sizeof *ms);
  int n = (int)paths;
  CUresult r;
  BCU(sdk_cu.CtxSetCurrent(c->cx));
  BCU(sdk_cu.ModuleLoadData(&mod, bin));
  BCU(sdk_cu.ModuleGetFunction(&fn, mod, "prog1"));
  hf = malloc((size_t)n * sizeof *hf);
  hs = malloc((size_t)n * sizeof *hs);
  if (!hf || !hs || !ms) {
    err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    goto out;
  }
  BCU(sdk_cu.MemAlloc(&x, (size_t)n * 4));
  BCU(sdk_cu.MemAlloc(&v, (size_t)n * 4));
  BCU(sdk_cu.MemAlloc(&a, (size_t)n * 4));
  BCU(sdk_cu.MemAlloc(&sd, (size_t)n * 4));
  /* initial conditions as PROG1: x in [0,1), v in [-2,2), host-chosen seeds */
  uint32_t h = 2463534242u;
  for (int i = 0; i < n; i++) {
    h ^= h << 13, h ^= h >> 17, h ^= h << 5;
    hs[i] = h ? h : 1;
  }
  BCU(sdk_cu.MemcpyHtoD(sd, hs, (size_t)n * 4));
  for (int i = 0; i < n; i++)
    hf[i] = (float)(hs[i] >> 8) * (1.0f / 16777216.0f);
  BCU(sdk_cu.MemcpyHtoD(x, hf, (size_t)n * 4));
  for (int i = 0; i < n; i++)
    hf[i] = 4.0f * (float)((hs[i] * 2654435761u) >> 8) / 16777216.0f - 2.0f;
  BCU(sdk_cu.MemcpyHtoD(v, hf, (size_t)n * 4));
  for (int i = 0; i < n; i++)
    hf[i] = 4.2f + 9.9f * (float)(i % 100) / 99.0f; /* 100 values of a */
  BCU(sdk_cu.MemcpyHtoD(a, hf, (size_t)n * 4));
  BCU(sdk_cu.EventCreate(&e0, 0));
  BCU(sdk_cu.EventCreate(&e1, 0));
  float gamma = 0.9f, omega = 4.9f, D = 0.001f, f = 0.1f, dt = 6.2831853f / omega / 100.0f;
  int m = 100;
  unsigned blocks = (unsigned)((n + 255) / 256);
  int64_t launches = steps / m > 0 ? steps / m : 1;
  for (int rep = -1; rep < repeats; rep++) { /* rep -1: warm-up */
    BCU(sdk_cu.EventRecord(e0, NULL));
    for (int64_t l = 0; l < launches; l++) {
      float t0 = (float)(l * m) * dt;
      void *args[] = {&x, &v, &a, &sd, &t0, &dt, &m, &gamma, &omega, &D, &f, &n};
      BCU(sdk_cu.LaunchKernel(fn, blocks, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    }
    float t;
    BCU(event_ms(e0, e1, &t));
    if (rep >= 0) ms[rep] = t;
  }
  *median_ms = median(ms, repeats) * (double)steps / (double)(launches * m);
  BCU(sdk_cu.MemcpyDtoH(hf, x, (size_t)n * 4));
  double sum = 0;
  for (int i = 0; i < n; i++)
    sum += hf[i];
  *checksum = sum / n;
out:
  if (e0) sdk_cu.EventDestroy(e0);
  if (e1) sdk_cu.EventDestroy(e1);
  if (x) sdk_cu.MemFree(x);
  if (v) sdk_cu.MemFree(v);
  if (a) sdk_cu.MemFree(a);
  if (sd) sdk_cu.MemFree(sd);
  if (mod) sdk_cu.ModuleUnload(mod);
  free(bin);
  free(hf);
  free(hs);
  free(ms);
  return err;
}
