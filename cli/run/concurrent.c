/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "run/concurrent.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/err.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/messages.h"
#include "front/resolve.h"
#include "input/feed.h"
#include "ksumprov.h"

/* Workers hash files, the printing thread streams: --threads is capped at
 * the provider's own thread cap. */
#define MAX_WORKERS KSUMPROV_MAX_THREADS
/* The most files a worker keeps in flight: the most lanes a backend has. */
#define TURNS_MAX 8

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
static unsigned batching_lanes(const resolved *res, OSSL_LIB_CTX *lib, unsigned workers)
{
    const char *env = getenv("KSUM_BATCH");
    hasher probe;
    unsigned lanes = 0;

    if (env != NULL && strcmp(env, "0") == 0)
        return 0;
    for (size_t k = 0; k < res->nalgs; k++)
        if (!(res->facts_of[k].takes & TAKES_BATCH))
            return 0;
    /* Batching is only speed: a failure here is not the user's to read. */
    if (hasher_open_quiet(&probe, lib, res->alg, &res->hash) && hasher_begin(&probe))
        lanes = hasher_lanes(&probe);
    else
        ERR_clear_error();   /* the files will say it, each in its place */
    hasher_close(&probe);
    if (lanes < 2)
        return 0;
    if (lanes > TURNS_MAX)
        lanes = TURNS_MAX;
    if ((size_t)workers * lanes * res->nalgs * KSUMPROV_BATCH_PENDING > BATCH_MEMORY_MAX)
        return 0;
    return lanes;
}

