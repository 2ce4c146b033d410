/* The figure description (cli/figure.h): labels, the figure's storage, and
 * its JSON. */
#include "figure/figure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------- labels ---------------- */

void sdk_lab_add(sdk_label *l, int style, const char *s) {
  if (!s || !s[0] || l->oom) return;
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 4;
    sdk_lab_run *r = realloc(l->r, (size_t)cap * sizeof *r);
    if (!r) {
      l->oom = 1;
      return;
    }
    l->r = r;
    l->cap = cap;
  }
  char *c = sdk_strdup(s);
  if (!c) {
    l->oom = 1;
    return;
  }
  l->r[l->n].style = style;
  l->r[l->n++].s = c;
}

void sdk_lab_text(sdk_label *l, const char *s) {
  sdk_lab_add(l, SDK_LAB_TEXT, s);
}
void sdk_lab_italic(sdk_label *l, const char *s) {
  sdk_lab_add(l, SDK_LAB_ITALIC, s);
}
void sdk_lab_sub(sdk_label *l, const char *s) {
  sdk_lab_add(l, SDK_LAB_SUB, s);
}
void sdk_lab_sup(sdk_label *l, const char *s) {
  sdk_lab_add(l, SDK_LAB_SUP, s);
}

static const char *const GREEK[][2] = {
    {"alpha", "α"}, {"beta", "β"},  {"gamma", "γ"}, {"delta", "δ"},  {"epsilon", "ε"},
    {"zeta", "ζ"},  {"eta", "η"},   {"theta", "θ"}, {"kappa", "κ"},  {"lambda", "λ"},
    {"mu", "μ"},    {"nu", "ν"},    {"xi", "ξ"},    {"rho", "ρ"},    {"sigma", "σ"},
    {"tau", "τ"},   {"phi", "φ"},   {"chi", "χ"},   {"psi", "ψ"},    {"omega", "ω"},
    {"Gamma", "Γ"}, {"Delta", "Δ"}, {"Theta", "Θ"}, {"Lambda", "Λ"}, {"Sigma", "Σ"},
    {"Phi", "Φ"},   {"Psi", "Ψ"},   {"Omega", "Ω"}};

void sdk_lab_sym_as(sdk_label *l, const char *name, int style) {
  for (size_t i = 0; i < sizeof GREEK / sizeof GREEK[0]; i++)
    if (!strcmp(name, GREEK[i][0])) {
      sdk_lab_add(l, style | SDK_LAB_ITALIC, GREEK[i][1]);
      return;
    }
  if (strlen(name) == 1 &&
      ((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z'))) {
    sdk_lab_add(l, style | SDK_LAB_ITALIC, name);
    return;
  }
  sdk_lab_add(l, style, name);
}

void sdk_lab_sym(sdk_label *l, const char *name) {
  sdk_lab_sym_as(l, name, SDK_LAB_TEXT);
}

void sdk_fmt_num(sdk_strbuf *b, double x) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.4g", x);
  /* 1e-05 -> 1e-5 */
  char *e = strchr(buf, 'e');
  if (e) {
    char *p = e + 1;
    if (*p == '+') memmove(p, p + 1, strlen(p));
    if (*p == '-') p++;
    while (p[0] == '0' && p[1])
      memmove(p, p + 1, strlen(p));
  }
  sdk_sb_puts(b, buf);
}

void sdk_fmt_val_err(sdk_strbuf *b, double v, double e) {
  if (isfinite(v) && isfinite(e) && e > 0 && fabs(v) < 1e6) {
    int dec = 1 - (int)floor(log10(e));
    if (dec < 0) dec = 0;
    if (dec <= 10) {
      sdk_sb_printf(b, "%.*f ± %.*f", dec, v, dec, e);
      return;
    }
  }
  sdk_fmt_num(b, v);
  sdk_sb_puts(b, " ± ");
  sdk_fmt_num(b, e);
}

/* A formatted piece as a text run. */
static void lab_buf(sdk_label *l, sdk_strbuf *b) {
  if (b->oom) l->oom = 1;
  sdk_lab_text(l, b->s);
  sdk_sb_free(b);
}

void sdk_lab_num(sdk_label *l, double x) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_fmt_num(&b, x);
  lab_buf(l, &b);
}

