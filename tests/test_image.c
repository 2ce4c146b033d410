/* Tests of the result file as data (src/io/image.h):
 *  - every registered observable with 0, 1 and 2 scan axes: run -> image ->
 *    HDF5 -> sdk_read_h5 gives the same datasets (names, types, shapes,
 *    grid, sample axis, dimension names, flags, data bitwise), attributes
 *    and groups; the file read back writes and reads back the same again;
 *  - the same file as format_version 1 (without dims and standard_error)
 *    reads with the axes inferred from the shapes, and so do the version 1
 *    files of the fuzzing corpus (written by sdekit 0.1);
 *  - hostile files (tests/hostile/craft_h5.py, the files of the hostile
 *    suite and more): each refused with SDK_ERR_FORMAT and a message naming
 *    the file and the problem, in bounded time and memory, nothing read;
 *    and unusual ones read (datasets without dims in a format 2 file take
 *    their axes from the shapes).
 * Runs on $SDK_TEST_BACKEND; scratch files in a directory under the working
 * directory (the build tree), removed at the end. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/image.h"
#include "io/io.h"
#include "simtest.h"
#include "testutil.h"

static char g_dir[256];

static const char *scratch(const char *name) {
  static char buf[8][600];
  static int k;
  char *p = buf[k++ % 8];
  snprintf(p, sizeof buf[0], "%s/%s", g_dir, name);
  return p;
}

/* (a path to keep: copy it, scratch() reuses 8 buffers) */

/* ---------------- comparing images ---------------- */

static int same_attr(const sdk_attr *a, const sdk_attr *b) {
  if (a->kind != b->kind) return 0;
  switch (a->kind) {
  case SDK_ATTR_STR: return !strcmp(a->s ? a->s : "", b->s ? b->s : "");
  case SDK_ATTR_STRS:
    if (a->nstr != b->nstr) return 0;
    for (int64_t k = 0; k < a->nstr; k++)
      if (strcmp(a->strs[k], b->strs[k])) return 0;
    return 1;
  case SDK_ATTR_F64: return !memcmp(&a->f, &b->f, sizeof a->f);
  case SDK_ATTR_I64: return a->i == b->i;
  case SDK_ATTR_U64: return a->u == b->u;
  case SDK_ATTR_F64S:
    return a->nfs == b->nfs && (!a->nfs || !memcmp(a->fs, b->fs, (size_t)a->nfs * 8));
  }
  return 0;
}

/* every attribute of a in b, the same, and as many */
static int same_attrs(const sdk_attr *a, int na, const sdk_attr *b, int nb, const char *what,
                      const char *obj) {
  int ok = na == nb;
  TU_CHECK(na == nb, "%s: %s has %d attributes, read back %d", what, obj, na, nb);
  for (int i = 0; i < na; i++) {
    const sdk_attr *x = sdk_attr_find(b, nb, a[i].name);
    TU_CHECK(x && same_attr(&a[i], x), "%s: attribute %s of /%s differs or is missing", what,
             a[i].name, obj);
    ok &= x && same_attr(&a[i], x);
  }
  return ok;
}

/* Datasets, groups and attributes of A and B the same.  dims_v1: B is a
 * version 1 file of A (no dims or standard_error; unnamed dimensions). */