void road_choose(road *r, const resolved *res, OSSL_LIB_CTX *lib, int several, int held)
{
    unsigned threads = res->hash.threads ? res->hash.threads : ksum_cpu_count();
    unsigned descriptors = descriptors_free(), lanes = 0, workers = threads;

    if (workers > MAX_WORKERS)
        workers = MAX_WORKERS;
    /* Each file in flight holds a descriptor: a low limit means fewer. */
    if (workers > descriptors)
        workers = descriptors;
    if (several && held)
        lanes = batching_lanes(res, lib, workers);
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

void file_result_free(file_result *r)
{
    free(r->sums);
    free(r->why);
    r->sums = NULL;
    r->why = NULL;
}

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
    size_t window;
    /* Every worker's files in flight: the window holds them whatever they
     * weigh, and the first deal (see may_take) deals that many in turns
     * until a file is published. */
    size_t files;
    size_t produced, next, printed;
    size_t held;                /* the weight of the entries in the window */
    int producing, ended;       /* in the client's next; it has no more */
    atomic_int stop;            /* standard output failed (a worker reads
                                   it without the mutex between rounds) */
    int window_waits;           /* a worker waits for the window to empty */
    unsigned workers;           /* started */
    /* Workers with no file yet, or none left in flight: the others take
     * another file only while as many are left for each of them (two big
     * files on two threads are hashed one per thread, not batched on
     * one). */
    unsigned hungry;
    size_t untaken;             /* files produced, not taken by a worker */
    size_t ordinals;            /* files produced */
    int dealing;                /* the first deal is on */
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

/* Whether there is room for another item, ahead of the printing and
 * weighing held, and, unless urgent, the client's next item will not wait
 * on a writer (the client's state is still: the mutex held and no one
 * producing, or the producing thread's own call). */
static int room_for(const pool *p, size_t ahead, size_t held, int urgent)
{
    return ahead < p->window && (held < WINDOW_BYTES_MAX || ahead <= p->files) &&
           (urgent || p->c->ready == NULL || p->c->ready(p->c->ctx));
}

static int can_produce(const pool *p, int urgent)
{
    return !p->producing && !p->ended && room_for(p, p->produced - p->printed, p->held, urgent);
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
    size_t held = p->held, added = 0, files = 0, n = 0;
    int ended = 0;

    p->producing = 1;
    pthread_mutex_unlock(&p->mu);
    for (; n < PRODUCE_MOST && room_for(p, ahead + n, held + added, n == 0); n++) {
        entry *e = at(p, first + n);
        file_job job = {.dirfd = AT_FDCWD};
        size_t weight = 0;

        memset(item_at(p, first + n), 0, p->c->item_size);
        if ((ended = !p->c->next(p->c->ctx, item_at(p, first + n), &job, &weight)))
            break;
        memset(e, 0, sizeof *e);
        e->job = job;
        /* Only the producing thread counts them. */
        if (job.path != NULL)
            e->ordinal = p->ordinals++;
        e->weight = weight;
        file_progress_start(&e->progress, NULL);
        added += weight;
        files += job.path != NULL;
    }
    pthread_mutex_lock(&p->mu);
    p->producing = 0;
    p->produced += n;
    p->untaken += files;
    p->held += added;
    p->ended |= ended;
    /* The printing thread waits for nothing else than entry printed, the
     * workers for a file. */
    if (p->ended || (p->printed >= first && p->printed < p->produced))
        pthread_cond_broadcast(&p->done);
    if (p->ended || files > 0)
        pthread_cond_broadcast(&p->room);
}

/* ---- the workers ---- */

/*
 * A worker's files in flight: up to TURNS_MAX regular files, read in turns
 * of a few KiB each and fed (feed.h) to their own contexts (one per digest
 * the file is hashed for), so that ksumprov can absorb the contexts of one
 * batch group together through its wide kernel (KSUM_PARAM_BATCH).  Within
 * a round every file in flight is read and fed once; the finals of the
 * files that ended come after, so that a final carries the others' pending
 * input along.  With one file in flight and big turns this is plain
 * hashing.
 */
/* A worker's context for one key, in one place of files in flight. */
typedef struct worker_context {
    hasher h;
    int begun;               /* once: paired is known */
    size_t paired;           /* how much of a message its group pairs:
                                hasher_batch_prefix, 0 without a group */
} worker_context;

typedef struct in_flight {
    int active;
    size_t index;
    file_job job;
    feed in;
    hasher *hs[OPTIONS_ALGS_MAX];   /* this file's contexts, one per digest */
    size_t prefix;           /* where the first pairing that ends does (the
                                least paired short of all); SIZE_MAX: none */
    size_t unpaired;         /* where the last one ends, after which the
                                file is read in big turns; SIZE_MAX: never */
    int long_file;           /* the worker takes no other beside it (start) */
    file_result r;
} in_flight;

typedef struct worker {
    pool *p;
    unsigned id;
    int hungry;              /* counted in p->hungry */
    in_flight f[TURNS_MAX];
    worker_context **contexts;  /* nslots * nkeys, each opened on first use */
    size_t nkeys, nslots;
    OSSL_LIB_CTX *lib;
    uint64_t batch;          /* the contexts' batch group; 0: none */
    size_t turn;             /* bytes read per file per round */
    size_t big;              /* ... once no pairing is left (K12 past its
                                first chunk), into big_buf */
    uint8_t *buf, *big_buf;  /* big_buf made when first needed: speed only */
    input ahead;             /* read-ahead buffers, for a file alone */
    int ahead_made;          /* 0: not yet; 1: made; -1: no memory */
} worker;

/* The context of digest d for the file in slot j: opened the first time
 * (NULL when that fails), then set to d's length, which a check file's
 * line chooses.  The other workers have the other threads: a big turn of
 * a tree mode must not start helpers of its own, unless the file is hashed
 * alone (see take_file). */
static worker_context *context(worker *w, size_t j, const digest_spec *d, int alone)
{
    worker_context **c = &w->contexts[j * w->nkeys + d->key];

    if (*c == NULL) {
        if ((*c = calloc(1, sizeof **c)) == NULL)
            return NULL;
        /* A worker does not write standard error: the printing thread
         * hashes the file again, and says what fails there. */
        if (!hasher_open_quiet(&(*c)->h, w->lib, d->alg, d->spec)) {
            hasher_close(&(*c)->h);
            ERR_clear_error();
            free(*c);
            *c = NULL;
            return NULL;
        }
        hasher_join(&(*c)->h, w->batch);
    }
    hasher_set_size(&(*c)->h, d->size);
    hasher_set_threads(&(*c)->h, alone ? d->spec->threads : 1);
    return *c;
}

/* Worker id's room for r's files in flight, whose contexts of c's keys are
 * in a batch group of its own when r batches, read in turns of BATCH_TURN
 * bytes then (of INPUT_SIZE once a file's pairings have ended); the
 * contexts of c's eager digests are opened now, the others when a file
 * first needs them.  Returns 0 on failure (close_worker is still due). */
static int open_worker(worker *w, const road *r, OSSL_LIB_CTX *lib, const road_client *c,
                       unsigned id)
{
    w->id = id;
    w->hungry = 1;   /* the pool counts every worker hungry at first */
    w->lib = lib;
    w->nkeys = c->nkeys;
    w->nslots = r->in_flight;
    w->turn = r->batched ? BATCH_TURN : INPUT_SIZE;
    w->big = INPUT_SIZE;
    w->batch = r->batched ? id + 1 : 0;
    w->contexts = calloc(w->nslots * w->nkeys, sizeof *w->contexts);
    w->buf = input_buffer_new(w->turn);
    if (w->contexts == NULL || w->buf == NULL)
        return 0;
    for (size_t j = 0; j < w->nslots; j++)
        for (size_t k = 0; k < c->neager; k++)
            if (context(w, j, &c->eager[k], 0) == NULL)
                return 0;
    return 1;
}

/* Frees what open_worker made; a second call does nothing. */
static void close_worker(worker *w)
{
    for (size_t i = 0; w->contexts != NULL && i < w->nslots * w->nkeys; i++)
        if (w->contexts[i] != NULL) {
            hasher_close(&w->contexts[i]->h);
            free(w->contexts[i]);
        }
    if (w->ahead_made != 0)
        input_free(&w->ahead);
    w->ahead_made = 0;
    free(w->contexts);
    input_buffer_free(w->buf, w->turn);
    input_buffer_free(w->big_buf, w->big);
    w->contexts = NULL;
    w->buf = w->big_buf = NULL;
}

/* An EVP failure: the reason is taken now, on the thread that had it. */
static int evp_failed(file_result *r)
{
    char why[512];

    openssl_reason(why, sizeof why);
    free(r->why);
    r->why = strdup(why);
    /* without memory for the reason, the want of memory is the reason */
    return r->why != NULL ? KSUM_EHASH : ENOMEM;
}

/* Begins c's hasher; a group it cannot join (the copy buffer a member
 * needs: memory is short) is left for good, and the file hashed outside
 * it: batching is only speed. */
static int begin_one(worker *w, worker_context *c)
{
    if (hasher_begin(&c->h))
        return 1;
    if (w->batch == 0)
        return 0;
    ERR_clear_error();
    hasher_join(&c->h, 0);
    return hasher_begin(&c->h);
}

/* Ends f's file: its result goes to the pool. */
static void finish(worker *w, in_flight *f)
{
    pool *p = w->p;

    for (size_t k = 0, at = 0; f->r.err == 0 && k < f->job.n; k++) {
        if (!hasher_end(f->hs[k], f->r.sums + at))
            f->r.err = evp_failed(&f->r);
        at += f->job.d[k].size;
    }
    if (f->r.err != 0) {
        free(f->r.sums);
        f->r.sums = NULL;
    }
    f->r.mode = (unsigned)f->in.before.st_mode;
    feed_close(&f->in);
    f->active = 0;
    pthread_mutex_lock(&p->mu);
    at(p, f->index)->r = f->r;
    at(p, f->index)->done = 1;
    if (f->index == p->printed)
        pthread_cond_broadcast(&p->done);
    /* The deal ends: a worker waiting may take what was dealt to others. */
    if (p->dealing) {
        p->dealing = 0;
        pthread_cond_broadcast(&p->room);
    }
    pthread_mutex_unlock(&p->mu);
}

/* Its contexts for the file in slot j, begun, and where the first of
 * their pairings that ends does; 0 or why not. */
static int begin_contexts(worker *w, size_t j, in_flight *f)
{
    size_t bytes = 0;

    f->prefix = SIZE_MAX;
    f->unpaired = 0;
    for (size_t k = 0; k < f->job.n; k++) {
        worker_context *c = context(w, j, &f->job.d[k], f->job.alone);
        if (c == NULL)
            return ENOMEM;
        f->hs[k] = &c->h;
        if (!begin_one(w, c))
            return evp_failed(&f->r);
        if (!c->begun)
            c->paired = w->batch != 0 ? hasher_batch_prefix(&c->h) : 0;
        c->begun = 1;
        if (c->paired > 0 && c->paired < f->prefix)
            f->prefix = c->paired;
        if (w->batch != 0 && (c->paired == 0 || c->paired > f->unpaired))
            f->unpaired = c->paired == 0 ? SIZE_MAX : c->paired;
        bytes += f->job.d[k].size;
    }
    return (f->r.sums = malloc(bytes)) == NULL ? ENOMEM : 0;
}

/* The last file, every other worker idle, read in ranges by all the
 * threads when feed_spread takes it (check mode's one big image); 1 when
 * it did, its result in f->r. */
static int spread_alone(worker *w, size_t j, in_flight *f)
{
    worker_context *c = f->job.alone && f->job.n == 1 ? context(w, j, &f->job.d[0], 1) : NULL;

    if (c == NULL)
        return 0;
    if (!feed_spread(&f->in, f->hs[0] = &c->h, &f->r.err))
        return 0;
    if (f->r.err == KSUM_EHASH)
        evp_failed(&f->r);
    else if (f->r.err == 0 && (f->r.sums = malloc(f->job.d[0].size)) == NULL)
        f->r.err = ENOMEM;
    return 1;
}

/* Starts f's file (slot j); 0 when it failed or ended at once (its result
 * published). */
static int start(worker *w, size_t j, in_flight *f)
{
    uint64_t size;

    memset(&f->r, 0, sizeof f->r);
    /* Regular files only, opened without waiting: something that is no
     * longer a regular file goes back to the pool, which decides.  Its
     * reading is shown through its entry, which stays put until printed. */
    f->r.err = feed_open(&f->in, f->job.dirfd, f->job.path + f->job.name_at, 1, f->job.nofollow,
                         &at(w->p, f->index)->progress);
    if (f->r.err != 0 || spread_alone(w, j, f) || (f->r.err = begin_contexts(w, j, f)) != 0) {
        finish(w, f);
        return 0;
    }
    /* Long: more than a big turn after its last pairing ends (a K12 file
     * of megabytes: only its first chunk pairs).  Files taken beside it
     * would pair only their first chunks with it, then wait on this
     * worker's thread while another worker may be idle.  A worker alone
     * keeps pairing (the pool's files in flight are all its own): no
     * other would take them sooner.  The size only schedules; a file that
     * changes is judged at its end. */
    size = f->in.watched ? (uint64_t)f->in.before.st_size : 0;
    f->long_file = w->p->files > w->nslots && f->unpaired != SIZE_MAX && size > f->unpaired &&
                   size - f->unpaired > w->big;
    return 1;
}

static int holds_long(const worker *w)
{
    for (size_t j = 0; j < w->nslots; j++)
        if (w->f[j].active && w->f[j].long_file)
            return 1;
    return 0;
}

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
    return !p->dealing || e->ordinal >= p->files || e->ordinal % p->workers == id;
}

