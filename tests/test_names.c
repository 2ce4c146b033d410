/* Issue 10 item 13: a model's names never clash with the generated code or
 * with C.  The same model written once with names that are C keywords,
 * library names, predefined macros or locals of the generated drivers (n, i,
 * j, g, p, s, step, row, real, main, exit, NULL, linux, unix, typeof, int,
 * sdk_x, ...) and once with neutral names gives bit-identical results: both
 * schemes, both precisions, with a scan of the parameter named n (which on
 * the old CPU driver silently replaced the step counter), and for systems of
 * interacting particles ([particle], [meanfield], [pair] names).
 * SDK_TEST_BACKEND=cuda runs it on the GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simtest.h"
#include "testutil.h"

/* Replace every "$K" (K = 0..35 as 0-9 a-z) of tpl by names[K]. */
static char *subst(const char *tpl, const char *const *names) {
  size_t cap = strlen(tpl) * 8 + 1, n = 0;
  char *out = malloc(cap);
  if (!out) return NULL;
  for (const char *p = tpl; *p; p++) {
    if (*p == '$' && p[1]) {
      int k = p[1] >= 'a' ? p[1] - 'a' + 10 : p[1] - '0';
      size_t l = strlen(names[k]);
      memcpy(out + n, names[k], l);
      n += l;
      p++;
    } else {
      out[n++] = *p;
    }
  }
  out[n] = 0;
  return out;
}

/* independent paths: 3 variables, 13 parameters */
static const char *PATHS_TPL = "[model]\nname = names\nvars = $0, $1, $2\n"
                               "[params]\n$3 = 1.3\n$4 = 0.4\n$5 = 0.2\n$6 = 2.0\n$7 = 0.9\n"
                               "$8 = 0.1\n$9 = 0.05\n$a = 0.7\n$b = 0.3\n$c = 0.25\n"
                               "$d = 0.15\n$e = 0.35\n$f = 0.6\n"
                               "[drift]\n$0 = -$3*$0 + $4*$1 + $5*cos($6*t)\n"
                               "$1 = -$7*$1 + $8*$0 + $9\n"
                               "$2 = -$a*$2 + $b*sin($0) + $c\n"
                               "[noise]\n$0 = $d\n$1 = $e\n$2 = $f\n"
                               "[init]\n$0 = $a\n$1 = uniform(-$f, $f)\n$2 = normal($9, $d)\n";
static const char *const PATH_NAMES[] = {"i",     "j",    "g",      "n",    "p",    "s",
                                         "step",  "row",  "real",   "main", "exit", "NULL",
                                         "linux", "unix", "typeof", "int",  NULL};
static const char *const PATH_NEUTRAL[] = {"x1", "x2", "x3", "a1", "a2", "a3", "a4", "a5", "a6",
                                           "a7", "a8", "a9", "b1", "b2", "b3", "b4", NULL};

/* mean field: particle parameter, two [meanfield] entries */
static const char *MF_TPL = "[model]\nname = mf\nvars = $0\nperiodic = $0 : 2*pi\n"
                            "[params]\n$1 = 3\n$2 = 0.5\n$3 = 0.4\n"
                            "[particle]\n$4 = normal(0, $3)\n"
                            "[meanfield]\n$5 = sin($0)\n$6 = cos($0)\n"
                            "[drift]\n$0 = $4 + $1*($5*cos($0) - $6*sin($0))\n"
                            "[noise]\n$0 = sqrt(2*$2)\n[init]\n$0 = uniform(0, 2*pi)\n";
static const char *const MF_NAMES[] = {"i", "n", "p", "s", "g", "row", "main", NULL};
static const char *const MF_NEUTRAL[] = {"x", "K", "T", "sig", "w", "S", "C", NULL};

/* all pairs: a [pair] entry and the particle-j names */
static const char *PAIR_TPL = "[model]\nname = pair\nvars = $0\nperiodic = $0 : 2*pi\n"
                              "[params]\n$1 = 3\n$2 = 0.5\n$3 = 0.4\n"
                              "[particle]\n$4 = normal(0, $3)\n"
                              "[pair]\n$5 = sin($0j - $0) + 0.1*$4j\n"
                              "[drift]\n$0 = $4 + $1*$5\n"
                              "[noise]\n$0 = sqrt(2*$2)\n[init]\n$0 = uniform(0, 2*pi)\n";
static const char *const PAIR_NAMES[] = {"i", "n", "typeof", "s", "g", "exit", NULL};
static const char *const PAIR_NEUTRAL[] = {"x", "K", "T", "sig", "w", "F", NULL};

static const char *file_of(const char *tpl, const char *const *names, int slot) {
  char *text = subst(tpl, names);
  const char *path = text ? st_model_file(text, slot) : NULL;
  free(text);
  return path;
}

