/* Every built-in model compiles for the GPU: CUDA source generated for
 * each models/NAME.sde (both precisions, every scheme the model admits, with and
 * without fast-math) goes through NVRTC for sm_90.  No GPU or driver is
 * needed; the test is skipped (77) only when NVRTC itself cannot be loaded.
 *
 *   test_nvrtc [SHARD NSHARDS]: only the compiles k with k % NSHARDS == SHARD
 *   (in one fixed order), so that CTest runs the shards side by side.
 *   FAST_MATH_FLOAT_ONLY: the generated source does not depend on fast-math
 *   (only NVRTC's flags do: --use_fast_math means --ftz, --prec-div=false,
 *   --prec-sqrt=false and float intrinsics, none of which touches double
 *   arithmetic), so double precision goes through NVRTC once, without it.
 *   SDK_NVRTC_EVERY=N: every source is generated and checked, one in N goes
 *   through NVRTC (`make asan`: the generator under the sanitizers, without
 *   repeating all of NVRTC's own work, which `make check` does in full). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "model/model.h"
#include "sim/registry.h"
#include "sim/run.h"
#include "simtest.h"
#include "testutil.h"

static char cache[4200];

static void rm_cache(void) {
  DIR *d = opendir(cache);
  if (!d) return;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (de->d_name[0] == '.') continue;
    char p[512];
    snprintf(p, sizeof p, "%s/%s", cache, de->d_name);
    unlink(p);
  }
  closedir(d);
  rmdir(cache);
}

static int ncompiled = 0; /* generated, checked and (unless sampled out) compiled */
static int every = 1, ngen = 0, nnvrtc = 0; /* SDK_NVRTC_EVERY */
static int shard = 0, nshards = 1,
           job = 0;                /* this process compiles jobs shard, shard + nshards, .. */
static const char *observe = NULL; /* --observe of the next compiles (NULL: the default) */
static const char *noise = NULL;   /* --noise of the next compiles (NULL: the scheme's) */
static int dt_check = 0;           /* --dt-check of the next compiles */
static int64_t acf_every = 0;      /* --observe acf in the kernel: --sample-every (0: off) */

static void compile_one(sdk_bctx *ctx, const char *model, const char *scheme, int single,
                        int fast) {
  if (job++ % nshards != shard) return;
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = model;
  c.scheme = scheme;
  c.single = single;
  c.fast_math = fast;
  if (observe) c.observe = observe;
  c.noise = noise;
  c.dt_check = dt_check;
  if (acf_every > 0) { /* (15 lags of v and a user observable: in the kernel, codegen/acf.h) */
    c.observe = "acf";
    c.sample_every = acf_every;
    c.obs.max_lag = 15;
    c.obs.corr_vars = "v,E";
  }
  sdk_errbuf eb = {0};
  sdk_model *m = NULL;
  if (sdk_model_load(model, &m, &eb) != SDK_OK) {
    TU_CHECK(0, "%s: %s", model, eb.msg);
    return;
  }
  /* periodic models: a scan of the first parameter exercises per-grid-point values */
  if (m->interacting) c.particles = 64; /* systems of particles (system driver) */
  char *src = NULL;
  sdk_err e = sdk_run_codegen(&c, &sdk_backend_cuda, &src, &eb);
  if (e == SDK_ERR_USAGE &&
      (strstr(eb.msg, "additive") || strstr(eb.msg, "euler only") ||
       strstr(eb.msg, "not commutative") || strstr(eb.msg, "Brownian") ||
       strstr(eb.msg, "than its increments") || strstr(eb.msg, "needs Gaussian values") ||
       strstr(eb.msg, "does not integrate delayed values") ||
       strstr(eb.msg, "replaces Gaussian noise values"))) {
    /* scheme not for this model */
    sdk_model_destroy(&m);
    return;
  }
  TU_CHECK(e == SDK_OK, "codegen %s %s: %s", model, scheme, eb.msg);
  if (e == SDK_OK) {
    TU_CHECK(strstr(src, "extern \"C\" __global__") != NULL, "%s: no kernels", model);
    TU_CHECK(m->nobs == 0 || strstr(src, "sdk_observe(") != NULL, "%s: no sdk_observe", model);
    TU_CHECK(!observe || !strstr(observe, "tavg") || strstr(src, "sdk_tavg(") != NULL,
             "%s: no sdk_tavg", model);
    TU_CHECK(acf_every == 0 || strstr(src, "sdk_acf_q(") != NULL, "%s: no sdk_acf_q", model);
    TU_CHECK(!dt_check || strstr(src, "sdk_step_c(") != NULL, "%s: no coarse step", model);
    TU_CHECK(!dt_check || m->nbound == 0 ||
                 (strstr(src, "((sdk_u64)1 << 61)") && strstr(src, "if (cb0_0 == (real)0)")),
             "%s: --dt-check without the coarse path's boundaries", model);
    TU_CHECK(m->nbound == 0 ||
                 (strstr(src, "goto sdk_frozen") && strstr(src, "sdk_live_list(") &&
                  strstr(src, "const unsigned *__restrict__ sdk_live, sdk_i64 sdk_nlive)")),
             "%s: no boundaries, or no list of live paths", model);
    if (ngen++ % every != 0) { /* SDK_NVRTC_EVERY */
      ncompiled++;
      free(src);
      sdk_model_destroy(&m);
      return;
    }
    nnvrtc++;
    char report[4400] = "";
    sdk_module *mod = NULL;
    e = sdk_backend_cuda.compile(ctx, src, NULL, m->path, &mod, report, sizeof report, &eb);
    TU_CHECK(e == SDK_OK, "NVRTC %s %s %s%s: %s", m->name, scheme, single ? "single" : "double",
             fast ? " fast-math" : "", eb.msg);
    if (e == SDK_OK) {
      ncompiled++;
      TU_CHECK(strstr(report, "registers") != NULL, "no resource report: %s", report);
      TU_CHECK(strstr(report, "sm_90") != NULL, "report names no arch: %s", report);
      printf("%-10s %-5s %-6s %-9s %s\n", m->name, scheme, single ? "single" : "double",
             fast ? "fast" : "ieee", report);
    }
    TU_CHECK(mod == NULL, "a module without a device");
  }
  free(src);
  sdk_model_destroy(&m);
}

