/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one road for files, hashing (`ksum FILE...`) and checking (`ksum -c`)
 * alike: a client's items (the names to hash, the lines of check files)
 * come through a bounded window, worker threads hash the regular files
 * they name, several in flight each (job.h), and the printing thread
 * prints every item in order, hashing itself what no worker may take
 * (streams, tuples, long outputs), or everything when there are no
 * workers.  How the files are spread is decided in one place,
 * road_choose, from the algorithms, their options and what the provider
 * reports.
 */
#ifndef KSUM_CLI_CONCURRENT_H
#define KSUM_CLI_CONCURRENT_H

#include <openssl/types.h>
#include <stddef.h>

#include "base/thread.h"
#include "front/resolve.h"
#include "run/job.h"
#include "run/progress.h"

/* How files are spread over threads and batches. */
typedef struct road {
    unsigned workers;     /* threads hashing regular files; 0: the printing
                             thread hashes every file, one after another */
    unsigned in_flight;   /* files a worker keeps in flight */
    int batched;          /* a worker's files in one batch group, in turns */
    int read_ahead;       /* the printing thread reads ahead (no workers,
                             several threads: a tree mode's one file) */
} road;

/* Decides the road: workers when several files may come and every output
 * is held (held: none long enough to be streamed), as many as --threads
 * (or the CPUs), the provider's thread cap and the free descriptors
 * allow; each with as many files in flight as the provider's backend has
 * lanes (KSUM_PARAM_LANES) when every algorithm asked for batches and
 * there are two lanes or more, else one.  One worker without batching
 * gains nothing over the printing thread alone: then none. */
void road_choose(road *r, const resolved *res, OSSL_LIB_CTX *lib, int several, int held);

/* What travels the road: items of item_size bytes, each produced, hashed
 * (when it names a file for a worker), printed and dropped in turn. */
typedef struct road_client {
    size_t item_size;
    /* The next item into item (zeroed): 0 when there are no more.  It sets
     * job->path (and the rest of job) when a worker may hash the regular
     * file it names, and *weight to the bytes it and its result will hold.
     * Called on any thread, one call at a time. */
    int (*next)(void *ctx, void *item, file_job *job, size_t *weight);
    /* 1 when the next call of next will not wait on the writer of a list
     * on a pipe or terminal (NULL: never waits).  A thread with something
     * else to do (files in flight, a line to print) reads ahead only then:
     * the verdict of a line typed must not wait for the next line. */
    int (*ready)(void *ctx);
    /* Prints item, on the printing thread, in order: r is what a worker
     * made of its file, NULL when no worker took it (the item hashes it
     * here if it must, its reading shown through progress).  Returns 0,
     * or KSUM_EWRITE (output failed) or ENOMEM (memory ran out, said
     * once) to stop. */
    int (*print)(void *ctx, void *item, file_result *r, file_progress *progress);
    /* Frees what item holds: after print, or unprinted when output stopped. */
    void (*drop)(void *ctx, void *item);
    void *ctx;
    /* The workers' contexts: keys below nkeys; those of the n digests in
     * eager are opened at the start (every file needs them). */
    size_t nkeys;
    const digest_spec *eager;
    size_t neager;
} road_client;

/* Runs every item of c along road r.  Returns 0 when memory ran out
 * before it could start (not said: the caller's run may say more), 1
 * otherwise: the items say how they fared. */
int road_run(const road *r, OSSL_LIB_CTX *lib, const road_client *c, progress *pg);

#endif
