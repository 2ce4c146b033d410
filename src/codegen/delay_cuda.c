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
 * delay.c's step-by-step form: the same bits.  Where it can (below), the
 * module keeps the rings as quads of slots instead: one 16-byte access per
 * 4 steps where the above makes 4 of 4 bytes (delay_ou D = 1000 above ran at
 * 4.15e11 path-steps/s on the H200, 0.48 of ou, 3.3 TB/s of ring traffic in
 * 128-byte warp accesses). */
#include <stdio.h>

#include "codegen/codegen.h"
#include "codegen/delay.h"

/* Quads (sdk_cg_delay_quads): with groups of G = 4 steps (an odd number
 * of noises: cuda_paths.c), no [boundaries] (a frozen path skips its
 * writes), every ring of a length R that is a multiple of 4 and every delay
 * read a group ahead (D > 2 G), the device keeps the rings as quads: slot s
 * of path p at the ring's row (s & ~3) * npad + 4 p + (s & 3), 4 slots of a
 * path side by side (abi.h, sdk_quad_at).  A group's four writes go out as
 * one store of 4 reals and its four reads come from one or two such loads
 * (one 16-byte access each in single precision, two in double), the quad
 * of the group after loaded a group ahead: a warp moves 512 (1024)
 * contiguous bytes per access instead of 128 (256) bytes of another row
 * every step, and issues a quarter of the memory instructions.  The slots
 * of a group's writes start on a multiple of 4 (n and R are), those of its
 * reads at o = (1 - D) mod 4 in every group.  The slots hold what the rows
 * of the scalar layout hold (the same values of the same steps); the
 * backend's rows read and write the canonical rows (backend/cuda.c), so
 * checkpoints and shards see no difference.  Steps outside the groups (a
 * launch's first and last steps up to a multiple of 4) access single
 * slots of the quads. */
int sdk_cg_delay_quads(const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  if (m->ndelay == 0 || o->sysmode || o->target != SDK_TARGET_CUDA || o->adaptive ||
      m->nnoise % 2 == 0 || m->nbound > 0 || o->dt_check)
    return 0;
  for (int v = 0; v < m->nvars; v++) {
    int64_t len;
    if (sdk_cg_delay_ring(o, v, &len) >= 0 && len % 4 != 0) return 0;
  }
  for (int k = 0; k < m->ndelay; k++)
    if (sdk_cg_delay_steps(o, k) <= 8) return 0;
  return 1;
}

/* ring v's quad Q (a format's text; the first argument v) of the path, an sdk_real4 lvalue */
#define DQ4(Q) "(*(sdk_real4 *)(sdk_dr%d + (sdk_u64)(unsigned)(" Q ") * sdk_dqb))"
/* ring v's slot S (a format's text, twice; the first argument v) of the path (quads), a real
 * lvalue */
#define DQ1(S)                                                                                     \
  "(*(real *)(sdk_dr%d + (sdk_u64)(unsigned)((" S ") >> 2) * sdk_dqb + (unsigned)((" S             \
  ") & 3) * (unsigned)sizeof(real)))"

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

/* the quads' start: each ring's base for the path, the slots of x_n and
 * x_{n + 1 - D} and the value x_{n - D} */
static void quads_start(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  /* (4 reals aligned as one: one 16-byte access in single precision, two in double) */
  sdk_em_line(em, "struct __align__(%d) sdk_real4 { real x, y, z, w; };", o->single ? 16 : 32);
  sdk_em_line(em, "const sdk_u64 sdk_dqb = (sdk_u64)npad * 4u * sizeof(real); /* (a row of "
                  "quads' bytes) */");
  for (int v = 0; v < m->nvars; v++) {
    int64_t len, first = sdk_cg_delay_ring(o, v, &len);
    if (first < 0) continue;
    long long row = (long long)(sdk_cg_delay_block_row(o) + first);
    sdk_em_line(em, "char *const sdk_dr%d = (char *)(st + %lldLL * npad + 4 * p0);", v, row);
    sdk_em_line(em, "int sdk_dw%d = (int)((sdk_u64)n %% %lluULL); /* (the slot of x_n) */", v,
                (unsigned long long)len);
  }
  for (int k = 0; k < m->ndelay; k++) {
    ring_of r = ring_of_delay(o, k);
    sdk_em_line(em, "real sdk_dc%d;", k);
    sdk_em_block(em);
    sdk_em_line(em, "const int s = sdk_dw%d >= %lld ? sdk_dw%d - %lld : sdk_dw%d + %lld;", r.v, r.d,
                r.v, r.d, r.v, r.len - r.d);
    sdk_em_line(em, "sdk_dc%d = " DQ1("s") ";", k, r.v);
    sdk_em_close(em);
    sdk_em_line(em, "int sdk_dk%d = sdk_dw%d >= %lld ? sdk_dw%d - %lld : sdk_dw%d + %lld;", k, r.v,
                r.d - 1, r.v, r.d - 1, r.v, r.len - r.d + 1);
  }
}

