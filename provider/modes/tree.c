/* SPDX-License-Identifier: Apache-2.0 */
#include "tree.h"

#include <stdlib.h>


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

/* Work shared by the threads of one hash_groups call. */
typedef struct groups_job {
    const tree_leaves *t;
    const keccak_backend *be;
    const uint8_t *in;
    uint8_t *cvs;        /* KECCAK_PAR * cv_len bytes per group, in order */
} groups_job;

static void hash_group_range(void *arg, size_t begin, size_t end)
{
    const groups_job *job = arg;
    const tree_leaves *t = job->t;
    size_t group_bytes = KECCAK_PAR * t->leaf_len;

    for (size_t g = begin; g < end; g++) {
        const uint8_t *in = job->in + g * group_bytes;
        uint8_t *cv = job->cvs + g * KECCAK_PAR * t->cv_len;
        const uint8_t *const ins[KECCAK_PAR] = {
            in, in + t->leaf_len, in + 2 * t->leaf_len, in + 3 * t->leaf_len};
        uint8_t *const outs[KECCAK_PAR] = {cv, cv + t->cv_len,
                                           cv + 2 * t->cv_len, cv + 3 * t->cv_len};
        sponge_hash_x4(job->be, t->rate, t->rounds, t->domain, ins,
                       t->leaf_len, outs, t->cv_len);
    }
}

/* Threads worth using for this much work: each should get at least
 * TREE_BYTES_PER_THREAD, or handing it the work costs more than it saves. */
static unsigned threads_for(const tree_leaves *t, size_t groups)
{
    size_t bytes = groups * KECCAK_PAR * t->leaf_len;
    size_t useful = bytes / TREE_BYTES_PER_THREAD;
    unsigned want = t->threads ? t->threads : 1;

    return useful < want ? (useful > 0 ? (unsigned)useful : 1) : want;
}

/* groups * KECCAK_PAR whole leaves, straight from the caller's buffer, in
 * batches whose CVs are absorbed into final in leaf order: the result is
 * the same for any number of threads.  Batches are large so that the
 * threads meet seldom; without memory for their CVs, small ones on the stack. */
static void hash_groups(tree_leaves *t, sponge *final, const uint8_t *in,
                        size_t groups)
{
    uint8_t small[TREE_SMALL_BATCH * KECCAK_PAR * TREE_MAX_CV];
    size_t max_batch = groups < TREE_BATCH_GROUPS ? groups : TREE_BATCH_GROUPS;
    uint8_t *heap = max_batch > TREE_SMALL_BATCH
                        ? malloc(max_batch * KECCAK_PAR * t->cv_len) : NULL;
    groups_job job = {t, final->be, in, heap ? heap : small};
    size_t group_bytes = KECCAK_PAR * t->leaf_len;
    size_t grain = group_bytes < TREE_GRAIN_BYTES ? TREE_GRAIN_BYTES / group_bytes : 1;

    if (heap == NULL && max_batch > TREE_SMALL_BATCH)
        max_batch = TREE_SMALL_BATCH;
    while (groups > 0) {
        size_t batch = groups < max_batch ? groups : max_batch;
        parallel_for(t->pool, threads_for(t, batch), batch, grain, hash_group_range,
                     &job);
        deliver(t, final, job.cvs, batch * KECCAK_PAR * t->cv_len);
        t->count += batch * KECCAK_PAR;
        job.in += batch * KECCAK_PAR * t->leaf_len;
        groups -= batch;
    }
    free(heap);
}

void tree_leaves_update(tree_leaves *t, sponge *final, const uint8_t *in,
                        size_t len)
{
    while (len > 0) {
        size_t take;
        if (t->fill == 0 && len / t->leaf_len >= KECCAK_PAR) {
            size_t groups = len / t->leaf_len / KECCAK_PAR;
            hash_groups(t, final, in, groups);
            in += groups * KECCAK_PAR * t->leaf_len;
            len -= groups * KECCAK_PAR * t->leaf_len;
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
