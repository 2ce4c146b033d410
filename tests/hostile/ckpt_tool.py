#!/usr/bin/env python3
"""Edit an sdekit checkpoint the way an attacker can: change, drop or add
records, then recompute the (unkeyed) checksum.  Used by h_ckpt_*.sh.

usage: ckpt_tool.py IN OUT OP...
  set:TAG=TEXT       replace a record's payload by TEXT (\\0 for NUL)
  setfile:TAG=PATH   ... by the bytes of PATH
  argv:A|B|C         replace the stored arguments
  drop:TAG           remove a record (every one with that tag)
  dropds:PREFIX      remove the dataset records (OBSD) whose path starts with PREFIX
  cutds:PREFIX       drop the last 8 bytes of the first such dataset record
  dims:I=V           set entry I of the DIMS record (int64: step, nvars, ngrid,
                     paths per grid point, samples, drift mark)
  u32fmt:V           set the format number
  nohash             do not recompute the checksum
"""
import struct
import sys

M = (1 << 64) - 1


def sdk_hash(b):
    h1, h2 = 0xCBF29CE484222325, 0x84222325CBF29CE4
    for c in b:
        h1 = ((h1 ^ c) * 0x100000001B3) & M
        h2 = ((h2 ^ c) * 0x00000100000001B3) & M
        h2 ^= h2 >> 29
    h1 ^= h1 >> 33
    h1 = (h1 * 0xFF51AFD7ED558CCD) & M
    h1 ^= h1 >> 33
    h2 ^= h2 >> 31
    h2 = (h2 * 0xC4CEB9FE1A85EC53) & M
    h2 ^= h2 >> 33
    return ("%016x%016x" % (h1, h2)).encode()


def main():
    src, dst, ops = sys.argv[1], sys.argv[2], sys.argv[3:]
    b = open(src, "rb").read()
    head, pos, recs = b[:12], 12, []
    while pos < len(b):
        tag = b[pos:pos + 4]
        (n,) = struct.unpack("<Q", b[pos + 4:pos + 12])
        recs.append([tag, b[pos + 12:pos + 12 + n]])
        pos += 12 + n
    recs = [r for r in recs if r[0] != b"HASH"]
    rehash = True
    for op in ops:
        kind, _, arg = op.partition(":")
        if kind == "set" or kind == "setfile":
            tag, _, val = arg.partition("=")
            tag = tag.ljust(4).encode()
            data = open(val, "rb").read() if kind == "setfile" else val.encode().replace(b"\\0", b"\0")
            found = [r for r in recs if r[0] == tag]
            if found:
                found[0][1] = data
            else:
                recs.append([tag, data])
        elif kind == "argv":
            data = b"".join(a.encode() + b"\0" for a in arg.split("|"))
            [r for r in recs if r[0] == b"ARGV"][0][1] = data
        elif kind == "drop":
            recs = [r for r in recs if r[0] != arg.ljust(4).encode()]
        elif kind == "dims":
            i, _, v = arg.partition("=")
            r = [r for r in recs if r[0] == b"DIMS"][0]
            d = list(struct.unpack("<6q", r[1]))
            d[int(i)] = int(v)
            r[1] = struct.pack("<6q", *d)
        elif kind == "dropds" or kind == "cutds":
            def ds_path(data):
                (n,) = struct.unpack("<H", data[:2])
                return data[2:2 + n].decode()
            hits = [r for r in recs if r[0] == b"OBSD" and ds_path(r[1]).startswith(arg)]
            if not hits:
                sys.exit("no dataset record " + arg)
            if kind == "dropds":
                recs = [r for r in recs if not any(r is h for h in hits)]
            else:
                hits[0][1] = hits[0][1][:-8]
        elif kind == "u32fmt":
            head = head[:8] + struct.pack("<I", int(arg))
        elif kind == "nohash":
            rehash = False
        else:
            sys.exit("unknown op " + op)
    out = bytearray(head)
    for tag, data in recs:
        out += tag + struct.pack("<Q", len(data)) + data
    if rehash:
        out += b"HASH" + struct.pack("<Q", 32) + sdk_hash(bytes(out))
    open(dst, "wb").write(out)


if __name__ == "__main__":  # (h_ckpt_records.sh imports sdk_hash)
    main()
