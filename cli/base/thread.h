/* SPDX-License-Identifier: Apache-2.0 */
/* ksum's threads: each with a stack sized to what it uses. */
#ifndef KSUM_CLI_THREAD_H
#define KSUM_CLI_THREAD_H

#include <pthread.h>

/* The default stack is 8 MiB of address space a thread: under `ulimit -v`
 * that decides how many threads start.  ksum's threads keep their buffers
 * on the heap and need a few KiB; the sanitizers' instrumentation needs
 * more. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define THREAD_STACK_SIZE ((size_t)4 << 20)
#else
#define THREAD_STACK_SIZE ((size_t)256 << 10)
#endif

/* pthread_create with that stack; its result. */
int thread_start(pthread_t *id, void *(*fn)(void *), void *arg);
/* The CPUs this process may run on (its affinity mask), at least 1: the
 * default number of threads. */
unsigned ksum_cpu_count(void);

#endif
