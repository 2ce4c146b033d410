/* The public API: models and the catalog of built-in models. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "model/model.h"

SDEKIT_API sdekit_status sdekit_model_load(const char *name_or_path, const char *search_path,
                                           sdekit_model **out, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!out) return api_usage(err, "sdekit_model_load: no place for the model");
  *out = NULL;
  if (!name_or_path) return api_usage(err, "empty model name");
  sdekit_model *m = calloc(1, sizeof *m);
  if (!m) return api_nomem(err);
  sdk_errbuf eb = {0};
  sdk_err e = sdk_model_load_from(name_or_path, search_path, &m->m, &eb);
  if (e != SDK_OK) {
    free(m);
    return api_fail_model(err, e, &eb, name_or_path);
  }
  *out = m;
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API sdekit_status sdekit_model_from_string(const char *text, const char *label,
                                                  sdekit_model **out, sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!out) return api_usage(err, "sdekit_model_from_string: no place for the model");
  *out = NULL;
  if (!text) return api_usage(err, "no model text");
  if (!label || !*label) label = "<string>";
  sdekit_model *m = calloc(1, sizeof *m);
  if (!m) return api_nomem(err);
  sdk_errbuf eb = {0};
  sdk_err e = sdk_model_parse_buffer(text, strlen(text), label, &m->m, &eb);
  if (e != SDK_OK) {
    free(m);
    return api_fail_model(err, e, &eb, label);
  }
  *out = m;
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API void sdekit_model_destroy(sdekit_model **mp) {
  if (!mp || !*mp) return;
  sdk_model_destroy(&(*mp)->m);
  free(*mp);
  *mp = NULL;
}

SDEKIT_API const char *sdekit_model_name(const sdekit_model *m) {
  return m && m->m->name ? m->m->name : "";
}
SDEKIT_API const char *sdekit_model_description(const sdekit_model *m) {
  return m && m->m->description ? m->m->description : "";
}
SDEKIT_API const char *sdekit_model_path(const sdekit_model *m) {
  /* the file as a resolved absolute path (what a run of the model records,
   * README: 'Where a model comes from'), else the path given or the label */
  if (m && m->m->file) return m->m->file;
  return m && m->m->path ? m->m->path : "";
}
SDEKIT_API const char *sdekit_model_text(const sdekit_model *m) {
  return m && m->m->text ? m->m->text : "";
}
SDEKIT_API int sdekit_model_nvars(const sdekit_model *m) {
  return m ? m->m->nvars : 0;
}
SDEKIT_API const char *sdekit_model_var(const sdekit_model *m, int i) {
  return m && i >= 0 && i < m->m->nvars ? m->m->vars[i] : NULL;
}
SDEKIT_API int sdekit_model_nparams(const sdekit_model *m) {
  return m ? m->m->nparams : 0;
}
SDEKIT_API const char *sdekit_model_param(const sdekit_model *m, int i) {
  return m && i >= 0 && i < m->m->nparams ? m->m->params[i] : NULL;
}
SDEKIT_API double sdekit_model_param_value(const sdekit_model *m, int i) {
  return m && i >= 0 && i < m->m->nparams ? m->m->pvalues[i] : 0.0;
}
SDEKIT_API int sdekit_model_has_period(const sdekit_model *m) {
  return m && m->m->period != NULL;
}
SDEKIT_API int sdekit_model_periodic_var(const sdekit_model *m) {
  return m ? sdk_model_first_periodic(m->m) : -1;
}
SDEKIT_API const char *sdekit_model_kind(const sdekit_model *m) {
  if (!m) return "";
  return m->m->npair > 0 ? "pair" : m->m->nmean > 0 ? "meanfield" : "paths";
}

/* ---------------------------------------------------------------- catalog */

typedef struct cat_entry {
  char *file, *path;
  int dir; /* index into dirs */
} cat_entry;

struct sdekit_catalog {
  int ndirs, dcap;
  char **dirs;
  int nsearch; /* dirs[0 .. nsearch) are of the search path, the rest built-in */
  int n, cap;
  cat_entry *e;
};

static int cmp_entries(const void *a, const void *b) {
  return strcmp(((const cat_entry *)a)->file, ((const cat_entry *)b)->file);
}

/* One directory, and its .sde files sorted, appended to the catalog: 0 when
 * out of memory (what was added stays, to be freed with the catalog). */
