#include "simtest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "backend/backend.h"
#include "sim/checkpoint.h"
#include "sim/registry.h"
#include "testutil.h"

const char *st_backend(void) {
  const char *b = getenv("SDK_TEST_BACKEND");
  return b && *b ? b : "cpu";
}

const char *st_model_file(const char *text, int slot) {
  static char paths[8][4200];
  if (slot < 0 || slot >= 8) return NULL; /* (a test's mistake: its run then fails) */
  snprintf(paths[slot], sizeof paths[slot], "%s/sdk-test-XXXXXX", tu_scratch());
  int fd = mkstemp(paths[slot]);
  if (fd < 0) return NULL;
  close(fd);
  unlink(paths[slot]);
  strcat(paths[slot], ".sde");
  FILE *f = fopen(paths[slot], "w");
  if (!f) return NULL;
  fputs(text, f);
  fclose(f);
  return paths[slot];
}

/* The backend's surroundings from this process's environment, read the way
 * the CLI has the library read them (sdekit_config_set_environment); the
 * configuration stays for the strings to point into. */
extern char **environ;
void st_env(sdk_backend_env *env) {
  static sdekit_config *c;
  sdekit_error err;
  if (!c && (sdekit_config_create(&c, &err) != SDEKIT_OK ||
             sdekit_config_set_environment(c, (const char *const *)environ, &err) != SDEKIT_OK)) {
    fprintf(stderr, "environment: %s\n", err.message);
    return;
  }
  *env = c->c.env;
}

sdk_run *st_run(const sdk_run_config *c) {
  sdk_errbuf eb = {0};
  sdk_run *r = NULL;
  sdk_run_config cc = *c;
  if (!cc.env.cc) st_env(&cc.env);
  sdk_err e = sdk_run_execute(&cc, &r, &eb);
  if (e != SDK_OK) {
    fprintf(stderr, "run failed: %s (%s)\n", eb.msg, sdk_err_name(e));
    return NULL;
  }
  return r;
}

void st_refused(const char *text, int slot, const char *scheme, const char *want1,
                const char *want2) {
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.backend = st_backend();
  c.model = st_model_file(text, slot);
  c.scheme = scheme;
  c.paths = 10;
  c.t_end = 0.1;
  sdk_errbuf eb = {0};
  sdk_run *r = NULL;
  st_env(&c.env);
  sdk_err e = sdk_run_execute(&c, &r, &eb);
  TU_CHECK(e != SDK_OK && strstr(eb.msg, want1) && (!want2 || strstr(eb.msg, want2)),
           "refused with '%s' (got: %s)", want1, eb.msg);
  sdk_run_destroy(&r);
}

void st_config_text(sdk_run_config *c, const char *name, const char *text, int64_t paths, double dt,
                    double t_end) {
  sdk_run_config_defaults(c);
  c->backend = st_backend();
  c->model = name;
  c->model_text = text;
  c->model_path = name;
  c->paths = paths;
  c->dt = dt;
  c->t_end = t_end;
}

void st_within(const char *what, double est, double se, double exact, double k) {
  double z = se > 0 ? (est - exact) / se : INFINITY;
  printf("%-40s estimate %.6f  exact %.6f  se %.6f  z %+.2f", what, est, exact, se, z);
  printf(exact != 0 ? " (%+.2f%%)\n" : "\n", 100 * (est - exact) / exact);
  TU_CHECK(fabs(est - exact) <= k * se, "%s: %.6f vs exact %.6f (%.2f se)", what, est, exact, z);
}

void st_require_backend(void) {
  const sdk_backend *b = sdk_find_backend(st_backend());
  sdk_backend_opts o = {0};
  st_env(&o.env);
  sdk_bctx *ctx = NULL;
  if (!b || b->open(&o, &ctx, NULL) != SDK_OK) {
    printf("backend %s not available: skipped\n", st_backend());
    exit(77);
  }
  b->close(&ctx);
}

