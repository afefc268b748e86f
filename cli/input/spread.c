/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One big file on every core: the digest of a tree hash (KT128, KT256,
 * M14, ParallelHash) of a regular file, cut into ranges that the threads
 * take in turn, each read with pread and turned into its chaining values
 * through the provider's NAME-CV algorithm; NAME-FINAL takes the message's
 * head and the CVs in order.  The copy out of the page cache is then
 * spread over the threads as the hashing is, where one reader thread would
 * cap them.  The digest is the one the serial road gives.
 *
 * Nothing here knows either tree: the provider has a -CV algorithm or not,
 * says how many bytes a CV stands for ("cv-span": ranges are multiples of
 * it) and how many first bytes the final takes as they are
 * ("head-length"), and each of the two takes those of the hasher's
 * parameters that it lists as settable.
 */
#include "input/feed.h"

#include <errno.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/thread.h"
#include "ksumprov.h"

/* A range is about this much, a whole number of CV spans. */
#define RANGE ((uint64_t)4 << 20)
/* Shorter ranges (a small ParallelHash block: at most half a context's
 * CVs in a range) cost more in contexts than spreading gains: serial road. */
#define RANGE_MIN ((uint64_t)1 << 20)
/* A range's CVs: the most one -CV context gives.  A range has at most half
 * that, so that the last one's share of a customization (K12's C, up to
 * CUSTOM_MAX, can add chunks past M) fits beside its own. */
#define SLOT ((uint64_t)KSUMPROV_PART_MAX_CHUNKS)
#define CUSTOM_MAX ((size_t)1 << 20)
/* Read in pieces that are still in the CPU's caches when hashed. */
#define PIECE ((size_t)1 << 20)
/* Ranges a thread may be ahead of the final node, SLOT CVs held for each. */
#define AHEAD 4
/* The hasher's parameters, and those added here. */
#define PARAMS_MAX (HASHER_PARAMS_MAX + 4)

typedef struct spread {
    feed *f;
    EVP_MD *cv_md;
    EVP_MD_CTX *final;
    OSSL_PARAM cv_params[PARAMS_MAX + 1];   /* the hasher's that -CV takes */
    size_t cv_n;
    uint64_t size, range, ranges, next, absorbed;
    size_t cv_len, window, head_len;
    uint64_t *count;          /* CVs of each slot's range; UINT64_MAX: not yet */
    uint8_t *cvs;             /* window slots of SLOT CVs */
    int err, absorbing;       /* a thread absorbs into the final node */
    pthread_mutex_t mu;
    pthread_cond_t moved;
    uint8_t *head;            /* the first head_len bytes, which the final takes */
} spread;

/* Range i's CVs into its slot, *n of them; 0 or why not. */
static int range_cvs(spread *s, EVP_MD_CTX *ctx, uint8_t *buf, uint64_t i, uint64_t *n)
{
    uint64_t at = i * s->range;
    uint64_t stop = s->size - at > s->range ? at + s->range : s->size;
    OSSL_PARAM p[PARAMS_MAX + 1];
    OSSL_PARAM q[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_CV_COUNT, n), OSSL_PARAM_END};
    int err;

    /* The offset is the last of cv_params, which the threads share. */
    memcpy(p, s->cv_params, (s->cv_n + 1) * sizeof *p);
    p[s->cv_n - 1] = OSSL_PARAM_construct_uint64(KSUM_PARAM_OFFSET, &at);
    if (!EVP_DigestInit_ex2(ctx, s->cv_md, p))
        return KSUM_EHASH;
    for (uint64_t pos = at; pos < stop; pos += PIECE) {
        size_t len = stop - pos < PIECE ? (size_t)(stop - pos) : PIECE;
        /* Fewer bytes than the size said: the file changed. */
        if (read_full_at(s->f->fd, buf, len, (off_t)pos, &err) != len)
            return err != 0 ? err : KSUM_ECHANGED;
        if (pos == 0)
            memcpy(s->head, buf, s->head_len);
        if (!EVP_DigestUpdate(ctx, buf, len))
            return KSUM_EHASH;
        file_progress_add(s->f->progress, len);
    }
    if (!EVP_MD_CTX_get_params(ctx, q) || *n > SLOT)
        return KSUM_EHASH;
    return *n == 0 || EVP_DigestFinalXOF(ctx, s->cvs + i % s->window * SLOT * s->cv_len,
                                         (size_t)*n * s->cv_len)
               ? 0 : KSUM_EHASH;
}

/* The final node takes the ranges in order: whoever finishes the next one
 * absorbs every finished range from there, one thread at a time, with
 * s->mu (held on entry) left free meanwhile for the others to take
 * ranges; a slot is not reused before it is absorbed. */
