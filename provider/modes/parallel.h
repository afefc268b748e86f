/*
 * Running independent pieces of work on several threads.  Threads are
 * created for one call and joined before it returns: none exists between
 * calls, so nothing is started at load, nothing outlives a context, and a
 * fork() never inherits a half-used pool.
 */
#ifndef KSUM_PARALLEL_H
#define KSUM_PARALLEL_H

#include <stddef.h>

/* Runs fn(arg, begin, end) over all of [0, n), in ranges taken by up to
 * `threads` threads, the calling thread among them (it alone does the work
 * when no other thread can be created).  fn must not depend on which
 * thread runs which range. */
void parallel_for(unsigned threads, size_t n,
                  void (*fn)(void *arg, size_t begin, size_t end), void *arg);

/* The CPUs this process may run on (its affinity mask), at least 1. */
unsigned parallel_cpu_count(void);

#endif
