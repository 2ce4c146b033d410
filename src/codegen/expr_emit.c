/* Model expressions in the source: names, hoisting, #line (expr_emit.h). */
#include "codegen/expr_emit.h"

#include <string.h>

#include "codegen/comp_vars.h"

/* What the emitters below share: the options, the hoisting state (or NULL),
 * and whether t is the phase time here (inside a phase-time call). */
typedef struct {
  const sdk_codegen_opts *o;
  sdk_cg_hoist *h;
  int phase;
  const sdk_expr *pnode; /* the phase-time call being emitted */
  int split;             /* sdk_cg_expr_split */
  const sdk_expr *root;  /* sdk_cg_expr_split_scaled: the product scale multiplies */
  const char *scale;
} cg_ctx;

/* a parameter whose value differs between paths: scanned, or given per
 * path (codegen.h) */
static int varies(const sdk_codegen_opts *o, int i) {
  return o->scan_column[i] >= 0 || (o->path_param && o->path_param[i] >= 0);
}

static void emit_sym(void *user, sdk_strbuf *out, const sdk_expr *e) {
  const cg_ctx *c = user;
  const sdk_model *m = c->o->model;
  int k = SDK_OTHER_KIND(e->index), i = SDK_OTHER_INDEX(e->index);
  switch (e->sym) {
  case SDK_SYM_TIME: sdk_sb_puts(out, c->phase ? "sdk_tp" : "sdk_t"); return;
  case SDK_SYM_VAR: sdk_em_name_to(out, e->index < m->nvars ? m->vars[e->index] : NULL); return;
  case SDK_SYM_PARAM:
    sdk_em_name_to(out, e->index < m->nparams ? m->params[e->index] : NULL);
    return;
  case SDK_SYM_OTHER:
    if (k == SDK_OTHER_DELAY) /* (bound per stage: delay.h) */
      sdk_sb_printf(out, "sdk_dl%d", i);
    else if (k == SDK_OTHER_VARJ)
      sdk_sb_printf(out, "sdk_xj%d", i); /* particle j of a pair */
    else if (k == SDK_OTHER_PARTJ)
      sdk_sb_printf(out, "sdk_pj%d", i);
    else if (k == SDK_OTHER_PART)
      sdk_em_name_to(out, i < m->npart ? m->part[i].name : NULL);
    else if (k == SDK_OTHER_MEAN)
      sdk_em_name_to(out, i < m->nmean ? m->mean_names[i] : NULL);
    else if (k == SDK_OTHER_PAIR)
      sdk_em_name_to(out, i < m->npair ? m->pair_names[i] : NULL);
    else if (k == SDK_OTHER_CG_COEF && m->nwiener > 0) /* (correction.h) */
      sdk_sb_printf(out, "sdk_Cb%d_%d", i / m->nwiener, i % m->nwiener);
    else if (k == SDK_OTHER_CG_CORR && m->nwiener > 0)
      sdk_sb_printf(out, "sdk_Cr%d_%d", i / m->nwiener, i % m->nwiener);
    else if (k == SDK_OTHER_CG_SUM)
      sdk_sb_printf(out, "sdk_Cs%d", i);
    else if (k >= SDK_OTHER_CG_DERIV && m->nvars > 0)
      sdk_sb_printf(out, "sdk_Cd%d_%d_%d", k - SDK_OTHER_CG_DERIV, i / m->nvars, i % m->nvars);
    else
      sdk_em_name_to(out, NULL);
    return;
  default: sdk_em_name_to(out, NULL); return; /* resolved models have no other symbols */
  }
}

static int hoist_node(cg_ctx *c, sdk_strbuf *out, const sdk_expr *e);
static int emit_node(void *user, sdk_strbuf *out, const sdk_expr *e);

/* no state and no time in e: the same at every step of a path */
static int step_constant(const sdk_expr *e) {
  return !sdk_expr_uses(e, SDK_SYM_VAR) && !sdk_expr_uses(e, SDK_SYM_OTHER) &&
         !sdk_expr_uses(e, SDK_SYM_TIME);
}

