/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "run/concurrent.h"

#include <fcntl.h>
#include <openssl/err.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/messages.h"
#include "base/thread.h"
#include "front/hasher.h"
#include "front/resolve.h"
#include "input/files.h"
#include "ksumprov.h"
#include "run/progress.h"
#include "run/turns.h"

/* Workers hash files, the printing thread streams: --threads is capped at
 * the provider's own thread cap. */
#define MAX_WORKERS KSUMPROV_MAX_THREADS

/* ---- the road's choice ---- */

/* A batching worker feeds its files in turns of BATCH_TURN bytes, the
 * bound under which the members of a group pair (ksumprov.h); the others
 * read big pieces.  KSUM_BATCH=0 turns batching off, for benchmarks and
 * debugging. */
#define BATCH_TURN (KSUMPROV_BATCH_PENDING < 65536 ? KSUMPROV_BATCH_PENDING : 65536)
/* The most memory all workers' contexts may hold back when batching. */
#define BATCH_MEMORY_MAX ((size_t)64 << 20)

/* The files a worker keeps in flight when batching pays: the lanes of
 * the provider's backend, asked of a context of the first algorithm (with
 * one lane, batching costs a copy and gains nothing); else 0. */
static unsigned batching_lanes(const options *o, OSSL_LIB_CTX *lib, unsigned workers)
{
    const char *env = getenv("KSUM_BATCH");
    hasher probe;
    unsigned lanes = 0;

    if (env != NULL && strcmp(env, "0") == 0)
        return 0;
    for (size_t k = 0; k < o->evp->nalgs; k++)
        if (!(o->evp->facts_of[k].takes & TAKES_BATCH))
            return 0;
    /* Batching is only speed: a failure here is not the user's to read. */
    if (hasher_open_quiet(&probe, lib, o->evp->algs[0], o) && hasher_begin(&probe))
        lanes = hasher_lanes(&probe);
    else
        ERR_clear_error();   /* the files will say it, each in its place */
    hasher_close(&probe);
    if (lanes < 2)
        return 0;
    if (lanes > TURNS_MAX)
        lanes = TURNS_MAX;
    if ((size_t)workers * lanes * o->evp->nalgs * KSUMPROV_BATCH_PENDING > BATCH_MEMORY_MAX)
        return 0;
    return lanes;
}

void road_choose(road *r, const options *o, OSSL_LIB_CTX *lib, int several, int held)
{
    unsigned threads = o->threads ? o->threads : ksum_cpu_count();
    unsigned descriptors = descriptors_free(), lanes = 0, workers = threads;

    if (workers > MAX_WORKERS)
        workers = MAX_WORKERS;
    /* Each file in flight holds a descriptor: a low limit means fewer. */
    if (workers > descriptors)
        workers = descriptors;
    if (several && held)
        lanes = batching_lanes(o, lib, workers);
    if (!several || !held || (workers == 1 && lanes == 0))
        workers = 0;
    r->workers = workers;
    r->batched = lanes > 0;
    r->in_flight = lanes > 0 ? lanes : 1;
    if (workers > 0 && r->in_flight > descriptors / workers)
        r->in_flight = descriptors / workers > 0 ? descriptors / workers : 1;
    r->read_ahead = workers == 0 && threads > 1;
}

/* ---- the window ---- */

/* One item in the window: produced by the client, hashed by a worker when
 * it names a file for one, printed in order. */
typedef struct entry {
    file_job job;       /* job.path NULL: nothing for a worker */
    size_t ordinal;     /* a file for a worker: how many came before it */
    int taken;          /* by a worker */
    int done;           /* a worker published r */
    file_result r;
    file_progress progress;
    size_t weight;      /* the bytes its item and result hold */
} entry;

/* The items are produced by whichever thread needs the next one; workers
 * take their files in order, at most `window` ahead of the printing and
 * holding at most WINDOW_BYTES_MAX (long names or digests), unless that
 * would leave a worker without a file: memory stays bounded however many
 * items there are. */
#define WINDOW_BYTES_MAX ((size_t)16 << 20)

