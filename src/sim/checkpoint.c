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

static const char *str_or_empty(const char *s) {
  return s ? s : "";
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
  int64_t dims[8] = {c->step,   c->nvars, c->ngrid,    c->ppg,
                     c->nsaved, c->dbins, c->nsamples, c->has_mark};
  rec(&b, "DIMS", dims, sizeof dims);
  uint64_t np = (uint64_t)c->ngrid * (uint64_t)c->ppg, ns = (uint64_t)c->nsamples,
           ng = (uint64_t)c->ngrid;
  rec(&b, "STAT", c->state, (uint64_t)(c->nvars + 1) * np * 8);
  if (c->comp) rec(&b, "COMP", c->comp, (uint64_t)c->ncomp * np * 8);
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
  /* next to the target, made fresh, synced, renamed (core/atomicfile.h) */
  sdk_err err = SDK_OK;
  if (sdk_atomic_write(path, b.s, b.len, 0, NULL) != SDK_OK)
    err = SDK_FAIL(eb, SDK_ERR_IO, "cannot write checkpoint '%s': %s", path, strerror(errno));
  sdk_sb_free(&b);
  return err;
}

/* Records the reader knows; one slot each. */
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
  R_MEAN,
  R_VARI,
  R_PATH,
  R_DLO,
  R_DHI,
  R_DP,
  R_DUND,
  R_DOVR,
  R_ONUM,
  R_OSTP,
  R_ORR,
  R_ORE,
  R_OPSI,
  R_N
};
static const char TAGS[R_N][5] = {"VERS", "ABI ", "BILD", "KHSH", "ARGV", "MTXT", "MPTH", "DIMS",
                                  "STAT", "COMP", "SSTP", "MEAN", "VARI", "PATH", "DLO ", "DHI ",
                                  "DP  ", "DUND", "DOVR", "ONUM", "OSTP", "ORR ", "ORE ", "OPSI"};

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

