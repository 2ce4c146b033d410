#include "sim/checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "codegen/codegen.h"
#include "core/strbuf.h"

void sdk_ckpt_destroy(sdk_ckpt **cp) {
  if (!cp || !*cp) return;
  sdk_ckpt *c = *cp;
  free(c->version);
  for (int i = 0; i < c->argc; i++)
    free(c->argv[i]);
  free(c->argv);
  free(c->model_text);
  free(c->model_path);
  free(c->state);
  free(c->sample_step);
  free(c->mean);
  free(c->var);
  free(c->paths);
  free(c->dlo);
  free(c->dhi);
  free(c->dP);
  free(c->dunder);
  free(c->ord_step);
  free(c->ord_r);
  free(c->ord_err);
  free(c->ord_psi);
  free(c->dover);
  free(c);
  *cp = NULL;
}

static void rec(sdk_strbuf *b, const char tag[4], const void *data, uint64_t n) {
  sdk_sb_putn(b, tag, 4);
  sdk_sb_putn(b, (const char *)&n, 8);
  if (n) sdk_sb_putn(b, data, (size_t)n);
}

sdk_err sdk_ckpt_write(const sdk_ckpt *c, const char *path, sdk_errbuf *eb) {
  sdk_strbuf b;
  sdk_sb_init(&b);
  uint32_t fmt = SDK_CKPT_FORMAT;
  sdk_sb_putn(&b, "SDEKITCP", 8);
  sdk_sb_putn(&b, (const char *)&fmt, 4);
  rec(&b, "VERS", c->version, strlen(c->version));
  rec(&b, "ABI ", &c->abi, 8);
  sdk_strbuf av;
  sdk_sb_init(&av);
  for (int i = 0; i < c->argc; i++)
    sdk_sb_putn(&av, c->argv[i], strlen(c->argv[i]) + 1);
  rec(&b, "ARGV", av.s ? av.s : "", av.len);
  sdk_sb_free(&av);
  rec(&b, "MTXT", c->model_text, strlen(c->model_text));
  rec(&b, "MPTH", c->model_path, strlen(c->model_path));
  int64_t dims[8] = {c->step,   c->nvars, c->ngrid,    c->ppg,
                     c->nsaved, c->dbins, c->nsamples, c->has_mark};
  rec(&b, "DIMS", dims, sizeof dims);
  uint64_t np = (uint64_t)(c->ngrid * c->ppg), ns = (uint64_t)c->nsamples, ng = (uint64_t)c->ngrid;
  rec(&b, "STAT", c->state, (uint64_t)(c->nvars + 1) * np * 8);
  rec(&b, "SSTP", c->sample_step, ns * 8);
  if (c->mean) rec(&b, "MEAN", c->mean, ng * ns * (uint64_t)c->nvars * 8);
  if (c->var) rec(&b, "VARI", c->var, ng * ns * (uint64_t)c->nvars * 8);
  if (c->paths) rec(&b, "PATH", c->paths, ng * (uint64_t)c->nsaved * ns * (uint64_t)c->nvars * 8);
  if (c->dP) {
    rec(&b, "DLO ", c->dlo, ng * ns * 8);
    rec(&b, "DHI ", c->dhi, ng * ns * 8);
    rec(&b, "DP  ", c->dP, ng * ns * (uint64_t)c->dbins * 8);
    rec(&b, "DUND", c->dunder, ng * ns * 8);
    rec(&b, "DOVR", c->dover, ng * ns * 8);
  }
  if (c->ord_step) {
    uint64_t no = (uint64_t)c->nord;
    rec(&b, "ONUM", &c->nord, 8);
    rec(&b, "OSTP", c->ord_step, no * 8);
    rec(&b, "ORR ", c->ord_r, ng * no * 8);
    rec(&b, "ORE ", c->ord_err, ng * no * 8);
    rec(&b, "OPSI", c->ord_psi, ng * no * 8);
  }
  if (b.oom) {
    sdk_sb_free(&b);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory writing checkpoint");
  }
  char hash[33];
  sdk_hash_hex(b.s, b.len, hash);
  rec(&b, "HASH", hash, 32);
  if (b.oom) {
    sdk_sb_free(&b);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory writing checkpoint");
  }
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    sdk_sb_free(&b);
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot write checkpoint '%s': %s", path, strerror(errno));
  }
  size_t off = 0, total = b.len;
  while (off < total) {
    ssize_t w = write(fd, b.s + off, total - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      break;
    }
    off += (size_t)w;
  }
  sdk_sb_free(&b);
  if (off != total) {
    int e = errno;
    close(fd);
    unlink(tmp);
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot write checkpoint '%s': %s", path, strerror(e));
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    unlink(tmp);
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot write checkpoint '%s': %s", path, strerror(errno));
  }
  if (rename(tmp, path) != 0) {
    unlink(tmp);
    return SDK_FAIL(eb, SDK_ERR_IO, "cannot write checkpoint '%s': %s", path, strerror(errno));
  }
  return SDK_OK;
}

