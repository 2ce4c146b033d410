/* Every #line marker of generated kernels points where it says (issue 27):
 *
 *   #line N "sdekit-generated"   the line after it is physical line N of the
 *                                generated text;
 *   #line N "kernels/NAME"       the lines after it, up to the next #line
 *                                (or the end of the source), are
 *                                src/codegen/kernels/NAME from line N on, and
 *                                they stop at the file's end or before one of
 *                                its hook lines (SDK_HOOK, where the generator
 *                                writes its code: emit.h);
 *   #line N "rng/philox.h"       the same for src/rng/philox.h, which the
 *                                generator writes whole;
 *   #line N "MODEL FILE"         N is a line of the model file, and one that
 *                                names a model name the expression after it
 *                                uses (u_NAME), when it uses any.
 *
 * The sources: CPU and CUDA text, scans, --dt-check, first passages, time
 * averages, systems of particles (kuramoto, kuramoto-meanfield). */
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "sim/registry.h"
#include "sim/run.h"
#include "testutil.h"

typedef struct {
  char **line; /* 1-based: line[1] .. line[n] */
  int n;
} lines;

static lines split(char *text) {
  lines l = {NULL, 0};
  int cap = 0;
  for (char *p = text; p && *p;) {
    if (l.n + 2 > cap) {
      cap = cap ? 2 * cap : 1024;
      l.line = realloc(l.line, (size_t)cap * sizeof *l.line);
    }
    l.line[++l.n] = p;
    char *nl = strchr(p, '\n');
    if (nl) *nl = 0;
    p = nl ? nl + 1 : NULL;
  }
  return l;
}

/* the file name of a #line directive's C literal at s (octal and simple escapes) */
static void unquote(const char *s, char *out, size_t n) {
  size_t k = 0;
  if (*s == '"') s++;
  while (*s && *s != '"' && k + 1 < n) {
    if (*s == '\\' && s[1] >= '0' && s[1] <= '7') {
      int v = 0, d = 0;
      for (s++; d < 3 && *s >= '0' && *s <= '7'; d++, s++)
        v = v * 8 + (*s - '0');
      out[k++] = (char)v;
    } else if (*s == '\\' && s[1]) {
      out[k++] = s[1] == 'n' ? '\n' : s[1];
      s += 2;
    } else {
      out[k++] = *s++;
    }
  }
  out[k] = 0;
}

static int nmarkers, nbad, nkernel, nmodel, nphilox;

/* the file's lines (cached by name: the kernel and model files) */
static struct {
  char name[4200];
  char *text;
  lines l;
} files[64];
static int nfiles;

static const lines *file_lines(const char *path) {
  for (int i = 0; i < nfiles; i++)
    if (!strcmp(files[i].name, path)) return &files[i].l;
  if (nfiles == (int)(sizeof files / sizeof *files)) return NULL;
  size_t len = 0;
  char *t = sdk_read_file(path, &len);
  if (!t) return NULL;
  snprintf(files[nfiles].name, sizeof files[nfiles].name, "%s", path);
  files[nfiles].text = t;
  files[nfiles].l = split(t);
  return &files[nfiles++].l;
}

static int bad(const char *what, int at, const char *fmt, const char *detail) {
  if (nbad++ < 12) {
    fprintf(stderr, "%s: line %d: ", what, at);
    fprintf(stderr, fmt, detail);
    fputc('\n', stderr);
  }
  return 1;
}

