/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "parallel.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_WORKERS 255

/* The threads take small ranges from a shared counter rather than one
 * fixed share each, so a thread slowed by another process (or by ksum's
 * reader), or woken late, does not hold the others up. */
typedef struct shared_work {
    void (*fn)(void *arg, size_t begin, size_t end);
    void *arg;
    size_t n, grain;
    atomic_size_t next;
} shared_work;

struct worker_pool {
    pthread_mutex_t mu;
    pthread_cond_t wake;      /* a new job, or quit */
    pthread_cond_t idle;      /* the last helper left the job */
    pthread_t ids[MAX_WORKERS];
    unsigned started;         /* threads running */
    pid_t owner;              /* the process whose threads those are */
    uint64_t generation;      /* jobs posted so far */
    shared_work *job;         /* NULL once the caller has closed it */
    unsigned seats;           /* helpers the open job may still take */
    unsigned helping;         /* helpers inside the job */
    int quit;
};

static void take_ranges(shared_work *w)
{
    for (;;) {
        size_t begin = atomic_fetch_add(&w->next, w->grain);
        if (begin >= w->n)
            return;
        w->fn(w->arg, begin, begin + w->grain < w->n ? begin + w->grain : w->n);
    }
}

static void *worker(void *arg)
{
    worker_pool *pool = arg;
    uint64_t seen = 0;

    pthread_mutex_lock(&pool->mu);
    for (;;) {
        shared_work *job;
        while (!pool->quit && pool->generation == seen)
            pthread_cond_wait(&pool->wake, &pool->mu);
        if (pool->quit)
            break;
        seen = pool->generation;
        job = pool->job;
        if (job == NULL || pool->seats == 0)
            continue;       /* woke too late, or not needed for this job */
        pool->seats--;
        pool->helping++;
        pthread_mutex_unlock(&pool->mu);
        take_ranges(job);
        pthread_mutex_lock(&pool->mu);
        if (--pool->helping == 0)
            pthread_cond_signal(&pool->idle);
    }
    pthread_mutex_unlock(&pool->mu);
    return NULL;
}

static int pool_sync_init(worker_pool *pool)
{
    if (pthread_mutex_init(&pool->mu, NULL) != 0)
        return 0;
    if (pthread_cond_init(&pool->wake, NULL) != 0) {
        pthread_mutex_destroy(&pool->mu);
        return 0;
    }
    if (pthread_cond_init(&pool->idle, NULL) != 0) {
        pthread_cond_destroy(&pool->wake);
        pthread_mutex_destroy(&pool->mu);
        return 0;
    }
    return 1;
}

worker_pool *worker_pool_new(void)
{
    worker_pool *pool = calloc(1, sizeof *pool);

    if (pool == NULL)
        return NULL;
    if (!pool_sync_init(pool)) {
        free(pool);
        return NULL;
    }
    pool->owner = getpid();
    return pool;
}

void worker_pool_free(worker_pool *pool)
{
    if (pool == NULL)
        return;
    /* In a child after fork() the threads do not exist and the waits on
     * these objects would never end: only the memory is released. */
    if (pool->owner == getpid()) {
        pthread_mutex_lock(&pool->mu);
        pool->quit = 1;
        pthread_cond_broadcast(&pool->wake);
        pthread_mutex_unlock(&pool->mu);
        for (unsigned i = 0; i < pool->started; i++)
            pthread_join(pool->ids[i], NULL);
        pthread_cond_destroy(&pool->idle);
        pthread_cond_destroy(&pool->wake);
        pthread_mutex_destroy(&pool->mu);
    }
    free(pool);
}

/* The parent's threads are gone in a child: start again with none.  The
 * objects are re-made rather than reused, since no thread of this process
 * waits on them. */
static int pool_after_fork(worker_pool *pool)
{
    if (pool->owner == getpid())
        return 1;
    if (!pool_sync_init(pool))
        return 0;           /* tried again on the next call */
    pool->started = 0;
    pool->job = NULL;
    pool->seats = pool->helping = 0;
    pool->generation = 0;
    pool->owner = getpid();
    return 1;
}

/* Starts threads until `helpers` run.  They block every signal, so that
 * signals keep going to the application's own threads. */
static void pool_grow(worker_pool *pool, unsigned helpers)
{
    sigset_t all, old;

    if (helpers > MAX_WORKERS)
        helpers = MAX_WORKERS;
    if (pool->started >= helpers)
        return;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (pool->started < helpers &&
           pthread_create(&pool->ids[pool->started], NULL, worker, pool) == 0)
        pool->started++;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void parallel_for(worker_pool *pool, unsigned threads, size_t n, size_t grain,
                  void (*fn)(void *arg, size_t begin, size_t end), void *arg)
{
    shared_work w = {fn, arg, n, grain ? grain : 1, 0};

    if (threads > n)
        threads = (unsigned)n;
    if (pool != NULL && threads > 1 && pool_after_fork(pool))
        pool_grow(pool, threads - 1);
    else
        threads = 1;
    if (threads <= 1 || pool->started == 0) {
        fn(arg, 0, n);
        return;
    }
    atomic_init(&w.next, 0);
    pthread_mutex_lock(&pool->mu);
    pool->job = &w;
    pool->seats = threads - 1;
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mu);
    take_ranges(&w);
    /* Close the job: a helper that wakes from now on leaves w alone, and
     * w lives until those already in it are done. */
    pthread_mutex_lock(&pool->mu);
    pool->job = NULL;
    while (pool->helping > 0)
        pthread_cond_wait(&pool->idle, &pool->mu);
    pthread_mutex_unlock(&pool->mu);
}

unsigned parallel_cpu_count(void)
{
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}
