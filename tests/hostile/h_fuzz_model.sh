#!/usr/bin/env bash
# Model-file bugs found by fuzz_model (fuzz/regress/model/): each must be a
# clear error, not a silent choice between two definitions.
. "$(dirname "$0")/lib.sh"
# a [model] header after a carriage return, following [drift]: the line scan
# lost the section, so the second 'period' silently replaced the first
printf '[model]\nvars = x\nperiod = 1\nname = t\n[drift]\n\r[model]\nperiod = 2\n[drift]\nx = -x\n' >"$T/twice.sde"
expect_error "period given twice after a CR section header" 2 "twice.sde: 'period' given twice in \[model\]" codegen "$T/twice.sde"
finish
