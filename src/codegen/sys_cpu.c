/* CPU driver for systems of interacting particles (see sys.h).
 *
 * int sdk_advance_sys(st, npad, sv, ppg, ngrid, path0, step0, nsteps, seed,
 *                     nthreads, N, obs_every, obs, nloc, xchg, xu)
 * advances every system by nsteps Euler steps (nsteps = 0: nothing) and
 * writes the order parameter of the states it passes (see backend.h,
 * advance_sys).  Returns 0, or 1 when out of memory.
 *
 * One OpenMP parallel region runs all the steps; each step is
 *   - the sums of the reduced expressions per chunk of SDK_BLK particles of a
 *     system (chunks aligned to the system's start), then per system in chunk
 *     order: deterministic, whatever the thread count;
 *     over MPI ranks (mean field only) a shard holds the nloc particles from
 *     the global index path0 on, cut on chunks: it sums its own chunks, and
 *     xchg(xu, part) (the caller's, on the master thread) brings every other
 *     rank's chunk sums into part, so every rank adds the same numbers in the
 *     same order as one process holding all (xchg NULL: one shard);
 *   - the pair functions: particle i's sum over j in blocks of SDK_JB
 *     (float within a block, double across blocks), i vectorised;
 *   - the update per block of SDK_BLK particles.
 * Gaussians follow the system stream of rng/philox.h (domain 3): one Philox
 * block per four consecutive particles of a system and step.  When N is a
 * multiple of 4 those quads are aligned with the global index (quad p >> 2),
 * so a block of SDK_BLK particles draws SDK_BLK / 4 whole blocks; otherwise
 * every particle draws its quad's block and takes its lane.
 *
 * The fixed text is kernels/sys_cpu.h; this file writes the code of its
 * hooks: what depends on the model. */
#include <stdio.h>

#include "codegen/common.h"
#include "codegen/drivers.h"
#include "codegen/expr_emit.h"
#include "codegen/sys.h"

extern const char sdk_embedded_sys_cpu_h[];

/* what the hooks write from */
typedef struct {
  const sdk_codegen_opts *o;
  const sdk_cg_red *red;
} cpu_ctx;

static const sdk_codegen_opts *opts(const void *c) {
  return ((const cpu_ctx *)c)->o;
}

/* sdk_red_chunk: the parameters and times of step n */
static void hook_red_scope(sdk_emit *em, const void *c) {
  sdk_cg_sys_prologue(em, opts(c), 0);
}

/* sdk_red_chunk: particle p's reduced expressions, and their sums */
static void hook_red_values(sdk_emit *em, const void *c) {
  const cpu_ctx *x = c;
  const sdk_codegen_opts *o = x->o;
  sdk_cg_bind_vars(em, o->model, "sdk_st[%d * sdk_npad + sdk_p]");
  sdk_cg_part_bind(em, o, "sdk_pp[%d * sdk_npad + sdk_p]", 0);
  sdk_cg_bind_time(em, o, "sdk_t0", "sdk_tp0");
  for (int k = 0; k < x->red->n; k++) {
    sdk_em_start(em, "sdk_vals[%d][sdk_i] = ", k);
    sdk_cg_expr(em, o, x->red->e[k], x->red->line[k]);
    sdk_em_puts(em, ";\n");
  }
}

static void hook_red_sums(sdk_emit *em, const void *c) {
  for (int k = 0; k < ((const cpu_ctx *)c)->red->n; k++)
    sdk_em_line(em, "SDK_RED_SUM(%d)", k);
}

/* sdk_pair_chunk: the parameters and time of step n; particle j's values
 * and parameters; particle i's pair functions with j */
static void hook_pair_scope(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = opts(c);
  sdk_cg_sys_prologue(em, o, 0);
  sdk_cg_bind_time(em, o, "sdk_t0", "sdk_tp0");
}

static void hook_pair_j(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = opts(c);
  for (int v = 0; v < o->model->nvars; v++)
    sdk_em_line(em, "const real sdk_xj%d = sdk_st[%d * sdk_npad + sdk_q]; (void)sdk_xj%d;", v, v,
                v);
  sdk_cg_part_bind(em, o, "sdk_pp[%d * sdk_npad + sdk_q]", 1);
}

static void hook_pair_values(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = opts(c);
  const sdk_model *m = o->model;
  sdk_cg_bind_vars(em, m, "sdk_xi[%d][sdk_i]");
  sdk_cg_part_bind(em, o, "sdk_ppi[%d][sdk_i]", 0);
  for (int k = 0; k < m->npair; k++) {
    sdk_em_start(em, "sdk_acc[%d][sdk_i] += ", k);
    sdk_cg_expr(em, o, m->pair[k], m->pair_line[k]);
    sdk_em_puts(em, ";\n");
  }
}

