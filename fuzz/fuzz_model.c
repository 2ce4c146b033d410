/* Fuzz target: model files.  The input is the text of a model file; it is
 * parsed (sections, names, expressions, resolution, checks) and freed.
 * Nothing is generated or compiled.
 *
 * Oracle (issue 25, item 3: a '#' comment dropped the indented continuation
 * lines after it): a comment at the end of a line never changes the model.
 * When the input parses, the same text with " #c" appended to every line
 * that an indented line continues, and with " ;c" appended to every line,
 * must parse to an equal model wherever it still parses (the longer lines
 * may pass the line-length limit).  [model] name and
 * description are free text where '#' is a character, so they are not
 * compared; everything that reaches a number is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "model/model.h"

static int eq(const sdk_expr *a, const sdk_expr *b) {
  return sdk_expr_equal(a, b);
}

static int same_names(char **a, char **b, int n) {
  for (int i = 0; i < n; i++)
    if (strcmp(a[i], b[i])) return 0;
  return 1;
}

static int same_vars(const sdk_model *a, const sdk_model *b) {
  for (int v = 0; v < a->nvars; v++) {
    const sdk_init_spec *x = &a->init[v], *y = &b->init[v];
    if (!eq(a->drift[v], b->drift[v]) || !eq(a->noise[v], b->noise[v]) ||
        a->drift_line[v] != b->drift_line[v] || a->noise_line[v] != b->noise_line[v] ||
        x->kind != y->kind || !eq(x->a, y->a) || !eq(x->b, y->b) ||
        !eq(a->var_period[v], b->var_period[v]))
      return 0;
  }
  for (int k = 0; k < a->nvars * a->nwiener; k++)
    if (!eq(a->wcoef[k], b->wcoef[k])) return 0;
  if (!a->corr != !b->corr) return 0;
  for (int k = 0; a->corr && k < a->nwiener * a->nwiener; k++)
    if (!eq(a->corr[k], b->corr[k])) return 0;
  return 1;
}

static int same_extras(const sdk_model *a, const sdk_model *b) {
  for (int i = 0; i < a->npart; i++)
    if (a->part[i].kind != b->part[i].kind || !eq(a->part[i].a, b->part[i].a) ||
        !eq(a->part[i].b, b->part[i].b))
      return 0;
  for (int i = 0; i < a->nmean; i++)
    if (!eq(a->mean[i], b->mean[i])) return 0;
  for (int i = 0; i < a->npair; i++)
    if (!eq(a->pair[i], b->pair[i])) return 0;
  for (int i = 0; i < a->nobs; i++)
    if (!eq(a->obs[i], b->obs[i])) return 0;
  for (int i = 0; i < a->nbound; i++) {
    const sdk_boundary *x = &a->bound[i], *y = &b->bound[i];
    if (x->kind != y->kind || x->var != y->var || x->upper != y->upper || x->strict != y->strict ||
        !eq(x->level, y->level))
      return 0;
  }
  for (int i = 0; i < a->njump; i++) {
    const sdk_jump *x = &a->jump[i], *y = &b->jump[i];
    if (x->var != y->var || x->kind != y->kind || x->centered != y->centered ||
        !eq(x->rate, y->rate) || !eq(x->a, y->a) || !eq(x->b, y->b))
      return 0;
  }
  for (int i = 0; i < a->ndich; i++) {
    const sdk_dichotomous *x = &a->dich[i], *y = &b->dich[i];
    if (x->var != y->var || x->init_given != y->init_given || !eq(x->a, y->a) || !eq(x->b, y->b) ||
        !eq(x->rab, y->rab) || !eq(x->rba, y->rba))
      return 0;
  }
  return 1;
}

static int same_model(const sdk_model *a, const sdk_model *b) {
  if (a->nvars != b->nvars || a->nparams != b->nparams || a->nwiener != b->nwiener ||
      a->npart != b->npart || a->nmean != b->nmean || a->npair != b->npair || a->nobs != b->nobs ||
      a->nbound != b->nbound || a->njump != b->njump || a->ndich != b->ndich ||
      a->calculus != b->calculus || !eq(a->period, b->period) ||
      !same_names(a->vars, b->vars, a->nvars) || !same_names(a->params, b->params, a->nparams))
    return 0;
  for (int i = 0; i < a->nparams; i++)
    if (memcmp(&a->pvalues[i], &b->pvalues[i], sizeof(double)) || !eq(a->pexpr[i], b->pexpr[i]))
      return 0;
  return same_vars(a, b) && same_extras(a, b);
}

/* Whether the line after the one that ends at p ('\n') continues a value:
 * indented, and more than blanks. */
static int continued(const char *p) {
  if (*p != '\n' || (p[1] != ' ' && p[1] != '\t')) return 0;
  for (p++; *p && *p != '\n'; p++)
    if (*p != ' ' && *p != '\t') return 1;
  return 0;
}

/* text with `comment` appended to every line (every: 1) or to every line
 * that an indented line continues (every: 0) */
static char *with_comments(const char *text, const char *comment, int every) {
  size_t n = strlen(text), lines = 1, c = strlen(comment);
  for (const char *p = text; *p; p++)
    lines += *p == '\n';
  char *out = malloc(n + lines * c + 1), *o = out;
  if (!out) return NULL;
  for (const char *p = text;; p++) {
    if ((every && (*p == '\n' || !*p)) || continued(p)) {
      memcpy(o, comment, c);
      o += c;
    }
    if (!*p) break;
    *o++ = *p;
  }
  *o = 0;
  return out;
}

static void check_comments(const char *text, const sdk_model *m) {
  /* (a carriage return inside a line is a line end to nobody: not here) */
  if (strchr(text, '\r')) return;
  /* '#' where it dropped the continuation; ';' everywhere */
  static const struct {
    const char *comment;
    int every;
  } ways[] = {{" #c", 0}, {" ;c", 1}};
  for (int k = 0; k < 2; k++) {
    char *t = with_comments(text, ways[k].comment, ways[k].every);
    if (!t) return;
    sdk_errbuf eb = {0};
    sdk_model *c = NULL;
    if (sdk_model_parse(t, "fuzz.sde", &c, &eb) == SDK_OK && !same_model(m, c)) {
      fprintf(stderr, "fuzz_model: a '%s' comment at the ends of lines changed the model\n",
              ways[k].comment + 1);
      abort();
    }
    sdk_model_destroy(&c);
    free(t);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_sandbox();
  char *text = fuzz_cstr(data, size);
  if (!text) return 0;
  sdk_errbuf eb = {0};
  sdk_model *m = NULL;
  if (sdk_model_parse(text, "fuzz.sde", &m, &eb) == SDK_OK) {
    /* the helpers the CLI calls on a parsed model */
    free(sdk_model_param_list(m));
    free(sdk_model_var_list(m));
    (void)sdk_model_first_periodic(m);
    for (int i = 0; i < m->nvars; i++)
      (void)sdk_model_var_index(m, m->vars[i]);
    for (int i = 0; i < m->nparams; i++)
      (void)sdk_model_param_index(m, m->params[i]);
    check_comments(text, m);
  }
  sdk_model_destroy(&m);
  sdk_model_destroy(&m); /* NULL-safe */
  free(text);
  return 0;
}
