/* Adaptive time steps per path (issue 30, --adaptive).
 *
 * The plan's step dt is the largest step (dt-max), the base interval of the
 * path's virtual Brownian tree (rng/btree.h): step n of the run, [n dt,
 * (n + 1) dt], is taken as dyadic sub-steps h = dt 2^-l whose ends are
 * multiples of h, l in [0, levmax], levmax = log2(dt / dt-min) <= the
 * tree's depth.  The noise of a sub-step is the tree's increment over it,
 * sdk_z_j = dW_j / sqrt(h), so a rejected sub-step is retried on the same
 * Brownian path, refined by the bridge, and a value never depends on the
 * steps tried before it: results are the same bits on any thread count,
 * chunk size, rank layout, and after a resume (the controller's state is
 * carried in rows of the state, SDK_CG_ADAPT_ROWS).  Every step n ends
 * exactly at (n + 1) dt, so sample times, checkpoints and observables keep
 * their meaning.
 *
 * A periodic model's phase time (expr_emit.h: the drive's time modulo the
 * period, exact in single precision) is that of the sub-step's start,
 * (n mod spp) dt + s, as its absolute time is n dt + s: the drive is
 * evaluated where the sub-step is, and the steps of dt = period / spp
 * (--spp; --dt-max is refused there unless it is such a step) end on the
 * samples as fixed steps do.  Its time-only values (expr_emit.h: the drive
 * and the constant terms summed with it) are hoisted on every backend, each
 * computed once per stage at the sub-step's phase time; the CUDA whole steps
 * of dt-max (SDK_ADAPT_WHOLE) are on the grid, so they read them from a
 * per-phase table filled with the same expressions at the same phase times
 * (cuda_paths.c, kernels/ttab.cuh): the same bits as the general loop's.
 *
 * Error estimate: the scheme's embedded pair (scheme.h: embedded,
 * est_noise, est_order q): both take the sub-step from X_n with the same
 * increments; the higher one's result is kept, the difference of the two,
 *   err = max_v |X_v - E_v| / (atol + rtol max(|X_n,v|, |X_v|)),
 * is the lower one's local error, of order h^q (for diagonal multiplicative
 * Ito noise milstein - E, E the Euler noise with the trapezoidal drift,
 * q = 1: the noise's Milstein term and the drift's local error,
 * scheme_milstein.c; srk2 - euler for additive noise, q = 3/2, the drift's).  The kept solution is
 * one order better than the estimate (local extrapolation).  A sub-step passes the norm when |X_v -
 * E_v| <= atol + rtol max(|X_n,v|, |X_v|) for every v (err <= 1 compared without dividing: the same
 * decision on every backend's division).
 *
 * The controller: the I controller h' = h * 0.9 err^(-1/q) on the dyadic
 * grid.  A sub-step is accepted when err <= 1 (compared as above), or when h is already the
 * smallest (dt-min: accepted whatever err, as fixed steps of dt-min would
 * be); then the next try is 2 h when the factor is >= 2, err <= 0.45^q
 * (and when the next point is a multiple of 2 h), else h.  A rejected
 * sub-step is retried at h 2^-k, the smallest k in 1..4 with 2^-k at most
 * the factor, err <= (0.9 2^k)^q.  The thresholds are constants of the
 * source, so the decisions are comparisons, the same on every backend.  A
 * NaN err is rejected down to dt-min, then accepted (the path blows up and
 * is counted as the fixed steps' are).
 *
 * [boundaries] (boundary.c, sdk_cg_bound_sub): the fixed steps' rules at
 * every sub-step [s, s + h] instead of every step: absorption where a condition holds at its end,
 * and the Brownian-bridge crossing probability p = exp(-2 d0 d1 / (g^2 h)) of each absorbing level
 * for the sub-step's own length h (g the noise coefficient the kept step used at its start).  The
 * controller also rejects a sub-step (retried one level finer, its error permitting) while a level
 * is reached at its end or p > P_CROSS = 0.1 and h > dt-min: near a level the steps shrink until
 * the crossing is unlikely within one (p <= 0.1, i.e. d0 d1 >= 1.15 g^2 h) or dt-min is reached, so
 * the crossing and the hitting time are resolved there, far from it nothing changes.  An accepted
 * sub-step draws its uniform against p (keyed by its node in the tree: boundary.c), and a path
 * absorbed is frozen at that sub-step's end and takes no more sub-steps; its hitting time, s +
 * theta h with theta drawn from the bridge's first hitting time given both ends (boundary.c), is
 * recorded as (n + 1) dt - r dt 2^-D with r the row SDK_CG_ADAPT_HIT (codegen.h).  Since a
 * sub-step's interior is never looked at before it is accepted (a retry is shorter, from the same
 * start), the Brownian path inside an accepted one given its ends is a
 * bridge, independent of the decisions taken: the fixed steps' bridge test
 * holds unchanged.  Reflecting boundaries are refused: a reflection of a
 * sub-step's end is not a function of the Brownian path alone but of the
 * sub-steps taken (|y + dW| against ||y + dW1| + dW2|), so the controller's
 * choice, made from that end, biases it (+14% on the mean exit time of
 * Brownian motion between a wall at 0 and a level at 1 from 0.3 with
 * dt-max 0.5). */
