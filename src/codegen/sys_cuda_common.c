/* The parts of the CUDA system kernels shared by both model kinds (sys_cuda.h):
 * kernels/sys_step.cuh and the code of the particles' state, parameters and
 * sums. */
#include <stdio.h>

#include "codegen/expr_emit.h"
#include "codegen/sys_cuda.h"

extern const char sdk_embedded_sys_step_cuh[];

void sdk_cg_sys_step_kernel(sdk_emit *em, int sums, int half, const sdk_em_hook *hooks, int nhooks,
                            const void *ctx) {
  sdk_em_line(em, "#define SDK_SYS_SUMS %d", sums);
  sdk_em_line(em, "#define SDK_STEP_HALF %d", half);
  sdk_em_kernel_hooks(em, sdk_embedded_sys_step_cuh, hooks, nhooks, ctx);
}

void sdk_cg_sys_bind_state(sdk_emit *em, const sdk_codegen_opts *o, int next) {
  sdk_cg_bind_vars(em, o->model, "sdk_x%d");
  if (next)
    sdk_cg_bind_time(em, o, "sdk_mode ? sdk_t01 : sdk_t0", "sdk_mode ? sdk_tp01 : sdk_tp0");
  else
    sdk_cg_bind_time(em, o, "sdk_t0", "sdk_tp0");
}

void sdk_cg_sys_draw_params(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  for (int k = 0; k < m->npart; k++) {
    if (sdk_cg_part_const(o, k)) continue;
    char dst[64];
    snprintf(dst, sizeof dst, "sdk_pp%d", k);
    sdk_em_line(em, "real sdk_pp%d;", k);
    sdk_cg_part_draw(em, o, k, "sdk_gp", dst);
  }
  sdk_cg_part_bind(em, o, "sdk_pp%d", 0);
}

void sdk_cg_sys_accumulate(sdk_emit *em, const sdk_codegen_opts *o, const sdk_cg_red *red) {
  if (red->n == 0) return;
  sdk_em_open(em, "if (sdk_act)");
  sdk_cg_sys_bind_state(em, o, 1);
  for (int k = 0; k < red->n; k++) {
    sdk_em_start(em, "sdk_acc[%d] += (real)", k);
    sdk_cg_expr(em, o, red->e[k], red->line[k]);
    sdk_em_puts(em, ";\n");
  }
  sdk_em_close(em);
}
