/* Symmetry of pair functions under exchanging the particles i and j (sys.h).
 *
 * Why exact: the half all-pairs kernel (sys_cuda_pairs.c) evaluates f once
 * per unordered pair and gives particle j the value -f(x_i, x_j) (odd f) or
 * f(x_i, x_j) (even f) where the full loop evaluates f(x_j, x_i).  Both give
 * the same bits only if the generated code of f is odd or even as computed,
 * not just as mathematics.  The rules below claim a parity only where
 * IEEE-754 arithmetic keeps it exactly:
 *   -u, and (-a) * b = -(a * b), (-a) / b = -(a / b), (-a) + (-b) = -(a + b),
 *   fma(-a, b, -c) = -fma(a, b, c): round-to-nearest and flush-to-zero are
 *   symmetric in sign, so negation passes through them;
 *   a - b = -(b - a), a + b = b + a, a * b = b * a: when b is a with i and j
 *   exchanged.  Not when a or b is a product: contraction could fuse one
 *   of the two products (fma(p, q, -r)) and round the other first;
 *   functions: only those whose CUDA implementations are odd or even bit for
 *   bit (tests/cuda/pair_parity.cu checks every finite float and 2^26
 *   random doubles of each, the fast-math intrinsics included), and any
 *   function of arguments that exchanging i and j leaves unchanged.
 * Everything else (a comparison of x and xj, exp(xj - x), ...) is "neither",
 * and such a model keeps the full loop. */
#include <stdio.h>
#include <string.h>

#include "codegen/sys.h"

enum { P_INV, P_EVEN, P_ODD, P_NONE }; /* no i or j; even; odd; neither shown */

/* (not tanh: with fast math, tanhf(-d) != -tanhf(d) for the denormals d) */
static const char *const ODD_FNS[] = {"sin", "tan", "asin", "atan", "sinh", "cbrt", "erf", "round"};
static const char *const EVEN_FNS[] = {"cos", "cosh", "fabs", "abs"};

static int in(const char *name, const char *const *list, size_t n) {
  for (size_t k = 0; k < n; k++)
    if (!strcmp(name, list[k])) return 1;
  return 0;
}

/* a symbol with i and j exchanged (sdk_expr_equal_mapped) */
static void swap_sym(sdk_symkind *sym, int *index) {
  if (*sym == SDK_SYM_VAR) {
    *sym = SDK_SYM_OTHER, *index = (SDK_OTHER_VARJ << 16) | *index;
  } else if (*sym == SDK_SYM_OTHER) {
    int k = SDK_OTHER_KIND(*index), i = SDK_OTHER_INDEX(*index);
    if (k == SDK_OTHER_VARJ)
      *sym = SDK_SYM_VAR, *index = i;
    else if (k == SDK_OTHER_PART)
      *index = (SDK_OTHER_PARTJ << 16) | i;
    else if (k == SDK_OTHER_PARTJ)
      *index = (SDK_OTHER_PART << 16) | i;
  }
}

/* Is b the tree a with i and j exchanged? */
static int swapped(const sdk_expr *a, const sdk_expr *b) {
  return sdk_expr_equal_mapped(a, b, swap_sym);
}

/* a product at the top (through unary signs): contraction may fuse it */
static int product(const sdk_expr *e) {
  while (e->kind == SDK_E_UNARY && (e->op == '-' || e->op == '+'))
    e = e->arg[0];
  return e->kind == SDK_E_BINARY && e->op == '*';
}

static int parity(const sdk_expr *e);

/* even and invariant operands: the same values either way */
static int plain(int p) {
  return p == P_INV || p == P_EVEN;
}

static int join_plain(int a, int b) {
  return a == P_INV && b == P_INV ? P_INV : P_EVEN;
}

static int parity_binary(const sdk_expr *e) {
  const sdk_expr *a = e->arg[0], *b = e->arg[1];
  int op = e->op;
  if ((op == '-' || op == '+') && !product(a) && !product(b) && swapped(a, b))
    return op == '-' ? P_ODD : P_EVEN;
  if (op == '*' && swapped(a, b)) return P_EVEN;
  int pa = parity(a), pb = parity(b);
  if (pa == P_NONE || pb == P_NONE) return P_NONE;
  switch (op) {
  case '+':
  case '-':
    if (plain(pa) && plain(pb)) return join_plain(pa, pb);
    return pa == P_ODD && pb == P_ODD ? P_ODD : P_NONE;
  case '*':
    if (pa == P_INV) return pb;
    if (pb == P_INV) return pa;
    return pa == pb ? P_EVEN : P_ODD; /* (even, even) and (odd, odd): even */
  case '/':
    if (!plain(pb)) return P_NONE; /* the reciprocal's sign symmetry is not claimed */
    return pa == P_ODD ? P_ODD : join_plain(pa, pb);
  default: /* comparisons, logic, fmod */
    return plain(pa) && plain(pb) ? join_plain(pa, pb) : P_NONE;
  }
}

