#include "codegen/codegen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen_internal.h"
#include "core/escape.h"
#include "core/strbuf.h"

extern const char sdk_embedded_philox[];

/* Names in the generated source.
 *
 * Every name a model file declares (variables, parameters, [particle],
 * [meanfield] and [pair] names) reaches the source only through
 * sdk_cg_name(), as "u_" + NAME, after a check that NAME is an identifier.
 * Nothing the generator declares itself starts with "u_" (its names start
 * with sdk_ / SDK_, or are short locals of the drivers: i, j, g, p, n, ...),
 * and neither does anything of the embedded Philox header, math.h, omp.h or
 * NVRTC's built-ins, so a model may use any identifier the model grammar
 * accepts (n, i, main, exit, NULL, linux, typeof, ...) without changing or
 * breaking the generated code.
 *
 * Time.  t in an expression is always the absolute time of the stage,
 * t_n + c_i dt with t_n = n dt computed in double from the integer step index n
 * and rounded once to `real` (sdk_t, sdk_t0 in the source).  When the model
 * declares a period P (spp steps per period) the generator also has the phase
 * time (n mod spp) dt + c_i dt (sdk_tp, sdk_tp0), which stays small and exact
 * in single precision over any number of periods (the paper's float-time fix).
 * It is used only where it gives the same value as the absolute time:
 * in the argument of sin, cos or tan when that argument is a sum whose terms
 * with t are each COEFF * t with COEFF * P a non-zero integer multiple of
 * 2 pi, proven symbolically: the factors of COEFF and of the period
 * expression cancel pairwise (as identical subexpressions) and the numbers
 * left multiply to 2 pi k (e.g. a*cos(omega*t + phi) with period =
 * 2*pi/omega, or sin(2*pi*f*t) with period = 1/f).  This holds whatever values
 * a scan gives the parameters.  Everywhere else (a ramp c*t, exp(-t/tau),
 * cos(omega*t) with an unrelated period, ...) t is the absolute time. */

void sdk_cg_name(sdk_strbuf *b, const char *name) {
  if (name && sdk_is_identifier(name, SDK_CG_MAX_NAME)) {
    sdk_sb_puts(b, "u_");
    sdk_sb_puts(b, name);
  } else {
    /* unreachable (sdk_codegen checks every name first); never data in source */
    sdk_sb_puts(b, "sdk_invalid_name");
  }
}

/* ---- the phase-time rule (see above) ---- */

/* A product of factors: num * prod f[i]^ex[i] (ex = +1 or -1). */
typedef struct {
  double num;
  int n, ok;
  const sdk_expr *f[32];
  int ex[32];
} cg_prod;

static void prod_add(cg_prod *p, const sdk_expr *e, int ex) {
  if (e->kind == SDK_E_BINARY && (e->op == '*' || e->op == '/')) {
    prod_add(p, e->arg[0], ex);
    prod_add(p, e->arg[1], e->op == '/' ? -ex : ex);
  } else if (e->kind == SDK_E_UNARY && (e->op == '-' || e->op == '+')) {
    if (e->op == '-') p->num = -p->num;
    prod_add(p, e->arg[0], ex);
  } else if (e->kind == SDK_E_NUM || (e->kind == SDK_E_SYM && e->sym == SDK_SYM_CONST)) {
    p->num = ex > 0 ? p->num * e->num : p->num / e->num;
  } else if (p->n < 32) {
    p->f[p->n] = e, p->ex[p->n++] = ex;
  } else {
    p->ok = 0;
  }
}

static int is_time(const sdk_expr *e) {
  return e->kind == SDK_E_SYM && e->sym == SDK_SYM_TIME;
}

