/* sdekit: the Ito-Stratonovich drift correction of a model with shared
 * Wiener processes ([model] wiener), as locals of the generated step
 * (correction.c).
 *
 * With noise sum_k b_ik dW_k and correlations C_kl the correction of
 * variable i's drift is 1/2 sum_j sum_k sum_l C_kl b_jl db_ik/dx_j.  Written
 * out as one expression it held a copy of b_jl and of db_ik/dx_j in each of
 * its V W^2 terms per variable, V^3 W^2 subtrees in all (a 20 kB model of 16
 * variables on 16 processes gave 23 MB of C).  Instead each coefficient,
 * each derivative and each correlation is a local of the stage, computed
 * once (sdk_Cb<j>_<l>, sdk_Cd<i>_<k>_<j>, sdk_Cr<k>_<l>), and the sum is a
 * run of statements over them (sdk_Cs<i>), in the order and with the
 * foldings of the expression it replaces: the same terms added left to
 * right, so the same value.  The drift of variable i then holds
 * 1/2 sdk_Cs<i>. */
#ifndef SDK_CODEGEN_CORRECTION_H
#define SDK_CODEGEN_CORRECTION_H

#include "codegen/expr_emit.h"

typedef struct sdk_cg_corr_deriv {
  int v, k, j; /* db_vk / dx_j */
  int used;
  sdk_expr *e;
} sdk_cg_corr_deriv;

typedef struct sdk_cg_corr {
  int nvars, nw;
  /* per variable: the sum over the locals (a chain of + and -, built by
   * sdk_expr_binary as the expression was), NULL where it has none */
  sdk_expr **sum;
  unsigned char *coef_used; /* [j * nw + l]: sdk_Cb<j>_<l> is used */
  unsigned char *corr_used; /* [k * nw + l], k > l: sdk_Cr<k>_<l> is used */
  sdk_cg_corr_deriv *d;     /* the derivatives that are not 0 */
  int nd;
} sdk_cg_corr;

/* The correction of every variable of m (shared Wiener processes): *out
 * the locals (NULL when no variable has one) and term[v] the tree that
 * corrects v's drift, 1/2 sdk_Cs<v> or a number (NULL: none).  Refuses a
 * model whose sums would exceed SDK_CODEGEN_MAX_CORR_TERMS terms or whose
 * derivatives SDK_EXPR_MAX_DIFF_NODES nodes (model/limits.h), before
 * building them; its messages name `own` (NULL: none), a scheme of the
 * model's calculus (sdk_codegen_opts.own_scheme). */
sdk_err sdk_cg_corr_build(const sdk_model *m, const char *own, sdk_cg_corr **out, sdk_expr **term,
                          sdk_errbuf *eb);
void sdk_cg_corr_free(sdk_cg_corr **c);

/* The correlations the sums use (sdk_Cr), once per step: needs the
 * parameters in scope. */
void sdk_cg_corr_params(sdk_emit *em, const sdk_codegen_opts *o);
/* The locals of stage `stage` (time t_n + c dt), before its drifts: needs
 * the variables' names bound to the stage's values. */
void sdk_cg_corr_stage(sdk_emit *em, const sdk_codegen_opts *o, sdk_cg_hoist *h, int stage,
                       double c);

#endif