void sdk_lab_val_err(sdk_label *l, double v, double e) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_fmt_val_err(&b, v, e);
  lab_buf(l, &b);
}

void sdk_lab_count(sdk_label *l, int64_t n, const char *what) {
  int k = 0;
  sdk_strbuf b;
  sdk_sb_init(&b);
  while (k < 62 && ((int64_t)1 << k) < n)
    k++;
  if (n >= 1024 && ((int64_t)1 << k) == n) {
    char e[8];
    snprintf(e, sizeof e, "%d", k);
    sdk_lab_text(l, "2");
    sdk_lab_sup(l, e);
    sdk_sb_printf(&b, " %ss", what);
  } else {
    sdk_sb_printf(&b, "%lld %s%s", (long long)n, what, n == 1 ? "" : "s");
  }
  lab_buf(l, &b);
}

void sdk_lab_cat(sdk_label *dst, const sdk_label *src) {
  for (int i = 0; i < src->n; i++)
    sdk_lab_add(dst, src->r[i].style, src->r[i].s);
  if (src->oom) dst->oom = 1;
}

int sdk_lab_empty(const sdk_label *l) {
  return l->n == 0;
}

void sdk_lab_free(sdk_label *l) {
  for (int i = 0; i < l->n; i++)
    free(l->r[i].s);
  free(l->r);
  memset(l, 0, sizeof *l);
}

/* ---------------- the figure ---------------- */

sdk_fig_panel *sdk_fig_panel_new(sdk_figure *f, int kind) {
  if (f->npanels >= SDK_FIG_MAX_PANELS) return NULL;
  sdk_fig_panel *pn = &f->p[f->npanels++];
  memset(pn, 0, sizeof *pn);
  pn->kind = kind;
  pn->xtics = 1;
  pn->psize = 1;
  pn->band_alpha = 0.25;
  pn->band2_alpha = 0.45;
  return pn;
}

sdk_fig_series *sdk_fig_series_new(sdk_figure *f, sdk_fig_panel *pn, int64_t n, const char *what) {
  if (pn->nseries >= SDK_FIG_MAX_SERIES) return NULL;
  sdk_fig_series *s = &pn->s[pn->nseries++];
  memset(s, 0, sizeof *s);
  s->n = n;
  size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(double);
  double **arr[] = {&s->x, &s->y, &s->lo, &s->hi, &s->err, &s->w, &s->lo2, &s->hi2};
  const char *names = "xylhewLH";
  for (int i = 0; i < 8; i++)
    if (strchr(what, names[i]) && !(*arr[i] = calloc(1, bytes))) f->oom = 1;
  return f->oom ? NULL : s;
}

static void panel_free(sdk_fig_panel *pn) {
  sdk_lab_free(&pn->xlabel);
  sdk_lab_free(&pn->ylabel);
  sdk_lab_free(&pn->band);
  sdk_lab_free(&pn->band2);
  sdk_lab_free(&pn->cblabel);
  for (int k = 0; k < pn->nyt; k++)
    sdk_lab_free(&pn->ytl[k]);
  for (int k = 0; k < pn->ncat; k++)
    sdk_lab_free(&pn->cat[k]);
  for (int k = 0; k < pn->nnote; k++) {
    sdk_lab_free(&pn->note[k].text);
    sdk_lab_free(&pn->note[k].text2);
  }
  for (int k = 0; k < pn->nseries; k++) {
    sdk_fig_series *s = &pn->s[k];
    sdk_lab_free(&s->title);
    free(s->x), free(s->y), free(s->lo), free(s->hi), free(s->err), free(s->w);
    free(s->lo2), free(s->hi2);
  }
  free(pn->xe), free(pn->ye), free(pn->z);
}

void sdk_fig_free(sdk_figure *f) {
  sdk_lab_free(&f->title);
  sdk_lab_free(&f->subtitle);
  for (int k = 0; k < f->npanels; k++)
    panel_free(&f->p[k]);
  f->npanels = 0;
}

/* The plot area in screen fractions (right edges and gaps: cli/gnuplot.h). */
#define AREA_TOP 0.865
#define AREA_BOTTOM 0.115
#define AREA_LEFT 0.125

void sdk_fig_area(int k, int n, double right, double gap, double *left, double *rightp,
                  double *bottom, double *top) {
  double h = (AREA_TOP - AREA_BOTTOM + gap) / n;
  *top = AREA_TOP - k * h;
  *bottom = *top - h + gap;
  *left = AREA_LEFT;
  *rightp = right;
}