#include "codegen/adaptive.h"

#include <math.h>
#include <stdio.h>

#include "codegen/boundary.h"
#include "codegen/codegen.h"
#include "codegen/events.h"
#include "codegen/expr_emit.h"
#include "codegen/scheme.h"
#include "rng/btree.h"

/* 0.9: the usual safety factor of step-size control */
#define SAFETY 0.9
/* [boundaries]: a sub-step whose bridge crossing probability exceeds
 * P_CROSS is taken again at half its length (the head's comment) */
#define P_CROSS 0.1

/* does scheme s estimate its error for the model's kind of noise? */
static int estimates(const sdk_scheme_type *s, const sdk_model *m) {
  unsigned kind = m->multiplicative ? SDK_NOISE_DIAGONAL : SDK_NOISE_ADDITIVE;
  return s->embedded && (s->est_noise & kind) && (s->noise_kinds & kind) &&
         (!m->multiplicative || s->calculus == m->calculus);
}

/* has the model a reflecting boundary? */
static int reflects(const sdk_model *m) {
  for (int k = 0; k < m->nbound; k++)
    if (m->bound[k].kind == SDK_BOUND_REFLECT) return 1;
  return 0;
}

sdk_err sdk_cg_adaptive_check(const sdk_codegen_opts *o, sdk_errbuf *eb) {
  const sdk_model *m = o->model;
  if (!o->adaptive) return SDK_OK;
  const char *why = NULL;
  if (o->sysmode || m->interacting)
    why = "systems of interacting particles take their steps together";
  else if (m->nevent > 0)
    why = "[events] detect their crossings within the fixed steps";
  else if (reflects(m))
    why = "a reflecting boundary mirrors the end of a sub-step, so the path would depend on the "
          "sub-steps the controller chooses from it (a biased choice); absorbing ones are taken";
  else if (m->ncolored + m->nlevy > 0)
    why = "[colored] and [levy] noise move by the fixed steps (no Brownian-tree equivalent yet)";
  else if (sdk_cg_has_events(m))
    why = "[jumps] and [dichotomous] noise have no Brownian-tree equivalent yet";
  else if (sdk_cg_noise(o) != &sdk_noise_gaussian)
    why = "the Brownian tree gives Gaussian increments only (no --noise)";
  else if (o->dt_check)
    why = "--dt-check couples fixed steps of dt and 2 dt";
  else if (o->tavg)
    why = "time averages (tavg) add the state after every fixed step";
  else if (o->dt_column >= 0)
    why = "the step differs between grid points (a period that depends on a scanned parameter), "
          "and the levels of --dt and --dt-min are fixed for one dt-max";
  if (why) return SDK_FAIL(eb, SDK_ERR_USAGE, "--adaptive: %s", why);
  if (!estimates(o->scheme, m)) {
    char alt[160] = "";
    size_t len = 0;
    for (int i = 0; o->schemes && o->schemes[i] && len < sizeof alt; i++)
      if (estimates(o->schemes[i], m))
        len += (size_t)snprintf(alt + len, sizeof alt - len, "%s%s", len ? " or " : "",
                                o->schemes[i]->name);
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--adaptive: scheme %s has no error estimator for the %s noise of model "
                    "'%s'%s%s",
                    o->scheme->name, m->multiplicative ? "multiplicative" : "additive", m->name,
                    alt[0] ? "; use --scheme " : "", alt);
  }
  /* the time-only values of both steps are hoisted per stage index
   * (emit_steps): the pair's stages must be at the same times */
  const sdk_srk_table *kt = o->scheme->srk, *pt = o->scheme->embedded->srk;
  for (int i = 0; kt && pt && i < SDK_MAX_STAGES; i++)
    if (i < o->scheme->stages && i < o->scheme->embedded->stages && kt->c[i] != pt->c[i])
      return SDK_FAIL(eb, SDK_ERR_INTERNAL,
                      "--adaptive: scheme %s and its partner %s: stage %d "
                      "at %g and %g of the step",
                      o->scheme->name, o->scheme->embedded->name, i, kt->c[i], pt->c[i]);
  if (o->adapt_lev0 < 0 || o->adapt_lev0 > o->adapt_levmax || o->adapt_levmax > SDK_BTREE_DEPTH ||
      !(o->rtol > 0) || !(o->atol >= 0))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "--adaptive: levels %d..%d, rtol %g, atol %g",
                    o->adapt_lev0, o->adapt_levmax, o->rtol, o->atol);
  return SDK_OK;
}

