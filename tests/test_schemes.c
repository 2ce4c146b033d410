/* Schemes and noise sources are data: every registered one is checked
 * against its own declarations (codegen/scheme.h, codegen/noise.h).
 *
 *  - the registry: names unique and found, unknown names not;
 *  - capabilities coherent: orders, stages, noise kinds (multiplicative
 *    noise is Ito, as the models are), features (systems: one stage, the
 *    couplings being computed once per step);
 *  - explicit SRK tables consistent with the declared orders: A strictly
 *    lower triangular, c_i = sum_j A_ij, sum alpha = 1; for weak order 2
 *    with additive noise sum alpha c = 1/2 and sum alpha B = 1/2 and, with
 *    time-dependent noise, the noise average; nothing past the stages;
 *  - euler and srk2 are the methods their documentation names;
 *  - the noise sources: the stream layout (4 values per Philox block) and
 *    the code they emit. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codegen/emit.h"
#include "codegen/scheme.h"
#include "core/strbuf.h"
#include "sim/registry.h"
#include "testutil.h"

static void test_registry(void) {
  int n = 0;
  for (int i = 0; sdk_registry_schemes[i]; i++, n++) {
    const sdk_scheme_type *s = sdk_registry_schemes[i];
    TU_CHECK(s->name && s->name[0] && s->description && s->description[0], "scheme %d: names", i);
    TU_CHECK(sdk_find_scheme(s->name) == s, "%s: found by its name", s->name);
    for (int j = 0; j < i; j++)
      TU_CHECK(strcmp(sdk_registry_schemes[j]->name, s->name), "%s: registered twice", s->name);
  }
  TU_CHECK(n >= 2, "%d schemes registered", n);
  TU_CHECK(!sdk_find_scheme("rk4") && !sdk_find_scheme("") && !sdk_find_scheme(NULL),
           "unknown schemes");
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_registry_scheme_names(&b);
  TU_CHECK(b.s && !strncmp(b.s, "euler, srk2", 11), "names for messages: %s", b.s ? b.s : "");
  sdk_sb_free(&b);
  for (int i = 0; sdk_registry_noises[i]; i++) {
    const sdk_noise_type *z = sdk_registry_noises[i];
    TU_CHECK(z->name && z->name[0] && z->description && z->description[0], "noise %d: names", i);
    TU_CHECK(sdk_find_noise(z->name) == z, "%s: found by its name", z->name);
  }
  TU_CHECK(!sdk_find_noise("poisson"), "unknown noise");
}

static int registered_noise(const sdk_noise_type *z) {
  for (int i = 0; sdk_registry_noises[i]; i++)
    if (sdk_registry_noises[i] == z) return 1;
  return 0;
}

static void test_capabilities(const sdk_scheme_type *s) {
  const char *n = s->name;
  TU_CHECK(s->stages >= 1 && s->stages <= SDK_MAX_STAGES, "%s: %d stages", n, s->stages);
  TU_CHECK(s->weak_order >= 1 && s->strong_order > 0 && s->strong_order <= s->weak_order,
           "%s: orders strong %g, weak %d", n, s->strong_order, s->weak_order);
  TU_CHECK(s->emit_step != NULL, "%s: a step emitter", n);
  TU_CHECK(s->noise && registered_noise(s->noise), "%s: a registered noise source", n);
  TU_CHECK(s->noise_kinds & SDK_NOISE_ADDITIVE, "%s: additive noise (the paper's setting)", n);
  TU_CHECK(!(s->noise_kinds & ~(unsigned)(SDK_NOISE_ADDITIVE | SDK_NOISE_DIAGONAL)),
           "%s: known noise kinds", n);
  TU_CHECK(!(s->features & ~(unsigned)(SDK_FEATURE_TIME_NOISE | SDK_FEATURE_SYSTEMS |
                                       SDK_FEATURE_BOUNDARIES | SDK_FEATURE_DELAYS)),
           "%s: known features", n);
  /* state-dependent noise: the declared calculus is the limit of the form.
   * An SRK step takes b at X_n alone (Ito) unless it averages b with its
   * value at the predictor of a stage at t_n + dt (Heun: Stratonovich;
   * srk.c, heun_stage); a model of the other calculus is corrected by
   * codegen.c */
  if ((s->noise_kinds & SDK_NOISE_DIAGONAL) && s->srk) {
    int heun = 0;
    for (int i = 1; s->srk->noise_average && i < s->stages; i++)
      heun |= s->srk->c[i] == 1 && s->srk->B[i] == 1;
    TU_CHECK(s->calculus == (heun ? SDK_CALCULUS_STRATONOVICH : SDK_CALCULUS_ITO),
             "%s: state-dependent noise converges to the declared calculus (%s)", n,
             heun ? "Heun: Stratonovich" : "b at X_n: Ito");
  }
  /* the system drivers compute the couplings once per step, at x_n */
  if (s->features & SDK_FEATURE_SYSTEMS) TU_CHECK(s->stages == 1, "%s: systems need 1 stage", n);
  TU_CHECK((s->emit_step == sdk_srk_emit_step) == (s->srk != NULL),
           "%s: the SRK emitter exactly when there is an SRK table", n);
}

