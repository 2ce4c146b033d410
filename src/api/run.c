/* The public API: running a configuration, its kernel source, compiling. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "codegen/identity.h"
#include "core/comm.h"
#include "core/escape.h"
#include "core/strbuf.h"
#include "sim/registry.h"

static void log_tramp(void *user, sdk_log_level level, const char *msg) {
  const sdekit_config *c = user;
  sdk_cnum_out o;
  sdk_cnum_out_begin(&o);
  c->log(c->log_user, (sdekit_log_level)level, msg);
  sdk_cnum_out_end(&o);
}

/* the caller's callbacks run in its own locale (core/cnumeric.h) */
static void progress_tramp(void *user, double frac, double sps) {
  const sdekit_config *c = user;
  sdk_cnum_out o;
  sdk_cnum_out_begin(&o);
  c->progress(c->progress_user, frac, sps);
  sdk_cnum_out_end(&o);
}

static int cancel_tramp(void *user) {
  const sdekit_config *c = user;
  sdk_cnum_out o;
  sdk_cnum_out_begin(&o);
  int stop = c->cancel(c->cancel_user);
  sdk_cnum_out_end(&o);
  return stop;
}

/* a problem that does not stop the run (a checkpoint that could not be
 * written) is a warning line; its text names files: escaped */
static void warn_tramp(void *user, const char *msg) {
  const sdekit_config *c = user;
  if (!c->log || c->log_min > SDEKIT_LOG_WARN) return;
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_sb_puts(&b, "sdekit: warning: ");
  sdk_esc_term(&b, msg);
  sdk_sb_puts(&b, "\n");
  if (!b.oom) {
    sdk_cnum_out o;
    sdk_cnum_out_begin(&o);
    c->log(c->log_user, SDEKIT_LOG_WARN, b.s);
    sdk_cnum_out_end(&o);
  }
  sdk_sb_free(&b);
}

/* The command line recorded with the results: "sdekit run" and the
 * arguments as applied, less those that cannot change a result, so that a
 * run resumed from a checkpoint or run with another thread count, on
 * other GPUs or on several (--device all, --ranks) writes byte-identical
 * files. */
static int recorded(const api_item *it) {
  static const char *const skip[] = {"checkpoint", "checkpoint-every", "threads", "device", "ranks",
                                     "quiet",      "verbose",          NULL};
  for (int k = 0; it->name && skip[k]; k++)
    if (!strcmp(it->name, skip[k])) return 0;
  return 1;
}

sdekit_status api_exec_make(const sdekit_config *c, api_exec *x, sdekit_error *err) {
  memset(x, 0, sizeof *x);
  x->cfg = c;
  x->rc = c->c;
  sdk_run_config *rc = &x->rc;
  if (!rc->model && !rc->model_text)
    return api_usage(err, "no model: give one (sdekit_config_set_model)");
  sdekit_status s = api_check_options(c, err);
  if (s != SDEKIT_OK) return s;
  /* a checkpoint holds the run's arguments, not the caller's arrays: a
   * resume could not rebuild the kernel they asked for (its rows of
   * per-path values, the initial states given) and the run's work would be
   * lost at the resume (a review), so refused before any step; a file's
   * name is an argument */
  if (rc->checkpoint && !rc->resume && (c->init_arr.n > 0 || c->pp_arr.n > 0)) {
    const char *what = c->init_arr.n > 0 ? "init" : "path_params";
    return api_usage(err,
                     "--checkpoint: %s values given as arrays are not stored in a checkpoint, "
                     "and its resume could not go on without them: give them as a file to "
                     "checkpoint the run (--%s FILE, which Python's %s= takes as a string)",
                     what, c->init_arr.n > 0 ? "init-from" : "path-params", what);
  }
  /* one system of N particles unless asked for more (1024 systems of a
   * large N would be a surprise of many hours) */
  int paths_given = 0;
  for (int i = 0; i < c->nitems; i++)
    paths_given |= c->items[i].name && !strcmp(c->items[i].name, "paths");
  if (rc->particles > 1 && !paths_given) rc->paths = 1;
  s = api_exec_data(c, x, paths_given, err);
  if (rc->comm) {
    /* under MPI each rank opens the files itself (node-local ones may
     * differ): one rank's failure is every rank's, here, before the others
     * wait for it in the run's first collective step */
    sdk_errbuf eb = {0};
    if (s != SDEKIT_OK)
      snprintf(eb.msg, sizeof eb.msg, "%s", err ? err->message : sdk_err_name((sdk_err)s));
    sdk_err e = sdk_comm_agree(rc->comm, (sdk_err)s, &eb);
    if (e != SDK_OK) s = api_fail(err, e, &eb);
  }
  if (s != SDEKIT_OK) {
    api_exec_free(x);
    return s;
  }
  /* the arguments a checkpoint stores, in order (and the paths the data gave) */
  int nw = 1;
  for (int i = 0; i < c->nitems; i++)
    nw += c->items[i].nwords;
  x->argv = calloc((size_t)nw + 1, sizeof *x->argv);
  sdk_strbuf cl;
  sdk_sb_init(&cl);
  sdk_sb_puts(&cl, "sdekit run");
  for (int i = 0; x->argv && i < c->nitems; i++)
    for (int k = 0; k < c->items[i].nwords; k++) {
      x->argv[x->argc++] = c->items[i].words[k];
      if (recorded(&c->items[i])) sdk_sb_printf(&cl, " %s", c->items[i].words[k]);
    }
  if (x->argv && x->paths_word[0]) {
    x->argv[x->argc++] = x->paths_word;
    sdk_sb_printf(&cl, " %s", x->paths_word);
  }
  x->cmdline = cl.oom ? NULL : cl.s;
  if (!x->argv || !x->cmdline) {
    if (!x->cmdline) sdk_sb_free(&cl);
    api_exec_free(x);
    return api_nomem(err);
  }
  rc->argc = x->argc;
  rc->argv = x->argv;
  rc->command_line = c->command_line ? c->command_line : x->cmdline;
  if (rc->checkpoint && rc->checkpoint_every < 0) rc->checkpoint_every = 600;
  rc->tsv = api_outputs_tsv(c) || c->tsv_checked;
  if (c->log) {
    x->logger.fn = log_tramp;
    x->logger.user = (void *)c;
    x->logger.min_level =
        c->verbose && c->log_min > SDEKIT_LOG_DEBUG ? SDK_LOG_DEBUG : (sdk_log_level)c->log_min;
    rc->logger = &x->logger;
  }
  rc->warn = warn_tramp;
  rc->warn_user = (void *)c;
  rc->progress = c->progress ? progress_tramp : NULL;
  rc->progress_user = (void *)c;
  rc->cancel = c->cancel ? cancel_tramp : NULL;
  rc->cancel_user = (void *)c;
  api_ok(err);
  return SDEKIT_OK;
}