/* The next file for f, with `active` files in flight.  With none in
 * flight it waits for one; with some, it returns 0 at once when none is
 * ready or the hungry workers need those there are (a worker is hungry
 * while it has nothing in flight).  0 too when there are no more or output
 * stopped.  Only regular files go to the workers, as the client says.
 * "-", pipes, terminals, devices, /dev/stdin or /proc/self/fd/0 may be one
 * stream under several names, which two threads would split between them:
 * the printing thread reads those itself, one after the other in order. */
static int take_file(worker *w, size_t active, in_flight *f)
{
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
            f->index = i;
            p->untaken--;
            have = 1;
            break;
        }
        /* With files in flight, a worker reads only what is there; one
         * with none waits while files dealt to others may yet come its
         * way (the deal ends). */
        if (can_produce(p, wait)) {
            produce(p);
        } else if ((p->ended && p->untaken == 0) || !wait) {
            break;
        } else {
            p->window_waits |= !p->producing;
            pthread_cond_wait(&p->room, &p->mu);
        }
    }
    if (have) {
        f->job = at(p, f->index)->job;
        p->hungry -= wait;
        w->hungry &= !wait;
        /* A list of one big image, or the last file of many: the other
         * workers would only wait, so its tree takes their threads. */
        f->job.alone = wait && p->ended && p->untaken == 0 && p->hungry + 1 == p->workers;
    }
    pthread_mutex_unlock(&p->mu);
    return have;
}

