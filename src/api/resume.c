/* The public API: a configuration rebuilt from a checkpoint (sdekit resume).
 *
 * A checkpoint is data (docs/SECURITY.md): it may grant no more than the
 * command line it stands for.  Its arguments go through the same option
 * parser as a command line, its model text through the model parser; it may
 * not choose where files are written: its outputs land in the checkpoint's
 * own directory under their base names, and it checkpoints to itself. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/api.h"
#include "model/model.h"

/* The outputs moved into the checkpoint's directory (not recorded: the
 * results' command line stays the run's own). */
static sdekit_status move_outputs(sdekit_config *c, const char *file, sdekit_error *err) {
  char *copy = strdup(file);
  if (!copy) return api_nomem(err);
  const char *dir = dirname(copy);
  for (int k = 0; k < c->noutputs; k++) {
    if (!strcmp(c->outputs[k], "-")) continue;
    char *o = strdup(c->outputs[k]);
    if (!o) {
      free(copy);
      return api_nomem(err);
    }
    snprintf(c->resolved[k], sizeof c->resolved[k], "%s/%s", dir, basename(o));
    free(o);
    if (api_set_str(&c->outputs[k], c->resolved[k]) != SDK_OK) {
      free(copy);
      return api_nomem(err);
    }
  }
  free(copy);
  return SDEKIT_OK;
}

SDEKIT_API sdekit_status sdekit_config_from_checkpoint(const char *path, unsigned flags,
                                                       sdekit_config **out, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!out) return api_usage(err, "sdekit_config_from_checkpoint: no place for the configuration");
  *out = NULL;
  if (!path || !*path) return api_usage(err, "no checkpoint file");
  sdk_errbuf eb = {0};
  sdk_ckpt *k = NULL;
  sdk_err e = sdk_ckpt_read(path, &k, &eb);
  if (e != SDK_OK) return api_fail(err, e, &eb);
  /* a checkpoint of another model (the file changed since) is not used silently */
  if (!(flags & SDEKIT_RESUME_STORED_MODEL) && k->model_path[0]) {
    /* (read as any model file: a path that is not a regular file any more
     * is not opened; a file that is gone or unreadable changes nothing) */
    char *now = NULL, *resolved = NULL;
    size_t len = 0;
    int missing = 0;
    sdk_errbuf meb = {0};
    int changed =
        sdk_model_read_file(k->model_path, &now, &len, &resolved, &missing, &meb) == SDK_OK &&
        now && strcmp(now, k->model_text) != 0;
    free(now);
    free(resolved);
    if (changed) {
      sdekit_status s = api_usage(err,
                                  "model file '%s' has changed since checkpoint '%s' was written "
                                  "(--stored-model resumes with the model stored in the "
                                  "checkpoint)",
                                  k->model_path, path);
      sdk_ckpt_destroy(&k);
      return s;
    }
  }
  sdekit_config *c = NULL;
  sdekit_status s = sdekit_config_create(&c, err);
  if (s == SDEKIT_OK) {
    c->stored_args = path;
    s = sdekit_config_args(c, k->argc, (const char *const *)k->argv, NULL, NULL, err);
    c->stored_args = NULL;
  }
  if (s != SDEKIT_OK) {
    sdekit_config_destroy(&c);
    sdk_ckpt_destroy(&k);
    return s;
  }
  c->ckpt = k;
  c->c.resume = k;
  /* the file it may write again (api_check_files): this one, not whatever
   * takes its name later */
  struct stat cst;
  if (lstat(path, &cst) == 0) {
    c->ckpt_id_known = 1;
    c->ckpt_dev = cst.st_dev;
    c->ckpt_ino = cst.st_ino;
  }
  c->c.model_text = k->model_text;
  c->c.model_path = k->model_path;
  if (api_set_str(&c->ckpt_file, path) != SDK_OK || api_set_str(&c->checkpoint, path) != SDK_OK) {
    sdekit_config_destroy(&c);
    return api_nomem(err);
  }
  c->c.checkpoint = c->checkpoint;
  if ((s = move_outputs(c, path, err)) != SDEKIT_OK) {
    sdekit_config_destroy(&c);
    return s;
  }
  *out = c;
  api_ok(err);
  return SDEKIT_OK;
}
