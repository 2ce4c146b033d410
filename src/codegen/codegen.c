/* The entry point of the generator (codegen.h): the model against the
 * scheme's capabilities, then the module: prelude, head, one driver. */
#include "codegen/codegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/adaptive.h"
#include "codegen/colored_levy.h"
#include "codegen/common.h"
#include "codegen/correction.h"
#include "codegen/delay.h"
#include "codegen/drivers.h"
#include "codegen/emit.h"
#include "codegen/resets.h"
#include "codegen/sys.h"

/* Every name that reaches the source must be an identifier (the model parser
 * ensures it; a model built another way is refused here, not pasted). */
static sdk_err check_names(const sdk_model *m, sdk_errbuf *eb) {
  const char *bad = NULL;
  for (int i = 0; i < m->nvars && !bad; i++)
    if (!sdk_em_name_ok(m->vars[i])) bad = m->vars[i];
  for (int i = 0; i < m->nparams && !bad; i++)
    if (!sdk_em_name_ok(m->params[i])) bad = m->params[i];
  for (int i = 0; i < m->npart && !bad; i++)
    if (!sdk_em_name_ok(m->part[i].name)) bad = m->part[i].name;
  for (int i = 0; i < m->nmean && !bad; i++)
    if (!sdk_em_name_ok(m->mean_names[i])) bad = m->mean_names[i];
  for (int i = 0; i < m->npair && !bad; i++)
    if (!sdk_em_name_ok(m->pair_names[i])) bad = m->pair_names[i];
  if (bad)
    return SDK_FAIL(eb, SDK_ERR_MODEL, "%s: '%s' is not a valid name (letters, digits, _)",
                    m->path ? m->path : "model", bad);
  return SDK_OK;
}

/* Does some noise coefficient depend on t? */
static int time_noise(const sdk_model *m) {
  for (int v = 0; v < m->nvars; v++)
    if (m->noise[v] && sdk_expr_uses(m->noise[v], SDK_SYM_TIME)) return 1;
  return 0;
}

/* what a scheme must have (scheme.h) for systems, state-dependent noise,
 * [boundaries], non-commutative noise */
static int can_systems(const sdk_scheme_type *s) {
  return (s->features & SDK_FEATURE_SYSTEMS) != 0;
}
static int can_diagonal(const sdk_scheme_type *s) {
  return (s->noise_kinds & SDK_NOISE_DIAGONAL) != 0;
}
static int can_bound(const sdk_scheme_type *s) {
  return (s->features & SDK_FEATURE_BOUNDARIES) != 0;
}
static int can_general(const sdk_scheme_type *s) {
  return can_diagonal(s) && !s->commutative;
}

/* For a refusal: "--scheme euler (Ito) or srk2 (Stratonovich)", the
 * registered schemes that can (o->schemes), each with its calculus when
 * `calc` (state-dependent noise, where it matters), into buf; "another
 * scheme" when none is known. */
static const char *able(const sdk_codegen_opts *o, int (*can)(const sdk_scheme_type *), int calc,
                        char *buf, size_t n) {
  int k = 0, total = 0;
  for (int i = 0; o->schemes && o->schemes[i]; i++)
    total += can(o->schemes[i]) != 0;
  size_t at = (size_t)snprintf(buf, n, "--scheme ");
  for (int i = 0; o->schemes && o->schemes[i] && at < n; i++) {
    const sdk_scheme_type *s = o->schemes[i];
    if (!can(s)) continue;
    k++;
    const char *sep = k == 1 ? "" : k == total ? " or " : ", ";
    const char *c = s->calculus == SDK_CALCULUS_ITO ? " (Ito)" : " (Stratonovich)";
    int w = snprintf(buf + at, n - at, "%s%s%s", sep, s->name, calc ? c : "");
    at += w > 0 ? (size_t)w : 0;
  }
  if (k == 0) snprintf(buf, n, "another scheme");
  return buf;
}

static int can_delay(const sdk_scheme_type *s) {
  return (s->features & SDK_FEATURE_DELAYS) != 0;
}

