#!/usr/bin/env bash
# Issue 25 item 9: the library formats and parses numbers in the C locale
# whatever its caller set.  A host program (Python, an application) that
# called setlocale(LC_ALL, "de_DE.UTF-8") got every run refused ("0.5" read
# as 0 or refused, "0,5" written into the generated C source) and TSV with
# decimal commas.  The sdekit command never calls setlocale, so this test is
# a small program on libsdekit (the one beside $SDK_BIN) run under a German
# locale made here with localedef (no root-wide change: LOCPATH), compared
# with the same program in the C locale.
. "$(dirname "$0")/lib.sh"

LIBDIR=$(cd "$(dirname "$BIN")" && pwd)
[ -e "$LIBDIR/libsdekit.so" ] || { echo "h_locale: no libsdekit.so beside $BIN: skipped"; exit 77; }
CC_=${CC:-cc}
mkdir -p "$T/loc"
# (localedef may warn, exiting 1, and still make it: the program says
# whether setlocale took it)
localedef -i de_DE -f UTF-8 "$T/loc/de_DE.UTF-8" >/dev/null 2>&1

cat >"$T/prog.c" <<'EOC'
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <sdekit.h>

extern char **environ;

static const char *MODEL = "[model]\nname = loc\nvars = x\n[params]\nk = 2.5\nD = 0.125\n"
                           "[drift]\nx = -0.5*k*x\n[noise]\nx = sqrt(2*D)\n[init]\nx = 1.5\n";

static int fail(const char *what, const sdekit_error *e) {
  printf("%s: %s\n", what, e->message);
  return 1;
}

/* prog LOCALE OUT.tsv: a run of MODEL set up through the API, its TSV */
int main(int argc, char **argv) {
  if (argc != 3) return 2;
  if (!setlocale(LC_ALL, argv[1])) return 77;
  char b[32];
  snprintf(b, sizeof b, "%g", 0.5);
  printf("locale %s prints 0.5 as %s\n", argv[1], b);
  sdekit_error e;
  sdekit_model *m = NULL;
  if (sdekit_model_from_string(MODEL, "loc.sde", &m, &e)) return fail("model", &e);
  printf("k = %.17g\n", sdekit_model_param_value(m, 0));
  sdekit_config *c = NULL;
  if (sdekit_config_create(&c, &e)) return fail("config", &e);
  if (sdekit_config_set_environment(c, (const char *const *)environ, &e))
    return fail("environment", &e);
  if (sdekit_config_set_model_object(c, m, &e)) return fail("set model", &e);
  if (sdekit_config_set_dt(c, 0.03125, &e)) return fail("set dt", &e);
  if (sdekit_config_option(c, "t-end", "1.5", &e)) return fail("--t-end 1.5", &e);
  if (sdekit_config_option(c, "paths", "256", &e)) return fail("--paths", &e);
  if (sdekit_config_option(c, "observe", "moments", &e)) return fail("--observe", &e);
  if (sdekit_config_add_scan(c, "D", 0.125, 0.375, 2, 0, &e)) return fail("scan", &e);
  if (sdekit_config_set_quiet(c, 1, &e)) return fail("quiet", &e);
  sdekit_result *r = NULL;
  if (sdekit_run(c, &r, &e)) return fail("run", &e);
  if (sdekit_result_write(r, argv[2], NULL, NULL, &e)) return fail("tsv", &e);
  /* a refused value: the message prints its numbers with '.' */
  if (sdekit_config_set_dt(c, -0.25, &e) == SDEKIT_OK) return fail("dt -0.25 accepted", &e);
  printf("message: %s\n", e.message);
  snprintf(b, sizeof b, "%g", 0.5);
  printf("after the calls 0.5 prints as %s\n", b);
  sdekit_result_destroy(&r);
  sdekit_config_destroy(&c);
  sdekit_model_destroy(&m);
  return 0;
}
EOC
SAN=
[ "${SANITIZED:-0}" = 1 ] && SAN="-fsanitize=address,undefined" # (the library's runtime first)
if ! "$CC_" -std=c11 $SAN -I"$SRC/include" "$T/prog.c" -o "$T/prog" -L"$LIBDIR" -lsdekit \
  -Wl,-rpath,"$LIBDIR" 2>"$T/cc.err"; then
  echo "h_locale: cannot build the test program: $(head -c 300 "$T/cc.err")" >&2
  exit 1
fi
de=de_DE.UTF-8
LOCPATH=$T/loc "$T/prog" C "$T/c.tsv" >"$T/c.out" 2>&1
rc_c=$?
LOCPATH=$T/loc "$T/prog" "$de" "$T/de.tsv" >"$T/de.out" 2>&1
rc_de=$?
if [ $rc_de -eq 77 ]; then
  echo "h_locale: no comma-decimal locale could be made (localedef -i de_DE failed): skipped"
  exit 77
fi
check "C locale run works (exit $rc_c: $(tr '\n' '|' <"$T/c.out"))" test $rc_c -eq 0
check "the test locale prints decimal commas" grep -q "prints 0.5 as 0,5" "$T/de.out"
check "de_DE: the run works (exit $rc_de: $(tr '\n' '|' <"$T/de.out" | head -c 300))" test $rc_de -eq 0
check "de_DE: model value 2.5 read as 2.5" grep -qx "k = 2.5" "$T/de.out"
check "de_DE: the TSV is byte-identical to the C locale's" cmp -s "$T/c.tsv" "$T/de.tsv"
check "de_DE: no decimal comma in the TSV" \
  sh -c "[ -s '$T/de.tsv' ] && ! grep -v '^#' '$T/de.tsv' | grep -q ','"
check "de_DE: the message prints -0.25 with a point" grep -q "message: .*-0\.25" "$T/de.out"
check "de_DE: the caller's locale is back after the calls" grep -q "after the calls 0.5 prints as 0,5" "$T/de.out"
finish
