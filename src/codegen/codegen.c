#include "codegen/codegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen_internal.h"
#include "core/strbuf.h"

extern const char sdk_embedded_philox[];

static void emit_sym(void *user, sdk_strbuf *out, const sdk_expr *e) {
  (void)user;
  if (e->sym == SDK_SYM_TIME)
    sdk_sb_puts(out, "t");
  else if (e->sym == SDK_SYM_OTHER && SDK_OTHER_KIND(e->index) == SDK_OTHER_VARJ)
    sdk_sb_printf(out, "sdk_xj%d", SDK_OTHER_INDEX(e->index)); /* particle j of a pair */
  else if (e->sym == SDK_SYM_OTHER && SDK_OTHER_KIND(e->index) == SDK_OTHER_PARTJ)
    sdk_sb_printf(out, "sdk_pj%d", SDK_OTHER_INDEX(e->index));
  else
    sdk_sb_puts(out, e->name); /* vars, params and the rest are C locals of the same name */
}

static void emit_number(sdk_strbuf *b, const sdk_codegen_opts *o, double v);
static void emit_line_back(sdk_strbuf *b);

/* "#line" makes compiler messages about an expression point at the model file. */
static void emit_line(sdk_strbuf *b, const sdk_codegen_opts *o, int line) {
  if (line > 0) {
    sdk_sb_printf(b, "#line %d \"", line);
    for (const char *p = o->model->path; *p; p++) {
      if (*p == '"' || *p == '\\') sdk_sb_puts(b, "\\");
      sdk_sb_putn(b, p, 1);
    }
    sdk_sb_puts(b, "\"\n");
  }
}

void sdk_cg_emit_expr(sdk_strbuf *b, const sdk_codegen_opts *o, const sdk_expr *e, int line) {
  sdk_sb_puts(b, "\n");
  emit_line(b, o, line);
  sdk_sb_puts(b, "(");
  sdk_expr_emit(e, o->single, emit_sym, NULL, b);
  sdk_sb_puts(b, ")");
  emit_line_back(b);
}

/* ---- time-only subexpressions ----
 * A subexpression of the drift or noise that depends on t but on no state
 * variable and no scanned parameter (e.g. a*cos(omega*t) with a fixed) has
 * the same value for every path at a given step.  The drivers compute it
 * once per step and stage time instead of once per path (on the paper's
 * Josephson model this removes two of the cosines of every SRK2 step). */
static int hoistable(const sdk_codegen_opts *o, const sdk_expr *e) {
  if (o->dt_column >= 0) return 0; /* t differs between paths then */
  if (e->kind == SDK_E_SYM || e->kind == SDK_E_NUM) return 0;
  if (!sdk_expr_uses(e, SDK_SYM_TIME) || sdk_expr_uses(e, SDK_SYM_VAR) ||
      sdk_expr_uses(e, SDK_SYM_OTHER))
    return 0;
  /* scanned parameters are per path */
  /* a depth-first walk holds at most 2 operands per level (a third is popped
   * first): the parser's depth limit bounds it; when full, not hoisting is safe */
  enum { NSTACK = 2 * SDK_EXPR_MAX_DEPTH + 4 };
  const sdk_expr *stack[NSTACK];
  int sp = 0;
  stack[sp++] = e;
  while (sp > 0) {
    const sdk_expr *x = stack[--sp];
    if (x->kind == SDK_E_SYM && x->sym == SDK_SYM_PARAM && o->scan_column[x->index] >= 0) return 0;
    for (int i = 0; i < x->nargs; i++) {
      if (sp == NSTACK) return 0;
      stack[sp++] = x->arg[i];
    }
  }
  return 1;
}

/* no state, no per-path parameter: the same for every path */
static int path_invariant(const sdk_codegen_opts *o, const sdk_expr *e) {
  if (sdk_expr_uses(e, SDK_SYM_VAR) || sdk_expr_uses(e, SDK_SYM_OTHER)) return 0;
  if (e->kind == SDK_E_SYM && e->sym == SDK_SYM_PARAM) return o->scan_column[e->index] < 0;
  for (int i = 0; i < e->nargs; i++)
    if (!path_invariant(o, e->arg[i])) return 0;
  return 1;
}

