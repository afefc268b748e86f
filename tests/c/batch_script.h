/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Batched contexts against unbatched twins, driven by a program of bytes:
 * random from a fixed seed in test_batch, libFuzzer's input in fuzz_batch.
 * Each step applies one operation (new context, update, updates of every
 * context in turn, final, squeeze, dup, free, init, a new batch id) to
 * both contexts of a slot: one in a group (KSUM_PARAM_BATCH), one not.
 * Every output must be the same, and every call must succeed or fail alike.
 */
#ifndef KSUM_BATCH_SCRIPT_H
#define KSUM_BATCH_SCRIPT_H

#include <openssl/types.h>
#include <stddef.h>
#include <stdint.h>

#define BATCH_SCRIPT_SLOTS 10

typedef struct batch_script {
    OSSL_LIB_CTX *lib;          /* with ksumprov loaded */
    const uint8_t *code;        /* the program; past its end it reads 0 */
    size_t code_len;
    const uint8_t *msg;         /* where updates take their bytes from */
    size_t msg_len;             /* at least max_update */
    size_t max_update;          /* the longest update */
    uint64_t first_id;          /* batch ids used: first_id .. + 2 */
    unsigned slots;             /* contexts alive at most, 1..10: more than the widest backend has lanes */
    const char *backend;        /* every context's, or NULL: the program's */
    /* Out: the first difference, and what ran. */
    char error[256];
    unsigned long steps, outputs;
    /* Private. */
    size_t at;
} batch_script;

/* Runs the program to its end (at most max_steps steps, then every live
 * context's final).  Returns 1, or 0 with s->error telling the first
 * difference. */
int batch_script_run(batch_script *s, unsigned long max_steps);

#endif