void sdk_fig_grid_area(int k, int n, double right, double *left, double *rightp, double *bottom,
                       double *top) {
  const double gap = 0.14, colgap = 0.11;
  if (n <= 2) {
    sdk_fig_area(k, n, right, gap, left, rightp, bottom, top);
    return;
  }
  int rows = (n + 1) / 2, row = k / 2, col = k % 2;
  double w = (right - AREA_LEFT - colgap) / 2;
  sdk_fig_area(row, rows, right, gap, left, rightp, bottom, top);
  *left = AREA_LEFT + col * (w + colgap);
  *rightp = *left + w;
}

const char *sdk_fig_color(int64_t i) {
  static const char *const COLORS[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                       "#E69F00", "#56B4E9", "#000000", "#7F7F7F"};
  return COLORS[i % 8];
}

const sdk_fig_stop *sdk_fig_palette(int palette, int *n) {
  static const sdk_fig_stop SEQ[] = {
      {0, "#440154"}, {0.25, "#3b528b"}, {0.5, "#21918c"}, {0.75, "#5ec962"}, {1, "#fde725"}};
  static const sdk_fig_stop DIV[] = {
      {-1, "#2166ac"}, {-0.5, "#92c5de"}, {0, "#f7f7f7"}, {0.5, "#f4a582"}, {1, "#b2182b"}};
  static const sdk_fig_stop DEN[] = {{0, "#ffffff"},   {0.12, "#fff3b0"}, {0.35, "#fec44f"},
                                     {0.6, "#f46d43"}, {0.82, "#c2185b"}, {1, "#4a0a50"}};
  *n = palette == SDK_PAL_DENSITY ? 6 : 5;
  return palette == SDK_PAL_DIVERGING ? DIV : palette == SDK_PAL_DENSITY ? DEN : SEQ;
}

void sdk_fig_cbrange(double lo, double hi, int *palette, int *set, double *clo, double *chi) {
  *palette = -1;
  *set = 0;
  *clo = lo;
  *chi = hi;
  if (!(lo <= hi)) return;
  *palette = SDK_PAL_SEQUENTIAL;
  if (lo < 0 && hi > 0) {
    double m = fmax(-lo, hi);
    *palette = SDK_PAL_DIVERGING;
    *set = 1;
    *clo = -m;
    *chi = m;
  } else if (hi == lo) {
    *set = 1;
    *clo = lo - 0.5 - fabs(lo) * 0.1;
    *chi = hi + 0.5 + fabs(hi) * 0.1;
  }
}

/* ---------------- JSON ---------------- */

int sdk_utf8_decode(const unsigned char *s, unsigned *cpo) {
  unsigned c = s[0], cp;
  int n;
  if (c >= 0xC2 && c <= 0xDF)
    n = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF)
    n = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4)
    n = 4, cp = c & 0x07;
  else
    return 0;
  for (int i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (s[i] & 0x3F);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  *cpo = cp;
  return n;
}

/* A JSON string: '"' and '\' escaped, control characters (C0, DEL, C1) as
 * \u00XX, every
 * byte that is not well-formed UTF-8 as U+FFFD, so that any string from a
 * result file gives valid JSON that says what it held. */
void sdk_fig_json_str(sdk_strbuf *b, const char *s) {
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  sdk_sb_puts(b, "\"");
  while (*p) {
    int n;
    unsigned cp = 0;
    if (*p == '"' || *p == '\\') {
      sdk_sb_printf(b, "\\%c", *p++);
    } else if (*p < 0x20 || *p == 0x7F) {
      sdk_sb_printf(b, "\\u%04x", *p++);
    } else if (*p < 0x80) {
      sdk_sb_putn(b, (const char *)p++, 1);
    } else if ((n = sdk_utf8_decode(p, &cp)) > 0 && cp < 0xA0) {
      sdk_sb_printf(b, "\\u%04x", cp);
      p += n;
    } else if (n > 0) {
      sdk_sb_putn(b, (const char *)p, (size_t)n);
      p += n;
    } else {
      sdk_sb_puts(b, "\\ufffd");
      p++;
    }
  }
  sdk_sb_puts(b, "\"");
}

