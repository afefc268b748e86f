/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "concurrent.h"

#include <errno.h>
#include <openssl/err.h>
#include <sched.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"
#include "hasher.h"
#include "output.h"
#include "turns.h"

#include "ksumprov.h"

/* Workers hash files, the printing thread streams: --threads is capped at
 * the provider's own thread cap. */
#define MAX_WORKERS KSUMPROV_MAX_THREADS

unsigned ksum_cpu_count(void)
{
    cpu_set_t set;

    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    return 1;
}

typedef struct result {
    int done;
    int serial;     /* a stream: read by the printing thread, in order */
    file_result r;
} result;

/* Workers take regular files in order, at most `window` ahead of the
 * printing, so memory stays bounded however many files there are. */
typedef struct pool {
    char **files;
    size_t nfiles, next, printed, window;
    result *results;
    int stop;       /* standard output failed */
    pthread_mutex_t mu;
    pthread_cond_t done, room;
} pool;

/* A worker thread's files in flight; the printing thread's hasher and
 * buffer, for streams. */
typedef struct worker {
    pool *p;
    turns t;
    hasher_set set;
    input in;
} worker;

/* Only regular files go to the workers.  "-", pipes, terminals, devices,
 * /dev/stdin or /proc/self/fd/0 may be one stream under several names,
 * which two threads would split between them: the printing thread reads
 * those itself, one after the other in argument order. */
static int is_stream(const char *path)
{
    struct stat st;

    return strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode);
}

static int take_file(void *ctx, int wait, size_t *index, const char **path,
                     _Atomic uint64_t **counted)
{
    pool *p = ctx;
    int have = 0;

    pthread_mutex_lock(&p->mu);
    while (!have && !p->stop && p->next < p->nfiles) {
        if (p->next >= p->printed + p->window) {
            if (!wait)
                break;
            pthread_cond_wait(&p->room, &p->mu);
        } else if (p->results[p->next].serial)
            p->next++;
        else {
            *index = p->next++;
            have = 1;
        }
    }
    pthread_mutex_unlock(&p->mu);
    if (have) {
        *path = p->files[*index];
        *counted = NULL;
    }
    return have;
}

static void publish(void *ctx, size_t index, file_result *r)
{
    pool *p = ctx;

    pthread_mutex_lock(&p->mu);
    p->results[index].r = *r;
    p->results[index].done = 1;
    pthread_cond_broadcast(&p->done);
    pthread_mutex_unlock(&p->mu);
}

static int stopped(void *ctx)
{
    pool *p = ctx;
    int stop;

    pthread_mutex_lock(&p->mu);
    stop = p->stop;
    pthread_mutex_unlock(&p->mu);
    return stop;
}

static void *work(void *arg)
{
    worker *w = arg;
    turns_source src = {take_file, publish, stopped, w->p};

    turns_run(&w->t, &src);
    return NULL;
}

/* Hashed by the printing thread: a stream, or a file that a worker found
 * is not a regular file. */
static file_result hash_here(worker *self, const char *path)
{
    hasher_set *s = &self->set;
    file_result r = {0, malloc(s->sum_bytes), NULL};
    char why[512];

    r.err = r.sums != NULL ? hash_path_all(s->hs, s->n, path, &self->in, s->sums)
                           : ENOMEM;
    for (size_t k = 0, at = 0; r.err == 0 && k < s->n; at += s->hs[k++].size)
        memcpy(r.sums + at, s->sums[k], s->hs[k].size);
    if (r.err == KSUM_EHASH) {
        openssl_reason(why, sizeof why);
        r.why = strdup(why);
    }
    return r;
}

/* File i's result: from a worker, or hashed here when it is a stream (or
 * turned out to be one when a worker opened it). */
static file_result result_of(pool *p, size_t i, worker *self)
{
    file_result r;
    int serial;

    pthread_mutex_lock(&p->mu);
    while (!p->results[i].serial && !p->results[i].done)
        pthread_cond_wait(&p->done, &p->mu);
    r = p->results[i].r;
    serial = p->results[i].serial;
    memset(&p->results[i].r, 0, sizeof p->results[i].r);  /* now r's */
    pthread_mutex_unlock(&p->mu);
    if (serial || r.err == KSUM_ENOTREG) {
        file_result_free(&r);
        r = hash_here(self, p->files[i]);
    }
    return r;
}

/* Prints one file's lines (one per algorithm) or error; returns 0, or
 * KSUM_EWRITE to stop. */
static int print_one(const options *o, const char *name, file_result *r,
                     const hasher_set *s, int *ok)
{
    int err = 0;

    if (r->err != 0) {
        report_error(name, r->err, r->why);
        *ok = 0;
        return 0;
    }
    for (size_t k = 0, at = 0; k < s->n && err == 0; at += s->hs[k++].size) {
        sum_source src = {r->sums + at, s->hs[k].size, NULL};
        err = print_sum_line(o, o->algs[k], (char *const *)&name, 1, &src);
    }
    return err;
}

