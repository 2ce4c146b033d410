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
 * Error estimate: the scheme's embedded pair (scheme.h: embedded,
 * est_noise, est_order q): both take the sub-step from X_n with the same
 * increments; the higher one's result is kept, the difference of the two,
 *   err = max_v |X_v - E_v| / (atol + rtol max(|X_n,v|, |X_v|)),
 * is the lower one's local error, of order h^q (milstein - euler for
 * diagonal multiplicative Ito noise, q = 1; srk2 - euler for additive
 * noise, q = 3/2).  The kept solution is one order better than the
 * estimate (local extrapolation).
 *
 * The controller: the I controller h' = h * 0.9 err^(-1/q) on the dyadic
 * grid.  A sub-step is accepted when err <= 1, or when h is already the
 * smallest (dt-min: accepted whatever err, as fixed steps of dt-min would
 * be); then the next try is 2 h when the factor is >= 2, err <= 0.45^q
 * (and when the next point is a multiple of 2 h), else h.  A rejected
 * sub-step is retried at h 2^-k, the smallest k in 1..4 with 2^-k at most
 * the factor, err <= (0.9 2^k)^q.  The thresholds are constants of the
 * source, so the decisions are comparisons, the same on every backend.  A
 * NaN err is rejected down to dt-min, then accepted (the path blows up and
 * is counted as the fixed steps' are). */
#include "codegen/adaptive.h"

#include <math.h>
#include <stdio.h>

#include "codegen/codegen.h"
#include "codegen/events.h"
#include "codegen/scheme.h"
#include "rng/btree.h"

/* 0.9: the usual safety factor of step-size control */
#define SAFETY 0.9

/* does scheme s estimate its error for the model's kind of noise? */
static int estimates(const sdk_scheme_type *s, const sdk_model *m) {
  unsigned kind = m->multiplicative ? SDK_NOISE_DIAGONAL : SDK_NOISE_ADDITIVE;
  return s->embedded && (s->est_noise & kind) && (s->noise_kinds & kind) &&
         (!m->multiplicative || s->calculus == m->calculus);
}

sdk_err sdk_cg_adaptive_check(const sdk_codegen_opts *o, sdk_errbuf *eb) {
  const sdk_model *m = o->model;
  if (!o->adaptive) return SDK_OK;
  const char *why = NULL;
  if (o->sysmode || m->interacting)
    why = "systems of interacting particles take their steps together";
  else if (m->nbound > 0)
    why = "[boundaries] need the bridge crossing probability in the step controller, which is "
          "not done yet";
  else if (sdk_cg_has_events(m))
    why = "[jumps] and [dichotomous] noise have no Brownian-tree equivalent yet";
  else if (o->single)
    why = "adaptive steps run in double precision only (--precision double)";
  else if (sdk_cg_noise(o) != &sdk_noise_gaussian)
    why = "the Brownian tree gives Gaussian increments only (no --noise)";
  else if (o->dt_check)
    why = "--dt-check couples fixed steps of dt and 2 dt";
  else if (o->tavg)
    why = "time averages (tavg) add the state after every fixed step";
  else if (o->spp > 0 || o->dt_column >= 0)
    why = "periodic models tabulate the drive at the fixed steps";
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
  if (o->adapt_lev0 < 0 || o->adapt_lev0 > o->adapt_levmax || o->adapt_levmax > SDK_BTREE_DEPTH ||
      !(o->rtol > 0) || !(o->atol >= 0))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "--adaptive: levels %d..%d, rtol %g, atol %g",
                    o->adapt_lev0, o->adapt_levmax, o->rtol, o->atol);
  return SDK_OK;
}

/* "NAME = VALUE;" as a double literal */
static void const_double(sdk_emit *em, const char *decl, double v) {
  sdk_em_start(em, "%s", decl);
  sdk_em_puts(em, " = ");
  sdk_em_double(em, v);
  sdk_em_puts(em, ";\n");
}

/* the error norm of the pair and the controller's decision (above) */
static void emit_control(sdk_emit *em, const sdk_codegen_opts *o, int nv) {
  const double q = o->scheme->est_order;
  sdk_em_line(em, "double sdk_err = 0;");
  for (int v = 0; v < nv; v++)
    sdk_em_line(em,
                "sdk_err = fmax(sdk_err, fabs(sdk_x%d - sdk_e%d) / (sdk_atol + sdk_rtol * "
                "fmax(fabs(sdk_y%d), fabs(sdk_x%d))));",
                v, v, v, v);
  sdk_em_line(em, "if (sdk_err != sdk_err) sdk_err = 1e300; /* NaN: down to dt-min */");
  sdk_em_open(em, "if (sdk_err <= 1 || sdk_lev >= %d)", o->adapt_levmax);
  sdk_em_line(em, "sdk_pos += sdk_hu;");
  sdk_em_line(em, "sdk_nacc += 1;");
  sdk_em_line(em, "if (sdk_lev > sdk_ldeep) sdk_ldeep = sdk_lev;");
  sdk_em_start(em, "if (sdk_lev > 0 && sdk_err <= ");
  sdk_em_double(em, pow(SAFETY / 2, q));
  sdk_em_puts(em, ") sdk_lev--;\n");
  sdk_em_close(em);
  sdk_em_open(em, "else");
  for (int v = 0; v < nv; v++)
    sdk_em_line(em, "sdk_x%d = sdk_y%d;", v, v);
  sdk_em_line(em, "sdk_nrej += 1;");
  sdk_em_line(em, "sdk_lev += 1;");
  for (int k = 1; k < 4; k++) {
    sdk_em_start(em, "if (sdk_err > ");
    sdk_em_double(em, pow(SAFETY * (double)(1 << k), q));
    sdk_em_puts(em, ") sdk_lev += 1;\n");
  }
  sdk_em_line(em, "if (sdk_lev > %d) sdk_lev = %d;", o->adapt_levmax, o->adapt_levmax);
  sdk_em_close(em);
}

