#include "core/cnumeric.h"

/* per thread: how deep in API scopes, and the caller's locale of the outermost */
static _Thread_local int depth;
static _Thread_local locale_t caller;

void sdk_cnum_enter(sdk_cnum_scope *s) {
  s->old = s->mine = (locale_t)0;
  if (depth++ > 0) return; /* already switched by an outer scope */
  locale_t cur = uselocale((locale_t)0);
  /* the caller's locale (its messages, character set) with C numbers */
  locale_t dup = duplocale(cur);
  locale_t mine = dup ? newlocale(LC_NUMERIC_MASK, "C", dup) : (locale_t)0;
  if (!mine) {
    /* out of memory: go on in the caller's locale rather than fail */
    if (dup) freelocale(dup);
    return;
  }
  s->old = uselocale(mine);
  s->mine = mine;
  caller = s->old;
}

void sdk_cnum_leave(sdk_cnum_scope *s) {
  depth--;
  if (!s->mine) return;
  uselocale(s->old);
  freelocale(s->mine);
  caller = (locale_t)0;
}

void sdk_cnum_out_begin(sdk_cnum_out *o) {
  o->depth = depth;
  o->caller = caller;
  o->mine = (locale_t)0;
  if (!caller) return;
  o->mine = uselocale(caller);
  depth = 0; /* the callback may call the API: a fresh outermost scope */
}

void sdk_cnum_out_end(sdk_cnum_out *o) {
  depth = o->depth;
  caller = o->caller;
  if (o->mine) uselocale(o->mine);
}
