#include "codegen/emit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/escape.h"
#include "core/numfmt.h"

sdk_emit sdk_em_on(sdk_strbuf *b, int single) {
  sdk_emit em = {b, 0, single};
  return em;
}

sdk_emit sdk_em_child(const sdk_emit *em, sdk_strbuf *b) {
  sdk_emit c = {b, em->depth, em->single};
  if (b->max == 0) b->max = em->b->max;
  return c;
}

void sdk_em_append_range(sdk_emit *em, const sdk_strbuf *part, size_t from, size_t to) {
  if (part->oom) em->b->oom = 1;
  if (part->over) em->b->over = 1;
  if (part->s && from < to && to <= part->len) sdk_sb_putn(em->b, part->s + from, to - from);
}

void sdk_em_append(sdk_emit *em, const sdk_strbuf *part) {
  sdk_em_append_range(em, part, 0, part->len);
}

#define LINE_BACK "#line @ \"sdekit-generated\"\n"

void sdk_em_line_back(sdk_emit *em) {
  sdk_sb_puts(em->b, LINE_BACK);
}

char *sdk_em_finish(sdk_strbuf *b) {
  if (b->oom || b->over || !b->s) return sdk_sb_take(b);
  const size_t n = sizeof LINE_BACK - 1;
  sdk_strbuf out;
  sdk_sb_init(&out);
  const char *p = b->s, *done = b->s;
  for (int line = 1;; line++) {
    if (!strncmp(p, LINE_BACK, n)) {
      sdk_sb_putn(&out, done, (size_t)(p - done));
      sdk_sb_printf(&out, "#line %d \"sdekit-generated\"\n", line + 1);
      done = p + n;
    }
    const char *nl = strchr(p, '\n');
    if (!nl) break;
    p = nl + 1;
  }
  sdk_sb_puts(&out, done);
  sdk_sb_free(b);
  return sdk_sb_take(&out);
}

void sdk_em_kernel(sdk_emit *em, const char *text) {
  sdk_em_kernel_hooks(em, text, NULL, 0, NULL);
}

/* the hook of the line at p (after its indentation), or NULL if none */
static const char *hook_name(const char *p, size_t *len) {
  static const char tag[] = "SDK_HOOK(";
  if (strncmp(p, tag, sizeof tag - 1)) return NULL;
  p += sizeof tag - 1;
  *len = strcspn(p, ",)\n");
  return p;
}

void sdk_em_kernel_hooks(sdk_emit *em, const char *text, const sdk_em_hook *hooks, int nhooks,
                         const void *ctx) {
  /* line 1 is `#line 2 "kernels/NAME"`: the file's name for the lines after a hook */
  const char *file = strchr(text, '"');
  int flen = file ? (int)strcspn(++file, "\"\n") : 0;
  const char *from = text, *p = text;
  for (int line = 1; *p; line++) {
    const char *nl = strchr(p, '\n');
    const char *next = nl ? nl + 1 : p + strlen(p);
    size_t sp = strspn(p, " "), len;
    const char *name = hook_name(p + sp, &len);
    if (name) {
      sdk_sb_putn(em->b, from, (size_t)(p - from));
      sdk_em_line_back(em);
      int k = 0;
      while (k < nhooks && (strlen(hooks[k].name) != len || strncmp(hooks[k].name, name, len)))
        k++;
      int depth = em->depth;
      em->depth = (int)sp / 2;
      if (k < nhooks)
        hooks[k].fn(em, ctx);
      else /* (a generator bug: the kernel does not compile) */
        sdk_em_printf(em, "#error kernel hook %.*s has no code\n", (int)len, name);
      em->depth = depth;
      sdk_em_printf(em, "#line %d \"%.*s\"\n", line + 1, flen, file);
      from = next;
    }
    p = next;
  }
  size_t n = strlen(from);
  sdk_sb_putn(em->b, from, n);
  if (n && from[n - 1] != '\n') sdk_sb_puts(em->b, "\n");
  sdk_em_line_back(em);
}

