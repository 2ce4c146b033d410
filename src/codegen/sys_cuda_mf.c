/* The CUDA kernels of mean-field models (sys_cuda.c has the contract): the
 * group function sdk_sys_group (kernels/sys_group.cuh, its chunks
 * kernels/sys_chunk.cuh), the per-step launch sdk_sys_step and sdk_sys_sums
 * (kernels/sys_step.cuh) and the persistent kernel sdk_sys_run
 * (kernels/sys_run.cuh).  This file writes the code of their hooks: what
 * depends on the model. */
#include <stdio.h>

#include "codegen/common.h"
#include "codegen/expr_emit.h"
#include "codegen/sys_cuda.h"

extern const char sdk_embedded_sys_group_cuh[], sdk_embedded_sys_chunk_cuh[],
    sdk_embedded_sys_run_cuh[];

/* what the hooks write from: the module, and the chunk's kind */
typedef struct {
  const sdk_codegen_opts *o;
  const sdk_cg_red *red;
  int part; /* the group's last, partial chunk (bounds-checked) */
} mf_ctx;

/* sdk_sys_group: the parameters and the times of steps n and n + 1 */
static void hook_params(sdk_emit *em, const void *c) {
  sdk_cg_sys_prologue(em, ((const mf_ctx *)c)->o, 1);
}

/* sdk_sys_group: the mean fields of step n from the system's sums */
static void hook_coupling(sdk_emit *em, const void *c) {
  sdk_cg_bind_coupling(em, ((const mf_ctx *)c)->o->model, 0,
                       "sdk_mode ? (real)(sdk_tot[%d] * sdk_invN) : (real)0");
}

/* sys_chunk.cuh: a quad's variables from xb (load) or back (store); a
 * whole chunk by vector accesses when N % 4 == 0 */
static void chunk_io(sdk_emit *em, const mf_ctx *c, int store) {
  int vec = c->o->particles % 4 == 0 && !c->part;
  for (int v = 0; v < c->o->model->nvars; v++) {
    if (vec) {
      sdk_em_start(em, "%s(sdk_xb + %d * sdk_vs + sdk_li + sdk_off, ",
                   store ? "SDK_ST4" : "SDK_LD4", v);
      for (int l = 0; l < 4; l++)
        sdk_em_printf(em, "%ssdk_xv[sdk_it][%d][%d]", l ? ", " : "", l, v);
      sdk_em_puts(em, ");\n");
      continue;
    }
    char xb[64];
    snprintf(xb, sizeof xb, "sdk_xb[%d * sdk_vs + sdk_li + sdk_off + sdk_l]", v);
    sdk_em_line(em, "#pragma unroll");
    sdk_em_start(em, "for (int sdk_l = 0; sdk_l < 4; sdk_l++) ");
    if (store)
      sdk_em_printf(em, "%s%s = sdk_xv[sdk_it][sdk_l][%d];\n",
                    c->part ? "if (sdk_li + sdk_l < sdk_glen) " : "", xb, v);
    else if (c->part)
      sdk_em_printf(em, "sdk_xv[sdk_it][sdk_l][%d] = sdk_li + sdk_l < sdk_glen ? %s : (real)0;\n",
                    v, xb);
    else
      sdk_em_printf(em, "sdk_xv[sdk_it][sdk_l][%d] = %s;\n", v, xb);
  }
}

static void hook_load(sdk_emit *em, const void *c) {
  chunk_io(em, c, 0);
}

static void hook_store(sdk_emit *em, const void *c) {
  chunk_io(em, c, 1);
}

/* sys_chunk.cuh: the noise values of the thread's quads (domain 3): their
 * Philox blocks in lockstep (rng/philox.h), then the values (the loads are in
 * flight meanwhile) */
