/* CUDA backend: placeholder until the CUDA issue; reports unavailable. */
#include "backend/backend.h"

static sdk_err cuda_open(const sdk_backend_opts *o, sdk_bctx **ctx, sdk_errbuf *eb) {
  *ctx = NULL;
  return SDK_FAIL(eb, SDK_ERR_BACKEND, "the cuda backend is not built yet");
}
static void cuda_close(sdk_bctx **ctx) { (void)ctx; }

const sdk_backend sdk_backend_cuda = {.name = "cuda", .open = cuda_open, .close = cuda_close};