/* Fills the free places, until the pool has no file to give (or a long
 * file is in flight); waits for one only when none is in flight. */
static size_t fill(worker *w, size_t active)
{
    for (size_t j = 0; j < w->nslots; j++) {
        in_flight *f = &w->f[j];
        while (!f->active) {
            if ((active > 0 && holds_long(w)) || !take_file(w, active, f))
                return active;
            f->active = start(w, j, f);
            active += f->active;
        }
    }
    return active;
}

/* A file's first turn ends where a pairing does: the K12 family pairs only
 * its first 8 KiB chunk (ksumprov's batch-prefix) and flushes when the
 * input goes past it, so every file in flight must have that chunk
 * pending before any goes on, for the flush to pair them; a short first
 * turn costs the others nothing. */
static size_t turn_of(const worker *w, const in_flight *f)
{
    if (f->in.done < f->prefix && f->prefix - f->in.done < w->turn)
        return (size_t)(f->prefix - f->in.done);
    return f->in.done >= f->unpaired ? w->big : w->turn;
}

/* The last file, every other worker idle, past its pairing: read ahead on
 * a thread of its own, as a file hashed alone is, so that the copy out of
 * the page cache overlaps its tree's hashing on the other threads. */
static void read_ahead_alone(worker *w, in_flight *f)
{
    if (!f->job.alone || f->in.reading_ahead || f->in.done < f->unpaired)
        return;
    if (w->ahead_made == 0)
        w->ahead_made = input_init(&w->ahead, 1) ? 1 : -1;
    if (w->ahead_made == 1)
        feed_read_ahead(&f->in, &w->ahead);
}

