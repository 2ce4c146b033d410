#!/usr/bin/env bash
# The escaping functions of src/core/escape.c, through the test program
# test_escape (unit-level known answers live there); this script only checks
# that `sdekit` prints hostile text escaped.  Placeholder cases are added by
# the items of issue 10 that print data.
. "$(dirname "$0")/lib.sh"
# a model path with an escape sequence in its name: the error line names it escaped
p=$'evil\e]0;owned\a.sde'
expect_error "path with terminal escapes is printed escaped" 2 'evil\\x1B\]0;owned\\x07\.sde' run "$p"
check "no raw ESC reaches stderr" bash -c "! grep -q \$'\\e' '$ERRF'"
finish
