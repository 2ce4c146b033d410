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

/* The one mapping of a model's names to C identifiers: appends "u_" NAME
 * (see codegen.c); NAME must pass sdk_is_identifier(NAME, SDK_CG_MAX_NAME). */
#define SDK_CG_MAX_NAME 63
void sdk_cg_name(sdk_strbuf *b, const char *name);

/* Time (codegen.c explains the rule).  Which times an expression needs: */
#define SDK_CG_TIME_ABS 1   /* sdk_t, the absolute time */
#define SDK_CG_TIME_PHASE 2 /* sdk_tp, the time modulo the period */
int sdk_cg_time_uses(const sdk_codegen_opts *o, const sdk_expr *e);
/* "const real sdk_t0<suffix> = <time of step N>" and, with a period,
 * sdk_tp0<suffix> (the phase time); N is a C expression of type sdk_i64;
 * needs sdk_dt in scope. */
void sdk_cg_step_time(sdk_strbuf *b, const sdk_codegen_opts *o, const char *n, const char *ind,
                      const char *suffix);
/* Bind the names expressions use for t: sdk_t = T and, with a period,
 * sdk_tp = TP (C expressions). */
void sdk_cg_bind_time(sdk_strbuf *b, const sdk_codegen_opts *o, const char *t, const char *tp,
                      const char *ind);
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
  int phase[SDK_CG_MAX_HOIST];   /* value k is inside a phase-time call */
  unsigned used[SDK_MAX_STAGES]; /* bit k: value k needed at stage time i */
  int stage;
  int phase_only; /* values are tabulated by phase: none may use the absolute time */
} sdk_cg_hoist;
/* Step code that refers to hoisted values as sdk_T<stage>_<k> (recorded in h). */
void sdk_cg_step_h(sdk_strbuf *b, const sdk_codegen_opts *o, const char *ind, sdk_cg_hoist *h);
/* Declarations of the recorded hoisted values; need sdk_t0, sdk_dt and the
 * fixed parameters in scope. */
void sdk_cg_hoist_decls(sdk_strbuf *b, const sdk_codegen_opts *o, const sdk_cg_hoist *h,
                        const char *ind);
void sdk_cg_fixed_params(sdk_strbuf *b, const sdk_codegen_opts *o, const char *ind);

void sdk_cg_number(sdk_strbuf *b, const sdk_codegen_opts *o, double v);

/* ---- systems of interacting particles (sys.c, sys_cpu.c, sys_cuda.c) ---- */
#define SDK_CG_MAX_RED 64
/* the model parser refuses more [meanfield] entries than fit with the order
 * parameter's two sums, so none is ever dropped */
_Static_assert(SDK_MODEL_MAX_MEANFIELD + 2 <= SDK_CG_MAX_RED, "SDK_CG_MAX_RED too small");
/* The expressions averaged over each system every step: the [meanfield]
 * entries first (entry k is value k), then the order parameter's
 * cos(factor x) and sin(factor x) unless a [meanfield] entry is already the
 * same expression. */
typedef struct sdk_cg_red {
  int n;
  const sdk_expr *e[SDK_CG_MAX_RED];
  int line[SDK_CG_MAX_RED];
  int ocos, osin;   /* indices of the order parameter's sums, -1 without */
  sdk_expr *own[2]; /* built here */
} sdk_cg_red;
void sdk_cg_red_build(sdk_cg_red *r, const sdk_codegen_opts *o);
void sdk_cg_red_free(sdk_cg_red *r);
/* Is particle parameter k the same for every particle (a constant, or a
 * distribution of zero width with fixed parameters)? */
int sdk_cg_part_const(const sdk_codegen_opts *o, int k);
/* Draw particle parameter k of global particle `gpart` (a C expression) into
 * the lvalue `dst`; needs the parameters and sdk_seed in scope. */
void sdk_cg_part_draw(sdk_strbuf *b, const sdk_codegen_opts *o, int k, const char *gpart,
                      const char *dst, const char *ind);
/* "const real NAME = ..." for every particle parameter: the constant ones
 * from their value, the others from `fmt` (printf with k, e.g.
 * "pp[%d * npad + p]"); j != 0: the particle-j names sdk_pj<k> (only those
 * the pair functions use). */
void sdk_cg_part_bind(sdk_strbuf *b, const sdk_codegen_opts *o, const char *fmt, int j,
                      const char *ind);
/* Emit an expression with its #line (as sdk_cg_emit_expr). */
void sdk_cg_emit_sys_cpu(sdk_strbuf *b, const sdk_codegen_opts *o);
void sdk_cg_emit_sys_cuda(sdk_strbuf *b, const sdk_codegen_opts *o);
/* Does any pair function use particle parameter k of particle j / variable v of particle j? */
int sdk_cg_pair_uses(const sdk_model *m, int kind, int k);

/* CUDA driver (codegen_cuda.c). */
void sdk_cg_emit_cuda(sdk_strbuf *b, const sdk_codegen_opts *o);
#endif
