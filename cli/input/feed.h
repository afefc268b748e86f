/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one path for a file's bytes into hashers: an opened input (a regular
 * file, a stream, or an element of a tuple of known length) is fed piece by
 * piece to a set of hashers, by whichever path hashes it (one file after
 * another, a worker's files in turns, the elements of a tuple).  At its end
 * it is judged once, here: a regular file opened by name must be as it was
 * opened (size and modification time), and an element must have had the
 * length announced for it; otherwise the sum would belong to no version of
 * the file.
 */
#ifndef KSUM_CLI_FEED_H
#define KSUM_CLI_FEED_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "front/hasher.h"
#include "input/files.h"

/* A reader thread filling input's buffers while the feed's thread hashes
 * them, so that reading overlaps hashing. */
typedef struct feed_ring {
    input *in;
    pthread_t id;
    pthread_mutex_t mu;
    pthread_cond_t changed;
    size_t filled, consumed;      /* buffers filled and hashed so far */
    size_t got[INPUT_BUFFERS];    /* bytes in each buffer */
    int err, done, stop;          /* read error; end of file; hashing stopped */
} feed_ring;

#define FEED_ANY_LENGTH UINT64_MAX

typedef struct feed {
    int fd;
    int owned;                /* fd is the feed's to close */
    int watched;              /* a regular file opened by name: must not change */
    struct stat before;       /* its status when opened */
    uint64_t length;          /* the bytes it must have, or FEED_ANY_LENGTH */
    uint64_t done;
    file_progress *progress;  /* may be NULL */
    int ended;                /* its end was read (and judged) */
    int reading_ahead;        /* ring runs */
    feed_ring ring;
} feed;

/* Opens the file at path in dirfd ("-" in AT_FDCWD: standard input, judged
 * for change when it is a regular file) as open_named does; returns 0 or
 * why not. */
int feed_open(feed *f, int dirfd, const char *path, int regular_only, int nofollow,
              file_progress *progress);
/* A descriptor already open (standard input, a temporary file), not judged
 * for change, not closed by feed_close. */
void feed_use(feed *f, int fd, file_progress *progress);
/* From now on a reader thread reads ahead into in's buffers, when they are
 * there and the file is long enough for it to pay. */
void feed_read_ahead(feed *f, input *in);
void feed_close(feed *f);

/* The next piece (up to want bytes, read into buf; with a reader thread,
 * its next buffer) to each of the n hashers.  Returns 0, with f->ended set
 * once the end was read and the input judged sound; or the errno value or
 * KSUM_E* code that stopped it (KSUM_EHASH: a hasher failed, KSUM_ECHANGED:
 * the input changed). */
int feed_next(feed *f, hasher *const *hs, size_t n, uint8_t *buf, size_t want);
/* One big file on every core (spread.c): the file just opened in f, for h
 * begun or not.  When it is a regular file of at least two ranges, h of
 * the KangarooTwelve family and more than one thread its to use, hashes it
 * so and returns 1, h's context left as the final node ready for
 * hasher_end or hasher_squeeze and *err as feed_all returns it (the size
 * and time checked as there, and the bytes against the size).  Else 0,
 * with nothing read. */
int feed_spread(feed *f, hasher *h, int *err);
/* Every piece to its end, in in's first buffer. */
int feed_all(feed *f, hasher *const *hs, size_t n, input *in);

/* The file at path ("-": standard input) from begin to end for the n
 * hashers: each into sums[k], or left to hasher_squeeze when sums[k] is
 * NULL; in->regular_only and in->nofollow as open_named takes them, read
 * ahead when in->read_ahead.  Returns as feed_next does. */
int feed_path(hasher *const *hs, size_t n, const char *path, input *in,
              uint8_t *const *sums);

#endif
