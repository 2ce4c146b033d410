/* The CUDA driver's start-up on N GPUs (docs/history/BENCHMARKS-development.md,
 * "Issues 32/33"): cuInit, each primary context (retain, make current, a first
 * allocation), one after another (seq) or from one thread each (par), and their release.
 * Build: cc -O2 -o cuda-startup scripts/cuda-startup.c -ldl -lpthread; run: ./cuda-startup par
 * (`./cuda-startup par keep`: the contexts are not released, the process exits holding them,
 * to time the driver's own teardown at exit from outside). */
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
