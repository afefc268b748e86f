/* SPDX-License-Identifier: Apache-2.0 */
#include "run/turns.h"

#include <errno.h>
#include <openssl/err.h>
#include <stdlib.h>
#include <string.h>

#include "base/messages.h"

void file_result_free(file_result *r)
{
    free(r->sums);
    free(r->why);
    r->sums = NULL;
    r->why = NULL;
}

/* The context of digest d for the file in slot j: opened the first time
 * (NULL when that fails), then set to d's length, which a check file's
 * line chooses. */
static worker_context *context(turns *t, size_t j, const digest_spec *d)
{
    worker_context **c = &t->contexts[j * t->nkeys + d->key];

    if (*c == NULL) {
        if ((*c = calloc(1, sizeof **c)) == NULL)
            return NULL;
        /* A worker does not write standard error: the printing thread
         * hashes the file again, and says what fails there. */
        if (!hasher_open_quiet(&(*c)->h, t->lib, d->alg, d->o)) {
            hasher_close(&(*c)->h);
            ERR_clear_error();
            free(*c);
            *c = NULL;
            return NULL;
        }
        /* The other workers have the other threads: a big turn of a tree
         * mode must not start helpers of its own (but see begin_contexts). */
        hasher_set_threads(&(*c)->h, 1);
        hasher_join(&(*c)->h, t->batch);
    }
    hasher_set_size(&(*c)->h, d->size);
    return *c;
}

int turns_open(turns *t, OSSL_LIB_CTX *lib, size_t nkeys, const digest_spec *eager,
               size_t n, size_t nslots, size_t turn, uint64_t batch)
{
    memset(t, 0, sizeof *t);
    t->lib = lib;
    t->nkeys = nkeys;
    t->nslots = nslots;
    t->turn = turn;
    t->big = batch != 0 && turn < INPUT_SIZE ? INPUT_SIZE : turn;
    t->batch = batch;
    t->contexts = calloc(nslots * nkeys, sizeof *t->contexts);
    t->buf = input_buffer_new(turn);
    if (t->contexts == NULL || t->buf == NULL)
        return 0;
    for (size_t j = 0; j < nslots; j++)
        for (size_t k = 0; k < n; k++)
            if (context(t, j, &eager[k]) == NULL)
                return 0;
    return 1;
}

void turns_close(turns *t)
{
    for (size_t i = 0; t->contexts != NULL && i < t->nslots * t->nkeys; i++)
        if (t->contexts[i] != NULL) {
            hasher_close(&t->contexts[i]->h);
            free(t->contexts[i]);
        }
    if (t->ahead_made != 0)
        input_free(&t->ahead);
    t->ahead_made = 0;
    free(t->contexts);
    input_buffer_free(t->buf, t->turn);
    input_buffer_free(t->big_buf, t->big);
    t->contexts = NULL;
    t->buf = t->big_buf = NULL;
}

/* An EVP failure: the reason is taken now, on the thread that had it. */
static int evp_failed(file_result *r)
{
    char why[512];

    openssl_reason(why, sizeof why);
    free(r->why);
    r->why = strdup(why);
    /* without memory for the reason, the want of memory is the reason */
    return r->why != NULL ? KSUM_EHASH : ENOMEM;
}

/* Begins c's hasher; a group it cannot join (the copy buffer a member
 * needs: memory is short) is left for good, and the file hashed outside
 * it: batching is only speed. */
static int begin_one(turns *t, worker_context *c)
{
    if (hasher_begin(&c->h))
        return 1;
    if (t->batch == 0)
        return 0;
    ERR_clear_error();
    hasher_join(&c->h, 0);
    return hasher_begin(&c->h);
}

/* Ends f's file: its result goes to the pool. */
static void finish(in_flight *f, const turns_source *src)
{
    for (size_t k = 0, at = 0; f->r.err == 0 && k < f->job.n; k++) {
        if (!hasher_end(f->hs[k], f->r.sums + at))
            f->r.err = evp_failed(&f->r);
        at += f->job.d[k].size;
    }
    if (f->r.err != 0) {
        free(f->r.sums);
        f->r.sums = NULL;
    }
    f->r.mode = (unsigned)f->in.before.st_mode;
    feed_close(&f->in);
    f->active = 0;
    src->publish(src->ctx, f->index, &f->r);
}

/* Its contexts for the file in slot j, begun, and where the first of
 * their pairings that ends does; 0 or why not. */
static int begin_contexts(turns *t, size_t j, in_flight *f)
{
    size_t bytes = 0;

    f->prefix = SIZE_MAX;
    f->unpaired = 0;
    for (size_t k = 0; k < f->job.n; k++) {
        worker_context *c = context(t, j, &f->job.d[k]);
        if (c == NULL)
            return ENOMEM;
        f->hs[k] = &c->h;
        hasher_set_threads(&c->h, f->job.alone ? f->job.d[k].o->threads : 1);
        if (!begin_one(t, c))
            return evp_failed(&f->r);
        if (!c->begun)
            c->paired = t->batch != 0 ? hasher_batch_prefix(&c->h) : 0;
        c->begun = 1;
        if (c->paired > 0 && c->paired < f->prefix)
            f->prefix = c->paired;
        if (t->batch != 0 && (c->paired == 0 || c->paired > f->unpaired))
            f->unpaired = c->paired == 0 ? SIZE_MAX : c->paired;
        bytes += f->job.d[k].size;
    }
    return (f->r.sums = malloc(bytes)) == NULL ? ENOMEM : 0;
}

