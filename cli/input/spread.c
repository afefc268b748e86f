/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One big file on every core: a KangarooTwelve-family digest of a regular
 * file, cut at chunk boundaries into ranges that the threads take in turn,
 * each read with pread and turned into its chaining values through the
 * provider's -CV algorithm; the final node (-FINAL) takes the first chunk
 * and the CVs in order.  The copy out of the page cache is then spread
 * over the threads as the hashing is, where one reader thread would cap
 * them.  The digest is the one the serial road gives.
 */
#include "input/feed.h"

#include <errno.h>
#include <openssl/core_names.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/thread.h"
#include "ksumprov.h"

#define CHUNK 8192
/* A range is 512 chunks: a -CV context gives at most 1024 CVs, and the
 * last range's share of -C's chunks must fit beside its own. */
#define RANGE ((uint64_t)4 << 20)
#define CUSTOM_MAX ((size_t)1 << 20)
/* Read in pieces that are still in the CPU's caches when hashed. */
#define PIECE ((size_t)1 << 20)
/* The most CVs of a range: its chunks, and in the last one -C's. */
#define SLOT (RANGE / CHUNK + CUSTOM_MAX / CHUNK + 2)
/* Ranges a thread may be ahead of the final node, SLOT CVs held for each. */
#define AHEAD 4

typedef struct spread {
    feed *f;
    EVP_MD *cv_md;
    EVP_MD_CTX *final;
    OSSL_PARAM custom;
    uint64_t size, ranges, next, absorbed;
    size_t cv_len, window;
    uint64_t *count;          /* CVs of each slot's range; UINT64_MAX: not yet */
    uint8_t *cvs;             /* window slots of SLOT CVs */
    int err, absorbing;       /* a thread absorbs into the final node */
    pthread_mutex_t mu;
    pthread_cond_t moved;
    uint8_t head[CHUNK];      /* the first chunk, which the final node takes whole */
} spread;

/* Range i's CVs into its slot, *n of them; 0 or why not. */
static int range_cvs(spread *s, EVP_MD_CTX *ctx, uint8_t *buf, uint64_t i, uint64_t *n)
{
    uint64_t at = i * RANGE, stop = at + RANGE < s->size ? at + RANGE : s->size;
    unsigned one = 1;
    OSSL_PARAM p[] = {s->custom,
                      OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &s->size),
                      OSSL_PARAM_construct_uint64(KSUM_PARAM_OFFSET, &at),
                      OSSL_PARAM_construct_uint(KSUM_PARAM_THREADS, &one), OSSL_PARAM_END};
    OSSL_PARAM q[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_CV_COUNT, n), OSSL_PARAM_END};
    int err;

    if (!EVP_DigestInit_ex2(ctx, s->cv_md, p))
        return KSUM_EHASH;
    for (uint64_t pos = at; pos < stop; pos += PIECE) {
        size_t len = stop - pos < PIECE ? (size_t)(stop - pos) : PIECE;
        /* Fewer bytes than the size said: the file changed. */
        if (read_full_at(s->f->fd, buf, len, (off_t)pos, &err) != len)
            return err != 0 ? err : KSUM_ECHANGED;
        if (pos == 0)
            memcpy(s->head, buf, CHUNK);
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
        ok = (s->absorbed > 0 || EVP_DigestUpdate(s->final, s->head, CHUNK)) &&
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

/* The -CV and -FINAL algorithms of h's, when h is of the KangarooTwelve
 * family and sends nothing they do not take; else NULL. */
static EVP_MD *family(const hasher *h, const char *suffix)
{
    static const char *const names[] = {"KANGAROOTWELVE", "KT256", "MARSUPILAMIFOURTEEN"};
    char name[32];

    for (size_t i = 0; !h->mac && i < sizeof names / sizeof *names; i++)
        if (strcmp(h->alg->name, names[i]) == 0) {
            snprintf(name, sizeof name, "%s-%s", names[i], suffix);
            return EVP_MD_fetch(h->lib, name, NULL);
        }
    return NULL;
}

static unsigned spread_threads(feed *f, const hasher *h, spread *s)
{
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(h->sent.p, KSUM_PARAM_THREADS);
    const OSSL_PARAM *c = OSSL_PARAM_locate_const(h->sent.p, KSUM_PARAM_CUSTOM);
    unsigned threads = 0;

    if (p != NULL && !OSSL_PARAM_get_uint(p, &threads))
        return 0;
    if (threads == 0)
        threads = ksum_cpu_count();
    if (threads > KSUMPROV_MAX_THREADS)
        threads = KSUMPROV_MAX_THREADS;
    for (const OSSL_PARAM *q = h->sent.p; q->key != NULL; q++)
        if (q != p && q != c && strcmp(q->key, OSSL_DIGEST_PARAM_XOFLEN) != 0 &&
            strcmp(q->key, KSUM_PARAM_BATCH) != 0)
            return 0;
    if (!f->owned || !f->watched || !size_is_known(f->fd, &f->before) ||
        (uint64_t)f->before.st_size < 2 * RANGE || (c != NULL && c->data_size > CUSTOM_MAX))
        return 0;
    s->custom = c != NULL ? *c : OSSL_PARAM_construct_octet_string(KSUM_PARAM_CUSTOM, "", 0);
    s->size = (uint64_t)f->before.st_size;
    s->ranges = (s->size + RANGE - 1) / RANGE;
    return threads < s->ranges ? threads : (unsigned)s->ranges;
}

int feed_spread(feed *f, hasher *h, int *err)
{
    spread s = {.f = f};
    unsigned threads = spread_threads(f, h, &s), started = 0;
    pthread_t ids[KSUMPROV_MAX_THREADS];
    size_t xoflen = h->size;
    EVP_MD *final_md = NULL;
    uint8_t probe;
    OSSL_PARAM p[] = {s.custom, OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &s.size),
                      OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_XOFLEN, &xoflen),
                      OSSL_PARAM_END};
    int ok = threads >= 2 && (s.cv_md = family(h, "CV")) != NULL &&
             (final_md = family(h, "FINAL")) != NULL && EVP_MD_get_size(s.cv_md) > 0;

    /* Without the memory or the algorithms, the file goes the serial road. */
    s.window = (size_t)threads * AHEAD;
    s.cv_len = ok ? (size_t)EVP_MD_get_size(s.cv_md) : 0;
    ok = ok && (s.count = malloc(s.window * sizeof *s.count)) != NULL &&
         (s.cvs = malloc(s.window * SLOT * s.cv_len)) != NULL;
    if (ok) {
        s.final = h->md_ctx;
        s.err = EVP_DigestInit_ex2(s.final, final_md, p) ? 0 : KSUM_EHASH;
        memset(s.count, 0xff, s.window * sizeof *s.count);
        pthread_mutex_init(&s.mu, NULL);
        pthread_cond_init(&s.moved, NULL);
        while (s.err == 0 && started + 1 < threads &&
               thread_start(&ids[started], worker, &s) == 0)
            started++;
        if (s.err == 0)
            worker(&s);
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
    EVP_MD_free(s.cv_md);
    EVP_MD_free(final_md);
    return ok;
}
