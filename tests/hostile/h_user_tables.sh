#!/usr/bin/env bash
# Users' tables (issue 28: --init-from, --path-params; io/table.h): every
# malformed NumPy, TSV or HDF5 file, and every file that is no regular file,
# is one error line naming the file and the problem, exit 2, nothing run and
# nothing written; never a crash, a hang on a FIFO or a silent truncation.
. "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null || { echo "h5py missing: skipped"; exit 77; }
D=$T/d
mkdir -p "$D"
/usr/bin/python3 - "$D" <<'PY'
import sys, io, numpy as np, h5py
d = sys.argv[1]
def npy(name, a): np.save(f"{d}/{name}", a)
npy("complex.npy", np.zeros(4, complex))
npy("strings.npy", np.array(["a", "b"]))
npy("objects.npy", np.array([1, None], dtype=object))
npy("bools.npy", np.ones(3, bool))
npy("nan.npy", np.array([1.0, np.nan, 2.0]))
npy("inf.npy", np.array([1.0, 2.0, -np.inf]))
npy("rank3.npy", np.zeros((2, 2, 2)))
npy("scalar.npy", np.float64(3))
npy("empty.npy", np.zeros(0))
npy("subarray.npy", np.zeros(3, dtype=[("x", "<f8", (2,))]))
npy("plain.npy", np.arange(4.0))
good = open(f"{d}/plain.npy", "rb").read()
open(f"{d}/truncated.npy", "wb").write(good[:-5])
open(f"{d}/extra.npy", "wb").write(good + b"\0" * 8)
# a header declaring 2^50 values in a few bytes
h = good.replace(b"(4,)", b"(1125899906842624,)".ljust(4))
hdr = b"{'descr': '<f8', 'fortran_order': False, 'shape': (1125899906842624,), }"
hdr = hdr + b" " * (63 - len(hdr) % 64) + b"\n"
open(f"{d}/huge.npy", "wb").write(b"\x93NUMPY\x01\x00" + len(hdr).to_bytes(2, "little") + hdr)
open(f"{d}/badheader.npy", "wb").write(b"\x93NUMPY\x01\x00\x10\x00{'descr': os.sys}")
np.savez(f"{d}/ok.npz", x=np.arange(3.0))
np.savez_compressed(f"{d}/shapes.npz", x=np.arange(3.0), k=np.arange(4.0))
np.savez(f"{d}/cplx.npz", x=np.zeros(3, complex))
import zipfile
with zipfile.ZipFile(f"{d}/text.npz", "w") as z: z.writestr("x.txt", "1\n2\n")
with zipfile.ZipFile(f"{d}/bzip2.npz", "w", zipfile.ZIP_BZIP2) as z:
    z.writestr("x.npy", open(f"{d}/plain.npy", "rb").read())
