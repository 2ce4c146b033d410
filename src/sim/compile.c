/* Generate and compile a run's kernel without running it (sim/run.h:
 * sdk_run_compile, for `sdekit compile`): the plan decides the scheme and
 * the kernel exactly as a run would. */
#include <stdlib.h>
#include <string.h>

#include "codegen/identity.h"
#include "sim/registry.h"
#include "sim/run_internal.h"

static int on_device(const sdk_backend *b) {
  return b->device;
}

sdk_err sdk_run_compile(const sdk_run_config *c, const sdk_backend *be, const char *arch,
                        sdk_compile_report *out, sdk_errbuf *eb) {
  memset(out, 0, sizeof *out);
  char names[256];
  if (arch && !be->device)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--arch applies to --backend %s only",
                    sdk_registry_backend_names(names, sizeof names, on_device, NULL, ", ", " or "));
  sdk_run *r = calloc(1, sizeof *r);
  if (!r) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_plan p;
  char *src = NULL;
  sdk_bctx *ctx = NULL;
  sdk_module *mod = NULL;
  sdk_err err = sdk_plan_make(c, r, &p, eb);
  if (err == SDK_OK) {
    sdk_codegen_opts o;
    sdk_plan_codegen_opts(&p, be->target, &o);
    err = sdk_codegen(&o, &src, eb);
  }
  if (err == SDK_OK) {
    sdk_backend_opts bo = {.threads = c->threads,
                           .device = c->device,
                           .fast_math = c->fast_math,
                           .cache_max = c->cache_max,
                           .arch = arch,
                           .env = c->env,
                           .tuning = c->tuning,
                           .logger = c->logger};
    err = be->open(&bo, &ctx, eb);
  }
  if (err == SDK_OK) {
    be->describe(ctx, out->where, sizeof out->where);
    char ident[33];
    err = sdk_cg_identity(src, ident, eb);
    if (err == SDK_OK)
      err = be->compile(ctx, src, ident, r->model->path, &mod, out->report, sizeof out->report, eb);
  }
  if (err == SDK_OK) {
    snprintf(out->model, sizeof out->model, "%s", r->model->name);
    snprintf(out->scheme, sizeof out->scheme, "%s", p.scheme->name);
    snprintf(out->precision, sizeof out->precision, "%s", c->single ? "single" : "double");
    out->fast_math = c->fast_math;
  }
  if (be->module_free) be->module_free(&mod);
  if (ctx) be->close(&ctx);
  free(src);
  sdk_plan_free(&p);
  sdk_run_destroy(&r);
  return err;
}
