#define _GNU_SOURCE
#include "parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

#define MAX_THREADS 256

/* The threads take small ranges from a shared counter rather than one
 * fixed share each, so a thread slowed by another process (or by ksum's
 * reader) does not hold the others up at the join. */
typedef struct shared_work {
    void (*fn)(void *arg, size_t begin, size_t end);
    void *arg;
    size_t n, grain;
    atomic_size_t next;
} shared_work;

static void *take_ranges(void *p)
{
    shared_work *w = p;

    for (;;) {
        size_t begin = atomic_fetch_add(&w->next, w->grain);
        if (begin >= w->n)
            return NULL;
        w->fn(w->arg, begin, begin + w->grain < w->n ? begin + w->grain : w->n);
    }
}

void parallel_for(unsigned threads, size_t n,
                  void (*fn)(void *arg, size_t begin, size_t end), void *arg)
{
    pthread_t ids[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    shared_work w = {fn, arg, n, 0, 0};

    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    if (threads > n)
        threads = (unsigned)n;
    if (threads <= 1) {
        fn(arg, 0, n);
        return;
    }
    w.grain = n / (8 * (size_t)threads);
    if (w.grain == 0)
        w.grain = 1;
    atomic_init(&w.next, 0);
    for (unsigned i = 1; i < threads; i++)
        started[i] = pthread_create(&ids[i], NULL, take_ranges, &w) == 0;
    take_ranges(&w);
    for (unsigned i = 1; i < threads; i++)
        if (started[i])
            pthread_join(ids[i], NULL);
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