/* Can the scheme integrate this model (its capabilities, scheme.h)? */
static sdk_err check_scheme(const sdk_codegen_opts *o, sdk_errbuf *eb) {
  const sdk_scheme_type *s = o->scheme;
  const sdk_model *m = o->model;
  char alt[256];
  if (o->sysmode && !can_systems(s))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "systems of interacting particles are integrated with %s only (as the "
                    "paper's PROG2/PROG3), not %s",
                    able(o, can_systems, 0, alt, sizeof alt), s->name);
  if (!o->sysmode && m->interacting)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "model '%s' couples particles: run it with --particles N",
                    m->name);
  if (m->multiplicative && !can_diagonal(s))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "scheme %s assumes additive noise but model '%s' has state-dependent noise; "
                    "use %s",
                    s->name, m->name, able(o, can_diagonal, 1, alt, sizeof alt));
  if (!m->multiplicative && m->nnoise > 0 && !(s->noise_kinds & SDK_NOISE_ADDITIVE))
    return SDK_FAIL(eb, SDK_ERR_USAGE, "scheme %s does not integrate the additive noise of '%s'",
                    s->name, m->name);
  if (m->nbound > 0 && o->sysmode)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "model '%s' has [boundaries]: they are not supported for systems of particles "
                    "(--particles) yet",
                    m->name);
  /* (time averages: the CPU driver adds them in its vector loop, before
   * the resets of its scalar pass, resets.h) */
  if (m->nevent > 0 && (o->sysmode || o->dt_check || o->tavg))
    return SDK_FAIL(eb, SDK_ERR_USAGE, "model '%s' has [events]: not supported with %s yet",
                    m->name,
                    o->sysmode    ? "systems of particles (--particles)"
                    : o->dt_check ? "--dt-check"
                                  : "time averages (--observe tavg)");
  if (m->nevent > 0 && !can_bound(s))
    return SDK_FAIL(
        eb, SDK_ERR_USAGE,
        "scheme %s does not support [events] (it leaves no noise for the bridge); use %s", s->name,
        able(o, can_bound, 0, alt, sizeof alt));
  if (m->nbound > 0 && !can_bound(s))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "scheme %s does not support [boundaries] (absorbing and reflecting); use %s",
                    s->name, able(o, can_bound, 0, alt, sizeof alt));
  if (o->target == SDK_TARGET_CUDA && o->tuning && o->tuning->sys_pairs == SDK_PAIRS_HALF) {
    char why[160];
    if (!o->sysmode || m->npair < 1)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "SDEKIT_SYS_PAIRS=half: model '%s' has no [pair] functions (run with "
                      "--particles N a model with a [pair] section)",
                      m->name);
    if (!sdk_cg_pair_half_ok(o, why, sizeof why))
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "SDEKIT_SYS_PAIRS=half: model '%s' needs every pair evaluated both ways: %s",
                      m->name, why);
  }
  if (time_noise(m) && !(s->features & SDK_FEATURE_TIME_NOISE))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "scheme %s does not integrate the time-dependent noise of model '%s'", s->name,
                    m->name);
  SDK_CHECK(sdk_cg_colored_levy_check(o, eb));
  if (m->ndelay > 0 && !(s->features & SDK_FEATURE_DELAYS))
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s: scheme %s does not integrate delayed values %s(t - TAU) (its stages "
                    "need the state where the buffer of past steps holds none, or derivatives it "
                    "has not); use %s",
                    m->delay[0].where, s->name, m->vars[m->delay[0].var],
                    able(o, can_delay, 0, alt, sizeof alt));
  return sdk_cg_delay_check(o, eb);
}

static void ppar_rows(const sdk_codegen_opts *o, sdk_cg_row_layout *l);

void sdk_cg_rows(const sdk_codegen_opts *o, sdk_cg_row_layout *l) {
  int nv = o->model->nvars;
  l->nvars = nv;
  l->ncomp = o->compensate ? (o->comp_defer ? 2 : 1) * nv : 0;
  l->comp = l->ncomp ? nv : -1;
  l->total = nv + l->ncomp;
  l->bound = -1;
  if (o->model->nbound > 0 && !o->sysmode) {
    l->bound = l->total;
    l->total += SDK_CG_BOUND_ROWS;
  }
  l->host = l->total;
  l->nhost = o->sysmode ? 0 : o->host_rows;
  l->total += l->nhost;
  /* (before the time averages) */
  l->ndly = (int)sdk_cg_delay_rows(o); /* (bounded: delay.c) */
  l->dly = l->ndly > 0 ? l->total : -1;
  l->total += l->ndly;
  l->tavg = l->total;
  l->ntavg = o->tavg && !o->sysmode ? o->model->nobs + nv : 0;
  l->total += 2 * l->ntavg;
  l->adapt = -1;
  if (o->adaptive && !o->sysmode) /* (and the hit's place with [boundaries]) */
    l->adapt = l->total, l->total += SDK_CG_ADAPT_ROWS + (l->bound >= 0);
  l->evt = -1;
  l->nevt = o->sysmode ? 0 : o->model->nevent * SDK_CG_RESET_ROWS;
  if (l->nevt > 0) l->evt = l->total, l->total += l->nevt;
  l->dtc = l->dtc_comp = l->dtc_z = l->dtc_d0 = l->dtc_tavg = l->dtc_bound = -1;
  if (!o->dt_check || o->sysmode) {
    ppar_rows(o, l);
    return;
  }
  l->dtc = l->total;
  l->total += nv;
  if (o->compensate) l->dtc_comp = l->total, l->total += nv;
  l->dtc_z = l->total;
  l->total += o->model->nnoise;
  l->dtc_d0 = l->total;
  l->total += nv;
  if (l->ntavg) l->dtc_tavg = l->total, l->total += 2 * l->ntavg;
  if (l->bound >= 0) l->dtc_bound = l->total, l->total += SDK_CG_BOUND_ROWS;
  ppar_rows(o, l);
}