/* e = K * x_v or x_v * K with no state or time in K: its K, else NULL */
static const sdk_expr *split_factor(const sdk_expr *e, int v) {
  if (e->kind != SDK_E_BINARY || e->op != '*') return NULL;
  for (int side = 0; side < 2; side++) {
    const sdk_expr *x = e->arg[side], *k = e->arg[1 - side];
    if (x->kind == SDK_E_SYM && x->sym == SDK_SYM_VAR && x->index == v && step_constant(k))
      return k;
  }
  return NULL;
}

/* does e read x_v other than as such products? */
static int reads_whole(const sdk_expr *e, int v) {
  if (!e) return 0;
  if (split_factor(e, v)) return 0;
  if (e->kind == SDK_E_SYM) return e->sym == SDK_SYM_VAR && e->index == v;
  for (int i = 0; i < e->nargs; i++)
    if (reads_whole(e->arg[i], v)) return 1;
  return 0;
}

int sdk_cg_split_var(const sdk_codegen_opts *o, int v) {
  const sdk_model *m = o->model;
  if (!o->single || !o->comp_defer || !sdk_cg_comp_var(o, v)) return 0;
  /* only where it saves x = fl(h + l): every read of x in the step's
   * drifts and noises a product with a constant (a boundary, an event or a
   * delay line reads x itself, and a product split beside that costs an
   * instruction; --compensate all on PROG1: v' = -gamma v ... and x' = v).
   * srk.c evaluates the drifts, the noise amplitudes, the Heun stage's and
   * the Milstein factor split; a scheme that reads x whole elsewhere costs
   * that add, never a wrong value (x stays fl(h + l)) */
  if (m->nbound || m->nevent || m->ndelay || m->nlevy || m->ncolored || m->njump || m->ndich ||
      m->nwiener)
    return 0;
  for (int w = 0; w < m->nvars; w++)
    if (reads_whole(m->drift[w], v) || reads_whole(m->noise[w], v)) return 0;
  return 1;
}

/* e = K * x (or x * K) of a split x: x's index and *k = K, else -1 */
static int split_of(const sdk_codegen_opts *o, const sdk_expr *e, const sdk_expr **k) {
  if (e->kind != SDK_E_BINARY || e->op != '*') return -1;
  for (int side = 0; side < 2; side++) {
    const sdk_expr *x = e->arg[side];
    if (x->kind == SDK_E_SYM && x->sym == SDK_SYM_VAR && (*k = split_factor(e, x->index)) &&
        sdk_cg_split_var(o, x->index))
      return x->index;
  }
  return -1;
}

/* K * x (or x * K) as fma(K, sdk_sl<v>, K * sdk_hi<v>) (sdk_cg_expr_split) */
static int split_product(cg_ctx *c, sdk_strbuf *out, const sdk_expr *e) {
  const sdk_expr *k = NULL;
  const int v = split_of(c->o, e, &k);
  if (v < 0) return 0;
  /* fma(K, l, K h) spelled out: left to contraction, K h + K l may fuse
   * either product, and did so differently in the unrolled loop and the
   * single steps (test_repro: the bits then depended on the launches) */
  const char *sc = e == c->root ? c->scale : NULL;
  for (int part = 0; part < 2; part++) {
    sdk_sb_puts(out, part ? "__fmul_rn((" : "__fmaf_rn((");
    sdk_expr_emit_hook(k, c->o->single, emit_sym, emit_node, c, out);
    sdk_sb_printf(out, ")%s%s, sdk_%s%d", sc ? " * " : "", sc ? sc : "", part ? "hi" : "sl", v);
    sdk_sb_puts(out, part ? "))" : ", ");
  }
  return 1;
}