/* The per-grid-point path: scanned parameters read from sv. */
static void compile_scan(sdk_bctx *ctx, const char *obs) {
  if (job++ % nshards != shard) return;
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = "josephson";
  c.dt_check = dt_check;
  if (obs) c.observe = obs;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_scan_parse("omega=3:5:4", &c.scan[0], &eb) == SDK_OK, "%s", eb.msg);
  TU_CHECK(sdk_scan_parse("a=1:2:3", &c.scan[1], &eb) == SDK_OK, "%s", eb.msg);
  c.nscan = 2;
  char *src = NULL;
  sdk_err e = sdk_run_codegen(&c, &sdk_backend_cuda, &src, &eb);
  TU_CHECK(e == SDK_OK, "codegen scan: %s", eb.msg);
  if (e == SDK_OK) {
    TU_CHECK(strstr(src, "sv[g * SDK_NSV + 2]") != NULL, "dt per grid point not read from sv");
    char report[4400];
    sdk_module *mod = NULL;
    e = sdk_backend_cuda.compile(ctx, src, NULL, NULL, &mod, report, sizeof report, &eb);
    TU_CHECK(e == SDK_OK, "NVRTC josephson scan%s: %s", obs ? " with time averages" : "", eb.msg);
    TU_CHECK(!obs || strstr(src, "sdk_tavg(") != NULL, "scan: no sdk_tavg");
  }
  free(src);
  for (int i = 0; i < 2; i++)
    sdk_scan_free(&c.scan[i]);
}

/* the built-in models' files, sorted (one order for every shard) */
static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_models(const char *dir, char **out, int max) {
  DIR *d = opendir(dir);
  int n = 0;
  while (d) {
    struct dirent *de = readdir(d);
    if (!de) break;
    size_t len = strlen(de->d_name);
    if (len < 5 || strcmp(de->d_name + len - 4, ".sde") || n == max) continue;
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    if ((out[n] = strdup(path))) n++;
  }
  if (d) closedir(d);
  qsort(out, (size_t)n, sizeof *out, by_name);
  return n;
}