/* Flatten a chain of + and - (and unary -) into signed terms. */
static int flatten_sum(const sdk_expr *e, int sign, const sdk_expr **t, int *sg, int n, int max) {
  if (e->kind == SDK_E_BINARY && (e->op == '+' || e->op == '-')) {
    n = flatten_sum(e->arg[0], sign, t, sg, n, max);
    return n < 0 ? n : flatten_sum(e->arg[1], e->op == '-' ? -sign : sign, t, sg, n, max);
  }
  if (e->kind == SDK_E_UNARY && e->op == '-') return flatten_sum(e->arg[0], -sign, t, sg, n, max);
  if (n == max) return -1;
  t[n] = e, sg[n] = sign;
  return n + 1;
}

static int hoist_slot(sdk_cg_hoist *h, const sdk_expr *root) {
  int k = 0;
  while (k < h->n && h->e[k] != root)
    k++;
  if (k == h->n) {
    if (h->n == SDK_CG_MAX_HOIST) return -1;
    h->e[h->n++] = root;
  }
  return k;
}

static int hoist_node(void *user, sdk_strbuf *out, const sdk_expr *e) {
  sdk_cg_hoist *h = user;
  if (!h || !h->enabled) return 0;
  if (hoistable(h->o, e)) {
    int k = hoist_slot(h, e);
    if (k < 0) return 0;
    h->nterms[k] = 1, h->term[k][0] = e, h->sign[k][0] = 1;
    h->used[h->stage] |= 1u << k;
    sdk_sb_printf(out, "sdk_T%d_%d", h->stage, k);
    return 1;
  }
  /* a sum whose time-only and constant terms can be combined into one value */
  if (!(e->kind == SDK_E_BINARY && (e->op == '+' || e->op == '-'))) return 0;
  const sdk_expr *t[16];
  int sg[16];
  int n = flatten_sum(e, 1, t, sg, 0, 16);
  if (n < 2) return 0;
  int ninv = 0, ntime = 0;
  for (int i = 0; i < n; i++)
    if (path_invariant(h->o, t[i])) {
      ninv++;
      ntime += sdk_expr_uses(t[i], SDK_SYM_TIME);
    }
  if (ntime == 0 || ninv < 2 || ninv > 8 || h->o->dt_column >= 0) return 0;
  int k = hoist_slot(h, e);
  if (k < 0) return 0;
  h->nterms[k] = 0;
  for (int i = 0; i < n; i++)
    if (path_invariant(h->o, t[i])) {
      h->term[k][h->nterms[k]] = t[i];
      h->sign[k][h->nterms[k]++] = sg[i];
    }
  h->used[h->stage] |= 1u << k;
  /* the combined value first, then each term: ((T + a*b) - c*d) contracts
   * into one FMA per product term */
  sdk_sb_printf(out, "(sdk_T%d_%d", h->stage, k);
  for (int i = 0; i < n; i++) {
    if (path_invariant(h->o, t[i])) continue;
    sdk_sb_puts(out, sg[i] > 0 ? " + (" : " - (");
    sdk_expr_emit_hook(t[i], h->o->single, emit_sym, hoist_node, h, out);
    sdk_sb_puts(out, ")");
  }
  sdk_sb_puts(out, ")");
  return 1;
}

/* After a user expression, point line numbers back at the generated text so
 * that errors in the surrounding code are not blamed on the model file. */
static void emit_line_back(sdk_strbuf *b) {
  int lines = 1;
  for (size_t i = 0; i < b->len; i++)
    lines += b->s[i] == '\n';
  sdk_sb_printf(b, "\n#line %d \"sdekit-generated\"\n", lines + 1);
}

static void emit_expr_h(sdk_strbuf *b, const sdk_codegen_opts *o, const sdk_expr *e, int line,
                        sdk_cg_hoist *h, int stage) {
  if (h) h->stage = stage;
  sdk_sb_puts(b, "\n");
  emit_line(b, o, line);
  sdk_sb_puts(b, "(");
  sdk_expr_emit_hook(e, o->single, emit_sym, h ? hoist_node : NULL, h, b);
  sdk_sb_puts(b, ")");
  emit_line_back(b);
}