extern const char sdk_embedded_btree_h[], sdk_embedded_adapt_step_h[];

static int root_cache(const sdk_codegen_opts *o);

/* "#define NAME VALUE" with a double literal */
static void define_double(sdk_emit *em, const char *name, double v) {
  sdk_em_start(em, "#define %s ", name);
  sdk_em_double(em, v);
  sdk_em_puts(em, "\n");
}

/* "#define NAME VALUE", a threshold of the error norm (a value of the run's
 * precision): in single precision the largest float c' <= c, for which a
 * float e has e <= c' exactly when e <= c and e > c' exactly when e > c, so
 * the decisions are those of the comparisons in double, without the
 * conversion of e to double (a slow instruction on a GPU) */
static void define_threshold(sdk_emit *em, const sdk_codegen_opts *o, const char *name, double c) {
  if (!o->single) {
    define_double(em, name, c);
    return;
  }
  float f = (float)c;
  if ((double)f > c) f = nextafterf(f, -INFINITY);
  sdk_em_start(em, "#define %s ", name);
  sdk_em_double(em, (double)f);
  sdk_em_puts(em, "f\n");
}

void sdk_cg_adaptive_head(sdk_emit *em, const sdk_codegen_opts *o) {
  if (!o->adaptive) return;
  if (o->single) /* (the root from single-precision Gaussians: btree.h) */
    sdk_em_line(em, "#define SDK_BTREE_ROOT_F 1");
  sdk_em_puts(em, "#line 1 \"rng/btree.h\"\n");
  sdk_em_puts(em, sdk_embedded_btree_h);
  sdk_em_line_back(em);
  /* the holes of kernels/adapt_step.h: the controller's rows as the driver
   * holds them (cpu_paths.c: the block's arrays; cuda_paths.c: sdk_step's
   * reference parameters), the levels and the thresholds (above) */
  if (o->target == SDK_TARGET_CPU)
    sdk_em_line(em, "#define SDK_ADAPT_ROW(k) ads[k][i]");
  else
    sdk_em_line(em, "#define SDK_ADAPT_ROW(k) sdk_ad##k");
  if (sdk_cg_adaptive_slices(o)) {
    sdk_em_line(em, "#define SDK_ADAPT_SLICES 1");
    define_double(em, "SDK_ADAPT_DT", o->dt);
    if (root_cache(o)) sdk_em_line(em, "#define SDK_ADAPT_WHOLE 1"); /* (hook whole) */
  }
  sdk_em_line(em, "#define SDK_ADAPT_LEV0 %d", o->adapt_lev0);
  sdk_em_line(em, "#define SDK_ADAPT_LEVMAX %d", o->adapt_levmax);
  const double q = o->scheme->est_order;
  define_threshold(em, o, "SDK_ADAPT_GROW", pow(SAFETY / 2, q));
  define_double(em, "SDK_ADAPT_QCROSS", -log(P_CROSS));
  if (o->model->nbound > 0) /* (an absorbed path takes no more sub-steps) */
    sdk_em_line(em, "#define SDK_ADAPT_LIVE (sdk_bs == (real)0)");
  else
    sdk_em_line(em, "#define SDK_ADAPT_LIVE 1");
  for (int k = 1; k < 4; k++) {
    char name[32];
    snprintf(name, sizeof name, "SDK_ADAPT_SHRINK%d", k);
    define_threshold(em, o, name, pow(SAFETY * (double)(1 << k), q));
  }
}

int sdk_cg_adaptive_slices(const sdk_codegen_opts *o) {
  return o->adaptive && o->target == SDK_TARGET_CUDA && o->model->nbound == 0;
}