static void same_image(const sdk_store *A, const sdk_store *B, const char *what, int v1) {
  TU_CHECK(A->n == B->n, "%s: %d datasets, read back %d", what, A->n, B->n);
  for (int i = 0; i < A->n; i++) {
    const sdk_dataset *a = A->ds[i], *b = sdk_store_find(B, a->path);
    TU_CHECK(b != NULL, "%s: %s not read back", what, a->path);
    if (!b) continue;
    int ok = a->type == b->type && a->rank == b->rank &&
             !memcmp(a->dims, b->dims, (size_t)a->rank * sizeof *a->dims) &&
             a->grid_rank == b->grid_rank && a->sample_axis == b->sample_axis &&
             (a->flags & SDK_DS_COORD) == (b->flags & SDK_DS_COORD) &&
             (sdk_ds_count(a) == 0 || (a->flags & SDK_DS_COMPRESS) == (b->flags & SDK_DS_COMPRESS));
    TU_CHECK(ok, "%s: %s: type %d/%d rank %d/%d grid %d/%d sample %d/%d flags %u/%u", what, a->path,
             a->type, b->type, a->rank, b->rank, a->grid_rank, b->grid_rank, a->sample_axis,
             b->sample_axis, a->flags, b->flags);
    if (!ok) continue;
    TU_CHECK(!memcmp(a->data, b->data, (size_t)sdk_ds_count(a) * 8), "%s: %s: data differ", what,
             a->path);
    for (int k = 0; k < a->rank; k++) {
      char want[32];
      const char *w = a->dim_name[k];
      if (v1 && k >= a->grid_rank && k != a->sample_axis) {
        snprintf(want, sizeof want, "dim%d", k);
        w = want;
      }
      TU_CHECK(w && b->dim_name[k] && !strcmp(w, b->dim_name[k]),
               "%s: %s: dimension %d is '%s', read back '%s'", what, a->path, k, w ? w : "(null)",
               b->dim_name[k] ? b->dim_name[k] : "(null)");
    }
    same_attrs(a->attr, a->nattr, b->attr, b->nattr, what, a->path);
  }
  TU_CHECK(A->ngroups == B->ngroups, "%s: %d groups, read back %d", what, A->ngroups, B->ngroups);
  for (int i = 0; i < A->ngroups; i++) {
    const sdk_group_attrs *g = &A->groups[i], *h = sdk_store_group(B, g->path);
    TU_CHECK(h != NULL, "%s: group '%s' not read back", what, g->path);
    if (h) same_attrs(g->attr, g->nattr, h->attr, h->nattr, what, g->path);
  }
}

/* ---------------- every observable, 0/1/2 scan axes ---------------- */

/* for observables of [boundaries] (fpt): ou with two absorbing levels, one
 * of them moving with the scanned k */
static const char OU_BOUNDED[] = "[model]\nname = ou-bounded\nvars = x\n[params]\nk = 1\n"
                                 "D = 0.5\n[drift]\nx = -k*x\n[noise]\nx = sqrt(2*D)\n"
                                 "[boundaries]\nlow = absorb x <= -0.5\n"
                                 "high = absorb x >= 0.5*k\n";

/* for observables of [events]: drifted Brownian motion reset at a level,
 * the drift the scanned k */
static const char BM_RESET[] = "[model]\nname = bm-reset\nvars = x\n[params]\nk = 1\n"
                               "D = 0.5\n[drift]\nx = k\n[noise]\nx = sqrt(2*D)\n"
                               "[events]\nfire = when x >= 0.5 : x = 0\n";

static void config(sdk_run_config *c, const sdk_obs_type *t, int nscan) {
  sdk_run_config_defaults(c);
  c->backend = st_backend();
  int sys = (t->flags & SDK_OBS_SYSTEMS_ONLY) != 0;
  if (t->flags & SDK_OBS_BOUNDARIES) {
    c->model = "ou-bounded.sde";
    c->model_text = OU_BOUNDED;
    c->model_path = "ou-bounded.sde";
    c->paths = 64;
    c->dt = 0.01;
    c->t_end = 0.5;
  } else if (t->flags & SDK_OBS_EVENTS) {
    c->model = "bm-reset.sde";
    c->model_text = BM_RESET;
    c->model_path = "bm-reset.sde";
    c->paths = 64;
    c->dt = 0.01;
    c->t_end = 0.5;
  } else if (sys) {
    c->model = "kuramoto-meanfield";
    c->particles = 64;
    c->paths = 2;
    c->dt = 0.01;
    c->t_end = 0.5;
  } else {
    c->model = "ou";
    c->paths = 64;
    c->dt = 0.01;
    c->t_end = 0.5;
  }
  c->observe = t->flags & SDK_OBS_BY_OPTION ? "" : t->name;
  if (t->flags & SDK_OBS_BY_MODEL) { /* user observables of the model */
    c->nobs_expr = 2;
    c->obs_expr[0] = "xx=x*x";
    c->obs_expr[1] = "kt=k*t";
  }
  c->obs.nsave = 2;
  c->obs.save_index[0] = 0, c->obs.save_index[1] = 1;
  c->sample_every = 10;
  c->seed = 11;
  /* axes of 3 and 4 points: no length the version-1 inference could mix up
   * with the 2 saved paths, the 6 samples or the 100 bins */
  const char *spec[2][2] = {{"k=0.5:1.5:3", "D=0.25:1:4:log"}, {"K=1:4:3", "T=0.5:1:4"}};
  c->nscan = nscan;
  for (int i = 0; i < nscan; i++) {
    sdk_errbuf eb = {0};
    TU_CHECK(sdk_scan_parse(spec[sys][i], &c->scan[i], &eb) == SDK_OK, "scan %s: %s", spec[sys][i],
             eb.msg);
  }
}

