/* SPDX-License-Identifier: Apache-2.0 */
#include "base/thread.h"

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
