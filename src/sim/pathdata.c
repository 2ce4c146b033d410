/* Values per path from the user (issue 28): the checks of the plan on
 * sdk_run_config.init and .path_params, the initial states uploaded over
 * the init kernel's, and the final states into the results (--save-final). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/finite.h"
#include "model/model.h"
#include "sim/run_internal.h"

/* paths uploaded or read per call of the backend's rows (bounded host
 * buffers, whatever the size of a shard) */
#define PATHDATA_BLOCK ((int64_t)1 << 16)

sdk_err sdk_path_values_shape(const sdk_plan *p, const sdk_path_values *v, const char *what,
                              sdk_errbuf *eb) {
  /* 2-D data: their shape, not only their count (a [paths][grid points]
   * array or another run's grid would be read in the wrong order) */
  if (v->ngrid > 1 && (v->ngrid != p->ngrid || v->count != p->ngrid * p->ppg)) {
    const int swapped = v->ngrid == p->ppg && v->count == p->ngrid * p->ppg;
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s: the values are [%lld grid points][%lld paths], but the run has %lld grid "
                    "points of %lld paths%s",
                    what, (long long)v->ngrid, (long long)(v->count / v->ngrid),
                    (long long)p->ngrid, (long long)p->ppg,
                    swapped ? " (a [paths][grid points] array: transpose it)"
                            : " (one grid point of a result file: FILE:grid=K)");
  }
  if (v->ngrid == 1 && v->count != p->ppg)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s: the values are [1 grid point][%lld paths], but the run has %lld paths "
                    "per grid point",
                    what, (long long)v->count, (long long)p->ppg);
  return SDK_OK;
}

/* count == ppg or ngrid * ppg (run.h), and what the names must be */
static sdk_err check_count(const sdk_plan *p, const sdk_path_values *v, const char *what,
                           sdk_errbuf *eb) {
  SDK_CHECK(sdk_path_values_shape(p, v, what, eb));
  if (v->count == p->ppg || v->count == p->ngrid * p->ppg) return SDK_OK;
  if (p->ngrid > 1)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s: %lld values per name, but the run has %lld paths per grid point and %lld "
                    "grid points (give %lld, or %lld: one per grid point and path)",
                    what, (long long)v->count, (long long)p->ppg, (long long)p->ngrid,
                    (long long)p->ppg, (long long)(p->ngrid * p->ppg));
  if (p->sys.on && p->sys.particles > 1)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s: %lld values per name, but the run has %lld systems of %lld particles "
                    "(a value per particle: %lld; --paths gives the systems, or leave it out to "
                    "take the file's number)",
                    what, (long long)v->count, (long long)(p->ppg / p->sys.particles),
                    (long long)p->sys.particles, (long long)p->ppg);
  return SDK_FAIL(eb, SDK_ERR_USAGE,
                  "%s: %lld values per name, but the run has %lld paths (--paths, or leave it "
                  "out to take the file's number)",
                  what, (long long)v->count, (long long)p->ppg);
}

/* the index of name among names[0..n), or -1 */
static int find_name(const char *const *names, int n, const char *name) {
  for (int k = 0; k < n; k++)
    if (!strcmp(names[k], name)) return k;
  return -1;
}

static sdk_err check_init(sdk_plan *p, sdk_errbuf *eb) {
  const sdk_run_config *c = p->c;
  const sdk_model *m = p->run->model;
  const sdk_path_values *v = &c->init;
  if (c->window)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--init-from is not supported with batches of paths (--target-se, "
                    "--target-rse, --target-error, --mlmc) yet");
  for (int k = 0; k < v->n; k++)
    if (find_name((const char *const *)m->vars, m->nvars, v->names[k]) < 0)
      return SDK_FAIL(eb, SDK_ERR_USAGE, "--init-from: '%.200s' is not a variable of model %s",
                      v->names[k], m->name);
  for (int j = 0; j < m->nvars; j++)
    /* the simplest honest rule: every variable from the data, none from
     * [init] (a mix would hide a column that was meant to be there) */
    if (find_name(v->names, v->n, m->vars[j]) < 0)
      return SDK_FAIL(eb, SDK_ERR_USAGE,
                      "--init-from: no values for variable '%s' (the data must give every "
                      "variable of the model)",
                      m->vars[j]);
  /* (a caller's arrays: the API's word, init=) */
  return check_count(p, v, v->source && !strcmp(v->source, "init") ? "init" : "--init-from", eb);
}

