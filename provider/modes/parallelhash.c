/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ParallelHash (SP 800-185): the input cut into blocks of B bytes, each
 * hashed with SHAKE on its own (tree.c, on worker threads), and the chaining
 * values absorbed in order into cSHAKE(N = "ParallelHash", S).
 *
 * Also in parts, as kangaroo_parts.c does for K12: the CVs z_i of a
 * block-aligned range of the message ("PARALLELHASH128-CV"), and the final
 * node from all the CVs in order ("PARALLELHASH128-FINAL"), both told |M|
 * (MODE_PARTS).  The XOF variant is the final's "xof", as for ParallelHash
 * itself: the CVs do not depend on it, only right_encode(L) does.
 */
#include <stddef.h>
#include <string.h>

#include "mode.h"
#include "sp800_185.h"
#include "tree.h"

/* The most CVs one range gives (KSUMPROV_PART_MAX_CHUNKS, as K12's). */
#define PH_PART_MAX_CVS 1024

/* The final node up to its first CV: cSHAKE(N = "ParallelHash", S), then
 * left_encode(B). */
static void final_begin(sponge *final, const mode_desc *d, const keccak_backend *be,
                        const mode_params *p)
{
    static const uint8_t name[] = "ParallelHash";
    uint8_t enc[SP800_ENCODE_MAX];

    cshake_init(final, be, d->strength, name, sizeof name - 1, p->custom,
                p->custom_len);
    sponge_absorb(final, enc, sp800_left_encode(enc, p->block_size));
}

/* After the n CVs: right_encode(n), right_encode(L), L = 0 for the XOF. */
static void final_end(sponge *final, uint64_t n, uint64_t outlen, int xof)
{
    uint8_t enc[SP800_ENCODE_MAX];

    sponge_absorb(final, enc, sp800_right_encode(enc, n));
    sponge_absorb(final, enc, sp800_right_encode_bits(enc, xof ? 0 : outlen));
}

/* Each leaf is cSHAKE(X_i, 2c bits, "", ""), that is SHAKE. */
static void leaves_init(tree_leaves *t, const mode_desc *d, const mode_params *p)
{
    tree_leaves_init(t, p->block_size, d->rate, 24, 0x1F, d->strength / 4);
}

/* A CV spans B bytes of M; the final node takes none of M as it is. */
static void part_shape(const mode_params *p, uint64_t *span, uint64_t *head)
{
    *span = p->block_size;
    *head = 0;
}

typedef struct parallelhash {
    sponge final;
    tree_leaves leaves;
} parallelhash;