void sdk_cg_adaptive_step(sdk_emit *em, const sdk_codegen_opts *o, const char *rows, const char *n,
                          const char *path, const char *seed) {
  const sdk_model *m = o->model;
  const int nv = m->nvars, nn = m->nnoise, D = SDK_BTREE_DEPTH;
  char r[4][64];
  for (int k = 0; k < 4; k++)
    snprintf(r[k], sizeof r[k], rows, k);
  sdk_em_line(em, "/* adaptive sub-steps of step %s (codegen/adaptive.c) */", n);
  sdk_em_block(em);
  sdk_em_line(em, "const double sdk_tb = sdk_t0, sdk_db = sdk_dt;");
  const_double(em, "const double sdk_rtol", o->rtol);
  const_double(em, "const double sdk_atol", o->atol);
  const_double(em, "const double sdk_unit", ldexp(1.0, -D));
  sdk_em_line(em, "int sdk_lev = %d + (int)%s, sdk_ldeep = (int)%s;", o->adapt_lev0, r[0], r[3]);
  sdk_em_line(em, "double sdk_nacc = %s, sdk_nrej = %s;", r[1], r[2]);
  sdk_em_line(em, "sdk_u64 sdk_pos = 0;");
  sdk_em_open(em, "while (sdk_pos < (1ull << %d))", D);
  /* the next try's end must be a multiple of its length */
  sdk_em_line(em,
              "while (sdk_lev < %d && (sdk_pos & ((1ull << (%d - sdk_lev)) - 1u)) != 0u) "
              "sdk_lev++;",
              o->adapt_levmax, D);
  sdk_em_line(em, "const sdk_u64 sdk_hu = 1ull << (%d - sdk_lev);", D);
  sdk_em_block(em);
  sdk_em_line(em, "const real sdk_dt = sdk_db * ((double)sdk_hu * sdk_unit);");
  sdk_em_line(em, "const real sdk_sqdt = sqrt(sdk_dt); (void)sdk_sqdt;");
  sdk_em_line(em, "const real sdk_t0 = sdk_tb + sdk_db * ((double)sdk_pos * sdk_unit); "
                  "(void)sdk_t0;");
  sdk_em_line(em, "const double sdk_zs = 1.0 / sqrt((double)sdk_hu * sdk_unit); (void)sdk_zs;");
  for (int j = 0; j < nn; j++)
    sdk_em_line(em,
                "const real sdk_z%d = sdk_btree_incr(%s, %s, (sdk_u64)(%s), %d, %d, sdk_pos, "
                "sdk_pos + sdk_hu) * sdk_zs;",
                j, seed, path, n, nn, j);
  for (int v = 0; v < nv; v++)
    sdk_em_line(em, "const real sdk_y%d = sdk_x%d;", v, v);
  sdk_em_block(em); /* the kept step: the scheme's */
  o->scheme->emit_step(em, o, NULL);
  sdk_em_close(em);
  for (int v = 0; v < nv; v++)
    sdk_em_line(em, "real sdk_e%d;", v);
  sdk_em_block(em); /* its embedded partner from the same start */
  sdk_codegen_opts oe = *o;
  oe.scheme = o->scheme->embedded;
  for (int v = 0; v < nv; v++)
    sdk_em_line(em, "real sdk_x%d = sdk_y%d;", v, v);
  oe.scheme->emit_step(em, &oe, NULL);
  for (int v = 0; v < nv; v++)
    sdk_em_line(em, "sdk_e%d = sdk_x%d;", v, v);
  sdk_em_close(em);
  emit_control(em, o, nv);
  sdk_em_close(em); /* the sub-step's scope */
  sdk_em_close(em); /* while */
  sdk_em_line(em, "%s = (real)(sdk_lev - %d);", r[0], o->adapt_lev0);
  sdk_em_line(em, "%s = (real)sdk_nacc;", r[1]);
  sdk_em_line(em, "%s = (real)sdk_nrej;", r[2]);
  sdk_em_line(em, "%s = (real)sdk_ldeep;", r[3]);
  sdk_em_close(em);
}
