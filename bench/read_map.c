/* SPDX-License-Identifier: Apache-2.0 */
/*
 * read(2) against mmap(2) over one file in the page cache, side by side:
 * how long it takes to bring its bytes to a hasher each way, and what that
 * costs in user and system time.  Each of THREADS threads takes an equal
 * range of the file (as ksum's threads take ranges or files) and either
 * preads it in pieces into a page-aligned buffer of its own, or maps it
 * (plain, with MAP_POPULATE, or with madvise(MADV_SEQUENTIAL |
 * MADV_WILLNEED)) and hashes the mapping in place.  The work on the bytes
 * is a sum of their 64-bit words ("touch"), or SHA3-256 or KT128 through
 * EVP with ksumprov built in.  The modes run in turns, RUNS rounds; the
 * best wall time of each is printed with the user and system time of that
 * run.  Why ksum reads and does not map: docs/benchmarks.md.
 * Usage: bench/read_map FILE [RUNS (7) [THREADS (1) [touch|sha3-256|k12]]]
 * (cat the file to /dev/null first, so that it is in the page cache)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ksumprov.h"

#define MAX_THREADS 16

enum mode { READ_64K, READ_1M, MAP, MAP_POPULATE_, MAP_ADVISED, MAP_HUGE, MODES };
static const char *const mode_names[MODES] = {
    "read, 64 KiB pieces", "read, 1 MiB pieces", "mmap", "mmap + MAP_POPULATE",
    "mmap + madvise(SEQUENTIAL|WILLNEED)", "mmap + madvise(HUGEPAGE), touched",
};

static OSSL_LIB_CTX *lib;
static EVP_MD *md;          /* NULL: touch the bytes */
static int fd;
static off_t file_size;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu_seconds(const struct timeval *tv)
{
    return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

typedef struct job {
    enum mode mode;
    off_t from, to;
    uint64_t sum;           /* the words' sum, or digest bytes: kept */
    int failed;
} job;

static uint64_t touch(const uint8_t *p, size_t n)
{
    uint64_t s = 0, w;

    for (size_t i = 0; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);
        s += w;
    }
    return s;
}

/* Hashes or touches the next n bytes at p. */
static void consume(job *j, EVP_MD_CTX *ctx, const uint8_t *p, size_t n)
{
    if (ctx != NULL)
        j->failed |= !EVP_DigestUpdate(ctx, p, n);
    else
        j->sum += touch(p, n);
}

static void *run_job(void *arg)
{
    job *j = arg;
    EVP_MD_CTX *ctx = md != NULL ? EVP_MD_CTX_new() : NULL;
    size_t len = (size_t)(j->to - j->from);

    if (ctx != NULL && !EVP_DigestInit_ex2(ctx, md, NULL))
        j->failed = 1;
    if (j->mode == READ_64K || j->mode == READ_1M) {
        size_t piece = j->mode == READ_64K ? (size_t)64 << 10 : (size_t)1 << 20;
        uint8_t *buf = NULL;
        if (posix_memalign((void **)&buf, 4096, piece) != 0) {
            j->failed = 1;
            return NULL;
        }
        for (off_t at = j->from; at < j->to;) {
            size_t want = (size_t)(j->to - at) < piece ? (size_t)(j->to - at) : piece;
            ssize_t got = pread(fd, buf, want, at);
            if (got <= 0) {
                j->failed = 1;
                break;
            }
            consume(j, ctx, buf, (size_t)got);
            at += got;
        }
        free(buf);
    } else {
        /* A mapping starts on a page: the range's first page on. */
        off_t start = j->from & ~(off_t)4095;
        size_t skip = (size_t)(j->from - start), maplen = len + skip;
        int flags = MAP_PRIVATE | (j->mode == MAP_POPULATE_ ? MAP_POPULATE : 0);
        uint8_t *p = mmap(NULL, maplen, PROT_READ, flags, fd, start);
        if (p == MAP_FAILED) {
            j->failed = 1;
            return NULL;
        }
        if (j->mode == MAP_ADVISED)
            madvise(p, maplen, MADV_SEQUENTIAL | MADV_WILLNEED);
        if (j->mode == MAP_HUGE)
            madvise(p, maplen, MADV_HUGEPAGE);
        /* In 1 MiB steps, as a hasher is fed: the same update sizes. */
        for (size_t at = 0; at < len; at += (size_t)1 << 20)
            consume(j, ctx, p + skip + at, len - at < ((size_t)1 << 20) ? len - at : (size_t)1 << 20);
        munmap(p, maplen);
    }
    if (ctx != NULL) {
        unsigned char out[EVP_MAX_MD_SIZE];
        unsigned int outl = 0;
        j->failed |= !EVP_DigestFinal_ex(ctx, out, &outl);
        j->sum += out[0];
        EVP_MD_CTX_free(ctx);
    }
    return NULL;
}