/* the v1 twin of an image: format_version 1, without dims and standard_error */
static void make_v1(sdk_store *img) {
  sdk_store_group_i64(img, "", "format_version", 1, NULL);
  for (int i = 0; i < img->n; i++) {
    sdk_ds_attr_del(img->ds[i], "dims");
    sdk_ds_attr_del(img->ds[i], "standard_error");
  }
}

static void check_observables_listed(const sdk_store *img, const sdk_results *R, const char *what) {
  const char *o[SDK_MAX_OBSERVABLES];
  int n = sdk_image_observables(img, o, SDK_MAX_OBSERVABLES);
  int ok = n == R->nobs;
  for (int i = 0; ok && i < n; i++)
    ok = !strcmp(o[i], R->obs[i]);
  TU_CHECK(ok, "%s: sdk_image_observables lists %d (%s...), the run %d", what, n, n ? o[0] : "",
           R->nobs);
}

static void round_trip(const sdk_obs_type *t, int nscan) {
  char what[96];
  snprintf(what, sizeof what, "%s, %d scan axes", t->name, nscan);
  sdk_run_config c;
  config(&c, t, nscan);
  sdk_run *run = st_run(&c);
  for (int i = 0; i < nscan; i++)
    sdk_scan_free(&c.scan[i]);
  TU_CHECK(run != NULL, "%s: run", what);
  if (!run) return;
  const sdk_results *R = sdk_run_results(run);
  sdk_errbuf eb = {0};
  sdk_store A, B, C;
  TU_CHECK(sdk_image_of_results(R, &A, &eb) == SDK_OK, "%s: image: %s", what, eb.msg);
  /* the image borrows the results' data */
  const sdk_dataset *dt = sdk_store_find(&A, "scan/dt");
  TU_CHECK(dt && dt->data == (void *)R->dt && (dt->flags & SDK_DS_BORROWED), "%s: scan/dt borrowed",
           what);
  for (int i = 0; i < R->store.n; i++) {
    const sdk_dataset *a = sdk_store_find(&A, R->store.ds[i]->path);
    TU_CHECK(a && a->data == R->store.ds[i]->data, "%s: %s borrowed", what, R->store.ds[i]->path);
  }
  check_observables_listed(&A, R, what);
  /* sdk_write_h5 is the image written */
  const char *f1 = scratch("rt1.h5"), *f2 = scratch("rt2.h5"), *f3 = scratch("rt3.h5");
  TU_CHECK(sdk_write_h5_image(&A, f1, &eb) == SDK_OK, "%s: write: %s", what, eb.msg);
  TU_CHECK(sdk_write_h5(R, f2, &eb) == SDK_OK, "%s: sdk_write_h5: %s", what, eb.msg);
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", f1, f2);
  TU_CHECK(system(cmd) == 0, "%s: sdk_write_h5 and the image written differ", what);
  sdk_err e = sdk_read_h5(f1, &B, &eb);
  TU_CHECK(e == SDK_OK, "%s: read: %s", what, eb.msg);
  if (e == SDK_OK) {
    same_image(&A, &B, what, 0);
    check_observables_listed(&B, R, what);
    /* a file read back writes and reads back the same again */
    TU_CHECK(sdk_write_h5_image(&B, f3, &eb) == SDK_OK, "%s: write again: %s", what, eb.msg);
    e = sdk_read_h5(f3, &C, &eb);
    TU_CHECK(e == SDK_OK, "%s: read again: %s", what, eb.msg);
    if (e == SDK_OK) same_image(&B, &C, what, 0);
    sdk_store_free(&C);
  }
  sdk_store_free(&B);
  /* version 1 */
  char w1[128];
  snprintf(w1, sizeof w1, "%s (format 1)", what);
  make_v1(&A);
  TU_CHECK(sdk_write_h5_image(&A, f1, &eb) == SDK_OK, "%s: write: %s", w1, eb.msg);
  e = sdk_read_h5(f1, &B, &eb);
  TU_CHECK(e == SDK_OK, "%s: read: %s", w1, eb.msg);
  if (e == SDK_OK) same_image(&A, &B, w1, 1);
  sdk_store_free(&B);
  sdk_store_free(&A);
  unlink(f1), unlink(f2), unlink(f3);
  sdk_run_destroy(&run);
  printf("%-8s %d scan axes: image, file and file read back agree (also as format 1)\n", t->name,
         nscan);
}

