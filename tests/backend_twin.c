/* A third backend, for tests/backend_row.c alone: the whole recipe of
 * docs/ARCHITECTURE.md "Add a backend" -- this one file and one row of the
 * registry (given to a copy of sim/registry.c compiled for that test:
 * SDK_EXTRA_BACKEND, tests/CMakeLists.txt).  It computes on the CPU through
 * the CPU backend's operations, under a row of its own: its name, its
 * description, its codegen target, no device, never chosen by --backend auto. */
#include "backend/backend.h"

#define CPU sdk_backend_cpu

static sdk_err t_open(const sdk_backend_opts *o, sdk_bctx **ctx, sdk_errbuf *eb) {
  return CPU.open(o, ctx, eb);
}
static void t_close(sdk_bctx **ctx) {
  CPU.close(ctx);
}
static void t_describe(sdk_bctx *ctx, char *buf, size_t n) {
  CPU.describe(ctx, buf, n);
}
static sdk_err t_compile(sdk_bctx *ctx, const char *src, const char *ident, const char *model_path,
                         sdk_module **mod, char *report, size_t nreport, sdk_errbuf *eb) {
  return CPU.compile(ctx, src, ident, model_path, mod, report, nreport, eb);
}
static sdk_err t_build_hash(sdk_bctx *ctx, const char *ident, char out[33], sdk_errbuf *eb) {
  return CPU.build_hash(ctx, ident, out, eb);
}
static void t_module_free(sdk_module **mod) {
  CPU.module_free(mod);
}
static sdk_err t_alloc(sdk_bctx *ctx, sdk_module *mod, const sdk_layout *lay, sdk_ensemble **ens,
                       sdk_errbuf *eb) {
  return CPU.alloc(ctx, mod, lay, ens, eb);
}
static void t_free(sdk_ensemble **ens) {
  CPU.free(ens);
}
static sdk_err t_init(sdk_ensemble *ens, uint64_t seed, sdk_errbuf *eb) {
  return CPU.init(ens, seed, eb);
}
static sdk_err t_advance(sdk_ensemble *ens, int64_t step0, int64_t nsteps, uint64_t seed,
                         sdk_errbuf *eb) {
  return CPU.advance(ens, step0, nsteps, seed, eb);
}
static sdk_err t_mark(sdk_ensemble *ens, int var, sdk_errbuf *eb) {
  return CPU.mark(ens, var, eb);
}
static sdk_err t_moments(sdk_ensemble *ens, sdk_moments *out, int64_t *nonfinite, sdk_errbuf *eb) {
  return CPU.moments(ens, out, nonfinite, eb);
}
static sdk_err t_displacement(sdk_ensemble *ens, int var, double scale, sdk_moments *out,
                              sdk_errbuf *eb) {
  return CPU.displacement(ens, var, scale, out, eb);
}
static sdk_err t_minmax(sdk_ensemble *ens, int var, double *lo, double *hi, sdk_errbuf *eb) {
  return CPU.minmax(ens, var, lo, hi, eb);
}
static sdk_err t_histogram(sdk_ensemble *ens, int var, int64_t bins, const double *lo,
                           const double *hi, uint64_t *counts, uint64_t *under, uint64_t *over,
                           sdk_errbuf *eb) {
  return CPU.histogram(ens, var, bins, lo, hi, counts, under, over, eb);
}
static sdk_err t_read_state(sdk_ensemble *ens, int64_t first, int64_t n, double *out,
                            sdk_errbuf *eb) {
  return CPU.read_state(ens, first, n, out, eb);
}
static sdk_err t_rows(sdk_ensemble *ens, int row, int64_t first, int64_t n, double *buf, int write,
                      sdk_errbuf *eb) {
  return CPU.rows(ens, row, first, n, buf, write, eb);
}
static int t_carried_rows(const sdk_ensemble *ens) {
  return CPU.carried_rows(ens);
}
static sdk_err t_advance_sys(sdk_ensemble *ens, int64_t step0, int64_t nsteps, uint64_t seed,
                             int64_t obs_every, double *obs, sdk_errbuf *eb) {
  return CPU.advance_sys(ens, step0, nsteps, seed, obs_every, obs, eb);
}
static int64_t t_sys_unit(sdk_bctx *ctx, sdk_module *mod, int64_t particles) {
  return CPU.sys_unit(ctx, mod, particles);
}
static sdk_err t_histogram_mod(sdk_ensemble *ens, int var, int64_t bins, double period,
                               uint64_t *counts, sdk_errbuf *eb) {
  return CPU.histogram_mod(ens, var, bins, period, counts, eb);
}
static sdk_err t_observe(sdk_ensemble *ens, int64_t step, int nobs, sdk_moments *out,
                         int64_t *nonfinite, int64_t *state_nonfinite, sdk_errbuf *eb) {
  return CPU.observe(ens, step, nobs, out, nonfinite, state_nonfinite, eb);
}
static sdk_err t_eval_observe(sdk_ensemble *ens, int64_t step, int nobs, sdk_errbuf *eb) {
  return CPU.eval_observe(ens, step, nobs, eb);
}
static sdk_err t_nonfinite(sdk_ensemble *ens, int64_t *count, sdk_errbuf *eb) {
  return CPU.nonfinite(ens, count, eb);
}

const sdk_backend sdk_backend_twin = {
    .name = "twin",
    .description = "the CPU's operations under a row of their own (a test of the backend recipe)",
    .target = SDK_TARGET_CPU,
    .bench_paths = 4096,
    .open = t_open,
    .close = t_close,
    .describe = t_describe,
    .compile = t_compile,
    .build_hash = t_build_hash,
    .module_free = t_module_free,
    .alloc = t_alloc,
    .free = t_free,
    .init = t_init,
    .advance = t_advance,
    .mark = t_mark,
    .moments = t_moments,
    .displacement = t_displacement,
    .minmax = t_minmax,
    .histogram = t_histogram,
    .read_state = t_read_state,
    .rows = t_rows,
    .carried_rows = t_carried_rows,
    .advance_sys = t_advance_sys,
    .sys_unit = t_sys_unit,
    .histogram_mod = t_histogram_mod,
    .observe = t_observe,
    .eval_observe = t_eval_observe,
    .nonfinite = t_nonfinite,
};
