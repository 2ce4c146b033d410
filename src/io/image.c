/* sdekit: the image of a run's results (io/image.h), what sdk_write_h5
 * writes: the layout of io.h, format_version 2. */
#include "io/image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "sim/registry.h"

/* A name that HDF5 takes literally as one link name. */
static int bad_link_name(const char *s) {
  return !s || !s[0] || strchr(s, '/') || strcmp(s, ".") == 0;
}

/* Can R be written?  `what` starts the messages ("writing 'PATH'"). */
static sdk_err check_results(const sdk_results *r, const char *what, sdk_errbuf *eb) {
  if (r->nscan < 0 || r->nscan > SDK_MAX_SCAN)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "%s: bad number of scan axes %d", what, r->nscan);
  if (r->nzip < 0 || r->nzip > SDK_MAX_SCAN_PARAMS)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "%s: bad number of zipped parameters %d", what, r->nzip);
  int64_t ng = 1;
  for (int j = 0; j < sdk_results_nscan_params(r); j++) {
    const sdk_scan_axis *a = sdk_results_scan_param(r, j);
    if (!a || a->axis < 0 || a->axis >= r->nscan || a->n != r->scan[a->axis].n || !a->values)
      return SDK_FAIL(eb, SDK_ERR_INTERNAL, "%s: scanned parameter %d has no values", what, j);
    if (bad_link_name(a->name) || strcmp(a->name, "dt") == 0)
      return SDK_FAIL(eb, SDK_ERR_INTERNAL,
                      "%s: scan parameter name '%s' cannot be stored in scan/", what, a->name);
    for (int i = 0; i < j; i++)
      if (!strcmp(sdk_results_scan_param(r, i)->name, a->name))
        return SDK_FAIL(eb, SDK_ERR_INTERNAL, "%s: parameter '%s' scanned twice", what, a->name);
  }
  for (int i = 0; i < r->nscan; i++)
    ng *= r->scan[i].n;
  if (ng != r->ngrid)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "%s: ngrid %lld does not match the scan axes (%lld)",
                    what, (long long)r->ngrid, (long long)ng);
  if (!r->dt) return SDK_FAIL(eb, SDK_ERR_INTERNAL, "%s: no time steps", what);
  if (r->nvars < 1 || !r->var_names)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "%s: no variables", what);
  for (int v = 0; v < r->nvars; v++)
    if (bad_link_name(r->var_names[v]))
      return SDK_FAIL(eb, SDK_ERR_INTERNAL, "%s: variable name '%s' cannot be used as an HDF5 name",
                      what, r->var_names[v] ? r->var_names[v] : "(null)");
  if (r->nparams < 0 || (r->nparams > 0 && (!r->param_names || !r->param_values)))
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "%s: bad parameter list", what);
  return SDK_OK;
}

/* The root's attributes, in the order the file has always had them. */
static sdk_err root_attrs(const sdk_results *r, sdk_store *img, sdk_errbuf *eb) {
  const char *g = "";
  SDK_CHECK(sdk_store_group_str(img, g, "format", "sdekit", eb));
  SDK_CHECK(sdk_store_group_i64(img, g, "format_version", SDK_H5_FORMAT_VERSION, eb));
  SDK_CHECK(sdk_store_group_str(img, g, "version", r->version, eb));
  SDK_CHECK(sdk_store_group_str(img, g, "model_name", r->model_name, eb));
  SDK_CHECK(sdk_store_group_str(img, g, "model_path", r->model_path, eb));
  SDK_CHECK(sdk_store_group_str(img, g, "model_text", r->model_text, eb));
  SDK_CHECK(sdk_store_group_str(img, g, "scheme", r->scheme, eb));
  if (r->scheme_why) SDK_CHECK(sdk_store_group_str(img, g, "scheme_default", r->scheme_why, eb));
  if (r->calculus) SDK_CHECK(sdk_store_group_str(img, g, "calculus", r->calculus, eb));
  if (r->noise) SDK_CHECK(sdk_store_group_str(img, g, "noise", r->noise, eb));
  SDK_CHECK(sdk_store_group_str(img, g, "precision", r->precision, eb));
  if (r->compensation) SDK_CHECK(sdk_store_group_str(img, g, "compensation", r->compensation, eb));
  SDK_CHECK(sdk_store_group_str(img, g, "backend", r->backend, eb));
  SDK_CHECK(sdk_store_group_u64(img, g, "seed", r->seed, eb));
  SDK_CHECK(sdk_store_group_i64(img, g, "paths", r->paths, eb));
  if (r->particles > 1) SDK_CHECK(sdk_store_group_i64(img, g, "particles", r->particles, eb));
  SDK_CHECK(sdk_store_group_f64(img, g, "period", r->period, eb));
  SDK_CHECK(sdk_store_group_i64(img, g, "spp", r->spp, eb));
  SDK_CHECK(sdk_store_group_i64(img, g, "nsteps", r->nsteps, eb));
  SDK_CHECK(sdk_store_group_i64(img, g, "transient_steps", r->transient_steps, eb));
  SDK_CHECK(sdk_store_group_i64(img, g, "sample_every", r->sample_every, eb));
  /* --sample-times: how they were spaced (the times are every GROUP/t) */
  if (r->sample_spacing)
    SDK_CHECK(sdk_store_group_str(img, g, "sample_times", r->sample_spacing, eb));
  /* only where the time grid differs from what was asked (results.h) */
  if (r->dt_asked > 0) SDK_CHECK(sdk_store_group_f64(img, g, "dt_asked", r->dt_asked, eb));
  if (r->t_end_asked > 0) {
    SDK_CHECK(sdk_store_group_f64(img, g, "t_end", r->t_end, eb));
    SDK_CHECK(sdk_store_group_f64(img, g, "t_end_asked", r->t_end_asked, eb));
  }
  if (r->transient_asked > 0)
    SDK_CHECK(sdk_store_group_f64(img, g, "transient_asked", r->transient_asked, eb));
  SDK_CHECK(sdk_store_group_str(img, g, "command_line", r->command_line, eb));
  SDK_CHECK(sdk_store_group_strs(img, g, "var_names", r->var_names, r->nvars, eb));
  SDK_CHECK(sdk_store_group_strs(img, g, "param_names", r->param_names, r->nparams, eb));
  /* values per path: which parameters, and where they and the initial
   * states came from (the command line names no array a caller gave) */
  if (r->npath_params > 0) {
    SDK_CHECK(
        sdk_store_group_strs(img, g, "path_params", r->path_param_names, r->npath_params, eb));
    SDK_CHECK(sdk_store_group_str(img, g, "path_params_from", r->path_params_from, eb));
  }
  if (r->init_from) SDK_CHECK(sdk_store_group_str(img, g, "init_from", r->init_from, eb));
  return sdk_store_group_f64s(img, g, "param_values", r->param_values, r->nparams, eb);
}

