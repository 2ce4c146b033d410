/* The entries of a model file's INI text, with their line numbers. */
#include <ctype.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "model/limits.h"
#include "model/model_internal.h"

/* The length of one physical line's value without its comment and the
 * blanks before it.  libinih hands every physical line of a continued value
 * to on_ini_kv separately, so this is the one place where a comment is cut
 * at the end of its own line, before the lines are joined (cut after the
 * join, it took the continuation lines with it).  A comment starts at '#',
 * or at ';' after a blank (libinih's rule, which libinih 55 itself applies
 * to the first line of a value only).  [model] name and description are
 * free text: their '#' is a character like any other. */
static size_t value_length(const char *section, const char *name, const char *value) {
  int text = !strcmp(section, "model") && (!strcmp(name, "name") || !strcmp(name, "description"));
  size_t n = 0;
  for (; value[n]; n++)
    if ((value[n] == '#' && !text) ||
        (value[n] == ';' && n > 0 && isspace((unsigned char)value[n - 1])))
      break;
  while (n > 0 && isspace((unsigned char)value[n - 1]))
    n--;
  return n;
}

/* libinih's handler: collect every entry (c: sdk_md_entries). */
static int on_ini_kv(void *user, const char *section, const char *name, const char *value) {
  sdk_md_entries *c = user;
  if (c->oom || c->toomany) return 0;
  size_t b = value_length(section, name, value);
  /* libinih calls again with the same key for an indented continuation
   * line: join it to the previous value */
  if (c->n > 0 && !strcmp(c->items[c->n - 1].section, section) &&
      !strcmp(c->items[c->n - 1].key, name)) {
    sdk_md_kv *last = &c->items[c->n - 1];
    size_t a = strlen(last->value);
    char *v = realloc(last->value, a + b + 2);
    if (!v) return c->oom = 1, 0;
    v[a] = ' ';
    memcpy(v + a + 1, value, b);
    v[a + 1 + b] = 0;
    last->value = v;
    return 1;
  }
  if (c->n == SDK_MODEL_MAX_ENTRIES) return c->toomany = 1, 0;
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 32;
    sdk_md_kv *it = realloc(c->items, (size_t)cap * sizeof *it);
    if (!it) return c->oom = 1, 0;
    c->items = it;
    c->cap = cap;
  }
  sdk_md_kv *it = &c->items[c->n];
  it->section = sdk_strdup(section);
  it->key = sdk_strdup(name);
  it->value = sdk_strndup(value, b);
  it->line = 0;
  if (!it->section || !it->key || !it->value) {
    free(it->section);
    free(it->key);
    free(it->value);
    return c->oom = 1, 0;
  }
  c->n++;
  return 1;
}

void sdk_md_entries_free(sdk_md_entries *c) {
  for (int i = 0; i < c->n; i++) {
    free(c->items[i].section);
    free(c->items[i].key);
    free(c->items[i].value);
  }
  free(c->items);
}

static int kv_order(const void *a, const void *b) {
  const sdk_md_kv *x = *(const sdk_md_kv *const *)a, *y = *(const sdk_md_kv *const *)b;
  int d = strcmp(x->section, y->section);
  return d ? d : strcmp(x->key, y->key);
}

/* A key given twice in one section, wherever the line scan of assign_lines
 * lost track of sections (a header after a carriage return, an indented
 * key): refuse it rather than keep one of the two silently. */
static sdk_err refuse_repeats(const sdk_md_entries *c, const char *path, sdk_errbuf *eb) {
  if (c->n < 2) return SDK_OK;
  sdk_md_kv **v = malloc((size_t)c->n * sizeof *v);
  if (!v) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int i = 0; i < c->n; i++)
    v[i] = &c->items[i];
  qsort(v, (size_t)c->n, sizeof *v, kv_order);
  sdk_err err = SDK_OK;
  for (int i = 1; i < c->n && err == SDK_OK; i++)
    if (!kv_order(&v[i - 1], &v[i]))
      err = SDK_FAIL(eb, SDK_ERR_MODEL, "%s: '%s' given twice in [%s]", path, v[i]->key,
                     v[i]->section);
  free(v);
  return err;
}

/* libinih does not report line numbers to the handler; find each key's
 * first line by scanning section headers and "key =" starts ourselves, and
 * catch keys given twice (libinih would merge them). */
static sdk_err assign_lines(sdk_md_entries *c, const char *text, const char *path, sdk_errbuf *eb) {
  char section[SDK_MODEL_MAX_LINE + 1] = "";
  int line = 0;
  const char *p = text;
  while (*p) {
    line++;
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    const char *q = p;
    while (q < p + len && (*q == ' ' || *q == '\t'))
      q++;
    int indented = q > p;
    if (q < p + len && *q == '[') {
      const char *r = memchr(q, ']', (size_t)(p + len - q));
      if (r) {
        size_t n = (size_t)(r - q - 1);
        if (n >= sizeof section) n = sizeof section - 1;
        memcpy(section, q + 1, n);
        section[n] = 0;
        /* trim */
        char *s = section;
        while (*s == ' ')
          memmove(s, s + 1, strlen(s));
        for (size_t k = strlen(section); k > 0 && section[k - 1] == ' '; k--)
          section[k - 1] = 0;
      }
    } else if (!indented && q < p + len && *q != '#' && *q != ';') {
      const char *eq = q;
      while (eq < p + len && *eq != '=' && *eq != ':')
        eq++;
      size_t kl = (size_t)(eq - q);
      while (kl > 0 && isspace((unsigned char)q[kl - 1]))
        kl--;
      for (int i = 0; i < c->n; i++) {
        sdk_md_kv *it = &c->items[i];
        if (strlen(it->key) == kl && !strncmp(it->key, q, kl) && !strcmp(it->section, section)) {
          if (it->line)
            return SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: '%s' given twice in [%s] (first on line %d)",
                            path, line, it->key, section, it->line);
          it->line = line;
          break;
        }
      }
    }
    p = e ? e + 1 : p + len;
  }
  return SDK_OK;
}

sdk_err sdk_md_read_entries(const char *text, const char *path, sdk_md_entries *c, sdk_errbuf *eb) {
  int rc = ini_parse_string(text, on_ini_kv, c);
  if (c->oom) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  if (c->toomany)
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s:%d: more than %d entries (the limit)", path, rc,
                    SDK_MODEL_MAX_ENTRIES);
  if (rc != 0)
    return SDK_FAIL(eb, SDK_ERR_MODEL,
                    "%s:%d: malformed line (expected '[section]', 'name = value', a comment, "
                    "or a line over 200 characters: continue it on an indented line)",
                    path, rc);
  SDK_CHECK(assign_lines(c, text, path, eb));
  return refuse_repeats(c, path, eb);
}
