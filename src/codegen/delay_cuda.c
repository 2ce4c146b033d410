/* The CUDA driver's accesses to the delays' rings (delay.h; the layout and
 * the maths: delay.c).  Step n writes x_n into slot n mod R and uses
 * x_{n - D} and x_{n + 1 - D}; the latter is the former of step n + 1, so
 * the driver keeps it in a register (sdk_dc<k>) and a step reads one slot,
 * not two (only a launch's first step reads x_{n - D} from its slot).
 * Read step by step, each step's work waited on its read from memory
 * (delay_ou, D = 1000: 1.94e11 steps/s on the H100, 1.6 TB/s, half its
 * bandwidth), so inside a group of g steps (cuda_paths.c: the Gaussians'
 * blocks) the g reads of a delay D > g are issued together at the group's
 * start, before its writes: x_{n + 1 - D} .. x_{n + g - D} were written by
 * steps before n.  A delay D > 2 g reads them a group ahead, at the start
 * of the group before (before the groups, the first group's; the last
 * group reads values it does not use), so that a group's work hides the
 * next group's reads.  A delay D <= g reads step by step, after the write
 * of x_n (D = 1 reads x_n there).  What remains, a write and a read of 4
 * or 8 bytes a step, is the floor (the ring does not fit in any cache).
 * The slots are 32-bit counters wrapped by a comparison (R <= 2^24:
 * delay.c), not a 64-bit modulo of the step.  They count the path's rows
 * (the ring's first row added once, at the start), and a slot's address is
 * the path's row 0 in bytes plus the unsigned row times the row's bytes:
 * an IMAD.WIDE.U32 and an IMAD, where a signed 64-bit (row + s) * npad
 * took seven instructions (sign, three multiplications, an addition, two
 * for the scaled address) of the 63 a delay_ou srk2 step issued against
 * ou's 43.  The values and the order of the arithmetic are those of
 * delay.c's step-by-step form: the same bits. */
#include <stdio.h>

#include "codegen/codegen.h"
#include "codegen/delay.h"

/* the ring's row ROW (a format's text) of the path, as an lvalue */
#define DY(ROW) "(*(real *)(sdk_dy + (sdk_u64)(unsigned)(" ROW ") * sdk_dyn))"

/* delay k's variable, its length D in steps, its ring's first row and R */
typedef struct ring_of {
  int v;
  long long d, row, len;
} ring_of;

static ring_of ring_of_delay(const sdk_codegen_opts *o, int k) {
  ring_of r = {.v = o->model->delay[k].var, .d = (long long)sdk_cg_delay_steps(o, k)};
  int64_t len, first = sdk_cg_delay_ring(o, r.v, &len);
  r.row = sdk_cg_delay_block_row(o) + (long long)first;
  r.len = (long long)len;
  return r;
}

void sdk_cg_delay_cuda_params(sdk_emit *em, const sdk_codegen_opts *o, int decl) {
  int end = sdk_cg_delay_end_stage(o);
  for (int k = 0; k < o->model->ndelay; k++) {
    sdk_em_printf(em, decl ? ", const real sdk_dq%d_0" : ", sdk_dc%d", k);
    if (end) sdk_em_printf(em, decl ? ", const real sdk_dq%d_1" : ", sdk_dn%d", k);
  }
}

void sdk_cg_delay_cuda_start(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  if (m->ndelay == 0) return;
  sdk_em_line(em, "char *const sdk_dy = (char *)(st + p0); /* (the path's row 0: the rings) */");
  sdk_em_line(em, "const sdk_u64 sdk_dyn = (sdk_u64)npad * sizeof(real); /* (a row's bytes) */");
  for (int v = 0; v < m->nvars; v++) {
    int64_t len, first = sdk_cg_delay_ring(o, v, &len);
    if (first >= 0) /* the row of x_n */
      sdk_em_line(em, "int sdk_dw%d = %lld + (int)((sdk_u64)n %% %lluULL);", v,
                  (long long)(sdk_cg_delay_block_row(o) + first), (unsigned long long)len);
  }
  for (int k = 0; k < m->ndelay; k++) {
    ring_of r = ring_of_delay(o, k);
    /* x_{n - D} from its row; the row of x_{n + 1 - D} (1 <= D <= R) */
    sdk_em_line(em, "real sdk_dc%d;", k);
    sdk_em_block(em);
    sdk_em_line(em, "const int s = sdk_dw%d >= %lld ? sdk_dw%d - %lld : sdk_dw%d + %lld;", r.v,
                r.row + r.d, r.v, r.d, r.v, r.len - r.d);
    sdk_em_line(em, "sdk_dc%d = " DY("s") ";", k);
    sdk_em_close(em);
    sdk_em_line(em, "int sdk_dk%d = sdk_dw%d >= %lld ? sdk_dw%d - %lld : sdk_dw%d + %lld;", k, r.v,
                r.row + r.d - 1, r.v, r.d - 1, r.v, r.len - r.d + 1);
  }
}

