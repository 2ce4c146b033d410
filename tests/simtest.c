#include "simtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"

const char *st_backend(void) {
  const char *b = getenv("SDK_TEST_BACKEND");
  return b && *b ? b : "cpu";
}

const char *st_model_file(const char *text, int slot) {
  static char paths[8][64];
  snprintf(paths[slot], sizeof paths[slot], "/tmp/sdk-test-XXXXXX");
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

sdk_run *st_run(const sdk_run_config *c) {
  sdk_errbuf eb = {0};
  sdk_run *r = NULL;
  sdk_err e = sdk_run_execute(c, &r, &eb);
  if (e != SDK_OK) {
    fprintf(stderr, "run failed: %s (%s)\n", eb.msg, sdk_err_name(e));
    return NULL;
  }
  return r;
}

void st_require_backend(void) {
  const sdk_backend *b = sdk_backend_find(st_backend());
  sdk_backend_opts o = {0};
  sdk_bctx *ctx = NULL;
  if (!b || b->open(&o, &ctx, NULL) != SDK_OK) {
    printf("backend %s not available: skipped\n", st_backend());
    exit(77);
  }
  b->close(&ctx);
}

int st_srk_linear(const sdk_scheme_type *s, double k, double dt, double *a, double *cw) {
  const sdk_srk_table *t = s->srk;
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
