/* sdekit: what the CPU backend's files share (not an interface of the
 * library: backend/cpu*.c).
 *
 *   cpu.c         the backend table: open, the ensemble's memory, launches,
 *                 reductions, rows
 *   cpu_module.c  the C compiler, the kernel cache, loading a module and
 *                 keeping it on a session's shelf
 *   cpu_reduce.c  the moments of many chunks side by side
 */
#ifndef SDK_CPU_INTERNAL_H
#define SDK_CPU_INTERNAL_H

#include "backend/backend.h"
#include "backend/cache.h"
#include "backend/cpu_reduce.h"

typedef void (*init_fn)(void *st, long long npad, const void *sv, long long ppg, long long ngrid,
                        long long path0, unsigned long long seed, int nthreads);
typedef void (*advance_fn)(void *st, long long npad, const void *sv, long long ppg, long long ngrid,
                           long long path0, long long step0, long long nsteps,
                           unsigned long long seed, int nthreads);
typedef int (*advance_sys_fn)(void *st, long long npad, const void *sv, long long ppg,
                              long long ngrid, long long path0, long long step0, long long nsteps,
                              unsigned long long seed, int nthreads, long long N,
                              long long obs_every, double *obs, long long nloc,
                              int (*xchg)(void *, double *), void *xu);

typedef void (*observe_fn)(const void *st, long long npad, const void *sv, long long ppg,
                           long long ngrid, long long path0, long long step, void *out,
                           int nthreads);

struct sdk_bctx {
  sdk_backend_opts o;
  char cc[512];
  char cflags[2048];
  char cpu_id[256];
  sdk_cache_place cache;
};

struct sdk_module {
  void *dl;
  init_fn init;
  advance_fn advance;
  advance_sys_fn advance_sys; /* system driver (interacting particles) */
  int sys_nred;               /* its sums per chunk (sdk_sys_nred) */
  observe_fn observe;         /* user observables (codegen/observe_paths.c), or NULL */
  int rows; /* rows of the state: sdk_state_rows (codegen.h: carried rows of the compensated
             * update, boundary rows, time averages), 0 when only the variables */
  sdk_cpu_parallel_fn parallel; /* the module's OpenMP team (cpu_reduce.h) */
  /* a session's shelf (backend.h) and the key it is kept under: a later run of
   * the same kernel takes the loaded module, reading and loading nothing */
  const sdk_module_shelf *shelf;
  char key[80];
};

/* backend.h build_hash: the key of the module of source `ident` */
sdk_err sdk_cpu_build_hash(sdk_bctx *c, const char *ident, char hash[33], sdk_errbuf *eb);
/* Compile src (its identity ident, NULL: computed) into a module, or take it
 * from the kernel cache or a session's shelf; report says which. */
sdk_err sdk_cpu_compile(sdk_bctx *c, const char *src, const char *ident, const char *model_path,
                        sdk_module **out, char *report, size_t nreport, sdk_errbuf *eb);
/* Give a module back: to its session's shelf, else unloaded. */
void sdk_cpu_module_free(sdk_module **m);

#endif