/* ---------------- the layout's additions, by name ---------------- */

static const char *dims_of(const sdk_store *img, const char *path, char *buf, size_t n) {
  const sdk_dataset *d = sdk_store_find(img, path);
  const sdk_attr *a = d ? sdk_attr_find(d->attr, d->nattr, "dims") : NULL;
  snprintf(buf, n, "%s", a ? "" : "(none)");
  for (int64_t k = 0; a && a->kind == SDK_ATTR_STRS && k < a->nstr; k++)
    snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", k ? "," : "", a->strs[k]);
  return buf;
}

static const char *str_attr(const sdk_store *img, const char *path, const char *name) {
  const sdk_dataset *d = sdk_store_find(img, path);
  const sdk_attr *a = d ? sdk_attr_find(d->attr, d->nattr, name) : NULL;
  return a && a->kind == SDK_ATTR_STR ? a->s : "(none)";
}

/* dims and standard_error as io.h documents them, read from a file */
static void check_layout(void) {
  sdk_run_config c;
  config(&c, sdk_find_observable("drift"), 2);
  c.observe = "drift,moments,hist,density,range";
  sdk_run *run = st_run(&c);
  sdk_scan_free(&c.scan[0]), sdk_scan_free(&c.scan[1]);
  TU_CHECK(run != NULL, "layout run");
  if (!run) return;
  sdk_errbuf eb = {0};
  const char *f = scratch("layout.h5");
  TU_CHECK(sdk_write_h5(sdk_run_results(run), f, &eb) == SDK_OK, "write: %s", eb.msg);
  sdk_store img;
  if (sdk_read_h5(f, &img, &eb) != SDK_OK) {
    TU_CHECK(0, "read layout.h5: %s", eb.msg);
    sdk_run_destroy(&run);
    return;
  }
  static const char *const want[][2] = {
      {"scan/k", "k"},
      {"scan/D", "D"},
      {"scan/dt", "k,D"},
      {"drift/value", "k,D"},
      {"drift/error", "k,D"},
      {"moments/step", "sample"},
      {"moments/t", "k,D,sample"},
      {"moments/mean_x", "k,D,sample"},
      {"hist/x/density", "k,D,bin"},
      {"hist/x/underflow", "k,D"},
      {"density/x/P", "k,D,sample,bin"},
      {"density/x/lo", "k,D,sample"},
      {"range/max_x", "k,D,sample"},
      {"paths/index", "path"},
      {"paths/x", "k,D,path,sample"},
  };
  char buf[256];
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    TU_CHECK(!strcmp(dims_of(&img, want[i][0], buf, sizeof buf), want[i][1]),
             "%s: dims %s, want %s", want[i][0], buf, want[i][1]);
  TU_CHECK(!strcmp(str_attr(&img, "drift/value", "standard_error"), "error"),
           "drift/value standard_error = %s", str_attr(&img, "drift/value", "standard_error"));
  TU_CHECK(!strcmp(str_attr(&img, "drift/error", "standard_error"), "(none)"),
           "drift/error has no standard_error");
  const sdk_group_attrs *root = sdk_store_group(&img, "");
  const sdk_attr *fv = root ? sdk_attr_find(root->attr, root->nattr, "format_version") : NULL;
  const sdk_attr *seed = root ? sdk_attr_find(root->attr, root->nattr, "seed") : NULL;
  const sdk_attr *pv = root ? sdk_attr_find(root->attr, root->nattr, "param_values") : NULL;
  TU_CHECK(fv && fv->kind == SDK_ATTR_I64 && fv->i == 2, "format_version 2");
  TU_CHECK(seed && seed->kind == SDK_ATTR_U64 && seed->u == 11, "seed u64 11");
  /* the values in force: NaN for a scanned parameter (both are here) */
  TU_CHECK(pv && pv->kind == SDK_ATTR_F64S && pv->nfs == 2 && isnan(pv->fs[0]) && isnan(pv->fs[1]),
           "param_values [NaN, NaN] (both parameters scanned)");
  /* order: the registry's, unknown groups after by name */
  sdk_store_group_add(&img, "zz", NULL);
  sdk_store_group_add(&img, "aa", NULL);
  sdk_store_group_add(&img, "aa/sub", NULL);
  const char *o[16];
  int n = sdk_image_observables(&img, o, 16);
  const char *wo[] = {"drift", "moments", "hist", "density", "paths", "range", "aa", "zz"};
  int ok = n == 8;
  for (int i = 0; ok && i < n; i++)
    ok = !strcmp(o[i], wo[i]);
  TU_CHECK(ok, "observables: %d, %s ... %s", n, n ? o[0] : "", n ? o[n - 1] : "");
  TU_CHECK(sdk_image_observables(&img, o, 2) == 2 && !strcmp(o[1], "moments"), "at most max");
  sdk_store_free(&img);
  sdk_run_destroy(&run);
  unlink(f);
}

