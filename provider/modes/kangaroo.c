/* SPDX-License-Identifier: Apache-2.0 */
#include "kangaroo.h"

#include "mode.h"

#define DOMAIN_SINGLE 0x07  /* the whole input fits the final node */
#define DOMAIN_LEAF 0x0B
#define DOMAIN_FINAL 0x06   /* final node of a tree */

/* rate, rounds, chaining-value bytes */
#define KT128_TREE 168, 12, 32
#define KT256_TREE 136, 12, 64
#define M14_TREE 136, 14, 64

const kangaroo_params kangaroo_kt128 = {KT128_TREE};
const kangaroo_params kangaroo_kt256 = {KT256_TREE};
const kangaroo_params kangaroo_m14 = {M14_TREE};

size_t kangaroo_length_encode(uint8_t out[9], uint64_t x)
{
    size_t n = 0;

    /* n < 8 in the condition bounds n for the compiler too (GCC 12 for
     * aarch64 saw writes past out[8]: -Wstringop-overflow). */
    while (n < 8 && (x >> (8 * n)) != 0)
        n++;
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)(x >> (8 * (n - 1 - i)));
    out[n] = (uint8_t)n;
    return n + 1;
}

void kangaroo_init(kangaroo *k, const keccak_backend *be,
                   const kangaroo_params *p)
{
    sponge_init(&k->final, be, p->rate, p->rounds, DOMAIN_SINGLE);
    tree_leaves_init(&k->leaves, KANGAROO_CHUNK, p->rate, p->rounds,
                     DOMAIN_LEAF, p->cv_len);
    k->first = 0;
    k->tree = 0;
}

void kangaroo_update(kangaroo *k, const void *data, size_t len)
{
    const uint8_t *in = data;

    if (len == 0)
        return; /* data may be NULL then */
    if (k->first < KANGAROO_CHUNK) {
        size_t take = KANGAROO_CHUNK - k->first;
        if (take > len)
            take = len;
        sponge_absorb(&k->final, in, take);
        k->first += take;
        in += take;
        len -= take;
    }
    if (len == 0)
        return;
    /* Only a byte past the first chunk makes this a tree. */
    kangaroo_begin_tree(k);
    tree_leaves_update(&k->leaves, &k->final, in, len);
}

void kangaroo_begin_tree(kangaroo *k)
{
    static const uint8_t tree_marker[8] = {0x03};

    if (k->tree)
        return;
    sponge_absorb(&k->final, tree_marker, sizeof tree_marker);
    k->final.domain = DOMAIN_FINAL;
    k->tree = 1;
}

void kangaroo_end_tree(kangaroo *k, uint64_t cvs)
{
    static const uint8_t end[2] = {0xFF, 0xFF};
    uint8_t enc[9];

    sponge_absorb(&k->final, enc, kangaroo_length_encode(enc, cvs));
    sponge_absorb(&k->final, end, sizeof end);
}

size_t kangaroo_suffix(uint8_t out[9], size_t clen)
{
    return kangaroo_length_encode(out, clen);
}

uint64_t kangaroo_chunks(uint64_t message_len, size_t clen)
{
    uint8_t enc[9];
    uint64_t s = message_len + clen + kangaroo_length_encode(enc, clen);

    return s <= KANGAROO_CHUNK ? 1 : (s + KANGAROO_CHUNK - 1) / KANGAROO_CHUNK;
}

void kangaroo_finish(kangaroo *k, const uint8_t *custom, size_t clen)
{
    uint8_t enc[9];

    kangaroo_update(k, custom, clen);
    kangaroo_update(k, enc, kangaroo_length_encode(enc, clen));
    if (!k->tree)
        return;
    tree_leaves_finish(&k->leaves, &k->final);
    kangaroo_end_tree(k, k->leaves.count);
}

/* ---- as a mode ---- */

static void start(void *st, const mode_desc *d, const keccak_backend *be,
                  const mode_params *p)
{
    (void)p;    /* the customization string comes at the end */
    kangaroo_init(st, be, d->extra);
}

static int absorb(void *st, const uint8_t *in, size_t len)
{
    kangaroo_update(st, in, len);
    return 1;
}

static int finish(void *st, const mode_params *p, uint64_t outlen, int xof)
{
    (void)outlen, (void)xof;
    kangaroo_finish(st, p->custom, p->custom_len);
    return 1;
}

static void squeeze(void *st, uint8_t *out, size_t len)
{
    sponge_squeeze(&((kangaroo *)st)->final, out, len);
}

static void attach_workers(void *st, worker_pool *pool, unsigned threads)
{
    tree_leaves_set_workers(&((kangaroo *)st)->leaves, pool, threads);
}

/* The final node's sponge: the first chunk goes into it unchanged, and a
 * short message is nothing else, so small files batch (several absorbing
 * through the n-way kernel) as the sequential modes do. */
static sponge *lane(void *st)
{
    return &((kangaroo *)st)->final;
}

static size_t lane_take(void *st, size_t len)
{
    kangaroo *k = st;
    size_t room = KANGAROO_CHUNK - k->first;
    size_t take = len < room ? len : room;

    k->first += take;
    return take;
}

static const mode_ops kangaroo_ops = {
    .state_size = sizeof(kangaroo),
    .start = start,
    .absorb = absorb,
    .finish = finish,
    .squeeze = squeeze,
    .attach_workers = attach_workers,
    .lane = lane,
    .lane_take = lane_take,
};

#define KANGAROO(p, tree, strength, outlen) KANGAROO_(p, strength, outlen, tree)
#define KANGAROO_(p_, strength_, outlen_, rate_, rounds_, cv_)               \
    {.ops = &kangaroo_ops,                                                   \
     .rate = rate_,                                                          \
     .rounds = rounds_,                                                      \
     .domain = DOMAIN_SINGLE,                                                \
     .strength = strength_,                                                  \
     .outlen = outlen_,                                                      \
     .takes = MODE_OUTLEN | MODE_CUSTOM | MODE_THREADS | MODE_BATCH,         \
     .extra = &(p_),                                                         \
     .batch_prefix = KANGAROO_CHUNK}

const mode_desc mode_kt128 = KANGAROO(kangaroo_kt128, KT128_TREE, 128, 16);
const mode_desc mode_kt256 = KANGAROO(kangaroo_kt256, KT256_TREE, 256, 64);
const mode_desc mode_m14 = KANGAROO(kangaroo_m14, M14_TREE, 256, 32);
