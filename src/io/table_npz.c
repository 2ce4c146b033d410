/* Named columns from a NumPy .npz (io/table.h): a zip archive of .npy
 * members, each a column named by its member's name (or a structured array,
 * its fields).  Members stored (np.savez: their values read where a slice
 * asks, like a .npy's, never held) or deflated (np.savez_compressed: zlib,
 * which HDF5 links too; unpacked at the opening and held); the archive is
 * untrusted: every offset and size is checked against the bytes there, the
 * unpacked size is bounded before anything is allocated, ZIP64, encryption
 * and other methods are refused. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "io/table_internal.h"

/* a member may unpack to at most this (the table's cap, plus a header) */
#define NPZ_MAX_MEMBER ((uint64_t)SDK_TABLE_MAX_VALUES * 8 + (1u << 20))

static uint32_t le16(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}
static uint32_t le32(const unsigned char *p) {
  return le16(p) | le16(p + 2) << 16;
}

/* deflated member data (csize bytes at d) unpacked to exactly usize bytes
 * in *out */
static sdk_err inflate_member(const unsigned char *d, uint32_t csize, uint32_t usize,
                              const char *label, const char *member, unsigned char **out,
                              sdk_errbuf *eb) {
  if (usize > NPZ_MAX_MEMBER || (uint64_t)usize > (uint64_t)csize * 1032 + 64)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: member '%s' declares an impossible size", label,
                    member);
  unsigned char *b = malloc(usize ? usize : 1);
  if (!b) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  z_stream z;
  memset(&z, 0, sizeof z);
  int ok = inflateInit2(&z, -MAX_WBITS) == Z_OK;
  if (ok) {
    z.next_in = (Bytef *)d, z.avail_in = csize;
    z.next_out = b, z.avail_out = usize;
    int r = inflate(&z, Z_FINISH);
    ok = r == Z_STREAM_END && z.total_out == usize;
    inflateEnd(&z);
  }
  if (!ok) {
    free(b);
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: member '%s' does not unpack to its declared size",
                    label, member);
  }
  *out = b;
  return SDK_OK;
}

/* one central-directory entry at `at` of the directory cd[0..len) read:
 * its member's .npy layout (a stored member's values stay in the file, a
 * deflated one is unpacked into m->own), its columns added to t; *next: the
 * next entry */
static sdk_err member(const sdk_bytes *b, const unsigned char *cd, size_t len, size_t at,
                      const char *label, sdk_npz_member *m, sdk_table *t, size_t *next,
                      sdk_errbuf *eb) {
  const unsigned char *p = cd + at;
  if (len - at < 46 || le32(p) != 0x02014b50)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: a damaged zip directory", label);
  uint32_t flags = le16(p + 8), method = le16(p + 10), csize = le32(p + 20), usize = le32(p + 24),
           nlen = le16(p + 28), xlen = le16(p + 30), clen = le16(p + 32), loc = le32(p + 42);
  if ((size_t)nlen + xlen + clen > len - at - 46)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: a damaged zip directory", label);
  *next = at + 46 + nlen + xlen + clen;
  char name[205];
  if (nlen < 5 || nlen > 200 || memcmp(p + 46 + nlen - 4, ".npy", 4))
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "%s: a member that is not NAME.npy (%u bytes of name): not an .npz of arrays",
                    label, nlen);
  memcpy(name, p + 46, nlen);
  name[nlen] = 0;
  if (memchr(name, 0, nlen))
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: a member's name holds a NUL byte", label);
  if (flags & 1) return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: member '%s' is encrypted", label, name);
  if (csize == 0xffffffffu || usize == 0xffffffffu || loc == 0xffffffffu)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: member '%s' is ZIP64 (over 4 GiB): not read", label,
                    name);
  unsigned char lh[30];
  if (loc > b->len || b->len - loc < 30 || sdk_bytes_read(b, loc, 30, lh, label, eb) != SDK_OK ||
      le32(lh) != 0x04034b50)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: member '%s' has no local header", label, name);
  size_t data = (size_t)loc + 30 + le16(lh + 26) + le16(lh + 28);
  if (data > b->len || b->len - data < csize)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: member '%s' runs past the end of the file", label,
                    name);
  if (method != 0 && method != 8)
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "%s: member '%s' is compressed by method %u (stored and deflated only)", label,
                    name, method);
  if (method == 0 && csize != usize)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: member '%s' declares an impossible size", label, name);
  /* a stored member: its header read (at most 12 bytes and 1 MiB), its
   * values left in the file; else the member unpacked whole */
  size_t hl = usize < 12 + (1u << 20) ? usize : 12 + (1u << 20);
  unsigned char *head = NULL;
  sdk_err e = SDK_OK;
  if (method == 0) {
    head = malloc(hl ? hl : 1);
    if (!head) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    e = sdk_bytes_read(b, data, hl, head, label, eb);
    m->b = *b;
  } else {
    unsigned char *d = malloc(csize ? csize : 1);
    if (!d) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
    e = sdk_bytes_read(b, data, csize, d, label, eb);
    if (e == SDK_OK) e = inflate_member(d, csize, usize, label, name, &m->own, eb);
    free(d);
    m->b = (sdk_bytes){.mem = m->own, .len = usize, .fd = -1};
    head = m->own, hl = usize, data = 0;
  }
  name[nlen - 4] = 0; /* the column's name: the member's less ".npy" */
  if (e == SDK_OK && !(m->h = malloc(sizeof *m->h)))
    e = SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  if (e == SDK_OK) e = sdk_npy_layout(head, hl, usize, label, name, m->h, eb);
  if (method == 0) free(head);
  if (e != SDK_OK) return e;
  m->h->data += data; /* (the member's offset in the file) */
  if (t->n && (m->h->ngrid != t->ngrid || m->h->count != t->count))
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "%s: array '%s' has a shape other than '%s's (every array: [paths], or [grid "
                    "points][paths], alike)",
                    label, name, t->names[0]);
  t->ngrid = m->h->ngrid, t->count = m->h->count;
  int64_t total = (t->ngrid ? t->ngrid : 1) * t->count;
  for (int k = 0; k < (m->h->nfield ? m->h->nfield : 1); k++)
    SDK_CHECK(sdk_table_add(t, label, m->h->field[k], total, NULL, eb));
  return SDK_OK;
}