/* ---------------- version 1 files written by sdekit 0.1 ---------------- */

static void check_v1_corpus(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/fuzz/corpus/h5/ou-scan.h5", tu_source_dir());
  sdk_store img;
  sdk_errbuf eb = {0};
  sdk_err e = sdk_read_h5(path, &img, &eb);
  TU_CHECK(e == SDK_OK, "read %s: %s", path, eb.msg);
  if (e) return;
  /* path, grid, sample axis, dimension names */
  static const struct {
    const char *path;
    int grid, sample;
    const char *names;
  } want[] = {
      {"scan/k", 1, -1, "k"},
      {"scan/dt", 1, -1, "k"},
      {"drift/value", 1, -1, "k"},
      {"moments/step", 0, 0, "sample"},
      {"moments/mean_x", 1, 1, "k,sample"},
      {"hist/x/density", 1, -1, "k,dim1"},
      {"paths/index", 0, -1, "dim0"},
      {"paths/x", 1, 2, "k,dim1,sample"},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    const sdk_dataset *d = sdk_store_find(&img, want[i].path);
    char names[128] = "";
    for (int k = 0; d && k < d->rank; k++)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? "," : "",
               d->dim_name[k]);
    TU_CHECK(d && d->grid_rank == want[i].grid && d->sample_axis == want[i].sample &&
                 !strcmp(names, want[i].names),
             "ou-scan.h5 (format 1): %s: grid %d sample %d dims %s; want %d %d %s", want[i].path,
             d ? d->grid_rank : -9, d ? d->sample_axis : -9, names, want[i].grid, want[i].sample,
             want[i].names);
  }
  const sdk_dataset *mx = sdk_store_find(&img, "moments/mean_x");
  TU_CHECK(mx && mx->type == SDK_F64 && mx->dims[0] == 2 && mx->dims[1] == 101 &&
               sdk_ds_f64(mx)[0] == 1.0,
           "ou-scan.h5: moments/mean_x [2, 101] from x = 1");
  sdk_store_free(&img);
  snprintf(path, sizeof path, "%s/fuzz/corpus/h5/kuramoto-order.h5", tu_source_dir());
  e = sdk_read_h5(path, &img, &eb);
  TU_CHECK(e == SDK_OK, "read %s: %s", path, eb.msg);
  if (e) return;
  const sdk_dataset *r = sdk_store_find(&img, "order/r");
  const sdk_dataset *P = sdk_store_find(&img, "density/x/P");
  const sdk_dataset *dt = sdk_store_find(&img, "scan/dt");
  TU_CHECK(r && r->grid_rank == 0 && r->sample_axis == 0, "kuramoto-order.h5: order/r [sample]");
  TU_CHECK(P && P->rank == 2 && P->grid_rank == 0 && P->sample_axis == 0,
           "kuramoto-order.h5: density/x/P [sample, dim1]");
  TU_CHECK(dt && dt->rank == 0 && sdk_ds_count(dt) == 1, "kuramoto-order.h5: scalar scan/dt");
  const char *o[8];
  int n = sdk_image_observables(&img, o, 8);
  TU_CHECK(n == 2 && !strcmp(o[0], "density") && !strcmp(o[1], "order"),
           "kuramoto-order.h5: observables density, order (%d)", n);
  sdk_store_free(&img);
}

