#!/usr/bin/env bash
# Issue 28: the --scan-file table is untrusted data (docs/SECURITY.md): every
# malformed table is one "sdekit: error:" line naming the file and line, exit
# 2, nothing run or written; a name never reaches generated source (it must
# be an identifier and a parameter of the model; the values go to the
# kernels as data).
. "$(dirname "$0")/lib.sh"

J=(josephson --paths 8 --periods 2 --quiet -o "$W/out.h5")
t() { printf "$2" >"$T/$1"; }

t inf.tsv 'a\tf\n1\t0\n2\tinf\n'
expect_error inf 2 'inf\.tsv:3: .inf. \(column .f.\) is not a number' run "${J[@]}" --scan-file "$T/inf.tsv"
t overflow.tsv 'a\n1e999\n'
expect_error overflow 2 'overflow\.tsv:2: .1e999. \(column .a.\) is not a number' run "${J[@]}" --scan-file "$T/overflow.tsv"
t hex.tsv 'a\n0x10\n'
expect_error hex 2 'hex\.tsv:2: .0x10. \(column .a.\) is not a number' run "${J[@]}" --scan-file "$T/hex.tsv"
t trailing.tsv 'a\n1.5abc\n'
expect_error trailing_garbage 2 'trailing\.tsv:2: .1\.5abc. \(column .a.\) is not a number' run "${J[@]}" --scan-file "$T/trailing.tsv"
t long.tsv 'a\tf\n1\t0\t7\n'
expect_error too_many_fields 2 'long\.tsv:2: 3 values, the header names 2' run "${J[@]}" --scan-file "$T/long.tsv"
t empty_field.tsv 'a\tf\tD\n1\t\t0.1\n'
expect_error empty_field 2 'empty_field\.tsv:2: 2 values, the header names 3' run "${J[@]}" --scan-file "$T/empty_field.tsv"
t header_only.tsv 'a\tf\n'
expect_error header_only 2 'header_only\.tsv:1: no rows' run "${J[@]}" --scan-file "$T/header_only.tsv"
t empty.tsv ''
expect_error empty_file 2 'empty\.tsv:0: no rows' run "${J[@]}" --scan-file "$T/empty.tsv"
t inject.tsv 'a;system("touch pwned")\n1\n'
expect_error name_not_identifier 2 'inject\.tsv:1: column 1 of the header is not a parameter name' \
  run "${J[@]}" --scan-file "$T/inject.tsv"
t dollar.tsv '$(touch pwned)\n1\n'
expect_error name_shell 2 'dollar\.tsv:1: column 1 of the header is not a parameter name' \
  run "${J[@]}" --scan-file "$T/dollar.tsv"
printf 'a%0100d\n1\n' 0 >"$T/longname.tsv"
expect_error name_too_long 2 'longname\.tsv:1: .*at most 63 characters' run "${J[@]}" --scan-file "$T/longname.tsv"
printf 'a\n1\n\0002\n' >"$T/nul.tsv"
expect_error nul_byte 2 'nul\.tsv: not a text file \(a NUL byte at line 3\)' run "${J[@]}" --scan-file "$T/nul.tsv"
{ for i in $(seq 1 40); do printf 'p%d\t' "$i"; done; printf '\n'; } >"$T/wide.tsv"
expect_error too_many_columns 2 'wide\.tsv:1: more than 32 columns' run "${J[@]}" --scan-file "$T/wide.tsv"
head -c 4096 /dev/urandom >"$T/random.bin" 2>/dev/null
expect_error binary 2 'random\.bin(:[0-9]+)?: ' run "${J[@]}" --scan-file "$T/random.bin"
mkdir -p "$T/dir.tsv"
expect_error directory 2 'dir\.tsv' run "${J[@]}" --scan-file "$T/dir.tsv"
# a FIFO: refused at once, nothing waits on a writer that never comes
mkfifo "$T/fifo.tsv"
expect_error fifo 2 'fifo\.tsv.*not a regular file' run "${J[@]}" --scan-file "$T/fifo.tsv"
t unknown.tsv 'omega\tzz\n1\t2\n'
expect_error unknown_name 2 'unknown\.tsv:1: --scan-file column zz: model .josephson. has no parameter .zz.' \
  run "${J[@]}" --scan-file "$T/unknown.tsv"
t one.tsv 'a\n1\n'
expect_error set_and_table 2 '--set a and --scan a' run "${J[@]}" --set a=2 --scan-file "$T/one.tsv"
expect_error same_table_twice 2 'parameter a scanned twice' run "${J[@]}" --scan-file "$T/one.tsv" --scan-file "$T/one.tsv"
check nothing_made [ ! -e "$W/pwned" ] && [ ! -e "$T/pwned" ]

# accepted: CRLF line ends, comments, blank lines, spaces and tabs mixed
printf '# a table\r\na  f\r\n\r\n4.2\t0.1\r\n# between\n5 0.2\r\n' >"$T/crlf.tsv"
run_sdk run "${J[@]}" --scan-file "$T/crlf.tsv" -o "$W/crlf.tsv"
check crlf_rc [ "$rc" -eq 0 ]
check crlf_points awk '!/^#/ && NF { n++; if (n == 1 && ($1 != 4.2 || $2 != 0.1)) bad++;
  if (n == 2 && ($1 != 5 || $2 != 0.2)) bad++ } END { exit !(n == 2 && !bad) }' "$W/crlf.tsv"
rm -f "$W/out.h5" "$W/crlf.tsv"

# a checkpoint keeps the values read, not the file's name: a table changed
# (or gone) before the resume changes nothing
printf 'a\tf\n4.2\t0\n6\t0.1\n' >"$T/ck.tsv"
run_sdk run josephson --scan-file "$T/ck.tsv" --paths 8 --periods 2 --quiet --checkpoint "$T/ck" \
  -o "$T/r1.h5"
check ckpt_run_rc [ "$rc" -eq 0 ]
rm -f "$T/ck.tsv" && printf 'a\tf\n9\t0\n6\t0.1\n' >"$T/ck.tsv"
run_sdk resume "$T/ck" --periods 3 --force --quiet -o "$T/r2.h5"
check ckpt_resume_rc [ "$rc" -eq 0 ]
run_sdk info "$T/r2.h5"
check ckpt_resume_keeps_table grep -Eq 'scans: +a: 4\.2 \.\. 6, n=2' "$OUTF"
check ckpt_resume_keeps_zipped grep -Eq 'f: moves with a \(zipped\)' "$OUTF"
finish