static void stage_time(const sdk_scheme *s, int i, char *tval, size_t n) {
  if (s->c[i] == 0)
    snprintf(tval, n, "sdk_t0");
  else if (s->c[i] == 1)
    snprintf(tval, n, "sdk_t0 + sdk_dt");
  else
    snprintf(tval, n, "sdk_t0 + (real)%.17g * sdk_dt", s->c[i]);
}

/* Declarations computing the hoisted values (needs sdk_t0, sdk_dt and the
 * fixed parameters in scope). */
void sdk_cg_hoist_decls(sdk_strbuf *b, const sdk_codegen_opts *o, const sdk_cg_hoist *h,
                        const char *ind) {
  for (int i = 0; i < SDK_MAX_STAGES; i++)
    for (int k = 0; k < h->n; k++) {
      if (!(h->used[i] & (1u << k))) continue;
      char tval[128];
      stage_time(o->scheme, i, tval, sizeof tval);
      sdk_sb_printf(b, "%sreal sdk_T%d_%d;\n%s{\n%s  const real t = %s;\n%s  sdk_T%d_%d = ", ind, i,
                    k, ind, ind, tval, ind, i, k);
      for (int j = 0; j < h->nterms[k]; j++) {
        sdk_sb_puts(b, h->sign[k][j] > 0 ? (j ? " + (" : "(") : " - (");
        sdk_expr_emit(h->term[k][j], o->single, emit_sym, NULL, b);
        sdk_sb_puts(b, ")");
      }
      sdk_sb_printf(b, ";\n%s}\n", ind);
    }
}

/* The parameters that are the same for every path. */
void sdk_cg_fixed_params(sdk_strbuf *b, const sdk_codegen_opts *o, const char *ind) {
  const sdk_model *m = o->model;
  for (int i = 0; i < m->nparams; i++) {
    if (o->scan_column[i] >= 0) continue;
    sdk_sb_printf(b, "%sconst real %s = ", ind, m->params[i]);
    emit_number(b, o, o->pvalues[i]);
    sdk_sb_printf(b, ";\n%s(void)%s;\n", ind, m->params[i]);
  }
}

void sdk_cg_number(sdk_strbuf *b, const sdk_codegen_opts *o, double v) {
  emit_number(b, o, v);
}

static void emit_number(sdk_strbuf *b, const sdk_codegen_opts *o, double v) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.17g", v);
  if (!strpbrk(buf, ".eEn")) strcat(buf, ".0");
  sdk_sb_printf(b, "%s%s", buf, o->single ? "f" : "");
}

void sdk_cg_prelude(sdk_strbuf *b, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  sdk_sb_printf(b,
                "/* generated by sdekit %s: model '%s', scheme %s, %s precision, %s backend.\n"
                " * Do not edit: regenerate with 'sdekit codegen'. */\n",
                SDK_VERSION, m->name, o->scheme->name, o->single ? "single" : "double",
                o->target == SDK_TARGET_CPU ? "cpu" : "cuda");
  if (o->target == SDK_TARGET_CPU) sdk_sb_puts(b, "#include <math.h>\n#include <omp.h>\n");
  sdk_sb_printf(b, "typedef %s real;\n", o->single ? "float" : "double");
  sdk_sb_puts(b, "typedef long long sdk_i64;\n");
  sdk_sb_puts(b, sdk_embedded_philox);
  sdk_sb_printf(b, "\n#define SDK_NV %d\n#define SDK_NN %d\n#define SDK_NSV %d\n", m->nvars,
                m->nnoise, o->nsv > 0 ? o->nsv : 1);
  sdk_sb_printf(b, "#define sdk_gauss4 sdk_gauss4_%c\n#define sdk_uniform4 sdk_uniform4_%c\n",
                o->single ? 'f' : 'd', o->single ? 'f' : 'd');
}

/* Parameter declarations for one path; `sp` is a printf format taking the
 * column index and yielding that path's scanned value. */
