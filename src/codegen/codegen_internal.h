/* Pieces of the generator shared by the CPU and CUDA drivers. */
#ifndef SDK_CODEGEN_INTERNAL_H
#define SDK_CODEGEN_INTERNAL_H
#include "codegen/codegen.h"
#include "core/strbuf.h"

void sdk_cg_prelude(sdk_strbuf *b, const sdk_codegen_opts *o);
void sdk_cg_params(sdk_strbuf *b, const sdk_codegen_opts *o, const char *sp_fmt, const char *ind);
void sdk_cg_step(sdk_strbuf *b, const sdk_codegen_opts *o, const char *ind);
void sdk_cg_init(sdk_strbuf *b, const sdk_codegen_opts *o, const char *ind);
void sdk_cg_emit_expr(sdk_strbuf *b, const sdk_codegen_opts *o, const sdk_expr *e, int line);
/* CUDA driver (codegen_cuda.c). */
void sdk_cg_emit_cuda(sdk_strbuf *b, const sdk_codegen_opts *o);
#endif
