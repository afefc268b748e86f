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
#include "progress.h"
#include "resolve.h"
#include "turns.h"
#include "walk.h"

#include "ksumprov.h"
#include "thread.h"

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

/* One name in the window: produced by the walk, hashed by a worker (a
 * regular file) or by the printing thread (the rest), printed in order. */
typedef struct entry {
    named n;
    int done;           /* a worker published r */
    file_result r;
    file_progress progress;
} entry;

/* The names come from a generator (operands, a list, a walk), produced by
 * whichever thread needs the next one; workers take regular files in
 * order, at most `window` ahead of the printing, so memory stays bounded
 * however many files there are. */
typedef struct pool {
    name_source *names;
    entry *ring;                /* window entries: entry i at i % window */
    size_t window;
    size_t produced, next, printed;
    int producing, ended;       /* in the generator; it has no more */
    int stop;                   /* standard output failed */
    /* Workers with no file yet, or none left in flight: until they have
     * one, the others take no second file (two big files on two threads
     * are hashed one per thread, not batched on one). */
    unsigned hungry;
    progress *pg;               /* --progress, or NULL */
    pthread_mutex_t mu;
    pthread_cond_t done, room;  /* for the printing thread; for workers */
} pool;

/* A worker thread's files in flight; the printing thread's hashers and
 * buffer, for streams. */
typedef struct worker {
    pool *p;
    turns t;
    hasher_set set;
    input in;
} worker;

static entry *at(pool *p, size_t i)
{
    return &p->ring[i % p->window];
}

/* Calls the generator for one more entry, the mutex released meanwhile
 * (it reads directories).  Only one thread at a time; the caller holds
 * the mutex and has checked that there is room. */
static void produce(pool *p)
{
    named n;
    int got;

    p->producing = 1;
    pthread_mutex_unlock(&p->mu);
    got = names_next(p->names, &n);
    pthread_mutex_lock(&p->mu);
    p->producing = 0;
    if (got) {
        entry *e = at(p, p->produced++);
        memset(e, 0, sizeof *e);
        e->n = n;
        file_progress_start(&e->progress, NULL);
    } else {
        p->ended = 1;
    }
    pthread_cond_broadcast(&p->done);
    pthread_cond_broadcast(&p->room);
}

static int can_produce(const pool *p)
{
    return !p->producing && !p->ended && p->produced < p->printed + p->window;
}

/* Only regular files go to the workers.  "-", pipes, terminals, devices,
 * /dev/stdin or /proc/self/fd/0 may be one stream under several names,
 * which two threads would split between them: the printing thread reads
 * those itself, one after the other in order. */
static int take_file(void *ctx, int wait, size_t *index, const char **path,
                     int *nofollow, file_progress **progress)
{
    pool *p = ctx;
    int have = 0;

    pthread_mutex_lock(&p->mu);
    while (!p->stop && (wait || p->hungry == 0)) {
        while (p->next < p->produced && at(p, p->next)->n.kind != NAME_FILE)
            p->next++;
        if (p->next < p->produced) {
            *index = p->next++;
            have = 1;
            break;
        }
        if (can_produce(p))
            produce(p);
        else if (p->ended || !wait)
            break;
        else
            pthread_cond_wait(&p->room, &p->mu);
    }
    if (have) {
        *path = at(p, *index)->n.path;
        *nofollow = at(p, *index)->n.nofollow;
        *progress = &at(p, *index)->progress;
        p->hungry -= wait;
    }
    pthread_mutex_unlock(&p->mu);
    return have;
}

