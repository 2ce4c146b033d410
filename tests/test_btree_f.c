/* test_btree.c with the tree's root from single-precision Gaussians, as
 * the kernels of single-precision runs draw it (rng/btree.h
 * SDK_BTREE_ROOT_F): its keying, the law, additivity and the cached walk
 * against the stateless increments bit for bit. */
#define SDK_BTREE_ROOT_F 1
#include "test_btree.c"
