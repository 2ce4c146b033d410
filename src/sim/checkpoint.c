#include "sim/checkpoint.h"

#include "core/atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"
#include "codegen/codegen.h"
#include "core/strbuf.h"
#include "model/limits.h"

#define STR_(x) #x
#define STR(x) STR_(x)

const char *sdk_ckpt_build_id(void) {
  return "sdekit " SDK_VERSION " abi " STR(SDK_KERNEL_ABI) " ckpt " STR(SDK_CKPT_FORMAT)
#ifdef __VERSION__
      " cc " __VERSION__
#endif
#ifdef SDK_BUILD_ID
      " build " SDK_BUILD_ID
#endif
      ;
}

void sdk_ckpt_destroy(sdk_ckpt **cp) {
  if (!cp || !*cp) return;
  sdk_ckpt *c = *cp;
  free(c->version);
  free(c->build);
  free(c->kernel_hash);
  for (int i = 0; c->argv && i < c->argc; i++)
    free(c->argv[i]);
  free(c->argv);
  free(c->model_text);
  free(c->model_path);
  free(c->state);
  free(c->comp);
  free(c->carry);
  free(c->target);
  free(c->sample_step);
  for (int i = 0; i < c->nobs; i++)
    free(c->obs[i].name);
  free(c->obs);
  for (int i = 0; i < c->nds; i++)
    free(c->ds[i].path), free(c->ds[i].data);
  free(c->ds);
  free(c);
  *cp = NULL;
}

static void rec(sdk_strbuf *b, const char tag[4], const void *data, uint64_t n) {
  sdk_sb_putn(b, tag, 4);
  sdk_sb_putn(b, (const char *)&n, 8);
  if (n) sdk_sb_putn(b, data, (size_t)n);
}

static const char *str_or_empty(const char *s) {
  return s ? s : "";
}

static void rec_obs(sdk_strbuf *b, const sdk_ckpt_obs *o) {
  uint16_t n = (uint16_t)strlen(o->name);
  uint64_t len = 2 + (uint64_t)n + 8;
  sdk_sb_putn(b, "OBSN", 4);
  sdk_sb_putn(b, (const char *)&len, 8);
  sdk_sb_putn(b, (const char *)&n, 2);
  sdk_sb_putn(b, o->name, n);
  sdk_sb_putn(b, (const char *)&o->nsamples, 8);
}

static void rec_ds(sdk_strbuf *b, const sdk_ckpt_ds *d) {
  uint16_t n = (uint16_t)strlen(d->path);
  uint8_t type = (uint8_t)d->type, rank = (uint8_t)d->rank;
  uint64_t count = 1;
  for (int i = 0; i < d->rank; i++)
    count *= (uint64_t)d->dims[i];
  uint64_t len = 2 + (uint64_t)n + 2 + 8 * (uint64_t)rank + 8 * count;
  sdk_sb_putn(b, "OBSD", 4);
  sdk_sb_putn(b, (const char *)&len, 8);
  sdk_sb_putn(b, (const char *)&n, 2);
  sdk_sb_putn(b, d->path, n);
  sdk_sb_putn(b, (const char *)&type, 1);
  sdk_sb_putn(b, (const char *)&rank, 1);
  sdk_sb_putn(b, (const char *)d->dims, 8 * (size_t)rank);
  if (count) sdk_sb_putn(b, d->data, (size_t)(8 * count));
}