sdk_err sdk_plan_path_data(sdk_plan *p, sdk_errbuf *eb) {
  const sdk_run_config *c = p->c;
  if (c->init.n > 0 && !c->resume) SDK_CHECK(check_init(p, eb));
  /* (c->path_params: checked by sdk_plan_path_params, pathparams.c) */
  if (c->save_final && c->window)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--save-final is for one run of the paths (not batches of paths: --target-se, "
                    "--target-rse, --target-error, --mlmc)");
  return SDK_OK;
}

/* values [i0, i0 + n) of name k of v into out: read (by one in-process rank
 * at a time: the reader and libhdf5 are not thread-safe; it checks them), or
 * copied and checked finite here, in the bounded copy the upload reads
 * anyway: one pass over the caller's arrays (issue 32: a separate check of a
 * 1.7-million-path grid cost 17-30 ms of a 250 ms call) */
static sdk_err get_values(const sdk_comm *comm, const sdk_path_values *v, int k, int64_t i0,
                          int64_t n, double *out, sdk_errbuf *eb) {
  if (!v->values) {
    sdk_comm_lock(comm);
    sdk_err e = v->read(v->read_ctx, k, i0, n, out, eb);
    sdk_comm_unlock(comm);
    return e;
  }
  memcpy(out, v->values[k] + i0, (size_t)n * sizeof *out);
  int64_t j = sdk_first_nonfinite(out, n);
  if (j >= 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "%s: value %lld of '%s' is %s: NaN and Inf are refused",
                    v->source ? v->source : "values per path", (long long)(i0 + j), v->names[k],
                    isnan(out[j]) ? "NaN" : "infinite");
  return SDK_OK;
}

/* Initial values x[0..len) of variable `var` for global paths gp0 + j: none
 * strictly beyond a reflecting wall of it at its grid point, where the first
 * step would mirror it into the domain (a start law folded, silently; a
 * constant or [init] start is refused so by sdk_model_check_init_bounds;
 * levels take no values per path: pathparams.c). */
static sdk_err check_walls(const sdk_plan *p, const sdk_path_values *v, int var, int64_t gp0,
                           const double *x, int64_t len, sdk_errbuf *eb) {
  const sdk_model *m = p->run->model;
  double *pv = NULL;
  sdk_err e = SDK_OK;
  for (int i = 0; i < m->nbound && e == SDK_OK; i++) {
    const sdk_boundary *b = &m->bound[i];
    if (b->kind != SDK_BOUND_REFLECT || b->var != var) continue;
    if (!pv && !(pv = malloc((size_t)(m->nparams + 1) * sizeof *pv)))
      return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    int64_t g = -1;
    double level = 0;
    for (int64_t j = 0; j < len; j++) {
      if ((gp0 + j) / p->ppg != g) {
        g = (gp0 + j) / p->ppg;
        sdk_plan_grid_values(p, g, pv);
        level = sdk_model_eval_params(b->level, pv);
      }
      if (!(b->upper ? x[j] > level : x[j] < level)) continue;
      char name[280];
      sdk_grid_point_name(&p->run->r, g, name, sizeof name);
      e = SDK_FAIL(eb, SDK_ERR_USAGE,
                   "%s: path %lld of %s starts %s = %g, beyond the reflecting wall '%s' (%s %s "
                   "%g, %s:%d): the first step would mirror it into the domain; give starts "
                   "between the walls",
                   v->source ? v->source : "values per path", (long long)((gp0 + j) % p->ppg), name,
                   m->vars[var], x[j], b->name, m->vars[var],
                   b->upper ? (b->strict ? ">" : ">=") : (b->strict ? "<" : "<="), level, m->path,
                   b->line);
      break;
    }
  }
  free(pv);
  return e;
}

