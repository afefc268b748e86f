/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The leaves of tree hashing, shared by ParallelHash and the KangarooTwelve
 * family: the input is cut into leaves of leaf_len bytes, each leaf is
 * hashed on its own into a chaining value (CV), and the CVs are absorbed
 * into the final node in order.  Whole leaves go to the backend's
 * multi-state absorb in groups of as many as it has lanes.
 */
#ifndef KSUM_TREE_H
#define KSUM_TREE_H

#include "../sponge/sponge.h"
#include "parallel.h"

#define TREE_MAX_CV 64
/* Leaves hashed between two absorptions of their CVs: up to 32 MiB of K12
 * input shared among the threads (256 KiB of CVs); 64 leaves when no
 * memory can be had for that. */
#define TREE_BATCH_LEAVES 4096
#define TREE_SMALL_BATCH 64
#define TREE_BYTES_PER_THREAD ((size_t)256 << 10)
/* Input per range the threads take: a few microseconds of work. */
#define TREE_GRAIN_BYTES ((size_t)32 << 10)

typedef struct tree_leaves tree_leaves;
/* Where the CVs go instead of the final node, when set (a tree computed in
 * parts: kangaroo_parts.c): len bytes of whole CVs, in leaf order. */
typedef void tree_cv_sink(tree_leaves *t, const uint8_t *cvs, size_t len);

struct tree_leaves {
    sponge leaf;          /* the leaf being filled, when fill > 0 */
    size_t leaf_len;      /* bytes per leaf: B, or 8192 */
    size_t fill;          /* bytes absorbed into that leaf */
    uint64_t count;       /* leaves finished so far */
    uint16_t rate;
    uint8_t rounds, domain, cv_len;
    unsigned threads;     /* at most this many threads hash leaves; 1 by default */
    worker_pool *pool;    /* their helpers (not owned); NULL: the caller only */
    tree_cv_sink *sink;   /* NULL: CVs are absorbed into the final node */
};

void tree_leaves_init(tree_leaves *t, size_t leaf_len, unsigned rate,
                      unsigned rounds, uint8_t domain, unsigned cv_len);
/* Absorbs the CV of every leaf that in completes into final. */
void tree_leaves_update(tree_leaves *t, sponge *final, const uint8_t *in,
                        size_t len);
/* Threads that may hash leaves, the caller's among them, with helpers from
 * pool; 0 means every CPU this process may use.  Results do not depend on
 * it. */
void tree_leaves_set_workers(tree_leaves *t, worker_pool *pool, unsigned threads);
/* A partly filled leaf becomes the last one. */
void tree_leaves_finish(tree_leaves *t, sponge *final);

/* A part's squeeze: the next len bytes of the held CVs (held bytes from
 * cvs, *taken of them given already), zeros past them. */
void tree_give_cvs(const uint8_t *cvs, size_t held, size_t *taken, uint8_t *out,
                   size_t len);

#endif