typedef struct {
  const char *p, *end;
} rd;

static int take(rd *r, void *out, size_t n) {
  if ((size_t)(r->end - r->p) < n) return 0;
  memcpy(out, r->p, n);
  r->p += n;
  return 1;
}

static void *dup_bytes(const char *p, uint64_t n, int nul) {
  char *d = malloc((size_t)n + (nul ? 1 : 0) + 1);
  if (!d) return NULL;
  memcpy(d, p, (size_t)n);
  if (nul) d[n] = 0;
  return d;
}

/* 8 * a * b * c * d bytes, or UINT64_MAX (never a record's size) on overflow. */
static uint64_t rec_bytes(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  uint64_t r = 8, f[4] = {a, b, c, d};
  for (int i = 0; i < 4; i++)
    if (r != UINT64_MAX && __builtin_mul_overflow(r, f[i], &r)) r = UINT64_MAX;
  return r;
}

sdk_err sdk_ckpt_read(const char *path, sdk_ckpt **out, sdk_errbuf *eb) {
  *out = NULL;
  size_t len = 0;
  char *buf = sdk_read_file(path, &len);
  if (!buf)
    return SDK_FAIL(eb, SDK_ERR_USAGE, "cannot read checkpoint '%s': %s", path, strerror(errno));
  sdk_err err = SDK_OK;
  sdk_ckpt *c = calloc(1, sizeof *c);
  if (!c) {
    free(buf);
    return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  }
  rd r = {buf, buf + len};
  char magic[8];
  uint32_t fmt = 0;
  if (!take(&r, magic, 8) || memcmp(magic, "SDEKITCP", 8) != 0) {
    err = SDK_FAIL(eb, SDK_ERR_FORMAT, "'%s' is not an sdekit checkpoint", path);
    goto fail;
  }
  if (!take(&r, &fmt, 4) || fmt != SDK_CKPT_FORMAT) {
    err = SDK_FAIL(eb, SDK_ERR_FORMAT, "checkpoint '%s' has format %u; this sdekit reads format %d",
                   path, fmt, SDK_CKPT_FORMAT);
    goto fail;
  }
  int hashed = 0, have_dims = 0;
  int64_t dims[8] = {0};
  struct {
    const char *p;
    uint64_t n;
  } f[24];
  memset(f, 0, sizeof f);
  static const char *const TAGS[] = {"VERS", "ABI ", "ARGV", "MTXT", "MPTH", "STAT", "SSTP",
                                     "MEAN", "VARI", "PATH", "DLO ", "DHI ", "DP  ", "DUND",
                                     "DOVR", "ONUM", "OSTP", "ORR ", "ORE ", "OPSI", NULL};
  while (r.p < r.end) {
    const char *rec_start = r.p;
    char tag[4];
    uint64_t n;
    if (!take(&r, tag, 4) || !take(&r, &n, 8) || n > (uint64_t)(r.end - r.p)) {
      err = SDK_FAIL(eb, SDK_ERR_FORMAT, "checkpoint '%s' is truncated or corrupt", path);
      goto fail;
    }
    if (!memcmp(tag, "HASH", 4)) {
      char want[33], got[33];
      sdk_hash_hex(buf, (size_t)(rec_start - buf), want);
      if (n != 32 || (memcpy(got, r.p, 32), got[32] = 0, strcmp(want, got) != 0)) {
        err = SDK_FAIL(eb, SDK_ERR_FORMAT, "checkpoint '%s' is corrupt (checksum mismatch)", path);
        goto fail;
      }
      r.p += n;
      hashed = 1;
      break;
    }
    if (!memcmp(tag, "DIMS", 4)) {
      if (n != sizeof dims) {
        err = SDK_FAIL(eb, SDK_ERR_FORMAT, "checkpoint '%s' is corrupt", path);
        goto fail;
      }
      memcpy(dims, r.p, sizeof dims);
      have_dims = 1;
    } else {
      for (int i = 0; TAGS[i]; i++)
        if (!memcmp(tag, TAGS[i], 4)) f[i].p = r.p, f[i].n = n;
    }
    r.p += n;
  }
  if (!hashed || r.p != r.end || !have_dims || !f[0].p || !f[1].p || !f[2].p || !f[3].p ||
      !f[5].p || !f[6].p) {
    err = SDK_FAIL(eb, SDK_ERR_FORMAT, "checkpoint '%s' is truncated or corrupt", path);
    goto fail;
  }
  c->version = dup_bytes(f[0].p, f[0].n, 1);
  memcpy(&c->abi, f[1].p, 8);
  if (strcmp(c->version, SDK_VERSION) != 0 || c->abi != SDK_KERNEL_ABI) {
    err = SDK_FAIL(eb, SDK_ERR_FORMAT,
                   "checkpoint '%s' was written by sdekit %s (kernel ABI %lld); this is sdekit %s "
                   "(ABI %d): finish it with that version",
                   path, c->version, (long long)c->abi, SDK_VERSION, SDK_KERNEL_ABI);
    goto fail;
  }
  /* arguments: NUL-separated */
  for (uint64_t i = 0; i < f[2].n; i++)
    c->argc += f[2].p[i] == 0;
  c->argv = calloc((size_t)c->argc + 1, sizeof *c->argv);
  if (!c->argv) goto oom;
  {
    const char *p = f[2].p;
    for (int i = 0; i < c->argc; i++) {
      size_t l = strlen(p);
      if (!(c->argv[i] = sdk_strdup(p))) goto oom;
      p += l + 1;
    }
  }
  c->model_text = dup_bytes(f[3].p, f[3].n, 1);
  c->model_path = f[4].p ? dup_bytes(f[4].p, f[4].n, 1) : sdk_strdup("");
  c->step = dims[0], c->nvars = dims[1], c->ngrid = dims[2], c->ppg = dims[3];
  c->nsaved = dims[4], c->dbins = dims[5], c->nsamples = dims[6], c->has_mark = dims[7];
  if (c->nvars < 1 || c->ngrid < 1 || c->ppg < 1 || c->nsamples < 0 || c->nsaved < 0 ||
      c->dbins < 0 || c->step < 0) {
    err = SDK_FAIL(eb, SDK_ERR_FORMAT, "checkpoint '%s' is corrupt (bad dimensions)", path);
    goto fail;
  }
  if (f[15].p) {
    if (f[15].n != 8 || !f[16].p || !f[17].p || !f[18].p || !f[19].p) {
      err = SDK_FAIL(eb, SDK_ERR_FORMAT, "checkpoint '%s' is corrupt (order parameter)", path);
      goto fail;
    }
    memcpy(&c->nord, f[15].p, 8);
    if (c->nord < 0 || c->nord > (int64_t)(f[16].n / 8)) {
      err = SDK_FAIL(eb, SDK_ERR_FORMAT, "checkpoint '%s' is corrupt (bad dimensions)", path);
      goto fail;
    }
  }
  /* Record sizes from the dimensions, saturating: dimensions whose product
   * overflows must not wrap around to the size of a small record. */
  uint64_t ng = (uint64_t)c->ngrid, ppg = (uint64_t)c->ppg, ns = (uint64_t)c->nsamples,
           nv = (uint64_t)c->nvars, nsv = (uint64_t)c->nsaved, nb = (uint64_t)c->dbins,
           no = (uint64_t)c->nord;
  struct {
    int idx;
    void **dst;
    uint64_t want;
  } arrays[] = {{5, (void **)&c->state, rec_bytes(nv + 1, ng, ppg, 1)},
                {6, (void **)&c->sample_step, rec_bytes(ns, 1, 1, 1)},
                {7, (void **)&c->mean, rec_bytes(ng, ns, nv, 1)},
                {8, (void **)&c->var, rec_bytes(ng, ns, nv, 1)},
                {9, (void **)&c->paths, rec_bytes(ng, nsv, ns, nv)},
                {10, (void **)&c->dlo, rec_bytes(ng, ns, 1, 1)},
                {11, (void **)&c->dhi, rec_bytes(ng, ns, 1, 1)},
                {12, (void **)&c->dP, rec_bytes(ng, ns, nb, 1)},
                {13, (void **)&c->dunder, rec_bytes(ng, ns, 1, 1)},
                {14, (void **)&c->dover, rec_bytes(ng, ns, 1, 1)},
                {16, (void **)&c->ord_step, rec_bytes(no, 1, 1, 1)},
                {17, (void **)&c->ord_r, rec_bytes(ng, no, 1, 1)},
                {18, (void **)&c->ord_err, rec_bytes(ng, no, 1, 1)},
                {19, (void **)&c->ord_psi, rec_bytes(ng, no, 1, 1)}};
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) {
    if (!f[arrays[i].idx].p) continue;
    if (f[arrays[i].idx].n != arrays[i].want) {
      err = SDK_FAIL(eb, SDK_ERR_FORMAT, "checkpoint '%s' is corrupt (a record has the wrong size)",
                     path);
      goto fail;
    }
    if (!(*arrays[i].dst = dup_bytes(f[arrays[i].idx].p, arrays[i].want, 0))) goto oom;
  }
  if (!c->model_text || !c->model_path) goto oom;
  free(buf);
  *out = c;
  return SDK_OK;
oom:
  err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory reading checkpoint '%s'", path);
fail:
  free(buf);
  sdk_ckpt_destroy(&c);
  return err;
}
