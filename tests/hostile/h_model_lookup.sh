#!/usr/bin/env bash
# Which file a model name means (issue 10, item 14): a bare name is a model of
# SDEKIT_MODEL_PATH or a built-in, never a file or directory of the current
# directory; a path needs a '/' or the .sde suffix; the run's summary line,
# the TSV header and the HDF5 attribute model_path name the file used.
. "$(dirname "$0")/lib.sh"

BUILTIN=$(cd "$SRC/models" && pwd -P)/josephson.sde
J="--periods 1 --spp 10 --paths 4"

# a local model called josephson, with another name inside
printf '[model]\nname = impostor\nvars = x\n[drift]\nx = 1\n' >"$W/josephson"
run_sdk run josephson $J -o "$T/a.tsv"
check local-file-ignored-rc [ "$rc" -eq 0 ]
check local-file-ignored-tsv grep -q "^# model: josephson ($BUILTIN)\$" "$T/a.tsv"
check summary-names-file grep -q "^sdekit: josephson ($BUILTIN), " "$ERRF"
# ./josephson is a path: the local file is used, and recorded (resolved)
run_sdk run ./josephson --t-end 1 --paths 4 -o "$T/b.h5"
check dot-slash-rc [ "$rc" -eq 0 ]
run_sdk info "$T/b.h5"
check h5-attr-resolved grep -Eq "^model: +impostor \($(pwd -P)/josephson\)\$" "$OUTF"
rm "$W/josephson"

# a directory of that name does not stop the built-in either
mkdir "$W/josephson"
run_sdk run josephson $J -o "$T/c.tsv"
check local-dir-ignored [ "$rc" -eq 0 ] && grep -q "($BUILTIN)" "$T/c.tsv"
rmdir "$W/josephson"

# NAME.sde in the current directory is a path
printf '[model]\nname = mine\nvars = x\n[drift]\nx = 1\n' >"$W/foo.sde"
run_sdk run foo.sde --t-end 1 --paths 4 -o "$T/d.tsv"
check dot-sde-used grep -q "^# model: mine ($(pwd -P)/foo\.sde)\$" "$T/d.tsv"

# an unknown bare name lists the models; a file of that name gets a hint
expect_error unknown 2 "unknown model 'nosuch' \(see 'sdekit models': delay_ou, gbm, josephson, josephson_colored, josephson_levy, kuramoto, kuramoto-meanfield, lif, ou, ou2_correlated, reset_bm, shot_noise_ou, telegraph_ou\); a model file needs a '/' or the \.sde suffix\$" run nosuch
expect_error unknown-hint 2 "unknown model 'foo'.*\(for the file here, write foo\.sde\)\$" run foo
rm "$W/foo.sde"
touch "$W/foo"
expect_error unknown-hint-file 2 "\(for the file here, write \./foo\)\$" run foo
rm "$W/foo"

# SDEKIT_MODEL_PATH: colon-separated, searched in order before the built-ins,
# empty entries skipped (they do not mean the current directory)
mkdir -p "$T/m1" "$T/m2"
printf '[model]\nname = fromm2\nvars = x\n[drift]\nx = 1\n' >"$T/m2/mymodel.sde"
printf '[model]\nname = cwd\nvars = x\n[drift]\nx = 1\n' >"$W/mymodel.sde"
SDEKIT_MODEL_PATH="::$T/m1:$T/m2" run_sdk run mymodel --t-end 1 --paths 4 -o "$T/e.tsv"
check model-path-used grep -q "^# model: fromm2 ($T/m2/mymodel\.sde)\$" "$T/e.tsv"
rm "$W/mymodel.sde"
printf '[model]\nname = mine\nvars = x\n[drift]\nx = 1\n' >"$T/m1/josephson.sde"
SDEKIT_MODEL_PATH="$T/m1" run_sdk run josephson --t-end 1 --paths 4 -o "$T/f.tsv"
check model-path-first grep -q "^# model: mine ($T/m1/josephson\.sde)\$" "$T/f.tsv"
finish
