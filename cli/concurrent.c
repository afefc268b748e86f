/* SPDX-License-Identifier: Apache-2.0 */
#include "concurrent.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "hasher.h"
#include "output.h"

#define MAX_WORKERS 64

typedef struct result {
    int done, err;
    uint8_t *sum;
} result;

/* Workers take files in order, at most `window` ahead of the printing, so
 * memory stays bounded however many files there are. */
typedef struct pool {
    char **files;
    size_t nfiles, next, printed, window;
    result *results;
    pthread_mutex_t mu;
    pthread_cond_t done, room;
} pool;

typedef struct worker {
    pool *p;
    hasher h;
    input in;
} worker;

static int take_file(pool *p, size_t *index)
{
    int have;

    pthread_mutex_lock(&p->mu);
    while (p->next < p->nfiles && p->next >= p->printed + p->window)
        pthread_cond_wait(&p->room, &p->mu);
    have = p->next < p->nfiles;
    if (have)
        *index = p->next++;
    pthread_mutex_unlock(&p->mu);
    return have;
}

static void *work(void *arg)
{
    worker *w = arg;
    pool *p = w->p;
    size_t i;

    while (take_file(p, &i)) {
        uint8_t *sum = malloc(w->h.size);
        int err = sum ? hash_path(&w->h, p->files[i], &w->in, sum) : ENOMEM;
        pthread_mutex_lock(&p->mu);
        p->results[i] = (result){1, err, sum};
        pthread_cond_broadcast(&p->done);
        pthread_mutex_unlock(&p->mu);
    }
    return NULL;
}

static int print_in_order(const options *o, pool *p, size_t size)
{
    int ok = 1;

    for (size_t i = 0; i < p->nfiles; i++) {
        result r;
        pthread_mutex_lock(&p->mu);
        while (!p->results[i].done)
            pthread_cond_wait(&p->done, &p->mu);
        r = p->results[i];
        pthread_mutex_unlock(&p->mu);
        if (r.err != 0) {
            report_error(p->files[i], r.err, NULL);
            ok = 0;
        } else {
            sum_source src = {r.sum, size, NULL};
            print_sum_line(o, o->alg, p->files[i], &src);
        }
        free(r.sum);
        pthread_mutex_lock(&p->mu);
        p->printed++;
        pthread_cond_broadcast(&p->room);
        pthread_mutex_unlock(&p->mu);
    }
    return ok;
}

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
    }
    return opened;
}

int hash_files_concurrently(const options *o, OSSL_LIB_CTX *lib,
                            unsigned workers)
{
    worker w[MAX_WORKERS];
    pthread_t ids[MAX_WORKERS];
    pool p = {0};
    unsigned opened, started = 0;
    int ok = -1;

    while (o->files[p.nfiles] != NULL)
        p.nfiles++;
    if (workers > MAX_WORKERS)
        workers = MAX_WORKERS;
    if (workers > p.nfiles)
        workers = (unsigned)p.nfiles;
    p.files = o->files;
    p.window = 4 * (size_t)workers;
    p.results = calloc(p.nfiles, sizeof *p.results);
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.done, NULL);
    pthread_cond_init(&p.room, NULL);
    opened = p.results ? open_workers(w, workers, &p, o, lib) : 0;
    if (opened == workers) {
        for (; started < workers; started++)
            if (pthread_create(&ids[started], NULL, work, &w[started]) != 0)
                break;
        if (started > 0) {
            ok = print_in_order(o, &p, w[0].h.size);
            for (unsigned i = 0; i < started; i++)
                pthread_join(ids[i], NULL);
        }
    }
    for (unsigned i = 0; i < opened; i++) {
        input_free(&w[i].in);
        hasher_close(&w[i].h);
    }
    free(p.results);
    pthread_cond_destroy(&p.room);
    pthread_cond_destroy(&p.done);
    pthread_mutex_destroy(&p.mu);
    return ok;
}