/* term = COEFF * t with COEFF * period = 2 pi k, k a non-zero integer */
static int periodic_term(const sdk_codegen_opts *o, const sdk_expr *term) {
  cg_prod p = {.num = 1, .ok = 1};
  prod_add(&p, term, 1);
  prod_add(&p, o->model->period, 1);
  int nt = 0;
  for (int i = 0; i < p.n; i++) {
    if (is_time(p.f[i])) {
      if (p.ex[i] != 1) return 0;
      p.f[i] = NULL, nt++;
    } else if (sdk_expr_uses(p.f[i], SDK_SYM_TIME)) {
      return 0;
    }
  }
  if (!p.ok || nt != 1) return 0;
  for (int i = 0; i < p.n; i++) {
    if (!p.f[i]) continue;
    int j = i + 1;
    while (j < p.n && !(p.f[j] && p.ex[j] == -p.ex[i] && sdk_expr_equal(p.f[i], p.f[j])))
      j++;
    if (j == p.n) return 0; /* a factor that does not cancel */
    p.f[i] = p.f[j] = NULL;
  }
  double k = p.num / (2 * M_PI);
  double r = floor(k + 0.5);
  return r != 0 && fabs(k - r) <= 4e-15 * fabs(k);
}

static int flatten_sum(const sdk_expr *e, int sign, const sdk_expr **t, int *sg, int n, int max);

/* sin/cos/tan(ARG) that may be evaluated at the phase time */
static int phase_call(const sdk_codegen_opts *o, const sdk_expr *e) {
  if (o->spp <= 0 || !o->model->period || e->kind != SDK_E_CALL || e->nargs != 1) return 0;
  if (strcmp(e->name, "sin") && strcmp(e->name, "cos") && strcmp(e->name, "tan")) return 0;
  if (!sdk_expr_uses(e->arg[0], SDK_SYM_TIME)) return 0;
  const sdk_expr *t[16];
  int sg[16];
  int n = flatten_sum(e->arg[0], 1, t, sg, 0, 16);
  if (n < 1) return 0;
  for (int i = 0; i < n; i++)
    if (sdk_expr_uses(t[i], SDK_SYM_TIME) && !periodic_term(o, t[i])) return 0;
  return 1;
}

int sdk_cg_time_uses(const sdk_codegen_opts *o, const sdk_expr *e) {
  if (!e) return 0;
  if (phase_call(o, e)) return SDK_CG_TIME_PHASE;
  if (is_time(e)) return SDK_CG_TIME_ABS;
  int u = 0;
  for (int i = 0; i < e->nargs; i++)
    u |= sdk_cg_time_uses(o, e->arg[i]);
  return u;
}

/* What the emitters below share: the options, the hoisting state (or NULL),
 * and whether t is the phase time here (inside a phase_call). */
typedef struct {
  const sdk_codegen_opts *o;
  sdk_cg_hoist *h;
  int phase;
  const sdk_expr *pnode; /* the phase_call being emitted */
} cg_ctx;

static void emit_sym(void *user, sdk_strbuf *out, const sdk_expr *e) {
  const cg_ctx *c = user;
  const sdk_model *m = c->o->model;
  int k = SDK_OTHER_KIND(e->index), i = SDK_OTHER_INDEX(e->index);
  switch (e->sym) {
  case SDK_SYM_TIME: sdk_sb_puts(out, c->phase ? "sdk_tp" : "sdk_t"); return;
  case SDK_SYM_VAR: sdk_cg_name(out, e->index < m->nvars ? m->vars[e->index] : NULL); return;
  case SDK_SYM_PARAM: sdk_cg_name(out, e->index < m->nparams ? m->params[e->index] : NULL); return;
  case SDK_SYM_OTHER:
    if (k == SDK_OTHER_VARJ)
      sdk_sb_printf(out, "sdk_xj%d", i); /* particle j of a pair */
    else if (k == SDK_OTHER_PARTJ)
      sdk_sb_printf(out, "sdk_pj%d", i);
    else if (k == SDK_OTHER_PART)
      sdk_cg_name(out, i < m->npart ? m->part[i].name : NULL);
    else if (k == SDK_OTHER_MEAN)
      sdk_cg_name(out, i < m->nmean ? m->mean_names[i] : NULL);
    else if (k == SDK_OTHER_PAIR)
      sdk_cg_name(out, i < m->npair ? m->pair_names[i] : NULL);
    else
      sdk_cg_name(out, NULL);
    return;
  default: sdk_cg_name(out, NULL); return; /* resolved models have no other symbols */
  }
}

static int hoist_node(cg_ctx *c, sdk_strbuf *out, const sdk_expr *e);

