/* SPDX-License-Identifier: Apache-2.0 */
#include "input/feed.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "base/messages.h"
#include "base/thread.h"

void feed_use(feed *f, int fd, file_progress *progress)
{
    *f = (feed){.fd = fd, .length = FEED_ANY_LENGTH, .progress = progress};
    file_progress_start(progress, NULL);
}

int feed_open(feed *f, int dirfd, const char *path, int regular_only, int nofollow,
              file_progress *progress)
{
    int err;

    feed_use(f, STDIN_FILENO, progress);   /* feed_close may follow a failed open */
    /* A regular file given as standard input is watched as a named one:
     * one changed while it is read is an error, not a mixed checksum. */
    if (dirfd == AT_FDCWD && strcmp(path, "-") == 0) {
        f->watched = fstat(f->fd, &f->before) == 0 && S_ISREG(f->before.st_mode);
        return 0;
    }
    /* regular_only: a FIFO named by a check file must not make the open wait. */
    if ((err = open_named(dirfd, path, regular_only, nofollow, &f->fd, &f->before)) != 0)
        return err;
    f->owned = 1;
    f->watched = S_ISREG(f->before.st_mode);
    file_progress_start(progress, &f->before);
    return 0;
}

/* ---- reading ahead ---- */

static void *reader(void *arg)
{
    feed *f = arg;
    feed_ring *r = &f->ring;

    for (int done = 0; !done;) {
        size_t slot, n;
        int err, stop;
        pthread_mutex_lock(&r->mu);
        while (!r->stop && r->filled - r->consumed == INPUT_BUFFERS)
            pthread_cond_wait(&r->changed, &r->mu);
        slot = r->filled % INPUT_BUFFERS;
        stop = r->stop;
        pthread_mutex_unlock(&r->mu);
        if (stop)
            break;
        n = read_full(f->fd, r->in->buf[slot], r->in->size, &err);
        pthread_mutex_lock(&r->mu);
        r->got[slot] = n;
        r->err = err;
        r->done = done = err != 0 || n < r->in->size;
        r->filled++;
        pthread_cond_broadcast(&r->changed);
        pthread_mutex_unlock(&r->mu);
    }
    return NULL;
}

/* A reader thread pays for itself only over a file of several buffers: a
 * tree of small files must not start one thread each.  A stream's length
 * is unknown: it is read ahead. */
void feed_read_ahead(feed *f, input *in)
{
    feed_ring *r = &f->ring;

    if (!in->read_ahead || f->reading_ahead ||
        (f->owned && S_ISREG(f->before.st_mode) &&
         (uint64_t)f->before.st_size <= 2 * (uint64_t)in->size))
        return;
    memset(r, 0, sizeof *r);
    r->in = in;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->changed, NULL);
    if (thread_start(&r->id, reader, f) == 0) {
        f->reading_ahead = 1;
        return;
    }
    /* No thread: read in turn with the hashing, as without reading ahead. */
    pthread_cond_destroy(&r->changed);
    pthread_mutex_destroy(&r->mu);
}

/* The reader's next buffer, once filled: its bytes into *p; *last when it
 * is the last, with *err the read's error. */
static size_t ring_take(feed_ring *r, const uint8_t **p, int *last, int *err)
{
    size_t slot;

    pthread_mutex_lock(&r->mu);
    while (r->filled == r->consumed)
        pthread_cond_wait(&r->changed, &r->mu);
    slot = r->consumed % INPUT_BUFFERS;
    *last = r->done && r->filled == r->consumed + 1;
    *err = *last ? r->err : 0;
    pthread_mutex_unlock(&r->mu);
    *p = r->in->buf[slot];
    return r->got[slot];
}

/* The buffer ring_take gave is hashed: the reader may fill it again. */
static void ring_give_back(feed_ring *r)
{
    pthread_mutex_lock(&r->mu);
    r->consumed++;
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->mu);
}

void feed_close(feed *f)
{
    feed_ring *r = &f->ring;

    if (f->reading_ahead) {
        pthread_mutex_lock(&r->mu);
        r->stop = 1;
        pthread_cond_broadcast(&r->changed);
        pthread_mutex_unlock(&r->mu);
        pthread_join(r->id, NULL);
        pthread_cond_destroy(&r->changed);
        pthread_mutex_destroy(&r->mu);
        f->reading_ahead = 0;
    }
    if (f->owned)
        close(f->fd);
    f->owned = 0;
}

/* ---- feeding ---- */

/* The end of the input: it must be the version that was opened. */
static int judge_end(feed *f)
{
    f->ended = 1;
    if (f->length != FEED_ANY_LENGTH && f->done != f->length)
        return KSUM_ECHANGED;
    if (f->watched && !file_unchanged(f->fd, &f->before))
        return KSUM_ECHANGED;
    return 0;
}

int feed_next(feed *f, hasher *const *hs, size_t n, uint8_t *buf, size_t want)
{
    const uint8_t *p = buf;
    size_t got;
    int last, err, ok = 1;

    if (f->reading_ahead) {
        got = ring_take(&f->ring, &p, &last, &err);
    } else {
        got = read_full(f->fd, buf, want, &err);
        last = err != 0 || got < want;
    }
    /* More than announced: never given to a hasher that was told less. */
    if (f->length != FEED_ANY_LENGTH && got > f->length - f->done)
        ok = 0, err = KSUM_ECHANGED;
    for (size_t k = 0; ok && got > 0 && k < n; k++)
        if (!hasher_update(hs[k], p, got))
            ok = 0, err = KSUM_EHASH;
    if (f->reading_ahead)
        ring_give_back(&f->ring);
    if (!ok || err != 0)
        return err;
    f->done += got;
    file_progress_add(f->progress, got);
    return last ? judge_end(f) : 0;
}

int feed_all(feed *f, hasher *const *hs, size_t n, input *in)
{
    int err = 0;

    while (err == 0 && !f->ended)
        err = feed_next(f, hs, n, in->buf[0], in->size);
    return err;
}

int feed_path(hasher *const *hs, size_t n, const char *path, input *in,
              uint8_t *const *sums)
{
    feed f;
    int err = feed_open(&f, AT_FDCWD, path, in->regular_only, in->nofollow, in->progress);

    /* One file hashed by one tree mode: its threads read, too. */
    if (err == 0 && !(n == 1 && feed_spread(&f, hs[0], &err))) {
        feed_read_ahead(&f, in);
        for (size_t k = 0; err == 0 && k < n; k++)
            if (!hasher_begin(hs[k]))
                err = KSUM_EHASH;
        if (err == 0)
            err = feed_all(&f, hs, n, in);
    }
    for (size_t k = 0; err == 0 && k < n; k++)
        if (sums[k] != NULL && !hasher_end(hs[k], sums[k]))
            err = KSUM_EHASH;
    feed_close(&f);
    return err;
}
