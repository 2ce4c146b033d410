#!/usr/bin/env bash
# --observe acf and psd (observe/obs_acf.c, obs_psd.c): every option a run
# cannot honour is refused before the run with one line naming it and why,
# exit 2, nothing written.
. "$(dirname "$0")/lib.sh"

R="--paths 16 --t-end 2 --dt 0.01 --sample-every 1 --seed 1"
expect_error max-lag-zero 2 "--max-lag '0': expected a whole number >= 1" \
  run ou $R --observe acf --max-lag 0 -o "$T/a.tsv"
expect_error max-lag-negative 2 "--max-lag '-3': expected a whole number >= 1" \
  run ou $R --observe acf --max-lag -3 -o "$T/a.tsv"
expect_error max-lag-fraction 2 "--max-lag '2.5': expected a whole number" \
  run ou $R --observe acf --max-lag 2.5 -o "$T/a.tsv"
expect_error max-lag-too-long 2 "--max-lag 500: the run takes only 201 samples after the transient" \
  run ou $R --observe acf --max-lag 500 -o "$T/a.tsv"
expect_error segment-not-pow2 2 "--psd-segment 100: a power of 2 from 4" \
  run ou $R --observe psd --psd-segment 100 -o "$T/a.tsv"
expect_error segment-too-small 2 "--psd-segment '2': expected a power of 2 >= 4" \
  run ou $R --observe psd --psd-segment 2 -o "$T/a.tsv"
expect_error segment-too-long 2 "--psd-segment 512: the run takes only 201 samples after the transient, not one segment" \
  run ou $R --observe psd --psd-segment 512 -o "$T/a.tsv"
expect_error window 2 "--psd-window 'hamming': expected hann or rect" \
  run ou $R --observe psd --psd-window hamming -o "$T/a.tsv"
expect_error corr-vars 2 "--corr-vars: model 'ou' has no variable or user observable 'y' .variables: x; user observables: none." \
  run ou $R --observe acf --corr-vars x,y -o "$T/a.tsv"
expect_error corr-vars-obs 2 "--corr-vars: model 'ou' has no variable or user observable 'q2' .variables: x; user observables: q." \
  run ou $R --observe psd --observe-expr 'q=x*x' --corr-vars q,q2 -o "$T/a.tsv"
expect_error corr-vars-empty 2 "--corr-vars: model 'ou' has no variable or user observable ''" \
  run ou $R --observe acf --corr-vars x,,x -o "$T/a.tsv"
expect_error corr-vars-twice 2 "--corr-vars: 'x' is given twice" \
  run ou $R --observe acf,psd --corr-vars x,x -o "$T/a.tsv"
expect_error corr-vars-none 2 "--corr-vars: an empty list .leave the option out for every variable." \
  run ou $R --observe psd --corr-vars "" -o "$T/a.tsv"
long=$(printf 'z%.0s' $(seq 1 300)) # (named to its first 100 characters)
expect_error corr-vars-long 2 "--corr-vars: model 'ou' has no variable or user observable '$(printf 'z%.0s' $(seq 1 100))' .variables" \
  run ou $R --observe acf --corr-vars "x,$long" -o "$T/a.tsv"
many=$(printf 'x,%.0s' $(seq 1 70))x
expect_error corr-vars-many 2 "--corr-vars: more than 64 names" \
  run ou $R --observe acf --corr-vars "$many" -o "$T/a.tsv"
expect_error corr-vars-escape 2 "--corr-vars: model 'ou' has no variable or user observable" \
  run ou $R --observe acf --corr-vars "$(printf 'x,\033[31mred')" -o "$T/a.tsv"
expect_error sample-times 2 "--observe acf: needs equally spaced samples" \
  run ou --paths 16 --dt 0.01 --t-end 1 --sample-times 0.1,0.5,0.7 --observe acf -o "$T/a.tsv"
expect_error too-few-samples 2 "--observe psd: the run takes 1 samples after the transient" \
  run ou --paths 16 --t-end 1 --dt 0.01 --transient 0.95 --sample-every 10 --observe psd -o "$T/a.tsv"
expect_error windows 2 "--observe acf cannot be run in batches of paths" \
  run ou --t-end 2 --dt 0.01 --sample-every 1 --observe acf --target-se 0.01 -o "$T/a.tsv"
finish