void sdk_cg_params(sdk_strbuf *b, const sdk_codegen_opts *o, const char *sp_fmt, const char *ind) {
  const sdk_model *m = o->model;
  for (int i = 0; i < m->nparams; i++) {
    sdk_sb_printf(b, "%sconst real %s = ", ind, m->params[i]);
    if (o->scan_column[i] >= 0)
      sdk_sb_printf(b, sp_fmt, o->scan_column[i]);
    else
      emit_number(b, o, o->pvalues[i]);
    sdk_sb_printf(b, ";\n%s(void)%s;\n", ind, m->params[i]);
  }
  sdk_sb_printf(b, "%sconst real sdk_dt = ", ind);
  if (o->dt_column >= 0)
    sdk_sb_printf(b, sp_fmt, o->dt_column);
  else
    emit_number(b, o, o->dt);
  sdk_sb_printf(b, ";\n%sconst real sdk_sqdt = %s(sdk_dt);\n", ind, o->single ? "sqrtf" : "sqrt");
}

/* Bind the model's variable names to stage values and t to a time. */
static void bind_vars(sdk_strbuf *b, const sdk_codegen_opts *o, const char *fmt, int stage,
                      const char *tval, const char *ind) {
  const sdk_model *m = o->model;
  for (int v = 0; v < m->nvars; v++) {
    sdk_sb_printf(b, "%s  const real %s = ", ind, m->vars[v]);
    sdk_sb_printf(b, fmt, stage, v);
    sdk_sb_printf(b, "; (void)%s;\n", m->vars[v]);
  }
  sdk_sb_printf(b, "%s  const real t = %s; (void)t;\n", ind, tval);
}

/* One step of the scheme over scalar locals.  Needs in scope: sdk_x<v>,
 * sdk_z<j> (j-th noisy variable's Gaussian), sdk_t0, sdk_dt, sdk_sqdt and
 * the parameters.  Updates sdk_x<v> in place. */
void sdk_cg_step(sdk_strbuf *b, const sdk_codegen_opts *o, const char *ind) {
  sdk_cg_step_h(b, o, ind, NULL);
}

void sdk_cg_step_h(sdk_strbuf *b, const sdk_codegen_opts *o, const char *ind, sdk_cg_hoist *h) {
  const sdk_model *m = o->model;
  const sdk_scheme *s = o->scheme;
  int nv = m->nvars;
  sdk_sb_printf(b, "%s{\n", ind);
  /* noise increments b(X_n, t_n) sqrt(dt) psi: sdk_w<v> = b sqrt(dt) and each
   * use is sdk_w<v> * sdk_z<j>, so that it fuses into an FMA (for additive
   * noise sdk_w is a compile-time constant) */
  /* zidx[v]: which Gaussian (sdk_z<j>) drives noisy variable v */
  int j = 0, zfixed[64], *zidx = nv <= 64 ? zfixed : malloc((size_t)nv * sizeof *zidx);
  if (!zidx) {
    b->oom = 1; /* the generator's strbuf reports it */
    return;
  }
  for (int v = 0; v < nv; v++) {
    if (!m->noise[v]) continue;
    zidx[v] = j;
    sdk_sb_printf(b, "%s  real sdk_w%d;\n%s  {\n", ind, v, ind);
    bind_vars(b, o, "sdk_x%.0d%d", 0, "sdk_t0", ind);
    sdk_sb_printf(b, "%s    sdk_w%d = ", ind, v);
    emit_expr_h(b, o, m->noise[v], m->noise_line[v], h, 0);
    sdk_sb_printf(b, " * sdk_sqdt;\n%s  }\n", ind);
    j++;
  }
  for (int i = 0; i < s->stages; i++) {
    sdk_sb_printf(b, "%s  real", ind);
    for (int v = 0; v < nv; v++)
      sdk_sb_printf(b, "%s sdk_k%d_%d", v ? "," : "", i, v);
    sdk_sb_printf(b, ";\n%s  {\n", ind);
    /* stage input H_i */
    for (int v = 0; v < nv; v++) {
      sdk_sb_printf(b, "%s    const real sdk_h%d = sdk_x%d", ind, v, v);
      /* (dt * A) folds to one constant: one FMA per term */
      for (int jj = 0; jj < i; jj++)
        if (s->A[i][jj] != 0) {
          sdk_sb_puts(b, " + (sdk_dt");
          if (s->A[i][jj] != 1) {
            sdk_sb_puts(b, " * ");
            emit_number(b, o, s->A[i][jj]);
          }
          sdk_sb_printf(b, ") * sdk_k%d_%d", jj, v);
        }
      if (m->noise[v] && s->B[i] != 0) {
        sdk_sb_puts(b, " + ");
        if (s->B[i] != 1) {
          emit_number(b, o, s->B[i]);
          sdk_sb_puts(b, " * ");
        }
        sdk_sb_printf(b, "sdk_w%d * sdk_z%d", v, zidx[v]);
      }
      sdk_sb_puts(b, ";\n");
    }
    char tval[128];
    stage_time(s, i, tval, sizeof tval);
    bind_vars(b, o, "sdk_h%.0d%d", 0, tval, ind);
    for (int v = 0; v < nv; v++) {
      sdk_sb_printf(b, "%s    sdk_k%d_%d = ", ind, i, v);
      emit_expr_h(b, o, m->drift[v], m->drift_line[v], h, i);
      sdk_sb_puts(b, ";\n");
    }
    sdk_sb_printf(b, "%s  }\n", ind);
  }
  for (int v = 0; v < nv; v++) {
    sdk_sb_printf(b, "%s  sdk_x%d = sdk_x%d", ind, v, v);
    for (int i = 0; i < s->stages; i++) {
      if (s->alpha[i] == 0) continue;
      sdk_sb_puts(b, " + (sdk_dt");
      if (s->alpha[i] != 1) {
        sdk_sb_puts(b, " * ");
        emit_number(b, o, s->alpha[i]);
      }
      sdk_sb_printf(b, ") * sdk_k%d_%d", i, v);
    }
    if (m->noise[v]) sdk_sb_printf(b, " + sdk_w%d * sdk_z%d", v, zidx[v]);
    sdk_sb_puts(b, ";\n");
  }
  sdk_sb_printf(b, "%s}\n", ind);
  if (zidx != zfixed) free(zidx);
}

