/* --observe acf accumulated by the kernel (acf.h): the rows, the sample
 * clock and the update of both drivers, one emitter for both. */
#include "codegen/acf.h"

#include <stdio.h>
#include <string.h>

#include "codegen/codegen.h"
#include "codegen/expr_emit.h"
#include "codegen/sys.h"

extern const char sdk_embedded_acf_add_h[];
extern const char sdk_embedded_opaque_d_h[];

void sdk_cg_acf_defs(sdk_emit *em, const sdk_codegen_opts *o) {
  if (o->acf_k <= 0 || o->sysmode) return;
  sdk_em_line(em, "#define SDK_ACF_SINGLE %d", o->single);
  sdk_em_line(em, "#define SDK_ACF_CUDA %d", o->target == SDK_TARGET_CUDA);
  sdk_em_line(em, "#define SDK_ACF_FIRST %lldLL", (long long)o->acf_first);
  sdk_em_line(em, "#define SDK_ACF_EVERY %lldLL", (long long)o->acf_every);
  if (o->target != SDK_TARGET_CUDA) sdk_em_kernel(em, sdk_embedded_opaque_d_h);
  sdk_em_kernel(em, sdk_embedded_acf_add_h);
}

int sdk_cg_acf_user(const sdk_codegen_opts *o) {
  for (int j = 0; j < o->acf_nq; j++)
    if (o->acf_q[j] >= o->model->nvars) return 1;
  return 0;
}

/* the name of ring value s (sum = 0: x_{t-1-s} before sample t) or sum s
 * (sum = 1) of quantity j: a register of the path (CUDA: the ring shifts,
 * renamed by the unrolled steps), or the block's array element of path i
 * (CPU: the ring is circular, x_t in slot t mod (K - 1), so that nothing
 * moves; the slot of value s is the int sdk_a<slot>s, slot "r" in a step,
 * "o" at a load or store) */
static const char *nm(char *buf, size_t n, const sdk_codegen_opts *o, int sum, int j, int s,
                      char slot) {
  int K = o->acf_k;
  if (o->target == SDK_TARGET_CUDA)
    snprintf(buf, n, "ac%c0_%d_%d", sum ? 's' : 'r', j, s);
  else if (sum)
    snprintf(buf, n, "acs[%d][i]", j * (K + 1) + s);
  else
    snprintf(buf, n, "acr[%d + sdk_a%c%d][i]", j * (K - 1), slot, s);
  return buf;
}

/* CPU: the slots of the ring's values (above), sdk_a<slot>s, before sample
 * number `t` (an sdk_i64 expression, >= 0) */
static void cpu_slots(sdk_emit *em, const sdk_codegen_opts *o, char slot, const char *t) {
  int L = o->acf_k - 1;
  for (int s = 0; s < L; s++)
    sdk_em_line(em, "const int sdk_a%c%d = (int)(((%s) + %d) %% %d);", slot, s, t, L * 2 - 1 - s,
                L);
}

/* the state's element of row r (from the host's first row) */
static const char *elem(char *buf, size_t n, const sdk_codegen_opts *o, int r) {
  sdk_cg_row_layout l;
  sdk_cg_rows(o, &l);
  if (o->target == SDK_TARGET_CUDA)
    snprintf(buf, n, "st[(sdk_i64)%d * npad + p0]", l.host + r);
  else
    snprintf(buf, n, "st[%d * npad + p0 + i]", l.host + r);
  return buf;
}

/* every value of the quantities in from its rows (declared on CUDA) or out;
 * on the CPU each in a loop over the block's paths (a row's values side by
 * side: rows at a stride of npad, all of one path at a time, would thrash) */
static void io_all(sdk_emit *em, const sdk_codegen_opts *o, int out, const char *kz) {
  int K = o->acf_k, sg = o->single, cuda = o->target == SDK_TARGET_CUDA;
  const char *decl = cuda && !out ? "double " : "";
  const char *loop = cuda ? "" : "for (int i = 0; i < SDK_BLK; i++) ";
  char a[48], e0[64], e1[64], e2[64];
  for (int j = 0; j < o->acf_nq; j++)
    for (int sum = 0; sum < 2; sum++)
      for (int s = 0; s < (sum ? K + 1 : K - 1); s++) {
        nm(a, sizeof a, o, sum, j, s, 'o');
        elem(e0, sizeof e0, o, sdk_cg_acf_row(K, sg, j, sum, s, 0));
        if (sum && sg) { /* (three floats) */
          elem(e1, sizeof e1, o, sdk_cg_acf_row(K, sg, j, sum, s, 1));
          elem(e2, sizeof e2, o, sdk_cg_acf_row(K, sg, j, sum, s, 2));
          if (out)
            sdk_em_line(em, "%sSDK_ACF_SPLIT(%s, %s, %s, %s, %s);", loop, a, e0, e1, e2, kz);
          else if (cuda)
            sdk_em_line(em, "double %s; SDK_ACF_MERGE(%s, %s, %s, %s, %s);", a, a, e0, e1, e2, kz);
          else
            sdk_em_line(em, "%sSDK_ACF_MERGE(%s, %s, %s, %s, %s);", loop, a, e0, e1, e2, kz);
        } else if (out) {
          sdk_em_line(em, "%s%s = (real)%s;", loop, e0, a);
        } else {
          sdk_em_line(em, "%s%s%s = (double)%s;", loop, decl, a, e0);
        }
      }
}

