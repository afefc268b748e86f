/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "concurrent.h"

#include <errno.h>
#include <sched.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"
#include "hasher.h"
#include "output.h"

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
    int done, err;
    int serial;     /* a stream: read by the printing thread, in order */
    uint8_t *sum;
    char *why;      /* OpenSSL's reason, when err is KSUM_EHASH */
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

typedef struct worker {
    pool *p;
    hasher h;
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

static int take_file(pool *p, size_t *index)
{
    int have = 0;

    pthread_mutex_lock(&p->mu);
    while (!have && !p->stop && p->next < p->nfiles) {
        if (p->next >= p->printed + p->window)
            pthread_cond_wait(&p->room, &p->mu);
        else if (p->results[p->next].serial)
            p->next++;
        else {
            *index = p->next++;
            have = 1;
        }
    }
    pthread_mutex_unlock(&p->mu);
    return have;
}

static result hash_one(worker *w, const char *path)
{
    result r = {1, 0, 0, malloc(w->h.size), NULL};
    char why[512];

    r.err = r.sum != NULL ? hash_path(&w->h, path, &w->in, r.sum) : ENOMEM;
    if (r.err == KSUM_EHASH) {
        /* OpenSSL's errors stay with the thread that had them. */
        openssl_reason(why, sizeof why);
        r.why = strdup(why);
    }
    return r;
}

static void free_result(result *r)
{
    free(r->sum);
    free(r->why);
    r->sum = NULL;
    r->why = NULL;
}

static void *work(void *arg)
{
    worker *w = arg;
    pool *p = w->p;
    size_t i;

    while (take_file(p, &i)) {
        result r = hash_one(w, p->files[i]);
        pthread_mutex_lock(&p->mu);
        p->results[i] = r;
        pthread_cond_broadcast(&p->done);
        pthread_mutex_unlock(&p->mu);
    }
    return NULL;
}

/* File i's result: from a worker, or hashed here when it is a stream (or
 * turned out to be one when a worker opened it). */
static result result_of(pool *p, size_t i, worker *self)
{
    result r;

    pthread_mutex_lock(&p->mu);
    while (!p->results[i].serial && !p->results[i].done)
        pthread_cond_wait(&p->done, &p->mu);
    r = p->results[i];
    p->results[i].sum = NULL;   /* now r's */
    p->results[i].why = NULL;
    pthread_mutex_unlock(&p->mu);
    if (r.serial || r.err == KSUM_ENOTREG) {
        free_result(&r);
        r = hash_one(self, p->files[i]);
    }
    return r;
}

/* Prints one file's line or error; returns 0, or KSUM_EWRITE to stop. */
static int print_one(const options *o, const hasher *h, const char *name,
                     result *r, int *ok)
{
    sum_source src = {r->sum, h->size, NULL};

    if (r->err == 0)
        return print_sum_line(o, h, (char *const *)&name, 1, &src);
    report_error(name, r->err, r->why);
    *ok = 0;
    return 0;
}

static int print_in_order(const options *o, pool *p, worker *self)
{
    int ok = 1, err = 0;

    for (size_t i = 0; i < p->nfiles && err != KSUM_EWRITE; i++) {
        result r = result_of(p, i, self);
        err = print_one(o, &self->h, p->files[i], &r, &ok);
        free_result(&r);
        pthread_mutex_lock(&p->mu);
        p->printed++;
        p->stop = err == KSUM_EWRITE;
        pthread_cond_broadcast(&p->room);
        pthread_mutex_unlock(&p->mu);
    }
    return ok && err != KSUM_EWRITE;
}

/* Opens n hashers and inputs; workers read regular files only. */
static unsigned open_workers(worker *w, unsigned n, pool *p,
                             const options *o, OSSL_LIB_CTX *lib)
{
    unsigned opened = 0;

    for (; opened < n; opened++) {
        w[opened].p = p;
        if (!hasher_open(&w[opened].h, lib, o->alg, o))
            break;
        if (!input_init(&w[opened].in, 0)) {
            input_free(&w[opened].in);
            hasher_close(&w[opened].h);
            break;
        }
        w[opened].in.regular_only = opened > 0;
    }
    return opened;
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
        free_result(&p->results[i]);  /* those left after a write error */
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
    unsigned opened;
    int ok = -1;

    if (workers > MAX_WORKERS)
        workers = MAX_WORKERS;
    if (!pool_init(&p, o->files))
        return -1;
    if (workers > p.nfiles)
        workers = (unsigned)p.nfiles;
    p.window = 4 * (size_t)workers;
    opened = open_workers(w, workers + 1, &p, o, lib);
    if (opened == workers + 1)
        ok = run_pool(o, &p, w, workers);
    for (unsigned i = 0; i < opened; i++) {
        input_free(&w[i].in);
        hasher_close(&w[i].h);
    }
    pool_free(&p);
    return ok;
}