void sdk_cg_delay_cuda_start(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  if (m->ndelay == 0) return;
  if (sdk_cg_delay_quads(o)) {
    quads_start(em, o);
    return;
  }
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

/* the quads' first slot of a group's reads, o = (1 - D) mod 4 */
static int quad_offset(const ring_of *r) {
  return (int)(((1 - r->d) % 4 + 4) % 4);
}

/* before the groups: the quads of the first group's reads (one or two) and
 * the quad the first group loads for the next (sdk_qr) */
static void quads_ahead(sdk_emit *em, const sdk_codegen_opts *o, int g) {
  if (g != 4) /* (sdk_cg_delay_quads: never) */
    sdk_em_line(em, "#error sdekit: the delays' quads need groups of 4 steps");
  for (int k = 0; k < o->model->ndelay; k++) {
    ring_of r = ring_of_delay(o, k);
    int off = quad_offset(&r), s = off ? 2 : 1;
    long long n4 = r.len / 4;
    sdk_em_line(em, "const int sdk_dj%d = sdk_dk%d >> 2;", k, k);
    sdk_em_line(em, "sdk_real4 sdk_qa%d = " DQ4("sdk_dj%d") ";", k, r.v, k);
    if (off)
      sdk_em_line(em, "sdk_real4 sdk_qb%d = " DQ4("sdk_dj%d == %lld ? 0 : sdk_dj%d + 1") ";", k,
                  r.v, k, n4 - 1, k);
    sdk_em_line(em, "int sdk_qr%d = sdk_dj%d >= %lld ? sdk_dj%d - %lld : sdk_dj%d + %d;", k, k,
                n4 - s, k, n4 - s, k, s);
  }
}

/* a group's start: the buffers of its writes, its reads' values from the
 * quads held, the load of the next group's quad */
static void quads_group(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  for (int v = 0; v < m->nvars; v++) {
    int64_t len;
    if (sdk_cg_delay_ring(o, v, &len) >= 0)
      sdk_em_line(em, "real sdk_dv%d_0, sdk_dv%d_1, sdk_dv%d_2, sdk_dv%d_3;", v, v, v, v);
  }
  for (int k = 0; k < m->ndelay; k++) {
    ring_of r = ring_of_delay(o, k);
    int off = quad_offset(&r);
    for (int i = 0; i < 4; i++)
      sdk_em_line(em, "const real sdk_da%d_%d = sdk_q%c%d.%c;", k, i, off + i < 4 ? 'a' : 'b', k,
                  "xyzw"[(off + i) % 4]);
    if (off) sdk_em_line(em, "sdk_qa%d = sdk_qb%d;", k, k);
    sdk_em_line(em, "sdk_q%c%d = " DQ4("sdk_qr%d") ";", off ? 'b' : 'a', k, r.v, k);
    sdk_em_line(em, "sdk_qr%d = sdk_qr%d == %lld ? 0 : sdk_qr%d + 1;", k, k, r.len / 4 - 1, k);
  }
}

/* a group's end: its four writes in one store, the slots on by 4 */
static void quads_group_end(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  for (int v = 0; v < m->nvars; v++) {
    int64_t len;
    if (sdk_cg_delay_ring(o, v, &len) < 0) continue;
    sdk_em_line(em,
                DQ4("sdk_dw%d >> 2") " = sdk_real4{sdk_dv%d_0, sdk_dv%d_1, sdk_dv%d_2, "
                                     "sdk_dv%d_3};",
                v, v, v, v, v, v);
    sdk_em_line(em, "sdk_dw%d = sdk_dw%d >= %lld ? sdk_dw%d - %lld : sdk_dw%d + 4;", v, v,
                (long long)len - 4, v, (long long)len - 4, v);
  }
  for (int k = 0; k < m->ndelay; k++) {
    ring_of r = ring_of_delay(o, k);
    sdk_em_line(em, "sdk_dk%d = sdk_dk%d >= %lld ? sdk_dk%d - %lld : sdk_dk%d + 4;", k, k,
                r.len - 4, k, r.len - 4, k);
  }
}

/* step n outside the groups (i < 0) or step i of a group */
static void quads_step(sdk_emit *em, const sdk_codegen_opts *o, int i) {
  const sdk_model *m = o->model;
  for (int v = 0; v < m->nvars; v++) { /* x_n in */
    int64_t len;
    if (sdk_cg_delay_ring(o, v, &len) < 0) continue;
    if (i >= 0) {
      sdk_em_line(em, "sdk_dv%d_%d = x0_%d;", v, i, v);
      continue;
    }
    sdk_em_line(em, DQ1("sdk_dw%d") " = x0_%d;", v, v, v, v);
    sdk_em_line(em, "sdk_dw%d = sdk_dw%d == %lld ? 0 : sdk_dw%d + 1;", v, v, (long long)len - 1, v);
  }
  for (int k = 0; k < m->ndelay; k++) { /* x_{n + 1 - D} */
    ring_of r = ring_of_delay(o, k);
    if (i >= 0) {
      sdk_em_line(em, "const real sdk_dn%d = sdk_da%d_%d;", k, k, i);
      continue;
    }
    sdk_em_line(em, "const real sdk_dn%d = " DQ1("sdk_dk%d") ";", k, r.v, k, k);
    sdk_em_line(em, "sdk_dk%d = sdk_dk%d == %lld ? 0 : sdk_dk%d + 1;", k, k, r.len - 1, k);
  }
}

void sdk_cg_delay_cuda_ahead(sdk_emit *em, const sdk_codegen_opts *o, int g) {
  if (sdk_cg_delay_quads(o)) {
    quads_ahead(em, o, g);
    return;
  }
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
  if (sdk_cg_delay_quads(o)) {
    quads_group(em, o);
    return;
  }
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
  if (sdk_cg_delay_quads(o)) {
    quads_group_end(em, o);
    return;
  }
  for (int k = 0; k < o->model->ndelay; k++) {
    ring_of r = ring_of_delay(o, k);
    if (batched(&r, g))
      sdk_em_line(em, "sdk_dk%d = sdk_dk%d >= %lld ? sdk_dk%d - %lld : sdk_dk%d + %d;", k, k,
                  r.row + r.len - g, k, r.len - g, k, g);
  }
}

void sdk_cg_delay_cuda_step(sdk_emit *em, const sdk_codegen_opts *o, int i, int g) {
  const sdk_model *m = o->model;
  if (sdk_cg_delay_quads(o)) {
    quads_step(em, o, i);
    return;
  }
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