/* ---------------- hostile files ---------------- */

/* sdk_read_h5 in a child with 20 s and (without AddressSanitizer) 1.5 GiB
 * more address space than now: its status and message.  -1: the child died
 * (a hang, a crash, an allocation beyond the bound). */
static int read_bounded(const char *path, char *msg, size_t n) {
  int fd[2];
  msg[0] = 0;
  if (pipe(fd) != 0) return -1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    alarm(20);
#if !defined(__SANITIZE_ADDRESS__)
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f && fscanf(f, "%ld", &pages) == 1) {
      struct rlimit rl;
      rl.rlim_cur = rl.rlim_max = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (3ul << 29);
      setrlimit(RLIMIT_AS, &rl);
    }
    if (f) fclose(f);
#endif
    sdk_store img;
    sdk_errbuf eb = {0};
    sdk_err e = sdk_read_h5(path, &img, &eb);
    if (!e) sdk_store_free(&img);
    char out[1100];
    int len = snprintf(out, sizeof out, "%d %s", (int)e, eb.msg);
    if (write(fd[1], out, (size_t)len) < 0) _exit(3);
    _exit(0);
  }
  close(fd[1]);
  char buf[1100];
  size_t got = 0;
  ssize_t k;
  while (pid > 0 && got < sizeof buf - 1 && (k = read(fd[0], buf + got, sizeof buf - 1 - got)) > 0)
    got += (size_t)k;
  close(fd[0]);
  buf[got] = 0;
  int st = 0;
  if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || !got)
    return -1;
  char *sp = strchr(buf, ' ');
  snprintf(msg, n, "%s", sp ? sp + 1 : "");
  return atoi(buf);
}

/* refused with err, the message naming the file and matching `want` */
static void expect_refused(const char *what, const char *path, int err, const char *want) {
  char msg[1100], named[700];
  int e = read_bounded(path, msg, sizeof msg);
  snprintf(named, sizeof named, "'%s'", path);
  TU_CHECK(e == err && strstr(msg, named) && strstr(msg, want),
           "%s: got %d '%s'; want %d naming the file and saying '%s'", what, e, msg, err, want);
}

/* short_mean: moments/mean_x of a format 2 file replaced by a shorter one
 * without dims ([2 grid points][samples - 2], as h5py writes it): read with
 * the axes from the shapes (the grid, no sample axis), the rest as written. */
static void check_short_mean(const char *path) {
  sdk_store img;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_read_h5(path, &img, &eb) == SDK_OK, "short_mean: %s", eb.msg);
  if (eb.msg[0]) return;
  const sdk_dataset *m = sdk_store_find(&img, "moments/mean_x");
  const sdk_dataset *v = sdk_store_find(&img, "moments/var_x");
  TU_CHECK(m && m->rank == 2 && m->grid_rank == 1 && m->sample_axis == -1 &&
               !strcmp(m->dim_name[0], "a") && !strcmp(m->dim_name[1], "dim1"),
           "short_mean: mean_x read as rank %d, grid %d, sample axis %d, dims %s %s",
           m ? m->rank : -1, m ? m->grid_rank : -1, m ? m->sample_axis : -1,
           m && m->rank > 0 ? m->dim_name[0] : "-", m && m->rank > 1 ? m->dim_name[1] : "-");
  TU_CHECK(v && v->grid_rank == 1 && v->sample_axis == 1 && !strcmp(v->dim_name[1], "sample") &&
               m && m->dims[1] == v->dims[1] - 2,
           "short_mean: var_x (with dims) read as grid %d, sample axis %d", v ? v->grid_rank : -1,
           v ? v->sample_axis : -1);
  sdk_store_free(&img);
}

/* added_group: a group without dims in a format 2 file (extra/step [4],
 * extra/t [2][4], extra/v [2][3][4]): the grid and the sample axis from the
 * shapes. */
