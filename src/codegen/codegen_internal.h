/* Pieces of the generator shared by the CPU and CUDA drivers. */
#ifndef SDK_CODEGEN_INTERNAL_H
#define SDK_CODEGEN_INTERNAL_H
#include "codegen/codegen.h"
#include "core/strbuf.h"

void sdk_cg_prelude(sdk_strbuf *b, const sdk_codegen_opts *o);
void sdk_cg_params(sdk_strbuf *b, const sdk_codegen_opts *o, const char *sp_fmt, const char *ind);
void sdk_cg_step(sdk_strbuf *b, const sdk_codegen_opts *o, const char *ind);
void sdk_cg_init(sdk_strbuf *b, const sdk_codegen_opts *o, const char *ind);
void sdk_cg_emit_expr(sdk_strbuf *b, const sdk_codegen_opts *o, const sdk_expr *e, int line);
/* Time-only subexpressions hoisted out of the per-path code. */
#define SDK_CG_MAX_HOIST 32
typedef struct sdk_cg_hoist {
  const sdk_codegen_opts *o;
  int enabled;
  int n;
  const sdk_expr *e[SDK_CG_MAX_HOIST]; /* root of the hoisted expression */
  /* a hoisted value is the signed sum of terms (one term for a plain subexpression,
   * several for the time-only and constant terms of a longer sum) */
  int nterms[SDK_CG_MAX_HOIST];
  const sdk_expr *term[SDK_CG_MAX_HOIST][8];
  int sign[SDK_CG_MAX_HOIST][8];
  unsigned used[SDK_MAX_STAGES]; /* bit k: value k needed at stage time i */
  int stage;
} sdk_cg_hoist;
/* Step code that refers to hoisted values as sdk_T<stage>_<k> (recorded in h). */
void sdk_cg_step_h(sdk_strbuf *b, const sdk_codegen_opts *o, const char *ind, sdk_cg_hoist *h);
/* Declarations of the recorded hoisted values; need sdk_t0, sdk_dt and the
 * fixed parameters in scope. */
void sdk_cg_hoist_decls(sdk_strbuf *b, const sdk_codegen_opts *o, const sdk_cg_hoist *h,
                        const char *ind);
void sdk_cg_fixed_params(sdk_strbuf *b, const sdk_codegen_opts *o, const char *ind);

/* Largest period (in steps) whose time-only values the CUDA driver tabulates. */
#define SDK_CUDA_MAX_TTAB 65536
/* CUDA driver (codegen_cuda.c). */
void sdk_cg_emit_cuda(sdk_strbuf *b, const sdk_codegen_opts *o);
#endif
