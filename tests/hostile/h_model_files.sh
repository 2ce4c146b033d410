#!/usr/bin/env bash
# Model paths that are not regular files of bounded size, and model text that
# is not UTF-8 text (issue 10, item 6).  The old code read a FIFO or
# /dev/zero forever (hence `timeout`: it fails here instead of hanging).
. "$(dirname "$0")/lib.sh"

# run sdekit under a time limit (a wrapper: run_sdk quotes $BIN)
printf '#!/bin/sh\nexec timeout 20 "%s" "$@"\n' "$BIN" >"$T/sdk_to"
chmod +x "$T/sdk_to"
run_to() { # expect_error under the time limit
  local real=$BIN
  BIN=$T/sdk_to
  expect_error "$@"
  BIN=$real
}

mkfifo "$T/pipe.sde"
run_to fifo 2 "model file '.*pipe\.sde': it is a FIFO, not a regular file" run "$T/pipe.sde" --t-end 0.1
run_to dev-zero 2 "model file '/dev/zero': it is a character device, not a regular file" run /dev/zero --t-end 0.1
run_to dev-urandom 2 "'/dev/urandom': it is a character device" run /dev/urandom --t-end 0.1
mkdir "$T/dir.sde"
run_to directory 2 "'.*dir\.sde': it is a directory" run "$T/dir.sde"

# a file over the size limit (comments only: the old code accepted it after
# reading all of it); the limit is SDK_MODEL_MAX_BYTES = 1 MiB
{ printf '[model]\nname = big\nvars = x\n[drift]\nx = -x\n'; head -c 1100000 /dev/zero | tr '\0' '\n'; } >"$T/big.sde"
run_to too-big 2 "big\.sde' is [0-9]+ bytes, more than the 1048576 bytes a model may have" run "$T/big.sde" --t-end 0.1

# a NUL byte hid the rest of the file from the parser ([params] k = 3 was lost
# and k unknown, or worse, the text after it silently ignored)
printf '[model]\nname = nul\nvars = x\n[drift]\nx = -x\n\0[init]\nx = 5\n' >"$T/nul.sde"
run_to nul-byte 2 "nul\.sde:6: NUL byte at column 1" run "$T/nul.sde" --t-end 0.1
printf '[model]\nname = caf\xe9\nvars = x\n[drift]\nx = -x\n' >"$T/latin1.sde"
run_to not-utf8 2 "latin1\.sde:2: byte 0xe9 at column 11 is not UTF-8" run "$T/latin1.sde" --t-end 0.1

# a comment line longer than libinih's buffer: its tail was read as a line of
# its own, here redefining the initial condition
{ printf '[model]\nname = long\nvars = x\n[drift]\nx = 0\n[init]\n#'; printf 'a%.0s' $(seq 198); printf 'x = 5\n'; } >"$T/long.sde"
run_to long-line 2 "long\.sde:7: line longer than 198 bytes" run "$T/long.sde" --t-end 0.1

# CRLF line ends are ordinary text: the model runs
printf '[model]\r\nname = crlf\r\nvars = x\r\n[drift]\r\nx = 1\r\n' >"$T/crlf.sde"
run_sdk run "$T/crlf.sde" --t-end 1 --dt 0.5 --paths 4 -o "$T/crlf.tsv"
check crlf-runs [ "$rc" -eq 0 ]
finish
