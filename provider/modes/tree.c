/* SPDX-License-Identifier: Apache-2.0 */
#include "tree.h"

#include <stdlib.h>
#include <string.h>

void tree_leaves_init(tree_leaves *t, size_t leaf_len, unsigned rate,
                      unsigned rounds, uint8_t domain, unsigned cv_len)
{
    t->leaf_len = leaf_len;
    t->fill = 0;
    t->count = 0;
    t->rate = (uint16_t)rate;
    t->rounds = (uint8_t)rounds;
    t->domain = domain;
    t->cv_len = (uint8_t)cv_len;
    t->threads = 1;
    t->pool = NULL;
    t->sink = NULL;
}

/* CVs into the final node, or to the sink when there is one. */
static void deliver(tree_leaves *t, sponge *final, const uint8_t *cvs, size_t len)
{
    if (t->sink != NULL)
        t->sink(t, cvs, len);
    else
        sponge_absorb(final, cvs, len);
}

void tree_leaves_set_workers(tree_leaves *t, worker_pool *pool, unsigned threads)
{
    t->pool = pool;
    t->threads = threads ? threads : parallel_cpu_count();
}

static void emit_leaf(tree_leaves *t, sponge *final)
{
    uint8_t cv[TREE_MAX_CV];

    sponge_squeeze(&t->leaf, cv, t->cv_len);
    deliver(t, final, cv, t->cv_len);
    t->fill = 0;
    t->count++;
}

/* Work shared by the threads of one hash_leaves call. */
typedef struct leaves_job {
    const tree_leaves *t;
    const keccak_backend *be;
    const uint8_t *in;
    size_t leaves;       /* in this batch */
    uint8_t *cvs;        /* cv_len bytes per leaf, in order */
} leaves_job;

/* Groups [begin, end) of the batch: be->lanes leaves each, the last one
 * perhaps fewer (the backend then steps down). */
static void hash_group_range(void *arg, size_t begin, size_t end)
{
    const leaves_job *job = arg;
    const tree_leaves *t = job->t;
    size_t lanes = job->be->lanes;

    for (size_t g = begin; g < end; g++) {
        size_t first = g * lanes;
        unsigned n = (unsigned)(job->leaves - first < lanes ? job->leaves - first
                                                            : lanes);
        const uint8_t *ins[KECCAK_LANES_MAX];
        uint8_t *outs[KECCAK_LANES_MAX];
        for (unsigned j = 0; j < n; j++) {
            ins[j] = job->in + (first + j) * t->leaf_len;
            outs[j] = job->cvs + (first + j) * t->cv_len;
        }
        sponge_hash_many(job->be, n, t->rate, t->rounds, t->domain, ins,
                         t->leaf_len, outs, t->cv_len);
    }
}

/* Threads worth using for this much work: each should get at least
 * TREE_BYTES_PER_THREAD, or handing it the work costs more than it saves.
 * So a message of one leaf, or of a few small ones, never wakes a helper. */
static unsigned threads_for(const tree_leaves *t, size_t leaves)
{
    size_t bytes = leaves * t->leaf_len;
    size_t useful = bytes / TREE_BYTES_PER_THREAD;
    unsigned want = t->threads ? t->threads : 1;

    return useful < want ? (useful > 0 ? (unsigned)useful : 1) : want;
}

/* Whole leaves straight from the caller's buffer, in batches whose CVs are
 * absorbed into final in leaf order: the result is the same for any number
 * of threads.  Batches are large so that the threads meet seldom; without
 * memory for their CVs, small ones on the stack. */
static void hash_leaves(tree_leaves *t, sponge *final, const uint8_t *in,
                        size_t leaves)
{
    uint8_t small[TREE_SMALL_BATCH * TREE_MAX_CV];
    size_t max_batch = leaves < TREE_BATCH_LEAVES ? leaves : TREE_BATCH_LEAVES;
    uint8_t *heap = max_batch > TREE_SMALL_BATCH ? malloc(max_batch * t->cv_len)
                                                 : NULL;
    leaves_job job = {t, final->be, in, 0, heap ? heap : small};
    size_t lanes = final->be->lanes;
    size_t group_bytes = lanes * t->leaf_len;
    size_t grain = group_bytes < TREE_GRAIN_BYTES ? TREE_GRAIN_BYTES / group_bytes : 1;

    if (heap == NULL && max_batch > TREE_SMALL_BATCH)
        max_batch = TREE_SMALL_BATCH;
    while (leaves > 0) {
        job.leaves = leaves < max_batch ? leaves : max_batch;
        parallel_for(t->pool, threads_for(t, job.leaves),
                     (job.leaves + lanes - 1) / lanes, grain, hash_group_range,
                     &job);
        deliver(t, final, job.cvs, job.leaves * t->cv_len);
        t->count += job.leaves;
        job.in += job.leaves * t->leaf_len;
        leaves -= job.leaves;
    }
    free(heap);
}

void tree_leaves_update(tree_leaves *t, sponge *final, const uint8_t *in,
                        size_t len)
{
    while (len > 0) {
        size_t take;
        if (t->fill == 0 && len >= t->leaf_len) {
            size_t leaves = len / t->leaf_len;
            hash_leaves(t, final, in, leaves);
            in += leaves * t->leaf_len;
            len -= leaves * t->leaf_len;
            continue;
        }
        if (t->fill == 0)
            sponge_init(&t->leaf, final->be, t->rate, t->rounds, t->domain);
        take = t->leaf_len - t->fill;
        if (take > len)
            take = len;
        sponge_absorb(&t->leaf, in, take);
        t->fill += take;
        in += take;
        len -= take;
        if (t->fill == t->leaf_len)
            emit_leaf(t, final);
    }
}

void tree_leaves_finish(tree_leaves *t, sponge *final)
{
    if (t->fill > 0)
        emit_leaf(t, final);
}

void tree_give_cvs(const uint8_t *cvs, size_t held, size_t *taken, uint8_t *out,
                   size_t len)
{
    size_t give = *taken < held ? held - *taken : 0;

    if (give > len)
        give = len;
    if (give > 0)   /* no CVs held may mean no buffer at all */
        memcpy(out, cvs + *taken, give);
    memset(out + give, 0, len - give);
    *taken += give;
}
