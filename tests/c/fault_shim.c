/* SPDX-License-Identifier: Apache-2.0 */
/*
 * LD_PRELOAD shim for the fault tests: reads of one file misbehave after a
 * number of bytes.  Environment:
 *   KSUM_FAULT_PATH   absolute path of the file
 *   KSUM_FAULT_AFTER  bytes read normally first
 *   KSUM_FAULT_MODE   eio: read fails with EIO; truncate: the file is cut to
 *                     that length; grow: 1000 bytes are appended to it
 * Only ksum's own read() calls are affected (stdio reads do not go
 * through this symbol).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t done[4096];
static int fired[4096];

static int is_target(int fd)
{
    const char *want = getenv("KSUM_FAULT_PATH");
    char link[64], path[PATH_MAX];
    ssize_t n;

    if (want == NULL || fd < 0 || fd >= 4096)
        return 0;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    n = readlink(link, path, sizeof path - 1);
    if (n < 0)
        return 0;
    path[n] = '\0';
    return strcmp(path, want) == 0;
}

static void change_file(const char *mode, const char *path, size_t at)
{
    if (strcmp(mode, "truncate") == 0) {
        if (truncate(path, (off_t)at) != 0)
            perror("fault shim: truncate");
    } else if (strcmp(mode, "grow") == 0) {
        int fd = open(path, O_WRONLY | O_APPEND);
        char junk[1000] = {0};
        if (fd < 0 || write(fd, junk, sizeof junk) != (ssize_t)sizeof junk)
            perror("fault shim: grow");
        if (fd >= 0)
            close(fd);
    }
}

__attribute__((visibility("default")))
ssize_t read(int fd, void *buf, size_t count)
{
    static ssize_t (*real_read)(int, void *, size_t);
    const char *mode = getenv("KSUM_FAULT_MODE");
    size_t after = strtoull(getenv("KSUM_FAULT_AFTER") ? getenv("KSUM_FAULT_AFTER") : "0",
                            NULL, 10);
    ssize_t n;

    if (real_read == NULL)
        real_read = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
    if (mode == NULL || !is_target(fd))
        return real_read(fd, buf, count);
    if (done[fd] >= after) {
        if (strcmp(mode, "eio") == 0) {
            errno = EIO;
            return -1;
        }
        if (!fired[fd]) {
            fired[fd] = 1;
            change_file(mode, getenv("KSUM_FAULT_PATH"), after);
        }
    } else if (count > after - done[fd]) {
        count = after - done[fd]; /* stop exactly at the fault point */
    }
    n = real_read(fd, buf, count);
    if (n > 0)
        done[fd] += (size_t)n;
    return n;
}