/* Name every dimension of d (the scan parameters, "sample", what the
 * observable called it or "dim<k>") in d->dim_name and its attribute "dims". */
static sdk_err name_dims(const sdk_results *r, sdk_dataset *d, char *const *given, sdk_errbuf *eb) {
  const char *names[SDK_DS_MAX_RANK];
  char dflt[SDK_DS_MAX_RANK][16];
  if (d->grid_rank > r->nscan)
    return SDK_FAIL(eb, SDK_ERR_INTERNAL, "dataset '%s': more grid dimensions than scan axes",
                    d->path);
  for (int k = 0; k < d->rank; k++) {
    snprintf(dflt[k], sizeof dflt[k], "dim%d", k);
    if (k < d->grid_rank && d->dims[k] != r->scan[k].n)
      return SDK_FAIL(eb, SDK_ERR_INTERNAL, "dataset '%s': grid dimension %d is not the scan's",
                      d->path, k);
    names[k] = k < d->grid_rank      ? r->scan[k].name
               : k == d->sample_axis ? "sample"
               : given && given[k]   ? given[k]
                                     : dflt[k];
  }
  for (int k = 0; k < d->rank; k++)
    SDK_CHECK(sdk_ds_dim_name(d, k, names[k], eb));
  return sdk_ds_attr_strs(d, "dims", (const char *const *)d->dim_name, d->rank, eb);
}

/* scan/<param> for every scanned parameter (with its start, stop, n, log;
 * a zipped one also zipped_with, the axis's first parameter), scan/dt,
 * nonfinite: in a 1-D scan scan/<param> is itself indexed by the grid. */
static sdk_err scan_datasets(const sdk_results *r, sdk_store *img, sdk_errbuf *eb) {
  char path[128];
  sdk_dataset *d;
  int64_t gdims[SDK_MAX_SCAN] = {0};
  for (int i = 0; i < r->nscan; i++)
    gdims[i] = r->scan[i].n;
  for (int i = 0; i < sdk_results_nscan_params(r); i++) {
    const sdk_scan_axis *a = sdk_results_scan_param(r, i);
    snprintf(path, sizeof path, "scan/%s", a->name);
    SDK_CHECK(sdk_store_add_borrowed(img, path, SDK_F64, 1, &a->n, r->nscan == 1, -1, SDK_DS_COORD,
                                     a->values, &d, eb));
    SDK_CHECK(sdk_ds_attr_f64(d, "start", a->start, eb));
    SDK_CHECK(sdk_ds_attr_f64(d, "stop", a->stop, eb));
    SDK_CHECK(sdk_ds_attr_i64(d, "n", a->n, eb));
    SDK_CHECK(sdk_ds_attr_i64(d, "log", a->log ? 1 : 0, eb));
    /* (values given one by one: start and stop are only the first and last) */
    if (!sdk_scan_is_range(a)) SDK_CHECK(sdk_ds_attr_i64(d, "list", 1, eb));
    const char *first = r->scan[a->axis].name;
    if (a != &r->scan[a->axis]) SDK_CHECK(sdk_ds_attr_str(d, "zipped_with", first, eb));
    char *given[1] = {(char *)first};
    SDK_CHECK(name_dims(r, d, given, eb));
  }
  SDK_CHECK(sdk_store_add_borrowed(img, "scan/dt", SDK_F64, r->nscan, gdims, r->nscan, -1,
                                   SDK_DS_COORD, r->dt, &d, eb));
  SDK_CHECK(name_dims(r, d, NULL, eb));
  if (r->nonfinite) {
    /* grid points whose paths blew up: their values are NaN, this says how many paths */
    SDK_CHECK(sdk_store_add_borrowed(img, "nonfinite", SDK_I64, r->nscan, gdims, r->nscan, -1, 0,
                                     r->nonfinite, &d, eb));
    SDK_CHECK(name_dims(r, d, NULL, eb));
  }
  const char *axes[SDK_MAX_SCAN];
  for (int i = 0; i < r->nscan; i++)
    axes[i] = r->scan[i].name;
  return sdk_store_group_strs(img, "scan", "axes", axes, r->nscan, eb);
}