/* The context of adapt_step.h's hooks. */
typedef struct {
  const sdk_codegen_opts *o;
  const char *path, *seed;
  /* a periodic model's time-only values (expr_emit.h): h those of the
   * general loop's sub-steps, computed at each one's phase time; tab (CUDA,
   * SDK_ADAPT_WHOLE) those of the whole steps, read from the driver's
   * per-phase table (NULL: computed as h's) */
  sdk_cg_hoist *h, *tab;
} adapt_ctx;

/* SDK_ADAPT_SLICES in single precision (few channels): a lane keeps the
 * four roots of a block (rng/btree.h: base intervals 4 (n >> 2) .. + 3) in
 * registers, sdk_rq<j>, as the fixed steps keep their noise block */
static int root_cache(const sdk_codegen_opts *o) {
  return o->single && sdk_cg_adaptive_slices(o) && o->model->nnoise <= 4;
}

/* the type of the phase index sdk_phn (hook restart): a 32-bit int where
 * spp allows (no 64-bit increment and conversion per step) */
static const char *phase_type(const sdk_codegen_opts *o) {
  return o->spp <= 0x7fffffffLL ? "int" : "sdk_i64";
}

/* the walks' start at step sdk_ns: B(0) = 0 and the root z_0 in a register
 * of its own, sdk_wq<j> (sdk_btree_walk_start's values; r[0] is stored in
 * the walk's array only when a sub-step descends below the root, hook
 * noise); `fresh`: the roots' block is drawn (else only at a multiple of 4,
 * the cache holding the others) */
static void walk_start(sdk_emit *em, const adapt_ctx *a, int fresh) {
  int nn = a->o->model->nnoise;
  if (!root_cache(a->o)) {
    for (int j = 0; j < nn; j++)
      sdk_em_line(em,
                  "sdk_wb%d = 0.0, sdk_wq%d = sdk_btree_z_(%s, %s, (sdk_u64)sdk_ns, %d, %d, 0u);",
                  j, j, a->seed, a->path, nn, j);
    return;
  }
  if (nn == 0) return;
  if (!fresh) sdk_em_open(em, "if ((sdk_ns & 3) == 0)");
  for (int j = 0; j < nn; j++)
    sdk_em_line(
        em, "sdk_gauss4_f(%s, %s, sdk_btree_root_block((sdk_u64)sdk_ns, %d, %d), 0u, sdk_rq%d);",
        a->seed, a->path, nn, j, j);
  if (!fresh) sdk_em_close(em);
  for (int j = 0; j < nn; j++) /* (constant indices: the array stays in registers) */
    sdk_em_line(em,
                "sdk_wb%d = 0.0, sdk_wq%d = (sdk_ns & 2) ? ((sdk_ns & 1) ? sdk_rq%d[3] : "
                "sdk_rq%d[2]) : ((sdk_ns & 1) ? sdk_rq%d[1] : sdk_rq%d[0]);",
                j, j, j, j, j, j);
}

/* a periodic model's phase time of the next step (sdk_phn = sdk_ns mod
 * spp, counted: no 64-bit division), the driver's (cuda_paths.c) */
static void next_phase(sdk_emit *em, const sdk_codegen_opts *o) {
  if (o->spp <= 0) return;
  sdk_em_line(em, "if (++sdk_phn == (%s)%lldLL) sdk_phn = 0;", phase_type(o), (long long)o->spp);
  sdk_em_start(em, "sdk_tpb = (real)sdk_phn * ");
  sdk_em_number(em, o->dt);
  sdk_em_puts(em, ";\n");
  sdk_em_line(em, "sdk_tpc = sdk_tpb;");
}

/* SDK_ADAPT_SLICES: the next step sdk_ns's walks and phase time (the
 * driver's, cuda_paths.c) */
static void hook_restart(sdk_emit *em, const void *c) {
  const adapt_ctx *a = c;
  if (a->o->model->nnoise > 0) sdk_em_line(em, "sdk_wv = 0;");
  walk_start(em, a, 0);
  next_phase(em, a->o);
}

/* SDK_ADAPT_WHOLE (root_cache): the walks of step sdk_ns after sdk_k whole
 * steps from a multiple of 4 (hook whole), walk_start's values with the
 * root's lane known: k, or 0 of the next block after four */