static void check_added_group(const char *path) {
  sdk_store img;
  sdk_errbuf eb = {0};
  TU_CHECK(sdk_read_h5(path, &img, &eb) == SDK_OK, "added_group: %s", eb.msg);
  if (eb.msg[0]) return;
  static const struct {
    const char *path;
    int grid, sample;
    const char *names[3];
  } want[] = {{"extra/step", 0, 0, {"sample"}},
              {"extra/t", 1, 1, {"a", "sample"}},
              {"extra/v", 1, 2, {"a", "dim1", "sample"}}};
  for (int i = 0; i < 3; i++) {
    const sdk_dataset *d = sdk_store_find(&img, want[i].path);
    int ok = d && d->grid_rank == want[i].grid && d->sample_axis == want[i].sample;
    for (int k = 0; ok && k < d->rank; k++)
      ok = !strcmp(d->dim_name[k], want[i].names[k]);
    TU_CHECK(ok, "added_group: /%s read as grid %d, sample axis %d", want[i].path,
             d ? d->grid_rank : -1, d ? d->sample_axis : -1);
  }
  sdk_store_free(&img);
}

static const char *const PY = "/usr/bin/python3";

static int have_h5py(void) {
  char cmd[200];
  snprintf(cmd, sizeof cmd, "%s -c 'import h5py, numpy' >/dev/null 2>&1", PY);
  return system(cmd) == 0;
}

