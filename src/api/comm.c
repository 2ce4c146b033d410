/* The public face of core/comm.h: a run over MPI ranks (include/sdekit.h). */
#include <stdlib.h>

#include "api/api.h"
#include "core/comm.h"

struct sdekit_comm {
  sdk_comm *comm;
};

SDEKIT_API int sdekit_mpi_available(void) {
  return sdk_comm_available();
}

SDEKIT_API sdekit_status sdekit_comm_world(sdekit_comm **out, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!out) return api_usage(err, "sdekit_comm_world: no place for the communicator");
  *out = NULL;
  sdekit_comm *c = calloc(1, sizeof *c);
  if (!c) return api_nomem(err);
  sdk_errbuf eb = {0};
  sdk_err e = sdk_comm_world(&c->comm, &eb);
  if (e != SDK_OK) {
    free(c);
    return api_fail(err, e, &eb);
  }
  *out = c;
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API void sdekit_comm_destroy(sdekit_comm **c) {
  if (!c || !*c) return;
  sdk_comm_destroy(&(*c)->comm);
  free(*c);
  *c = NULL;
}

SDEKIT_API int sdekit_comm_rank(const sdekit_comm *c) {
  return sdk_comm_rank(c ? c->comm : NULL);
}

SDEKIT_API int sdekit_comm_size(const sdekit_comm *c) {
  return sdk_comm_size(c ? c->comm : NULL);
}

SDEKIT_API int sdekit_comm_local_rank(const sdekit_comm *c) {
  return sdk_comm_local_rank(c ? c->comm : NULL);
}

SDEKIT_API int sdekit_comm_any(const sdekit_comm *c, int flag) {
  int64_t f = flag != 0;
  if (sdk_comm_allreduce(c ? c->comm : NULL, &f, 1, SDK_COMM_I64, SDK_COMM_MAX, NULL) != SDK_OK)
    return 1;
  return f != 0;
}

SDEKIT_API void sdekit_comm_abort(const sdekit_comm *c, int code) {
  sdk_comm_abort(c ? c->comm : NULL, code);
}

SDEKIT_API sdekit_status sdekit_config_set_comm(sdekit_config *c, const sdekit_comm *comm,
                                                sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!c) return api_usage(err, "no configuration");
  c->c.comm = comm ? comm->comm : NULL;
  api_ok(err);
  return SDEKIT_OK;
}