/* ---- flat views of results (simtest.h) ---- */

typedef struct view_node {
  st_view v;
  struct view_node *next;
} view_node;
static view_node *g_views;

static void views_free(void) {
  while (g_views) {
    view_node *n = g_views;
    g_views = n->next;
    st_view *v = &n->v;
    free(v->sample_step), free(v->mean), free(v->var), free(v->drift), free(v->drift_err);
    free(v->hist_lo), free(v->hist_hi), free(v->density), free(v->hist_under), free(v->hist_over);
    free(v->saved_index), free(v->saved), free(v->order_step), free(v->order_r);
    free(v->order_r_err), free(v->order_psi);
    free(n);
  }
}

static void *dup_ds(const sdk_results *R, const char *path, size_t *count) {
  const sdk_dataset *d = sdk_store_find(&R->store, path);
  if (!d) return NULL;
  size_t n = (size_t)sdk_ds_count(d);
  void *p = malloc((n ? n : 1) * 8);
  if (p && n) memcpy(p, d->data, n * 8);
  if (count) *count = n;
  return p;
}

static void view_moments(const sdk_results *R, st_view *v) {
  int64_t ng = R->ngrid, nv = R->nvars;
  const sdk_dataset *st = sdk_store_find(&R->store, "moments/step");
  if (!st) return;
  v->nsamples = st->dims[0];
  v->sample_step = dup_ds(R, "moments/step", NULL);
  int64_t ns = v->nsamples;
  v->mean = calloc((size_t)(ng * ns * nv + 1), sizeof(double));
  v->var = calloc((size_t)(ng * ns * nv + 1), sizeof(double));
  for (int64_t k = 0; k < nv; k++) {
    char p[160];
    snprintf(p, sizeof p, "moments/mean_%s", R->var_names[k]);
    const double *m = sdk_results_f64(R, p);
    snprintf(p, sizeof p, "moments/var_%s", R->var_names[k]);
    const double *q = sdk_results_f64(R, p);
    for (int64_t g = 0; g < ng; g++)
      for (int64_t s = 0; s < ns; s++) {
        v->mean[(g * ns + s) * nv + k] = m[g * ns + s];
        v->var[(g * ns + s) * nv + k] = q[g * ns + s];
      }
  }
}

static void view_hist(const sdk_results *R, st_view *v) {
  int64_t ng = R->ngrid, nv = R->nvars;
  char p[160];
  snprintf(p, sizeof p, "hist/%s/density", R->var_names[0]);
  const sdk_dataset *d = sdk_store_find(&R->store, p);
  if (!d) return;
  int64_t nb = v->bins = d->dims[d->rank - 1];
  v->hist_lo = calloc((size_t)(ng * nv), sizeof(double));
  v->hist_hi = calloc((size_t)(ng * nv), sizeof(double));
  v->density = calloc((size_t)(ng * nv * nb), sizeof(double));
  v->hist_under = calloc((size_t)(ng * nv), sizeof(uint64_t));
  v->hist_over = calloc((size_t)(ng * nv), sizeof(uint64_t));
  for (int64_t k = 0; k < nv; k++) {
    const char *vn = R->var_names[k];
    const sdk_dataset *dd = sdk_store_findf(&R->store, "hist/%s/density", vn);
    const double *lo = sdk_ds_f64(sdk_store_findf(&R->store, "hist/%s/lo", vn));
    const double *hi = sdk_ds_f64(sdk_store_findf(&R->store, "hist/%s/hi", vn));
    const uint64_t *un = sdk_ds_u64(sdk_store_findf(&R->store, "hist/%s/underflow", vn));
    const uint64_t *ov = sdk_ds_u64(sdk_store_findf(&R->store, "hist/%s/overflow", vn));
    for (int64_t g = 0; g < ng; g++) {
      v->hist_lo[g * nv + k] = lo[g], v->hist_hi[g * nv + k] = hi[g];
      v->hist_under[g * nv + k] = un[g], v->hist_over[g * nv + k] = ov[g];
      memcpy(v->density + (g * nv + k) * nb, sdk_ds_f64(dd) + g * nb, (size_t)nb * sizeof(double));
    }
  }
}