/* The last file, every other worker idle, read in ranges by all the
 * threads when feed_spread takes it (check mode's one big image); 1 when
 * it did, its result in f->r. */
static int spread_alone(turns *t, size_t j, in_flight *f)
{
    worker_context *c = f->job.alone && f->job.n == 1 ? context(t, j, &f->job.d[0]) : NULL;

    if (c == NULL)
        return 0;
    hasher_set_threads(&c->h, f->job.d[0].o->threads);
    if (!feed_spread(&f->in, f->hs[0] = &c->h, &f->r.err))
        return 0;
    if (f->r.err == KSUM_EHASH)
        evp_failed(&f->r);
    else if (f->r.err == 0 && (f->r.sums = malloc(f->job.d[0].size)) == NULL)
        f->r.err = ENOMEM;
    return 1;
}

/* Starts f's file (slot j); 0 when it failed or ended at once (its result
 * published). */
static int start(turns *t, size_t j, in_flight *f, const turns_source *src)
{
    uint64_t size;

    memset(&f->r, 0, sizeof f->r);
    /* Regular files only, opened without waiting: something that is no
     * longer a regular file goes back to the pool, which decides. */
    f->r.err = feed_open(&f->in, f->job.dirfd, f->job.path + f->job.name_at, 1, f->job.nofollow,
                         f->job.progress);
    if (f->r.err != 0 || spread_alone(t, j, f) || (f->r.err = begin_contexts(t, j, f)) != 0) {
        finish(f, src);
        return 0;
    }
    /* Long: more than a big turn after its last pairing ends (a K12 file
     * of megabytes: only its first chunk pairs).  Files taken beside it
     * would pair only their first chunks with it, then wait on this
     * worker's thread while another worker may be idle.  A worker alone
     * keeps pairing: no other would take them sooner.  The size only
     * schedules; a file that changes is judged at its end. */
    size = f->in.watched ? (uint64_t)f->in.before.st_size : 0;
    f->long_file = t->shared && f->unpaired != SIZE_MAX && size > f->unpaired &&
                   size - f->unpaired > t->big;
    return 1;
}

static int holds_long(const turns *t)
{
    for (size_t j = 0; j < t->nslots; j++)
        if (t->f[j].active && t->f[j].long_file)
            return 1;
    return 0;
}

/* Fills the free places, until the pool has no file to give (or a long
 * file is in flight); waits for one only when none is in flight. */
static size_t fill(turns *t, const turns_source *src, size_t active)
{
    for (size_t j = 0; j < t->nslots; j++) {
        in_flight *f = &t->f[j];
        while (!f->active) {
            if ((active > 0 && holds_long(t)) ||
                !src->take(src->ctx, active, &f->index, &f->job))
                return active;
            f->active = start(t, j, f, src);
            active += f->active;
        }
    }
    return active;
}

/* A file's first turn ends where a pairing does: the K12 family pairs only
 * its first 8 KiB chunk (ksumprov's batch-prefix) and flushes when the
 * input goes past it, so every file in flight must have that chunk
 * pending before any goes on, for the flush to pair them; a short first
 * turn costs the others nothing. */
static size_t turn_of(const turns *t, const in_flight *f)
{
    if (f->in.done < f->prefix && f->prefix - f->in.done < t->turn)
        return (size_t)(f->prefix - f->in.done);
    return f->in.done >= f->unpaired ? t->big : t->turn;
}

/* The last file, every other worker idle, past its pairing: read ahead on
 * a thread of its own, as a file hashed alone is, so that the copy out of
 * the page cache overlaps its tree's hashing on the other threads. */
static void read_ahead_alone(turns *t, in_flight *f)
{
    if (!f->job.alone || f->in.reading_ahead || f->in.done < f->unpaired)
        return;
    if (t->ahead_made == 0)
        t->ahead_made = input_init(&t->ahead, 1) ? 1 : -1;
    if (t->ahead_made == 1)
        feed_read_ahead(&f->in, &t->ahead);
}

/* One turn of f: the next bytes of its file to every context.  A big turn
 * needs the big buffer (not when the reader's buffers come instead);
 * without memory for it, turns stay small. */
static void feed_turn(turns *t, in_flight *f)
{
    size_t n = turn_of(t, f);

    read_ahead_alone(t, f);
    if (n > t->turn && t->big_buf == NULL && !f->in.reading_ahead &&
        (t->big_buf = input_buffer_new(t->big)) == NULL)
        t->big = n = t->turn;
    f->r.err = feed_next(&f->in, f->hs, f->job.n, n > t->turn ? t->big_buf : t->buf, n);
    if (f->r.err == KSUM_EHASH)
        evp_failed(&f->r);
}

static void drop_all(turns *t)
{
    for (size_t j = 0; j < t->nslots; j++)
        if (t->f[j].active) {
            feed_close(&t->f[j].in);
            file_result_free(&t->f[j].r);
            t->f[j].active = 0;
        }
}

void turns_run(turns *t, const turns_source *src)
{
    size_t active = 0;

    while ((active = fill(t, src, active)) > 0) {
        for (size_t j = 0; j < t->nslots; j++)
            if (t->f[j].active)
                feed_turn(t, &t->f[j]);
        /* The finals after every file had its turn: a final absorbs the
         * other members' pending blocks with its own. */
        for (size_t j = 0; j < t->nslots; j++)
            if (t->f[j].active && (t->f[j].in.ended || t->f[j].r.err != 0)) {
                finish(&t->f[j], src);
                active--;
            }
        if (src->stopped(src->ctx)) {
            drop_all(t);
            return;
        }
    }
}