static void json_num(sdk_strbuf *b, double x) {
  if (isfinite(x))
    sdk_sb_printf(b, "%.17g", x);
  else
    sdk_sb_puts(b, "null");
}

/* `, "key": [a, b]`, or null when not set. */
static void json_pair(sdk_strbuf *b, const char *key, int set, double a, double c) {
  sdk_sb_printf(b, ", \"%s\": ", key);
  if (!set) {
    sdk_sb_puts(b, "null");
    return;
  }
  sdk_sb_puts(b, "[");
  json_num(b, a);
  sdk_sb_puts(b, ", ");
  json_num(b, c);
  sdk_sb_puts(b, "]");
}

static void json_arr(sdk_strbuf *b, const char *key, const double *v, int64_t n) {
  if (!v) return;
  sdk_sb_printf(b, ", \"%s\": [", key);
  for (int64_t i = 0; i < n; i++) {
    if (i) sdk_sb_puts(b, ", ");
    json_num(b, v[i]);
  }
  sdk_sb_puts(b, "]");
}

/* A label: [[style, text], ...] with style "" or words of "italic", "sub",
 * "sup" ("italic sub"). */
static void json_label(sdk_strbuf *b, const char *key, const sdk_label *l) {
  sdk_sb_printf(b, "\"%s\": [", key);
  for (int i = 0; i < l->n; i++) {
    int st = l->r[i].style;
    sdk_sb_printf(b, "%s[\"%s%s%s%s%s\", ", i ? ", " : "", st & SDK_LAB_ITALIC ? "italic" : "",
                  st & SDK_LAB_ITALIC && st & ~SDK_LAB_ITALIC ? " " : "",
                  st & SDK_LAB_SUB ? "sub" : "", st & SDK_LAB_SUB && st & SDK_LAB_SUP ? " " : "",
                  st & SDK_LAB_SUP ? "sup" : "");
    sdk_fig_json_str(b, l->r[i].s);
    sdk_sb_puts(b, "]");
  }
  sdk_sb_puts(b, "]");
}

static void json_series(sdk_strbuf *b, const sdk_fig_series *s) {
  sdk_sb_puts(b, "{");
  json_label(b, "title", &s->title);
  sdk_sb_printf(b, ", \"color\": \"%s\", \"steps\": %s, \"fill\": %s, \"thin\": %s, \"n\": %lld",
                sdk_fig_color(s->color), s->steps ? "true" : "false", s->fill ? "true" : "false",
                s->thin ? "true" : "false", (long long)s->n);
  json_arr(b, "x", s->x, s->n);
  json_arr(b, "y", s->y, s->n);
  json_arr(b, "lo", s->lo, s->n);
  json_arr(b, "hi", s->hi, s->n);
  json_arr(b, "lo2", s->lo2, s->n);
  json_arr(b, "hi2", s->hi2, s->n);
  json_arr(b, "err", s->err, s->n);
  json_arr(b, "w", s->w, s->n);
  sdk_sb_puts(b, "}");
}