typedef struct pool {
    const road_client *c;
    entry *ring;                /* window entries: entry i at i % window */
    unsigned char *items;       /* their items, item_size bytes each */
    size_t window, least;       /* least: enough for every worker's files */
    size_t produced, next, printed;
    size_t held;                /* the weight of the entries in the window */
    int producing, ended;       /* in the client's next; it has no more */
    int stop;                   /* standard output failed */
    int window_waits;           /* a worker waits for the window to empty */
    unsigned workers;           /* started */
    /* Workers with no file yet, or none left in flight: the others take
     * another file only while as many are left for each of them (two big
     * files on two threads are hashed one per thread, not batched on
     * one). */
    unsigned hungry;
    size_t untaken;             /* files produced, not taken by a worker */
    size_t ordinals;            /* files produced */
    /* The first deal (see may_take): until a file is published, the first
     * first_deal files (every worker's lanes) are dealt in turns. */
    int dealing;
    size_t first_deal;
    progress *pg;               /* --progress, or NULL */
    pthread_mutex_t mu;
    pthread_cond_t done, room;  /* for the printing thread; for workers */
} pool;

static entry *at(pool *p, size_t i)
{
    return &p->ring[i % p->window];
}

static void *item_at(pool *p, size_t i)
{
    return p->items + (i % p->window) * p->c->item_size;
}

static int can_produce(const pool *p)
{
    size_t ahead = p->produced - p->printed;

    return !p->producing && !p->ended && ahead < p->window &&
           (p->held < WINDOW_BYTES_MAX || ahead < p->least);
}

/* Whether the client's next item will not wait on a writer (the client's
 * state is still: the mutex held and no one producing, or the producing
 * thread's own call). */
static int source_ready(const pool *p)
{
    return p->c->ready == NULL || p->c->ready(p->c->ctx);
}

/* The client's item i into its place, which is free; 0 at the end.  *files
 * counts the files for workers, *held their weight. */
static int produce_one(pool *p, size_t i, size_t *held, int *files)
{
    entry *e = at(p, i);
    file_job job = {.dirfd = AT_FDCWD};
    size_t weight = 0;

    memset(item_at(p, i), 0, p->c->item_size);
    if (!p->c->next(p->c->ctx, item_at(p, i), &job, &weight))
        return 0;
    memset(e, 0, sizeof *e);
    e->job = job;
    e->job.progress = &e->progress;
    /* Only the producing thread counts them. */
    if (job.path != NULL)
        e->ordinal = p->ordinals++;
    e->weight = weight;
    file_progress_start(&e->progress, NULL);
    *held += weight;
    *files += job.path != NULL;
    return 1;
}

/* Calls the client for up to PRODUCE_MOST more items (those after the
 * first only when they need not wait on a writer), the mutex released
 * meanwhile: it reads directories and check files.  Only one thread at a
 * time; the caller holds the mutex and has checked that there is room.
 * The places from produced on are no other thread's until produced moves
 * past them.  One wake-up a batch, not an item: each costs more than a
 * file that fails to open. */
#define PRODUCE_MOST 16

static void produce(pool *p)
{
    size_t first = p->produced, ahead = p->produced - p->printed;
    size_t held = p->held, was = p->held, n = 0;
    int files = 0, ended = 0;

    p->producing = 1;
    pthread_mutex_unlock(&p->mu);
    while (n < PRODUCE_MOST && ahead + n < p->window &&
           (held < WINDOW_BYTES_MAX || ahead + n < p->least) &&
           (n == 0 || source_ready(p)) && !(ended = !produce_one(p, first + n, &held, &files)))
        n++;
    pthread_mutex_lock(&p->mu);
    p->producing = 0;
    p->produced += n;
    p->untaken += (size_t)files;
    p->held += held - was;
    p->ended |= ended;
    /* The printing thread waits for nothing else than entry printed, the
     * workers for a file. */
    if (p->ended || (p->printed >= first && p->printed < p->produced))
        pthread_cond_broadcast(&p->done);
    if (p->ended || files > 0)
        pthread_cond_broadcast(&p->room);
}

/* ---- the workers ---- */

typedef struct worker {
    pool *p;
    unsigned id;
    int hungry;     /* counted in p->hungry */
    turns t;
} worker;

/* Whether worker `id` may take file e.  In the first deal the k-th file
 * goes to worker k mod workers: files next to each other in the
 * arguments tend to be alike (in size, in what copying them out of the
 * page cache costs), and a run of them to the worker that started first
 * (it took eight before the other had one) left one worker the dearer
 * half of the work, the other idle at the end.  The deal ends with the
 * first file published (a worker that finished one takes any file,
 * and one that holds a long K12 file, taking no other, holds back no
 * one longer than that file). */