/* The observables' datasets (borrowed) and groups, their attributes copied. */
static sdk_err store_datasets(const sdk_results *r, sdk_store *img, sdk_errbuf *eb) {
  const sdk_store *s = &r->store;
  for (int i = 0; i < s->n; i++) {
    const sdk_dataset *src = s->ds[i];
    sdk_dataset *d;
    SDK_CHECK(sdk_store_add_borrowed(
        img, src->path, src->type, src->rank, src->dims, src->grid_rank, src->sample_axis,
        src->flags & (SDK_DS_COMPRESS | SDK_DS_COORD), src->data, &d, eb));
    for (int k = 0; k < src->nattr; k++)
      SDK_CHECK(sdk_ds_attr_set(d, &src->attr[k], eb));
    SDK_CHECK(name_dims(r, d, src->dim_name, eb));
  }
  for (int i = 0; i < s->ngroups; i++)
    for (int k = 0; k < s->groups[i].nattr; k++)
      SDK_CHECK(sdk_store_group_set(img, s->groups[i].path, &s->groups[i].attr[k], eb));
  return SDK_OK;
}

/* A record for every group along the datasets' paths, and the root. */
static sdk_err image_groups(sdk_store *img, sdk_errbuf *eb) {
  SDK_CHECK(sdk_store_group_add(img, "", eb));
  for (int i = 0; i < img->n; i++) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", img->ds[i]->path);
    for (char *s = strchr(buf, '/'); s; s = strchr(s + 1, '/')) {
      *s = 0;
      SDK_CHECK(sdk_store_group_add(img, buf, eb));
      *s = '/';
    }
  }
  return SDK_OK;
}

static sdk_err image_of(const sdk_results *R, sdk_store *img, const char *what, sdk_errbuf *eb) {
  sdk_store_init(img);
  sdk_err e;
  SDK_TRY(e, check_results(R, what, eb), fail);
  SDK_TRY(e, root_attrs(R, img, eb), fail);
  SDK_TRY(e, scan_datasets(R, img, eb), fail);
  SDK_TRY(e, store_datasets(R, img, eb), fail);
  SDK_TRY(e, image_groups(img, eb), fail);
  return SDK_OK;
fail:
  sdk_store_free(img);
  return e;
}

sdk_err sdk_image_of_results(const sdk_results *R, sdk_store *img, sdk_errbuf *eb) {
  return image_of(R, img, "the results", eb);
}

sdk_err sdk_write_h5(const sdk_results *R, const char *path, sdk_errbuf *eb) {
  char what[4200];
  snprintf(what, sizeof what, "writing '%s'", path);
  sdk_store img;
  SDK_CHECK(image_of(R, &img, what, eb));
  sdk_err e = sdk_write_h5_image(&img, path, eb);
  sdk_store_free(&img);
  return e;
}

/* ---------------- the observables of an image ---------------- */

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int sdk_image_observables(const sdk_store *img, const char **out, int max) {
  int n = 0, nother = 0;
  const char **other = malloc(((size_t)img->ngroups + 1) * sizeof *other);
  /* the registry's first, in its order */
  for (int k = 0; sdk_registry_observables[k]; k++)
    for (int i = 0; i < img->ngroups; i++)
      if (!strcmp(img->groups[i].path, sdk_registry_observables[k]->name) && n < max)
        out[n++] = img->groups[i].path;
  for (int i = 0; other && i < img->ngroups; i++) {
    const char *p = img->groups[i].path;
    /* (final/, final_params/: the states --save-final writes; target/,
     * mlmc/: the runs to a requested error, paths and levels; no observable
     * of the run, which a loaded or unpickled result must not gain) */
    if (!p[0] || strchr(p, '/') || !strcmp(p, "scan") || !strcmp(p, "final") ||
        !strcmp(p, "final_params") || !strcmp(p, "target") || !strcmp(p, "mlmc") ||
        sdk_find_observable(p))
      continue;
    other[nother++] = p;
  }
  if (other) qsort(other, (size_t)nother, sizeof *other, cmp_str);
  for (int i = 0; i < nother && n < max; i++)
    out[n++] = other[i];
  free(other);
  return n;
}