static void publish(void *ctx, size_t index, file_result *r)
{
    pool *p = ctx;

    pthread_mutex_lock(&p->mu);
    at(p, index)->r = *r;
    at(p, index)->done = 1;
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

/* A worker has nothing in flight: it will wait for a file. */
static void starving(void *ctx)
{
    pool *p = ctx;

    pthread_mutex_lock(&p->mu);
    p->hungry++;
    pthread_mutex_unlock(&p->mu);
}

static void *work(void *arg)
{
    worker *w = arg;
    turns_source src = {take_file, publish, stopped, starving, w->p};

    turns_run(&w->t, &src);
    return NULL;
}

/* Hashed by the printing thread: a stream, or a file that a worker found
 * is not a regular file. */
static file_result hash_here(worker *self, const char *path, file_progress *progress)
{
    hasher_set *s = &self->set;
    file_result r = {0, malloc(s->sum_bytes), NULL};
    char why[512];

    self->in.progress = progress;
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

/* Entry i, once it is there and, for a regular file, hashed (the mutex
 * held); 0 when there are no more. */
static entry *wait_for(pool *p, size_t i)
{
    for (int shown = 0;;) {
        if (i < p->produced) {
            entry *e = at(p, i);
            if (e->n.kind != NAME_FILE || e->done)
                return e;
            if (!shown++)
                progress_show(p->pg, e->n.path, &e->progress);
        } else if (p->ended) {
            return NULL;
        } else if (can_produce(p)) {
            produce(p);
            continue;
        }
        pthread_cond_wait(&p->done, &p->mu);
    }
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
        err = print_sum_line(o, &s->hs[k], (char *const *)&name, 1, &src);
    }
    return err;
}

/* Entry e, the printing thread's: hashed here if a stream (or what a
 * worker found was not a regular file), then printed or reported. */
static int print_entry(const options *o, pool *p, entry *e, worker *self, int *ok)
{
    file_result r = e->r;
    int err = 0;

    memset(&e->r, 0, sizeof e->r);
    /* A file met in the walk that is no longer a regular file is an error
     * (never read: it could be a FIFO); one named by the user is read
     * here, as a stream. */
    if (e->n.kind == NAME_STREAM || (r.err == KSUM_ENOTREG && !e->n.walked)) {
        file_result_free(&r);
        progress_show(p->pg, e->n.path, &e->progress);
        r = hash_here(self, e->n.path, &e->progress);
    }
    progress_hold(p->pg);
    if (e->n.kind == NAME_ERROR || e->n.kind == NAME_WARNING) {
        named_report(&e->n);
        *ok &= e->n.kind == NAME_WARNING;
    } else {
        err = print_one(o, e->n.path, &r, &self->set, ok);
    }
    progress_resume(p->pg);
    file_result_free(&r);
    return err;
}

static int print_in_order(const options *o, pool *p, worker *self)
{
    int ok = 1, err = 0;
    entry *e;

    pthread_mutex_lock(&p->mu);
    while (err != KSUM_EWRITE && (e = wait_for(p, p->printed)) != NULL) {
        /* The entry stays put until printed is moved past it. */
        pthread_mutex_unlock(&p->mu);
        err = print_entry(o, p, e, self, &ok);
        pthread_mutex_lock(&p->mu);
        progress_show(p->pg, NULL, NULL);   /* before e can be reused */
        named_free(&e->n);
        p->printed++;
        p->stop = err == KSUM_EWRITE;
        pthread_cond_broadcast(&p->room);
    }
    pthread_mutex_unlock(&p->mu);
    return ok && err != KSUM_EWRITE;
}

/* How a worker holds its files: as many in flight as ksumprov's backend
 * has lanes (KSUM_PARAM_LANES: 4 with AVX2, 8 with AVX-512), in turns of
 * BATCH_TURN bytes, their contexts in one batch group per worker, when the
 * algorithm batches and the backend has more than one lane (with one,
 * batching costs a copy and gains nothing); otherwise one file, in big
 * reads.  KSUM_BATCH=0 turns batching off, for benchmarks and debugging. */
#define BATCH_TURN (KSUMPROV_BATCH_PENDING < 65536 ? KSUMPROV_BATCH_PENDING : 65536)
/* The most memory all workers' contexts may hold back when batching. */
#define BATCH_MEMORY_MAX ((size_t)64 << 20)

/* The files a worker keeps in flight when batching pays (the backend's
 * lanes), or 0. */
static unsigned batching_pays(const options *o, hasher *h, unsigned workers)
{
    const char *env = getenv("KSUM_BATCH");
    unsigned lanes;

    if (env != NULL && strcmp(env, "0") == 0)
        return 0;
    for (size_t k = 0; k < o->evp->nalgs; k++)
        if (!(o->evp->facts_of[k].takes & TAKES_BATCH))
            return 0;
    if (!hasher_begin(h) || (lanes = hasher_lanes(h)) < 2)
        return 0;
    if (lanes > TURNS_MAX)
        lanes = TURNS_MAX;
    if ((size_t)workers * lanes * o->evp->nalgs * KSUMPROV_BATCH_PENDING > BATCH_MEMORY_MAX)
        return 0;
    return lanes;
}

/* The printing thread's hasher and buffer (w[0]), then the workers'
 * contexts (w[1..n]), batched or not.  *tried: the workers to close. */
static int open_workers(worker *w, unsigned n, pool *p, const options *o,
                        OSSL_LIB_CTX *lib, unsigned *batched, unsigned *tried,
                        unsigned descriptors)
{
    unsigned slots;

    memset(w, 0, (n + 1) * sizeof *w);
    *tried = 0;
    if (!hasher_set_open(&w[0].set, lib, o, o->evp->algs, o->evp->nalgs))
        return 0;
    if (!input_init(&w[0].in, 0)) {
        fprintf(message_stream(), "ksum: out of memory\n");
        return 0;
    }
    *batched = batching_pays(o, &w[0].set.hs[0], n);
    ERR_clear_error();
    /* Each file in flight holds a descriptor: a low limit means fewer. */
    slots = *batched ? *batched : 1;
    if (slots > descriptors / n)
        slots = descriptors / n > 0 ? descriptors / n : 1;
    while (*tried < n) {
        worker *wk = &w[++*tried];
        wk->p = p;
        if (!turns_open(&wk->t, lib, o, o->evp->algs, o->evp->nalgs, slots,
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

    p->hungry = n;
    for (; started < n; started++)
        if (thread_start(&ids[started], work, &w[started + 1]) != 0)
            break;
    if (started == 0)
        return -1;
    pthread_mutex_lock(&p->mu);
    p->hungry -= n - started;
    pthread_mutex_unlock(&p->mu);
    ok = print_in_order(o, p, &w[0]);
    for (unsigned i = 0; i < started; i++)
        pthread_join(ids[i], NULL);
    return ok;
}

/* The window: four entries per file a worker can have in flight, but not
 * more checksums held than WINDOW_SUMS_MAX bytes (long -n outputs), unless
 * that would leave a worker without a file. */
#define WINDOW_SUMS_MAX ((size_t)16 << 20)

static size_t window_size(unsigned workers, size_t in_flight, size_t sum_bytes)
{
    size_t want = 4 * (size_t)workers * in_flight, least = (size_t)workers * in_flight + 1;

    if (want < 16)
        want = 16;
    if (sum_bytes > 0 && want > WINDOW_SUMS_MAX / sum_bytes)
        want = WINDOW_SUMS_MAX / sum_bytes;
    return want < least ? least : want;
}

static int pool_init(pool *p, name_source *names, size_t window)
{
    memset(p, 0, sizeof *p);
    p->names = names;
    p->window = window;
    p->ring = calloc(window, sizeof *p->ring);
    if (p->ring == NULL)
        return 0;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->done, NULL);
    pthread_cond_init(&p->room, NULL);
    return 1;
}

static void pool_free(pool *p)
{
    /* Those left after a write error. */
    for (size_t i = p->printed; i < p->produced; i++) {
        file_result_free(&at(p, i)->r);
        named_free(&at(p, i)->n);
    }
    free(p->ring);
    pthread_cond_destroy(&p->room);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
}

int hash_files_concurrently(const options *o, OSSL_LIB_CTX *lib,
                            name_source *names, unsigned workers, progress *pg)
{
    worker *w;  /* w[0]: the printing thread's own; on the heap, as they
                   are large and the stack may not grow (ulimit -v) */
    pool p;
    unsigned tried = 0, descriptors = descriptors_free();
    int ok = -1;
    unsigned batched = 0;

    if (workers > MAX_WORKERS)
        workers = MAX_WORKERS;
    if (workers > descriptors)
        workers = descriptors;
    if ((w = calloc(workers + 1, sizeof *w)) == NULL) {
        fprintf(message_stream(), "ksum: out of memory\n");
        return 0;
    }
    /* One thread gains only from batching. */
    if (open_workers(w, workers, &p, o, lib, &batched, &tried, descriptors) &&
        (workers > 1 || batched) &&
        pool_init(&p, names, window_size(workers, batched ? batched : 1,
                                         w[0].set.sum_bytes))) {
        p.pg = pg;
        ok = run_pool(o, &p, w, workers);
        pool_free(&p);
    }
    close_workers(w, tried);
    free(w);
    return ok;
}