sdk_err sdk_npz_open(const sdk_bytes *b, const char *label, sdk_npz *z, sdk_table *t,
                     sdk_errbuf *eb) {
  memset(z, 0, sizeof *z);
  /* the end-of-directory record: in the last 64 KiB + 22 bytes */
  size_t len = b->len, tail = len < 65535 + 22 ? len : 65535 + 22, base = len - tail;
  unsigned char *buf = malloc(tail ? tail : 1);
  if (!buf) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  sdk_err e = sdk_bytes_read(b, base, tail, buf, label, eb);
  size_t end = tail >= 22 ? tail - 22 : 0;
  for (; e == SDK_OK; end--) {
    if (tail >= 22 && le32(buf + end) == 0x06054b50) break;
    if (end == 0 || tail < 22)
      e = SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: a zip (.npz) without its directory", label);
  }
  uint32_t n = 0, size = 0, off = 0;
  if (e == SDK_OK)
    n = le16(buf + end + 10), size = le32(buf + end + 12), off = le32(buf + end + 16);
  free(buf);
  SDK_CHECK(e);
  end += base; /* (the record's offset in the file) */
  if (n == 0xffff || off == 0xffffffffu)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: a ZIP64 archive: not read", label);
  if (n == 0) return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: an empty .npz", label);
  if (off > end || size > end - off)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: a damaged zip directory", label);
  unsigned char *cd = malloc(size ? size : 1);
  z->m = calloc(n, sizeof *z->m);
  if (!cd || !z->m) return free(cd), SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  e = sdk_bytes_read(b, off, size, cd, label, eb);
  size_t at = 0;
  for (uint32_t k = 0; e == SDK_OK && k < n; k++) {
    int had = t->n;
    e = member(b, cd, size, at, label, &z->m[k], t, &at, eb);
    z->n = (int)k + 1;
    for (int c = had; c < t->n && c < SDK_TABLE_MAX_COLUMNS; c++)
      z->col_member[c] = (int)k, z->col_field[c] = c - had;
  }
  free(cd);
  return e;
}

sdk_err sdk_npz_slice(const sdk_npz *z, int k, int64_t first, int64_t n, double *out,
                      const char *label, sdk_errbuf *eb) {
  const sdk_npz_member *m = &z->m[z->col_member[k]];
  return sdk_npy_slice(m->h, &m->b, z->col_field[k], first, n, out, label, eb);
}

void sdk_npz_free(sdk_npz *z) {
  for (int k = 0; z->m && k < z->n; k++)
    free(z->m[k].h), free(z->m[k].own);
  free(z->m);
  memset(z, 0, sizeof *z);
}
