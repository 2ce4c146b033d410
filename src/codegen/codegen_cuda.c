#include "codegen/codegen_internal.h"

/* The CUDA driver arrives with the CUDA backend. */
void sdk_cg_emit_cuda(sdk_strbuf *b, const sdk_codegen_opts *o) {
  (void)o;
  sdk_sb_puts(b, "#error \"CUDA driver not generated yet\"\n");
}