static void hook_rewalk(sdk_emit *em, const void *c) {
  const adapt_ctx *a = c;
  const int nn = a->o->model->nnoise;
  if (nn == 0) return;
  sdk_em_line(em, "sdk_wv = 0;");
  sdk_em_open(em, "if (sdk_k == 4)");
  for (int j = 0; j < nn; j++)
    sdk_em_line(
        em, "sdk_gauss4_f(%s, %s, sdk_btree_root_block((sdk_u64)sdk_ns, %d, %d), 0u, sdk_rq%d);",
        a->seed, a->path, nn, j, j);
  for (int j = 0; j < nn; j++)
    sdk_em_line(em, "sdk_wb%d = 0.0, sdk_wq%d = sdk_rq%d[0];", j, j, j);
  sdk_em_reopen(em, "else");
  for (int j = 0; j < nn; j++)
    sdk_em_line(em,
                "sdk_wb%d = 0.0, sdk_wq%d = sdk_k == 1 ? sdk_rq%d[1] : sdk_k == 2 ? sdk_rq%d[2] : "
                "sdk_rq%d[3];",
                j, j, j, j, j);
  sdk_em_close(em);
}

/* the cached walks of the tree through the step, one per channel
 * (rng/btree.h): B at the position, the right ends of the nodes holding it
 * (levels 0 .. SDK_ADAPT_LEVMAX; level 0's, the root, also in sdk_wq<j>:
 * a float where it is drawn in single precision, so a whole step takes it
 * with no conversion), and the depth known */
static void hook_walk(sdk_emit *em, const void *c) {
  const adapt_ctx *a = c;
  int nn = a->o->model->nnoise;
  sdk_em_line(em, "int sdk_wv = 0;");
  for (int j = 0; j < nn; j++) {
    sdk_em_line(em, "double sdk_wb%d, sdk_wr%d[SDK_ADAPT_LEVMAX + 1];", j, j);
    sdk_em_line(em, "%s sdk_wq%d;", root_cache(a->o) ? "float" : "double", j);
    if (root_cache(a->o)) sdk_em_line(em, "float sdk_rq%d[4];", j);
  }
  walk_start(em, a, 1);
}

/* the sub-step's noise: the walks' increments, bit for bit the tree's
 * (sdk_btree_incr over [sdk_pos, sdk_pos + sdk_hu]).  A sub-step of level 0
 * is the whole step (pos 0, B(0) = 0, sdk_zs = 1 exactly): its increment is
 * the root itself, (real)((z_0 - 0.0) * 1.0) = (real)z_0, taken from the
 * register without the walk's array (in local memory on a GPU) or double
 * arithmetic; below it the walk's array gets r[0] when it first descends
 * (sdk_wv == 0: nothing below the root known yet) */
static void hook_noise(sdk_emit *em, const void *c) {
  const adapt_ctx *a = c;
  int nn = a->o->model->nnoise;
  if (nn == 0) return;
  for (int j = 0; j < nn; j++)
    sdk_em_line(em, "real sdk_z%d;", j);
  sdk_em_open(em, "if (sdk_lev == 0)");
  for (int j = 0; j < nn; j++)
    sdk_em_line(em, "sdk_z%d = (real)sdk_wq%d;", j, j);
  sdk_em_reopen(em, "else");
  sdk_em_open(em, "if (sdk_wv == 0)");
  for (int j = 0; j < nn; j++)
    sdk_em_line(em, "sdk_wr%d[0] = (double)sdk_wq%d;", j, j);
  sdk_em_close(em);
  for (int j = 0; j < nn; j++)
    sdk_em_line(em,
                "sdk_z%d = (real)(sdk_btree_walk_incr(%s, %s, (sdk_u64)sdk_ns, %d, %d, sdk_pos, "
                "sdk_lev, sdk_wv, sdk_wb%d, sdk_wr%d) * sdk_zs);",
                j, a->seed, a->path, nn, j, j, j);
  sdk_em_line(em, "if (sdk_wv < sdk_lev) sdk_wv = sdk_lev;");
  sdk_em_close(em);
}

/* the walks after an accepted sub-step (to sdk_pos, at level sdk_lev) */
static void hook_moved(sdk_emit *em, const void *c) {
  const adapt_ctx *a = c;
  sdk_em_open(em, "if (sdk_pos < (1ull << SDK_BTREE_DEPTH))");
  sdk_em_line(em, "sdk_wv = sdk_btree_walk_level(sdk_pos, sdk_lev);");
  for (int j = 0; j < a->o->model->nnoise; j++)
    sdk_em_line(em, "sdk_btree_walk_next(sdk_lev, sdk_wv, &sdk_wb%d, sdk_wr%d);", j, j);
  sdk_em_close(em);
}

/* the scheme's step and its embedded partner's from the same state, and
 * the error norm of their difference */