static void check_hostile(void) {
  /* without Python: what is not an HDF5 result file at all */
  char fifo[600], base[600];
  snprintf(fifo, sizeof fifo, "%s", scratch("fifo.h5"));
  snprintf(base, sizeof base, "%s", scratch("base.h5"));
  const char *dir = scratch("adir.h5"), *txt = scratch("text.h5");
  TU_CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
  expect_refused("a FIFO", fifo, SDK_ERR_FORMAT, "is not a regular file");
  mkdir(dir, 0700);
  expect_refused("a directory", dir, SDK_ERR_USAGE, "is a directory");
  expect_refused("a missing file", scratch("missing.h5"), SDK_ERR_IO, "No such file");
  FILE *f = fopen(txt, "w");
  if (f) fputs("this is not an HDF5 file\n", f), fclose(f);
  expect_refused("a text file", txt, SDK_ERR_FORMAT, "is not an HDF5 file");
  rmdir(dir), unlink(txt);

  /* the base file of tests/hostile/h_plot_shapes.sh: josephson, a = 2 points */
  sdk_run_config c;
  sdk_run_config_defaults(&c);
  c.backend = st_backend();
  c.model = "josephson";
  c.paths = 32;
  c.periods = 3;
  c.observe = "drift,moments,hist";
  c.nscan = 1;
  sdk_errbuf eb = {0};
  sdk_scan_parse("a=4.2:14.1:2", &c.scan[0], &eb);
  sdk_run *run = st_run(&c);
  sdk_scan_free(&c.scan[0]);
  TU_CHECK(run != NULL, "hostile base run");
  if (!run) return;
  TU_CHECK(sdk_write_h5(sdk_run_results(run), base, &eb) == SDK_OK, "base: %s", eb.msg);
  sdk_run_destroy(&run);
  {
    /* a truncated file */
    const char *tr = scratch("trunc.h5");
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "head -c 3000 '%s' > '%s'", base, tr);
    TU_CHECK(system(cmd) == 0, "truncate");
    char msg[1100];
    int e = read_bounded(tr, msg, sizeof msg);
    TU_CHECK(e == SDK_ERR_FORMAT && strstr(msg, tr), "a truncated file: %d %s", e, msg);
    unlink(tr);
  }
  if (!have_h5py()) {
    printf("no %s with h5py: the crafted hostile files are skipped\n", PY);
    unlink(base), unlink(fifo);
    return;
  }
  static const struct {
    const char *kind, *want;
  } cases[] = {
      /* the files of tests/hostile/h_plot_shapes.sh (short_mean reads: a
       * dataset without dims, as h5py adds them, takes its axes from the
       * shapes; `sdekit plot` refuses its length: check_short_mean) */
      {"short_mean", NULL},
      {"huge_axis", "/scan/a is larger than sdekit reads"},
      {"huge_dims", "/moments/t is larger than sdekit reads"},
      {"unwritten", "/drift/value declares more data than the file holds"},
      {"external_link", "/elink is an external link"},
      {"external_moments", "/moments/t is an external link"},
      {"soft_link", "/drift/error is a soft link"},
      {"external_storage", "/scan/dt keeps its data in external raw files"},
      {"virtual", "/scan/dt is a virtual dataset"},
      /* and more */
      {"unwritten_z", "/drift/value declares more data than the file holds (chunks never"},
      {"f32", "/drift/error is of a type sdekit does not read"},
      {"strings", "/drift/note is of a type sdekit does not read"},
      {"rank7", "/drift/deep has 9 dimensions; sdekit reads at most 8"},
      {"named_type", "/drift/type is neither a group nor a dataset"},
      {"long_name", "the name /drift/nnnnn"},
      {"total", "values in all, more than sdekit reads (SDK_H5_MAX_TOTAL, 2^29)"},
      {"dims_count", "/moments/mean_x has an attribute dims that does not name its 2 dimensions"},
      {"dims_type", "/moments/mean_x has an attribute dims that does not name its 2 dimensions"},
      {"std_error", "/drift/value has an attribute standard_error that does not name a dataset"},
      {"std_error_shape", "/drift/value has an attribute standard_error that does not name"},
      {"int_list_attr", "/drift has an attribute 'ks' of a type sdekit does not read"},
      {"compound_attr", "/drift has an attribute 'c' of a type sdekit does not read"},
      {"newer", "was written by a newer sdekit (format 99; this one reads up to 2)"},
      {"not_sdekit", "is not an sdekit result file (no format = \"sdekit\" attribute)"},
      {"axes_dt", "/scan lists an axis 'dt' that is not a parameter's dataset name"},
      {"axes_missing", "scan axis /scan/zz is missing or not a list of numbers"},
      {"no_scan", "is not an sdekit result file (no scan group)"},
      {"dt_shape", "/scan/dt is missing or does not match the scan axes"},
      {"samples", "/moments/mean_x has 8 samples where /moments/step has 4"},
      {"expand", "unpacks to 512 MiB of values from"},
      {"loop", NULL},
      {"odd_names", NULL},
      {"added_group", NULL},
  };
  char script[1024];
  snprintf(script, sizeof script, "%s/tests/hostile/craft_h5.py", tu_source_dir());
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char name[64], cmd[3000];
    snprintf(name, sizeof name, "%s.h5", cases[i].kind);
    const char *h = scratch(name);
    snprintf(cmd, sizeof cmd, "%s '%s' %s '%s' '%s' '%s'", PY, script, cases[i].kind, base, h,
             fifo);
    TU_CHECK(system(cmd) == 0, "craft %s", cases[i].kind);
    if (cases[i].want) {
      expect_refused(cases[i].kind, h, SDK_ERR_FORMAT, cases[i].want);
    } else {
      char msg[1100];
      int e = read_bounded(h, msg, sizeof msg);
      TU_CHECK(e == SDK_OK, "%s: read: %d %s", cases[i].kind, e, msg);
      if (!strcmp(cases[i].kind, "short_mean")) check_short_mean(h);
      if (!strcmp(cases[i].kind, "added_group")) check_added_group(h);
    }
    unlink(h);
  }
  unlink(base), unlink(fifo);
  printf("hostile files: %zu crafted, each refused (or read) as it should\n",
         sizeof cases / sizeof cases[0]);
}

int main(void) {
  st_require_backend();
  snprintf(g_dir, sizeof g_dir, "test_image.XXXXXX");
  if (!mkdtemp(g_dir)) {
    perror("mkdtemp");
    return 1;
  }
  for (int i = 0; sdk_registry_observables[i]; i++)
    for (int nscan = 0; nscan <= 2; nscan++)
      round_trip(sdk_registry_observables[i], nscan);
  check_layout();
  check_v1_corpus();
  check_hostile();
  if (rmdir(g_dir) != 0) fprintf(stderr, "%s left behind: %s\n", g_dir, strerror(errno));
  TU_CHECK(access(g_dir, F_OK) != 0, "scratch directory removed");
  return tu_finish("test_image");
}
