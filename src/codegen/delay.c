/* Delayed values VAR(t - TAU) (delay.h; the model's side: model/delay.c).
 *
 * A delay of D = TAU/dt steps (a whole number, at least 1: TAU/dt within
 * 1e-9 of an integer; anything else is refused, never interpolated) reads
 * the state D steps back: in step n (from t_n to t_n + dt) the value at
 * stage time t_n + c dt is x_{n + c - D} for c = 0 or 1 (the only stage
 * times of the schemes that take delays, euler and srk2), exact on the
 * grid of steps.  Each delayed variable v keeps a ring of R_v slots (R_v
 * the longest of its delays) as rows of the path's state (codegen.h, the
 * block dly): slot s holds x_m for the latest m = s (mod R_v) written.
 * sdk_init fills slot j with x_{j - R_v} = h((j - R_v) dt), h the
 * [history] expression (or the initial value x_0 without one).  Before
 * step n the drivers read x_{n - D} from slot (n - D) mod R_v and
 * x_{n + 1 - D} from slot (n + 1 - D) mod R_v, the latter after x_n went
 * into slot n mod R_v (so a delay of one step reads x_n there); the CUDA
 * driver reads the same values, fewer times and earlier (delay_cuda.c:
 * x_{n + 1 - D} of step n is x_{(n + 1) - D} of step n + 1).  Every slot
 * read holds the step it should: x_m is overwritten at step m + R_v only.
 * The rings are carried rows like any other: checkpoints, shards, ranks
 * and MPI keep the bits with no code of their own.  The step number keys
 * the slot, so a launch may end after any step. */
#include "codegen/delay.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codegen/codegen.h"
#include "codegen/expr_emit.h"

/* rows of all rings at most: 2^24 slots per path (a delay of 16.7 million
 * steps), so that the row arithmetic stays in int */
#define SDK_CG_DELAY_MAX_ROWS (1 << 24)

static double tau_of(const sdk_codegen_opts *o, int k) {
  return sdk_model_eval_params(o->model->delay[k].tau, o->pvalues);
}

/* TAU/dt of delay k, and whether it is a whole number >= 1 */
static int64_t steps_of(const sdk_codegen_opts *o, int k, double *ratio) {
  double r = tau_of(o, k) / o->dt;
  *ratio = r;
  if (!(r >= 1 - 1e-9) || !(r < 2.0 * SDK_CG_DELAY_MAX_ROWS)) return -1;
  double d = nearbyint(r);
  return fabs(r - d) <= 1e-9 * r ? (int64_t)d : -1;
}

int64_t sdk_cg_delay_steps(const sdk_codegen_opts *o, int k) {
  double r;
  int64_t d = steps_of(o, k, &r);
  return d >= 1 ? d : 1;
}

int64_t sdk_cg_delay_ring(const sdk_codegen_opts *o, int v, int64_t *len) {
  const sdk_model *m = o->model;
  int64_t first = 0;
  *len = 0;
  for (int w = 0; w <= v && w < m->nvars; w++) {
    int64_t r = 0;
    for (int k = 0; k < m->ndelay; k++)
      if (m->delay[k].var == w && sdk_cg_delay_steps(o, k) > r) r = sdk_cg_delay_steps(o, k);
    if (w == v) {
      *len = r;
      return r > 0 ? first : -1;
    }
    first += r;
  }
  return -1;
}

int64_t sdk_cg_delay_rows(const sdk_codegen_opts *o) {
  if (o->model->ndelay == 0 || o->sysmode) return 0;
  int64_t len, n = 0;
  for (int v = 0; v < o->model->nvars; v++) {
    sdk_cg_delay_ring(o, v, &len);
    n += len;
  }
  return n;
}

/* does parameter i differ between paths (scanned or given per path)? */
static int varies(const sdk_codegen_opts *o, int i) {
  return o->scan_column[i] >= 0 || (o->path_param && o->path_param[i] >= 0);
}

static int uses_varying(const sdk_codegen_opts *o, const sdk_expr *e) {
  if (e->kind == SDK_E_SYM && e->sym == SDK_SYM_PARAM && varies(o, e->index)) return 1;
  for (int i = 0; i < e->nargs; i++)
    if (uses_varying(o, e->arg[i])) return 1;
  return 0;
}