static int emit_node(void *user, sdk_strbuf *out, const sdk_expr *e) {
  cg_ctx *c = user;
  if (c->h && c->h->enabled && hoist_node(c, out, e)) return 1;
  if (c->phase || e == c->pnode || !phase_call(c->o, e)) return 0;
  /* emit the call again with t as the phase time (this hook then declines it) */
  c->phase = 1, c->pnode = e;
  sdk_expr_emit_hook(e, c->o->single, emit_sym, emit_node, c, out);
  c->phase = 0, c->pnode = NULL;
  return 1;
}

static void emit_number(sdk_strbuf *b, const sdk_codegen_opts *o, double v);
static void emit_line_back(sdk_strbuf *b);

/* "#line" makes compiler messages about an expression point at the model
 * file.  The path is data: it goes in as a C string literal (compilers and
 * NVRTC read the octal escapes back, so their messages name the file). */
static void emit_line(sdk_strbuf *b, const sdk_codegen_opts *o, int line) {
  if (line > 0) {
    sdk_sb_printf(b, "#line %d ", line);
    sdk_esc_c(b, o->model->path ? o->model->path : "model");
    sdk_sb_puts(b, "\n");
  }
}

void sdk_cg_emit_expr(sdk_strbuf *b, const sdk_codegen_opts *o, const sdk_expr *e, int line) {
  cg_ctx c = {o, NULL, 0, NULL};
  sdk_sb_puts(b, "\n");
  emit_line(b, o, line);
  sdk_sb_puts(b, "(");
  sdk_expr_emit_hook(e, o->single, emit_sym, emit_node, &c, b);
  sdk_sb_puts(b, ")");
  emit_line_back(b);
}
/* ---- time-only subexpressions ----
 * A subexpression of the drift or noise that depends on t but on no state
 * variable and no scanned parameter (e.g. a*cos(omega*t) with a fixed) has
 * the same value for every path at a given step.  The drivers compute it
 * once per step and stage time instead of once per path (on the paper's
 * Josephson model this removes two of the cosines of every SRK2 step). */
/* A value tabulated by phase (h->phase_only) may not use the absolute time. */
static int time_ok(const cg_ctx *c, const sdk_expr *e) {
  return !c->h->phase_only || c->phase || !(sdk_cg_time_uses(c->o, e) & SDK_CG_TIME_ABS);
}

