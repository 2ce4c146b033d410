/* The drift correction over shared Wiener processes as locals of the step
 * (correction.h). */
#include "codegen/correction.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* terms per statement of a sum: short lines, and C's left-to-right + keeps
 * the order without parentheses nested as deep as the sum is long */
#define TERMS_PER_LINE 8

/* mark[j] = 1 for every variable j that e mentions */
static void mention(const sdk_expr *e, unsigned char *mark) {
  if (e->kind == SDK_E_SYM && e->sym == SDK_SYM_VAR) mark[e->index] = 1;
  for (int i = 0; i < e->nargs; i++)
    if (e->arg[i]) mention(e->arg[i], mark);
}

/* C_kl of k != l (NULL: 0, uncorrelated) */
static const sdk_expr *corr_of(const sdk_model *m, int k, int l) {
  int nw = m->nwiener;
  return m->corr ? m->corr[(k > l ? k : l) * nw + (k > l ? l : k)] : NULL;
}

/* pc[j * nw + k]: how many l give variable j and process k a term (b_jl
 * and C_kl not 0) */
static int *partners(const sdk_model *m) {
  int nv = m->nvars, nw = m->nwiener;
  int *pc = calloc((size_t)(nv > 0 ? nv : 1) * (size_t)nw, sizeof *pc);
  for (int j = 0; pc && j < nv; j++)
    for (int k = 0; k < nw; k++)
      for (int l = 0; l < nw; l++)
        pc[j * nw + k] += m->wcoef[j * nw + l] && (k == l || corr_of(m, k, l));
  return pc;
}

/* ment[k * nvars + j]: b_vk mentions x_j (else db_vk/dx_j is the number 0:
 * model/diff.c folds every term without x_j away) */
static void mentions_of(const sdk_model *m, int v, unsigned char *ment) {
  int nv = m->nvars, nw = m->nwiener;
  memset(ment, 0, (size_t)nv * (size_t)nw);
  for (int k = 0; k < nw; k++)
    if (m->wcoef[v * nw + k]) mention(m->wcoef[v * nw + k], ment + (size_t)k * (size_t)nv);
}

/* " (--scheme NAME)" of a scheme in the model's own calculus, or "" */
static const char *own_clause(const char *own, char *buf, size_t n) {
  snprintf(buf, n, "%s%s%s", own ? " (--scheme " : "", own ? own : "", own ? ")" : "");
  return buf;
}

static sdk_err too_many(const sdk_model *m, long long n, const char *own, sdk_errbuf *eb) {
  char cl[96];
  return SDK_FAIL(eb, SDK_ERR_MODEL,
                  "%s:%d: model '%s' (%d variables, %d Wiener processes): its drift correction "
                  "between the Ito and Stratonovich calculus would sum over %lld terms (the limit "
                  "is %d); integrate the model in its own calculus%s, which needs no correction",
                  m->path, m->wiener_line, m->name, m->nvars, m->nwiener, n,
                  SDK_CODEGEN_MAX_CORR_TERMS, own_clause(own, cl, sizeof cl));
}

/* The number of terms of the sums, counted from which variables each
 * coefficient mentions (cheap: no derivative is taken); stops past the limit. */
static sdk_err count_terms(const sdk_model *m, const int *pc, unsigned char *ment, const char *own,
                           sdk_errbuf *eb) {
  int nv = m->nvars, nw = m->nwiener;
  long long n = 0;
  for (int v = 0; v < nv && n <= SDK_CODEGEN_MAX_CORR_TERMS; v++) {
    if (!m->noise[v]) continue;
    mentions_of(m, v, ment);
    for (int k = 0; k < nw; k++)
      for (int j = 0; j < nv; j++)
        if (ment[(size_t)k * (size_t)nv + (size_t)j]) n += pc[j * nw + k];
  }
  return n > SDK_CODEGEN_MAX_CORR_TERMS ? too_many(m, n, own, eb) : SDK_OK;
}

/* a leaf of a term: a number stays one (so that the term folds as the
 * expression did), anything else is the local's name */
