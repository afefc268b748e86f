/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "parallel.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
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

/* Every field is guarded by mu.  A helper leaves on quit or after idle_ms
 * without a job; each one leaving joins the one that left before it, so at
 * most one (`last_gone`) waits to be joined, by the next parallel_for or by
 * worker_pool_free. */
struct worker_pool {
    pthread_mutex_t mu;
    pthread_cond_t wake;      /* a new job, or quit (on CLOCK_MONOTONIC) */
    pthread_cond_t idle;      /* the last helper left the job */
    pthread_cond_t gone;      /* the last running helper left the pool */
    unsigned running;         /* helpers started and not yet leaving */
    int has_gone;             /* last_gone is a thread still to be joined */
    pthread_t last_gone;
    pid_t owner;              /* the process whose threads those are */
    unsigned idle_ms;
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

static struct timespec deadline_after(unsigned ms)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

/* Waits, mu held, for a job newer than *seen: 1 when there is one, 0 on
 * quit or after idle_ms without one.  A timeout that races with a new job
 * loses: the job is checked first. */
static int wait_for_job(worker_pool *pool, uint64_t *seen)
{
    struct timespec deadline = deadline_after(pool->idle_ms);

    while (!pool->quit && pool->generation == *seen)
        if (pthread_cond_timedwait(&pool->wake, &pool->mu, &deadline) == ETIMEDOUT &&
            !pool->quit && pool->generation == *seen)
            return 0;
    if (pool->quit)
        return 0;
    *seen = pool->generation;
    return 1;
}

/* Called with mu held, releases it.  From the unlock on, the thread
 * touches nothing of the pool, which may be freed at once; whoever frees
 * it joins this thread, and so, through the chain, every earlier one. */
static void leave(worker_pool *pool)
{
    int join_earlier = pool->has_gone;
    pthread_t earlier = pool->last_gone;

    pool->last_gone = pthread_self();
    pool->has_gone = 1;
    if (--pool->running == 0)
        pthread_cond_broadcast(&pool->gone);
    pthread_mutex_unlock(&pool->mu);
    if (join_earlier)
        pthread_join(earlier, NULL);
}

static void *worker(void *arg)
{
    worker_pool *pool = arg;
    uint64_t seen = 0;   /* so that a new helper may take the open job */

    pthread_mutex_lock(&pool->mu);
    while (wait_for_job(pool, &seen)) {
        shared_work *job = pool->job;
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
    leave(pool);
    return NULL;
}

static int pool_sync_init(worker_pool *pool)
{
    pthread_condattr_t monotonic;
    int ok = pthread_condattr_init(&monotonic) == 0;

    ok = ok && pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC) == 0;
    if (!ok || pthread_mutex_init(&pool->mu, NULL) != 0)
        return 0;
    if (pthread_cond_init(&pool->wake, &monotonic) != 0)
        goto no_wake;
    if (pthread_cond_init(&pool->idle, NULL) != 0)
        goto no_idle;
    if (pthread_cond_init(&pool->gone, NULL) != 0)
        goto no_gone;
    pthread_condattr_destroy(&monotonic);
    return 1;
no_gone:
    pthread_cond_destroy(&pool->idle);
no_idle:
    pthread_cond_destroy(&pool->wake);
no_wake:
    pthread_mutex_destroy(&pool->mu);
    pthread_condattr_destroy(&monotonic);
    return 0;
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
    pool->idle_ms = PARALLEL_IDLE_MS;
    return pool;
}

void worker_pool_set_idle(worker_pool *pool, unsigned ms)
{
    pthread_mutex_lock(&pool->mu);
    pool->idle_ms = ms;
    pthread_mutex_unlock(&pool->mu);
}

/* Joins the helper that left last, if any; mu held.  It no longer needs
 * mu, so joining here cannot deadlock. */
static void join_gone(worker_pool *pool)
{
    if (pool->has_gone) {
        pthread_join(pool->last_gone, NULL);
        pool->has_gone = 0;
    }
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
        while (pool->running > 0)
            pthread_cond_wait(&pool->gone, &pool->mu);
        join_gone(pool);
        pthread_mutex_unlock(&pool->mu);
        pthread_cond_destroy(&pool->gone);
        pthread_cond_destroy(&pool->idle);
        pthread_cond_destroy(&pool->wake);
        pthread_mutex_destroy(&pool->mu);
    }
    free(pool);
}

/* The parent's threads are gone in a child: start again with none, and
 * never join the parent's.  The objects are re-made rather than reused,
 * since no thread of this process waits on them. */
static int pool_after_fork(worker_pool *pool)
{
    if (pool->owner == getpid())
        return 1;
    if (!pool_sync_init(pool))
        return 0;           /* tried again on the next call */
    pool->running = 0;
    pool->has_gone = 0;
    pool->job = NULL;
    pool->seats = pool->helping = 0;
    pool->generation = 0;
    pool->owner = getpid();
    return 1;
}

/* A helper's stack: the modes keep states and buffers small or on the
 * heap, and the default 8 MiB of address space a thread decides, under
 * `ulimit -v`, how many start (the sanitizers need more). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HELPER_STACK ((size_t)4 << 20)
#else
#define HELPER_STACK ((size_t)256 << 10)
#endif

static int start_helper(pthread_t *id, worker_pool *pool)
{
    pthread_attr_t attr;
    int err = pthread_attr_init(&attr);

    if (err != 0)
        return err;
    if ((err = pthread_attr_setstacksize(&attr, HELPER_STACK)) == 0)
        err = pthread_create(id, &attr, worker, pool);
    pthread_attr_destroy(&attr);
    return err;
}

/* Starts threads until `helpers` run; mu held.  They block every signal,
 * so that signals keep going to the application's own threads. */
static void pool_grow(worker_pool *pool, unsigned helpers)
{
    sigset_t all, old;
    pthread_t id;

    if (helpers > MAX_WORKERS)
        helpers = MAX_WORKERS;
    if (pool->running >= helpers)
        return;
    join_gone(pool);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (pool->running < helpers && start_helper(&id, pool) == 0)
        pool->running++;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void parallel_for(worker_pool *pool, unsigned threads, size_t n, size_t grain,
                  void (*fn)(void *arg, size_t begin, size_t end), void *arg)
{
    shared_work w = {fn, arg, n, grain ? grain : 1, 0};

    if (threads > n)
        threads = (unsigned)n;
    if (pool == NULL || threads <= 1 || !pool_after_fork(pool)) {
        fn(arg, 0, n);
        return;
    }
    atomic_init(&w.next, 0);
    pthread_mutex_lock(&pool->mu);
    pool_grow(pool, threads - 1);
    if (pool->running == 0) {
        pthread_mutex_unlock(&pool->mu);
        fn(arg, 0, n);
        return;
    }
    pool->job = &w;
    pool->seats = threads - 1;
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mu);
    take_ranges(&w);
    /* Close the job: a helper that wakes from now on leaves w alone, and
     * w lives until those already in it are done.  Helpers that left the
     * pool never took a seat, so none of them is waited for. */
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