int main(int argc, char **argv) {
  if (argc == 3) {
    shard = atoi(argv[1]), nshards = atoi(argv[2]);
    if (nshards < 1 || shard < 0 || shard >= nshards) {
      fprintf(stderr, "usage: test_nvrtc [SHARD NSHARDS]\n");
      return 2;
    }
  }
  const char *ev = getenv("SDK_NVRTC_EVERY");
  if (ev && atoi(ev) > 1) every = atoi(ev);
  snprintf(cache, sizeof cache, "%s/sdk-nvrtc-XXXXXX", tu_scratch());
  if (!mkdtemp(cache)) {
    perror("mkdtemp");
    return 1;
  }
  sdk_backend_opts o = {.fast_math = 1, .arch = "sm_90"};
  st_env(&o.env);          /* where NVRTC is, as for the tool */
  o.env.cache_dir = cache; /* compile for real, not from a cache */
  sdk_bctx *ctx = NULL, *ctx_ieee = NULL;
  sdk_errbuf eb = {0};
  if (sdk_backend_cuda.open(&o, &ctx, &eb) != SDK_OK) {
    rm_cache();
    if (strstr(eb.msg, "NVRTC")) {
      printf("test_nvrtc: skipped: %s\n", eb.msg);
      return 77;
    }
    fprintf(stderr, "cuda open (sm_90, no device): %s\n", eb.msg);
    return 1;
  }
  o.fast_math = 0;
  TU_CHECK(sdk_backend_cuda.open(&o, &ctx_ieee, &eb) == SDK_OK, "%s", eb.msg);
  char desc[256];
  sdk_backend_cuda.describe(ctx, desc, sizeof desc);
  printf("%s\n", desc);

  /* a bad arch is a usage error */
  sdk_backend_opts bad = {.arch = "90"};
  sdk_bctx *bctx = NULL;
  sdk_errbuf eb2 = {0};
  TU_CHECK(sdk_backend_cuda.open(&bad, &bctx, &eb2) == SDK_ERR_USAGE, "arch '90' accepted");

  char dir[4096];
  snprintf(dir, sizeof dir, "%s/models", tu_source_dir());
  enum { MAXM = 256 };
  char *models[MAXM];
  int nmodels = list_models(dir, models, MAXM);
  for (int i = 0; i < nmodels; i++)
    for (int s = 0; sdk_registry_schemes[s]; s++)
      for (int single = 0; single < 2; single++) {
        if (single) /* fast-math changes only float arithmetic (FAST_MATH_FLOAT_ONLY) */
          compile_one(ctx, models[i], sdk_registry_schemes[s]->name, single, 1);
        compile_one(ctx_ieee, models[i], sdk_registry_schemes[s]->name, single, 0);
      }
  TU_CHECK(nmodels >= 3, "only %d models found in %s", nmodels, dir);
  TU_CHECK(ncompiled >= 2 * nmodels / nshards, "only %d kernels compiled", ncompiled);
  /* three-point noise (--noise): every model with weak2 (the drivers of
   * independent paths), the systems of particles with euler (their drivers
   * draw through emit_words / emit_word_lane) */
  noise = "three-point";
  int before3 = ncompiled;
  for (int i = 0; i < nmodels; i++) {
    compile_one(ctx, models[i], "weak2", 1, 1);
    sdk_model *m3 = NULL;
    sdk_errbuf eb3 = {0};
    if (sdk_model_load(models[i], &m3, &eb3) == SDK_OK && m3->interacting)
      compile_one(ctx, models[i], "euler", 0, 1);
    sdk_model_destroy(&m3);
  }
  noise = NULL;
  TU_CHECK(ncompiled - before3 >= (nmodels - 2) / nshards - 1,
           "three-point: only %d kernels compiled", ncompiled - before3);
  /* user observables ([observe]: codegen/observe_paths.c), with the state,
   * a parameter and t, also at the phase time of a periodic driving */
  const char *obs_model = st_model_file("[model]\nname = obs\nvars = x, v\nperiod = 2*pi/w\n"
                                        "[params]\nw = 2\nD = 0.1\n[drift]\nx = v\n"
                                        "v = -sin(x) + cos(w*t)\n[noise]\nv = sqrt(2*D)\n"
                                        "[observe]\nE = v*v/2 - cos(x)\nF = x*cos(w*t)\n"
                                        "wt = w*t\n",
                                        0);
  int before = ncompiled;
  for (int s = 0; sdk_registry_schemes[s]; s++)
    for (int single = 0; single < 2; single++) {
      if (single) /* FAST_MATH_FLOAT_ONLY */
        compile_one(ctx, obs_model, sdk_registry_schemes[s]->name, single, 1);
      compile_one(ctx_ieee, obs_model, sdk_registry_schemes[s]->name, single, 0);
    }
  TU_CHECK(ncompiled >= before + 4 / nshards, "[observe] model: only %d kernels compiled",
           ncompiled - before);
  /* time averages (codegen.h: accumulators in registers, sdk_tavg after
   * every step), with user observables, a period and a scan */
  observe = "tavg";
  before = ncompiled;
  for (int s = 0; sdk_registry_schemes[s]; s++)
    for (int single = 0; single < 2; single++) {
      if (single) /* FAST_MATH_FLOAT_ONLY */
        compile_one(ctx, obs_model, sdk_registry_schemes[s]->name, single, 1);
      compile_one(ctx_ieee, obs_model, sdk_registry_schemes[s]->name, single, 0);
    }
  observe = NULL;
  TU_CHECK(ncompiled >= before + 4 / nshards, "time averages: only %d kernels compiled",
           ncompiled - before);
  compile_scan(ctx, NULL);
  compile_scan(ctx, "tavg,drift");
  /* --observe acf in the kernel (codegen/acf.h: the ring and the sums in
   * registers), sampled every step (the sums run at every step) and every
   * 7 (a countdown), with a user observable */
  before = ncompiled;
  for (acf_every = 1; acf_every <= 7; acf_every += 6)
    for (int single = 0; single < 2; single++) {
      compile_one(ctx, obs_model, "srk2", single, 1);
      compile_one(ctx_ieee, obs_model, "euler", single, 0);
    }
  acf_every = 0;
  TU_CHECK(ncompiled >= before + 8 / nshards - 1, "acf in the kernel: only %d kernels compiled",
           ncompiled - before);
  /* --dt-check (codegen.h: the coupled coarse path, sdk_step_c after every
   * odd step, its time averages and coupled differences in sdk_observe),
   * with user observables, a period, both precisions; then in a scan (dt
   * and the parameters per grid point) */
  dt_check = 1;
  observe = "moments,expr,drift,tavg";
  before = ncompiled;
  for (int s = 0; sdk_registry_schemes[s]; s++)
    for (int single = 0; single < 2; single++)
      compile_one(ctx, obs_model, sdk_registry_schemes[s]->name, single, 1);
  TU_CHECK(ncompiled >= before + 4 / nshards, "--dt-check: only %d kernels compiled",
           ncompiled - before);
  observe = NULL;
  compile_scan(ctx, "tavg,drift");
  dt_check = 0;
  /* [boundaries] (codegen/boundary.c): absorbing with the bridge, reflecting
   * (the deferred compensation's high part moves; two walls: the NaN of a
   * path still outside), state-dependent noise */
  const char *bound_model = st_model_file("[model]\nname = bounded\nvars = x, y\n"
                                          "[params]\nL = 1\nD = 0.5\n[drift]\nx = -x + y\n"
                                          "y = -y\n[noise]\nx = sqrt(2*D)\ny = 0.1*(1 + y*y)\n"
                                          "[boundaries]\nleft = absorb x <= -L\n"
                                          "right = absorb x > 2*L\nfloor = reflect y < 0\n"
                                          "ceiling = reflect y >= 3\n",
                                          1);
  before = ncompiled;
  for (int s = 0; sdk_registry_schemes[s]; s++)
    for (int single = 0; single < 2; single++) {
      if (single) /* FAST_MATH_FLOAT_ONLY */
        compile_one(ctx, bound_model, sdk_registry_schemes[s]->name, single, 1);
      compile_one(ctx_ieee, bound_model, sdk_registry_schemes[s]->name, single, 0);
    }
  TU_CHECK(ncompiled >= before + 4 / nshards, "[boundaries] model: only %d kernels compiled",
           ncompiled - before);
  /* --dt-check with [boundaries] (boundary.c: the coarse path's own status,
   * its step guarded by it, its bridge draws in their block range; the
   * thread, warp and live list go on while either copy is alive) */
  dt_check = 1;
  observe = "fpt";
  before = ncompiled;
  for (int s = 0; sdk_registry_schemes[s]; s++)
    for (int single = 0; single < 2; single++)
      compile_one(ctx, bound_model, sdk_registry_schemes[s]->name, single, 1);
  TU_CHECK(ncompiled >= before + 4 / nshards, "--dt-check [boundaries]: only %d kernels compiled",
           ncompiled - before);
  observe = NULL;
  dt_check = 0;
  for (int i = 0; i < nmodels; i++)
    free(models[i]);

  /* an expression NVRTC rejects is reported against the model file */
  if (shard == 0) {
    const char *bad_src = "extern \"C\" __global__ void sdk_init() {\n#line 7 \"/x/m.sde\"\n int a "
                          "= undefined_thing;\n}\n";
    sdk_module *mod = NULL;
    char rep[256];
    sdk_errbuf eb3 = {0};
    sdk_err e =
        sdk_backend_cuda.compile(ctx, bad_src, NULL, "/x/m.sde", &mod, rep, sizeof rep, &eb3);
    TU_CHECK(e == SDK_ERR_COMPILE, "bad source compiled");
    TU_CHECK(strstr(eb3.msg, "expression does not compile: /x/m.sde(7)") != NULL, "message: %s",
             eb3.msg);
  }
  printf("sources generated and checked: %d; through NVRTC: %d (shard %d of %d, one in %d)\n", ngen,
         nnvrtc, shard + 1, nshards, every);
  sdk_backend_cuda.close(&ctx);
  sdk_backend_cuda.close(&ctx_ieee);
  rm_cache();
  return tu_finish("test_nvrtc");
}