/* One turn of f: the next bytes of its file to every context.  A big turn
 * needs the big buffer (not when the reader's buffers come instead);
 * without memory for it, turns stay small. */
static void feed_turn(worker *w, in_flight *f)
{
    size_t n = turn_of(w, f);

    read_ahead_alone(w, f);
    if (n > w->turn && w->big_buf == NULL && !f->in.reading_ahead &&
        (w->big_buf = input_buffer_new(w->big)) == NULL)
        w->big = n = w->turn;
    f->r.err = feed_next(&f->in, f->hs, f->job.n, n > w->turn ? w->big_buf : w->buf, n);
    if (f->r.err == KSUM_EHASH)
        evp_failed(&f->r);
}

/* Takes files from the pool and hashes them until it has no more. */
static void *work(void *arg)
{
    worker *w = arg;
    size_t active = 0;

    while ((active = fill(w, active)) > 0) {
        for (size_t j = 0; j < w->nslots; j++)
            if (w->f[j].active)
                feed_turn(w, &w->f[j]);
        /* The finals after every file had its turn: a final absorbs the
         * other members' pending blocks with its own. */
        for (size_t j = 0; j < w->nslots; j++)
            if (w->f[j].active && (w->f[j].in.ended || w->f[j].r.err != 0)) {
                finish(w, &w->f[j]);
                active--;
            }
        if (w->p->stop)
            break;
    }
    /* Output failed: whatever is in flight is dropped. */
    for (size_t j = 0; j < w->nslots; j++)
        if (w->f[j].active) {
            feed_close(&w->f[j].in);
            file_result_free(&w->f[j].r);
        }
    /* Its contexts and buffers go now, on its own thread: a worker that
     * ends first frees them while the others still hash. */
    close_worker(w);
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
        if (can_produce(p, e == NULL))
            produce(p);
        else
            pthread_cond_wait(&p->done, &p->mu);
    }
}

/* Prints every entry in order, each with the mutex released: it stays put
 * until printed moves past it. */
static void print_in_order(pool *p)
{
    int err = 0;

    pthread_mutex_lock(&p->mu);
    while (err == 0 && wait_for(p, p->printed) != NULL) {
        entry *e = at(p, p->printed);
        file_result r = e->r;
        int done = e->done;

        memset(&e->r, 0, sizeof e->r);
        pthread_mutex_unlock(&p->mu);
        err = p->c->print(p->c->ctx, item_at(p, p->printed), done ? &r : NULL, &e->progress);
        file_result_free(&r);
        p->c->drop(p->c->ctx, item_at(p, p->printed));
        pthread_mutex_lock(&p->mu);
        progress_show(p->pg, NULL, NULL);   /* before the entry can be reused */
        p->held -= e->weight;
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

/* Starts the n workers, prints, joins. */
static void run_pool(pool *p, worker *w, unsigned n)
{
    pthread_t ids[MAX_WORKERS];
    unsigned started = 0;

    p->hungry = p->workers = n;
    /* (a thread that could not start leaves fewer: only slower) */
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
    p->dealing = workers > 1;
    p->files = files;
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
    unsigned n = 0;
    pool p;
    int ok = 0;

    /* The workers' contexts, as many as open (memory may be short: fewer
     * workers are only slower). */
    for (; w != NULL && n < r->workers; n++) {
        w[n].p = &p;
        if (!open_worker(&w[n], r, lib, c, n)) {
            /* fewer workers, not an error; what this one holds is given
             * back before the run, when memory is short */
            close_worker(&w[n]);
            ERR_clear_error();
            break;
        }
    }
    if (pool_init(&p, c, n, r->in_flight)) {
        p.pg = pg;
        run_pool(&p, w, n);
        pool_free(&p);
        ok = 1;
    }
    /* Those that ran closed theirs already; a second call does nothing. */
    for (unsigned i = 0; w != NULL && i < r->workers; i++)
        close_worker(&w[i]);
    free(w);
    return ok;
}
