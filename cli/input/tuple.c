/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE /* O_TMPFILE */
#include "input/tuple.h"

#include "input/feed.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* An element of size bytes, announced, then fed: more or fewer bytes than
 * that means it changed (feed.h judges it). */
static int regular_element(hasher *h, feed *f, uint64_t size, input *in)
{
    if (!hasher_announce(h, size))
        return KSUM_EHASH;
    f->length = size;
    return feed_all(f, &h, 1, in);
}

/* A stream waits in memory up to this, then in a temporary file. */
#define STREAM_IN_MEMORY ((size_t)32 << 20)

/* Reads fd to its end, or until *len passes limit (a stream of limit
 * bytes exactly stays in memory). */
static int read_stream(int fd, uint8_t **buf, size_t *len, size_t limit)
{
    size_t cap = 0, want, got;
    uint8_t *grown;
    int err;

    do {
        if (*len > limit)
            return 0;
        cap = cap == 0 ? 1 << 16 : 2 * cap <= limit ? 2 * cap : limit + 1;
        if ((grown = realloc(*buf, cap)) == NULL)
            return ENOMEM;
        *buf = grown;
        want = cap - *len;
        *len += got = read_full(fd, *buf + *len, want, &err);
    } while (err == 0 && got == want);
    return err;
}

/* An unnamed file in $TMPDIR (or /tmp), gone when closed; -1 if none. */
static int temporary_file(void)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    int fd;

    if (dir == NULL || *dir == '\0')
        dir = "/tmp";
    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
        return fd;
    /* A file system without O_TMPFILE: a named file, unlinked at once. */
    if (snprintf(path, sizeof path, "%s/ksum-XXXXXX", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if ((fd = mkstemp(path)) >= 0)
        unlink(path);
    return fd;
}

/* The first bytes of a long stream, then the rest of it, into a temporary
 * file; then that file as a regular element. */
static int spilled_element(hasher *h, int fd, const uint8_t *head, size_t len, input *in)
{
    int tmp = temporary_file(), err;
    uint64_t total = len;

    if (tmp < 0) {
        in->spill_errno = errno;
        return KSUM_ESPILL;
    }
    err = write_all(tmp, head, len) ? 0 : KSUM_ESPILL;
    for (size_t n = in->size; err == 0 && n == in->size; total += n) {
        n = read_full(fd, in->buf[0], in->size, &err);
        if (err == 0 && !write_all(tmp, in->buf[0], n))
            err = KSUM_ESPILL;
    }
    if (err == KSUM_ESPILL)
        in->spill_errno = errno;    /* the failed write's: ENOSPC, EDQUOT, ... */
    if (err == 0 && lseek(tmp, 0, SEEK_SET) != 0)
        err = errno;
    if (err == 0) {
        feed f;
        feed_use(&f, tmp, NULL);
        err = regular_element(h, &f, total, in);
    }
    close(tmp);
    return err;
}

/* A stream: its length, which TupleHash needs before its bytes, is known
 * only at its end. */
static int stream_element(hasher *h, int fd, input *in)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    int err = read_stream(fd, &buf, &len, STREAM_IN_MEMORY);

    if (err == 0 && len > STREAM_IN_MEMORY)
        err = spilled_element(h, fd, buf, len, in);
    else if (err == 0 && (!hasher_announce(h, len) || !hasher_update(h, buf, len)))
        err = KSUM_EHASH;
    free(buf);
    return err;
}

/* A regular file has a known length, also one redirected to standard
 * input (from where it stands); anything else is a stream. */
static int element(hasher *h, const char *path, input *in)
{
    feed f;
    off_t at = 0;
    int err = feed_open(&f, AT_FDCWD, path, in->regular_only, 0, NULL);

    if (err == 0 && f.watched && size_is_known(f.fd, &f.before) &&
        (f.owned || ((at = lseek(f.fd, 0, SEEK_CUR)) >= 0 && at <= f.before.st_size)))
        err = regular_element(h, &f, (uint64_t)(f.before.st_size - at), in);
    else if (err == 0)
        err = stream_element(h, f.fd, in);
    feed_close(&f);
    return err;
}

int hash_tuple(hasher *h, char *const *paths, size_t n, input *in, uint8_t *sum,
               const char **failed)
{
    int err = 0;

    *failed = n > 0 ? paths[0] : "-";
    if (!hasher_begin(h))
        return KSUM_EHASH;
    for (size_t i = 0; i < n && err == 0; i++) {
        *failed = paths[i];
        err = element(h, paths[i], in);
    }
    if (err == 0 && sum != NULL && !hasher_end(h, sum))
        err = KSUM_EHASH;
    return err;
}