static void hook_noise(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = ((const mf_ctx *)c)->o;
  int nn = o->model->nnoise;
  static const char *const w[4] = {"sdk_ph[sdk_it][0]", "sdk_ph[sdk_it][1]", "sdk_ph[sdk_it][2]",
                                   "sdk_ph[sdk_it][3]"};
  for (int j = 0; j < nn; j++) {
    sdk_em_block(em);
    sdk_em_line(em, "const sdk_u64 sdk_k = (sdk_u64)sdk_n * SDK_NN + %d;", j);
    sdk_em_line(em, "sdk_u32 sdk_ph[SDK_QI][4];");
    sdk_em_line(em, "#pragma unroll");
    sdk_em_open(em, "for (int sdk_it = 0; sdk_it < SDK_QI; sdk_it++)");
    sdk_em_line(em, "const sdk_u64 sdk_q = sdk_q0 + (sdk_u64)((sdk_i0 + sdk_it * 1024) >> 2);");
    sdk_em_line(em, "sdk_philox_counter(sdk_ph[sdk_it], sdk_q, sdk_k, 3u);");
    sdk_em_close(em);
    sdk_em_line(em, "sdk_philox_blocks(sdk_ph, SDK_QI, sdk_seed);");
    sdk_em_line(em, "#pragma unroll");
    sdk_em_open(em, "for (int sdk_it = 0; sdk_it < SDK_QI; sdk_it++)");
    char d[4][32];
    const char *dst[4];
    for (int l = 0; l < 4; l++) {
      snprintf(d[l], sizeof d[l], "sdk_zv[sdk_it][%d][%d]", l, j);
      dst[l] = d[l];
    }
    sdk_noise_words(em, sdk_cg_noise(o), w, dst);
    sdk_em_close(em);
    sdk_em_close(em);
  }
}

/* sys_chunk.cuh: particle li's x_n and its parameters */
static void hook_particle(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = ((const mf_ctx *)c)->o;
  for (int v = 0; v < o->model->nvars; v++)
    sdk_em_line(em, "real sdk_x%d = sdk_xv[sdk_it][sdk_l][%d];", v, v);
  sdk_cg_sys_draw_params(em, o);
}

/* sys_chunk.cuh: its step x_n -> x_{n+1} */
static void hook_step(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = ((const mf_ctx *)c)->o;
  const sdk_model *m = o->model;
  for (int j = 0; j < m->nnoise; j++)
    sdk_em_line(em, "const real sdk_z%d = sdk_zv[sdk_it][sdk_l][%d];", j, j);
  o->scheme->emit_step(em, o, NULL);
  for (int v = 0; v < m->nvars; v++)
    sdk_em_line(em, "sdk_xv[sdk_it][sdk_l][%d] = sdk_x%d;", v, v);
}

/* sys_chunk.cuh: its terms of the sums */
static void hook_accumulate(sdk_emit *em, const void *c) {
  const mf_ctx *x = c;
  sdk_cg_sys_accumulate(em, x->o, x->red);
}

/* sdk_sys_group: a chunk, whole (part = 0) or partial */
static void chunk(sdk_emit *em, const mf_ctx *c, int part) {
  static const sdk_em_hook hooks[] = {{"load", hook_load},   {"store", hook_store},
                                      {"noise", hook_noise}, {"particle", hook_particle},
                                      {"step", hook_step},   {"accumulate", hook_accumulate}};
  mf_ctx x = *c;
  x.part = part;
  sdk_em_line(em, "#define SDK_CHUNK_PART %d", part);
  sdk_em_kernel_hooks(em, sdk_embedded_sys_chunk_cuh, hooks, sizeof hooks / sizeof *hooks, &x);
}

static void hook_chunk_whole(sdk_emit *em, const void *c) {
  chunk(em, c, 0);
}

static void hook_chunk_part(sdk_emit *em, const void *c) {
  chunk(em, c, 1);
}

void sdk_cg_sys_meanfield(sdk_emit *em, const sdk_codegen_opts *o, const sdk_cg_red *red) {
  static const sdk_em_hook group[] = {{"params", hook_params},
                                      {"coupling", hook_coupling},
                                      {"chunk_whole", hook_chunk_whole},
                                      {"chunk_part", hook_chunk_part}};
  const mf_ctx c = {o, red, 0};
  sdk_em_kernel_hooks(em, sdk_embedded_sys_group_cuh, group, sizeof group / sizeof *group, &c);
  sdk_cg_sys_step_kernel(em, 0, 0, NULL, 0, NULL);
  sdk_cg_sys_step_kernel(em, 1, 0, NULL, 0, NULL);
  sdk_em_kernel(em, sdk_embedded_sys_run_cuh);
}