static sdk_expr *leaf(const sdk_expr *e, int kind, int index) {
  if (e->kind == SDK_E_NUM) return sdk_expr_number(e->num);
  return sdk_expr_symbol(SDK_SYM_OTHER, SDK_OTHER(kind, index));
}

/* Free a sum: its left spine may be long, its right operands are short. */
static void free_sum(sdk_expr **sum) {
  sdk_expr *e = *sum;
  *sum = NULL;
  while (e) {
    sdk_expr *next = NULL;
    if (e->kind == SDK_E_BINARY && (e->op == '+' || e->op == '-')) {
      next = e->arg[0];
      e->arg[0] = NULL;
    }
    sdk_expr_destroy(&e);
    e = next;
  }
}

void sdk_cg_corr_free(sdk_cg_corr **cp) {
  sdk_cg_corr *c = *cp;
  if (!c) return;
  for (int v = 0; c->sum && v < c->nvars; v++)
    free_sum(&c->sum[v]);
  for (int i = 0; i < c->nd; i++)
    sdk_expr_destroy(&c->d[i].e);
  free(c->sum);
  free(c->coef_used);
  free(c->corr_used);
  free(c->d);
  free(c);
  *cp = NULL;
}

static sdk_err add_deriv(sdk_cg_corr *c, int v, int k, int j, sdk_expr *e, sdk_errbuf *eb) {
  sdk_cg_corr_deriv *d = realloc(c->d, (size_t)(c->nd + 1) * sizeof *d);
  if (!d) {
    sdk_expr_destroy(&e);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  c->d = d;
  d[c->nd++] = (sdk_cg_corr_deriv){v, k, j, 0, e};
  return SDK_OK;
}

/* Variable v's sum: for each j, k, l in this order the term
 * [C_kl *] (b_jl * db_vk/dx_j), added to the running sum, every product and
 * sum through sdk_expr_binary as the whole expression was built before it
 * had locals: the same operands in the same order, the same foldings of
 * numbers, so the same value. */
static sdk_err build_sum(const sdk_model *m, sdk_cg_corr *c, int v, const int *pc,
                         const unsigned char *ment, long *budget, const char *own, sdk_errbuf *eb) {
  int nv = m->nvars, nw = m->nwiener;
  char where[512];
  snprintf(where, sizeof where, "%s:%d [noise] %s", m->path, m->noise_line[v], m->vars[v]);
  sdk_expr *sum = NULL;
  for (int j = 0; j < nv; j++)
    for (int k = 0; k < nw; k++) {
      const sdk_expr *bvk = m->wcoef[v * nw + k];
      if (!bvk || !ment[(size_t)k * (size_t)nv + (size_t)j] || !pc[j * nw + k]) continue;
      sdk_expr *db = NULL;
      sdk_err err = sdk_expr_diff_limited(bvk, SDK_SYM_VAR, j, where, budget, &db, eb);
      char cl[96];
      if (err != SDK_OK && *budget < 0)
        err = SDK_FAIL(eb, err,
                       "%s: model '%s' (%d variables, %d Wiener processes): the derivatives of "
                       "its drift correction between the Ito and Stratonovich calculus grow past "
                       "%d expression nodes (the limit); integrate the model in its own "
                       "calculus%s, which needs no correction",
                       where, m->name, nv, nw, SDK_EXPR_MAX_DIFF_NODES,
                       own_clause(own, cl, sizeof cl));
      if (err == SDK_OK && db->kind == SDK_E_NUM && db->num == 0) {
        sdk_expr_destroy(&db);
        continue;
      }
      if (err == SDK_OK) err = add_deriv(c, v, k, j, db, eb);
      for (int l = 0; err == SDK_OK && l < nw; l++) {
        const sdk_expr *bjl = m->wcoef[j * nw + l], *ckl = k == l ? NULL : corr_of(m, k, l);
        if (!bjl || (k != l && !ckl)) continue;
        sdk_expr *t = sdk_expr_binary('*', leaf(bjl, SDK_OTHER_CG_COEF, j * nw + l),
                                      leaf(db, SDK_OTHER_CG_DERIV + v, k * nv + j));
        if (ckl)
          t = sdk_expr_binary(
              '*', leaf(ckl, SDK_OTHER_CG_CORR, (k > l ? k : l) * nw + (k > l ? l : k)), t);
        sum = sum ? sdk_expr_binary('+', sum, t) : t;
        if (!sum) err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
      }
      if (err != SDK_OK) {
        free_sum(&sum);
        return err;
      }
    }
  c->sum[v] = sum;
  return SDK_OK;
}

/* record the locals a term uses (pos[k * nvars + j]: the derivative of
 * this sum's variable by x_j of process k, in c->d) */
static void mark_used(sdk_cg_corr *c, const int *pos, const sdk_expr *e) {
  if (e->kind == SDK_E_SYM && e->sym == SDK_SYM_OTHER) {
    int k = SDK_OTHER_KIND(e->index), i = SDK_OTHER_INDEX(e->index);
    if (k == SDK_OTHER_CG_COEF) c->coef_used[i] = 1;
    if (k == SDK_OTHER_CG_CORR) c->corr_used[i] = 1;
    if (k >= SDK_OTHER_CG_DERIV && pos[i] >= 0) c->d[pos[i]].used = 1;
  }
  for (int i = 0; i < e->nargs; i++)
    mark_used(c, pos, e->arg[i]);
}

/* the first term of a sum (the bottom of its left spine) */
static const sdk_expr *sum_bottom(const sdk_expr *e, int *nspine) {
  *nspine = 0;
  while (e->kind == SDK_E_BINARY && (e->op == '+' || e->op == '-'))
    e = e->arg[0], ++*nspine;
  return e;
}

/* the sums' terms in the order they are added (spine[0] adds the second) */
static const sdk_expr **spine_of(const sdk_expr *sum, int n) {
  const sdk_expr **s = malloc((size_t)(n > 0 ? n : 1) * sizeof *s);
  for (int i = n - 1; s && i >= 0; i--, sum = sum->arg[0])
    s[i] = sum;
  return s;
}

/* Which locals the sums use (a term may have folded away: C_kl = 0). */
static sdk_err mark_all(sdk_cg_corr *c, sdk_errbuf *eb) {
  int *pos = malloc((size_t)c->nvars * (size_t)c->nw * sizeof *pos);
  if (!pos) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int i = 0; i < c->nvars * c->nw; i++)
    pos[i] = -1;
  /* (the derivatives are in c->d by variable: each variable's run in turn) */
  for (int v = 0, at = 0; v < c->nvars; v++) {
    int end = at;
    for (; end < c->nd && c->d[end].v == v; end++)
      pos[c->d[end].k * c->nvars + c->d[end].j] = end;
    int n = 0;
    const sdk_expr **s = NULL;
    if (c->sum[v]) {
      mark_used(c, pos, sum_bottom(c->sum[v], &n));
      s = spine_of(c->sum[v], n);
      if (!s) {
        free(pos);
        return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
      }
    }
    for (int i = 0; i < n; i++)
      mark_used(c, pos, s[i]->arg[1]);
    free(s);
    for (; at < end; at++)
      pos[c->d[at].k * c->nvars + c->d[at].j] = -1;
  }
  free(pos);
  return SDK_OK;
}