static void view_paths(const sdk_results *R, st_view *v) {
  int64_t ng = R->ngrid, nv = R->nvars;
  const sdk_dataset *ix = sdk_store_find(&R->store, "paths/index");
  const sdk_dataset *st = sdk_store_find(&R->store, "paths/step");
  if (!ix || !st) return;
  int64_t nk = v->nsaved = ix->dims[0], ns = st->dims[0];
  if (!v->sample_step) v->nsamples = ns, v->sample_step = dup_ds(R, "paths/step", NULL);
  v->saved_index = dup_ds(R, "paths/index", NULL);
  v->saved = calloc((size_t)(ng * nk * ns * nv + 1), sizeof(double));
  for (int64_t k = 0; k < nv; k++) {
    const double *x = sdk_ds_f64(sdk_store_findf(&R->store, "paths/%s", R->var_names[k]));
    for (int64_t i = 0; i < ng * nk * ns; i++)
      v->saved[i * nv + k] = x[i];
  }
}

const st_view *st_view_of(const sdk_results *R) {
  view_node *n = calloc(1, sizeof *n);
  if (!n) return NULL;
  if (!g_views) atexit(views_free);
  n->next = g_views;
  g_views = n;
  st_view *v = &n->v;
  view_moments(R, v);
  view_hist(R, v);
  view_paths(R, v);
  v->drift = dup_ds(R, "drift/value", NULL);
  v->drift_err = dup_ds(R, "drift/error", NULL);
  const sdk_dataset *os = sdk_store_find(&R->store, "order/step");
  if (os) {
    v->order_nsamples = os->dims[0];
    v->order_step = dup_ds(R, "order/step", NULL);
    v->order_r = dup_ds(R, "order/r", NULL);
    v->order_r_err = dup_ds(R, "order/r_err", NULL);
    v->order_psi = dup_ds(R, "order/psi", NULL);
  }
  return v;
}

int st_srk_linear(const sdk_scheme_type *s, double k, double dt, double *a, double *cw) {
  const sdk_srk_table *t = sdk_scheme_additive_form(s);
  if (!t) return 0;
  /* stage i: H_i = p_i x + q_i w with w = b sqrt(dt) psi */
  double p[SDK_MAX_STAGES], q[SDK_MAX_STAGES], sa = 0, sc = 0;
  for (int i = 0; i < s->stages; i++) {
    p[i] = 1, q[i] = t->B[i];
    for (int j = 0; j < i; j++) {
      p[i] -= k * dt * t->A[i][j] * p[j];
      q[i] -= k * dt * t->A[i][j] * q[j];
    }
    sa += t->alpha[i] * p[i];
    sc += t->alpha[i] * q[i];
  }
  *a = 1 - k * dt * sa;
  *cw = 1 - k * dt * sc;
  return 1;
}

void st_fit_slope(const double *x, const double *y, const double *w, int n, double *slope,
                  double *sslope) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < n; i++) {
    sw += w[i], sx += w[i] * x[i], sy += w[i] * y[i];
    sxx += w[i] * x[i] * x[i], sxy += w[i] * x[i] * y[i];
  }
  double det = sw * sxx - sx * sx;
  *slope = (sw * sxy - sx * sy) / det;
  *sslope = sqrt(sw / det);
}

int st_expr_series(const sdk_results *R, const char *name, const double **mean, const double **err,
                   int64_t *ns) {
  const sdk_dataset *d = sdk_store_findf(&R->store, "expr/mean_%s", name),
                    *e = sdk_store_findf(&R->store, "expr/err_%s", name);
  if (!d || !e) return 0;
  *mean = sdk_ds_f64(d);
  *err = sdk_ds_f64(e);
  *ns = d->dims[0];
  return 1;
}

