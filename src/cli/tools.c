/* sdekit compile / devices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "cli/env.h"
#include "core/escape.h"
#include "model/model.h"
#include "sim/run.h"

static int fail(sdk_err e, const sdk_errbuf *eb) {
  cli_error("%s", eb->msg[0] ? eb->msg : sdk_err_name(e));
  return sdk_err_exit_status(e);
}

int sdk_cli_devices(int argc, char **argv) {
  if (argc > 1) {
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
      printf("usage: sdekit devices\n\nList the CUDA devices (ordinal, name, compute capability, "
             "multiprocessors, memory).\n");
      return 0;
    }
    cli_error("unexpected argument '%s' (usage: sdekit devices)\n", argv[1]);
    return 2;
  }
  sdk_errbuf eb = {0};
  int n = 0;
  sdk_backend_opts bo = {0}; /* where NVRTC is searched */
  sdk_err e = sdk_cli_env_backend(&bo.env, &eb);
  if (e == SDK_OK) e = sdk_cuda_list_devices(&bo, stdout, &n, &eb);
  if (e != SDK_OK) return fail(e, &eb);
  return 0;
}

/* Generate and compile the kernels of a run (no run).  CUDA with an --arch
 * needs NVRTC only (no driver, no GPU); without one it compiles for the
 * device --device.  Prints what was built and its resources. */
int sdk_cli_compile_cfg(const sdk_run_config *c, const char *arch, int cuda) {
  sdk_errbuf eb = {0};
  if (arch && !cuda) {
    cli_error("--arch applies to --backend cuda only\n");
    return 2;
  }
  const sdk_backend *be = cuda ? &sdk_backend_cuda : &sdk_backend_cpu;
  sdk_model *m = NULL;
  sdk_err e = sdk_model_load_from(c->model, c->model_search_path, &m, &eb);
  if (e != SDK_OK) return fail(e, &eb);
  char *src = NULL;
  sdk_bctx *ctx = NULL;
  sdk_module *mod = NULL;
  e = sdk_run_codegen(c, cuda, &src, &eb);
  if (e == SDK_OK) {
    sdk_backend_opts bo = {.threads = c->threads,
                           .device = c->device,
                           .fast_math = c->fast_math,
                           .cache_max = c->cache_max,
                           .arch = arch,
                           .env = c->env,
                           .tuning = c->tuning,
                           .logger = c->logger};
    e = be->open(&bo, &ctx, &eb);
  }
  char report[4400] = "", where[512] = "", ename[1024];
  if (e == SDK_OK) {
    be->describe(ctx, where, sizeof where);
    e = be->compile(ctx, src, m->path, &mod, report, sizeof report, &eb);
  }
  if (e == SDK_OK)
    printf("sdekit: %s: %s precision, %s, %sfast-math, on %s\nsdekit: %s\n",
           sdk_esc_term_buf(m->name, ename, sizeof ename), c->single ? "single" : "double",
           c->scheme ? c->scheme
           : m->multiplicative || m->interacting || m->npart ||
                   (c->observe && strstr(c->observe, "order"))
               ? "euler"
               : "srk2",
           c->fast_math ? "" : "no ", where, report);
  if (be->module_free) be->module_free(&mod);
  if (ctx) be->close(&ctx);
  free(src);
  sdk_model_destroy(&m);
  return e == SDK_OK ? 0 : fail(e, &eb);
}