static int may_take(const pool *p, const entry *e, unsigned id)
{
    return !p->dealing || e->ordinal >= p->first_deal || e->ordinal % p->workers == id;
}

/* Only regular files go to the workers, as the client says.  "-", pipes,
 * terminals, devices, /dev/stdin or /proc/self/fd/0 may be one stream
 * under several names, which two threads would split between them: the
 * printing thread reads those itself, one after the other in order. */
static int take_file(void *ctx, size_t active, size_t *index, file_job *job)
{
    worker *w = ctx;
    pool *p = w->p;
    int have = 0, wait = active == 0;

    pthread_mutex_lock(&p->mu);
    /* Nothing in flight: hungry until it has a file. */
    p->hungry += wait && !w->hungry;
    w->hungry |= wait;
    while (!p->stop) {
        size_t i;
        /* Before printed, every file was taken (the printing thread passes
         * none that is not done): its places may hold newer entries.
         * next is the first file not taken. */
        if (p->next < p->printed)
            p->next = p->printed;
        while (p->next < p->produced &&
               (at(p, p->next)->job.path == NULL || at(p, p->next)->taken))
            p->next++;
        for (i = p->next; i < p->produced; i++)
            if (at(p, i)->job.path != NULL && !at(p, i)->taken && may_take(p, at(p, i), w->id))
                break;
        /* Another file only while as many are left for each hungry worker:
         * eight big files on two workers are four each (a tree mode's
         * batch gains only the first chunks), thousands of small ones fill
         * every lane. */
        if (i < p->produced && (wait || p->untaken > p->hungry * (active + 1))) {
            at(p, i)->taken = 1;
            *index = i;
            p->untaken--;
            have = 1;
            break;
        }
        /* With files in flight, a worker reads only what is there; one
         * with none waits while files dealt to others may yet come its
         * way (the deal ends). */
        if (can_produce(p) && (wait || source_ready(p))) {
            produce(p);
        } else if ((p->ended && p->untaken == 0) || !wait) {
            break;
        } else {
            p->window_waits |= !p->producing;
            pthread_cond_wait(&p->room, &p->mu);
        }
    }
    if (have) {
        *job = at(p, *index)->job;
        p->hungry -= wait;
        w->hungry &= !wait;
        /* A list of one big image, or the last file of many: the other
         * workers would only wait, so its tree takes their threads. */
        job->alone = wait && p->ended && p->untaken == 0 && p->hungry + 1 == p->workers;
    }
    pthread_mutex_unlock(&p->mu);
    return have;
}

static void publish(void *ctx, size_t index, file_result *r)
{
    pool *p = ((worker *)ctx)->p;

    pthread_mutex_lock(&p->mu);
    at(p, index)->r = *r;
    at(p, index)->done = 1;
    if (index == p->printed)
        pthread_cond_broadcast(&p->done);
    /* The deal ends: a worker waiting may take what was dealt to others. */
    if (p->dealing) {
        p->dealing = 0;
        pthread_cond_broadcast(&p->room);
    }
    pthread_mutex_unlock(&p->mu);
}

static int stopped(void *ctx)
{
    pool *p = ((worker *)ctx)->p;
    int stop;

    pthread_mutex_lock(&p->mu);
    stop = p->stop;
    pthread_mutex_unlock(&p->mu);
    return stop;
}

static void *work(void *arg)
{
    worker *w = arg;
    turns_source src = {take_file, publish, stopped, w};

    turns_run(&w->t, &src);
    /* Its contexts and buffers go now, on its own thread: a worker that
     * ends first frees them while the others still hash. */
    turns_close(&w->t);
    return NULL;
}

/* ---- printing in order ---- */

/* Entry i, once it is there and, when a worker hashes it, hashed (the
 * mutex held); NULL when there are no more. */
static entry *wait_for(pool *p, size_t i)
{
    for (int shown = 0;;) {
        entry *e = i < p->produced ? at(p, i) : NULL;
        if (e != NULL && (e->job.path == NULL || e->done || p->workers == 0))
            return e;
        if (e == NULL && p->ended)
            return NULL;
        if (e != NULL && !shown++)
            progress_show(p->pg, e->job.path, &e->progress);
        /* The item needed now, or while a worker hashes it, the workers'
         * next files, when that does not wait on a writer. */
        if (can_produce(p) && (e == NULL || source_ready(p)))
            produce(p);
        else
            pthread_cond_wait(&p->done, &p->mu);
    }
}