/* a marker to a model file: N within it, naming a name of the expression */
static void check_model(const char *what, const lines *g, int i, long n, const char *path) {
  const lines *f = file_lines(path);
  nmodel++;
  if (!f) return (void)bad(what, i, "cannot read the model file '%s'", path);
  if (n < 1 || n > f->n) return (void)bad(what, i, "beyond the model file's end: %s", g->line[i]);
  if (i + 1 > g->n) return;
  int any = 0, found = 0;
  for (const char *p = g->line[i + 1]; (p = strstr(p, "u_")) != NULL; p += 2) {
    if (p > g->line[i + 1] && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
                               (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9')))
      continue;
    char name[256];
    size_t k = 0;
    for (const char *q = p + 2;
         k + 1 < sizeof name && (*q == '_' || (*q >= 'a' && *q <= 'z') ||
                                 (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9'));
         q++)
      name[k++] = *q;
    name[k] = 0;
    any = 1;
    found |= k > 0 && strstr(f->line[n], name) != NULL;
  }
  if (any && !found)
    bad(what, i, "the model line names none of the expression's names: %s", g->line[i]);
}

/* a marker to a kernel file (under src/DIR): the text after it is the file
 * from line N on, to its end or to a hook line */
static void check_kernel(const char *what, const lines *g, int i, long n, const char *dir,
                         const char *name) {
  char path[4200];
  snprintf(path, sizeof path, "%s/src/%s%s", tu_source_dir(), dir, name);
  const lines *f = file_lines(path);
  nkernel++;
  if (!f) return (void)bad(what, i, "no kernel file %s", path);
  int k = 0;
  while (i + 1 + k <= g->n && strncmp(g->line[i + 1 + k], "#line ", 6) != 0) {
    if (n + k > f->n || strcmp(g->line[i + 1 + k], f->line[n + k]) != 0)
      return (void)bad(what, i + 1 + k, "differs from the kernel file: %s", g->line[i + 1 + k]);
    k++;
  }
  if (n + k > f->n) return;
  const char *rest = f->line[n + k] + strspn(f->line[n + k], " ");
  if (strncmp(rest, "SDK_HOOK(", 9) != 0)
    bad(what, i, "stops short of the kernel file's end, not at a hook: %s", g->line[i]);
}

static void check_source(const char *what, char *src) {
  lines g = split(src);
  for (int i = 1; i <= g.n; i++) {
    const char *s = g.line[i];
    if (strncmp(s, "#line ", 6) != 0) continue;
    char *end;
    long n = strtol(s + 6, &end, 10);
    char file[4200];
    unquote(end + (*end == ' '), file, sizeof file);
    nmarkers++;
    if (!strcmp(file, "sdekit-generated")) {
      if (n != i + 1) {
        char d[64];
        snprintf(d, sizeof d, "%ld, the next line is %d", n, i + 1);
        bad(what, i, "#line %s", d);
      }
    } else if (!strncmp(file, "kernels/", 8)) {
      check_kernel(what, &g, i, n, "codegen/", file);
    } else if (!strcmp(file, "rng/philox.h")) {
      nphilox++;
      check_kernel(what, &g, i, n, "", file);
    } else {
      check_model(what, &g, i, n, file);
    }
  }
  free(g.line);
}

typedef struct {
  const char *model, *scheme, *observe, *scan;
  int cuda, single, dt_check;
  int64_t particles;
} config;

static void one(const config *k) {
  char model[4200], what[256];
  if (strchr(k->model, '/'))
    snprintf(model, sizeof model, "%s/%s", tu_source_dir(), k->model);
  else
    snprintf(model, sizeof model, "%s", k->model);
  snprintf(what, sizeof what, "%s %s %s%s%s%s%s", k->model, k->cuda ? "cuda" : "cpu",
           k->scheme ? k->scheme : "", k->dt_check ? " --dt-check" : "", k->observe ? " " : "",
           k->observe ? k->observe : "", k->scan ? " scan" : "");
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.model = model;
  if (k->scheme) c.scheme = k->scheme;
  if (k->observe) c.observe = k->observe;
  c.single = k->single;
  c.dt_check = k->dt_check;
  c.particles = k->particles;
  sdk_errbuf eb = {0};
  if (k->scan) {
    TU_CHECK(sdk_scan_parse(k->scan, &c.scan[0], &eb) == SDK_OK, "%s", eb.msg);
    c.nscan = 1;
  }
  char *src = NULL;
  int before = nbad, m0 = nmarkers;
  sdk_err e = sdk_run_codegen(&c, sdk_find_backend(k->cuda ? "cuda" : "cpu"), &src, &eb);
  TU_CHECK(e == SDK_OK, "%s: %s", what, eb.msg);
  if (e == SDK_OK) check_source(what, src);
  TU_CHECK(nmarkers > m0, "%s: no #line markers", what);
  TU_CHECK(nbad == before, "%s: %d of %d markers wrong", what, nbad - before, nmarkers - m0);
  free(src);
  if (k->scan) sdk_scan_free(&c.scan[0]);
}

int main(void) {
  static const config C[] = {
      {"ou", NULL, NULL, NULL, 0, 1, 0, 0},
      {"ou", NULL, NULL, NULL, 1, 1, 0, 0},
      {"josephson", "euler", NULL, NULL, 0, 0, 0, 0},
      {"josephson", "srk2", NULL, "omega=3:5:4", 1, 1, 0, 0},
      {"josephson", "srk2", NULL, "a=1:2:3", 0, 1, 0, 0},
      {"josephson", NULL, NULL, NULL, 1, 0, 1, 0},
      {"josephson", NULL, NULL, NULL, 0, 1, 1, 0},
      {"gbm", "milstein", NULL, NULL, 1, 0, 0, 0},
      {"gbm", "weak2", NULL, NULL, 0, 0, 1, 0},
      {"ou", NULL, "moments,drift,tavg,range", NULL, 1, 1, 0, 0},
      {"ou", NULL, "moments,drift,tavg", NULL, 0, 1, 1, 0},
      {"examples/double-well.sde", NULL, "fpt", NULL, 0, 1, 0, 0},
      {"examples/double-well.sde", NULL, "fpt", NULL, 1, 1, 1, 0},
      {"telegraph_ou", NULL, NULL, NULL, 1, 1, 0, 0},
      {"shot_noise_ou", NULL, NULL, NULL, 0, 0, 0, 0},
      {"ou2_correlated", NULL, NULL, NULL, 1, 0, 0, 0},
      {"kuramoto", NULL, NULL, NULL, 0, 1, 0, 64},
      {"kuramoto", NULL, "order", NULL, 1, 1, 0, 4096},
      {"kuramoto-meanfield", NULL, NULL, NULL, 0, 0, 0, 256},
      {"kuramoto-meanfield", NULL, "order,density", NULL, 1, 1, 0, 1048576},
      {"kuramoto-meanfield", NULL, "order", "K=1:3:2", 1, 0, 0, 128},
  };
  for (size_t i = 0; i < sizeof C / sizeof *C; i++)
    one(&C[i]);
  printf("test_line_markers: %d markers (%d into kernel files, %d of them rng/philox.h, %d into "
         "model files), %d wrong\n",
         nmarkers, nkernel, nphilox, nmodel, nbad);
  TU_CHECK(nbad == 0, "%d of %d #line markers wrong", nbad, nmarkers);
  TU_CHECK(nphilox == (int)(sizeof C / sizeof *C), "rng/philox.h marked in %d of %d sources",
           nphilox, (int)(sizeof C / sizeof *C));
  for (int i = 0; i < nfiles; i++) {
    free(files[i].text);
    free(files[i].l.line);
  }
  return tu_finish("test_line_markers");
}