/* does [particle] parameter k (part = 1) or parameter k (part = 0) have a
 * row of per-path values? */
static int has_row(const sdk_codegen_opts *o, int part, int k) {
  if (o->sysmode) return 0;
  if (!part) return o->path_param && o->path_param[k] >= 0;
  return (o->path_part && o->path_part[k] >= 0) || !sdk_cg_part_const(o, k);
}

int sdk_cg_ppar_row(const sdk_codegen_opts *o, int part, int k) {
  if (!has_row(o, part, k)) return -1;
  int j = 0;
  for (int i = 0; i < (part ? k : o->model->npart); i++)
    j += has_row(o, 1, i);
  for (int i = 0; !part && i < k; i++)
    j += has_row(o, 0, i);
  return j;
}

/* (after every other block, so that no row of a model without [particle]
 * moves) */
static void ppar_rows(const sdk_codegen_opts *o, sdk_cg_row_layout *l) {
  int n = 0;
  for (int k = 0; k < o->model->npart; k++)
    n += has_row(o, 1, k);
  for (int i = 0; i < o->model->nparams; i++)
    n += has_row(o, 0, i);
  l->ppar = n > 0 ? l->total : -1;
  l->nppar = n;
  l->total += n;
}

int sdk_cg_block(const sdk_cg_row_layout *l, int nnoise, int b, int *n) {
  int nv = l->nvars, first = -1;
  *n = 0;
  switch (b) {
  case SDK_CG_B_VARS: first = 0, *n = nv; break;
  case SDK_CG_B_COMP: first = l->comp, *n = nv; break;
  case SDK_CG_B_HIGH: first = l->ncomp == 2 * nv ? l->comp + nv : -1, *n = nv; break;
  case SDK_CG_B_TAVG: first = l->tavg, *n = l->ntavg; break;
  case SDK_CG_B_BOUND: first = l->bound, *n = SDK_CG_BOUND_ROWS; break;
  case SDK_CG_B_DTC: first = l->dtc, *n = nv; break;
  case SDK_CG_B_DTC_COMP: first = l->dtc_comp, *n = nv; break;
  case SDK_CG_B_DTC_Z: first = l->dtc_z, *n = nnoise; break;
  case SDK_CG_B_DTC_D0: first = l->dtc_d0, *n = nv; break;
  case SDK_CG_B_DTC_TAVG: first = l->dtc_tavg, *n = l->ntavg; break;
  case SDK_CG_B_DTC_BOUND: first = l->dtc_bound, *n = SDK_CG_BOUND_ROWS; break;
  case SDK_CG_B_PPAR: first = l->ppar, *n = l->nppar; break;
  case SDK_CG_B_ADAPT: first = l->adapt, *n = SDK_CG_ADAPT_ROWS + (l->bound >= 0); break;
  case SDK_CG_B_EVENTS: first = l->evt, *n = l->nevt; break;
  }
  if (first < 0) *n = 0;
  return first;
}

/* The model as the scheme integrates it.  With noise that depends on the
 * state, Ito's and Stratonovich's b dW differ in the mean drift they
 * produce; for diagonal noise b_v(X, t) dW_v the Ito drift is the
 * Stratonovich drift plus 1/2 b_v db_v/dx_v (Kloeden & Platen 1992, Sec.
 * 4.9).  When the model's calculus is not the scheme's, *view is the model
 * with each such drift corrected by that term (+ for an Ito scheme, - for a
 * Stratonovich one), its new trees in drift[] of *view (free_view);
 * otherwise *view is a plain copy of the model. */
/* With shared Wiener processes ([model] wiener), noise sum_k b_vk dW_k and
 * increments of correlations C_kl, the correction of variable v's drift is
 *   1/2 sum_j sum_{k,l} C_kl b_jl db_vk/dx_j
 * (the Ito-Stratonovich relation for the noise matrix B L, C = L L^T), over
 * locals of the step (correction.h: *corr). */