/* the slot of value k of stage i in the per-phase table: the order of the
 * CUDA driver's (cuda_paths.c, stages then values) */
static int tab_slot(const sdk_cg_hoist *h, int i, int k) {
  int sl = 0;
  for (int s = 0; s < SDK_MAX_STAGES; s++)
    for (int j = 0; j < h->n; j++)
      if (h->used[s] & (1u << j)) {
        if (s == i && j == k) return sl;
        sl++;
      }
  return -1;
}

/* the pair's two steps into `part` with the time-only values of h (hoisted:
 * expr_emit.h), then those values before them: computed at the sub-step's
 * phase time (`tab` 0) or read from the per-phase table at phase `ph`
 * (`tab` 1: a whole step, at the grid's phase times, where they are the
 * table's values, the same expressions at the same times).  h disabled:
 * the expressions in the steps as they are */
static void emit_steps(sdk_emit *em, const sdk_codegen_opts *o, sdk_cg_hoist *h, int tab,
                       const char *ph) {
  const int nv = o->model->nvars;
  sdk_strbuf part;
  sdk_sb_init(&part);
  sdk_emit pe = sdk_em_child(em, &part);
  sdk_em_block(&pe); /* the kept step: the scheme's */
  o->scheme->emit_step(&pe, o, h->enabled ? h : NULL);
  sdk_em_close(&pe);
  for (int v = 0; v < nv; v++)
    sdk_em_line(&pe, "real sdk_e%d;", v);
  sdk_em_block(&pe); /* its embedded partner */
  sdk_codegen_opts oe = *o;
  oe.scheme = o->scheme->embedded;
  for (int v = 0; v < nv; v++) {
    sdk_em_line(&pe, "real sdk_x%d = sdk_y%d;", v, v);
    if (o->model->nbound > 0 && sdk_cg_bridge_var(o, v))
      sdk_em_line(&pe, "real sdk_bw%d = 0; (void)sdk_bw%d;", v, v);
  }
  oe.scheme->emit_step(&pe, &oe, h->enabled ? h : NULL);
  for (int v = 0; v < nv; v++)
    sdk_em_line(&pe, "sdk_e%d = sdk_x%d;", v, v);
  sdk_em_close(&pe);
  if (h->enabled && !tab) sdk_cg_hoist_decls(em, o, h);
  for (int i = 0; h->enabled && tab && i < SDK_MAX_STAGES; i++)
    for (int k = 0; k < h->n; k++)
      if (h->used[i] & (1u << k))
        sdk_em_line(em, "const real sdk_T%d_%d = sdk_ttab[(%s) * SDK_TT_SLOTS + %d];", i, k, ph,
                    tab_slot(h, i, k));
  sdk_em_append(em, &part);
  sdk_sb_free(&part);
}

static void emit_pair(sdk_emit *em, const adapt_ctx *a, int whole, const char *ph) {
  const sdk_codegen_opts *o = a->o;
  const int nv = o->model->nvars;
  for (int v = 0; v < nv; v++)
    sdk_em_line(em, "const real sdk_y%d = sdk_x%d;", v, v);
  for (int v = 0; v < nv; v++) /* (the bridge's g sqrt(h): the kept step's) */
    if (o->model->nbound > 0 && sdk_cg_bridge_var(o, v)) sdk_em_line(em, "real sdk_bw%d = 0;", v);
  if (whole && a->tab)
    emit_steps(em, o, a->tab, 1, ph);
  else
    emit_steps(em, o, a->h, 0, ph);
  /* in the run's precision (a double division is a long software sequence
   * on a GPU); the tolerances rounded to it */
  const char *mx = o->single ? "fmaxf" : "fmax", *ab = o->single ? "fabsf" : "fabs";
  for (int v = 0; v < nv; v++) {
    sdk_em_block(em);
    sdk_em_line(em, "const real sdk_d = %s(sdk_x%d - sdk_e%d);", ab, v, v);
    sdk_em_start(em, "const real sdk_den = ");
    sdk_em_number(em, o->atol);
    sdk_em_puts(em, " + ");
    sdk_em_number(em, o->rtol);
    sdk_em_printf(em, " * %s(%s(sdk_y%d), %s(sdk_x%d));\n", mx, ab, v, ab, v);
    /* accepted iff every |X_v - E_v| <= atol + rtol max(..): err <= 1 as a
     * comparison, without a division's rounding (a GPU's fast division is
     * approximate), and false where either is NaN (a sub-step that blew up
     * is not taken).  A whole step (hook whole) needs only that decision;
     * the general loop also keeps err, the largest q (or NaN where either
     * is: fmax would drop a NaN), for the next try's level */
    sdk_em_line(em, "sdk_ok = sdk_ok && sdk_d <= sdk_den;");
    if (!whole) {
      sdk_em_line(em, "const real sdk_q = sdk_d / sdk_den;");
      sdk_em_line(em, "if (sdk_q > sdk_err || sdk_q != sdk_q) sdk_err = sdk_q;");
    }
    sdk_em_close(em);
  }
}

