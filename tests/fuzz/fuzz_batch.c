/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Batched contexts against unbatched twins: the input is a program of
 * operations (tests/c/batch_script.c: new contexts of every sequential
 * algorithm in groups, updates, updates in turns, final, squeeze, dup,
 * free, init, a new batch id); any difference between a context in a group
 * and its twin outside aborts.  The first byte sets how many contexts live
 * at once (1 to 6).
 */
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>

#include "../c/batch_script.h"
#include "fuzz_common.h"

/* Updates up to a little more than the pending bound: long enough to
 * overflow it, short enough to run many programs. */
#define MAX_UPDATE 70000
#define MSG_LEN (MAX_UPDATE + 65536)

static OSSL_LIB_CTX *lib;
static uint8_t *msg;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    uint64_t x = 0x9E3779B97F4A7C15ULL;

    (void)argc, (void)argv;
    lib = fuzz_libctx(0);
    msg = malloc(MSG_LEN);
    if (msg == NULL)
        abort();
    for (size_t i = 0; i < MSG_LEN; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        msg[i] = (uint8_t)x;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    batch_script s = {0};

    if (size < 2)
        return 0;
    s.lib = lib;
    s.code = data + 1;
    s.code_len = size - 1;
    s.msg = msg;
    s.msg_len = MSG_LEN;
    s.max_update = MAX_UPDATE;
    s.first_id = 1;
    s.slots = 1 + data[0] % BATCH_SCRIPT_SLOTS;
    if (!batch_script_run(&s, 500)) {
        fprintf(stderr, "batched and unbatched differ: %s\n", s.error);
        abort();
    }
    return 0;
}