static void absorb_ready(spread *s)
{
    size_t slot;

    if (s->absorbing)
        return;
    s->absorbing = 1;
    while (s->err == 0 && s->absorbed < s->ranges &&
           s->count[slot = s->absorbed % s->window] != UINT64_MAX) {
        int ok;
        pthread_mutex_unlock(&s->mu);
        ok = (s->absorbed > 0 || s->head_len == 0 ||
              EVP_DigestUpdate(s->final, s->head, s->head_len)) &&
             EVP_DigestUpdate(s->final, s->cvs + slot * SLOT * s->cv_len,
                              s->count[slot] * s->cv_len);
        pthread_mutex_lock(&s->mu);
        s->err = ok ? s->err : KSUM_EHASH;
        s->count[slot] = UINT64_MAX;
        s->absorbed++;
        pthread_cond_broadcast(&s->moved);
    }
    s->absorbing = 0;
}

static void *worker(void *arg)
{
    spread *s = arg;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    uint8_t *buf = input_buffer_new(PIECE);
    int err = ctx != NULL && buf != NULL ? 0 : ENOMEM;

    pthread_mutex_lock(&s->mu);
    for (;;) {
        uint64_t i, n = 0;
        while (s->err == 0 && s->next < s->ranges && s->next >= s->absorbed + s->window)
            pthread_cond_wait(&s->moved, &s->mu);
        if (s->err != 0 || s->next == s->ranges)
            break;
        i = s->next++;
        pthread_mutex_unlock(&s->mu);
        if (err == 0)
            err = range_cvs(s, ctx, buf, i, &n);
        pthread_mutex_lock(&s->mu);
        if (err != 0 && s->err == 0)
            s->err = err;
        s->count[i % s->window] = n;
        absorb_ready(s);
        pthread_cond_broadcast(&s->moved);
    }
    pthread_cond_broadcast(&s->moved);
    pthread_mutex_unlock(&s->mu);
    EVP_MD_CTX_free(ctx);
    input_buffer_free(buf, PIECE);
    return NULL;
}

/* NAME-CV or NAME-FINAL of h's algorithm, when the provider has it; a
 * failed fetch leaves nothing on the error queue. */
static EVP_MD *family(const hasher *h, const char *suffix)
{
    char name[64];
    EVP_MD *md;

    if (snprintf(name, sizeof name, "%s-%s", h->alg->name, suffix) >= (int)sizeof name)
        return NULL;
    ERR_set_mark();
    md = EVP_MD_fetch(h->lib, name, NULL);
    ERR_pop_to_mark();
    return md;
}

static void add(OSSL_PARAM *list, size_t *n, OSSL_PARAM p)
{
    list[(*n)++] = p;
    list[*n] = (OSSL_PARAM)OSSL_PARAM_END;
}

/* The hasher's parameters shared out: to -CV those it lists as settable
 * (its output length is its CVs', set at its final), to -FINAL the same;
 * the threads are the spread's and a batch is no use for one file.  0
 * when one of them is taken by neither: a parameter the parts do not know
 * could change the digest, so such a file goes the serial road. */
static int share_params(spread *s, const hasher *h, EVP_MD *final_md, OSSL_PARAM *fp,
                        size_t *fn)
{
    const OSSL_PARAM *cv_set = EVP_MD_settable_ctx_params(s->cv_md);
    const OSSL_PARAM *final_set = EVP_MD_settable_ctx_params(final_md);
    static unsigned one = 1;

    if (cv_set == NULL || final_set == NULL)
        return 0;
    for (const OSSL_PARAM *q = h->sent.p; q->key != NULL; q++) {
        int to_cv = OSSL_PARAM_locate_const(cv_set, q->key) != NULL &&
                    strcmp(q->key, OSSL_DIGEST_PARAM_XOFLEN) != 0;
        int to_final = OSSL_PARAM_locate_const(final_set, q->key) != NULL;
        if (strcmp(q->key, KSUM_PARAM_THREADS) == 0 || strcmp(q->key, KSUM_PARAM_BATCH) == 0)
            continue;
        if (!to_cv && !to_final)
            return 0;
        if (strcmp(q->key, KSUM_PARAM_CUSTOM) == 0 && q->data_size > CUSTOM_MAX)
            return 0;
        if (to_cv)
            add(s->cv_params, &s->cv_n, *q);
        if (to_final)
            add(fp, fn, *q);
    }
    if (OSSL_PARAM_locate_const(cv_set, KSUM_PARAM_THREADS) != NULL)
        add(s->cv_params, &s->cv_n, OSSL_PARAM_construct_uint(KSUM_PARAM_THREADS, &one));
    add(s->cv_params, &s->cv_n,
        OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &s->size));
    add(fp, fn, OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &s->size));
    /* range_cvs puts each range's offset in this last place */
    add(s->cv_params, &s->cv_n, OSSL_PARAM_construct_uint64(KSUM_PARAM_OFFSET, &s->size));
    return 1;
}