/* One run of mode on every thread: wall seconds, user and system. */
static int run(enum mode mode, unsigned threads, double *wall, double *user, double *sys)
{
    pthread_t ids[MAX_THREADS];
    job jobs[MAX_THREADS];
    struct rusage r0, r1;
    int failed = 0;
    double t0;

    getrusage(RUSAGE_SELF, &r0);
    t0 = now();
    for (unsigned i = 0; i < threads; i++) {
        jobs[i] = (job){mode, file_size * i / threads, file_size * (i + 1) / threads, 0, 0};
        if (threads == 1)
            run_job(&jobs[i]);
        else if (pthread_create(&ids[i], NULL, run_job, &jobs[i]) != 0)
            return 0;
    }
    for (unsigned i = 0; threads > 1 && i < threads; i++)
        pthread_join(ids[i], NULL);
    *wall = now() - t0;
    getrusage(RUSAGE_SELF, &r1);
    *user = cpu_seconds(&r1.ru_utime) - cpu_seconds(&r0.ru_utime);
    *sys = cpu_seconds(&r1.ru_stime) - cpu_seconds(&r0.ru_stime);
    for (unsigned i = 0; i < threads; i++)
        failed |= jobs[i].failed;
    return !failed;
}

int main(int argc, char **argv)
{
    int runs = argc > 2 ? atoi(argv[2]) : 7;
    unsigned threads = argc > 3 ? (unsigned)atoi(argv[3]) : 1;
    const char *work = argc > 4 ? argv[4] : "touch";
    double best[MODES], user[MODES], sys[MODES];
    struct stat st;

    if (argc < 2 || argc > 5 || runs < 1 || threads < 1 || threads > MAX_THREADS) {
        fprintf(stderr, "usage: read_map FILE [RUNS [THREADS [touch|sha3-256|k12]]]\n");
        return 2;
    }
    if ((fd = open(argv[1], O_RDONLY)) < 0 || fstat(fd, &st) != 0) {
        perror(argv[1]);
        return 1;
    }
    file_size = st.st_size;
    if (strcmp(work, "touch") != 0) {
        lib = OSSL_LIB_CTX_new();
        if (lib == NULL || !OSSL_PROVIDER_add_builtin(lib, KSUMPROV_NAME, ksumprov_init) ||
            OSSL_PROVIDER_load(lib, KSUMPROV_NAME) == NULL ||
            (md = EVP_MD_fetch(lib, strcmp(work, "k12") == 0 ? "KT128" : "SHA3-256",
                               NULL)) == NULL) {
            fprintf(stderr, "read_map: no %s from ksumprov\n", work);
            return 1;
        }
    }
    for (int m = 0; m < MODES; m++)
        best[m] = -1;
    for (int r = 0; r < runs; r++)
        for (int m = 0; m < MODES; m++) {
            double w, u, s;
            if (!run((enum mode)m, threads, &w, &u, &s)) {
                fprintf(stderr, "read_map: %s failed\n", mode_names[m]);
                return 1;
            }
            if (best[m] < 0 || w < best[m])
                best[m] = w, user[m] = u, sys[m] = s;
        }
    printf("%.0f MiB, %u thread%s, %s, best of %d\n", (double)file_size / (1 << 20), threads,
           threads == 1 ? "" : "s", work, runs);
    printf("| bytes brought by | wall s | user s | system s | GB/s |\n|---|---|---|---|---|\n");
    for (int m = 0; m < MODES; m++)
        printf("| %s | %.3f | %.3f | %.3f | %.2f |\n", mode_names[m], best[m], user[m], sys[m],
               (double)file_size / best[m] / 1e9);
    EVP_MD_free(md);
    OSSL_LIB_CTX_free(lib);
    close(fd);
    return 0;
}
