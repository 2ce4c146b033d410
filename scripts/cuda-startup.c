/* The CUDA driver's start-up on N GPUs (docs/history/BENCHMARKS-development.md,
 * "Issues 32/33"): cuInit, each primary context (retain, make current, a first
 * allocation), one after another (seq) or from one thread each (par), and their release.
 * Build: cc -O2 -o cuda-startup scripts/cuda-startup.c -ldl -lpthread; run: ./cuda-startup par
 * (`./cuda-startup par keep`: the contexts are not released, the process exits holding them,
 * to time the driver's own teardown at exit from outside; `./cuda-startup kernel`: on GPU 0
 * alone, the floor of any CUDA program split into its parts: dlopen, cuInit, the context, loading
 * a module of one empty kernel (PTX, or the cubin FILE of `kernel FILE`), one launch and its
 * synchronisation, the release; issue 32's start-up breakdown, docs/BENCHMARKS.md). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef unsigned long long CUdeviceptr;
static CUresult (*Init)(unsigned);
static CUresult (*DeviceGet)(CUdevice *, int);
static CUresult (*Retain)(CUcontext *, CUdevice);
static CUresult (*Release)(CUdevice);
static CUresult (*SetCurrent)(CUcontext);
static CUresult (*MemAlloc)(CUdeviceptr *, size_t);
static CUresult (*MemFree)(CUdeviceptr);
static CUresult (*GetCount)(int *);
static CUresult (*ModLoad)(void **, const void *);
static CUresult (*ModFunc)(void **, void *, const char *);
static CUresult (*Launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                          unsigned, void *, void **, void **);
static CUresult (*Sync)(void);
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static double T0;
typedef struct {
  int d;
  double a, b, c;
  CUcontext cx;
} job;
static void *open1(void *p) {
  job *j = p;
  CUdevice dev;
  DeviceGet(&dev, j->d);
  j->a = now() - T0;
  Retain(&j->cx, dev);
  SetCurrent(j->cx);
  j->b = now() - T0;
  CUdeviceptr x;
  MemAlloc(&x, 1 << 20);
  MemFree(x);
  j->c = now() - T0;
  return NULL;
}
static void *close1(void *p) {
  job *j = p;
  Release(j->d);
  return NULL;
}
static const char EMPTY_PTX[] = ".version 7.8\n.target sm_90\n.address_size 64\n"
                                ".visible .entry sdk_empty()\n{\n ret;\n}\n";
/* the floor: one GPU, one empty kernel (kernel mode) */
static int kernel_floor(const char *cubin) {
  static char img[1 << 20];
  const void *image = EMPTY_PTX;
  if (cubin) {
    FILE *f = fopen(cubin, "rb");
    size_t n = f ? fread(img, 1, sizeof img, f) : 0;
    if (f) fclose(f);
    if (n == 0) return fprintf(stderr, "cuda-startup: cannot read %s\n", cubin), 1;
    image = img;
  }
  double t[7];
  t[0] = now() - T0;
  Init(0);
  t[1] = now() - T0;
  job j = {0};
  open1(&j);
  t[2] = now() - T0;
  void *mod = NULL, *fn = NULL;
  int rm = ModLoad(&mod, image), rf = rm ? rm : ModFunc(&fn, mod, "sdk_empty");
  t[3] = now() - T0;
  int rl = rf ? rf : Launch(fn, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
  int rs = rl ? rl : Sync();
  t[4] = now() - T0;
  Release(0);
  t[5] = now() - T0;
  if (rs) return fprintf(stderr, "cuda-startup: CUDA error %d\n", rs), 1;
  printf("kernel floor (%s): dlopen %.3f, cuInit %.3f, context %.3f, module load %.3f, launch + "
         "sync %.3f, release %.3f; in all %.3f s after main\n",
         cubin ? "cubin" : "PTX", t[0], t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3],
         t[5] - t[4], t[5]);
  return 0;
}
int main(int argc, char **argv) {
  int par = argc > 1 && !strcmp(argv[1], "par"), keep = argc > 2 && !strcmp(argv[2], "keep");
  T0 = now();
  void *h = dlopen("libcuda.so.1", RTLD_NOW);
#define L(v, n) *(void **)&v = dlsym(h, n)
  L(Init, "cuInit");
  L(DeviceGet, "cuDeviceGet");
  L(Retain, "cuDevicePrimaryCtxRetain");
  L(Release, "cuDevicePrimaryCtxRelease_v2");
  L(SetCurrent, "cuCtxSetCurrent");
  L(MemAlloc, "cuMemAlloc_v2");
  L(MemFree, "cuMemFree_v2");
  L(GetCount, "cuDeviceGetCount");
  L(ModLoad, "cuModuleLoadData");
  L(ModFunc, "cuModuleGetFunction");
  L(Launch, "cuLaunchKernel");
  L(Sync, "cuCtxSynchronize");
  if (argc > 1 && !strcmp(argv[1], "kernel")) return kernel_floor(argc > 2 ? argv[2] : NULL);
  double tl = now() - T0;
  Init(0);
  int n;
  GetCount(&n);
  double ti = now() - T0;
  job j[16];
  pthread_t th[16];
  for (int i = 0; i < n; i++) {
    j[i].d = i;
    if (par)
      pthread_create(&th[i], 0, open1, &j[i]);
    else
      open1(&j[i]);
  }
  if (par)
    for (int i = 0; i < n; i++)
      pthread_join(th[i], 0);
  double to = now() - T0;
  for (int i = 0; i < n && !keep; i++) {
    if (par)
      pthread_create(&th[i], 0, close1, &j[i]);
    else
      close1(&j[i]);
  }
  if (par && !keep)
    for (int i = 0; i < n; i++)
      pthread_join(th[i], 0);
  double tc = now() - T0;
  printf("%s n=%d: dlopen %.3f, cuInit %.3f;", par ? "threads" : "sequential", n, tl, ti - tl);
  for (int i = 0; i < n; i++)
    printf(" [%d: %.3f->%.3f ctx, %.3f alloc]", i, j[i].a, j[i].b, j[i].c);
  printf("; all open at %.3f, released in %.3f%s\n", to, tc - to, keep ? " (kept)" : "");
  return 0;
}