/* The ranges, from what a -CV context says of the file's tree: a whole
 * number of CV spans, about RANGE bytes (one span when that is longer),
 * at most half a context's CVs; the head the final takes must come whole
 * in the first piece read.  0: the serial road. */
static int plan(spread *s)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    uint64_t span = 0, head = 0, k;
    OSSL_PARAM q[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_CV_SPAN, &span),
                      OSSL_PARAM_construct_uint64(KSUM_PARAM_HEAD_LENGTH, &head),
                      OSSL_PARAM_END};
    int ok;

    ERR_set_mark();   /* a refusal here only means the serial road */
    ok = ctx != NULL && EVP_DigestInit_ex2(ctx, s->cv_md, s->cv_params) &&
         EVP_MD_CTX_get_params(ctx, q) && span > 0;
    ERR_pop_to_mark();
    EVP_MD_CTX_free(ctx);
    if (!ok)
        return 0;
    k = span < RANGE ? RANGE / span : 1;
    k = k < SLOT / 2 ? k : SLOT / 2;
    s->range = span * k;
    if (s->range < RANGE_MIN || s->range > s->size / 2 || head > PIECE || head > s->range)
        return 0;
    s->head_len = (size_t)head;
    s->ranges = s->size / s->range + (s->size % s->range != 0);
    return 1;
}

static unsigned spread_threads(feed *f, const hasher *h)
{
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(h->sent.p, KSUM_PARAM_THREADS);
    unsigned threads = 0;

    if (h->mac || !f->owned || !f->watched || !size_is_known(f->fd, &f->before) ||
        (uint64_t)f->before.st_size < 2 * RANGE_MIN ||
        (p != NULL && !OSSL_PARAM_get_uint(p, &threads)))
        return 0;
    if (threads == 0)
        threads = ksum_cpu_count();
    return threads < KSUMPROV_MAX_THREADS ? threads : KSUMPROV_MAX_THREADS;
}

int feed_spread(feed *f, hasher *h, int *err)
{
    spread s = {.f = f};
    unsigned threads = spread_threads(f, h), started = 0;
    pthread_t ids[KSUMPROV_MAX_THREADS];
    EVP_MD *final_md = NULL;
    OSSL_PARAM p[PARAMS_MAX + 1];
    size_t pn = 0;
    uint8_t probe;
    int ok;

    s.size = threads >= 2 ? (uint64_t)f->before.st_size : 0;
    p[0] = s.cv_params[0] = (OSSL_PARAM)OSSL_PARAM_END;
    ok = threads >= 2 && (s.cv_md = family(h, "CV")) != NULL &&
         (final_md = family(h, "FINAL")) != NULL && EVP_MD_get_size(s.cv_md) > 0 &&
         share_params(&s, h, final_md, p, &pn) && plan(&s);

    /* Without the memory or the algorithms, the file goes the serial road. */
    threads = ok && threads > s.ranges ? (unsigned)s.ranges : threads;
    s.window = (size_t)threads * AHEAD;
    s.cv_len = ok ? (size_t)EVP_MD_get_size(s.cv_md) : 0;
    ok = ok && (s.count = malloc(s.window * sizeof *s.count)) != NULL &&
         (s.cvs = malloc(s.window * SLOT * s.cv_len)) != NULL &&
         (s.head = malloc(s.head_len + 1)) != NULL;
    if (ok) {
        s.final = h->md_ctx;
        s.err = EVP_DigestInit_ex2(s.final, final_md, p) ? 0 : KSUM_EHASH;
        memset(s.count, 0xff, s.window * sizeof *s.count);
        pthread_mutex_init(&s.mu, NULL);
        pthread_cond_init(&s.moved, NULL);
        /* s.err is read before any worker runs: a worker writes it under
         * s.mu from its start on. */
        if (s.err == 0) {
            while (started + 1 < threads && thread_start(&ids[started], worker, &s) == 0)
                started++;
            worker(&s);
        }
        while (started > 0)
            pthread_join(ids[--started], NULL);
        pthread_cond_destroy(&s.moved);
        pthread_mutex_destroy(&s.mu);
        /* Bytes past the size, or another size or time: the file changed
         * while read, as feed.c judges it. */
        if (s.err == 0 && s.absorbed != s.ranges)
            s.err = KSUM_EHASH;
        if (s.err == 0 && (read_full_at(f->fd, &probe, 1, (off_t)s.size, &s.err) != 0 ||
                           !file_unchanged(f->fd, &f->before)))
            s.err = s.err != 0 ? s.err : KSUM_ECHANGED;
        f->done = s.size;
        f->ended = 1;
        *err = s.err;
    }
    free(s.count);
    free(s.cvs);
    free(s.head);
    EVP_MD_free(s.cv_md);
    EVP_MD_free(final_md);
    return ok;
}
