#include "simtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "cli/env.h"

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

void st_env(sdk_backend_env *env) {
  sdk_errbuf eb = {0};
  if (sdk_cli_env_backend(env, &eb) != SDK_OK) fprintf(stderr, "environment: %s\n", eb.msg);
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

void st_require_backend(void) {
  const sdk_backend *b = sdk_backend_find(st_backend());
  sdk_backend_opts o = {0};
  st_env(&o.env);
  sdk_bctx *ctx = NULL;
  if (!b || b->open(&o, &ctx, NULL) != SDK_OK) {
    printf("backend %s not available: skipped\n", st_backend());
    exit(77);
  }
  b->close(&ctx);
}
