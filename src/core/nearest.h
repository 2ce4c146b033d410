/* sdekit: the name a mistyped one probably meant (--tend -> --t-end), for
 * "did you mean" in the messages about an unknown option or command. */
#ifndef SDK_NEAREST_H
#define SDK_NEAREST_H

#include <stddef.h>

/* The index of the name of names[0..n) nearest to word in edit distance
 * (insertions, deletions, substitutions and swaps of adjacent characters,
 * '-' and '_' alike), or -1 when none is near: a distance of at most a
 * third of the longer of the two, at least 1, and not for words of one
 * character.  Ties: the first in names. */
int sdk_nearest(const char *word, const char *const *names, size_t n);

#endif
