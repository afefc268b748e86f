/*
 * The leaves of tree hashing, shared by ParallelHash and the KangarooTwelve
 * family: the input is cut into leaves of leaf_len bytes, each leaf is
 * hashed on its own into a chaining value (CV), and the CVs are absorbed
 * into the final node in order.  Groups of KECCAK_PAR whole leaves go to the
 * backend's parallel permutation.
 */
#ifndef KSUM_TREE_H
#define KSUM_TREE_H

#include "../sponge/sponge.h"

#define TREE_MAX_CV 64

typedef struct tree_leaves {
    sponge leaf;          /* the leaf being filled, when fill > 0 */
    size_t leaf_len;      /* bytes per leaf: B, or 8192 */
    size_t fill;          /* bytes absorbed into that leaf */
    uint64_t count;       /* leaves finished so far */
    uint16_t rate;
    uint8_t rounds, domain, cv_len;
} tree_leaves;

void tree_leaves_init(tree_leaves *t, size_t leaf_len, unsigned rate,
                      unsigned rounds, uint8_t domain, unsigned cv_len);
/* Absorbs the CV of every leaf that in completes into final. */
void tree_leaves_update(tree_leaves *t, sponge *final, const uint8_t *in,
                        size_t len);
/* A partly filled leaf becomes the last one. */
void tree_leaves_finish(tree_leaves *t, sponge *final);

#endif
