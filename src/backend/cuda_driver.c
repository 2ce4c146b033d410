/* CUDA backend, the driver: libcuda and NVRTC are not linked but dlopen'ed
 * when the backend is opened, so the same binary runs the CPU backend on
 * machines without a GPU or toolkit, and `sdekit compile --arch sm_XY` needs
 * NVRTC only.  Their entry points fill the tables sdk_cu and sdk_nv
 * (cuda_internal.h). */
#include <dlfcn.h>
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "backend/cuda_internal.h"

sdk_cu_api sdk_cu;
sdk_nvrtc_api sdk_nv;

/* The driver and NVRTC are loaded once per process, whichever thread asks
 * first (runs in distinct threads may open backends at the same time). */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static int cu_load_locked(void);
static int nv_load_locked(const sdk_backend_env *env);

int sdk_cu_load(void) {
  pthread_mutex_lock(&load_lock);
  int ok = cu_load_locked();
  pthread_mutex_unlock(&load_lock);
  return ok;
}

int sdk_nv_load(const sdk_backend_env *env) {
  pthread_mutex_lock(&load_lock);
  int ok = nv_load_locked(env);
  pthread_mutex_unlock(&load_lock);
  return ok;
}

#define SYM(tab, field, name)                                                                      \
  do {                                                                                             \
    *(void **)&tab.field = dlsym(tab.dl, name);                                                    \
    if (!tab.field) {                                                                              \
      missing = name;                                                                              \
      goto bad;                                                                                    \
    }                                                                                              \
  } while (0)

static int cu_load_locked(void) {
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
  *(void **)&sdk_cu.MemAllocHost = dlsym(sdk_cu.dl, "cuMemAllocHost_v2");
  *(void **)&sdk_cu.MemFreeHost = dlsym(sdk_cu.dl, "cuMemFreeHost");
  if (!sdk_cu.MemAllocHost || !sdk_cu.MemFreeHost) sdk_cu.MemAllocHost = NULL;
  *(void **)&sdk_cu.FuncSetAttribute = dlsym(sdk_cu.dl, "cuFuncSetAttribute");
  *(void **)&sdk_cu.LaunchCooperativeKernel = dlsym(sdk_cu.dl, "cuLaunchCooperativeKernel");
  *(void **)&sdk_cu.OccupancyMaxActiveBlocksPerMultiprocessor =
      dlsym(sdk_cu.dl, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  *(void **)&sdk_cu.StreamCreate = dlsym(sdk_cu.dl, "cuStreamCreate");
  *(void **)&sdk_cu.StreamDestroy = dlsym(sdk_cu.dl, "cuStreamDestroy_v2");
  if (!sdk_cu.StreamCreate || !sdk_cu.StreamDestroy) sdk_cu.StreamCreate = NULL;
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

static int nv_load_locked(const sdk_backend_env *env) {
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

sdk_err sdk_cu_fail(sdk_errbuf *eb, const char *call, CUresult r) {
  const char *name = NULL, *text = NULL;
  if (sdk_cu.GetErrorName) sdk_cu.GetErrorName(r, &name);
  if (sdk_cu.GetErrorString) sdk_cu.GetErrorString(r, &text);
  return SDK_FAIL(eb, SDK_ERR_BACKEND, "cuda: %s failed: %s (%s)", call, name ? name : "?",
                  text ? text : "unknown error");
}
