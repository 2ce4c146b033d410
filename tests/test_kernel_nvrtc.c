/* Every CUDA kernel file (src/codegen/kernels/NAME.cuh, listed when the test
 * runs) compiles on its own through NVRTC for sm_90, after the holes of
 * tests/kernels/prelude.cuh (its quoted includes written in): a typo in a
 * kernel file fails here, not at a user's first run.  No GPU is needed;
 * skipped (77) where NVRTC cannot be loaded.  Label gpu (tests/CMakeLists.txt);
 * tests/kernels/check.sh reads the same files as host C++ on every machine. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "core/strbuf.h"
#include "simtest.h"
#include "testutil.h"

/* the text of path with its `#include "X"` lines replaced by X's text
 * (relative to path's folder; NVRTC gets one source) */
static int expand(const char *path, sdk_strbuf *out, int depth) {
  size_t len = 0;
  char *t = sdk_read_file(path, &len);
  if (!t || depth > 8) return free(t), 0;
  int ok = 1;
  for (char *p = t; *p;) {
    char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
    if (!strncmp(p, "#include \"", 10)) {
      char dir[4200], inc[4400];
      snprintf(dir, sizeof dir, "%s", path);
      char *slash = strrchr(dir, '/');
      if (slash) *slash = 0;
      const char *q = p + 10, *e = strchr(q, '"');
      snprintf(inc, sizeof inc, "%s/%.*s", slash ? dir : ".", e ? (int)(e - q) : 0, q);
      ok &= expand(inc, out, depth + 1);
      sdk_sb_puts(out, "\n");
    } else {
      sdk_sb_putn(out, p, n);
    }
    p += n;
  }
  free(t);
  return ok;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void) {
  char cache[4200];
  snprintf(cache, sizeof cache, "%s/sdk-kernels-XXXXXX", tu_scratch());
  if (!mkdtemp(cache)) return perror("mkdtemp"), 1;
  sdk_backend_opts o = {.fast_math = 1, .arch = "sm_90"};
  st_env(&o.env);
  o.env.cache_dir = cache; /* compile for real, not from a cache */
  sdk_bctx *ctx = NULL;
  sdk_errbuf eb = {0};
  if (sdk_backend_cuda.open(&o, &ctx, &eb) != SDK_OK) {
    if (strstr(eb.msg, "NVRTC")) {
      printf("test_kernel_nvrtc: skipped: %s\n", eb.msg);
      return 77;
    }
    fprintf(stderr, "cuda open (sm_90, no device): %s\n", eb.msg);
    return 1;
  }
  char dir[4200], prelude[4200];
  snprintf(dir, sizeof dir, "%s/src/codegen/kernels", tu_source_dir());
  snprintf(prelude, sizeof prelude, "%s/tests/kernels/prelude.cuh", tu_source_dir());
  char *names[256];
  int n = 0;
  DIR *d = opendir(dir);
  for (struct dirent *de; d && (de = readdir(d)) && n < 256;) {
    size_t l = strlen(de->d_name);
    if (l > 4 && !strcmp(de->d_name + l - 4, ".cuh")) names[n++] = strdup(de->d_name);
  }
  if (d) closedir(d);
  qsort(names, (size_t)n, sizeof *names, by_name);
  TU_CHECK(n >= 1, "no kernels/*.cuh in %s", dir);
  for (int i = 0; i < n; i++) {
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    sdk_strbuf src;
    sdk_sb_init(&src);
    TU_CHECK(expand(prelude, &src, 0), "cannot read %s", prelude);
    TU_CHECK(expand(path, &src, 0), "cannot read %s", path);
    char report[4400] = "";
    sdk_module *mod = NULL;
    sdk_errbuf ce = {0};
    sdk_err e = sdk_backend_cuda.compile(ctx, src.s ? src.s : "", NULL, NULL, &mod, report,
                                         sizeof report, &ce);
    TU_CHECK(e == SDK_OK, "NVRTC kernels/%s: %s", names[i], ce.msg);
    if (e == SDK_OK) printf("kernels/%-20s %s\n", names[i], report);
    TU_CHECK(mod == NULL, "a module without a device");
    sdk_sb_free(&src);
    free(names[i]);
  }
  /* the Brownian tree of adaptive steps (rng/btree.h, after philox.h as in a
   * kernel) with a kernel that calls it */
  char btree[4400];
  snprintf(btree, sizeof btree, "%s/src/rng/btree.h", tu_source_dir());
  sdk_strbuf src;
  sdk_sb_init(&src);
  TU_CHECK(expand(prelude, &src, 0) && expand(btree, &src, 0), "cannot read %s", btree);
  sdk_sb_puts(&src, "extern \"C\" __global__ void sdk_btree_probe(double *o) {\n"
                    "  o[threadIdx.x] = sdk_btree_incr(1u, threadIdx.x, 2u, 3u, 1u, 5u, 1u << 20)"
                    " + sdk_btree_b(1u, 0u, 0u, 1u, 0u, 77u);\n}\n");
  char report[4400] = "";
  sdk_module *mod = NULL;
  sdk_errbuf ce = {0};
  TU_CHECK(sdk_backend_cuda.compile(ctx, src.s, NULL, NULL, &mod, report, sizeof report, &ce) ==
               SDK_OK,
           "NVRTC rng/btree.h: %s", ce.msg);
  printf("rng/btree.h %s\n", report);
  sdk_sb_free(&src);
  sdk_backend_cuda.close(&ctx);
  /* (the cache's files go with the scratch folder) */
  return tu_finish("test_kernel_nvrtc");
}