static int parity(const sdk_expr *e) {
  switch (e->kind) {
  case SDK_E_NUM: return P_INV;
  case SDK_E_SYM:
    if (e->sym == SDK_SYM_PARAM || e->sym == SDK_SYM_TIME || e->sym == SDK_SYM_CONST) return P_INV;
    return P_NONE; /* x, xj, particle parameters: only in the forms above */
  case SDK_E_UNARY: {
    int p = parity(e->arg[0]);
    if (e->op == '-' || e->op == '+') return p;
    return plain(p) ? p : P_NONE;
  }
  case SDK_E_BINARY: return parity_binary(e);
  case SDK_E_COND: {
    int pc = parity(e->arg[0]), pa = parity(e->arg[1]), pb = parity(e->arg[2]);
    if (!plain(pc) || pa == P_NONE || pb == P_NONE) return P_NONE;
    if (plain(pa) && plain(pb)) return pc == P_INV ? join_plain(pa, pb) : P_EVEN;
    return pa == P_ODD && pb == P_ODD ? P_ODD : P_NONE;
  }
  case SDK_E_CALL: {
    int odd = 0, none = 0, inv = 1;
    for (int k = 0; k < e->nargs; k++) {
      int p = parity(e->arg[k]);
      odd += p == P_ODD, none += p == P_NONE, inv = inv && p == P_INV;
    }
    if (none) return P_NONE;
    if (!odd) return inv ? P_INV : P_EVEN;
    if (!strcmp(e->name, "fma") && e->nargs == 3) {
      /* fma(a, b, c) = a * b + c rounded once */
      int pa = parity(e->arg[0]), pb = parity(e->arg[1]), pc = parity(e->arg[2]);
      int pm = pa == P_INV ? pb : pb == P_INV ? pa : pa == pb ? P_EVEN : P_ODD;
      if (plain(pm) && plain(pc)) return P_EVEN;
      return pm == P_ODD && pc == P_ODD ? P_ODD : P_NONE;
    }
    if (e->nargs != 1) return P_NONE;
    if (in(e->name, ODD_FNS, sizeof ODD_FNS / sizeof ODD_FNS[0])) return P_ODD;
    if (in(e->name, EVEN_FNS, sizeof EVEN_FNS / sizeof EVEN_FNS[0])) return P_EVEN;
    return P_NONE;
  }
  }
  return P_NONE;
}

int sdk_cg_pair_parity(const sdk_expr *e) {
  int p = parity(e);
  return p == P_ODD ? -1 : p == P_NONE ? 0 : 1;
}

int sdk_cg_pair_half_ok(const sdk_codegen_opts *o, char *why, size_t n) {
  const sdk_model *m = o->model;
  if (m->npair < 1) return snprintf(why, n, "the model has no [pair] functions"), 0;
  for (int k = 0; k < m->npair; k++)
    if (!sdk_cg_pair_parity(m->pair[k]))
      return snprintf(why, n,
                      "[pair] %s is not shown to be odd or even under exchanging the "
                      "particles i and j",
                      m->pair_names[k]),
             0;
  for (int k = 0; k < m->npart; k++)
    if (!sdk_cg_part_const(o, k) &&
        (sdk_cg_pair_uses(m, SDK_OTHER_PARTJ, k) || sdk_cg_pair_uses(m, SDK_OTHER_PART, k)))
      return snprintf(why, n, "the [pair] functions use the per-particle parameter %s",
                      m->part[k].name),
             0;
  if (m->nvars + m->npair > SDK_PAIR_HALF_MAXREG)
    return snprintf(why, n,
                    "%d variables and %d [pair] functions: more than %d values per particle",
                    m->nvars, m->npair, SDK_PAIR_HALF_MAXREG),
           0;
  return 1;
}