static void test_srk_table(const sdk_scheme_type *s) {
  const sdk_srk_table *t = s->srk;
  const char *n = s->name;
  double sa = 0, sac = 0, sab = 0;
  for (int i = 0; i < SDK_MAX_STAGES; i++) {
    double row = 0;
    for (int j = 0; j < SDK_MAX_STAGES; j++) {
      TU_CHECK(j < i || t->A[i][j] == 0, "%s: A must be strictly lower triangular", n);
      TU_CHECK(i < s->stages || t->A[i][j] == 0, "%s: A past the stages", n);
      row += t->A[i][j];
    }
    if (i >= s->stages) {
      /* noise weights (and everything else) only where declared */
      TU_CHECK(t->B[i] == 0 && t->c[i] == 0 && t->alpha[i] == 0, "%s: stage %d past %d", n, i,
               s->stages);
      continue;
    }
    TU_NEAR(row, t->c[i], 1e-15, "row sum of A equals c (consistency)");
    sa += t->alpha[i];
    sac += t->alpha[i] * t->c[i];
    sab += t->alpha[i] * t->B[i];
  }
  TU_NEAR(sa, 1, 1e-15, "weights sum to 1 (order 1)");
  TU_CHECK(t->c[0] == 0 && t->B[0] == 0, "%s: stage 0 is X_n at t_n", n);
  if (s->weak_order >= 2) {
    TU_NEAR(sac, 0.5, 1e-15, "sum alpha c = 1/2 (order 2)");
    TU_NEAR(sab, 0.5, 1e-15, "sum alpha B = 1/2 (order 2 for additive noise: the a' b dZ term)");
    if (s->features & SDK_FEATURE_TIME_NOISE)
      TU_CHECK(t->noise_average, "%s: weak order 2 with b(t) needs the noise average", n);
  }
  if (t->noise_average) {
    int end = 0;
    for (int i = 1; i < s->stages; i++)
      end |= t->c[i] == 1;
    TU_CHECK(end, "%s: the noise average needs a stage at t_n + dt", n);
  }
}

/* The methods their documentation (and the paper) names. */
static void test_named(void) {
  const sdk_scheme_type *e = sdk_find_scheme("euler"), *h = sdk_find_scheme("srk2");
  TU_CHECK(e && h, "registry");
  if (!e || !h) return;
  TU_CHECK(h->stages == 2 && h->srk->A[1][0] == 1 && h->srk->B[1] == 1 && h->srk->alpha[0] == 0.5 &&
               h->srk->alpha[1] == 0.5 && (h->noise_kinds & SDK_NOISE_DIAGONAL) &&
               h->calculus == SDK_CALCULUS_STRATONOVICH,
           "srk2 is the paper's Alg. 2 (Heun)");
  TU_CHECK(h->weak_order == 2 && h->srk->noise_average, "srk2: weak order 2, b(t) averaged");
  TU_CHECK(e->stages == 1 && e->srk->alpha[0] == 1 && (e->noise_kinds & SDK_NOISE_DIAGONAL),
           "euler");
  TU_CHECK(e->weak_order == 1 && e->strong_order == 0.5 && e->calculus == SDK_CALCULUS_ITO &&
               (e->features & SDK_FEATURE_SYSTEMS),
           "euler: Euler-Maruyama, Ito, the scheme of systems");
}

/* The code a noise source emits: statements over the names it is given,
 * calling what the prelude and rng/philox.h define. */
static void test_noise(const sdk_noise_type *z) {
  TU_CHECK(z->values_per_block == 4, "%s: 4 values per Philox block (the stream layout)", z->name);
  TU_CHECK(z->emit != NULL, "%s: its one emitting function", z->name);
  if (!z->emit) return;
  for (int single = 0; single < 2; single++) {
    sdk_strbuf b;
    sdk_sb_init(&b);
    sdk_emit em = sdk_em_on(&b, single);
    em.depth = 1;
    static const char *const w[4] = {"W0", "W1", "W2", "W3"};
    static const char *const d[4] = {"D0", "D1", "D2", "D3"};
    sdk_noise_defs(&em, z, 1);
    sdk_noise_block(&em, z, "SEED", "PATH", "BLOCK", 3, "DST");
    sdk_noise_words(&em, z, w, d);
    sdk_noise_lane(&em, z, w, "LANE", "ONE");
    if (z->halves) sdk_noise_at(&em, z, "SEED", "PATH", "BLOCK", 3, "HALF", "TWO");
    TU_CHECK(!z->halves || (b.s && strstr(b.s, "HALF") && strstr(b.s, "TWO")), "%s: a half",
             z->name);
    TU_CHECK(!b.oom && b.s, "%s: emitted", z->name);
    const char *s = b.s ? b.s : "";
    TU_CHECK(strstr(s, "SEED") && strstr(s, "PATH") && strstr(s, "BLOCK") && strstr(s, "DST"),
             "%s: the block's stream position and destination", z->name);
    for (int k = 0; k < 4; k++)
      TU_CHECK(strstr(s, w[k]) && strstr(s, d[k]), "%s: word %d and value %d", z->name, k, k);
    TU_CHECK(strstr(s, "LANE") && strstr(s, "ONE"), "%s: one lane", z->name);
    /* no random-number arithmetic of its own: no Philox constant */
    TU_CHECK(!strstr(s, "0x") && !strstr(s, "9E3779B9"), "%s: calls only", z->name);
    sdk_sb_free(&b);
  }
}

int main(void) {
  test_registry();
  for (int i = 0; sdk_registry_schemes[i]; i++) {
    test_capabilities(sdk_registry_schemes[i]);
    if (sdk_registry_schemes[i]->srk) test_srk_table(sdk_registry_schemes[i]);
  }
  test_named();
  for (int i = 0; sdk_registry_noises[i]; i++)
    test_noise(sdk_registry_noises[i]);
  return tu_finish("test_schemes");
}