raw = open(f"{d}/shapes.npz", "rb").read()
open(f"{d}/cut.npz", "wb").write(raw[: len(raw) // 2])
# a deflated member claiming to unpack to 2^31 bytes (a zip bomb's header)
z = zipfile.ZipFile(f"{d}/shapes.npz")
info = z.infolist()[0]
cd = raw.rfind(b"PK\x01\x02")
cd = raw.find(b"PK\x01\x02")
bomb = bytearray(raw)
bomb[cd + 24:cd + 28] = (2**31).to_bytes(4, "little")
open(f"{d}/bomb.npz", "wb").write(bomb)
with h5py.File(f"{d}/strings.h5", "w") as f: f["x"] = np.array([b"a", b"b"])
with h5py.File(f"{d}/shapes.h5", "w") as f: f["x"] = np.zeros(3); f["v"] = np.zeros(4)
with h5py.File(f"{d}/nan.h5", "w") as f: f["x"] = np.array([0.0, np.nan])
with h5py.File(f"{d}/softlink.h5", "w") as f:
    f["x"] = np.zeros(3); f["y"] = h5py.SoftLink("/x")
with h5py.File(f"{d}/external.h5", "w") as f: f["x"] = h5py.ExternalLink("/dev/zero", "/x")
with h5py.File(f"{d}/cplx.h5", "w") as f:
    f["t"] = np.zeros(3, dtype=[("x", "<f8"), ("v", "<c16")])
with h5py.File(f"{d}/empty.h5", "w") as f: f.create_group("g")
with h5py.File(f"{d}/rank3.h5", "w") as f: f["x"] = np.zeros((2, 2, 2))
# types whose bits HDF5 converts partly from the destination (fuzz_h5table)
def odd(path, t):
    with h5py.File(path, "w") as f:
        ds = h5py.h5d.create(f.id, b"x", t, h5py.h5s.create_simple((4,)))
        ds.write(h5py.h5s.ALL, h5py.h5s.ALL, np.arange(4.0), mtype=h5py.h5t.NATIVE_DOUBLE)
t = h5py.h5t.IEEE_F64LE.copy(); t.set_ebias(1000); odd(f"{d}/oddfloat.h5", t)
t = h5py.h5t.STD_I32LE.copy(); t.set_precision(20); odd(f"{d}/oddint.h5", t)
PY
printf '# c\nx\n1\n2\n3\n' >"$D/ok.tsv"
printf 'x\tk\n1\t2\n3\n' >"$D/ragged.tsv"
printf 'x\tk\n1\t2\t3\n' >"$D/toomany.tsv"
printf 'x\n1\nnan\n' >"$D/nan.tsv"
printf 'x\n1\n1e999\n' >"$D/inf.tsv"
printf '1\t2\n3\t4\n' >"$D/noheader.tsv"
printf 'x\tx\n1\t2\n' >"$D/twice.tsv"
printf '# only a comment\n' >"$D/nothing.tsv"
printf 'x\n' >"$D/norows.tsv"
printf 'x\n1\0\n' >"$D/nul.tsv"
mkfifo "$D/fifo"
ln -s /dev/zero "$D/zero.npy"
R=(run ou --t-end 0.1 -o "$W/r.h5")

e() { expect_error "$1" 2 "$2" "${R[@]}" --init-from "$3"; }
e "complex npy" "complex.npy: 'x' has the type '<c16'" "x=$D/complex.npy"
e "string npy" "strings.npy: 'x' has the type '<U1'" "x=$D/strings.npy"
e "object npy" "objects.npy: 'x' has the type '\|O'" "x=$D/objects.npy"
e "bool npy" "bools.npy: 'x' has the type '\|b1'" "x=$D/bools.npy"
e "NaN npy" "nan.npy: 'x' is nan at path 1" "x=$D/nan.npy"
e "Inf npy" "inf.npy: 'x' is -inf at path 2" "x=$D/inf.npy"
e "3-D npy" "rank3.npy: more than 2 dimensions" "x=$D/rank3.npy"
e "scalar npy" "scalar.npy: a single value" "x=$D/scalar.npy"
e "empty npy" "empty.npy: the shape has no values" "x=$D/empty.npy"
e "sub-array field" "subarray.npy: a malformed .npy header" "$D/subarray.npy"
e "truncated npy" "truncated.npy: the header declares 4 values \(32 bytes\) but the file holds 27" "x=$D/truncated.npy"
e "npy with bytes left over" "extra.npy: the header declares 4 values" "x=$D/extra.npy"
e "huge declared shape" "huge.npy: the shape has too many values" "x=$D/huge.npy"
e "malformed header" "badheader.npy: a (malformed|truncated) .npy header" "x=$D/badheader.npy"
e "plain npy without a name" "plain.npy: a plain array names no variable" "$D/plain.npy"
e "wrong name" "'y' is not a variable of model ou" "y=$D/plain.npy"
e "npz not of arrays" "text.npz: a member that is not NAME.npy" "$D/text.npz"
e "npz shapes differ" "shapes.npz: array '.' has a shape other than" "$D/shapes.npz"
e "npz complex" "cplx.npz: 'x' has the type '<c16'" "$D/cplx.npz"
e "npz bzip2" "bzip2.npz: member 'x.npy' is compressed by method 12" "$D/bzip2.npz"
e "npz cut short" "cut.npz: a zip \(.npz\) without its directory" "$D/cut.npz"
e "npz bomb" "bomb.npz: member '.\.npy' declares an impossible size" "$D/bomb.npz"
e "npz named" "ok.npz: NAME=FILE names the array of a plain .npy file only" "x=$D/ok.npz"
e "HDF5 strings" "strings.h5: dataset 'x' is not numbers" "$D/strings.h5"
e "HDF5 shapes differ" "shapes.h5: dataset '.' has a shape other than" "$D/shapes.h5"
e "HDF5 NaN" "nan.h5: 'x' is nan at path 1" "$D/nan.h5"
e "HDF5 soft link" "softlink.h5.*soft link" "$D/softlink.h5"
e "HDF5 external link" "external.h5.*external link" "$D/external.h5"
e "HDF5 complex field" "cplx.h5: field 'v' is not a number" "$D/cplx.h5"
e "HDF5 no datasets" "empty.h5: no datasets in the root group" "$D/empty.h5"
e "HDF5 3-D" "rank3.h5: dataset 'x' has 3 dimensions" "$D/rank3.h5"
e "HDF5 non-IEEE float" "oddfloat.h5: dataset 'x' has a floating-point type other than IEEE" "$D/oddfloat.h5"
e "HDF5 integer with padding" "oddint.h5: dataset 'x' has an integer type with padding bits" "$D/oddint.h5"
e "HDF5 missing group" "ok.h5|no group 'nope'" "$D/nan.h5:group=nope"
e "TSV ragged" "ragged.tsv:3: 1 values, the header names 2" "$D/ragged.tsv"
e "TSV too many" "toomany.tsv:2: 3 values, the header names 2" "$D/toomany.tsv"
e "TSV NaN" "nan.tsv:3: 'nan' \(column 'x'\) is not a number" "$D/nan.tsv"
e "TSV Inf" "inf.tsv:3: '1e999' \(column 'x'\) is not a number" "$D/inf.tsv"
e "TSV no header" "noheader.tsv:1: the header's column 1 is the number '1'" "$D/noheader.tsv"
e "TSV name twice" "twice.tsv: the name 'x' is given twice" "$D/twice.tsv"
e "TSV nothing" "nothing.tsv: no header line of names" "$D/nothing.tsv"
e "TSV no rows" "norows.tsv: a header but no rows of values" "$D/norows.tsv"
e "TSV NUL" "nul.tsv: not a text file" "$D/nul.tsv"
e "grid of 1-D data" "ok.tsv: grid=1 asked, but the columns have one value per path" "$D/ok.tsv:grid=1"
expect_error "paths disagree" 2 "3 values per name, but the run has 5 paths" "${R[@]}" \
  --init-from "$D/ok.tsv" --paths 5
expect_error "missing file" 1 "cannot read '.*nope.npy': No such file" "${R[@]}" \
  --init-from "x=$D/nope.npy"
e "directory" "is not a regular file" "$D"
e "symlink to a device" "zero.npy' is not a regular file" "x=$D/zero.npy"
# a FIFO: refused at once, not waited on
start=$SECONDS
expect_error "FIFO" 2 "fifo' is not a regular file" "${R[@]}" --init-from "x=$D/fifo"
check "FIFO refused at once" test $((SECONDS - start)) -lt 10
expect_error "path-params checked" 2 "--path-params: 'nope' is no parameter of model 'ou'" \
  "${R[@]}" --path-params "nope=$D/plain.npy"
expect_error "save-final to TSV only" 2 "--save-final writes final/VAR to an HDF5 result" \
  run ou --t-end 0.1 --save-final -o "$W/r.tsv"
# a good table runs
run_sdk "${R[@]}" --init-from "$D/ok.tsv" --quiet
check "a good TSV runs (exit $rc: $(head -c 200 "$ERRF"))" test "$rc" -eq 0
finish