sdk_err sdk_ckpt_parse(const void *data, size_t len, const char *path, sdk_ckpt **out,
                       sdk_errbuf *eb) {
  *out = NULL;
  const char *buf = data;
  sdk_err err = SDK_OK;
  sdk_ckpt *c = calloc(1, sizeof *c);
  if (!c) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
#define CORRUPT(...)                                                                               \
  do {                                                                                             \
    err = SDK_FAIL(eb, SDK_ERR_FORMAT, __VA_ARGS__);                                               \
    goto fail;                                                                                     \
  } while (0)
  uint32_t fmt = 0;
  if (len < 8 || memcmp(buf, "SDEKITCP", 8) != 0) CORRUPT("'%s' is not an sdekit checkpoint", path);
  if (len < 12) CORRUPT("checkpoint '%s' is truncated or corrupt", path);
  memcpy(&fmt, buf + 8, 4);
  if (fmt != SDK_CKPT_FORMAT)
    CORRUPT("checkpoint '%s' has format %u; this sdekit (%s) reads format %d: finish it with the "
            "sdekit that wrote it",
            path, fmt, SDK_VERSION, SDK_CKPT_FORMAT);
  struct {
    const char *p;
    uint64_t n;
  } f[R_N];
  memset(f, 0, sizeof f);
  size_t pos = 12;
  int hashed = 0;
  while (pos < len) {
    size_t rec_start = pos;
    char tag[4];
    uint64_t n;
    if (len - pos < 12) CORRUPT("checkpoint '%s' is truncated or corrupt", path);
    memcpy(tag, buf + pos, 4);
    memcpy(&n, buf + pos + 4, 8);
    pos += 12;
    if (n > len - pos) CORRUPT("checkpoint '%s' is truncated or corrupt", path);
    if (!memcmp(tag, "HASH", 4)) {
      char want[33];
      sdk_hash_hex(buf, rec_start, want);
      if (n != 32 || memcmp(want, buf + pos, 32) != 0)
        CORRUPT("checkpoint '%s' is corrupt (checksum mismatch)", path);
      pos += 32;
      hashed = 1;
      break;
    }
    int k = 0;
    while (k < R_N && memcmp(tag, TAGS[k], 4) != 0)
      k++;
    if (k == R_N) {
      char t[5];
      for (int i = 0; i < 4; i++)
        t[i] = tag[i] >= 32 && tag[i] < 127 ? tag[i] : '?';
      t[4] = 0;
      CORRUPT("checkpoint '%s' has a record '%s' this sdekit does not know", path, t);
    }
    if (f[k].p) CORRUPT("checkpoint '%s' is corrupt (record '%s' given twice)", path, TAGS[k]);
    f[k].p = buf + pos;
    f[k].n = n;
    pos += (size_t)n;
  }
  if (!hashed || pos != len) CORRUPT("checkpoint '%s' is truncated or corrupt", path);
  static const int required[] = {R_VERS, R_ABI,  R_BILD, R_KHSH, R_ARGV,
                                 R_MTXT, R_MPTH, R_DIMS, R_STAT, R_SSTP};
  for (size_t i = 0; i < sizeof required / sizeof *required; i++)
    if (!f[required[i]].p)
      CORRUPT("checkpoint '%s' is truncated or corrupt (no record '%s')", path, TAGS[required[i]]);
  /* who wrote it: version, ABI, build */
  if (f[R_VERS].n > 64 || !(c->version = dup_str(f[R_VERS].p, f[R_VERS].n)))
    CORRUPT("checkpoint '%s' is corrupt (version)", path);
  if (f[R_ABI].n != 8) CORRUPT("checkpoint '%s' is corrupt (ABI)", path);
  memcpy(&c->abi, f[R_ABI].p, 8);
  if (f[R_BILD].n > 1024 || !(c->build = dup_str(f[R_BILD].p, f[R_BILD].n)))
    CORRUPT("checkpoint '%s' is corrupt (build id)", path);
  if (strcmp(c->version, SDK_VERSION) != 0 || c->abi != SDK_KERNEL_ABI)
    CORRUPT("checkpoint '%s' was written by sdekit %s (kernel ABI %lld); this is sdekit %s "
            "(ABI %d): finish it with that version",
            path, c->version, (long long)c->abi, SDK_VERSION, SDK_KERNEL_ABI);
  if (strcmp(c->build, sdk_ckpt_build_id()) != 0)
    CORRUPT("checkpoint '%s' was written by another build of sdekit (%s; this is %s): finish it "
            "with that build",
            path, c->build, sdk_ckpt_build_id());
  if (!(c->kernel_hash = dup_str(f[R_KHSH].p, f[R_KHSH].n)) || !is_hex32(c->kernel_hash))
    CORRUPT("checkpoint '%s' is corrupt (kernel hash)", path);
  /* arguments: NUL-terminated strings, nothing after the last */
  {
    const char *p = f[R_ARGV].p;
    uint64_t n = f[R_ARGV].n;
    int64_t argc = 0;
    for (uint64_t i = 0; i < n; i++)
      argc += p[i] == 0;
    if ((n > 0 && p[n - 1] != 0) || argc > SDK_CKPT_MAX_ARGS)
      CORRUPT("checkpoint '%s' is corrupt (arguments)", path);
    c->argv = calloc((size_t)argc + 1, sizeof *c->argv);
    if (!c->argv) goto oom;
    c->argc = (int)argc;
    for (int i = 0; i < c->argc; i++) {
      size_t l = strlen(p);
      if (!(c->argv[i] = sdk_strndup(p, l))) goto oom;
      p += l + 1;
    }
  }
  if (!(c->model_text = dup_str(f[R_MTXT].p, f[R_MTXT].n)) ||
      !(c->model_path = dup_str(f[R_MPTH].p, f[R_MPTH].n)) || f[R_MPTH].n > 4096)
    CORRUPT("checkpoint '%s' is corrupt (model text or path)", path);
  /* dimensions */
  if (f[R_DIMS].n != 64) CORRUPT("checkpoint '%s' is corrupt (dimensions)", path);
  int64_t dims[8];
  memcpy(dims, f[R_DIMS].p, sizeof dims);
  c->step = dims[0], c->nvars = dims[1], c->ngrid = dims[2], c->ppg = dims[3];
  c->nsaved = dims[4], c->dbins = dims[5], c->nsamples = dims[6], c->has_mark = dims[7];
  if (c->nvars < 1 || c->nvars > SDK_CKPT_MAX_VARS || c->ngrid < 1 || c->ppg < 1 ||
      c->nsamples < 0 || c->nsaved < 0 || c->dbins < 0 || c->step < 0 ||
      (c->has_mark != 0 && c->has_mark != 1))
    CORRUPT("checkpoint '%s' is corrupt (bad dimensions)", path);
  if (f[R_ONUM].p) {
    if (f[R_ONUM].n != 8 || !f[R_OSTP].p || !f[R_ORR].p || !f[R_ORE].p || !f[R_OPSI].p)
      CORRUPT("checkpoint '%s' is corrupt (order parameter)", path);
    memcpy(&c->nord, f[R_ONUM].p, 8);
    if (c->nord < 0 || (uint64_t)c->nord > f[R_OSTP].n / 8)
      CORRUPT("checkpoint '%s' is corrupt (bad dimensions)", path);
  } else if (f[R_OSTP].p || f[R_ORR].p || f[R_ORE].p || f[R_OPSI].p) {
    CORRUPT("checkpoint '%s' is corrupt (order parameter)", path);
  }
  /* the density records come together */
  int nden = !!f[R_DLO].p + !!f[R_DHI].p + !!f[R_DP].p + !!f[R_DUND].p + !!f[R_DOVR].p;
  if ((nden != 0 && nden != 5) || (!!f[R_MEAN].p != !!f[R_VARI].p))
    CORRUPT("checkpoint '%s' is truncated or corrupt (incomplete observables)", path);
  {
    uint64_t ns = (uint64_t)c->nsamples, ng = (uint64_t)c->ngrid, nv = (uint64_t)c->nvars,
             no = (uint64_t)c->nord, np;
    if (__builtin_mul_overflow(ng, (uint64_t)c->ppg, &np))
      CORRUPT("checkpoint '%s' is corrupt (bad dimensions)", path);
    /* the carried rows of the compensated update: nvars or 2 nvars of them */
    uint64_t nc = nv;
    if (f[R_COMP].p && np > 0 && nv > 0 && f[R_COMP].n == 2 * nv * np * 8) nc = 2 * nv;
    c->ncomp = f[R_COMP].p ? (int64_t)nc : 0;
    struct {
      int idx;
      void **dst;
      uint64_t a, b, c, d;
    } arrays[] = {{R_STAT, (void **)&c->state, nv + 1, np, 1, 1},
                  {R_COMP, (void **)&c->comp, nc, np, 1, 1},
                  {R_SSTP, (void **)&c->sample_step, ns, 1, 1, 1},
                  {R_MEAN, (void **)&c->mean, ng, ns, nv, 1},
                  {R_VARI, (void **)&c->var, ng, ns, nv, 1},
                  {R_PATH, (void **)&c->paths, ng, (uint64_t)c->nsaved, ns, nv},
                  {R_DLO, (void **)&c->dlo, ng, ns, 1, 1},
                  {R_DHI, (void **)&c->dhi, ng, ns, 1, 1},
                  {R_DP, (void **)&c->dP, ng, ns, (uint64_t)c->dbins, 1},
                  {R_DUND, (void **)&c->dunder, ng, ns, 1, 1},
                  {R_DOVR, (void **)&c->dover, ng, ns, 1, 1},
                  {R_OSTP, (void **)&c->ord_step, no, 1, 1, 1},
                  {R_ORR, (void **)&c->ord_r, ng, no, 1, 1},
                  {R_ORE, (void **)&c->ord_err, ng, no, 1, 1},
                  {R_OPSI, (void **)&c->ord_psi, ng, no, 1, 1}};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) {
      int k = arrays[i].idx;
      if (!f[k].p) continue;
      uint64_t want;
      if (!bytes_of(arrays[i].a, arrays[i].b, arrays[i].c, arrays[i].d, &want) || f[k].n != want)
        CORRUPT("checkpoint '%s' is corrupt (record '%s' has the wrong size)", path, TAGS[k]);
      /* malloc(0) may return NULL: keep one byte so that "present" stays non-NULL */
      if (!(*arrays[i].dst = malloc(want ? (size_t)want : 1))) goto oom;
      if (want) memcpy(*arrays[i].dst, f[k].p, (size_t)want);
    }
  }
  if (c->nsaved > 0 && !c->paths) CORRUPT("checkpoint '%s' is corrupt (saved paths)", path);
  if (c->dbins > 0 && !c->dP) CORRUPT("checkpoint '%s' is corrupt (density)", path);
  /* sample steps: increasing, within the steps done */
  for (int64_t s = 0; s < c->nsamples; s++)
    if (c->sample_step[s] < 0 || c->sample_step[s] > c->step ||
        (s > 0 && c->sample_step[s] <= c->sample_step[s - 1]))
      CORRUPT("checkpoint '%s' is corrupt (sample steps)", path);
  for (int64_t s = 0; s < c->nord; s++)
    if (c->ord_step[s] < 0 || c->ord_step[s] > c->step ||
        (s > 0 && c->ord_step[s] <= c->ord_step[s - 1]))
      CORRUPT("checkpoint '%s' is corrupt (order-parameter steps)", path);
#undef CORRUPT
  *out = c;
  return SDK_OK;
oom:
  err = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory reading checkpoint '%s'", path);
fail:
  sdk_ckpt_destroy(&c);
  return err;
}

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