static void hook_pair(sdk_emit *em, const void *c) {
  emit_pair(em, c, 0, "sdk_phn");
}

/* a periodic model's phase time (expr_emit.h): the step's, sdk_tp0, kept
 * before the sub-steps (time0) and that of each sub-step's start (time) */
static void hook_time0(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = ((const adapt_ctx *)c)->o;
  if (o->spp > 0 && sdk_cg_adaptive_slices(o)) /* (and the phase index, hook restart) */
    sdk_em_line(em, "real sdk_tpb = sdk_tp0; %s sdk_phn = (%s)(sdk_nfirst %% %lldLL);",
                phase_type(o), phase_type(o), (long long)o->spp);
  else if (o->spp > 0)
    sdk_em_line(em, "const real sdk_tpb = sdk_tp0;");
  if (o->spp > 0) /* (the current sub-step's: hooks timenext and restart) */
    sdk_em_line(em, "real sdk_tpc = sdk_tpb;");
}

static void hook_time(sdk_emit *em, const void *c) {
  if (((const adapt_ctx *)c)->o->spp > 0) sdk_em_line(em, "const real sdk_tp0 = sdk_tpc;");
}

/* the phase time of the next sub-step of the step, at sdk_pos > 0 */
static void hook_timenext(sdk_emit *em, const void *c) {
  if (((const adapt_ctx *)c)->o->spp > 0)
    sdk_em_line(em, "sdk_tpc = (real)((double)sdk_tpb + sdk_db * ((double)sdk_pos * sdk_unit));");
}

static void hook_back(sdk_emit *em, const void *c) {
  const sdk_codegen_opts *o = ((const adapt_ctx *)c)->o;
  for (int v = 0; v < o->model->nvars; v++)
    sdk_em_line(em, "sdk_x%d = sdk_y%d;", v, v);
}

/* SDK_ADAPT_WHOLE (kernels/adapt_step.h): steps sdk_ns .. sdk_ns + 3 (sdk_ns
 * a multiple of 4, the lane at level 0 at a step's start) tried whole, each
 * with its root sdk_rq<j>[k] of the block the lane holds, in sequence, up to
 * the first one rejected (its state back; sdk_k the steps taken): each is
 * the general loop's sub-step of level 0 (the same expressions: dt-max, the
 * root as the noise, the step's time and phase time, the pair and its norm;
 * accepted iff err <= 1, or at any err when dt-min is dt-max), without its
 * per-try bookkeeping (level, position, walks) and the choice of the root
 * among the four; a rejected one is tried again by the general loop (the
 * same values), which goes on from there */