static void indent(sdk_emit *em, int depth) {
  for (int i = 0; i < depth; i++)
    sdk_sb_puts(em->b, "  ");
}

static void vput(sdk_emit *em, const char *fmt, va_list ap) {
  char small[256];
  va_list aq;
  va_copy(aq, ap);
  int n = vsnprintf(small, sizeof small, fmt, aq);
  va_end(aq);
  if (n < 0) {
    em->b->oom = 1;
  } else if ((size_t)n < sizeof small) {
    sdk_sb_putn(em->b, small, (size_t)n);
  } else {
    char *big = malloc((size_t)n + 1);
    if (!big) {
      em->b->oom = 1;
      return;
    }
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    sdk_sb_putn(em->b, big, (size_t)n);
    free(big);
  }
}

/* indentation (none for a preprocessor line) and the formatted text */
static void vstart(sdk_emit *em, const char *fmt, va_list ap) {
  if (fmt[0] != '#') indent(em, em->depth);
  vput(em, fmt, ap);
}

void sdk_em_line(sdk_emit *em, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vstart(em, fmt, ap);
  va_end(ap);
  sdk_sb_puts(em->b, "\n");
}

void sdk_em_start(sdk_emit *em, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vstart(em, fmt, ap);
  va_end(ap);
}

void sdk_em_open(sdk_emit *em, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vstart(em, fmt, ap);
  va_end(ap);
  sdk_sb_puts(em->b, " {\n");
  em->depth++;
}

void sdk_em_block(sdk_emit *em) {
  indent(em, em->depth);
  sdk_sb_puts(em->b, "{\n");
  em->depth++;
}

void sdk_em_close(sdk_emit *em) {
  if (em->depth > 0) em->depth--;
  indent(em, em->depth);
  sdk_sb_puts(em->b, "}\n");
}

void sdk_em_reopen(sdk_emit *em, const char *fmt, ...) {
  indent(em, em->depth > 0 ? em->depth - 1 : 0);
  sdk_sb_puts(em->b, "} ");
  va_list ap;
  va_start(ap, fmt);
  vput(em, fmt, ap);
  va_end(ap);
  sdk_sb_puts(em->b, " {\n");
}

void sdk_em_text(sdk_emit *em, const char *text) {
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
    if (*p != '\n' && *p != '#') indent(em, em->depth);
    sdk_sb_putn(em->b, p, n);
    p += n;
  }
}

void sdk_em_puts(sdk_emit *em, const char *s) {
  sdk_sb_puts(em->b, s);
}

void sdk_em_printf(sdk_emit *em, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vput(em, fmt, ap);
  va_end(ap);
}

int sdk_em_name_ok(const char *name) {
  return name && sdk_is_identifier(name, SDK_EM_MAX_NAME);
}

void sdk_em_name_to(sdk_strbuf *b, const char *name) {
  if (sdk_em_name_ok(name)) {
    sdk_sb_puts(b, "u_");
    sdk_sb_puts(b, name);
  } else {
    /* unreachable (sdk_codegen checks every name first); never data in source */
    sdk_sb_puts(b, "sdk_invalid_name");
  }
}

void sdk_em_name(sdk_emit *em, const char *name) {
  sdk_em_name_to(em->b, name);
}

void sdk_em_cstr(sdk_emit *em, const char *s) {
  sdk_esc_c(em->b, s);
}

void sdk_em_double(sdk_emit *em, double v) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.17g", v);
  /* a floating literal, never an integer one (1/2 would be 0) */
  if (!strpbrk(buf, ".eEn")) strcat(buf, ".0");
  sdk_sb_puts(em->b, buf);
}

void sdk_em_number(sdk_emit *em, double v) {
  char buf[64];
  sdk_sb_puts(em->b, sdk_fmt_literal(buf, v, em->single));
}
