/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cost of listing a tree with fts(3) against the readdir walk ksum
 * uses (d_type, no stat per entry, fd-relative openat of each directory):
 * build/bench/walk_fts DIR [ROUNDS] prints the best time of each way to
 * count the regular files under DIR.  docs/benchmarks.md has the figures.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <fts.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int dot(const char *n)
{
    return n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'));
}

static long by_readdir(int fd)
{
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    struct dirent *e;
    long n = 0;

    if (d == NULL)
        return 0;
    while ((e = readdir(d)) != NULL) {
        if (dot(e->d_name))
            continue;
        if (e->d_type == DT_DIR)
            n += by_readdir(openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
        else if (e->d_type == DT_REG)
            n++;
    }
    closedir(d);
    return n;
}

static long by_fts(char *root, int flags)
{
    char *roots[] = {root, NULL};
    FTS *f = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR | flags, NULL);
    FTSENT *e;
    long n = 0;

    if (f == NULL)
        return 0;
    while ((e = fts_read(f)) != NULL)
        /* without a stat, glibc's fts does not type an entry: every
         * one that is not a directory is counted (a tree of files) */
        n += e->fts_info == FTS_F || e->fts_info == FTS_NSOK;
    fts_close(f);
    return n;
}

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    static const char *names[] = {"readdir, d_type, openat", "fts, FTS_PHYSICAL (a stat each)",
                                  "fts, FTS_PHYSICAL | FTS_NOSTAT"};
    double best[3] = {1e9, 1e9, 1e9};
    long count[3] = {0, 0, 0};
    int rounds = argc > 2 ? atoi(argv[2]) : 5;

    if (argc < 2) {
        fprintf(stderr, "usage: walk_fts DIR [ROUNDS]\n");
        return 2;
    }
    for (int r = 0; r < rounds; r++)
        for (int way = 0; way < 3; way++) {
            double t = now();
            count[way] = way == 0   ? by_readdir(open(argv[1], O_RDONLY | O_DIRECTORY))
                         : way == 1 ? by_fts(argv[1], 0)
                                    : by_fts(argv[1], FTS_NOSTAT);
            t = now() - t;
            if (t < best[way])
                best[way] = t;
        }
    for (int way = 0; way < 3; way++)
        printf("%-34s %8ld files %8.3f s (%.1fx)\n", names[way], count[way], best[way],
               best[way] / best[0]);
    return 0;
}