static void json_panel(sdk_strbuf *b, const sdk_fig_panel *pn) {
  static const char *const KIND[] = {"lines", "points", "boxes", "map"};
  sdk_sb_printf(b, "{\"kind\": \"%s\", \"box\": [%.4f, %.4f, %.4f, %.4f], ", KIND[pn->kind],
                pn->left, pn->right, pn->bottom, pn->top);
  json_label(b, "xlabel", &pn->xlabel);
  sdk_sb_puts(b, ", ");
  json_label(b, "ylabel", &pn->ylabel);
  sdk_sb_printf(
      b, ", \"xtics\": %s, \"xlog\": %s, \"ylog\": %s, \"ystep\": ", pn->xtics ? "true" : "false",
      pn->xlog ? "true" : "false", pn->ylog ? "true" : "false");
  json_num(b, pn->ystep);
  json_pair(b, "xrange", pn->xset, pn->xlo, pn->xhi);
  sdk_sb_puts(b, ", \"yticks\": [");
  for (int k = 0; k < pn->nyt; k++) {
    sdk_sb_puts(b, k ? ", {\"at\": " : "{\"at\": ");
    json_num(b, pn->ytv[k]);
    sdk_sb_puts(b, ", ");
    json_label(b, "text", &pn->ytl[k]);
    sdk_sb_puts(b, "}");
  }
  sdk_sb_puts(b, "], \"xstep\": ");
  json_num(b, pn->xstep);
  json_pair(b, "yrange", pn->yset, pn->ylo, pn->yhi);
  json_pair(b, "key", pn->key, pn->keyx, pn->keyy);
  sdk_sb_puts(b, ", ");
  json_label(b, "band", &pn->band);
  sdk_sb_puts(b, ", ");
  json_label(b, "band2", &pn->band2);
  sdk_sb_puts(b, ", \"band_alpha\": ");
  json_num(b, pn->band_alpha);
  sdk_sb_puts(b, ", \"band2_alpha\": ");
  json_num(b, pn->band2_alpha);
  if (pn->kind == SDK_FIG_POINTS) {
    sdk_sb_puts(b, ", \"psize\": ");
    json_num(b, pn->psize);
    sdk_sb_printf(b, ", \"joined\": %s, \"small_bars\": %s, \"xfit\": %s",
                  pn->joined ? "true" : "false", pn->small_bars ? "true" : "false",
                  pn->xfit ? "true" : "false");
  }
  sdk_sb_puts(b, ", \"categories\": [");
  for (int k = 0; k < pn->ncat; k++) {
    sdk_sb_puts(b, k ? ", {" : "{");
    json_label(b, "text", &pn->cat[k]);
    sdk_sb_puts(b, "}");
  }
  sdk_sb_puts(b, "], \"notes\": [");
  for (int k = 0; k < pn->nnote; k++) {
    sdk_sb_puts(b, k ? ", {" : "{");
    json_label(b, "text", &pn->note[k].text);
    sdk_sb_puts(b, ", ");
    json_label(b, "text2", &pn->note[k].text2);
    sdk_sb_printf(b, ", \"white\": %s, \"x\": ", pn->note[k].white ? "true" : "false");
    json_num(b, pn->note[k].x);
    sdk_sb_puts(b, ", \"y\": ");
    json_num(b, pn->note[k].y);
    sdk_sb_puts(b, "}");
  }
  sdk_sb_puts(b, "]");
  if (pn->kind == SDK_FIG_MAP) {
    sdk_sb_printf(b, ", \"nx\": %lld, \"ny\": %lld", (long long)pn->nx, (long long)pn->ny);
    json_arr(b, "xe", pn->xe, pn->nx + 1);
    sdk_sb_printf(b, ", \"ye_stride\": %lld", (long long)pn->ye_stride);
    json_arr(b, "ye", pn->ye, pn->ye_stride ? pn->nx * pn->ye_stride : pn->ny + 1);
    json_arr(b, "z", pn->z, pn->nx * pn->ny);
    sdk_sb_puts(b, ", ");
    json_label(b, "cblabel", &pn->cblabel);
    int n;
    const sdk_fig_stop *st = sdk_fig_palette(pn->palette, &n);
    sdk_sb_puts(b, ", \"palette\": [");
    for (int k = 0; k < n; k++)
      sdk_sb_printf(b, "%s[%g, \"%s\"]", k ? ", " : "", st[k].at, st[k].color);
    sdk_sb_printf(b, "], \"cblog\": %s, \"zfloor\": ", pn->cblog ? "true" : "false");
    json_num(b, pn->zfloor);
    json_pair(b, "cbrange", pn->cbset, pn->cblo, pn->cbhi);
  }
  sdk_sb_puts(b, ", \"series\": [");
  for (int k = 0; k < pn->nseries; k++) {
    if (k) sdk_sb_puts(b, ", ");
    json_series(b, &pn->s[k]);
  }
  sdk_sb_puts(b, "]}");
}

void sdk_fig_json(sdk_strbuf *b, const sdk_figure *f) {
  sdk_sb_puts(b, "{\"figure\": ");
  sdk_fig_json_str(b, f->name);
  sdk_sb_puts(b, ", ");
  json_label(b, "title", &f->title);
  sdk_sb_puts(b, ", ");
  json_label(b, "subtitle", &f->subtitle);
  sdk_sb_puts(b, ", \"panels\": [");
  for (int k = 0; k < f->npanels; k++) {
    if (k) sdk_sb_puts(b, ", ");
    json_panel(b, &f->p[k]);
  }
  sdk_sb_puts(b, "]}");
}
