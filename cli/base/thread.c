/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "base/thread.h"

#include <sched.h>

int thread_start(pthread_t *id, void *(*fn)(void *), void *arg)
{
    pthread_attr_t attr;
    int err = pthread_attr_init(&attr);

    if (err != 0)
        return err;
    err = pthread_attr_setstacksize(&attr, THREAD_STACK_SIZE);
    if (err == 0)
        err = pthread_create(id, &attr, fn, arg);
    pthread_attr_destroy(&attr);
    return err;
}

unsigned ksum_cpu_count(void)
{
    cpu_set_t set;

    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    return 1;
}
