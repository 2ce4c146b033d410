/* sdekit: the emitter, through which all generated source is written.
 *
 * An emitter is a text buffer with an indentation depth (two spaces per
 * level) and the kernel's precision.  Code is written as lines and blocks:
 *
 *   sdk_em_open(em, "for (int i = 0; i < %d; i++)", n);   ->  for (...) {
 *   sdk_em_line(em, "x[i] = 0;");                          ->    x[i] = 0;
 *   sdk_em_close(em);                                      ->  }
 *
 * and fixed passages of code as text whose lines are indented to the depth
 * (sdk_em_text; preprocessor lines stay in column 0).  The data that reaches
 * the source goes through one function per kind, never through a format:
 *
 *   sdk_em_name    a name from a model file, as the identifier u_NAME after
 *                  checking that NAME is an identifier: the one mapping of
 *                  user names (nothing the generator declares starts with
 *                  u_, so any name the model grammar accepts is safe);
 *   sdk_em_cstr    a string, as a C string literal (core/escape.h);
 *   sdk_em_number  a number, as a literal of the kernel's type (17
 *                  significant digits, "f" in single precision).
 *
 * Lines may also be built piecewise: sdk_em_start (indentation and text),
 * then sdk_em_printf / sdk_em_puts / the data functions, ending with "\n".
 * An allocation failure is remembered in the buffer (sdk_strbuf.oom) and
 * reported by whoever takes the text.
 */
#ifndef SDK_CODEGEN_EMIT_H
#define SDK_CODEGEN_EMIT_H

#include "core/strbuf.h"
#include "model/limits.h"

/* Longest name a model may give (the generator has no smaller bound). */
#define SDK_EM_MAX_NAME SDK_MODEL_MAX_NAME

typedef struct sdk_emit {
  sdk_strbuf *b; /* the text */
  int depth;     /* indentation: 2 * depth spaces */
  int single;    /* numbers are float literals */
} sdk_emit;

/* An emitter at depth 0 writing to b. */
sdk_emit sdk_em_on(sdk_strbuf *b, int single);
/* An emitter writing to b with em's depth and precision (a part of the
 * source produced out of order, appended later with sdk_em_append); b takes
 * em's size cap (sdk_strbuf.max) when it has none. */
sdk_emit sdk_em_child(const sdk_emit *em, sdk_strbuf *b);
/* Append the text of another buffer (and its allocation failure or its
 * overflow of the size cap), or its bytes [from, to). */
void sdk_em_append(sdk_emit *em, const sdk_strbuf *part);
void sdk_em_append_range(sdk_emit *em, const sdk_strbuf *part, size_t from, size_t to);

/* Indentation, text, newline (a preprocessor line, '#' first, stays in
 * column 0, here and in sdk_em_start and sdk_em_text). */
void sdk_em_line(sdk_emit *em, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Indentation and text, no newline (the line continues). */
void sdk_em_start(sdk_emit *em, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "HEAD {" and one level deeper. */
void sdk_em_open(sdk_emit *em, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "{" alone and one level deeper. */
void sdk_em_block(sdk_emit *em);
/* One level up and "}". */
void sdk_em_close(sdk_emit *em);
/* "} HEAD {" at the level of the block that closes (e.g. HEAD = "else"). */
void sdk_em_reopen(sdk_emit *em, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Lines of code (text ending in a newline), each indented to the depth;
 * empty lines and preprocessor lines ('#' first) are not indented. */
void sdk_em_text(sdk_emit *em, const char *text);

/* A fixed kernel file of src/codegen/kernels/ (its text embedded at build
 * as sdk_embedded_<name>: CMakeLists.txt; kernels/README.md), which starts
 * with `#line 2 "kernels/NAME"` so that compiler messages name its physical
 * lines; then a back-reference to the generated text (sdk_em_line_back).
 * (sdk_em_kernel_hooks below, the one way a file is written, without
 * hooks). */
void sdk_em_kernel(sdk_emit *em, const char *text);

/* #line back-references to the generated text (after a model expression or
 * a kernel file) are numbered in one pass over the finished source, so that
 * parts emitted out of order (sdk_em_child, sdk_em_append) need no care:
 * sdk_em_line_back writes, at the start of a line, the marker line
 * `#line @ "sdekit-generated"`, and sdk_em_finish, called where the
 * generator finishes the source (codegen.c), takes the text of b with every
 * marker written `#line N "sdekit-generated"`, N the physical line after it
 * (NULL after an allocation failure or an overflow of b's cap, as
 * sdk_sb_take; b is emptied).  A marker left unnumbered does not compile. */
void sdk_em_line_back(sdk_emit *em);
char *sdk_em_finish(sdk_strbuf *b);

/* A kernel file with hooks: places where the generator writes the code that
 * depends on the model.  A line `SDK_HOOK(NAME, v...);` of the file is
 * replaced by the code of the hook NAME (hooks[k].fn(em, ctx) for
 * hooks[k].name NAME, written at the depth of the line's indentation; a
 * hook without code is written `#error`); the file resumes after it with a
 * `#line` naming its physical line, so that messages name the file or the
 * generated code.  The values v... are those the hook's code reads, for the
 * file's compile on its own (tests/kernels/prelude.h: a call using them,
 * of value 1).  A hook's code is statements, or the end of an expression
 * that the line before begins (`const int alive = p < npad &&` then
 * `SDK_HOOK(alive, st, npad, p);`: the code writes the operand and the
 * `;`).  Written on the line's own, a hook keeps the tokens of the file and
 * of its code as they are: nothing else of the kernel is assembled from
 * text.  ctx: what the hooks' functions read (a small struct of the
 * caller's). */
typedef struct sdk_em_hook {
  const char *name;
  void (*fn)(sdk_emit *em, const void *ctx);
} sdk_em_hook;
void sdk_em_kernel_hooks(sdk_emit *em, const char *text, const sdk_em_hook *hooks, int nhooks,
                         const void *ctx);

/* Raw text, no indentation. */
void sdk_em_puts(sdk_emit *em, const char *s);
void sdk_em_printf(sdk_emit *em, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The data. */
void sdk_em_name(sdk_emit *em, const char *name);
void sdk_em_cstr(sdk_emit *em, const char *s);
void sdk_em_number(sdk_emit *em, double v);
/* A double literal whatever the precision (arithmetic done in double). */
void sdk_em_double(sdk_emit *em, double v);

/* The mapping of sdk_em_name on a bare buffer (for expression callbacks). */
void sdk_em_name_to(sdk_strbuf *b, const char *name);
/* Is NAME one that sdk_em_name maps (an identifier of at most SDK_EM_MAX_NAME)? */
int sdk_em_name_ok(const char *name);

#endif