void sdk_cg_acf_cpu_io(sdk_emit *em, const sdk_codegen_opts *o, int out) {
  if (o->acf_k <= 0) return;
  int K = o->acf_k, nq = o->acf_nq;
  if (!out) {
    sdk_em_line(em, "const int sdk_akz = sdk_opq_zero_;");
    sdk_em_line(em, "double acr[%d][SDK_BLK], acs[%d][SDK_BLK];", nq * (K - 1), nq * (K + 1));
  }
  /* the ring's slots from the samples taken by the state at the launch's
   * start or end (the rows hold it in the order of CUDA's registers) */
  sdk_em_block(em);
  sdk_em_line(em, "const sdk_i64 sdk_aon = step0%s;", out ? " + nsteps" : "");
  sdk_em_line(em, "const sdk_i64 sdk_aoc = sdk_aon < SDK_ACF_FIRST ? 0 : (sdk_aon - "
                  "SDK_ACF_FIRST) / SDK_ACF_EVERY + 1;");
  cpu_slots(em, o, 'o', "sdk_aoc");
  io_all(em, o, out, "sdk_akz");
  sdk_em_close(em);
}

void sdk_cg_acf_values(sdk_emit *em, const sdk_codegen_opts *o, const char *x_fmt,
                       const char *n_after, const char *dst_fmt) {
  const sdk_model *m = o->model;
  char x[64], d[64];
  sdk_em_block(em);
  if (sdk_cg_acf_user(o)) {
    sdk_cg_bind_vars(em, m, x_fmt);
    sdk_cg_step_time(em, o, n_after, "_q");
    sdk_cg_bind_time(em, o, "sdk_t0_q", "sdk_tp0_q");
  }
  for (int j = 0; j < o->acf_nq; j++) {
    int q = o->acf_q[j];
    snprintf(d, sizeof d, dst_fmt, j);
    sdk_em_start(em, "%s = ", d);
    if (q >= m->nvars) {
      sdk_em_puts(em, "(real)");
      sdk_cg_expr(em, o, m->obs[q - m->nvars], m->obs_line[q - m->nvars]);
    } else {
      snprintf(x, sizeof x, x_fmt, q);
      sdk_em_puts(em, x);
    }
    sdk_em_puts(em, ";\n");
  }
  sdk_em_close(em);
}

/* the quantities' values of the state after the step (sdk_aq%d: a block,
 * or the caller's call of its device function), then their products with
 * the ring into the sums and the ring moved on by one */
static void emit_sample(sdk_emit *em, const sdk_codegen_opts *o, const char *x_fmt,
                        const char *n_after, const sdk_cg_acf_call *call, const char *kz) {
  int K = o->acf_k, cuda = o->target == SDK_TARGET_CUDA;
  char a[48], b[48];
  if (!cuda) cpu_slots(em, o, 'r', strcmp(n_after, "(sdk_i64)0") ? "sdk_am / SDK_ACF_EVERY" : "0");
  for (int j = 0; j < o->acf_nq; j++)
    sdk_em_line(em, "real sdk_aq%d;", j);
  if (call && sdk_cg_acf_user(o))
    call->fn(em, call->ctx, n_after);
  else
    sdk_cg_acf_values(em, o, x_fmt, n_after, "sdk_aq%d");
  for (int j = 0; j < o->acf_nq; j++) {
    sdk_em_line(em, "const double sdk_ad%d = (double)sdk_aq%d;", j, j);
    sdk_em_line(em, "SDK_ACF_MAD(%s, sdk_ad%d, sdk_ad%d, %s);", nm(a, sizeof a, o, 1, j, 0, 'r'), j,
                j, kz);
    for (int s = 1; s < K; s++)
      sdk_em_line(em, "SDK_ACF_MAD(%s, sdk_ad%d, %s, %s);", nm(a, sizeof a, o, 1, j, s, 'r'), j,
                  nm(b, sizeof b, o, 0, j, s - 1, 'r'), kz);
    sdk_em_line(em, "%s += sdk_ad%d;", nm(a, sizeof a, o, 1, j, K, 'r'), j);
    if (!cuda) { /* x_t into the slot of x_{t-K+1}, just used */
      sdk_em_line(em, "%s = sdk_ad%d;", nm(a, sizeof a, o, 0, j, K - 2, 'r'), j);
      continue;
    }
    for (int s = K - 2; s > 0; s--)
      sdk_em_line(em, "%s = %s;", nm(a, sizeof a, o, 0, j, s, 'r'),
                  nm(b, sizeof b, o, 0, j, s - 1, 'r'));
    sdk_em_line(em, "%s = sdk_ad%d;", nm(a, sizeof a, o, 0, j, 0, 'r'), j);
  }
}

