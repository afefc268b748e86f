/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ParallelHash (SP 800-185): the input cut into blocks of B bytes, each
 * hashed with SHAKE on its own (tree.c, on worker threads), and the chaining
 * values absorbed in order into cSHAKE(N = "ParallelHash", S).
 */
#include "mode.h"
#include "sp800_185.h"
#include "tree.h"

typedef struct parallelhash {
    sponge final;
    tree_leaves leaves;
} parallelhash;

static void start(void *st, const mode_desc *d, const keccak_backend *be,
                  const mode_params *p)
{
    static const uint8_t name[] = "ParallelHash";
    parallelhash *ph = st;
    uint8_t enc[SP800_ENCODE_MAX];

    cshake_init(&ph->final, be, d->strength, name, sizeof name - 1, p->custom,
                p->custom_len);
    sponge_absorb(&ph->final, enc, sp800_left_encode(enc, p->block_size));
    /* Each leaf is cSHAKE(X_i, 2c bits, "", ""), that is SHAKE. */
    tree_leaves_init(&ph->leaves, p->block_size, d->rate, 24, 0x1F,
                     d->strength / 4);
}

static int absorb(void *st, const uint8_t *in, size_t len)
{
    parallelhash *ph = st;

    tree_leaves_update(&ph->leaves, &ph->final, in, len);
    return 1;
}

static int finish(void *st, const mode_params *p, uint64_t outlen, int xof)
{
    parallelhash *ph = st;
    uint8_t enc[SP800_ENCODE_MAX];

    (void)p;
    tree_leaves_finish(&ph->leaves, &ph->final);
    sponge_absorb(&ph->final, enc, sp800_right_encode(enc, ph->leaves.count));
    sponge_absorb(&ph->final, enc, sp800_right_encode_bits(enc, xof ? 0 : outlen));
    return 1;
}

static void squeeze(void *st, uint8_t *out, size_t len)
{
    sponge_squeeze(&((parallelhash *)st)->final, out, len);
}

static void attach_workers(void *st, worker_pool *pool, unsigned threads)
{
    tree_leaves_set_workers(&((parallelhash *)st)->leaves, pool, threads);
}

static const mode_ops parallelhash_ops = {
    .state_size = sizeof(parallelhash),
    .start = start,
    .absorb = absorb,
    .finish = finish,
    .squeeze = squeeze,
    .attach_workers = attach_workers,
};

#define PARALLELHASH(strength_)                                              \
    {.ops = &parallelhash_ops,                                               \
     .rate = 200 - (strength_) / 4,                                          \
     .rounds = 24,                                                           \
     .domain = 0x04,                                                         \
     .strength = strength_,                                                  \
     .outlen = (strength_) / 8,                                              \
     .takes = MODE_OUTLEN | MODE_XOF | MODE_CUSTOM | MODE_BLOCK | MODE_THREADS}

const mode_desc mode_parallelhash128 = PARALLELHASH(128);
const mode_desc mode_parallelhash256 = PARALLELHASH(256);