static void start(void *st, const mode_desc *d, const keccak_backend *be,
                  const mode_params *p)
{
    parallelhash *ph = st;

    final_begin(&ph->final, d, be, p);
    leaves_init(&ph->leaves, d, p);
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

    (void)p;
    tree_leaves_finish(&ph->leaves, &ph->final);
    final_end(&ph->final, ph->leaves.count, outlen, xof);
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

/* ---- the CVs of a range ---- */

typedef struct cv_part {
    sponge be_only;       /* gives the leaves their backend; never absorbs */
    tree_leaves leaves;
    uint64_t pos;         /* the place in M of the next byte */
    uint64_t end;         /* |M| */
    uint64_t first;       /* the block whose CV comes first */
    size_t count;         /* CVs held */
    size_t taken;         /* output bytes squeezed */
    int bad;              /* no length, or an offset that is no block start of M */
    uint8_t cvs[PH_PART_MAX_CVS * TREE_MAX_CV];
} cv_part;

static void cv_sink(tree_leaves *t, const uint8_t *cvs, size_t len)
{
    cv_part *c = (cv_part *)((char *)t - offsetof(cv_part, leaves));
    size_t room = sizeof c->cvs - c->count * t->cv_len;

    /* cv_absorb and cv_finish keep the CVs within bounds; never past them. */
    if (len > room)
        len = room;
    memcpy(c->cvs + c->count * t->cv_len, cvs, len);
    c->count += len / t->cv_len;
}

static void cv_start(void *st, const mode_desc *d, const keccak_backend *be,
                     const mode_params *p)
{
    cv_part *c = st;

    sponge_init(&c->be_only, be, d->rate, 24, 0x1F);
    leaves_init(&c->leaves, d, p);
    c->leaves.sink = cv_sink;
    c->end = p->message_len;
    c->pos = p->offset;
    c->first = p->offset / p->block_size;
    c->count = c->taken = 0;
    c->bad = p->message_len == UINT64_MAX || p->offset % p->block_size != 0 ||
             p->offset > p->message_len;
}

/* CVs of the blocks that M up to byte s (exclusive) touches. */
static uint64_t cvs_until(const cv_part *c, uint64_t s)
{
    uint64_t b = c->leaves.leaf_len;
    uint64_t blocks = s / b + (s % b != 0);

    return blocks > c->first ? blocks - c->first : 0;
}

static int cv_absorb(void *st, const uint8_t *in, size_t len)
{
    cv_part *c = st;

    if (c->bad || len > c->end - c->pos ||
        cvs_until(c, c->pos + len) > PH_PART_MAX_CVS)
        return 0;
    if (len == 0)
        return 1;   /* in may be NULL then */
    tree_leaves_update(&c->leaves, &c->be_only, in, len);
    c->pos += len;
    return 1;
}

static int cv_count(const void *st, const mode_params *p, uint64_t *n)
{
    const cv_part *c = st;

    (void)p;
    if (c->bad)
        return 0;
    /* Before the end only whole blocks count: the last may still grow. */
    *n = cvs_until(c, c->pos < c->end ? c->pos - c->pos % c->leaves.leaf_len : c->pos);
    return 1;
}

static int cv_finish(void *st, const mode_params *p, uint64_t outlen, int xof)
{
    cv_part *c = st;
    uint64_t n = 0;

    (void)xof;
    if (!cv_count(st, p, &n) || (c->pos < c->end && c->pos % c->leaves.leaf_len != 0) ||
        n > PH_PART_MAX_CVS || outlen != n * c->leaves.cv_len)
        return 0;
    tree_leaves_finish(&c->leaves, &c->be_only);
    return 1;
}

static void cv_squeeze(void *st, uint8_t *out, size_t len)
{
    cv_part *c = st;

    tree_give_cvs(c->cvs, c->count * c->leaves.cv_len, &c->taken, out, len);
}

static void cv_attach_workers(void *st, worker_pool *pool, unsigned threads)
{
    tree_leaves_set_workers(&((cv_part *)st)->leaves, pool, threads);
}

static const mode_ops cv_ops = {
    .state_size = sizeof(cv_part),
    .start = cv_start,
    .absorb = cv_absorb,
    .finish = cv_finish,
    .squeeze = cv_squeeze,
    .attach_workers = cv_attach_workers,
    .cv_count = cv_count,
    .part_shape = part_shape,
};

/* ---- the final node from the CVs ---- */

typedef struct final_part {
    sponge final;
    uint64_t n;           /* CVs of M: ceil(|M| / B) */
    uint64_t cv_bytes, cv_got;
    int bad;              /* no length, or more CV bytes than 64 bits count */
} final_part;

static void final_start(void *st, const mode_desc *d, const keccak_backend *be,
                        const mode_params *p)
{
    final_part *f = st;
    uint64_t m = p->message_len, cv_len = d->strength / 4;

    final_begin(&f->final, d, be, p);
    f->n = m / p->block_size + (m % p->block_size != 0);
    f->bad = m == UINT64_MAX || f->n > UINT64_MAX / cv_len;
    f->cv_bytes = f->bad ? 0 : f->n * cv_len;
    f->cv_got = 0;
}

static int final_absorb(void *st, const uint8_t *in, size_t len)
{
    final_part *f = st;

    if (f->bad || len > f->cv_bytes - f->cv_got)
        return 0;
    sponge_absorb(&f->final, in, len);
    f->cv_got += len;
    return 1;
}

static int final_finish(void *st, const mode_params *p, uint64_t outlen, int xof)
{
    final_part *f = st;

    (void)p;
    if (f->bad || f->cv_got != f->cv_bytes)
        return 0;
    final_end(&f->final, f->n, outlen, xof);
    return 1;
}

static void final_squeeze(void *st, uint8_t *out, size_t len)
{
    sponge_squeeze(&((final_part *)st)->final, out, len);
}

static const mode_ops final_ops = {
    .state_size = sizeof(final_part),
    .start = final_start,
    .absorb = final_absorb,
    .finish = final_finish,
    .squeeze = final_squeeze,
    .part_shape = part_shape,
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

/* The CV algorithm's default output is one CV (2c bits), as K12's. */
#define PARALLELHASH_CV(strength_)                                           \
    {.ops = &cv_ops,                                                         \
     .rate = 200 - (strength_) / 4,                                          \
     .rounds = 24,                                                           \
     .domain = 0x1F,                                                         \
     .strength = strength_,                                                  \
     .outlen = (strength_) / 4,                                              \
     .takes = MODE_OUTLEN | MODE_BLOCK | MODE_THREADS | MODE_PARTS | MODE_RANGE}
#define PARALLELHASH_FINAL(strength_)                                        \
    {.ops = &final_ops,                                                      \
     .rate = 200 - (strength_) / 4,                                          \
     .rounds = 24,                                                           \
     .domain = 0x04,                                                         \
     .strength = strength_,                                                  \
     .outlen = (strength_) / 8,                                              \
     .takes = MODE_OUTLEN | MODE_XOF | MODE_CUSTOM | MODE_BLOCK | MODE_PARTS}

const mode_desc mode_parallelhash128_cv = PARALLELHASH_CV(128);
const mode_desc mode_parallelhash256_cv = PARALLELHASH_CV(256);
const mode_desc mode_parallelhash128_final = PARALLELHASH_FINAL(128);
const mode_desc mode_parallelhash256_final = PARALLELHASH_FINAL(256);
