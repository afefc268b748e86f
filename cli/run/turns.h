/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One worker thread's files in flight: up to TURNS_MAX regular files, read
 * in turns of a few KiB each and fed (feed.h) to their own contexts (one
 * per digest the file is hashed for), so that ksumprov can absorb the
 * contexts of one batch group together through its wide kernel
 * (KSUM_PARAM_BATCH).  Within a round every file in flight is read and fed
 * once; the finals of the files that ended come after, so that a final
 * carries the others' pending input along.  With one file in flight and
 * big turns this is plain hashing.
 */
#ifndef KSUM_CLI_TURNS_H
#define KSUM_CLI_TURNS_H

#include <stddef.h>
#include <stdint.h>

#include "front/hasher.h"
#include "input/feed.h"
#include "input/files.h"

#define TURNS_MAX 8     /* the most lanes a backend has */

/* One digest a file is hashed for: an algorithm under its options (the
 * command line's, or check mode's with -x for an XOF line), at size bytes.
 * key names the contexts that compute it: the same key, the same
 * algorithm and options. */
typedef struct digest_spec {
    const algorithm *alg;
    const options *o;
    size_t size;
    size_t key;
} digest_spec;

/* A file for a worker: the n digests d, and where its reading is shown. */
typedef struct file_job {
    const char *path;       /* NULL: nothing for a worker */
    int dirfd;              /* path + name_at is opened in this directory */
    size_t name_at;
    int nofollow;           /* a symbolic link is refused */
    const digest_spec *d;
    size_t n;
    file_progress *progress;  /* may be NULL */
    int alone;              /* the last file, every other worker idle: its
                               tree mode may use every thread asked for */
} file_job;

/* What became of one file: err 0 and every digest in sums, one after the
 * other; or err (files.h), with OpenSSL's reason in why for KSUM_EHASH. */
typedef struct file_result {
    int err;
    uint8_t *sums;
    char *why;
    unsigned mode;      /* its st_mode as opened (--tree's exec bit: no stat
                           of its own) */
} file_result;

void file_result_free(file_result *r);

/* Where the files come from and their results go (the pool). */
typedef struct turns_source {
    /* The next file: its index (for publish) and job.  With nothing in
     * flight (active 0) it waits for one; with active files, it returns 0
     * at once when none is ready or the hungry workers need those there
     * are (the pool counts a worker hungry while it has nothing in
     * flight).  0 too when there are no more or output stopped. */
    int (*take)(void *ctx, size_t active, size_t *index, file_job *job);
    /* File index's result (r's memory becomes the pool's). */
    void (*publish)(void *ctx, size_t index, file_result *r);
    /* Output failed: drop everything in flight. */
    int (*stopped)(void *ctx);
    void *ctx;
} turns_source;

/* A worker's context for one key, in one place of files in flight. */
typedef struct worker_context {
    hasher h;
    int begun;               /* once: paired is known */
    size_t paired;           /* how much of a message its group pairs:
                                hasher_batch_prefix, 0 without a group */
} worker_context;

typedef struct in_flight {
    int active;
    size_t index;
    file_job job;
    feed in;
    hasher *hs[OPTIONS_ALGS_MAX];   /* this file's contexts, one per digest */
    size_t prefix;           /* where the first pairing that ends does (the
                                least paired short of all); SIZE_MAX: none */
    size_t unpaired;         /* where the last one ends, after which the
                                file is read in big turns; SIZE_MAX: never */
    int long_file;           /* the worker takes no other beside it (start) */
    file_result r;
} in_flight;

typedef struct turns {
    in_flight f[TURNS_MAX];
    worker_context **contexts;  /* nslots * nkeys, each opened on first use */
    size_t nkeys, nslots;
    OSSL_LIB_CTX *lib;
    uint64_t batch;          /* the contexts' batch group; 0: none */
    size_t turn;             /* bytes read per file per round */
    size_t big;              /* ... once no pairing is left (K12 past its
                                first chunk), into big_buf */
    uint8_t *buf, *big_buf;  /* big_buf made when first needed: speed only */
    input ahead;             /* read-ahead buffers, for a file alone */
    int ahead_made;          /* 0: not yet; 1: made; -1: no memory */
    int shared;              /* other workers take files from the pool too */
} turns;

/* Room for nslots files in flight, whose contexts of keys below nkeys are
 * in batch group `batch` (0: none), read in turns of `turn` bytes (of
 * INPUT_SIZE once a file's pairings have ended); the contexts of the n
 * digests `eager` are opened now, the others when a file first needs them.
 * A worker's contexts hash on its own thread: the road has as many workers
 * as threads.  Returns 0 on failure (turns_close is still due). */
int turns_open(turns *t, OSSL_LIB_CTX *lib, size_t nkeys, const digest_spec *eager,
               size_t n, size_t nslots, size_t turn, uint64_t batch);
/* Frees what turns_open made; a second call does nothing. */
void turns_close(turns *t);

/* Takes files from src and hashes them until it has no more. */
void turns_run(turns *t, const turns_source *src);

#endif