static int hoistable(const cg_ctx *c, const sdk_expr *e) {
  const sdk_codegen_opts *o = c->o;
  if (o->dt_column >= 0) return 0; /* t differs between paths then */
  if (e->kind == SDK_E_SYM || e->kind == SDK_E_NUM) return 0;
  if (!sdk_expr_uses(e, SDK_SYM_TIME) || sdk_expr_uses(e, SDK_SYM_VAR) ||
      sdk_expr_uses(e, SDK_SYM_OTHER) || !time_ok(c, e))
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

static int hoist_slot(sdk_cg_hoist *h, const sdk_expr *root, int phase) {
  int k = 0;
  while (k < h->n && h->e[k] != root)
    k++;
  if (k == h->n) {
    if (h->n == SDK_CG_MAX_HOIST) return -1;
    h->phase[h->n] = phase; /* where t is the phase time, so it is in the value */
    h->e[h->n++] = root;
  }
  return k;
}

static int hoist_node(cg_ctx *c, sdk_strbuf *out, const sdk_expr *e) {
  sdk_cg_hoist *h = c->h;
  if (hoistable(c, e)) {
    int k = hoist_slot(h, e, c->phase);
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
      if (!time_ok(c, t[i])) return 0;
    }
  if (ntime == 0 || ninv < 2 || ninv > 8 || h->o->dt_column >= 0) return 0;
  int k = hoist_slot(h, e, c->phase);
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
    sdk_expr_emit_hook(t[i], h->o->single, emit_sym, emit_node, c, out);
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
  cg_ctx c = {o, h, 0, NULL};
  sdk_sb_puts(b, "\n");
  emit_line(b, o, line);
  sdk_sb_puts(b, "(");
  sdk_expr_emit_hook(e, o->single, emit_sym, emit_node, &c, b);
  sdk_sb_puts(b, ")");
  emit_line_back(b);
}

/* time of stage i from the step's time t0 ("sdk_t0" or "sdk_tp0") */
static void stage_time(const sdk_scheme *s, int i, const char *t0, char *tval, size_t n) {
  if (i < 0 || s->c[i] == 0)
    snprintf(tval, n, "%s", t0);
  else if (s->c[i] == 1)
    snprintf(tval, n, "%s + sdk_dt", t0);
  else
    snprintf(tval, n, "%s + (real)%.17g * sdk_dt", t0, s->c[i]);
}

/* Bind sdk_t (absolute) and, with a period, sdk_tp (phase) to the time of
 * stage i (-1: the step's start); needs sdk_t0 / sdk_tp0 and sdk_dt in scope.  uses: which of them
 * (SDK_CG_TIME_* bits; -1: both that exist, unused ones voided). */
static void bind_time(sdk_strbuf *b, const sdk_codegen_opts *o, int i, int uses, const char *ind) {
  char tval[160];
  if (uses & SDK_CG_TIME_ABS) {
    stage_time(o->scheme, i, "sdk_t0", tval, sizeof tval);
    sdk_sb_printf(b, "%sconst real sdk_t = %s; (void)sdk_t;\n", ind, tval);
  }
  if ((uses & SDK_CG_TIME_PHASE) && o->spp > 0) {
    stage_time(o->scheme, i, "sdk_tp0", tval, sizeof tval);
    sdk_sb_printf(b, "%sconst real sdk_tp = %s; (void)sdk_tp;\n", ind, tval);
  }
}

void sdk_cg_bind_time(sdk_strbuf *b, const sdk_codegen_opts *o, const char *t, const char *tp,
                      const char *ind) {
  sdk_sb_printf(b, "%sconst real sdk_t = %s; (void)sdk_t;\n", ind, t);
  if (o->spp > 0) sdk_sb_printf(b, "%sconst real sdk_tp = %s; (void)sdk_tp;\n", ind, tp);
}

void sdk_cg_step_time(sdk_strbuf *b, const sdk_codegen_opts *o, const char *n, const char *ind,
                      const char *suffix) {
  sdk_sb_printf(b, "%sconst real sdk_t0%s = (real)((double)(%s) * ", ind, suffix, n);
  if (o->dt_column >= 0) {
    sdk_sb_puts(b, "(double)sdk_dt");
  } else {
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", o->dt);
    if (!strpbrk(buf, ".eEn")) strcat(buf, ".0");
    sdk_sb_puts(b, buf);
  }
  sdk_sb_printf(b, "); (void)sdk_t0%s;\n", suffix);
  if (o->spp > 0)
    sdk_sb_printf(b, "%sconst real sdk_tp0%s = (real)((%s) %% %lldLL) * sdk_dt; (void)sdk_tp0%s;\n",
                  ind, suffix, n, (long long)o->spp, suffix);
}

/* Declarations computing the hoisted values (needs sdk_t0 and/or sdk_tp0,
 * sdk_dt and the fixed parameters in scope). */
void sdk_cg_hoist_decls(sdk_strbuf *b, const sdk_codegen_opts *o, const sdk_cg_hoist *h,
                        const char *ind) {
  for (int i = 0; i < SDK_MAX_STAGES; i++)
    for (int k = 0; k < h->n; k++) {
      if (!(h->used[i] & (1u << k))) continue;
      int uses = 0;
      for (int j = 0; j < h->nterms[k]; j++)
        uses |= h->phase[k] ? (sdk_expr_uses(h->term[k][j], SDK_SYM_TIME) ? SDK_CG_TIME_PHASE : 0)
                            : sdk_cg_time_uses(o, h->term[k][j]);
      char in2[64];
      snprintf(in2, sizeof in2, "%s  ", ind);
      sdk_sb_printf(b, "%sreal sdk_T%d_%d;\n%s{\n", ind, i, k, ind);
      bind_time(b, o, i, uses, in2);
      sdk_sb_printf(b, "%s  sdk_T%d_%d = ", ind, i, k);
      cg_ctx c = {o, NULL, h->phase[k], NULL};
      for (int j = 0; j < h->nterms[k]; j++) {
        sdk_sb_puts(b, h->sign[k][j] > 0 ? (j ? " + (" : "(") : " - (");
        sdk_expr_emit_hook(h->term[k][j], o->single, emit_sym, emit_node, &c, b);
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
    sdk_sb_printf(b, "%sconst real ", ind);
    sdk_cg_name(b, m->params[i]);
    sdk_sb_puts(b, " = ");
    emit_number(b, o, o->pvalues[i]);
    sdk_sb_printf(b, ";\n%s(void)", ind);
    sdk_cg_name(b, m->params[i]);
    sdk_sb_puts(b, ";\n");
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
  sdk_sb_printf(b, "/* generated by sdekit %s: scheme %s, %s precision, %s backend, model ",
                SDK_VERSION, o->scheme->name, o->single ? "single" : "double",
                o->target == SDK_TARGET_CPU ? "cpu" : "cuda");
  /* the name is data: as a C literal, which is inert inside a comment */
  sdk_esc_c(b, m->name ? m->name : "");
  sdk_sb_puts(b, ".\n * Do not edit: regenerate with 'sdekit codegen'. */\n");
  if (o->target == SDK_TARGET_CPU) sdk_sb_puts(b, "#include <math.h>\n#include <omp.h>\n");
  sdk_sb_printf(b, "typedef %s real;\n", o->single ? "float" : "double");
  sdk_sb_puts(b, "typedef long long sdk_i64;\n");
  sdk_sb_puts(b, sdk_embedded_philox);
  sdk_sb_printf(b, "\n#define SDK_NV %d\n#define SDK_NN %d\n#define SDK_NSV %d\n", m->nvars,
                m->nnoise, o->nsv > 0 ? o->nsv : 1);
  sdk_sb_printf(b, "#define sdk_gauss4 sdk_gauss4_%c\n#define sdk_uniform4 sdk_uniform4_%c\n",
                o->single ? 'f' : 'd', o->single ? 'f' : 'd');
  if (o->compensate && o->target == SDK_TARGET_CPU)
    /* codegen.h: a value the optimiser cannot relate to its operands (x ^ 0,
     * with the 0 from a volatile read once per call into sdk_kz) */
    sdk_sb_puts(b, "static volatile int sdk_opq_zero_;\n"
                   "static inline real sdk_opq_(real v, int k) {\n"
                   "  union { real f; int i; } u;\n"
                   "  u.f = v;\n"
                   "  u.i ^= k;\n"
                   "  return u.f;\n"
                   "}\n"
                   "#define SDK_OPQ(v) sdk_opq_((v), sdk_kz)\n");
  else if (o->compensate)
    sdk_sb_puts(b, "#define SDK_OPQ(v) (v)\n");
}

/* Parameter declarations for one path; `sp` is a printf format taking the
 * column index and yielding that path's scanned value. */
void sdk_cg_params(sdk_strbuf *b, const sdk_codegen_opts *o, const char *sp_fmt, const char *ind) {
  const sdk_model *m = o->model;
  for (int i = 0; i < m->nparams; i++) {
    sdk_sb_printf(b, "%sconst real ", ind);
    sdk_cg_name(b, m->params[i]);
    sdk_sb_puts(b, " = ");
    if (o->scan_column[i] >= 0)
      sdk_sb_printf(b, sp_fmt, o->scan_column[i]);
    else
      emit_number(b, o, o->pvalues[i]);
    sdk_sb_printf(b, ";\n%s(void)", ind);
    sdk_cg_name(b, m->params[i]);
    sdk_sb_puts(b, ";\n");
  }
  sdk_sb_printf(b, "%sconst real sdk_dt = ", ind);
  if (o->dt_column >= 0)
    sdk_sb_printf(b, sp_fmt, o->dt_column);
  else
    emit_number(b, o, o->dt);
  sdk_sb_printf(b, ";\n%sconst real sdk_sqdt = %s(sdk_dt);\n", ind, o->single ? "sqrtf" : "sqrt");
}

/* Bind the model's variable names to stage values and t to a time. */
static void bind_vars(sdk_strbuf *b, const sdk_codegen_opts *o, const char *fmt, int tstage,
                      const char *ind) {
  const sdk_model *m = o->model;
  for (int v = 0; v < m->nvars; v++) {
    sdk_sb_printf(b, "%s  const real ", ind);
    sdk_cg_name(b, m->vars[v]);
    sdk_sb_puts(b, " = ");
    sdk_sb_printf(b, fmt, v);
    sdk_sb_puts(b, "; (void)");
    sdk_cg_name(b, m->vars[v]);
    sdk_sb_puts(b, ";\n");
  }
  char in2[64];
  snprintf(in2, sizeof in2, "%s  ", ind);
  bind_time(b, o, tstage, SDK_CG_TIME_ABS | SDK_CG_TIME_PHASE, in2);
}

/* The stage whose time is t_n + dt when the scheme averages a time-dependent
 * noise amplitude over the step and noise expression e depends on t, else 0. */
static int heun_noise_stage(const sdk_codegen_opts *o, const sdk_expr *e) {
  const sdk_scheme *s = o->scheme;
  if (!s->heun_noise || !sdk_expr_uses(e, SDK_SYM_TIME)) return 0;
  for (int i = 1; i < s->stages; i++)
    if (s->c[i] == 1) return i;
  return 0;
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
  /* noise increments b(X_n, t_n) sqrt(dt) psi (b averaged over t_n and
   * t_n + dt for time-dependent noise in srk2): sdk_w<v> = b sqrt(dt) and each
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
    bind_vars(b, o, "sdk_x%d", -1, ind);
    sdk_sb_printf(b, "%s    sdk_w%d = ", ind, v);
    emit_expr_h(b, o, m->noise[v], m->noise_line[v], h, 0);
    int se = heun_noise_stage(o, m->noise[v]);
    sdk_sb_printf(b, "%s;\n%s  }\n", se > 0 ? "" : " * sdk_sqdt", ind);
    if (se > 0) {
      /* b(t) of additive noise averaged over the step (scheme.h: weak order 2) */
      sdk_sb_printf(b, "%s  {\n", ind);
      bind_vars(b, o, "sdk_x%d", se, ind);
      sdk_sb_printf(b, "%s    sdk_w%d = (real)0.5 * (sdk_w%d + ", ind, v, v);
      emit_expr_h(b, o, m->noise[v], m->noise_line[v], h, se);
      sdk_sb_printf(b, ") * sdk_sqdt;\n%s  }\n", ind);
    }
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
    bind_vars(b, o, "sdk_h%d", i, ind);
    for (int v = 0; v < nv; v++) {
      sdk_sb_printf(b, "%s    sdk_k%d_%d = ", ind, i, v);
      emit_expr_h(b, o, m->drift[v], m->drift_line[v], h, i);
      sdk_sb_puts(b, ";\n");
    }
    sdk_sb_printf(b, "%s  }\n", ind);
  }
  for (int v = 0; v < nv; v++) {
    /* compensated: Kahan sum of the increment into x (codegen.h) */
    if (o->compensate)
      sdk_sb_printf(b, "%s  {\n%s    const real sdk_y = SDK_OPQ(sdk_c%d", ind, ind, v);
    else
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
    if (o->compensate && o->comp_defer) /* deferred: the kernel renormalises */
      sdk_sb_printf(
          b, ");\n%s    sdk_c%d = sdk_y;\n%s    sdk_x%d = SDK_OPQ(sdk_hi%d + sdk_y);\n%s  }\n", ind,
          v, ind, v, v, ind);
    else if (o->compensate)
      sdk_sb_printf(
          b,
          ");\n%s    const real sdk_s = SDK_OPQ(sdk_x%d + sdk_y);\n"
          "%s    sdk_c%d = sdk_y - SDK_OPQ(sdk_s - sdk_x%d);\n%s    sdk_x%d = sdk_s;\n%s  }\n",
          ind, v, ind, v, v, ind, v, ind);
    else
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
  if (o->compensate) sdk_sb_printf(b, "int sdk_state_rows(void) { return %d; }\n", 2 * nv);
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
  for (int v = 0; o->compensate && v < nv; v++)
    sdk_sb_printf(b, "    st[%d * npad + p] = 0;\n", nv + v);
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
              "      for (int i = 0; i < SDK_BLK; i++) xs[v][i] = st[v * npad + p0 + i];\n");
  if (o->compensate) /* the carried errors, rows SDK_NV.. (codegen.h) */
    sdk_sb_puts(
        b,
        "    const int sdk_kz = sdk_opq_zero_;\n"
        "    real cs[SDK_NV][SDK_BLK];\n"
        "    for (int v = 0; v < SDK_NV; v++)\n"
        "      for (int i = 0; i < SDK_BLK; i++) cs[v][i] = st[(SDK_NV + v) * npad + p0 + i];\n");
  sdk_sb_puts(b,
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
  for (int v = 0; o->compensate && v < nv; v++)
    sdk_sb_printf(&body, "          real sdk_c%d = cs[%d][i];\n", v, v);
  for (int j = 0; j < nn; j++)
    sdk_sb_printf(&body, "          const real sdk_z%d = zb[zo + %d][i];\n", j, j);
  sdk_cg_step_h(&body, o, "          ", &h);
  for (int v = 0; v < nv; v++)
    sdk_sb_printf(&body, "          xs[%d][i] = sdk_x%d;\n", v, v);
  for (int v = 0; o->compensate && v < nv; v++)
    sdk_sb_printf(&body, "          cs[%d][i] = sdk_c%d;\n", v, v);

  sdk_sb_puts(b, "      for (sdk_i64 ss = 0; ss < ns; ss++) {\n"
                 "        const sdk_i64 n = step0 + s + ss;\n");
  if (nn > 0) sdk_sb_puts(b, "        const sdk_i64 zo = n * SDK_NN - b0 * 4;\n");
  if (h.enabled) {
    sdk_sb_puts(b, "        {\n");
    sdk_cg_fixed_params(b, o, "        ");
    sdk_sb_puts(b, "        const real sdk_dt = ");
    emit_number(b, o, o->dt);
    sdk_sb_puts(b, ";\n");
    sdk_cg_step_time(b, o, "n", "        ", "");
    sdk_cg_hoist_decls(b, o, &h, "        ");
  }
  sdk_sb_puts(b, "#pragma omp simd\n"
                 "        for (int i = 0; i < SDK_BLK; i++) {\n");
  {
    /* insert the step's time right after the parameter block */
    const char *marker = "          const real sdk_sqdt";
    char *pos = body.s ? strstr(body.s, marker) : NULL;
    char *eol = pos ? strchr(pos, '\n') : NULL;
    if (eol) {
      sdk_sb_putn(b, body.s, (size_t)(eol + 1 - body.s));
      if (!h.enabled) sdk_cg_step_time(b, o, "n", "          ", "");
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
                 "      for (int i = 0; i < SDK_BLK; i++) st[v * npad + p0 + i] = xs[v][i];\n");
  if (o->compensate)
    sdk_sb_puts(
        b,
        "    for (int v = 0; v < SDK_NV; v++)\n"
        "      for (int i = 0; i < SDK_BLK; i++) st[(SDK_NV + v) * npad + p0 + i] = cs[v][i];\n");
  sdk_sb_puts(b, "  }\n}\n");
}

/* Every name that reaches the source must be an identifier (the model parser
 * ensures it; a model built another way is refused here, not pasted). */
static sdk_err check_names(const sdk_model *m, sdk_errbuf *eb) {
  const char *bad = NULL;
  for (int i = 0; i < m->nvars && !bad; i++)
    if (!sdk_is_identifier(m->vars[i], SDK_CG_MAX_NAME)) bad = m->vars[i];
  for (int i = 0; i < m->nparams && !bad; i++)
    if (!sdk_is_identifier(m->params[i], SDK_CG_MAX_NAME)) bad = m->params[i];
  for (int i = 0; i < m->npart && !bad; i++)
    if (!sdk_is_identifier(m->part[i].name, SDK_CG_MAX_NAME)) bad = m->part[i].name;
  for (int i = 0; i < m->nmean && !bad; i++)
    if (!sdk_is_identifier(m->mean_names[i], SDK_CG_MAX_NAME)) bad = m->mean_names[i];
  for (int i = 0; i < m->npair && !bad; i++)
    if (!sdk_is_identifier(m->pair_names[i], SDK_CG_MAX_NAME)) bad = m->pair_names[i];
  if (bad)
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: '%s' is not a valid name (letters, digits, _)",
                    m->path ? m->path : "model", bad);
  return SDK_OK;
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
  SDK_CHECK(check_names(o->model, eb));
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