sdk_err sdk_cg_corr_build(const sdk_model *m, const char *own, sdk_cg_corr **out, sdk_expr **term,
                          sdk_errbuf *eb) {
  int nv = m->nvars, nw = m->nwiener;
  *out = NULL;
  unsigned char *ment = malloc((size_t)(nv > 0 ? nv : 1) * (size_t)nw);
  int *pc = partners(m);
  sdk_cg_corr *c = calloc(1, sizeof *c);
  if (c) {
    c->nvars = nv, c->nw = nw;
    c->sum = calloc((size_t)(nv > 0 ? nv : 1), sizeof *c->sum);
    c->coef_used = calloc((size_t)(nv > 0 ? nv : 1) * (size_t)nw, 1);
    c->corr_used = calloc((size_t)nw * (size_t)nw, 1);
  }
  sdk_err err = SDK_OK;
  if (!ment || !pc || !c || !c->sum || !c->coef_used || !c->corr_used)
    err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  if (err == SDK_OK) err = count_terms(m, pc, ment, own, eb);
  long budget = SDK_EXPR_MAX_DIFF_NODES;
  int any = 0;
  for (int v = 0; err == SDK_OK && v < nv; v++) {
    term[v] = NULL;
    if (!m->noise[v]) continue;
    mentions_of(m, v, ment);
    err = build_sum(m, c, v, pc, ment, &budget, own, eb);
    if (err != SDK_OK || !c->sum[v]) continue;
    /* 1/2 sum, a number where the sum folded to one */
    if (c->sum[v]->kind == SDK_E_NUM) {
      term[v] = sdk_expr_binary('*', sdk_expr_number(0.5), c->sum[v]);
      c->sum[v] = NULL;
    } else {
      term[v] = sdk_expr_binary('*', sdk_expr_number(0.5),
                                sdk_expr_symbol(SDK_SYM_OTHER, SDK_OTHER(SDK_OTHER_CG_SUM, v)));
      any = 1;
    }
    if (!term[v]) err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  if (err == SDK_OK && any) err = mark_all(c, eb);
  free(ment);
  free(pc);
  if (err != SDK_OK || !any) {
    sdk_cg_corr_free(&c);
    return err;
  }
  *out = c;
  return SDK_OK;
}

/* ---- emission ---- */

void sdk_cg_corr_params(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_cg_corr *c = o->corr;
  const sdk_model *m = o->model;
  for (int k = 0; c && k < c->nw; k++)
    for (int l = 0; l < k; l++) {
      if (!c->corr_used[k * c->nw + l]) continue;
      sdk_em_start(em, "const real sdk_Cr%d_%d = ", k, l);
      sdk_cg_expr(em, o, m->corr[k * c->nw + l], m->corr_line);
      sdk_em_puts(em, ";\n");
    }
}

/* "sdk_Cs<v> = FIRST + T + T ...; sdk_Cs<v> = sdk_Cs<v> + T ...;": the
 * sum's terms left to right, as the expression added them */
static void emit_sum(sdk_emit *em, const sdk_codegen_opts *o, int v, const sdk_expr *sum) {
  int n;
  const sdk_expr *first = sum_bottom(sum, &n);
  const sdk_expr **s = spine_of(sum, n);
  if (!s) {
    em->b->oom = 1; /* reported by whoever takes the text */
    return;
  }
  sdk_em_start(em, "real sdk_Cs%d = ", v);
  sdk_cg_expr_plain(em, o, first);
  for (int i = 0; i < n; i++) {
    if (i > 0 && i % TERMS_PER_LINE == 0) {
      sdk_em_puts(em, ";\n");
      sdk_em_start(em, "sdk_Cs%d = sdk_Cs%d", v, v);
    }
    sdk_em_puts(em, s[i]->op == '+' ? " + " : " - ");
    sdk_cg_expr_plain(em, o, s[i]->arg[1]);
  }
  sdk_em_puts(em, ";\n");
  free(s);
}

void sdk_cg_corr_stage(sdk_emit *em, const sdk_codegen_opts *o, sdk_cg_hoist *h, int stage,
                       double c) {
  const sdk_cg_corr *k = o->corr;
  const sdk_model *m = o->model;
  if (!k) return;
  int nw = k->nw;
  for (int i = 0; i < k->nvars * nw; i++) {
    if (!k->coef_used[i]) continue;
    sdk_em_start(em, "const real sdk_Cb%d_%d = ", i / nw, i % nw);
    sdk_cg_expr_at(em, o, m->wcoef[i], m->noise_line[i / nw], h, stage, c);
    sdk_em_puts(em, ";\n");
  }
  for (int i = 0; i < k->nd; i++) {
    const sdk_cg_corr_deriv *d = &k->d[i];
    if (!d->used) continue;
    sdk_em_start(em, "const real sdk_Cd%d_%d_%d = ", d->v, d->k, d->j);
    sdk_cg_expr_at(em, o, d->e, m->noise_line[d->v], h, stage, c);
    sdk_em_puts(em, ";\n");
  }
  for (int v = 0; v < k->nvars; v++)
    if (k->sum[v]) emit_sum(em, o, v, k->sum[v]);
}