int st_same_store(const sdk_results *A, const sdk_results *B) {
  if (A->store.n != B->store.n) return 0;
  for (int i = 0; i < A->store.n; i++) {
    const sdk_dataset *a = A->store.ds[i], *b = sdk_store_find(&B->store, a->path);
    if (!b || a->rank != b->rank || memcmp(a->dims, b->dims, sizeof a->dims) ||
        memcmp(a->data, b->data, (size_t)sdk_ds_count(a) * 8))
      return 0;
  }
  return 1;
}

static volatile int st_stop;
static int st_stop_asked(void *user) {
  (void)user;
  return st_stop;
}
static void st_stop_at_half(void *user, double frac, double sps) {
  (void)user, (void)sps;
  if (frac >= 0.5) st_stop = 1;
}

sdk_ckpt *st_stop_half_way(sdk_run_config *c, char *ck, size_t n, const char *what) {
  snprintf(ck, n, "%s/sdk-ck-XXXXXX", tu_scratch());
  int fd = mkstemp(ck);
  if (fd >= 0) close(fd);
  c->checkpoint = ck;
  c->checkpoint_every = 0;
  st_stop = 0;
  c->cancel = st_stop_asked;
  c->progress = st_stop_at_half;
  st_env(&c->env);
  sdk_errbuf eb = {0};
  sdk_run *r = NULL;
  sdk_err e = sdk_run_execute(c, &r, &eb);
  sdk_run_destroy(&r);
  TU_CHECK(e == SDK_ERR_INTERRUPTED, "%s: stopped half way (%s)", what, eb.msg);
  sdk_ckpt *k = NULL;
  e = sdk_ckpt_read(ck, &k, &eb);
  TU_CHECK(e == SDK_OK, "%s: checkpoint read (%s)", what, eb.msg);
  return k;
}

/* st_same_over_layouts's make() in st_resumed_same's shape (C has no
 * closures: the one helper serves both kinds of callers) */
static void (*layouts_make)(sdk_run_config *c);
static void make_ignoring_arg(sdk_run_config *c, int arg) {
  (void)arg;
  layouts_make(c);
}

void st_same_over_layouts(void (*make)(sdk_run_config *c), const char *what) {
  sdk_run_config c;
  make(&c);
  sdk_run *r1 = st_run(&c);
  c.shards = 3;
  sdk_run *r3 = st_run(&c);
  c.shards = 0;
  c.ranks = 3;
  sdk_run *k3 = st_run(&c);
  TU_CHECK(r1 && r3 && st_same_store(sdk_run_results(r1), sdk_run_results(r3)),
           "%s: 3 shards give bitwise those of 1", what);
  TU_CHECK(r1 && k3 && st_same_store(sdk_run_results(r1), sdk_run_results(k3)),
           "%s: 3 in-process ranks give bitwise those of 1", what);
  if (r1) {
    layouts_make = make;
    st_resumed_same(make_ignoring_arg, 0, sdk_run_results(r1), what);
  }
  printf("%s: 3 shards, 3 ranks and a resumed run give the bits of one run\n", what);
  sdk_run_destroy(&r1);
  sdk_run_destroy(&r3);
  sdk_run_destroy(&k3);
}

void st_same_over_threads(void (*make)(sdk_run_config *c), const char *what) {
  sdk_run_config c;
  make(&c);
  c.threads = 1;
  sdk_run *r1 = st_run(&c);
  c.threads = 2;
  sdk_run *r2 = st_run(&c);
  TU_CHECK(r1 && r2 && st_same_store(sdk_run_results(r1), sdk_run_results(r2)),
           "%s: 1 thread gives bitwise the results of 2", what);
  sdk_run_destroy(&r1);
  sdk_run_destroy(&r2);
}

const double *st_f64(const sdk_results *R, const char *path) {
  const double *v = sdk_results_f64(R, path);
  TU_CHECK(v != NULL, "dataset %s", path);
  return v;
}

