/* A checkpoint is untrusted data (docs/SECURITY.md): `sdekit resume` applies
 * the arguments it holds as a command line, and an option that sdekit never
 * stores in one (--force, --scan-file: NOREC in api/options.c) means the
 * file was damaged or forged.  Such a checkpoint is refused, so that it
 * cannot grant itself --force and replace the result files beside it (a
 * review did: an existing r.h5 overwritten by `sdekit resume` of a
 * checkpoint whose ARGV record gained "--force" and whose hash was
 * recomputed).  The unchanged checkpoint still resumes. */
#include <sdekit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/checkpoint.h"
#include "simtest.h"
#include "testutil.h"

extern char **environ;

/* a finished run's checkpoint at ck */
static int write_checkpoint(const char *ck) {
  const char *argv[] = {"ou",     "--paths", "64",           "--t-end", "0.1",
                        "--seed", "5",       "--observe",    "moments", "--backend",
                        "cpu",    "--quiet", "--checkpoint", ck};
  sdekit_error err;
  sdekit_config *c = NULL;
  sdekit_result *r = NULL;
  int ok = sdekit_config_create(&c, &err) == SDEKIT_OK &&
           sdekit_config_set_environment(c, (const char *const *)environ, &err) == SDEKIT_OK &&
           sdekit_config_args(c, (int)(sizeof argv / sizeof *argv), argv, NULL, NULL, &err) ==
               SDEKIT_OK &&
           sdekit_run(c, &r, &err) == SDEKIT_OK;
  TU_CHECK(ok, "the run that writes the checkpoint: %s", ok ? "" : err.message);
  sdekit_result_destroy(&r);
  sdekit_config_destroy(&c);
  return ok;
}

/* ck's checkpoint with `word` appended to its arguments, written to out
 * (sdk_ckpt_write: a valid file, its hash recomputed) */
static int forge(const char *ck, const char *word, const char *out) {
  sdk_errbuf eb = {0};
  sdk_ckpt *k = NULL;
  if (sdk_ckpt_read(ck, &k, &eb) != SDK_OK) {
    TU_CHECK(0, "read %s: %s", ck, eb.msg);
    return 0;
  }
  char **argv = realloc(k->argv, (size_t)(k->argc + 1) * sizeof *argv);
  int ok = argv != NULL;
  if (ok) {
    k->argv = argv;
    k->argv[k->argc] = strdup(word);
    ok = k->argv[k->argc] != NULL;
    k->argc += ok;
  }
  ok = ok && sdk_ckpt_write(k, out, &eb) == SDK_OK;
  TU_CHECK(ok, "forge %s: %s", word, eb.msg);
  sdk_ckpt_destroy(&k);
  return ok;
}

int main(void) {
  const char *tmp = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/sdk-ckargs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    TU_CHECK(0, "mkdtemp");
    return tu_finish("test_ckpt_args");
  }
  char ck[4200], forged[4200];
  snprintf(ck, sizeof ck, "%s/ok.ckpt", dir);
  snprintf(forged, sizeof forged, "%s/forged.ckpt", dir);
  if (write_checkpoint(ck)) {
    sdekit_error err;
    sdekit_config *c = NULL;
    TU_CHECK(sdekit_config_from_checkpoint(ck, 0, &c, &err) == SDEKIT_OK,
             "the checkpoint as written resumes: %s", c ? "" : err.message);
    sdekit_config_destroy(&c);
    static const char *const never[] = {"--force", "--scan-file=k.tsv"};
    for (int i = 0; i < 2; i++) {
      if (!forge(ck, never[i], forged)) continue;
      sdekit_status s = sdekit_config_from_checkpoint(forged, 0, &c, &err);
      TU_CHECK(s == SDEKIT_ERR_USAGE && c == NULL && strstr(err.message, "never stores in one") &&
                   strstr(err.message, forged),
               "a checkpoint whose arguments hold %s: refused (%d: %s)", never[i], (int)s,
               s ? err.message : "resumed");
      if (s) printf("%s: %s\n", never[i], err.message);
      sdekit_config_destroy(&c);
      unlink(forged);
    }
  }
  unlink(ck);
  rmdir(dir);
  return tu_finish("test_ckpt_args");
}
