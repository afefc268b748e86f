/* SPDX-License-Identifier: Apache-2.0 */
/* Small helpers shared by the C tests: checks, hex, vector files, EVP. */
#ifndef KSUM_TESTUTIL_H
#define KSUM_TESTUTIL_H

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksumprov.h"

extern int test_failures, test_passes;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (cond) {                                                            \
            test_passes++;                                                     \
        } else {                                                               \
            test_failures++;                                                   \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);               \
            fprintf(stderr, __VA_ARGS__);                                      \
            fprintf(stderr, "\n");                                             \
            ERR_print_errors_fp(stderr);                                       \
        }                                                                      \
    } while (0)

/* Prints the plain closing line and returns the exit status. */
int test_summary(const char *name);

/* CTest's skip status (SKIP_RETURN_CODE of the per-backend tests). */
#define TEST_SKIPPED 77
/* When KSUM_SIMD names a backend built in that this CPU cannot run, says
 * so loudly and exits with TEST_SKIPPED: the provider would fall back to
 * another, and the test pass without testing it. */
void test_skip_unless_backend_runs(void);
/* Nonzero, after printing "SKIPPED: what (reason)", when this environment
 * cannot fork a process with threads running: KSUM_NO_FORK_WITH_THREADS
 * holds the reason (tests/cross/run.sh sets it under qemu-user, where a
 * child forked beside running threads can find the emulator's locks held). */
int skip_fork_with_threads(const char *what);

/* Decodes hex (either case) into a new buffer; *len gets the byte count. */
uint8_t *hex_decode(const char *hex, size_t *len);
/* Lower-case hex of buf, in a static buffer large enough for 16 KiB. */
const char *hex_of(const uint8_t *buf, size_t len);
/* Random bytes from a seeded generator, so failures can be replayed. */
void test_random(uint8_t *buf, size_t len);
uint64_t test_random_u64(void);

/* A record of a vector file: "key = value" lines up to a blank line, or up
 * to the next line with the key the record began with (files without blank
 * lines between records).
 * Bracketed header lines "[key = value]" carry over to later records. */
#define RECORD_MAX_FIELDS 16
typedef struct record {
    char *key[RECORD_MAX_FIELDS], *value[RECORD_MAX_FIELDS];
    int n;
} record;
typedef struct vector_file {
    FILE *f;
    record header, rec;
    char *pending;  /* a line that began the next record */
} vector_file;
int vector_open(vector_file *vf, const char *dir, const char *name);
int vector_next(vector_file *vf); /* 1 while there are records */
void vector_close(vector_file *vf);
const char *field(const vector_file *vf, const char *key); /* NULL if absent */

/* A library context with ksumprov as a built-in provider (and, when
 * with_default, OpenSSL's default provider beside it). */
OSSL_LIB_CTX *test_libctx(int with_default);
void test_libctx_free(OSSL_LIB_CTX *lib);

/* One-shot digest through EVP with optional parameters; outlen 0 means the
 * digest's default size.  Returns 1 on success. */
int evp_digest(OSSL_LIB_CTX *lib, const char *name, const char *props,
               const OSSL_PARAM *params, const uint8_t *in, size_t len,
               uint8_t *out, size_t outlen);

#endif
