/* SPDX-License-Identifier: Apache-2.0 */
#include "turns.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "messages.h"

void file_result_free(file_result *r)
{
    free(r->sums);
    free(r->why);
    r->sums = NULL;
    r->why = NULL;
}

int turns_open(turns *t, OSSL_LIB_CTX *lib, const options *o,
               const algorithm *const *algs, size_t n, size_t nslots,
               size_t turn, uint64_t batch)
{
    memset(t, 0, sizeof *t);
    t->nalgs = n;
    t->nslots = nslots;
    t->turn = turn;
    t->hungry = 1;   /* the pool counts every worker hungry at first */
    t->hs = calloc(nslots * n, sizeof *t->hs);
    t->buf = input_buffer_new(turn);
    if (t->hs == NULL || t->buf == NULL) {
        fprintf(message_stream(), "ksum: out of memory\n");
        return 0;
    }
    for (; t->opened < nslots * n; t->opened++) {
        hasher *h = &t->hs[t->opened];
        if (!hasher_open(h, lib, algs[t->opened % n], o))
            return 0;
        hasher_join(h, batch);
    }
    for (size_t k = 0; k < n; k++)
        t->sum_bytes += t->hs[k].size;
    for (size_t j = 0; j < nslots; j++)
        t->f[j].hs = &t->hs[j * n];
    return 1;
}

void turns_close(turns *t)
{
    for (size_t i = 0; i < t->opened; i++)
        hasher_close(&t->hs[i]);
    free(t->hs);
    free(t->buf);
    t->hs = NULL;
    t->buf = NULL;
}

/* An EVP failure: the reason is taken now, on the thread that had it. */
static int evp_failed(file_result *r)
{
    char why[512];

    openssl_reason(why, sizeof why);
    r->why = strdup(why);
    return KSUM_EHASH;
}

/* Ends f's file: its result goes to the pool. */
static void finish(turns *t, in_flight *f, const turns_source *src)
{
    if (f->r.err == 0 && !file_unchanged(f->fd, &f->before))
        f->r.err = KSUM_ECHANGED;
    for (size_t k = 0, at = 0; f->r.err == 0 && k < t->nalgs; k++) {
        if (!hasher_end(&f->hs[k], f->r.sums + at))
            f->r.err = evp_failed(&f->r);
        at += f->hs[k].size;
    }
    if (f->r.err != 0) {
        free(f->r.sums);
        f->r.sums = NULL;
    }
    close(f->fd);
    f->active = 0;
    src->publish(src->ctx, f->index, &f->r);
}

/* Starts a file in f; 0 when it failed at once (its result published). */
static int start(turns *t, in_flight *f, const char *path, int nofollow,
                 const turns_source *src)
{
    memset(&f->r, 0, sizeof f->r);
    f->ended = 0;
    f->started = 0;
    /* Regular files only, opened without waiting: something that is no
     * longer a regular file goes back to the pool, which decides. */
    f->r.err = open_named(path, 1, nofollow, &f->fd, &f->before);
    if (f->r.err == 0 && (f->r.sums = malloc(t->sum_bytes)) == NULL)
        f->r.err = ENOMEM;
    if (f->r.err == 0)
        file_progress_start(f->progress, &f->before);
    for (size_t k = 0; f->r.err == 0 && k < t->nalgs; k++)
        if (!hasher_begin(&f->hs[k]))
            f->r.err = evp_failed(&f->r);
    if (f->r.err == 0)
        return 1;
    free(f->r.sums);
    f->r.sums = NULL;
    if (f->fd >= 0)
        close(f->fd);
    src->publish(src->ctx, f->index, &f->r);
    return 0;
}

/* Fills the free places; waits for a file only when none is in flight
 * (then this worker is hungry: the pool counts it until it has a file). */
static size_t fill(turns *t, const turns_source *src, size_t active)
{
    for (size_t j = 0; j < t->nslots; j++) {
        in_flight *f = &t->f[j];
        const char *path;
        int nofollow;
        while (!f->active) {
            int wait = active == 0;
            if (wait && !t->hungry) {
                src->starving(src->ctx);
                t->hungry = 1;
            }
            if (!src->take(src->ctx, wait, &f->index, &path, &nofollow, &f->progress))
                break;
            t->hungry &= !wait;
            f->active = start(t, f, path, nofollow, src);
            active += f->active;
        }
    }
    return active;
}

/* A file's first turn is short: K12 batches only its first 8 KiB chunk
 * and flushes when the input goes past it, so every file in flight must
 * have that chunk pending before any goes on, for the flush to pair them
 * (ksumprov's batch.h); a short first turn costs the others nothing. */
#define FIRST_TURN ((size_t)8192)

/* One turn of f: the next bytes of its file to every context. */
static void feed(turns *t, in_flight *f)
{
    int err;
    size_t want = !f->started && t->turn > FIRST_TURN ? FIRST_TURN : t->turn;
    size_t n = read_full(f->fd, t->buf, want, &err);

    file_progress_add(f->progress, n);
    for (size_t k = 0; n > 0 && k < t->nalgs; k++)
        if (!hasher_update(&f->hs[k], t->buf, n)) {
            f->r.err = evp_failed(&f->r);
            break;
        }
    if (f->r.err == 0)
        f->r.err = err;
    f->ended = f->r.err != 0 || n < want;
    f->started = 1;
}

static void drop_all(turns *t)
{
    for (size_t j = 0; j < t->nslots; j++)
        if (t->f[j].active) {
            close(t->f[j].fd);
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
                feed(t, &t->f[j]);
        /* The finals after every file had its turn: a final absorbs the
         * other members' pending blocks with its own. */
        for (size_t j = 0; j < t->nslots; j++)
            if (t->f[j].active && t->f[j].ended) {
                finish(t, &t->f[j], src);
                active--;
            }
        if (src->stopped(src->ctx)) {
            drop_all(t);
            return;
        }
    }
}
