/* sdekit: a kernel's identity, over its normalised source.
 *
 * The generated source stands for the model, the settings and the build's
 * code generator.  What identifies it (the kernel cache's key, a
 * checkpoint's kernel hash, the codegen golden hashes of
 * scripts/codegen-golden.sh through `sdekit codegen --normalised`) is the
 * source with its comments, whitespace and #line directives removed, so
 * that moving, re-indenting or commenting kernel text changes no identity:
 *
 *   - comments go (they separate tokens like a blank);
 *   - #line directives (and GNU line markers `# N "file"`) go whole;
 *   - line splices (backslash-newline) go;
 *   - blanks go, except one space where the two characters around them
 *     could join into another token (two identifier or number characters,
 *     "+ +", "- >", "< <", ...): the token sequence is kept exactly;
 *   - every other preprocessor directive keeps its newline (it ends the
 *     directive), and starts on a line of its own;
 *   - string and character literals are kept byte for byte.
 *
 * Two sources with the same normalised text are the same program.
 */
#ifndef SDK_CODEGEN_IDENTITY_H
#define SDK_CODEGEN_IDENTITY_H

#include "core/error.h"
#include "core/strbuf.h"

/* Append the normalised text of src to out (out->oom on failure). */
void sdk_cg_normalise(const char *src, sdk_strbuf *out);

/* The kernel's identity: sdk_hash_hex of the normalised source. */
sdk_err sdk_cg_identity(const char *src, char out[33], sdk_errbuf *eb);

#endif
