/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One worker thread's files in flight: up to TURNS_MAX regular files, read
 * in turns of a few KiB each and fed to their own contexts (one per
 * algorithm), so that ksumprov can absorb the contexts of one batch group
 * together through its 4-way kernel (KSUM_PARAM_BATCH).  Within a round
 * every file in flight is read and fed once; the finals of the files that
 * ended come after, so that a final carries the others' pending input
 * along.  With one file in flight and big turns this is plain hashing.
 */
#ifndef KSUM_CLI_TURNS_H
#define KSUM_CLI_TURNS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "files.h"
#include "hasher.h"

#define TURNS_MAX 8     /* the most lanes a backend has */

/* What became of one file: err 0 and every algorithm's output in sums,
 * one after the other; or err (files.h), with OpenSSL's reason in why for
 * KSUM_EHASH. */
typedef struct file_result {
    int err;
    uint8_t *sums;
    char *why;
} file_result;

void file_result_free(file_result *r);

/* Where the files come from and their results go (the pool). */
typedef struct turns_source {
    /* The next file: its path, its index (for publish), whether a
     * symbolic link is refused, and where its progress goes (may be NULL).  With wait (nothing in flight) it
     * waits for one; without, it returns 0 at once when none is ready or
     * another worker is waiting for one.  0 too when there are no more or
     * output stopped. */
    int (*take)(void *ctx, int wait, size_t *index, const char **path,
                int *nofollow, file_progress **progress);
    /* File index's result (r's memory becomes the pool's). */
    void (*publish)(void *ctx, size_t index, file_result *r);
    /* Output failed: drop everything in flight. */
    int (*stopped)(void *ctx);
    /* Nothing in flight any more: the next take waits (the pool counts
     * the worker hungry until a take with wait succeeds). */
    void (*starving)(void *ctx);
    void *ctx;
} turns_source;

typedef struct in_flight {
    int active;
    size_t index;
    int fd;
    struct stat before;
    hasher *hs;              /* this file's contexts: one per algorithm */
    file_result r;
    file_progress *progress;
    int ended;
    int started;             /* its first turn was fed */
} in_flight;

typedef struct turns {
    in_flight f[TURNS_MAX];
    hasher *hs;              /* nslots * nalgs, opened */
    size_t nalgs, nslots, opened;
    size_t turn;             /* bytes read per file per round */
    size_t sum_bytes;        /* every algorithm's output */
    uint8_t *buf;
    int hungry;              /* counted as such by the pool */
} turns;

/* Opens nslots sets of contexts for the n algorithms, in batch group
 * `batch` (0: none), and a buffer of `turn` bytes.  Prints a message and
 * returns 0 on failure (turns_close is still due). */
int turns_open(turns *t, OSSL_LIB_CTX *lib, const options *o,
               const algorithm *const *algs, size_t n, size_t nslots,
               size_t turn, uint64_t batch);
void turns_close(turns *t);

/* Takes files from src and hashes them until it has no more. */
void turns_run(turns *t, const turns_source *src);

#endif