static void hook_whole(sdk_emit *em, const void *c) {
  const adapt_ctx *a = c;
  const sdk_codegen_opts *o = a->o;
  const int nn = o->model->nnoise;
  /* spp a multiple of 4: the block (from a multiple of 4) never wraps the
   * period, so step k's phase index is sdk_phn + k (the counter's value):
   * table rows at constant offsets, and the phase kept once after the block */
  const int flat = o->spp > 0 && o->spp % 4 == 0;
  sdk_em_open(em, "for (int sdk_once = 0; sdk_once < 1; sdk_once++)"); /* (break: rejected) */
  for (int k = 0; k < 4; k++) {
    char ph[32];
    snprintf(ph, sizeof ph, flat && k > 0 ? "sdk_phn + %d" : "sdk_phn", k);
    sdk_em_block(em);
    sdk_em_line(em, "const real sdk_dt = sdk_hdt;");
    sdk_em_line(em, "const real sdk_sqdt = sdk_hsq;");
    /* the step's time as the loop keeps it (sdk_tb after ++sdk_ns): the
     * time bookkeeping once after the block, not per step */
    if (k == 0)
      sdk_em_line(em, "const real sdk_t0 = sdk_tcur;");
    else
      sdk_em_line(em, "const real sdk_t0 = (real)((double)(sdk_ns + %d) * SDK_ADAPT_DT);", k);
    if (flat && k > 0) {
      sdk_em_start(em, "const real sdk_tp0 = (real)(%s) * ", ph);
      sdk_em_number(em, o->dt);
      sdk_em_puts(em, "; (void)sdk_tp0;\n");
    } else {
      hook_time(em, c);
    }
    for (int j = 0; j < nn; j++)
      sdk_em_line(em, "const real sdk_z%d = sdk_rq%d[%d];", j, j, k);
    sdk_em_line(em, "int sdk_ok = 1;");
    sdk_em_line(em, "(void)sdk_sqdt, (void)sdk_t0;");
    emit_pair(em, a, 1, ph);
    sdk_em_open(em, "if (!(sdk_ok || SDK_ADAPT_LEVMAX == 0))");
    hook_back(em, c);
    sdk_em_line(em, "break;");
    sdk_em_close(em);
    sdk_em_line(em, "sdk_k = %d;", k + 1);
    if (!flat) next_phase(em, o);
    sdk_em_close(em);
  }
  sdk_em_close(em);
  /* the loop's values after sdk_k steps (each step's ++sdk_ns, time and
   * phase, hook restart's, in one) */
  sdk_em_open(em, "if (sdk_k > 0)");
  sdk_em_line(em, "sdk_ns += sdk_k;");
  sdk_em_line(em, "sdk_tb = (real)((double)sdk_ns * SDK_ADAPT_DT);");
  sdk_em_line(em, "sdk_tcur = sdk_tb;");
  if (flat) {
    sdk_em_line(em, "sdk_phn += sdk_k;");
    sdk_em_line(em, "if (sdk_phn == (%s)%lldLL) sdk_phn = 0;", phase_type(o), (long long)o->spp);
    sdk_em_start(em, "sdk_tpb = (real)sdk_phn * ");
    sdk_em_number(em, o->dt);
    sdk_em_puts(em, ";\n");
    sdk_em_line(em, "sdk_tpc = sdk_tpb;");
  }
  sdk_em_close(em);
}

/* [boundaries] on the tentative sub-step (boundary.c) */
static void hook_bound(sdk_emit *em, const void *c) {
  sdk_cg_bound_sub(em, ((const adapt_ctx *)c)->o);
}

/* an accepted sub-step: the bridge draws keyed by its node 2^l + s / h of
 * the tree, the status, and where the hitting sub-step ends (codegen.h) */
static void hook_hit(sdk_emit *em, const void *c) {
  const adapt_ctx *a = c;
  if (a->o->model->nbound == 0) return;
  sdk_cg_bound_sub_hit(em, a->o, "sdk_ns",
                       "((sdk_u64)1 << sdk_lev) + (sdk_pos >> (SDK_BTREE_DEPTH - sdk_lev))",
                       a->path, a->seed);
  sdk_em_line(em,
              "if (sdk_hit != 0) SDK_ADAPT_ROW(%d) = (real)((double)((1ull << SDK_BTREE_DEPTH) - "
              "sdk_pos) - sdk_theta * (double)sdk_hu);",
              SDK_CG_ADAPT_HIT);
}

void sdk_cg_adaptive_step(sdk_emit *em, const sdk_codegen_opts *o, const char *n, const char *path,
                          const char *seed, sdk_cg_hoist *tab) {
  static const sdk_em_hook hooks[] = {
      {"noise", hook_noise},     {"pair", hook_pair},         {"back", hook_back},
      {"walk", hook_walk},       {"moved", hook_moved},       {"bound", hook_bound},
      {"hit", hook_hit},         {"time0", hook_time0},       {"time", hook_time},
      {"restart", hook_restart}, {"timenext", hook_timenext}, {"whole", hook_whole},
      {"rewalk", hook_rewalk}};
  /* a periodic model's time-only values hoisted on every backend alike (so
   * a sub-step's arithmetic is the same bits everywhere and in both paths
   * of SDK_ADAPT_WHOLE); the table for whole steps where the driver has one */
  sdk_cg_hoist h;
  sdk_cg_hoist_init(&h, o, o->spp > 0 && o->dt_column < 0);
  h.phase_only = 1;
  if (tab && !(tab->enabled && h.enabled && root_cache(o))) tab = NULL;
  if (tab) tab->phase_only = 1;
  const adapt_ctx c = {o, path, seed, &h, tab};
  sdk_em_line(em, "const sdk_i64 sdk_nfirst = (sdk_i64)(%s);", n);
  sdk_em_kernel_hooks(em, sdk_embedded_adapt_step_h, hooks, 13, &c);
}
