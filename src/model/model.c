/* sdekit: the model object (model/model.h) and the checks of model text
 * before it is parsed.  The reading is split by concern (model_internal.h):
 * entries.c, sections.c, resolve.c, lookup.c. */
#include "model/model.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/numfmt.h"
#include "core/strbuf.h"
#include "model/limits.h"
#include "model/model_internal.h"

int sdk_parse_number(const char *s, double *out) {
  return sdk_parse_decimal(s, out);
}

void sdk_model_destroy(sdk_model **mp) {
  if (!mp || !*mp) return;
  sdk_model *m = *mp;
  for (int i = 0; i < m->nvars; i++) {
    free(m->vars[i]);
    if (m->drift) sdk_expr_destroy(&m->drift[i]);
    if (m->noise) sdk_expr_destroy(&m->noise[i]);
    if (m->init) {
      sdk_expr_destroy(&m->init[i].a);
      sdk_expr_destroy(&m->init[i].b);
    }
  }
  for (int i = 0; i < m->nparams; i++) {
    free(m->params[i]);
    if (m->pexpr) sdk_expr_destroy(&m->pexpr[i]);
  }
  free(m->pexpr);
  free(m->vars);
  free(m->params);
  free(m->pvalues);
  free(m->param_line);
  free(m->drift);
  free(m->noise);
  free(m->drift_line);
  free(m->noise_line);
  free(m->init);
  sdk_expr_destroy(&m->period);
  for (int i = 0; i < m->npart; i++) {
    free(m->part[i].name);
    sdk_expr_destroy(&m->part[i].a);
    sdk_expr_destroy(&m->part[i].b);
  }
  free(m->part);
  for (int i = 0; i < m->nmean; i++) {
    free(m->mean_names[i]);
    if (m->mean) sdk_expr_destroy(&m->mean[i]);
  }
  free(m->mean_names);
  free(m->mean);
  free(m->mean_line);
  for (int i = 0; i < m->npair; i++) {
    free(m->pair_names[i]);
    if (m->pair) sdk_expr_destroy(&m->pair[i]);
  }
  free(m->pair_names);
  free(m->pair);
  free(m->pair_line);
  for (int i = 0; i < m->nobs; i++) {
    free(m->obs_names[i]);
    sdk_expr_destroy(&m->obs[i]);
  }
  free(m->obs_names);
  free(m->obs);
  free(m->obs_line);
  for (int i = 0; i < m->nbound; i++) {
    free(m->bound[i].name);
    sdk_expr_destroy(&m->bound[i].level);
  }
  free(m->bound);
  for (int i = 0; i < m->nwiener; i++) {
    free(m->wiener[i]);
    for (int v = 0; m->wcoef && v < m->nvars; v++)
      sdk_expr_destroy(&m->wcoef[v * m->nwiener + i]);
  }
  for (int i = 0; m->corr && i < m->nwiener * m->nwiener; i++)
    sdk_expr_destroy(&m->corr[i]);
  free(m->wiener);
  free(m->wcoef);
  free(m->corr);
  for (int i = 0; i < m->njump; i++) {
    sdk_expr_destroy(&m->jump[i].rate);
    sdk_expr_destroy(&m->jump[i].a);
    sdk_expr_destroy(&m->jump[i].b);
  }
  free(m->jump);
  for (int i = 0; i < m->ndich; i++) {
    sdk_expr_destroy(&m->dich[i].a);
    sdk_expr_destroy(&m->dich[i].b);
    sdk_expr_destroy(&m->dich[i].rab);
    sdk_expr_destroy(&m->dich[i].rba);
  }
  free(m->dich);
  for (int i = 0; i < m->nevent; i++) {
    free(m->event[i].name);
    sdk_expr_destroy(&m->event[i].cond.level);
    for (int k = 0; k < m->event[i].nreset; k++)
      sdk_expr_destroy(&m->event[i].reset[k]);
  }
  free(m->event);
  for (int i = 0; i < m->ncolored; i++) {
    sdk_expr_destroy(&m->colored[i].tau);
    sdk_expr_destroy(&m->colored[i].d);
  }
  free(m->colored);
  for (int i = 0; i < m->nlevy; i++)
    sdk_expr_destroy(&m->levy[i].scale);
  free(m->levy);
  for (int i = 0; i < m->ndelay; i++) {
    sdk_expr_destroy(&m->delay[i].tau);
    free(m->delay[i].where);
  }
  free(m->delay);
  for (int v = 0; m->history && v < m->nvars; v++)
    sdk_expr_destroy(&m->history[v]);
  free(m->history);
  free(m->history_line);
  if (m->var_period)
    for (int i = 0; i < m->nvars; i++)
      sdk_expr_destroy(&m->var_period[i]);
  free(m->var_period);
  free(m->name);
  free(m->description);
  free(m->path);
  free(m->file);
  free(m->text);
  free(m);
  *mp = NULL;
}

int sdk_model_var_index(const sdk_model *m, const char *name) {
  for (int i = 0; i < m->nvars; i++)
    if (!strcmp(m->vars[i], name)) return i;
  return -1;
}