double st_ar1_cov(double k, double D, double dt, int64_t m) {
  double r = 1 - k * dt;
  return 2 * D * dt / (1 - r * r) * pow(r, (double)m);
}

int64_t st_resumed_same(void (*config)(sdk_run_config *, int), int arg, const sdk_results *ref,
                        const char *what) {
  sdk_run_config c;
  char ck[4200];
  config(&c, arg);
  sdk_ckpt *k = st_stop_half_way(&c, ck, sizeof ck, what);
  int64_t step = -1;
  if (k) {
    /* the resumed run checkpoints at every chunk (into the same file): its
     * writes must not touch the bits either */
    config(&c, arg);
    c.resume = k;
    c.checkpoint = ck;
    c.checkpoint_every = 0;
    sdk_run *r = st_run(&c);
    step = k->step;
    TU_CHECK(r && st_same_store(ref, sdk_run_results(r)),
             "%s resumed from step %lld: not bitwise the uninterrupted results", what,
             (long long)step);
    sdk_run_destroy(&r);
  }
  sdk_ckpt_destroy(&k);
  unlink(ck);
  return step;
}

sdk_bctx *st_nvrtc_open(void) {
  sdk_backend_opts bo = {.fast_math = 1, .arch = "sm_90"};
  st_env(&bo.env);
  char cache[4200];
  snprintf(cache, sizeof cache, "%s/nvrtc-XXXXXX", tu_scratch());
  if (!mkdtemp(cache)) return NULL;
  bo.env.cache_dir = cache; /* (it goes with the scratch directory) */
  sdk_bctx *ctx = NULL;
  sdk_errbuf eb = {0};
  if (sdk_backend_cuda.open(&bo, &ctx, &eb) != SDK_OK) {
    printf("CUDA source: not compiled (%s)\n", eb.msg);
    return NULL;
  }
  return ctx;
}

char *st_cuda_source(sdk_bctx *ctx, const sdk_run_config *c, const char *what, char *report,
                     size_t n) {
  sdk_errbuf eb = {0};
  char *src = NULL;
  sdk_err e = sdk_run_codegen(c, &sdk_backend_cuda, &src, &eb);
  TU_CHECK(e == SDK_OK, "%s: CUDA codegen: %s", what, eb.msg);
  sdk_module *mod = NULL;
  if (e == SDK_OK)
    e = sdk_backend_cuda.compile(ctx, src, NULL, c->model_path, &mod, report, n, &eb);
  TU_CHECK(e == SDK_OK, "%s: NVRTC: %s", what, eb.msg);
  if (mod) sdk_backend_cuda.module_free(&mod);
  return src;
}

typedef struct st_prog {
  int n, ones, outside;
  double last, most;
} st_prog;
static void st_prog_hook(void *user, double frac, double sps) {
  st_prog *p = user;
  (void)sps;
  if (p->last >= 1) p->ones++; /* (a call after a 1) */
  if (frac >= 1)
    p->ones += frac > 1;
  else if (frac < 0 || !(frac == frac))
    p->outside++;
  else if (frac > p->most)
    p->most = frac;
  p->last = frac, p->n++;
}

void st_progress_whole(sdk_run_config *c, const char *what) {
  st_prog p = {0};
  c->progress = st_prog_hook;
  c->progress_user = &p;
  sdk_run *r = st_run(c);
  printf("%s: %d progress calls, the most before the end %.3f, the last %g\n", what, p.n, p.most,
         p.last);
  TU_CHECK(r && p.n >= 3 && p.last == 1 && p.ones == 0 && p.outside == 0 && p.most >= 0.5,
           "%s: progress over the whole run (%d calls, last %g, %d after or above 1, %d "
           "outside [0, 1), most before the end %.3f)",
           what, p.n, p.last, p.ones, p.outside, p.most);
  sdk_run_destroy(&r);
}
