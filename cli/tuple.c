/* SPDX-License-Identifier: Apache-2.0 */
#include "tuple.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A regular file of size bytes, announced, then read as it comes.  More or
 * fewer bytes than its size when opened means it changed. */
static int regular_element(hasher *h, int fd, uint64_t size, input *in)
{
    uint64_t done = 0;

    if (!hasher_announce(h, size))
        return KSUM_EHASH;
    for (;;) {
        ssize_t n = read(fd, in->buf[0], in->size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return done == size ? 0 : KSUM_ECHANGED;
        if ((uint64_t)n > size - done)
            return KSUM_ECHANGED;
        if (!hasher_update(h, in->buf[0], (size_t)n))
            return KSUM_EHASH;
        done += (uint64_t)n;
    }
}

/* A stream: its length is known only at its end. */
static int stream_element(hasher *h, int fd)
{
    uint8_t *buf = NULL, *grown;
    size_t len = 0, cap = 0;
    int err = 0;

    for (;;) {
        ssize_t n;
        if (len == cap) {
            cap = cap ? 2 * cap : 1 << 16;
            if (cap <= len || (grown = realloc(buf, cap)) == NULL) {
                err = ENOMEM;
                break;
            }
            buf = grown;
        }
        n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            err = n < 0 ? errno : 0;
            break;
        }
        len += (size_t)n;
    }
    if (err == 0 && (!hasher_announce(h, len) || !hasher_update(h, buf, len)))
        err = KSUM_EHASH;
    free(buf);
    return err;
}

static int element(hasher *h, const char *path, input *in)
{
    struct stat st;
    int fd, err;

    if (strcmp(path, "-") == 0)
        return stream_element(h, STDIN_FILENO);
    fd = open(path, O_RDONLY | O_NOCTTY | (in->regular_only ? O_NONBLOCK : 0));
    if (fd < 0)
        return errno;
    if (fstat(fd, &st) != 0)
        err = errno;
    else if (in->regular_only && !S_ISREG(st.st_mode))
        err = KSUM_ENOTREG;
    else if (S_ISREG(st.st_mode)) {
        err = regular_element(h, fd, (uint64_t)st.st_size, in);
        if (err == 0 && !file_unchanged(fd, &st))
            err = KSUM_ECHANGED;
    } else
        err = stream_element(h, fd);
    close(fd);
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