static int print_in_order(const options *o, pool *p, worker *self)
{
    int ok = 1, err = 0;

    for (size_t i = 0; i < p->nfiles && err != KSUM_EWRITE; i++) {
        file_result r = result_of(p, i, self);
        err = print_one(o, p->files[i], &r, &self->set, &ok);
        file_result_free(&r);
        pthread_mutex_lock(&p->mu);
        p->printed++;
        p->stop = err == KSUM_EWRITE;
        pthread_cond_broadcast(&p->room);
        pthread_mutex_unlock(&p->mu);
    }
    return ok && err != KSUM_EWRITE;
}

/* How a worker holds its files: TURNS_MAX in flight in turns of
 * BATCH_TURN bytes, their contexts in one batch group per worker, when the
 * algorithm batches and ksumprov runs the AVX2 kernel (elsewhere batching
 * costs a copy and gains nothing); otherwise one file, in big reads.
 * KSUM_BATCH=0 turns batching off, for benchmarks and debugging. */
#define BATCH_TURN (KSUMPROV_BATCH_PENDING < 65536 ? KSUMPROV_BATCH_PENDING : 65536)
/* The most memory all workers' contexts may hold back when batching. */
#define BATCH_MEMORY_MAX ((size_t)64 << 20)

static int batching_pays(const options *o, hasher *h, unsigned workers)
{
    const char *env = getenv("KSUM_BATCH");
    char backend[32];

    if (env != NULL && strcmp(env, "0") == 0)
        return 0;
    for (size_t k = 0; k < o->nalgs; k++)
        if (!(o->facts_of[k].takes & TAKES_BATCH))
            return 0;
    if ((size_t)workers * TURNS_MAX * o->nalgs * KSUMPROV_BATCH_PENDING >
        BATCH_MEMORY_MAX)
        return 0;
    return hasher_begin(h) && hasher_backend_of(h, backend, sizeof backend) &&
           strcmp(backend, "avx2") == 0;
}

/* The printing thread's hasher and buffer (w[0]), then the workers'
 * contexts (w[1..n]), batched or not.  *tried: the workers to close. */
static int open_workers(worker *w, unsigned n, pool *p, const options *o,
                        OSSL_LIB_CTX *lib, int *batched, unsigned *tried)
{
    memset(w, 0, (n + 1) * sizeof *w);
    *tried = 0;
    if (!hasher_set_open(&w[0].set, lib, o))
        return 0;
    if (!input_init(&w[0].in, 0)) {
        fprintf(message_stream(), "ksum: out of memory\n");
        return 0;
    }
    *batched = batching_pays(o, &w[0].set.hs[0], n);
    ERR_clear_error();
    while (*tried < n) {
        worker *wk = &w[++*tried];
        wk->p = p;
        if (!turns_open(&wk->t, lib, o, o->algs, o->nalgs, *batched ? TURNS_MAX : 1,
                        *batched ? BATCH_TURN : INPUT_SIZE, *batched ? *tried : 0))
            return 0;
    }
    return 1;
}

static void close_workers(worker *w, unsigned tried)
{
    input_free(&w[0].in);
    hasher_set_close(&w[0].set);
    for (unsigned i = 1; i <= tried; i++)
        turns_close(&w[i].t);
}

/* Starts the workers (w[1..n]), prints, joins; -1 if none started. */
static int run_pool(const options *o, pool *p, worker *w, unsigned n)
{
    pthread_t ids[MAX_WORKERS];
    unsigned started = 0;
    int ok;

    for (; started < n; started++)
        if (pthread_create(&ids[started], NULL, work, &w[started + 1]) != 0)
            break;
    if (started == 0)
        return -1;
    ok = print_in_order(o, p, &w[0]);
    for (unsigned i = 0; i < started; i++)
        pthread_join(ids[i], NULL);
    return ok;
}

static int pool_init(pool *p, char **files)
{
    memset(p, 0, sizeof *p);
    p->files = files;
    while (files[p->nfiles] != NULL)
        p->nfiles++;
    p->results = calloc(p->nfiles, sizeof *p->results);
    if (p->results == NULL)
        return 0;
    for (size_t i = 0; i < p->nfiles; i++)
        p->results[i].serial = is_stream(files[i]);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->done, NULL);
    pthread_cond_init(&p->room, NULL);
    return 1;
}

static void pool_free(pool *p)
{
    for (size_t i = 0; i < p->nfiles; i++)
        file_result_free(&p->results[i].r);  /* those left after a write error */
    free(p->results);
    pthread_cond_destroy(&p->room);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
}

int hash_files_concurrently(const options *o, OSSL_LIB_CTX *lib,
                            unsigned workers)
{
    worker w[MAX_WORKERS + 1];  /* w[0]: the printing thread's own */
    pool p;
    unsigned tried;
    int ok = -1, batched = 0;

    if (workers > MAX_WORKERS)
        workers = MAX_WORKERS;
    if (!pool_init(&p, o->files))
        return -1;
    if (workers > p.nfiles)
        workers = (unsigned)p.nfiles;
    /* One thread gains only from batching. */
    if (open_workers(w, workers, &p, o, lib, &batched, &tried) &&
        (workers > 1 || batched)) {
        p.window = 4 * (size_t)workers * (batched ? TURNS_MAX : 1);
        ok = run_pool(o, &p, w, workers);
    }
    close_workers(w, tried);
    pool_free(&p);
    return ok;
}