void sdk_cg_acf_cpu_step(sdk_emit *em, const sdk_codegen_opts *o) {
  if (o->acf_k <= 0) return;
  sdk_em_block(em);
  sdk_em_line(em, "const sdk_i64 sdk_am = n + 1 - SDK_ACF_FIRST;");
  sdk_em_open(em, "if (sdk_am >= 0 && sdk_am %% SDK_ACF_EVERY == 0)");
  emit_sample(em, o, "sdk_x%d", "n + 1", NULL, "sdk_akz");
  sdk_em_close(em);
  sdk_em_close(em);
}

/* the first sample is the initial state when there is no transient: no
 * step makes it, so the launch from step 0 takes it before its steps */
static void first_sample(sdk_emit *em, const sdk_codegen_opts *o, const char *x_fmt,
                         const sdk_cg_acf_call *call, const char *kz) {
  if (o->acf_first != 0) return;
  sdk_em_open(em, "if (%s == 0)", o->target == SDK_TARGET_CUDA ? "step0" : "n");
  emit_sample(em, o, x_fmt, "(sdk_i64)0", call, kz);
  sdk_em_close(em);
}

void sdk_cg_acf_cpu_first(sdk_emit *em, const sdk_codegen_opts *o) {
  if (o->acf_k <= 0) return;
  first_sample(em, o, "sdk_x%d", NULL, "sdk_akz");
}

void sdk_cg_acf_cuda_io(sdk_emit *em, const sdk_codegen_opts *o, int out,
                        const sdk_cg_acf_call *call) {
  if (o->acf_k <= 0) return;
  io_all(em, o, out, "0");
  if (!out) first_sample(em, o, "x0_%d", call, "0");
  if (out || o->acf_every == 1) return;
  /* the clock: steps until the next sample */
  sdk_em_line(em, "sdk_i64 sdk_aaw;");
  sdk_em_block(em);
  sdk_em_line(em, "const sdk_i64 m1 = step0 + 1, F = SDK_ACF_FIRST, E = SDK_ACF_EVERY;");
  sdk_em_line(em, "sdk_aaw = (m1 <= F ? F : F + (m1 - F + E - 1) / E * E) - step0;");
  sdk_em_close(em);
}

void sdk_cg_acf_cuda_step(sdk_emit *em, const sdk_codegen_opts *o, const char *step,
                          const sdk_cg_acf_call *call) {
  if (o->acf_k <= 0) return;
  char na[96], a[48];
  snprintf(na, sizeof na, "%s + 1", step);
  if (o->acf_every == 1) {
    /* every state from the first sample on is one: the sums run at every
     * step and start from zero there (a branch that moves no register, where
     * a sample's branch would move the ring's at every sample; the unrolled
     * steps rename them instead).  The empty volatile asm keeps it a branch:
     * without it NVVM turns the zeroing into a select per register and step
     * (NVRTC 13, sm_90: josephson, acf of x at lags 0..16, 69 FSEL a step,
     * 145 instructions a step against 77 with the branch), although the
     * condition holds at one step of the run. */
    sdk_em_open(em, "if (%s == SDK_ACF_FIRST)", na);
    sdk_em_line(em, "asm volatile(\"\");");
    for (int j = 0; j < o->acf_nq; j++)
      for (int sum = 0; sum < 2; sum++)
        for (int s = 0; s < (sum ? o->acf_k + 1 : o->acf_k - 1); s++)
          sdk_em_line(em, "%s = 0;", nm(a, sizeof a, o, sum, j, s, 'r'));
    sdk_em_close(em);
    sdk_em_block(em);
  } else {
    sdk_em_open(em, "if (--sdk_aaw == 0)");
    sdk_em_line(em, "sdk_aaw = SDK_ACF_EVERY;");
  }
  emit_sample(em, o, "x0_%d", na, call, "0");
  sdk_em_close(em);
}