static int same(const double *a, const double *b, int64_t n) {
  if (!a || !b) return a == b;
  return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

static void compare(const sdk_run_config *base, const char *named, const char *neutral,
                    const char *scan_named, const char *scan_neutral, const char *what) {
  sdk_run_config c[2];
  sdk_run *r[2] = {NULL, NULL};
  for (int k = 0; k < 2; k++) {
    c[k] = *base;
    c[k].model = k ? neutral : named;
    if (scan_named) {
      sdk_errbuf eb = {0};
      c[k].nscan = 1;
      sdk_err e = sdk_scan_parse(k ? scan_neutral : scan_named, &c[k].scan[0], &eb);
      TU_CHECK(e == SDK_OK, "%s: scan: %s", what, eb.msg);
    }
    r[k] = st_run(&c[k]);
    TU_CHECK(r[k] != NULL, "%s: %s names run", what, k ? "neutral" : "hostile");
  }
  if (r[0] && r[1]) {
    const sdk_results *a = sdk_run_results(r[0]), *b = sdk_run_results(r[1]);
    const st_view *av = st_view_of(a);
    const st_view *bv = st_view_of(b);
    int64_t nm = a->ngrid * av->nsamples * a->nvars;
    TU_CHECK(a->ngrid == b->ngrid && av->nsamples == bv->nsamples && nm > 0, "%s: shapes", what);
    TU_CHECK(same(av->mean, bv->mean, nm) && same(av->var, bv->var, nm), "%s: moments differ",
             what);
    if (av->nsaved > 0)
      TU_CHECK(same(av->saved, bv->saved, a->ngrid * av->nsaved * av->nsamples * a->nvars),
               "%s: saved paths differ", what);
    if (av->order_nsamples > 0)
      TU_CHECK(same(av->order_r, bv->order_r, a->ngrid * av->order_nsamples) &&
                   same(av->order_psi, bv->order_psi, a->ngrid * av->order_nsamples),
               "%s: order parameter differs", what);
    printf("%-36s compared (mean[last] %.9g)\n", what, av->mean[nm - 1]);
  }
  for (int k = 0; k < 2; k++) {
    sdk_run_destroy(&r[k]);
    if (scan_named) sdk_scan_free(&c[k].scan[0]);
  }
}

int main(void) {
  st_require_backend();
  const char *pn = file_of(PATHS_TPL, PATH_NAMES, 0), *pz = file_of(PATHS_TPL, PATH_NEUTRAL, 1);
  const char *mn = file_of(MF_TPL, MF_NAMES, 2), *mz = file_of(MF_TPL, MF_NEUTRAL, 3);
  const char *qn = file_of(PAIR_TPL, PAIR_NAMES, 4), *qz = file_of(PAIR_TPL, PAIR_NEUTRAL, 5);
  TU_CHECK(pn && pz && mn && mz && qn && qz, "model files");
  if (!(pn && pz && mn && mz && qn && qz)) return tu_finish("test_names");
  for (int single = 0; single < 2; single++)
    for (int s = 0; sdk_registry_schemes[s]; s++) {
      const char *scheme = sdk_registry_schemes[s]->name;
      sdk_run_config c;
      sdk_run_config_defaults(&c);
      c.backend = st_backend();
      c.scheme = scheme;
      c.single = single;
      c.paths = 512;
      c.dt = 0.01;
      c.t_end = 1.0;
      c.sample_every = 25;
      c.observe = "moments";
      c.obs.nsave = 2;
      c.obs.save_index[0] = 0, c.obs.save_index[1] = 7;
      c.seed = 99;
      c.quiet = 1;
      char what[96];
      snprintf(what, sizeof what, "paths %s %s", scheme, single ? "single" : "double");
      compare(&c, pn, pz, NULL, NULL, what);
      snprintf(what, sizeof what, "paths %s %s scan n", scheme, single ? "single" : "double");
      c.paths = 128;
      compare(&c, pn, pz, "n=0.5:2:4", "a1=0.5:2:4", what);
    }
  for (int single = 0; single < 2; single++)
    for (int pair = 0; pair < 2; pair++) {
      sdk_run_config c;
      sdk_run_config_defaults(&c);
      c.backend = st_backend();
      c.scheme = "euler";
      c.single = single;
      c.particles = pair ? 96 : 256;
      c.paths = 2;
      c.dt = 0.01;
      c.t_end = 0.5;
      c.sample_every = 10;
      c.observe = "moments,order";
      c.seed = 5;
      c.quiet = 1;
      char what[96];
      snprintf(what, sizeof what, "%s %s", pair ? "pair" : "meanfield",
               single ? "single" : "double");
      compare(&c, pair ? qn : mn, pair ? qz : mz, NULL, NULL, what);
      snprintf(what, sizeof what, "%s %s scan n", pair ? "pair" : "meanfield",
               single ? "single" : "double");
      compare(&c, pair ? qn : mn, pair ? qz : mz, "n=1:3:2", "K=1:3:2", what);
    }
  const char *files[] = {pn, pz, mn, mz, qn, qz};
  for (int k = 0; k < 6; k++)
    unlink(files[k]);
  return tu_finish("test_names");
}