/* Initial conditions of one path: needs the parameters, sdk_seed and
 * sdk_gpath in scope; assigns sdk_x<v>. */
void sdk_cg_init(sdk_strbuf *b, const sdk_codegen_opts *o, const char *ind) {
  const sdk_model *m = o->model;
  for (int v = 0; v < m->nvars; v++) {
    const sdk_init_spec *is = &m->init[v];
    sdk_sb_printf(b, "%s{\n", ind);
    if (is->kind != SDK_INIT_CONST)
      sdk_sb_printf(b, "%s  real sdk_r[4];\n%s  %s(sdk_seed, sdk_gpath, %d, 1, sdk_r);\n", ind, ind,
                    is->kind == SDK_INIT_UNIFORM ? "sdk_uniform4" : "sdk_gauss4", v >> 2);
    sdk_sb_printf(b, "%s  sdk_x%d = ", ind, v);
    switch (is->kind) {
    case SDK_INIT_CONST: sdk_cg_emit_expr(b, o, is->a, is->line); break;
    case SDK_INIT_UNIFORM:
      sdk_cg_emit_expr(b, o, is->a, is->line);
      sdk_sb_puts(b, " + (");
      sdk_cg_emit_expr(b, o, is->b, is->line);
      sdk_sb_puts(b, " - ");
      sdk_cg_emit_expr(b, o, is->a, is->line);
      sdk_sb_printf(b, ") * sdk_r[%d]", v & 3);
      break;
    case SDK_INIT_NORMAL:
      sdk_cg_emit_expr(b, o, is->a, is->line);
      sdk_sb_puts(b, " + ");
      sdk_cg_emit_expr(b, o, is->b, is->line);
      sdk_sb_printf(b, " * sdk_r[%d]", v & 3);
      break;
    }
    sdk_sb_printf(b, ";\n%s}\n", ind);
  }
}

