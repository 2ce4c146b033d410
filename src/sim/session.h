/* sdekit: a session, what a caller of many runs keeps open between them
 * (the C API's sdekit_session; Python keeps one per process).
 *
 * A run opens its backend and closes it at its end; on a GPU, closing the
 * last hold of the device's primary context destroys it, and the next run
 * makes it again (a tenth of a second to a second, docs/BENCHMARKS.md). A
 * session given to runs (sdk_run_config.session) keeps a hold of each device
 * backend a run opened, so that later runs find the context alive. It holds
 * no results and changes none.  It also keeps the modules (compiled
 * kernels loaded on a device) of its runs, so that a later run of the same
 * kernel on the same device loads nothing (its shelf, backend.h), and the
 * device memory of their paths (up to 16 blocks, the oldest released first;
 * all of a device's when an allocation there fails), so that a later run of
 * the same sizes allocates nothing: a session holds that memory on the device
 * between runs until it is destroyed. Runs of several threads may share
 * one session (the ranks of --device all: each holds its own GPU). */
#ifndef SDK_SESSION_H
#define SDK_SESSION_H

#include "backend/backend.h"

typedef struct sdk_session sdk_session;

sdk_err sdk_session_create(sdk_session **out, sdk_errbuf *eb);
/* Releases what it holds. */
void sdk_session_destroy(sdk_session **s);
/* After a run opened backend be with options bo: hold a context of it too,
 * once per (backend, device); nothing for a backend on the host, or when
 * opening fails (the run goes on: a session only saves time). */
void sdk_session_hold(sdk_session *s, const sdk_backend *be, const sdk_backend_opts *bo,
                      int device);
/* The shelf of its modules, for the backend options of its runs (NULL for
 * no session). */
const sdk_module_shelf *sdk_session_shelf(const sdk_session *s);
/* The identity of kernel source src (codegen/identity.h) as an earlier run
 * of the session computed it: 1 and out[] filled where a kept source is
 * equal to src byte for byte (the whole text compared, never a hash, so a
 * hit is exact), else 0 (also for no session).  A repeated run generates its
 * source but does not normalise and hash it again (issue 32: 0.16 ms of the
 * linear workload's 46 KB CUDA source on the build machine). */
int sdk_session_identity(sdk_session *s, const char *src, char out[33]);
/* Keep src and its identity for later runs (the newest IDENT_MAX; nothing
 * on no session or when out of memory: a session only saves time). */
void sdk_session_identity_put(sdk_session *s, const char *src, const char ident[33]);
/* The number of contexts held, and of modules kept (for tests). */
int sdk_session_held(const sdk_session *s);
int sdk_session_kept(const sdk_session *s);
/* The blocks of device memory kept (for tests). */
int sdk_session_kept_mem(const sdk_session *s);

#endif