static int add_dir(sdekit_catalog *c, const char *dir) {
  if (c->ndirs == c->dcap) {
    int nc = c->dcap ? 2 * c->dcap : 8;
    char **nd = realloc(c->dirs, (size_t)nc * sizeof *nd);
    if (!nd) return 0;
    c->dirs = nd, c->dcap = nc;
  }
  if (!(c->dirs[c->ndirs] = strdup(dir))) return 0;
  c->ndirs++;
  DIR *d = opendir(dir);
  if (!d) return 1; /* a directory that is not there holds no model */
  int first = c->n, ok = 1;
  for (struct dirent *de; ok && (de = readdir(d));) {
    size_t n = strlen(de->d_name);
    if (de->d_name[0] == '.' || n <= 4 || strcmp(de->d_name + n - 4, ".sde")) continue;
    if (c->n == c->cap) {
      int nc = c->cap ? 2 * c->cap : 16;
      cat_entry *ne = realloc(c->e, (size_t)nc * sizeof *ne);
      if (!ne) {
        ok = 0;
        break;
      }
      c->e = ne, c->cap = nc;
    }
    cat_entry *e = &c->e[c->n];
    e->file = strdup(de->d_name);
    e->dir = c->ndirs - 1;
    e->path = malloc(strlen(dir) + n + 2);
    if (e->path) sprintf(e->path, "%s/%s", dir, de->d_name);
    if (!e->file || !e->path) {
      free(e->file);
      free(e->path);
      ok = 0;
    } else {
      c->n++;
    }
  }
  closedir(d);
  qsort(c->e + first, (size_t)(c->n - first), sizeof *c->e, cmp_entries);
  return ok;
}

SDEKIT_API sdekit_status sdekit_catalog_create(const char *search_path, sdekit_catalog **out,
                                               sdekit_error *err) {
  SDK_C_NUMERIC();
  if (!out) return api_usage(err, "sdekit_catalog_create: no place for the catalog");
  *out = NULL;
  sdekit_catalog *c = calloc(1, sizeof *c);
  if (!c) return api_nomem(err);
  sdk_model_dirlist dl;
  sdk_model_dirs(search_path, &dl);
  const char **dirs = dl.dir;
  int nd = dl.n, ok = 1;
  /* the search path is one ':'-separated string; empty entries are skipped
   * (they do not mean the current directory) */
  for (int i = 0; i < nd && ok; i++) {
    for (const char *d = dirs[i]; *d && ok;) {
      size_t len = strcspn(d, ":");
      if (len > 0) {
        char *one = strndup(d, len);
        ok = one && add_dir(c, one);
        free(one);
      }
      d += len + (d[len] == ':');
    }
    if (dirs[i] != dl.builtin) c->nsearch = c->ndirs;
  }
  if (!ok) {
    sdekit_catalog_destroy(&c);
    return api_nomem(err);
  }
  *out = c;
  api_ok(err);
  return SDEKIT_OK;
}

SDEKIT_API void sdekit_catalog_destroy(sdekit_catalog **cp) {
  if (!cp || !*cp) return;
  sdekit_catalog *c = *cp;
  for (int i = 0; i < c->ndirs; i++)
    free(c->dirs[i]);
  for (int i = 0; i < c->n; i++) {
    free(c->e[i].file);
    free(c->e[i].path);
  }
  free(c->dirs);
  free(c->e);
  free(c);
  *cp = NULL;
}

SDEKIT_API int sdekit_catalog_ndirs(const sdekit_catalog *c) {
  return c ? c->ndirs : 0;
}
SDEKIT_API const char *sdekit_catalog_dir(const sdekit_catalog *c, int i) {
  return c && i >= 0 && i < c->ndirs ? c->dirs[i] : NULL;
}
SDEKIT_API int sdekit_catalog_dir_builtin(const sdekit_catalog *c, int i) {
  return c && i >= c->nsearch && i < c->ndirs;
}
SDEKIT_API int sdekit_catalog_count(const sdekit_catalog *c) {
  return c ? c->n : 0;
}
SDEKIT_API const char *sdekit_catalog_file(const sdekit_catalog *c, int i) {
  return c && i >= 0 && i < c->n ? c->e[i].file : NULL;
}
SDEKIT_API const char *sdekit_catalog_path(const sdekit_catalog *c, int i) {
  return c && i >= 0 && i < c->n ? c->e[i].path : NULL;
}
SDEKIT_API int sdekit_catalog_entry_dir(const sdekit_catalog *c, int i) {
  return c && i >= 0 && i < c->n ? c->e[i].dir : -1;
}