static sdk_err calculus_view(const sdk_codegen_opts *o, sdk_model *view, sdk_cg_corr **corr,
                             sdk_errbuf *eb) {
  const sdk_model *m = o->model;
  *view = *m;
  view->drift = NULL;
  *corr = NULL;
  if (!m->multiplicative || m->calculus == o->scheme->calculus) return SDK_OK;
  view->drift = calloc((size_t)m->nvars, sizeof *view->drift);
  if (!view->drift) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  if (m->nwiener > 0) {
    /* (the terms go into view->drift, freed with it) */
    SDK_CHECK(sdk_cg_corr_build(m, o->own_scheme, corr, view->drift, eb));
  }
  int sign = o->scheme->calculus == SDK_CALCULUS_ITO ? '+' : '-';
  for (int v = 0; v < m->nvars; v++) {
    sdk_expr *f = m->drift[v] ? sdk_expr_copy(m->drift[v]) : sdk_expr_number(0);
    if (!f) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    if (m->nwiener > 0) {
      sdk_expr *t = view->drift[v];
      view->drift[v] = t ? sdk_expr_binary(sign, f, t) : f;
      if (!view->drift[v]) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
      continue;
    }
    view->drift[v] = f;
    if (!m->noise[v]) continue;
    char where[512];
    snprintf(where, sizeof where, "%s:%d [noise] %s", m->path, m->noise_line[v], m->vars[v]);
    sdk_expr *db = NULL;
    sdk_err e = sdk_expr_diff(m->noise[v], v, where, &db, eb);
    if (e != SDK_OK) return e;
    if (db->kind == SDK_E_NUM && db->num == 0) {
      sdk_expr_destroy(&db);
      continue;
    }
    sdk_expr *b = sdk_expr_copy(m->noise[v]);
    sdk_expr *corr = sdk_expr_binary('*', sdk_expr_binary('*', sdk_expr_number(0.5), b), db);
    view->drift[v] = sdk_expr_binary(sign, f, corr);
    if (!view->drift[v]) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  return SDK_OK;
}

static void free_view(const sdk_model *m, sdk_model *view, sdk_cg_corr **corr) {
  for (int v = 0; view->drift && v < m->nvars; v++)
    sdk_expr_destroy(&view->drift[v]);
  free(view->drift);
  view->drift = NULL;
  sdk_cg_corr_free(corr);
}

/* The derivatives the Milstein term needs, d b_v / d x_v into dn[v] (dn
 * NULL: none), and the condition under which one Wiener process per variable makes it strong
 * order 1: commutative noise, here b_v independent of every other variable
 * with noise (b_j db_v/dx_j = 0 for j != v); otherwise the double integrals
 * of pairs of Wiener processes (Levy areas) would be needed. */
static sdk_err milstein_terms(const sdk_codegen_opts *o, sdk_expr **dn, sdk_errbuf *eb) {
  const sdk_model *m = o->model;
  char alt[256];
  if (m->nwiener > 0 && m->multiplicative)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s:%d: model '%s' has state-dependent noise on shared Wiener processes "
                    "([model] wiener): scheme %s needs one Wiener process per variable there (the "
                    "general case needs the Levy areas of pairs of Wiener processes); use %s",
                    m->path, m->wiener_line, m->name, o->scheme->name,
                    able(o, can_general, 1, alt, sizeof alt));
  if (m->nwiener > 0) return SDK_OK; /* additive: no Milstein term */
  for (int v = 0; v < m->nvars; v++) {
    if (!m->noise[v]) continue;
    char where[512];
    snprintf(where, sizeof where, "%s:%d [noise] %s", m->path, m->noise_line[v], m->vars[v]);
    if (dn) SDK_CHECK(sdk_expr_diff(m->noise[v], v, where, &dn[v], eb));
    for (int j = 0; j < m->nvars; j++) {
      if (j == v || !m->noise[j]) continue;
      sdk_expr *d = NULL;
      SDK_CHECK(sdk_expr_diff(m->noise[v], j, where, &d, eb));
      int zero = d->kind == SDK_E_NUM && d->num == 0;
      sdk_expr_destroy(&d);
      if (!zero)
        return SDK_FAIL(eb, SDK_ERR_USAGE,
                        "%s depends on %s, which has noise of its own: the noise is not "
                        "commutative, and scheme %s would need the Levy areas of the two Wiener "
                        "processes; use %s (strong order 1/2 there)",
                        where, m->vars[j], o->scheme->name,
                        able(o, can_general, 1, alt, sizeof alt));
    }
  }
  return SDK_OK;
}