/* sdk_advance_sys: the parameters of particle p (Philox domain 2) */
static void hook_draw(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = opts(c);
  sdk_cg_params(em, o, "sdk_sv[sdk_g * SDK_NSV + %d]");
  sdk_em_line(em, "(void)sdk_sqdt;");
  for (int k = 0; k < o->model->npart; k++) {
    if (sdk_cg_part_const(o, k)) continue;
    char dst[64];
    snprintf(dst, sizeof dst, "sdk_pp[%d * sdk_npad + sdk_p]", k);
    sdk_cg_part_draw(em, o, k, "sdk_path0 + sdk_p", dst);
  }
}

/* sdk_advance_sys: a quad's block of this step's noise (domain 3), quads
 * aligned with the global index (N % 4 == 0) or of particle p's system */
static void hook_noise_quad(sdk_emit *em, const void *c) {
  sdk_noise_block(em, sdk_cg_noise(opts(c)), "sdk_seed",
                  "(sdk_u64)((sdk_path0 + sdk_p0) >> 2) + (sdk_u64)sdk_q", "sdk_k", 3, "sdk_g4");
}

static void hook_noise_lane(sdk_emit *em, const void *c) {
  sdk_noise_block(em, sdk_cg_noise(opts(c)), "sdk_seed",
                  "(sdk_u64)(sdk_s * sdk_nq + (sdk_li >> 2))", "sdk_k", 3, "sdk_g4");
}

/* sdk_advance_sys: one step of particle p0 + i */
static void hook_update(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = opts(c);
  const sdk_model *m = o->model;
  int nv = m->nvars;
  sdk_cg_params(em, o, "sdk_spv[%d][sdk_i]");
  sdk_cg_step_time(em, o, "sdk_n", "");
  for (int v = 0; v < nv; v++)
    sdk_em_line(em, "real sdk_x%d = sdk_st[%d * sdk_npad + sdk_p0 + sdk_i];", v, v);
  sdk_cg_part_bind(em, o, "sdk_pp[%d * sdk_npad + sdk_p0 + sdk_i]", 0);
  sdk_cg_bind_coupling(em, m, 0, "sdk_mv[%d][sdk_i]");
  sdk_cg_bind_coupling(em, m, 1, "sdk_fp[%d * sdk_npad + sdk_p0 + sdk_i]");
  for (int j = 0; j < m->nnoise; j++)
    sdk_em_line(em, "const real sdk_z%d = sdk_zb[%d][sdk_i];", j, j);
  o->scheme->emit_step(em, o, NULL);
  for (int v = 0; v < nv; v++)
    sdk_em_line(em, "sdk_st[%d * sdk_npad + sdk_p0 + sdk_i] = sdk_x%d;", v, v);
}

void sdk_cg_sys_cpu(sdk_emit *em, const sdk_codegen_opts *o) {
  static const sdk_em_hook hooks[] = {{"red_scope", hook_red_scope},
                                      {"red_values", hook_red_values},
                                      {"red_sums", hook_red_sums},
                                      {"pair_scope", hook_pair_scope},
                                      {"pair_j", hook_pair_j},
                                      {"pair_values", hook_pair_values},
                                      {"draw", hook_draw},
                                      {"noise_quad", hook_noise_quad},
                                      {"noise_lane", hook_noise_lane},
                                      {"update", hook_update}};
  const sdk_model *m = o->model;
  sdk_cg_red red;
  if (sdk_cg_red_build(&red, o) != 0) {
    em->b->oom = 1;
    return;
  }
  int nred = red.n, nmean = m->nmean, npair = m->npair, ndraw = 0;
  for (int k = 0; k < m->npart; k++)
    ndraw += !sdk_cg_part_const(o, k);
  sdk_em_puts(em, "\n/* ---- systems of interacting particles ---- */\n");
  sdk_em_line(em, "#define SDK_NRED %d", nred > 0 ? nred : 1);
  sdk_em_line(em, "#define SDK_NMEAN %d", nmean > 0 ? nmean : 1);
  sdk_em_line(em, "#define SDK_NPAIR %d", npair > 0 ? npair : 1);
  sdk_em_line(em, "#define SDK_NPART %d", m->npart > 0 ? m->npart : 1);
  sdk_em_line(em, "#define SDK_JB 256");
  /* the kernel file's choices (kernels/sys_cpu.h) */
  sdk_em_line(em, "#define SDK_PAIRS %d", npair > 0);
  sdk_em_line(em, "#define SDK_NDRAW %d", ndraw);
  sdk_em_line(em, "#define SDK_NOISE_VPB %d", sdk_cg_noise(o)->values_per_block);
  sdk_em_line(em, "#define SDK_OCOS %d", red.ocos);
  sdk_em_line(em, "#define SDK_OSIN %d", red.osin);
  sdk_em_line(em, "int sdk_sys_nred(void) { return %d; }", nred);
  const cpu_ctx c = {o, &red};
  sdk_em_kernel_hooks(em, sdk_embedded_sys_cpu_h, hooks, sizeof hooks / sizeof *hooks, &c);
  sdk_cg_red_free(&red);
}
