/* SPDX-License-Identifier: Apache-2.0 */
/* How fast read(2) copies a file out of the page cache into a buffer at a
 * given offset from a page boundary.  On a 2-vCPU AMD EPYC the copy into a
 * buffer 16 bytes off a 64-byte line (where malloc puts a large block) took
 * five times as long as into an aligned one; that is why ksum reads into
 * page-aligned buffers (cli/input/files.c, input_buffer_new).
 * Usage: bench/read_align FILE   (hash or cat it once first to cache it) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Seconds to read the whole file in pieces of size bytes at buf. */
static double read_all(const char *path, unsigned char *buf, size_t size, double *bytes)
{
    int fd = open(path, O_RDONLY);
    double t0 = seconds();
    ssize_t n;

    *bytes = 0;
    if (fd < 0)
        return -1;
    while ((n = read(fd, buf, size)) > 0)
        *bytes += (double)n;
    close(fd);
    return n < 0 ? -1 : seconds() - t0;
}

int main(int argc, char **argv)
{
    static const size_t offsets[] = {0, 16, 64};
    const size_t size = (size_t)1 << 20;
    unsigned char *base = NULL;

    if (argc != 2 || posix_memalign((void **)&base, 4096, size + 4096) != 0) {
        fprintf(stderr, "usage: read_align FILE\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
        double bytes, t = read_all(argv[1], base + offsets[i], size, &bytes);
        if (t < 0) {
            perror(argv[1]);
            return 1;
        }
        printf("offset %3zu: %7.2f GB/s (1 MiB reads)\n", offsets[i], bytes / t / 1e9);
    }
    free(base);
    return 0;
}