static sdk_err codegen(const sdk_codegen_opts *o, char **out, sdk_errbuf *eb);

static int stop_asked(const sdk_codegen_opts *o) {
  return o->cancel && o->cancel(o->cancel_user);
}

sdk_err sdk_codegen(const sdk_codegen_opts *o, char **out, sdk_errbuf *eb) {
  *out = NULL;
  SDK_CHECK(check_scheme(o, eb));
  SDK_CHECK(sdk_cg_adaptive_check(o, eb));
  SDK_CHECK(check_names(o->model, eb));
  sdk_model view = *o->model;
  view.drift = NULL;
  sdk_cg_corr *corr = NULL;
  sdk_codegen_opts ov = *o;
  sdk_err e = SDK_OK;
  int nv = o->model->nvars;
  /* (the scheme's refusals first: a correction may be long to build; a stop
   * request is looked at between the stages: the Milstein terms, the
   * calculus correction, the emission) */
  if (o->scheme->srk && o->scheme->srk->milstein) {
    ov.dnoise = calloc((size_t)(nv > 0 ? nv : 1), sizeof *ov.dnoise);
    e = ov.dnoise ? milstein_terms(&ov, ov.dnoise, eb)
                  : SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  } else if (o->scheme->commutative) {
    e = milstein_terms(&ov, NULL, eb); /* (the check alone) */
  }
  if (e == SDK_OK && stop_asked(o))
    e = SDK_FAIL(eb, SDK_ERR_INTERRUPTED, "interrupted while generating the kernel");
  if (e == SDK_OK) e = calculus_view(o, &view, &corr, eb);
  if (e == SDK_OK && view.drift) ov.model = &view;
  ov.corr = corr;
  if (e == SDK_OK && stop_asked(o))
    e = SDK_FAIL(eb, SDK_ERR_INTERRUPTED, "interrupted while generating the kernel");
  if (e == SDK_OK) e = codegen(&ov, out, eb);
  for (int v = 0; ov.dnoise && v < nv; v++)
    sdk_expr_destroy(&ov.dnoise[v]);
  free(ov.dnoise);
  free_view(o->model, &view, &corr);
  return e;
}

/* The model's size in a message about a kernel too large. */
static sdk_err too_large(const sdk_codegen_opts *o, sdk_errbuf *eb) {
  const sdk_model *m = o->model;
  char size[96], own[96] = "";
  snprintf(size, sizeof size, "%d variable%s", m->nvars, m->nvars == 1 ? "" : "s");
  if (m->nwiener > 0)
    snprintf(size + strlen(size), sizeof size - strlen(size), ", %d Wiener processes", m->nwiener);
  if (o->corr && o->own_scheme) /* (most of such a kernel is the correction) */
    snprintf(own, sizeof own, "integrate it in its own calculus (--scheme %s) or ", o->own_scheme);
  return SDK_FAIL(eb, SDK_ERR_MODEL,
                  "%s: model '%s' (%s): the generated kernel would exceed %d MB (the limit, which "
                  "bounds the time and memory of generating and compiling it); %smake its "
                  "expressions shorter",
                  m->path ? m->path : "model", m->name, size, SDK_CODEGEN_MAX_BYTES >> 20, own);
}

static sdk_err codegen(const sdk_codegen_opts *o, char **out, sdk_errbuf *eb) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  b.max = SDK_CODEGEN_MAX_BYTES; /* (checked as the text grows) */
  sdk_emit em = sdk_em_on(&b, o->single);
  sdk_cg_prelude(&em, o);
  if (o->target == SDK_TARGET_CPU) {
    sdk_cg_cpu_head(&em, o);
    if (o->sysmode)
      sdk_cg_sys_cpu(&em, o); /* interacting systems: their own driver */
    else
      sdk_cg_cpu_paths(&em, o);
    sdk_cg_observe(&em, o);
  } else {
    sdk_cg_cuda_head(&em, o);
    if (o->sysmode)
      sdk_cg_sys_cuda(&em, o);
    else
      sdk_cg_cuda_paths(&em, o);
    sdk_cg_observe(&em, o);
    sdk_cg_cuda_reductions(&em);
    sdk_cg_observe_units(&em, o);
  }
  if (b.over) {
    sdk_sb_free(&b);
    return too_large(o, eb);
  }
  *out = sdk_em_finish(&b); /* (the #line back-references numbered: emit.h) */
  if (!*out) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory generating code");
  return SDK_OK;
}