sdk_err sdk_path_values_put(const sdk_plan *p, const sdk_shard *sh, const sdk_path_values *v, int k,
                            const int *rows, int nrows, sdk_errbuf *eb) {
  int64_t n = sh->end - sh->begin, piece = n < PATHDATA_BLOCK ? n : PATHDATA_BLOCK;
  double *buf = malloc((size_t)(piece > 0 ? piece : 1) * sizeof *buf);
  if (!buf) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err e = SDK_OK;
  for (int64_t a = 0; a < n && e == SDK_OK; a += piece) {
    int64_t len = n - a < piece ? n - a : piece;
    /* global path gp is path gp % ppg of grid point gp / ppg: the value of
     * index gp, or of gp % ppg when the values are the same for every grid
     * point (then a piece across a grid point's end is two runs) */
    for (int64_t j = 0; j < len && e == SDK_OK;) {
      int64_t gp = sh->begin + a + j, i0 = v->count == p->ppg ? gp % p->ppg : gp;
      int64_t run = v->count == p->ppg ? p->ppg - i0 : len - j;
      if (run > len - j) run = len - j;
      e = get_values(p->c->comm, v, k, i0, run, buf + j, eb);
      j += run;
    }
    /* (a single-precision run holds the values as floats: one beyond their
     * range would be Inf on the device) */
    int64_t big = e == SDK_OK && p->c->single ? sdk_first_not_float(buf, len) : -1;
    if (big >= 0)
      e = SDK_FAIL(eb, SDK_ERR_USAGE,
                   "%s: '%s' of path %lld is %g, outside single precision's range (%s): give "
                   "--precision double, or values in other units",
                   v->source ? v->source : "values per path", v->names[k],
                   (long long)(sh->begin + a + big), buf[big], SDK_FLOAT_RANGE);
    /* (initial states: row r is variable r, sdk_program_upload_init) */
    if (e == SDK_OK && v == &p->c->init && nrows == 1)
      e = check_walls(p, v, rows[0], sh->begin + a, buf, len, eb);
    for (int r = 0; r < nrows && e == SDK_OK; r++)
      e = p->be->rows(sh->ens, rows[r], a, len, buf, 1, eb);
  }
  free(buf);
  return e;
}

sdk_err sdk_program_upload_init(sdk_plan *p, sdk_shard *sh, sdk_errbuf *eb) {
  const sdk_run_config *c = p->c;
  const sdk_path_values *iv = &c->init;
  const sdk_model *m = p->run->model;
  if (iv->n == 0 || c->resume) return SDK_OK; /* a resumed run's state is the checkpoint's */
  /* the variables alone: sdk_init derives every other row from them (the
   * high parts of the deferred compensation, the coarse path of
   * --dt-check, the status at [boundaries]) as it does from [init] */
  for (int v = 0; v < m->nvars; v++) {
    int name = find_name(iv->names, iv->n, m->vars[v]); /* (checked) */
    SDK_CHECK(sdk_path_values_put(p, sh, iv, name, &v, 1, eb));
  }
  return SDK_OK;
}

/* GROUP/NAME from the paths' row `row` (sdk_paths_rows' numbering): grid
 * points flattened ([ngrid][paths] whatever the scan axes, what --init-from
 * reads back), a coordinate-like record, never NaN-ed; shard by shard
 * through rank 0, a block at a time: no second copy */
