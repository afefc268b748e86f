/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a worker of the road (concurrent.h) is given and gives back: a
 * file to hash, for which digests, and its result.
 */
#ifndef KSUM_CLI_JOB_H
#define KSUM_CLI_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "front/hasher.h"
#include "input/files.h"

/* One digest a file is hashed for: an algorithm under its options (the
 * command line's, or check mode's with -x for an XOF line), at size bytes.
 * key names the contexts that compute it: the same key, the same
 * algorithm and options. */
typedef struct digest_spec {
    const algorithm *alg;
    const hash_spec *spec;
    size_t size;
    size_t key;
} digest_spec;

/* A file for a worker, and the n digests d it is hashed for. */
typedef struct file_job {
    const char *path;       /* NULL: nothing for a worker */
    int dirfd;              /* path + name_at is opened in this directory */
    size_t name_at;
    int nofollow;           /* a symbolic link is refused */
    const digest_spec *d;
    size_t n;
    int alone;              /* the last file, every other worker idle: its
                               tree mode may use every thread asked for */
} file_job;

/* What became of one file: err 0 and every digest in sums, one after the
 * other; or err (files.h), with OpenSSL's reason in why for KSUM_EHASH. */
typedef struct file_result {
    int err;
    uint8_t *sums;
    char *why;
    unsigned mode;      /* its st_mode as opened (--tree's exec bit: no stat
                           of its own) */
} file_result;

void file_result_free(file_result *r);

#endif