static int emit_node(void *user, sdk_strbuf *out, const sdk_expr *e) {
  cg_ctx *c = user;
  if (c->split && split_product(c, out, e)) return 1;
  if (c->h && c->h->enabled && hoist_node(c, out, e)) return 1;
  if (c->phase || e == c->pnode || !sdk_cg_phase_call(c->o, e)) return 0;
  /* emit the call again with t as the phase time (this hook then declines it) */
  c->phase = 1, c->pnode = e;
  sdk_expr_emit_hook(e, c->o->single, emit_sym, emit_node, c, out);
  c->phase = 0, c->pnode = NULL;
  return 1;
}

/* ---- time-only subexpressions (expr_emit.h) ---- */

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
  /* scanned parameters (and those given per path) are per path */
  /* a depth-first walk holds at most 2 operands per level (a third is popped
   * first): the parser's depth limit bounds it; when full, not hoisting is safe */
  enum { NSTACK = 2 * SDK_EXPR_MAX_DEPTH + 4 };
  const sdk_expr *stack[NSTACK];
  int sp = 0;
  stack[sp++] = e;
  while (sp > 0) {
    const sdk_expr *x = stack[--sp];
    if (x->kind == SDK_E_SYM && x->sym == SDK_SYM_PARAM && varies(o, x->index)) return 0;
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
  if (e->kind == SDK_E_SYM && e->sym == SDK_SYM_PARAM) return !varies(o, e->index);
  for (int i = 0; i < e->nargs; i++)
    if (!path_invariant(o, e->arg[i])) return 0;
  return 1;
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

/* A term F * H (or H * F) of a sum in the CUDA kernel whose F is the same at
 * every step of a path but not for every path (a scanned or per-path
 * parameter, no state, no time) and whose H is the same for every path and
 * reads the time (a drive a cos(omega t) with a scanned): its H, *f = F. */
static const sdk_expr *drive_term(const cg_ctx *c, const sdk_expr *e, const sdk_expr **f) {
  const sdk_codegen_opts *o = c->h->o;
  if (o->target != SDK_TARGET_CUDA || e->kind != SDK_E_BINARY || e->op != '*') return NULL;
  for (int side = 0; side < 2; side++) {
    const sdk_expr *a = e->arg[side], *b = e->arg[1 - side];
    if (step_constant(a) && !path_invariant(o, a) && path_invariant(o, b) &&
        sdk_expr_uses(b, SDK_SYM_TIME) && time_ok(c, b)) {
      *f = a;
      return b;
    }
  }
  return NULL;
}

static void emit_sub(cg_ctx *c, sdk_strbuf *out, const sdk_expr *e) {
  sdk_sb_puts(out, "(");
  sdk_expr_emit_hook(e, c->h->o->single, emit_sym, emit_node, c, out);
  sdk_sb_puts(out, ")");
}

/* a sum whose time-only and constant terms can be combined into one value,
 * and (CUDA) whose drive terms F * H join them by one FMA each */
static int hoist_sum(cg_ctx *c, sdk_strbuf *out, const sdk_expr *e) {
  sdk_cg_hoist *h = c->h;
  const sdk_expr *t[16], *f[16] = {0}, *hh[16] = {0};
  int sg[16];
  int n = sdk_cg_flatten_sum(e, 1, t, sg, 0, 16);
  /* (--no-fast-math: the sum in its written order; a time-only value of it
   * is still taken from the table, computed as written) */
  if (n < 2 || h->o->dt_column >= 0 || !h->o->fast_math) return 0;
  int ninv = 0, ntime = 0, d[16], nd = 0; /* d: the drive terms' indices */
  for (int i = 0; i < n; i++)
    if (path_invariant(h->o, t[i])) {
      ninv++;
      ntime += sdk_expr_uses(t[i], SDK_SYM_TIME);
      if (!time_ok(c, t[i])) return 0;
    } else if ((hh[i] = drive_term(c, t[i], &f[i])) != NULL) {
      d[nd++] = i;
    }
  /* the combined value (a time-only sum of at least two terms), or the
   * invariant terms as they are */
  int k = -1;
  if (ntime > 0 && ninv >= 2 && ninv <= SDK_CG_MAX_TERMS) k = hoist_slot(h, e, c->phase);
  /* a drive term saves its add where it joins another: a scanned drive's
   * ((r + a T) + f) takes 2 instructions a stage against fma(a, T, f)'s 1
   * (the paper's PROG1 job: 42.19 instructions a step -> 40.19) */
  if (k < 0 && !(nd >= 1 && ninv + nd >= 2)) return 0;
  if (k >= 0) {
    h->nterms[k] = 0;
    for (int i = 0; i < n; i++)
      if (path_invariant(h->o, t[i])) {
        h->term[k][h->nterms[k]] = t[i];
        h->sign[k][h->nterms[k]++] = sg[i];
      }
    h->used[h->stage] |= 1u << k;
  }
  /* fma(F_m, H_m, ... fma(F_1, H_1, the invariant part)), spelled out (left
   * to contraction, a sum of several products may fuse either of them:
   * split_product); with no invariant part the first drive term is the
   * start */
  const int start = k < 0 && ninv == 0 ? 1 : 0;
  sdk_sb_puts(out, "(");
  for (int j = nd - 1; j >= start; j--) {
    sdk_sb_puts(out, h->o->single ? "__fmaf_rn(" : "__fma_rn(");
    sdk_sb_puts(out, sg[d[j]] > 0 ? "" : "-");
    emit_sub(c, out, f[d[j]]);
    sdk_sb_puts(out, ", ");
    emit_sub(c, out, hh[d[j]]);
    sdk_sb_puts(out, ", ");
  }
  if (k >= 0) {
    sdk_sb_printf(out, "sdk_T%d_%d", h->stage, k);
  } else if (ninv > 0) {
    int first = 1;
    sdk_sb_puts(out, "(");
    for (int i = 0; i < n; i++) {
      if (!path_invariant(h->o, t[i])) continue;
      sdk_sb_puts(out, sg[i] > 0 ? (first ? "" : " + ") : (first ? "-" : " - "));
      emit_sub(c, out, t[i]);
      first = 0;
    }
    sdk_sb_puts(out, ")");
  } else {
    sdk_sb_puts(out, sg[d[0]] > 0 ? "(" : "(-");
    emit_sub(c, out, f[d[0]]);
    sdk_sb_puts(out, " * ");
    emit_sub(c, out, hh[d[0]]);
    sdk_sb_puts(out, ")");
  }
  for (int j = nd - 1; j >= start; j--)
    sdk_sb_puts(out, ")");
  for (int i = 0; i < n; i++) {
    if (path_invariant(h->o, t[i]) || hh[i]) continue;
    sdk_sb_puts(out, sg[i] > 0 ? " + (" : " - (");
    sdk_expr_emit_hook(t[i], h->o->single, emit_sym, emit_node, c, out);
    sdk_sb_puts(out, ")");
  }
  sdk_sb_puts(out, ")");
  return 1;
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
  if (!(e->kind == SDK_E_BINARY && (e->op == '+' || e->op == '-'))) return 0;
  return hoist_sum(c, out, e);
}

void sdk_cg_hoist_init(sdk_cg_hoist *h, const sdk_codegen_opts *o, int enabled) {
  memset(h, 0, sizeof *h);
  h->o = o;
  h->enabled = enabled;
}

/* ---- expressions with their #line ---- */

/* "#line" makes compiler messages about an expression point at the model
 * file.  The path is data: it goes in as a C string literal (compilers and
 * NVRTC read the octal escapes back, so their messages name the file). */
static void emit_line(sdk_emit *em, const sdk_codegen_opts *o, int line) {
  if (line > 0) {
    sdk_em_printf(em, "#line %d ", line);
    sdk_em_cstr(em, o->model->path ? o->model->path : "model");
    sdk_em_puts(em, "\n");
  }
}

/* After a user expression, point line numbers back at the generated text so
 * that errors in the surrounding code are not blamed on the model file
 * (numbered when the source is finished: emit.h, sdk_em_line_back). */
static void emit_line_back(sdk_emit *em) {
  sdk_em_puts(em, "\n");
  sdk_em_line_back(em);
}

static void emit_with(sdk_emit *em, cg_ctx *c, const sdk_expr *e, int line) {
  sdk_em_puts(em, "\n");
  emit_line(em, c->o, line);
  sdk_em_puts(em, "(");
  sdk_expr_emit_hook(e, c->o->single, emit_sym, emit_node, c, em->b);
  sdk_em_puts(em, ")");
  emit_line_back(em);
}

void sdk_cg_expr_plain(sdk_emit *em, const sdk_codegen_opts *o, const sdk_expr *e) {
  cg_ctx c = {o, NULL, 0, NULL, 0, NULL, NULL};
  sdk_expr_emit_hook(e, o->single, emit_sym, emit_node, &c, em->b);
}

void sdk_cg_expr(sdk_emit *em, const sdk_codegen_opts *o, const sdk_expr *e, int line) {
  cg_ctx c = {o, NULL, 0, NULL, 0, NULL, NULL};
  emit_with(em, &c, e, line);
}

void sdk_cg_expr_at(sdk_emit *em, const sdk_codegen_opts *o, const sdk_expr *e, int line,
                    sdk_cg_hoist *h, int stage, double c) {
  if (h) h->stage = stage, h->c[stage] = c;
  cg_ctx ctx = {o, h, 0, NULL, 0, NULL, NULL};
  emit_with(em, &ctx, e, line);
}

void sdk_cg_expr_split(sdk_emit *em, const sdk_codegen_opts *o, const sdk_expr *e, int line,
                       sdk_cg_hoist *h, int stage, double c) {
  sdk_cg_expr_split_scaled(em, o, e, line, h, stage, c, NULL);
}

int sdk_cg_split_product(const sdk_codegen_opts *o, const sdk_expr *e) {
  const sdk_expr *k;
  return split_of(o, e, &k) >= 0;
}

void sdk_cg_expr_split_scaled(sdk_emit *em, const sdk_codegen_opts *o, const sdk_expr *e, int line,
                              sdk_cg_hoist *h, int stage, double c, const char *scale) {
  if (h) h->stage = stage, h->c[stage] = c;
  cg_ctx ctx = {o, h, 0, NULL, 1, e, scale};
  emit_with(em, &ctx, e, line);
}

void sdk_cg_hoist_decls(sdk_emit *em, const sdk_codegen_opts *o, const sdk_cg_hoist *h) {
  for (int i = 0; i < SDK_MAX_STAGES; i++)
    for (int k = 0; k < h->n; k++) {
      if (!(h->used[i] & (1u << k))) continue;
      int uses = 0;
      for (int j = 0; j < h->nterms[k]; j++)
        uses |= h->phase[k] ? (sdk_expr_uses(h->term[k][j], SDK_SYM_TIME) ? SDK_CG_TIME_PHASE : 0)
                            : sdk_cg_time_uses(o, h->term[k][j]);
      sdk_em_line(em, "real sdk_T%d_%d;", i, k);
      sdk_em_block(em);
      sdk_cg_bind_time_at(em, o, h->c[i], uses);
      sdk_em_start(em, "sdk_T%d_%d = ", i, k);
      cg_ctx c = {o, NULL, h->phase[k], NULL, 0, NULL, NULL};
      for (int j = 0; j < h->nterms[k]; j++) {
        sdk_em_puts(em, h->sign[k][j] > 0 ? (j ? " + (" : "(") : " - (");
        sdk_expr_emit_hook(h->term[k][j], o->single, emit_sym, emit_node, &c, em->b);
        sdk_em_puts(em, ")");
      }
      sdk_em_puts(em, ";\n");
      sdk_em_close(em);
    }
}