/* ---------------- CPU driver ---------------- */
static void emit_cpu(sdk_strbuf *b, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  int nv = m->nvars, nn = m->nnoise;
  int zrows = ((SDK_CPU_SUBSTEPS * (nn > 0 ? nn : 1) + 3) / 4 + 1) * 4;
  if (o->sysmode) zrows = 4; /* unused there */
  sdk_sb_printf(b, "\n#define SDK_BLK %d\n#define SDK_SUB %d\n#define SDK_ZROWS %d\n",
                SDK_CPU_BLOCK, SDK_CPU_SUBSTEPS, zrows);
  sdk_sb_printf(b, "int sdk_abi(void) { return %d; }\n", SDK_KERNEL_ABI);
  sdk_sb_puts(b, "static int sdk_threads(int n) { return n > 0 ? n : omp_get_max_threads(); }\n");

  /* init */
  sdk_sb_puts(b,
              "\nvoid sdk_init(real *restrict st, sdk_i64 npad, const real *restrict sv, sdk_i64 "
              "ppg, sdk_i64 ngrid, sdk_i64 path0, sdk_u64 sdk_seed, int nthreads) {\n"
              "#pragma omp parallel for schedule(static) num_threads(sdk_threads(nthreads))\n"
              "  for (sdk_i64 p = 0; p < npad; p++) {\n"
              "    const sdk_u64 sdk_gpath = (sdk_u64)(path0 + p);\n"
              "    sdk_i64 g = (path0 + p) / ppg; if (g >= ngrid) g = ngrid - 1;\n"
              "    (void)sv; (void)g;\n");
  sdk_cg_params(b, o, "sv[g * SDK_NSV + %d]", "    ");
  sdk_sb_puts(b, "    (void)sdk_sqdt;\n");
  for (int v = 0; v < nv; v++)
    sdk_sb_printf(b, "    real sdk_x%d;\n", v);
  sdk_cg_init(b, o, "    ");
  for (int v = 0; v < nv; v++)
    sdk_sb_printf(b, "    st[%d * npad + p] = sdk_x%d;\n", v, v);
  sdk_sb_puts(b, "  }\n}\n");
  if (o->sysmode) {
    sdk_cg_emit_sys_cpu(b, o); /* interacting systems: their own driver */
    return;
  }

  /* advance */
  sdk_sb_puts(b,
              "\nvoid sdk_advance(real *restrict st, sdk_i64 npad, const real *restrict sv, "
              "sdk_i64 ppg, sdk_i64 ngrid, sdk_i64 path0, sdk_i64 step0, sdk_i64 nsteps, sdk_u64 "
              "sdk_seed, int nthreads) {\n"
              "  const sdk_i64 nblk = npad / SDK_BLK;\n"
              "#pragma omp parallel for schedule(static) num_threads(sdk_threads(nthreads))\n"
              "  for (sdk_i64 blk = 0; blk < nblk; blk++) {\n"
              "    real xs[SDK_NV][SDK_BLK];\n"
              "    real spv[SDK_NSV][SDK_BLK];\n"
              "    real zb[SDK_ZROWS][SDK_BLK];\n"
              "    const sdk_i64 p0 = blk * SDK_BLK;\n"
              "    for (int v = 0; v < SDK_NV; v++)\n"
              "      for (int i = 0; i < SDK_BLK; i++) xs[v][i] = st[v * npad + p0 + i];\n"
              "    for (int i = 0; i < SDK_BLK; i++) {\n"
              "      sdk_i64 g = (path0 + p0 + i) / ppg; if (g >= ngrid) g = ngrid - 1;\n"
              "      for (int j = 0; j < SDK_NSV; j++) spv[j][i] = sv ? sv[g * SDK_NSV + j] : 0;\n"
              "    }\n"
              "    for (sdk_i64 s = 0; s < nsteps; s += SDK_SUB) {\n"
              "      const sdk_i64 ns = nsteps - s < SDK_SUB ? nsteps - s : SDK_SUB;\n");
  if (nn > 0)
    sdk_sb_puts(b,
                "      /* draw this sub-chunk's Gaussians for all paths of the block */\n"
                "      const sdk_i64 k0 = (step0 + s) * SDK_NN, k1 = (step0 + s + ns) * SDK_NN;\n"
                "      const sdk_i64 b0 = k0 >> 2, b1 = (k1 + 3) >> 2;\n"
                "      for (sdk_i64 bk = b0; bk < b1; bk++) {\n"
                "#pragma omp simd\n"
                "        for (int i = 0; i < SDK_BLK; i++) {\n"
                "          real g4[4];\n"
                "          sdk_gauss4(sdk_seed, (sdk_u64)(path0 + p0 + i), (sdk_u64)bk, 0, g4);\n"
                "          for (int l = 0; l < 4; l++) zb[(bk - b0) * 4 + l][i] = g4[l];\n"
                "        }\n"
                "      }\n");
  /* the per-path body first, to learn which time-only values it uses */
  sdk_cg_hoist h;
  memset(&h, 0, sizeof h);
  h.o = o;
  h.enabled = o->dt_column < 0;
  sdk_strbuf body;
  sdk_sb_init(&body);
  sdk_cg_params(&body, o, "spv[%d][i]", "          ");
  for (int v = 0; v < nv; v++)
    sdk_sb_printf(&body, "          real sdk_x%d = xs[%d][i];\n", v, v);
  for (int j = 0; j < nn; j++)
    sdk_sb_printf(&body, "          const real sdk_z%d = zb[zo + %d][i];\n", j, j);
  sdk_cg_step_h(&body, o, "          ", &h);
  for (int v = 0; v < nv; v++)
    sdk_sb_printf(&body, "          xs[%d][i] = sdk_x%d;\n", v, v);

  sdk_sb_puts(b, "      for (sdk_i64 ss = 0; ss < ns; ss++) {\n"
                 "        const sdk_i64 n = step0 + s + ss;\n");
  if (nn > 0) sdk_sb_puts(b, "        const sdk_i64 zo = n * SDK_NN - b0 * 4;\n");
  char t0[160];
  if (o->spp > 0)
    snprintf(t0, sizeof t0, "(real)(n %% %lld) * sdk_dt", (long long)o->spp);
  else
    snprintf(t0, sizeof t0, "(real)n * sdk_dt");
  if (h.enabled) {
    sdk_sb_puts(b, "        {\n");
    sdk_cg_fixed_params(b, o, "        ");
    sdk_sb_puts(b, "        const real sdk_dt = ");
    emit_number(b, o, o->dt);
    sdk_sb_printf(b, ";\n        const real sdk_t0 = %s;\n", t0);
    sdk_cg_hoist_decls(b, o, &h, "        ");
  }
  sdk_sb_puts(b, "#pragma omp simd\n"
                 "        for (int i = 0; i < SDK_BLK; i++) {\n");
  {
    /* insert "const real sdk_t0 = ..." right after the parameter block */
    const char *marker = "          const real sdk_sqdt";
    char *pos = body.s ? strstr(body.s, marker) : NULL;
    char *eol = pos ? strchr(pos, '\n') : NULL;
    if (eol) {
      sdk_sb_putn(b, body.s, (size_t)(eol + 1 - body.s));
      if (!h.enabled) sdk_sb_printf(b, "          const real sdk_t0 = %s;\n", t0);
      sdk_sb_puts(b, eol + 1);
    } else if (body.s) {
      sdk_sb_puts(b, body.s);
    }
  }
  sdk_sb_free(&body);
  sdk_sb_puts(b, "        }\n"); /* simd loop */
  if (h.enabled) sdk_sb_puts(b, "        }\n");
  sdk_sb_puts(b, "      }\n"
                 "    }\n"
                 "    for (int v = 0; v < SDK_NV; v++)\n"
                 "      for (int i = 0; i < SDK_BLK; i++) st[v * npad + p0 + i] = xs[v][i];\n"
                 "  }\n}\n");
}

sdk_err sdk_codegen(const sdk_codegen_opts *o, char **out, sdk_errbuf *eb) {
  *out = NULL;
  if (o->sysmode && o->scheme->stages != 1)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "systems of interacting particles are integrated with --scheme euler only "
                    "(as the paper's PROG2/PROG3), not %s",
                    o->scheme->name);
  if (!o->sysmode && (o->model->interacting))
    return SDK_FAIL(eb, SDK_ERR_USAGE, "model '%s' couples particles: run it with --particles N",
                    o->model->name);
  if (o->scheme->additive_only && o->model->multiplicative)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "scheme %s assumes additive noise but model '%s' has state-dependent noise; "
                    "use --scheme euler (Ito interpretation)",
                    o->scheme->name, o->model->name);
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_cg_prelude(&b, o);
  if (o->target == SDK_TARGET_CPU)
    emit_cpu(&b, o);
  else
    sdk_cg_emit_cuda(&b, o);
  *out = sdk_sb_take(&b);
  if (!*out) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory generating code");
  return SDK_OK;
}