/* Prints entry i (the mutex released: it stays put until printed moves
 * past it); returns as the client's print. */
static int print_entry(pool *p, size_t i)
{
    entry *e = at(p, i);
    file_result r = e->r;
    int done = e->done, err;

    memset(&e->r, 0, sizeof e->r);
    pthread_mutex_unlock(&p->mu);
    err = p->c->print(p->c->ctx, item_at(p, i), done ? &r : NULL, &e->progress);
    file_result_free(&r);
    p->c->drop(p->c->ctx, item_at(p, i));
    pthread_mutex_lock(&p->mu);
    return err;
}

static void print_in_order(pool *p)
{
    int err = 0;

    pthread_mutex_lock(&p->mu);
    while (err == 0 && wait_for(p, p->printed) != NULL) {
        err = print_entry(p, p->printed);
        progress_show(p->pg, NULL, NULL);   /* before the entry can be reused */
        p->held -= at(p, p->printed)->weight;
        p->printed++;
        p->stop = err != 0;
        /* Workers waiting for room are woken once half the window is
         * free, not at every line. */
        if (p->stop || (p->window_waits && p->produced - p->printed <= p->window / 2)) {
            p->window_waits = 0;
            pthread_cond_broadcast(&p->room);
        }
    }
    pthread_mutex_unlock(&p->mu);
}

/* ---- running ---- */

/* The workers' contexts, as many as open (memory may be short: fewer
 * workers are only slower); returns how many. */
static unsigned open_workers(worker *w, const road *r, OSSL_LIB_CTX *lib,
                             const road_client *c, pool *p)
{
    unsigned n = 0;

    for (; w != NULL && n < r->workers; n++) {
        w[n].p = p;
        w[n].id = n;
        w[n].hungry = 1;   /* the pool counts every worker hungry at first */
        if (!turns_open(&w[n].t, lib, c->nkeys, c->eager, c->neager, r->in_flight,
                        r->batched ? BATCH_TURN : INPUT_SIZE, r->batched ? n + 1 : 0)) {
            turns_close(&w[n].t);
            ERR_clear_error();   /* fewer workers, not an error */
            break;
        }
    }
    return n;
}

/* Starts the n workers, prints, joins. */
static void run_pool(pool *p, worker *w, unsigned n)
{
    pthread_t ids[MAX_WORKERS];
    unsigned started = 0;

    p->hungry = p->workers = n;
    /* (a thread that could not start leaves fewer: only slower) */
    for (unsigned i = 0; i < n; i++)
        w[i].t.shared = n > 1;
    for (; started < n; started++)
        if (thread_start(&ids[started], work, &w[started]) != 0)
            break;
    pthread_mutex_lock(&p->mu);
    p->hungry -= n - started;
    p->workers = started;
    pthread_mutex_unlock(&p->mu);
    print_in_order(p);
    for (unsigned i = 0; i < started; i++)
        pthread_join(ids[i], NULL);
}

static int pool_init(pool *p, const road_client *c, unsigned workers, unsigned in_flight)
{
    size_t files = (size_t)workers * in_flight;

    memset(p, 0, sizeof *p);
    p->c = c;
    p->window = 4 * files < 16 ? 16 : 4 * files;
    p->least = files + 1;
    p->dealing = workers > 1;
    p->first_deal = files;
    p->ring = calloc(p->window, sizeof *p->ring);
    p->items = calloc(p->window, c->item_size);
    if (p->ring == NULL || p->items == NULL) {
        free(p->ring);
        free(p->items);
        return 0;
    }
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
        p->c->drop(p->c->ctx, item_at(p, i));
    }
    free(p->ring);
    free(p->items);
    pthread_cond_destroy(&p->room);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
}

int road_run(const road *r, OSSL_LIB_CTX *lib, const road_client *c, progress *pg)
{
    /* On the heap: they are large, and the stack may not grow (ulimit -v). */
    worker *w = r->workers > 0 ? calloc(r->workers, sizeof *w) : NULL;
    unsigned n;
    pool p;
    int ok = 0;

    n = open_workers(w, r, lib, c, &p);
    if (pool_init(&p, c, n, r->in_flight)) {
        p.pg = pg;
        run_pool(&p, w, n);
        pool_free(&p);
        ok = 1;
    } else {
        fprintf(message_stream(), "ksum: out of memory\n");
    }
    for (unsigned i = 0; i < n; i++)
        turns_close(&w[i].t);
    free(w);
    return ok;
}
