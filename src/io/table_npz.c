/* Named columns from a NumPy .npz (io/table.h): a zip archive of .npy
 * members, each a column named by its member's name (or a structured array,
 * its fields).  Members stored or deflated (zlib, which HDF5 links too);
 * the archive is untrusted: every offset and size is checked against the
 * bytes there, the unpacked size is bounded before anything is allocated,
 * ZIP64, encryption and other methods are refused. */
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

/* member data (csize bytes at d) unpacked to exactly usize bytes in *out */
static sdk_err unpack(const unsigned char *d, uint32_t csize, uint32_t usize, int method,
                      const char *label, const char *member, unsigned char **out, sdk_errbuf *eb) {
  if (method != 0 && method != 8)
    return SDK_FAIL(eb, SDK_ERR_FORMAT,
                    "%s: member '%s' is compressed by method %d (stored and deflated only)", label,
                    member, method);
  if (usize > NPZ_MAX_MEMBER || (method == 0 && csize != usize) ||
      (method == 8 && (uint64_t)usize > (uint64_t)csize * 1032 + 64))
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: member '%s' declares an impossible size", label,
                    member);
  unsigned char *b = malloc(usize ? usize : 1);
  if (!b) return SDK_FAIL(eb, SDK_ERR_NOMEM, "out of memory");
  if (method == 0) {
    memcpy(b, d, usize);
    *out = b;
    return SDK_OK;
  }
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

/* one central-directory entry at p (within [buf, buf + len)) read and
 * parsed into t; *next: the next entry */
static sdk_err member(const unsigned char *buf, size_t len, size_t at, const char *label,
                      sdk_table *t, size_t *next, sdk_errbuf *eb) {
  const unsigned char *p = buf + at;
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
  if (loc > len || len - loc < 30 || le32(buf + loc) != 0x04034b50)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: member '%s' has no local header", label, name);
  size_t data = (size_t)loc + 30 + le16(buf + loc + 26) + le16(buf + loc + 28);
  if (data > len || len - data < csize)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: member '%s' runs past the end of the file", label,
                    name);
  unsigned char *npy = NULL;
  SDK_CHECK(unpack(buf + data, csize, usize, (int)method, label, name, &npy, eb));
  name[nlen - 4] = 0; /* the column's name: the member's less ".npy" */
  int64_t ng = t->ngrid, cnt = t->count;
  int had = t->n;
  sdk_err e = sdk_table_npy(npy, usize, label, name, t, eb);
  free(npy);
  if (e == SDK_OK && had && (t->ngrid != ng || t->count != cnt))
    e = SDK_FAIL(eb, SDK_ERR_FORMAT,
                 "%s: array '%s' has a shape other than '%s's (every array: [paths], or [grid "
                 "points][paths], alike)",
                 label, name, t->names[0]);
  return e;
}

sdk_err sdk_table_npz(const unsigned char *buf, size_t len, const char *label, sdk_table *t,
                      sdk_errbuf *eb) {
  /* the end-of-directory record: in the last 64 KiB + 22 bytes */
  size_t end = len >= 22 ? len - 22 : 0, stop = end > 65535 ? end - 65535 : 0;
  for (;; end--) {
    if (len >= 22 && le32(buf + end) == 0x06054b50) break;
    if (end == stop || len < 22)
      return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: a zip (.npz) without its directory", label);
  }
  const unsigned char *e = buf + end;
  uint32_t n = le16(e + 10), size = le32(e + 12), off = le32(e + 16);
  if (n == 0xffff || off == 0xffffffffu)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: a ZIP64 archive: not read", label);
  if (n == 0) return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: an empty .npz", label);
  if (off > end || size > end - off)
    return SDK_FAIL(eb, SDK_ERR_FORMAT, "%s: a damaged zip directory", label);
  size_t at = off;
  for (uint32_t k = 0; k < n; k++)
    SDK_CHECK(member(buf, off + size, at, label, t, &at, eb));
  return SDK_OK;
}