sdk_err sdk_ckpt_write(const sdk_ckpt *c, const char *path, sdk_errbuf *eb) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  uint32_t fmt = SDK_CKPT_FORMAT;
  sdk_sb_putn(&b, "SDEKITCP", 8);
  sdk_sb_putn(&b, (const char *)&fmt, 4);
  rec(&b, "VERS", c->version, strlen(c->version));
  rec(&b, "ABI ", &c->abi, 8);
  const char *build = c->build ? c->build : sdk_ckpt_build_id();
  rec(&b, "BILD", build, strlen(build));
  rec(&b, "KHSH", str_or_empty(c->kernel_hash), strlen(str_or_empty(c->kernel_hash)));
  sdk_strbuf av;
  sdk_sb_init(&av);
  for (int i = 0; i < c->argc; i++)
    sdk_sb_putn(&av, c->argv[i], strlen(c->argv[i]) + 1);
  rec(&b, "ARGV", av.s ? av.s : "", av.len);
  sdk_sb_free(&av);
  rec(&b, "MTXT", c->model_text, strlen(c->model_text));
  rec(&b, "MPTH", str_or_empty(c->model_path), strlen(str_or_empty(c->model_path)));
  int64_t dims[6] = {c->step, c->nvars, c->ngrid, c->ppg, c->nsamples, c->has_mark};
  rec(&b, "DIMS", dims, sizeof dims);
  uint64_t np = (uint64_t)c->ngrid * (uint64_t)c->ppg;
  rec(&b, "STAT", c->state, (uint64_t)(c->nvars + 1) * np * 8);
  if (c->comp) rec(&b, "COMP", c->comp, (uint64_t)c->ncomp * np * 8);
  rec(&b, "SSTP", c->sample_step, (uint64_t)c->nsamples * 8);
  if (c->sample_every > 0) rec(&b, "SEVR", &c->sample_every, 8);
  if (c->carry) rec(&b, "CARY", c->carry, c->ncarry);
  if (c->target) rec(&b, "TGTS", c->target, c->ntarget);
  for (int i = 0; i < c->nobs; i++)
    rec_obs(&b, &c->obs[i]);
  for (int i = 0; i < c->nds; i++)
    rec_ds(&b, &c->ds[i]);
  char hash[33] = {0};
  if (!b.oom) sdk_hash_hex(b.s, b.len, hash);
  rec(&b, "HASH", hash, 32);
  if (b.oom) {
    sdk_sb_free(&b);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory writing checkpoint");
  }
  /* next to the target, made fresh, synced, renamed (core/atomicfile.h) */
  sdk_err err = SDK_OK;
  if (sdk_atomic_write(path, b.s, b.len, 0, NULL) != SDK_OK)
    err = SDK_FAIL(eb, SDK_ERR_IO, "cannot write checkpoint '%s': %s", path, strerror(errno));
  sdk_sb_free(&b);
  return err;
}

/* Records the reader knows; one slot each (OBSN and OBSD may repeat). */
enum {
  R_VERS,
  R_ABI,
  R_BILD,
  R_KHSH,
  R_ARGV,
  R_MTXT,
  R_MPTH,
  R_DIMS,
  R_STAT,
  R_COMP,
  R_SSTP,
  R_OBSN,
  R_OBSD,
  R_CARY,
  R_TGTS,
  R_SEVR,
  R_N
};
static const char TAGS[R_N][5] = {"VERS", "ABI ", "BILD", "KHSH", "ARGV", "MTXT", "MPTH", "DIMS",
                                  "STAT", "COMP", "SSTP", "OBSN", "OBSD", "CARY", "TGTS", "SEVR"};

typedef struct {
  const char *p;
  uint64_t n;
} span;

/* the records of a checkpoint's bytes; repeated ones listed in obs[], ds[] */
typedef struct {
  const char *path;
  span f[R_N];
  span *obs, *ds;
  int nobs, nds;
} records;

#define CORRUPT(...) SDK_FAIL(eb, SDK_ERR_FORMAT, __VA_ARGS__)

/* a*b*c*d*8 without overflow and within the file's size; 0 on overflow */
static int bytes_of(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t *out) {
  uint64_t r = 8;
  if (__builtin_mul_overflow(r, a, &r) || __builtin_mul_overflow(r, b, &r) ||
      __builtin_mul_overflow(r, c, &r) || __builtin_mul_overflow(r, d, &r) ||
      r > SDK_CKPT_MAX_BYTES)
    return 0;
  *out = r;
  return 1;
}

/* a string record: no NUL inside (a C string would silently end there) */
static char *dup_str(const char *p, uint64_t n) {
  if (memchr(p, 0, (size_t)n)) return NULL;
  return sdk_strndup(p, (size_t)n);
}

