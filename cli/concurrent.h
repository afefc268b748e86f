/* SPDX-License-Identifier: Apache-2.0 */
/* Hashing several files at once, for the algorithms that hash one input on
 * one thread, with the output still in argument order. */
#ifndef KSUM_CLI_CONCURRENT_H
#define KSUM_CLI_CONCURRENT_H

#include <openssl/types.h>

#include "options.h"
#include "progress.h"
#include "walk.h"

/* The CPUs this process may run on (its affinity mask), at least 1: the
 * default number of threads. */
unsigned ksum_cpu_count(void);

/* Hashes the files `names` gives on `workers` threads and prints their
 * lines in order (and the errors and warnings of the walk in their place);
 * each worker keeps several files in flight in one batch group where
 * ksumprov gains from it (KSUM_PARAM_BATCH).  Returns 1 when every file
 * was hashed, 0 otherwise, -1 when it could not start or would gain
 * nothing (one worker, no batching): the caller then hashes them one by
 * one. */
int hash_files_concurrently(const options *o, OSSL_LIB_CTX *lib,
                            name_source *names, unsigned workers, progress *pg);

#endif
