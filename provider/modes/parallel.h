/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Running independent pieces of work on several threads.  A context's
 * worker_pool starts its threads the first time a call needs them (never at
 * load) and keeps them, asleep, between calls, so an update does not pay
 * for creating threads; a thread idle for PARALLEL_IDLE_MS exits, so that
 * many idle contexts do not hold many threads, and is started again when
 * a call needs it.  A child after fork() has none of its parent's threads:
 * the pool notices (by its pid) and starts its own.
 */
#ifndef KSUM_PARALLEL_H
#define KSUM_PARALLEL_H

#include <stddef.h>

typedef struct worker_pool worker_pool;

/* How long a helper thread waits for work before it exits. */
#define PARALLEL_IDLE_MS 1000

/* A pool without threads yet; NULL when out of memory. */
worker_pool *worker_pool_new(void);
/* Stops and joins the pool's threads (those that exited too); NULL is
 * ignored.  In a child after fork() it only releases the memory. */
void worker_pool_free(worker_pool *pool);
/* Changes the idle time of the pool's helpers, from their next wait on
 * (tests use a short one). */
void worker_pool_set_idle(worker_pool *pool, unsigned ms);

/* Runs fn(arg, begin, end) over all of [0, n), in ranges of up to grain
 * items taken by the calling thread and up to threads - 1 of the pool's
 * threads (the caller alone when pool is NULL or no thread can be started).
 * Small ranges keep the threads finishing together; each should still be
 * worth an atomic add.  fn must not depend on which thread runs which
 * range.  One call at a time per pool. */
void parallel_for(worker_pool *pool, unsigned threads, size_t n, size_t grain,
                  void (*fn)(void *arg, size_t begin, size_t end), void *arg);

/* The CPUs this process may run on (its affinity mask), at least 1. */
unsigned parallel_cpu_count(void);

#endif