static int is_hex32(const char *s) {
  if (strlen(s) != 32) return 0;
  for (int i = 0; i < 32; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return 0;
  return 1;
}

static sdk_err add_span(span **list, int *n, const char *p, uint64_t len, const records *r,
                        sdk_errbuf *eb) {
  if (*n >= SDK_CKPT_MAX_RECORDS)
    return CORRUPT("checkpoint '%s' is corrupt (too many records)", r->path);
  span *g = realloc(*list, (size_t)(*n + 1) * sizeof *g);
  if (!g) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory reading checkpoint '%s'", r->path);
  *list = g;
  g[(*n)++] = (span){p, len};
  return SDK_OK;
}

/* one record at *pos; *hashed once the checksum record is read and right */
static sdk_err one_record(const char *buf, size_t len, size_t *pos, records *r, int *hashed,
                          sdk_errbuf *eb) {
  size_t start = *pos;
  char tag[4];
  uint64_t n;
  if (len - *pos < 12) return CORRUPT("checkpoint '%s' is truncated or corrupt", r->path);
  memcpy(tag, buf + *pos, 4);
  memcpy(&n, buf + *pos + 4, 8);
  *pos += 12;
  if (n > len - *pos) return CORRUPT("checkpoint '%s' is truncated or corrupt", r->path);
  const char *p = buf + *pos;
  *pos += (size_t)n;
  if (!memcmp(tag, "HASH", 4)) {
    char want[33];
    sdk_hash_hex(buf, start, want);
    if (n != 32 || memcmp(want, p, 32) != 0)
      return CORRUPT("checkpoint '%s' is corrupt (checksum mismatch)", r->path);
    *hashed = 1;
    return SDK_OK;
  }
  int k = 0;
  while (k < R_N && memcmp(tag, TAGS[k], 4) != 0)
    k++;
  if (k == R_N) {
    char t[5];
    for (int i = 0; i < 4; i++)
      t[i] = tag[i] >= 32 && tag[i] < 127 ? tag[i] : '?';
    t[4] = 0;
    return CORRUPT("checkpoint '%s' has a record '%s' this sdekit does not know", r->path, t);
  }
  if (k == R_OBSN) return add_span(&r->obs, &r->nobs, p, n, r, eb);
  if (k == R_OBSD) return add_span(&r->ds, &r->nds, p, n, r, eb);
  if (r->f[k].p)
    return CORRUPT("checkpoint '%s' is corrupt (record '%s' given twice)", r->path, TAGS[k]);
  r->f[k] = (span){p, n};
  return SDK_OK;
}

static sdk_err scan_records(const char *buf, size_t len, records *r, sdk_errbuf *eb) {
  uint32_t fmt = 0;
  if (len < 8 || memcmp(buf, "SDEKITCP", 8) != 0)
    return CORRUPT("'%s' is not an sdekit checkpoint", r->path);
  if (len < 12) return CORRUPT("checkpoint '%s' is truncated or corrupt", r->path);
  memcpy(&fmt, buf + 8, 4);
  if (fmt == 3)
    return CORRUPT("checkpoint '%s' has format 3, from an earlier kernel identity (its kernel "
                   "hash is over the raw source; this sdekit (%s) hashes the normalised source): "
                   "no kernel of this build continues it; rerun it, or finish it with the sdekit "
                   "that wrote it",
                   r->path, SDK_VERSION);
  if (fmt != SDK_CKPT_FORMAT)
    return CORRUPT("checkpoint '%s' has format %u; this sdekit (%s) reads format %d: finish it "
                   "with the sdekit that wrote it",
                   r->path, fmt, SDK_VERSION, SDK_CKPT_FORMAT);
  size_t pos = 12;
  int hashed = 0;
  while (pos < len && !hashed)
    SDK_CHECK(one_record(buf, len, &pos, r, &hashed, eb));
  if (!hashed || pos != len) return CORRUPT("checkpoint '%s' is truncated or corrupt", r->path);
  static const int required[] = {R_VERS, R_ABI,  R_BILD, R_KHSH, R_ARGV,
                                 R_MTXT, R_MPTH, R_DIMS, R_STAT, R_SSTP};
  for (size_t i = 0; i < sizeof required / sizeof *required; i++)
    if (!r->f[required[i]].p)
      return CORRUPT("checkpoint '%s' is truncated or corrupt (no record '%s')", r->path,
                     TAGS[required[i]]);
  return SDK_OK;
}

/* who wrote it: version, ABI, build, kernel */
static sdk_err parse_identity(const records *r, sdk_ckpt *c, sdk_errbuf *eb) {
  const span *f = r->f;
  const char *path = r->path;
  if (f[R_VERS].n > 64 || !(c->version = dup_str(f[R_VERS].p, f[R_VERS].n)))
    return CORRUPT("checkpoint '%s' is corrupt (version)", path);
  if (f[R_ABI].n != 8) return CORRUPT("checkpoint '%s' is corrupt (ABI)", path);
  memcpy(&c->abi, f[R_ABI].p, 8);
  if (f[R_BILD].n > 1024 || !(c->build = dup_str(f[R_BILD].p, f[R_BILD].n)))
    return CORRUPT("checkpoint '%s' is corrupt (build id)", path);
  if (strcmp(c->version, SDK_VERSION) != 0 || c->abi != SDK_KERNEL_ABI)
    return CORRUPT("checkpoint '%s' was written by sdekit %s (kernel ABI %lld); this is sdekit %s "
                   "(ABI %d): finish it with that version",
                   path, c->version, (long long)c->abi, SDK_VERSION, SDK_KERNEL_ABI);
  if (strcmp(c->build, sdk_ckpt_build_id()) != 0)
    return CORRUPT("checkpoint '%s' was written by another build of sdekit (%s; this is %s): "
                   "finish it with that build",
                   path, c->build, sdk_ckpt_build_id());
  if (!(c->kernel_hash = dup_str(f[R_KHSH].p, f[R_KHSH].n)) || !is_hex32(c->kernel_hash))
    return CORRUPT("checkpoint '%s' is corrupt (kernel hash)", path);
  return SDK_OK;
}

/* arguments: NUL-terminated strings, nothing after the last; the model */
static sdk_err parse_args(const records *r, sdk_ckpt *c, sdk_errbuf *eb) {
  const char *p = r->f[R_ARGV].p;
  uint64_t n = r->f[R_ARGV].n;
  int64_t argc = 0;
  for (uint64_t i = 0; i < n; i++)
    argc += p[i] == 0;
  if ((n > 0 && p[n - 1] != 0) || argc > SDK_CKPT_MAX_ARGS)
    return CORRUPT("checkpoint '%s' is corrupt (arguments)", r->path);
  if (!(c->argv = calloc((size_t)argc + 1, sizeof *c->argv)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory reading checkpoint '%s'", r->path);
  c->argc = (int)argc;
  for (int i = 0; i < c->argc; i++) {
    size_t l = strlen(p);
    if (!(c->argv[i] = sdk_strndup(p, l)))
      return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory reading checkpoint '%s'", r->path);
    p += l + 1;
  }
  const span *f = r->f;
  if (!(c->model_text = dup_str(f[R_MTXT].p, f[R_MTXT].n)) ||
      !(c->model_path = dup_str(f[R_MPTH].p, f[R_MPTH].n)) || f[R_MPTH].n > 4096)
    return CORRUPT("checkpoint '%s' is corrupt (model text or path)", r->path);
  return SDK_OK;
}

static sdk_err copy_array(const span *s, uint64_t want, void **dst, const records *r,
                          const char *tag, sdk_errbuf *eb) {
  if (s->n != want)
    return CORRUPT("checkpoint '%s' is corrupt (record '%s' has the wrong size)", r->path, tag);
  /* malloc(0) may return NULL: keep one byte so that "present" stays non-NULL */
  if (!(*dst = malloc(want ? (size_t)want : 1)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory reading checkpoint '%s'", r->path);
  if (want) memcpy(*dst, s->p, (size_t)want);
  return SDK_OK;
}

/* dimensions, the paths' state and the sample clock */
static sdk_err parse_state(const records *r, sdk_ckpt *c, sdk_errbuf *eb) {
  const span *f = r->f;
  if (f[R_DIMS].n != 48) return CORRUPT("checkpoint '%s' is corrupt (dimensions)", r->path);
  int64_t d[6];
  memcpy(d, f[R_DIMS].p, sizeof d);
  c->step = d[0], c->nvars = d[1], c->ngrid = d[2], c->ppg = d[3], c->nsamples = d[4],
  c->has_mark = d[5];
  uint64_t np, nv = (uint64_t)c->nvars, want;
  if (c->nvars < 1 || c->nvars > SDK_CKPT_MAX_VARS || c->ngrid < 1 || c->ppg < 1 ||
      c->nsamples < 0 || c->step < 0 || (c->has_mark != 0 && c->has_mark != 1) ||
      __builtin_mul_overflow((uint64_t)c->ngrid, (uint64_t)c->ppg, &np))
    return CORRUPT("checkpoint '%s' is corrupt (bad dimensions)", r->path);
  if (!bytes_of(nv + 1, np, 1, 1, &want))
    return CORRUPT("checkpoint '%s' is corrupt (record 'STAT' has the wrong size)", r->path);
  SDK_CHECK(copy_array(&f[R_STAT], want, (void **)&c->state, r, "STAT", eb));
  if (f[R_COMP].p) {
    /* the carried rows (codegen.h, sdk_cg_rows): the compensated update's
     * (nvars or 2 nvars), the boundary rows, then two per time average;
     * a whole number of rows of np paths */
    uint64_t one;
    if (!bytes_of(1, np, 1, 1, &one) || f[R_COMP].n % one != 0 || f[R_COMP].n / one == 0 ||
        f[R_COMP].n / one > 4 * nv + SDK_CKPT_MAX_EXTRA_ROWS)
      return CORRUPT("checkpoint '%s' is corrupt (record 'COMP' has the wrong size)", r->path);
    c->ncomp = (int64_t)(f[R_COMP].n / one);
    if (!bytes_of((uint64_t)c->ncomp, np, 1, 1, &want))
      return CORRUPT("checkpoint '%s' is corrupt (record 'COMP' has the wrong size)", r->path);
    SDK_CHECK(copy_array(&f[R_COMP], want, (void **)&c->comp, r, "COMP", eb));
  }
  if (!bytes_of((uint64_t)c->nsamples, 1, 1, 1, &want))
    return CORRUPT("checkpoint '%s' is corrupt (record 'SSTP' has the wrong size)", r->path);
  SDK_CHECK(copy_array(&f[R_SSTP], want, (void **)&c->sample_step, r, "SSTP", eb));
  if (f[R_SEVR].p) {
    if (f[R_SEVR].n != 8) return CORRUPT("checkpoint '%s' is corrupt (sample interval)", r->path);
    memcpy(&c->sample_every, f[R_SEVR].p, 8);
    /* (2^53 steps: past any run's length, and the run's sample arithmetic,
     * (step / every + 1) every, stays far from overflow) */
    if (c->sample_every < 1 || c->sample_every > ((int64_t)1 << 53))
      return CORRUPT("checkpoint '%s' is corrupt (sample interval)", r->path);
  }
  /* sample steps: increasing, within the steps done */
  for (int64_t s = 0; s < c->nsamples; s++)
    if (c->sample_step[s] < 0 || c->sample_step[s] > c->step ||
        (s > 0 && c->sample_step[s] <= c->sample_step[s - 1]))
      return CORRUPT("checkpoint '%s' is corrupt (sample steps)", r->path);
  return SDK_OK;
}

/* a name or dataset path: [A-Za-z0-9_/.-], not empty, at most SDK_CKPT_MAX_NAME */
static char *name_at(const char *p, uint64_t avail, uint64_t *used) {
  uint16_t n;
  if (avail < 2) return NULL;
  memcpy(&n, p, 2);
  if (n == 0 || n > SDK_CKPT_MAX_NAME || n > avail - 2) return NULL;
  for (uint16_t i = 0; i < n; i++) {
    char ch = p[2 + i];
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
          ch == '_' || ch == '/' || ch == '.' || ch == '-'))
      return NULL;
  }
  *used = 2 + (uint64_t)n;
  return sdk_strndup(p + 2, n);
}

static sdk_err parse_obs(const records *r, sdk_ckpt *c, sdk_errbuf *eb) {
  if (r->nobs && !(c->obs = calloc((size_t)r->nobs, sizeof *c->obs)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory reading checkpoint '%s'", r->path);
  for (int i = 0; i < r->nobs; i++) {
    uint64_t used = 0;
    sdk_ckpt_obs *o = &c->obs[c->nobs];
    o->name = name_at(r->obs[i].p, r->obs[i].n, &used);
    if (o->name) c->nobs++;
    if (!o->name || r->obs[i].n != used + 8)
      return CORRUPT("checkpoint '%s' is corrupt (observable record)", r->path);
    memcpy(&o->nsamples, r->obs[i].p + used, 8);
    if (o->nsamples < 0) return CORRUPT("checkpoint '%s' is corrupt (bad dimensions)", r->path);
    for (int j = 0; j < c->nobs - 1; j++)
      if (!strcmp(c->obs[j].name, o->name))
        return CORRUPT("checkpoint '%s' is corrupt (observable '%s' given twice)", r->path,
                       o->name);
  }
  return SDK_OK;
}

static sdk_err parse_one_ds(const span *s, sdk_ckpt_ds *d, const records *r, sdk_errbuf *eb) {
  uint64_t used = 0, count = 1, want;
  if (!(d->path = name_at(s->p, s->n, &used)) || s->n - used < 2)
    return CORRUPT("checkpoint '%s' is corrupt (dataset record)", r->path);
  d->type = (unsigned char)s->p[used];
  d->rank = (unsigned char)s->p[used + 1];
  used += 2;
  if (d->type > 2 || d->rank > 8 || s->n - used < 8 * (uint64_t)d->rank)
    return CORRUPT("checkpoint '%s' is corrupt (dataset '%s')", r->path, d->path);
  memcpy(d->dims, s->p + used, 8 * (size_t)d->rank);
  used += 8 * (uint64_t)d->rank;
  for (int i = 0; i < d->rank; i++)
    if (d->dims[i] < 0 || __builtin_mul_overflow(count, (uint64_t)d->dims[i], &count))
      return CORRUPT("checkpoint '%s' is corrupt (bad dimensions)", r->path);
  if (!bytes_of(count, 1, 1, 1, &want) || s->n - used != want)
    return CORRUPT("checkpoint '%s' is corrupt (dataset '%s' has the wrong size)", r->path,
                   d->path);
  span data = {s->p + used, want};
  return copy_array(&data, want, &d->data, r, "OBSD", eb);
}

static sdk_err parse_datasets(const records *r, sdk_ckpt *c, sdk_errbuf *eb) {
  if (r->nds && !(c->ds = calloc((size_t)r->nds, sizeof *c->ds)))
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory reading checkpoint '%s'", r->path);
  for (int i = 0; i < r->nds; i++) {
    c->nds++;
    SDK_CHECK(parse_one_ds(&r->ds[i], &c->ds[i], r, eb));
    for (int j = 0; j < i; j++)
      if (!strcmp(c->ds[j].path, c->ds[i].path))
        return CORRUPT("checkpoint '%s' is corrupt (dataset '%s' given twice)", r->path,
                       c->ds[i].path);
  }
  return SDK_OK;
}

sdk_err sdk_ckpt_parse(const void *data, size_t len, const char *path, sdk_ckpt **out,
                       sdk_errbuf *eb) {
  *out = NULL;
  records r = {.path = path};
  sdk_ckpt *c = calloc(1, sizeof *c);
  sdk_err err = c ? SDK_OK : SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  if (err == SDK_OK) err = scan_records(data, len, &r, eb);
  if (err == SDK_OK) err = parse_identity(&r, c, eb);
  if (err == SDK_OK) err = parse_args(&r, c, eb);
  if (err == SDK_OK) err = parse_state(&r, c, eb);
  if (err == SDK_OK) err = parse_obs(&r, c, eb);
  /* a run in batches of paths (sim/target.c): the carried reductions and the
   * driver's state, checked by their readers (sdk_carry_unpack, target.c) */
  if (err == SDK_OK && r.f[R_CARY].p)
    err = copy_array(&r.f[R_CARY], r.f[R_CARY].n, &c->carry, &r, "CARY", eb);
  if (err == SDK_OK && r.f[R_CARY].p) c->ncarry = r.f[R_CARY].n;
  if (err == SDK_OK && r.f[R_TGTS].p)
    err = copy_array(&r.f[R_TGTS], r.f[R_TGTS].n, &c->target, &r, "TGTS", eb);
  if (err == SDK_OK && r.f[R_TGTS].p) c->ntarget = r.f[R_TGTS].n;
  if (err == SDK_OK) err = parse_datasets(&r, c, eb);
  free(r.obs);
  free(r.ds);
  if (err != SDK_OK) {
    sdk_ckpt_destroy(&c);
    return err;
  }
  *out = c;
  return SDK_OK;
}
#undef CORRUPT

sdk_err sdk_ckpt_read(const char *path, sdk_ckpt **out, sdk_errbuf *eb) {
  *out = NULL;
  /* O_NONBLOCK: opening a FIFO must not wait for a writer */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "cannot read checkpoint '%s': %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return SDK_FAIL(eb, SDK_ERR_USAGE, "cannot read checkpoint '%s': not a regular file", path);
  }
  if ((uint64_t)st.st_size > SDK_CKPT_MAX_BYTES) {
    close(fd);
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "checkpoint '%s' is larger than the limit of %llu bytes (SDK_CKPT_MAX_BYTES)",
                    path, (unsigned long long)SDK_CKPT_MAX_BYTES);
  }
  size_t len = (size_t)st.st_size;
  char *buf = malloc(len ? len : 1);
  if (!buf) {
    close(fd);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory reading checkpoint '%s'", path);
  }
  size_t got = 0;
  while (got < len) {
    ssize_t r = read(fd, buf + got, len - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  sdk_err err = sdk_ckpt_parse(buf, got, path, out, eb);
  free(buf);
  return err;
}
