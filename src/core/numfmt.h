/* sdekit: how numbers are printed in text output (TSV, info, messages).
 *
 * Everything computed from the run (statistics, times, bin edges) prints with
 * %.10g (sdk_fmt_stat): the statistics carry Monte-Carlo errors far above
 * 1e-10 relative, and adjacent times or bin edges stay distinct unless there
 * are more than ~1e9 of them.  The values the user chose (scan values, dt,
 * fixed parameters, the period) print as the shortest of %.15g/%.16g/%.17g
 * that reads back as the identical double (sdk_fmt_exact): they identify
 * grid points, so a value read from the TSV compares equal to the one in the
 * HDF5 file, yet 0.1 still prints as "0.1".  NaN always prints as "nan"
 * (never "-nan"), so the output is byte-identical for identical inputs.  The
 * C locale is assumed.  buf must hold at least 32 characters; both return it.
 */
#ifndef SDK_NUMFMT_H
#define SDK_NUMFMT_H

char *sdk_fmt_exact(char *buf, double x);
char *sdk_fmt_stat(char *buf, double x);

/* A number as a C literal of the kernel's precision (a floating one: never
 * "1", which would make 1/2 an integer division): double, %.17g (reads back
 * as v); single, the float v rounds to (float)v, as %.9g (reads back as that
 * float) with "f": not v's 17 digits with "f", which the compiler rounds to
 * float a second time (1 + 2^-24, a tie that rounds to 1, became 1 + 2^-23).
 * A v beyond the float range keeps its digits (the compiler's infinity).
 * buf must hold at least 40 characters; returns it. */
char *sdk_fmt_literal(char *buf, double v, int single);

/* The one reader of a number typed by a user or read from a text file: a
 * finite decimal (no hex, inf or nan, which strtod would accept), spaces
 * around allowed.  1 and *out set, or 0. */
int sdk_parse_decimal(const char *s, double *out);

#endif