static sdk_err save_row(sdk_plan *p, const char *group, const char *name, int row, sdk_errbuf *eb) {
  sdk_results *R = &p->run->r;
  int root = sdk_comm_rank(p->c->comm) == 0, one = p->ngrid == 1 && R->nscan == 0;
  int64_t dims[2] = {p->ngrid, p->ppg};
  sdk_dataset *d = NULL;
  double *out = NULL;
  if (root) {
    char path[300];
    snprintf(path, sizeof path, "%s/%s", group, name);
    SDK_CHECK(sdk_store_add(&R->store, path, SDK_F64, one ? 1 : 2, one ? dims + 1 : dims, 0, -1,
                            SDK_DS_COMPRESS | SDK_DS_COORD, &d, eb));
    if (!one) SDK_CHECK(sdk_ds_dim_name(d, 0, "grid_point", eb));
    SDK_CHECK(sdk_ds_dim_name(d, one ? 0 : 1, "path", eb));
    out = sdk_ds_f64(d);
  }
  int64_t total = p->ngrid * p->ppg;
  for (int64_t a = 0; a < total; a += PATHDATA_BLOCK) {
    int64_t n = total - a < PATHDATA_BLOCK ? total - a : PATHDATA_BLOCK;
    SDK_CHECK(sdk_paths_rows_root(&p->paths, row, a, n, out ? out + a : NULL, eb));
  }
  return SDK_OK;
}

sdk_err sdk_record_final(sdk_plan *p, sdk_errbuf *eb) {
  if (!p->c->save_final) return SDK_OK;
  const sdk_model *m = p->run->model;
  for (int v = 0; v < m->nvars; v++)
    SDK_CHECK(save_row(p, "final", m->vars[v], v, eb));
  /* the parameters each path has its own value of ([particle] draws, values
   * given per path: codegen.h sdk_cg_ppar_row), from their rows (state row
   * r >= nvars is row r + 1 of sdk_paths_rows, which counts the drift mark
   * as row nvars), into final_params/ (final/ holds the state alone, which
   * --init-from reads whole), so that a run continued with --init-from R.h5
   * and --path-params R.h5:group=final_params has its paths' own values */
  sdk_codegen_opts o;
  sdk_cg_row_layout l;
  sdk_plan_codegen_opts(p, p->be->target, &o);
  sdk_cg_rows(&o, &l);
  for (int part = 1; part >= 0 && l.ppar >= 0; part--)
    for (int k = 0; k < (part ? m->npart : m->nparams); k++) {
      int r = sdk_cg_ppar_row(&o, part, k);
      if (r >= 0)
        SDK_CHECK(
            save_row(p, "final_params", part ? m->part[k].name : m->params[k], l.ppar + r + 1, eb));
    }
  return SDK_OK;
}

sdk_err sdk_pathdata_results(sdk_plan *p, sdk_errbuf *eb) {
  const sdk_run_config *c = p->c;
  sdk_run *r = p->run;
  sdk_results *R = &r->r;
  const sdk_model *m = r->model;
  /* the parameters so given vary (their model value is not the run's) */
  const sdk_path_values *pp = &c->path_params;
  free(r->pp_names), free(r->pp_from), free(r->init_from);
  r->pp_names = NULL, r->pp_from = r->init_from = NULL;
  if (pp->n > 0) {
    r->pp_names = calloc((size_t)pp->n, sizeof *r->pp_names);
    r->pp_from = sdk_strdup(pp->source ? pp->source : "path_params");
    if (!r->pp_names || !r->pp_from) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  int npp = 0;
  for (int k = 0; k < pp->n; k++) {
    int i = sdk_model_param_index(m, pp->names[k]);
    if (i < 0) continue;
    r->result_param_values[i] = NAN;
    r->pp_names[npp++] = m->params[i];
  }
  const char *isrc = c->init.n > 0 && c->init.source ? c->init.source : c->init_source;
  if (sdk_init_given(c) && !(r->init_from = sdk_strdup(isrc ? isrc : "init")))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  R->npath_params = npp;
  R->path_param_names = r->pp_names;
  R->path_params_from = r->pp_from;
  R->init_from = r->init_from;
  return SDK_OK;
}