void api_exec_free(api_exec *x) {
  api_exec_data_free(x);
  free(x->argv);
  free(x->cmdline);
  x->argv = NULL;
  x->cmdline = NULL;
}

/* Errors of a run: model errors carry the model file and line. */
static sdekit_status run_fail(const sdekit_config *c, sdekit_error *err, sdk_err e,
                              const sdk_errbuf *eb) {
  return api_fail_model(err, e, eb, c->c.model_text ? c->c.model_path : c->c.model);
}

SDEKIT_API sdekit_status sdekit_run(const sdekit_config *c, sdekit_result **out,
                                    sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!out) return api_usage(err, "sdekit_run: no place for the results");
  *out = NULL;
  if (!c) return api_usage(err, "sdekit_run: no configuration");
  /* (the checkpoint: the library writes it, whoever calls) */
  sdekit_status s = api_check_files(c, 0, err);
  if (s != SDEKIT_OK) return s;
  api_exec x;
  if ((s = api_exec_make(c, &x, err)) != SDEKIT_OK) return s;
  sdekit_result *r = calloc(1, sizeof *r);
  if (!r) {
    api_exec_free(&x);
    return api_nomem(err);
  }
  sdk_errbuf eb = {0};
  sdk_err e = sdk_run_execute(&x.rc, &r->run, &eb);
  api_exec_free(&x);
  if (e != SDK_OK) {
    free(r);
    return run_fail(c, err, e, &eb);
  }
  *out = r;
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API sdekit_status sdekit_codegen(const sdekit_config *c, const char *backend, char **source,
                                        sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!source) return api_usage(err, "sdekit_codegen: no place for the source");
  *source = NULL;
  if (!c) return api_usage(err, "sdekit_codegen: no configuration");
  if (!backend) backend = c->c.backend;
  const sdk_backend *be = sdk_find_backend(backend);
  char known[256];
  if (!be)
    return api_usage(err, "codegen: backend '%s': expected %s", backend,
                     sdk_registry_backend_names(known, sizeof known, NULL, NULL, ", ", " or "));
  api_exec x;
  sdekit_status s = api_exec_make(c, &x, err);
  if (s != SDEKIT_OK) return s;
  sdk_errbuf eb = {0};
  sdk_err e = sdk_run_codegen(&x.rc, be, source, &eb);
  api_exec_free(&x);
  if (e != SDK_OK) return run_fail(c, err, e, &eb);
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API sdekit_status sdekit_codegen_normalised(const char *source, char **normalised,
                                                   sdekit_error *err) {
  if (!normalised) return api_usage(err, "sdekit_codegen_normalised: no place for the text");
  *normalised = NULL;
  if (!source) return api_usage(err, "sdekit_codegen_normalised: no source");
  sdk_strbuf b;
  sdk_sb_init(&b);
  sdk_cg_normalise(source, &b);
  if (!(*normalised = sdk_sb_take(&b))) return api_nomem(err);
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API sdekit_status sdekit_compile(const sdekit_config *c, const char *backend,
                                        const char *arch, sdekit_compile_report *out,
                                        sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!out) return api_usage(err, "sdekit_compile: no place for the report");
  memset(out, 0, sizeof *out);
  if (!c) return api_usage(err, "sdekit_compile: no configuration");
  if (!backend) backend = c->c.backend;
  const sdk_backend *be = sdk_find_backend(backend);
  char known[256];
  if (!be)
    return api_usage(err, "compile: backend '%s': expected %s", backend,
                     sdk_registry_backend_names(known, sizeof known, NULL, NULL, ", ", " or "));
  api_exec x;
  sdekit_status s = api_exec_make(c, &x, err);
  if (s != SDEKIT_OK) return s;
  sdk_errbuf eb = {0};
  sdk_compile_report rep;
  sdk_err e = sdk_run_compile(&x.rc, be, arch, &rep, &eb);
  api_exec_free(&x);
  if (e != SDK_OK) return run_fail(c, err, e, &eb);
  _Static_assert(sizeof out->report == sizeof rep.report && sizeof out->where == sizeof rep.where,
                 "report sizes");
  memcpy(out->model, rep.model, sizeof out->model);
  memcpy(out->scheme, rep.scheme, sizeof out->scheme);
  memcpy(out->precision, rep.precision, sizeof out->precision);
  out->fast_math = rep.fast_math;
  memcpy(out->where, rep.where, sizeof out->where);
  memcpy(out->report, rep.report, sizeof out->report);
  api_ok(err);
  return SDEKIT_OK;
}
