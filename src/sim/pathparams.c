/* Parameters given per path as data (sdk_run_config.path_params, run.h):
 * checked in the plan, written into the paths' rows of per-path parameters
 * (codegen/codegen.h, sdk_cg_ppar_row) after sdk_init, shard by shard and
 * in pieces, so the ensemble is never held twice in host memory.
 *
 * Value i of a name with count == ppg (or g * ppg + i with count == ngrid *
 * ppg) belongs to the path of key index i of every grid point (of grid
 * point g): the path with the random numbers of global index g * ppg + i,
 * whatever the shards, ranks, windows or a resume.  Every value is
 * untrusted data: it never reaches the source, only the state rows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "core/finite.h"
#include "model/model.h"
#include "sim/run_internal.h"

/* does e use parameter i? */
static int uses_param(const sdk_expr *e, int i) {
  if (!e) return 0;
  if (e->kind == SDK_E_SYM && e->sym == SDK_SYM_PARAM && e->index == i) return 1;
  for (int a = 0; a < e->nargs; a++)
    if (uses_param(e->arg[a], i)) return 1;
  return 0;
}

/* Where parameter i is used besides [drift] and [noise] (whose code is the
 * step's, where per-path values are): NULL where nowhere.  Those other
 * places are evaluated once per grid point (derived parameters, the period,
 * the noises' checks), at the start ([init]), or by observables: a value
 * per path cannot reach them. */
static const char *other_use(const sdk_model *m, const unsigned char *given, int i) {
  for (int d = 0; m->pexpr && d < m->nparams; d++)
    if (d != i && m->pexpr[d] && !given[d] && uses_param(m->pexpr[d], i))
      return "a derived parameter of [params]";
  for (int v = 0; v < m->nvars; v++)
    if (uses_param(m->init[v].a, i) || uses_param(m->init[v].b, i)) return "[init]";
  if (uses_param(m->period, i)) return "[model] period";
  for (int v = 0; m->var_period && v < m->nvars; v++)
    if (uses_param(m->var_period[v], i)) return "[model] periodic";
  for (int k = 0; k < m->npart; k++)
    if (uses_param(m->part[k].a, i) || uses_param(m->part[k].b, i)) return "[particle]";
  for (int k = 0; k < m->nobs; k++)
    if (uses_param(m->obs[k], i)) return "an observable ([observe] or --observe-expr)";
  for (int k = 0; k < m->nbound; k++)
    if (uses_param(m->bound[k].level, i)) return "[boundaries]";
  for (int k = 0; k < m->njump; k++)
    if (uses_param(m->jump[k].rate, i) || uses_param(m->jump[k].a, i) ||
        uses_param(m->jump[k].b, i))
      return "[jumps]";
  for (int k = 0; k < m->ndich; k++) {
    const sdk_dichotomous *d = &m->dich[k];
    if (uses_param(d->a, i) || uses_param(d->b, i) || uses_param(d->rab, i) ||
        uses_param(d->rba, i))
      return "[dichotomous]";
  }
  for (int k = 0; k < m->ncolored; k++)
    if (uses_param(m->colored[k].tau, i) || uses_param(m->colored[k].d, i)) return "[colored]";
  for (int k = 0; m->corr && k < m->nwiener * m->nwiener; k++)
    if (uses_param(m->corr[k], i)) return "[model] correlation";
  return NULL;
}

/* one name of path_params: its parameter (*param) or [particle] parameter
 * (*part), -1 for the other */
static sdk_err find_name(const sdk_plan *p, const char *name, int *param, int *part,
                         sdk_errbuf *eb) {
  const sdk_model *m = p->run->model;
  *param = *part = -1;
  if (!name) return SDK_FAIL(eb, SDK_ERR_USAGE, "--path-params: a parameter without a name");
  for (int i = 0; i < m->nparams; i++)
    if (!strcmp(m->params[i], name)) *param = i;
  for (int k = 0; k < m->npart; k++)
    if (!strcmp(m->part[k].name, name)) *part = k;
  if (*param < 0 && *part < 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--path-params: '%.64s' is no parameter of model '%s' (a name of [params] or "
                    "[particle])",
                    name, m->name);
  int i = *param;
  if (i >= 0 && p->scan_column[i] >= 0 && p->given[i])
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--path-params: parameter '%s' is scanned (--scan): it cannot also be given "
                    "per path",
                    name);
  if (i >= 0 && p->scan_column[i] >= 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--path-params: parameter '%s' is derived from a scanned one: it cannot also "
                    "be given per path",
                    name);
  if (i >= 0 && p->given[i])
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--path-params: parameter '%s' is given by --set and per path: give it once",
                    name);
  const char *where = i >= 0 ? other_use(m, p->given, i) : NULL;
  if (where)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--path-params: parameter '%s' is used in %s of model '%s', which values per "
                    "path cannot reach (only [drift] and [noise] take them)",
                    name, where, m->name);
  return SDK_OK;
}