/* is delay k read at a group's start (g values ahead)?  a group ahead? */
static int batched(const ring_of *r, int g) {
  return g > 0 && r->d > g;
}
static int ahead(const ring_of *r, int g) {
  return g > 0 && r->d > 2 * g;
}

/* "DST = x_{n + 1 - D + j}" from its slot sdk_dk + j (R >= D > j: one wrap
 * at most) */
static void read_slot(sdk_emit *em, const ring_of *r, int k, const char *dst, int j) {
  sdk_em_line(em, "%s = " DY("sdk_dk%d >= %lld ? sdk_dk%d - %lld : sdk_dk%d + %d") ";", dst, k,
              r->row + r->len - j, k, r->len - j, k, j);
}

void sdk_cg_delay_cuda_ahead(sdk_emit *em, const sdk_codegen_opts *o, int g) {
  for (int k = 0; k < o->model->ndelay; k++) {
    ring_of r = ring_of_delay(o, k);
    for (int i = 0; ahead(&r, g) && i < g; i++) { /* the first group's */
      char dst[48];
      snprintf(dst, sizeof dst, "real sdk_db%d_%d", k, i);
      read_slot(em, &r, k, dst, i);
    }
  }
}

void sdk_cg_delay_cuda_group(sdk_emit *em, const sdk_codegen_opts *o, int g) {
  for (int k = 0; k < o->model->ndelay; k++) {
    ring_of r = ring_of_delay(o, k);
    char dst[48];
    for (int i = 0; batched(&r, g) && i < g; i++) {
      snprintf(dst, sizeof dst, "const real sdk_da%d_%d", k, i);
      if (ahead(&r, g))
        sdk_em_line(em, "%s = sdk_db%d_%d;", dst, k, i);
      else
        read_slot(em, &r, k, dst, i);
    }
    for (int i = 0; ahead(&r, g) && i < g; i++) { /* the next group's */
      snprintf(dst, sizeof dst, "sdk_db%d_%d", k, i);
      read_slot(em, &r, k, dst, g + i);
    }
  }
}

void sdk_cg_delay_cuda_group_end(sdk_emit *em, const sdk_codegen_opts *o, int g) {
  for (int k = 0; k < o->model->ndelay; k++) {
    ring_of r = ring_of_delay(o, k);
    if (batched(&r, g))
      sdk_em_line(em, "sdk_dk%d = sdk_dk%d >= %lld ? sdk_dk%d - %lld : sdk_dk%d + %d;", k, k,
                  r.row + r.len - g, k, r.len - g, k, g);
  }
}

void sdk_cg_delay_cuda_step(sdk_emit *em, const sdk_codegen_opts *o, int i, int g) {
  const sdk_model *m = o->model;
  for (int v = 0; v < m->nvars; v++) { /* x_n in */
    int64_t len, first = sdk_cg_delay_ring(o, v, &len);
    if (first < 0) continue;
    long long row = (long long)(sdk_cg_delay_block_row(o) + first);
    sdk_em_line(em, DY("sdk_dw%d") " = x0_%d;", v, v);
    sdk_em_line(em, "sdk_dw%d = sdk_dw%d == %lld ? %lld : sdk_dw%d + 1;", v, v, row + len - 1, row,
                v);
  }
  for (int k = 0; k < m->ndelay; k++) { /* x_{n + 1 - D} */
    ring_of r = ring_of_delay(o, k);
    if (i >= 0 && batched(&r, g)) {
      sdk_em_line(em, "const real sdk_dn%d = sdk_da%d_%d;", k, k, i);
      continue;
    }
    sdk_em_line(em, "const real sdk_dn%d = " DY("sdk_dk%d") ";", k, k);
    sdk_em_line(em, "sdk_dk%d = sdk_dk%d == %lld ? %lld : sdk_dk%d + 1;", k, k, r.row + r.len - 1,
                r.row, k);
  }
}

void sdk_cg_delay_cuda_after(sdk_emit *em, const sdk_codegen_opts *o) {
  for (int k = 0; k < o->model->ndelay; k++)
    sdk_em_line(em, "sdk_dc%d = sdk_dn%d;", k, k);
}