sdk_err sdk_cg_delay_check(const sdk_codegen_opts *o, sdk_errbuf *eb) {
  const sdk_model *m = o->model;
  if (m->ndelay == 0) return SDK_OK;
  const char *w = m->delay[0].where;
  const char *not = o->sysmode    ? "systems of particles (--particles)"
                    : o->adaptive ? "--adaptive (its steps are not the grid of dt the buffer "
                                    "holds)"
                    : o->dt_check ? "--dt-check or --mlmc (the coarse path at 2 dt would need "
                                    "a buffer of its own)"
                    : o->dt_column >= 0 ? "a time step that differs between grid points"
                                        : NULL;
  if (not )
    return SDK_FAIL(eb, SDK_ERR_USAGE, "%s: delayed values are not supported with %s", w, not );
  int64_t rows = 0;
  for (int k = 0; k < m->ndelay; k++) {
    const sdk_delay *d = &m->delay[k];
    const char *x = m->vars[d->var];
    if (uses_varying(o, d->tau))
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "%s: the delay of %s(t - TAU) uses a parameter that is scanned or given per "
                      "path: TAU must be the same for every path (scan it in separate runs)",
                      d->where, x);
    double tau = tau_of(o, k), r;
    int64_t n = steps_of(o, k, &r);
    if (!(tau > 0))
      return SDK_FAIL(eb, SDK_ERR_USAGE, "%s: the delay TAU of %s(t - TAU) is %g: it must be > 0",
                      d->where, x, tau);
    if (r < 1 - 1e-9)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "%s: the delay TAU = %g of %s(t - TAU) is shorter than the time step dt = "
                      "%g: a delay must be at least one step (use --dt %g or smaller)",
                      d->where, tau, x, o->dt, tau);
    if (n < 0 && r >= 2.0 * SDK_CG_DELAY_MAX_ROWS)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "%s: the delay of %s(t - TAU) is %.6g steps (TAU/dt): its ring buffer would "
                      "need more than %d rows per path (the limit); use a larger dt",
                      d->where, x, r, SDK_CG_DELAY_MAX_ROWS);
    if (n < 0)
      return SDK_FAIL(
          eb, SDK_ERR_USAGE,
          "%s: the delay TAU = %g of %s(t - TAU) is %.9g time steps of dt = %g: it must "
          "be a whole number of steps (delayed values are taken on the grid of steps, "
          "never interpolated); choose dt = TAU/n",
          d->where, tau, x, r, o->dt);
  }
  rows = sdk_cg_delay_rows(o);
  if (rows > SDK_CG_DELAY_MAX_ROWS)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s: the ring buffers of the delays need %lld rows per path, more than %d "
                    "(the limit); use a larger dt",
                    w, (long long)rows, SDK_CG_DELAY_MAX_ROWS);
  for (int i = 1; i < o->scheme->stages; i++)
    if (o->scheme->srk && o->scheme->srk->c[i] != 0 && o->scheme->srk->c[i] != 1)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "%s: scheme %s has a stage at t + %g dt, between the stored steps of the "
                      "delays",
                      w, o->scheme->name, o->scheme->srk->c[i]);
  return SDK_OK;
}

int sdk_cg_delay_block_row(const sdk_codegen_opts *o) {
  sdk_cg_row_layout l;
  sdk_cg_rows(o, &l);
  return l.dly;
}

void sdk_cg_delay_init(sdk_emit *em, const sdk_codegen_opts *o) {
  const sdk_model *m = o->model;
  int row = sdk_cg_delay_block_row(o);
  for (int v = 0; row >= 0 && v < m->nvars; v++) {
    int64_t len, first = sdk_cg_delay_ring(o, v, &len);
    if (first < 0) continue;
    /* slot j holds x_{j - R}: the history at t = (j - R) dt */
    sdk_em_open(em, "for (sdk_i64 j = 0; j < %lldLL; j++)", (long long)len);
    sdk_em_start(em, "const real sdk_th = (real)((double)(j - %lldLL) * ", (long long)len);
    sdk_em_double(em, o->dt);
    sdk_em_puts(em, ");\n");
    sdk_cg_bind_time(em, o, "sdk_th", "sdk_th");
    if (sdk_cg_delay_quads(o)) /* (4 slots per path in every 4 rows: delay_cuda.c) */
      sdk_em_start(
          em, "st[(%lldLL + (j & ~3LL)) * npad + 4 * p + (j & 3)] = ", (long long)(row + first));
    else
      sdk_em_start(em, "st[(%lldLL + j) * npad + p] = ", (long long)(row + first));
    if (m->history && m->history[v])
      sdk_cg_expr(em, o, m->history[v], m->history_line[v]);
    else
      sdk_em_printf(em, "sdk_x%d", v);
    sdk_em_puts(em, ";\n");
    sdk_em_close(em);
  }
}

int sdk_cg_delay_end_stage(const sdk_codegen_opts *o) {
  for (int i = 1; o->scheme->srk && i < o->scheme->stages; i++)
    if (o->scheme->srk->c[i] == 1) return 1;
  return 0;
}

void sdk_cg_delay_pre(sdk_emit *em, const sdk_codegen_opts *o, const char *step, const char *ring,
                      const char *stride) {
  const sdk_model *m = o->model;
  if (m->ndelay == 0) return;
  int end = sdk_cg_delay_end_stage(o), row = sdk_cg_delay_block_row(o);
  for (int pass = 0; pass < 2; pass++)
    for (int v = 0; v < m->nvars; v++) {
      int64_t len, first = sdk_cg_delay_ring(o, v, &len);
      if (first < 0) continue;
      if (pass == 0) /* the slot of x_n (unsigned: a constant divisor is a multiplication) */
        sdk_em_line(em, "const sdk_i64 sdk_ds%d = (sdk_i64)((sdk_u64)(%s) %% %lluULL);", v, step,
                    (unsigned long long)len);
      if (pass == 1) /* x_n in, after the reads at t_n */
        sdk_em_line(em, "%s[(%lldLL + sdk_ds%d) * %s] = sdk_x%d;", ring, (long long)(row + first),
                    v, stride, v);
      for (int k = 0; k < m->ndelay; k++) {
        if (m->delay[k].var != v || (pass == 1 && !end)) continue;
        /* x_{n + c - D} in slot (n + c - D) mod R, c = pass (0 <= n mod R < R, 1 <= D <= R) */
        long long d = (long long)sdk_cg_delay_steps(o, k) - pass;
        sdk_em_line(em,
                    "const real sdk_dq%d_%d = %s[(%lldLL + (sdk_ds%d >= %lldLL ? sdk_ds%d - %lldLL "
                    ": sdk_ds%d + %lldLL)) * %s];",
                    k, pass, ring, (long long)(row + first), v, d, v, d, v, (long long)len - d,
                    stride);
      }
    }
}

void sdk_cg_delay_bind(sdk_emit *em, const sdk_codegen_opts *o, double c) {
  for (int k = 0; k < o->model->ndelay; k++)
    sdk_em_line(em, "const real sdk_dl%d = sdk_dq%d_%d; (void)sdk_dl%d;", k, k, c == 1 ? 1 : 0, k);
}