/* the values of one name: their number and every one finite */
static sdk_err check_values(const sdk_plan *p, const char *name, const double *v, int64_t count,
                            sdk_errbuf *eb) {
  if (count != p->ppg && count != p->ngrid * p->ppg)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--path-params: '%s' has %lld values; it needs %lld (one per path)%s", name,
                    (long long)count, (long long)p->ppg,
                    p->ngrid > 1 ? " or one per path and grid point" : "");
  /* (values from a reader: checked where they are read, a rank's alone;
   * arrays: as they are uploaded (pathdata.c), but here first when batches of
   * paths run, whose later batches would find a bad value after the first
   * ones have been computed) */
  int64_t j = v && p->c->window ? sdk_first_nonfinite(v, count) : -1;
  if (j >= 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--path-params: value %lld of '%s' is %s", (long long)j,
                    name, isnan(v[j]) ? "NaN" : "infinite");
  j = v && p->c->window && p->c->single ? sdk_first_not_float(v, count) : -1;
  if (j >= 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--path-params: value %lld of '%s' is %g, outside single precision's range "
                    "(%s): give --precision double, or values in other units",
                    (long long)j, name, v[j], SDK_FLOAT_RANGE);
  return SDK_OK;
}

/* A single-precision kernel holds every parameter as a float: one that is
 * not 0 and rounds below FLT_MIN would be 0 there (D = 1e-46 with L =
 * 1e-23 in sqrt(2 D) / L gave a variance of 0), one beyond FLT_MAX Inf
 * (a run of NaN paths, blamed on dt).  The fixed values (with --set and the
 * derived ones), then every grid point's; per-path values as they are
 * read (check_values, pathdata.c). */
static sdk_err single_range(const sdk_plan *p, sdk_errbuf *eb) {
  const sdk_model *m = p->run->model;
  for (int i = 0; p->c->single && i < m->nparams; i++) {
    const double *v = &p->run->param_values[i];
    int64_t g = -1;
    if (p->scan_column[i] >= 0)
      for (g = 0; g < p->ngrid; g++)
        if (sdk_first_not_float(&p->sv[g * p->nsv + p->scan_column[i]], 1) == 0) break;
    if (g >= p->ngrid || (g < 0 && sdk_first_not_float(v, 1) < 0)) continue;
    char at[300] = "";
    if (g >= 0) {
      char name[280];
      v = &p->sv[g * p->nsv + p->scan_column[i]];
      sdk_grid_point_name(&p->run->r, g, name, sizeof name);
      snprintf(at, sizeof at, " at %s", name);
    }
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "%s:%d: [params] %s is %g%s, outside single precision's range (%s), which "
                    "the kernel holds it in: give --precision double, or the model in other units",
                    m->path, m->param_line[i], m->params[i], *v, at, SDK_FLOAT_RANGE);
  }
  return SDK_OK;
}

sdk_err sdk_plan_path_params(sdk_plan *p, sdk_errbuf *eb) {
  const sdk_path_values *pv = &p->c->path_params;
  const sdk_model *m = p->run->model;
  SDK_CHECK(single_range(p, eb)); /* (every run passes here) */
  if (pv->n <= 0) return SDK_OK;
  if (p->sys.on)
    return SDK_FAIL(eb, SDK_ERR_USAGE,
                    "--path-params: values per path are for independent paths, not systems of "
                    "particles (--particles, [meanfield], [pair])");
  if (!pv->names || (!pv->values && !pv->read))
    return SDK_FAIL(eb, SDK_ERR_USAGE, "--path-params: %d names without their values", pv->n);
  p->pp_param = malloc((size_t)(m->nparams + 1) * sizeof(int));
  p->pp_part = malloc((size_t)(m->npart + 1) * sizeof(int));
  if (!p->pp_param || !p->pp_part) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  for (int i = 0; i < m->nparams; i++)
    p->pp_param[i] = -1;
  for (int k = 0; k < m->npart; k++)
    p->pp_part[k] = -1;
  SDK_CHECK(sdk_path_values_shape(
      p, pv, pv->source && !strcmp(pv->source, "path_params") ? "path_params" : "--path-params",
      eb));
  for (int n = 0; n < pv->n; n++) {
    int i, k;
    SDK_CHECK(find_name(p, pv->names[n], &i, &k, eb));
    int *slot = i >= 0 ? &p->pp_param[i] : &p->pp_part[k];
    if (*slot >= 0)
      return SDK_FAIL(eb, SDK_ERR_USAGE, "--path-params: '%s' is given twice", pv->names[n]);
    SDK_CHECK(check_values(p, pv->names[n], pv->values ? pv->values[n] : NULL, pv->count, eb));
    *slot = n;
  }
  return SDK_OK;
}

sdk_err sdk_path_params_write(const sdk_plan *p, const sdk_shard *sh, sdk_errbuf *eb) {
  const sdk_path_values *pv = &p->c->path_params;
  if (!p->pp_param || !sh->ens) return SDK_OK;
  const sdk_model *m = p->run->model;
  sdk_codegen_opts o;
  sdk_cg_row_layout l;
  sdk_plan_codegen_opts(p, p->be->target, &o);
  sdk_cg_rows(&o, &l);
  for (int q = 0; q < m->npart + m->nparams; q++) {
    int part = q < m->npart, idx = part ? q : q - m->npart;
    int name = part ? p->pp_part[idx] : p->pp_param[idx];
    if (name < 0) continue;
    /* (the backends' row nvars is the drift mark: state row r is row r + 1) */
    int row = l.ppar + sdk_cg_ppar_row(&o, part, idx) + 1;
    SDK_CHECK(sdk_path_values_put(p, sh, pv, name, &row, 1, eb));
  }
  return SDK_OK;
}
