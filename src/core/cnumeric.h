/* sdekit: numbers in the C locale, whatever the caller set.
 *
 * The library prints and reads numbers with the C library (printf's %g,
 * strtod, the generated source's literals, HDF5 attribute text, libinih's
 * values), which follow the calling thread's LC_NUMERIC: a host that set a
 * German locale would write TSV with decimal commas, generate "0,5" into C
 * source and refuse "0.5" typed by its user.  So every entry point of the
 * public API opens a scope (SDK_C_NUMERIC) that switches the calling thread,
 * and it alone, to the caller's locale with LC_NUMERIC "C" (uselocale; never
 * setlocale, which would change the whole process), and back on return.
 * Scopes nest (an API function calling another); the callbacks into the
 * caller (progress, cancel, log) run in the caller's own locale again
 * (sdk_cnum_out/sdk_cnum_back around them). */
#ifndef SDK_CNUMERIC_H
#define SDK_CNUMERIC_H

#include <locale.h>

typedef struct sdk_cnum_scope {
  locale_t old, mine; /* mine: (locale_t)0 where nothing was switched */
} sdk_cnum_scope;

void sdk_cnum_enter(sdk_cnum_scope *s);
void sdk_cnum_leave(sdk_cnum_scope *s);

/* the first statement of an API function: C numbers until it returns */
#define SDK_C_NUMERIC()                                                                            \
  sdk_cnum_scope sdk_cnum_scope_ __attribute__((cleanup(sdk_cnum_leave)));                         \
  sdk_cnum_enter(&sdk_cnum_scope_)

/* around a call into the caller's code: its own locale for the duration */
typedef struct sdk_cnum_out {
  locale_t mine, caller;
  int depth;
} sdk_cnum_out;
void sdk_cnum_out_begin(sdk_cnum_out *o);
void sdk_cnum_out_end(sdk_cnum_out *o);

#endif