int sdk_model_reflect_both(const sdk_model *m, int v) {
  int side[2] = {0, 0};
  for (int k = 0; k < m->nbound; k++)
    if (m->bound[k].kind == SDK_BOUND_REFLECT && m->bound[k].var == v) side[m->bound[k].upper] = 1;
  return side[0] && side[1];
}

int sdk_model_param_index(const sdk_model *m, const char *name) {
  for (int i = 0; i < m->nparams; i++)
    if (!strcmp(m->params[i], name)) return i;
  return -1;
}

static double param_value(void *user, sdk_symkind k, int idx) {
  const double *pv = user;
  return k == SDK_SYM_PARAM ? pv[idx] : NAN;
}

double sdk_model_eval_params(const sdk_expr *e, const double *pv) {
  return sdk_expr_eval(e, param_value, (void *)pv);
}

void sdk_model_derive(const sdk_model *m, const unsigned char *given, double *pv) {
  for (int i = 0; m->pexpr && i < m->nparams; i++)
    if (m->pexpr[i] && !(given && given[i])) pv[i] = sdk_expr_eval(m->pexpr[i], param_value, pv);
}

char *sdk_md_join(char **names, int n) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  for (int i = 0; i < n; i++) {
    if (i) sdk_sb_puts(&b, ", ");
    sdk_sb_puts(&b, names[i]);
  }
  if (n == 0) sdk_sb_puts(&b, "(none)");
  return sdk_sb_take(&b);
}

char *sdk_model_param_list(const sdk_model *m) {
  return sdk_md_join(m->params, m->nparams);
}
char *sdk_model_var_list(const sdk_model *m) {
  return sdk_md_join(m->vars, m->nvars);
}

int sdk_model_first_periodic(const sdk_model *m) {
  for (int v = 0; m->var_period && v < m->nvars; v++)
    if (m->var_period[v]) return v;
  return -1;
}

int sdk_md_part_index(const sdk_model *m, const char *name) {
  for (int i = 0; i < m->npart; i++)
    if (!strcmp(m->part[i].name, name)) return i;
  return -1;
}
int sdk_md_name_index(char **names, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(names[i], name)) return i;
  return -1;
}

/* Length of the well-formed UTF-8 sequence at p (at most n bytes), 0 if
 * malformed (overlong forms, surrogates and code points past U+10FFFF
 * included). */
static size_t utf8_len(const unsigned char *p, size_t n) {
  unsigned c = p[0];
  size_t k;
  unsigned min, cp;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf)
    k = 2, min = 0x80, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef)
    k = 3, min = 0x800, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4)
    k = 4, min = 0x10000, cp = c & 0x07;
  else
    return 0;
  if (k > n) return 0;
  for (size_t i = 1; i < k; i++) {
    if ((p[i] & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (p[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return k;
}

sdk_err sdk_model_parse_buffer(const char *data, size_t len, const char *name, sdk_model **out,
                               sdk_errbuf *eb) {
  *out = NULL;
  if (!name) name = "(model text)";
  if (len > SDK_MODEL_MAX_BYTES)
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: %zu bytes, more than the %d bytes a model may have",
                    name, len, SDK_MODEL_MAX_BYTES);
  const unsigned char *p = (const unsigned char *)data;
  /* libinih skips a UTF-8 byte order mark; so does everything after it */
  if (len >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) p += 3, len -= 3;
  /* A NUL would end the text early for libinih, silently dropping the rest;
   * a line past libinih's buffer would be split into two lines; invalid
   * UTF-8 would reach HDF5 attributes declared UTF-8.  Refuse each. */
  int line = 1;
  size_t col = 0;
  for (size_t i = 0; i < len;) {
    if (p[i] == '\n') {
      line++, col = 0, i++;
      continue;
    }
    if (p[i] == 0)
      return SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: NUL byte at column %zu (a model file is text)",
                      name, line, col + 1);
    size_t k = utf8_len(p + i, len - i);
    if (!k)
      return SDK_FAIL(eb, SDK_ERR_MODEL,
                      "%s:%d: byte 0x%02x at column %zu is not UTF-8 (a model file is UTF-8 text)",
                      name, line, p[i], col + 1);
    if ((col += k) > SDK_MODEL_MAX_LINE)
      return SDK_FAIL(eb, SDK_ERR_MODEL,
                      "%s:%d: line longer than %d bytes (the limit): continue a long value on "
                      "indented lines",
                      name, line, SDK_MODEL_MAX_LINE);
    i += k;
  }
  char *text = malloc(len + 1);
  if (!text) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  memcpy(text, p, len);
  text[len] = 0;
  sdk_err err = sdk_md_parse_text(text, name, out, eb);
  free(text);
  return err;
}

sdk_err sdk_model_parse(const char *text, const char *path, sdk_model **out, sdk_errbuf *eb) {
  if (!text) return *out = NULL, SDK_FAIL(eb, SDK_ERR_MODEL, "%s: no model text", path);
  return sdk_model_parse_buffer(text, strlen(text), path, out, eb);
}
