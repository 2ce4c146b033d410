/* The escaping functions: the only way data (names, descriptions, paths,
 * strings read from files, the environment or the command line) may reach
 * generated source, a terminal or an identifier.  See docs/SECURITY.md.
 *
 * One function per target language.  The gnuplot writer has its own,
 * next to the only code that writes gnuplot (src/cli/plot*). */
#ifndef SDK_ESCAPE_H
#define SDK_ESCAPE_H
#include <stddef.h>

#include "core/strbuf.h"

/* 1 when s is a C identifier [A-Za-z_][A-Za-z0-9_]* of at most maxlen bytes
 * (maxlen <= 0: no length limit). */
int sdk_is_identifier(const char *s, int maxlen);

/* Append s as a C/CUDA string literal, quotes included.  Every byte outside
 * [A-Za-z0-9 _.,:;=+-()[]{}#<>!~^&|%@$'] becomes a three-digit octal escape,
 * so the literal is also inert inside a comment (no '*', '/', newline or
 * backslash-newline can appear) and no trigraph can form. */
void sdk_esc_c(sdk_strbuf *b, const char *s);

/* Append s for a terminal or a log line: printable ASCII and well-formed
 * UTF-8 outside the C1 controls pass; a backslash becomes "\\", a newline
 * "\n", a tab "\t", every other control byte (C0, DEL, C1) and every byte of
 * malformed UTF-8 "\xNN".  The result never moves the cursor, changes colours
 * or sets a window title. */
void sdk_esc_term(sdk_strbuf *b, const char *s);

/* sdk_esc_term into a fixed buffer (truncated, always terminated); returns out. */
char *sdk_esc_term_buf(const char *s, char *out, size_t n);

#endif
