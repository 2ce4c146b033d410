/* --observe psd computed by the kernel (psd.h): the sample clock and the
 * ring's and sums' update of both drivers, one emitter for both. */
#include "codegen/psd.h"

#include <stdio.h>
#include <string.h>

#include "codegen/acf.h"
#include "codegen/codegen.h"
#include "codegen/kernels/opaque_d.h"
#include "codegen/kernels/psd_fft.h"

extern const char sdk_embedded_opaque_d_h[];
extern const char sdk_embedded_psd_fft_h[];
extern const char sdk_embedded_psd_seg_h[];

/* rows of one quantity: ring [M], sums [2 (M/2 + 1)] (obs_corr.h) */
static int qrows(const sdk_codegen_opts *o) {
  return o->psd_m + 2 * (o->psd_m / 2 + 1);
}

void sdk_cg_psd_defs(sdk_emit *em, const sdk_codegen_opts *o) {
  if (o->psd_m <= 0 || o->sysmode) return;
  sdk_em_line(em, "#define SDK_PSD_CUDA %d", o->target == SDK_TARGET_CUDA);
  sdk_em_line(em, "#define SDK_PSD_M %d", o->psd_m);
  sdk_em_line(em, "#define SDK_PSD_HANN %d", o->psd_hann);
  sdk_em_line(em, "#define SDK_PSD_FIRST %lldLL", (long long)o->psd_first);
  sdk_em_line(em, "#define SDK_PSD_EVERY %lldLL", (long long)o->acf_every);
  if (o->target != SDK_TARGET_CUDA) sdk_em_kernel(em, sdk_embedded_opaque_d_h);
  /* the quarter wave cos(2 pi n / M), n <= M/4, as the kernel would compute
   * it (kernels/psd_fft.h: the same bits here), exactly, once; CUDA:
   * in constant memory, every thread of a warp reading the same entry at
   * once (the segments end at the same step), a broadcast, where computing
   * it took ~20 unfused double operations an entry and the transform's
   * registers */
  sdk_em_line(em, "static %s double sdk_psd_ctab[%d] = {",
              o->target == SDK_TARGET_CUDA ? "__constant__" : "const", o->psd_m / 4 + 1);
  for (int n = 0; n <= o->psd_m / 4; n++) { /* (17 digits: the double itself) */
    sdk_em_start(em, "  ");
    sdk_em_double(em, sdk_psd_quarter(n, o->psd_m));
    sdk_em_text(em, ",\n");
  }
  sdk_em_line(em, "};");
  sdk_em_kernel(em, sdk_embedded_psd_fft_h);
  sdk_em_kernel(em, sdk_embedded_psd_seg_h);
}

/* at a segment's end (sample sdk_ps, its rows from sdk_pr), the transforms */
static void segments(sdk_emit *em, const sdk_codegen_opts *o) {
  sdk_em_open(em, "if (sdk_ps + 1 >= SDK_PSD_M && ((sdk_ps + 1) & (SDK_PSD_M / 2 - 1)) == 0)");
  for (int j = 0; j < o->psd_nq; j++)
    sdk_em_line(em, "sdk_psd_segment(sdk_pr + (sdk_i64)%d * npad, npad, sdk_ps);", j * qrows(o));
  sdk_em_close(em);
}

/* sample number `smp` (an sdk_i64 expression) of the state: its values into
 * the ring, a segment's end transformed */
static void sample(sdk_emit *em, const sdk_codegen_opts *o, const char *n_after, const char *smp,
                   const char *x_fmt, const char *base, int seg) {
  sdk_cg_row_layout l;
  sdk_cg_rows(o, &l);
  sdk_codegen_opts q = *o; /* (acf's emitter of the values, with psd's quantities) */
  q.acf_nq = o->psd_nq;
  memcpy(q.acf_q, o->psd_q, sizeof q.acf_q);
  sdk_em_block(em);
  sdk_em_line(em, "const sdk_i64 sdk_ps = %s;", smp);
  sdk_em_line(em, "real *const sdk_pr = %s + (sdk_i64)%d * npad;", base, l.host + o->psd_row);
  for (int j = 0; j < o->psd_nq; j++)
    sdk_em_line(em, "real sdk_pq%d;", j);
  sdk_cg_acf_values(em, &q, x_fmt, n_after, "sdk_pq%d");
  for (int j = 0; j < o->psd_nq; j++)
    sdk_em_line(em, "sdk_pr[((sdk_i64)%d + (sdk_ps & (SDK_PSD_M - 1))) * npad] = sdk_pq%d;",
                j * qrows(o), j);
  if (seg) segments(em, o);
  sdk_em_close(em);
}

void sdk_cg_psd_step(sdk_emit *em, const sdk_codegen_opts *o, const char *step, const char *x_fmt,
                     const char *base) {
  if (o->psd_m <= 0 || o->sysmode) return;
  char na[96];
  snprintf(na, sizeof na, "(%s) + 1", step);
  sdk_em_block(em);
  sdk_em_line(em, "const sdk_i64 sdk_pm = %s - SDK_PSD_FIRST;", na);
  sdk_em_open(em, "if (sdk_pm >= 0 && sdk_pm %% SDK_PSD_EVERY == 0)");
  /* (CPU: the segments after the block's vector loop, sdk_cg_psd_cpu_segments) */
  sample(em, o, na, "sdk_pm / SDK_PSD_EVERY", x_fmt, base, o->target == SDK_TARGET_CUDA);
  sdk_em_close(em);
  sdk_em_close(em);
}

void sdk_cg_psd_first(sdk_emit *em, const sdk_codegen_opts *o, const char *step0, const char *x_fmt,
                      const char *base) {
  if (o->psd_m <= 0 || o->sysmode || o->psd_first != 0) return;
  sdk_em_open(em, "if (%s == 0)", step0);
  sample(em, o, "(sdk_i64)0", "(sdk_i64)0", x_fmt, base, 0); /* (no segment ends there) */
  sdk_em_close(em);
}

void sdk_cg_psd_cpu_segments(sdk_emit *em, const sdk_codegen_opts *o) {
  if (o->psd_m <= 0 || o->sysmode) return;
  sdk_cg_row_layout l;
  sdk_cg_rows(o, &l);
  sdk_em_block(em);
  sdk_em_line(em, "const sdk_i64 sdk_pm = n + 1 - SDK_PSD_FIRST;");
  sdk_em_open(em, "if (sdk_pm >= 0 && sdk_pm %% SDK_PSD_EVERY == 0)");
  sdk_em_line(em, "const sdk_i64 sdk_ps = sdk_pm / SDK_PSD_EVERY;");
  sdk_em_open(em, "if (sdk_ps + 1 >= SDK_PSD_M && ((sdk_ps + 1) & (SDK_PSD_M / 2 - 1)) == 0)");
  for (int j = 0; j < o->psd_nq; j++)
    sdk_em_line(em, "sdk_psd_segments(st + p0 + (sdk_i64)%d * npad, npad, sdk_ps, SDK_BLK);",
                l.host + o->psd_row + j * qrows(o));
  sdk_em_close(em);
  sdk_em_close(em);
  sdk_em_close(em);
}
