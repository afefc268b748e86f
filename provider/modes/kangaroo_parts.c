/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A KangarooTwelve-family tree computed in parts (RFC 9861 section 3).
 * S = M || C || length_encode(|C|) is cut into 8192-byte chunks; S_0 goes
 * into the final node as it is, every later chunk S_i into a chaining
 * value CV_i.  The CVs of disjoint chunk ranges can be computed anywhere,
 * and one final node over S_0 and all the CVs in order gives the digest of
 * the whole.  Two modes, both told |M| (MODE_PARTS), which decides where S
 * ends and whether there is a tree at all:
 *
 *  - cv ("KT128-CV", ...): the input is M from byte p->offset on (a
 *    multiple of 8192: MODE_RANGE) to a chunk boundary or to the end of M;
 *    the output is the CVs of the chunks it covers, nothing else.  Bytes of
 *    S_0 are not hashed here (the final node takes them as they are).  The
 *    part that reaches the end of M appends C and its length_encode, so its
 *    CVs also cover the chunks of S past M: those that hold only C, which
 *    exist when C pushes S over a chunk boundary.
 *  - final ("KT128-FINAL", ...): the input is the first min(|M|, 8192)
 *    bytes of M, then CV_1 .. CV_{n-1} in order; the output is the digest
 *    of M, the same as kangaroo.c's.  S_0's share of C is added here.
 *
 * The chunk and suffix rules are kangaroo.c's (kangaroo_chunks,
 * kangaroo_begin_tree, kangaroo_end_tree); the leaves are tree.c's, with
 * its threads and 4-way groups, their CVs sent to this state instead of a
 * final node.
 */
#include <stddef.h>
#include <string.h>

#include "kangaroo.h"
#include "mode.h"

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* A CV stands for a chunk; the final node takes S_0's share of M whole. */
static void part_shape(const mode_params *p, uint64_t *span, uint64_t *head)
{
    *span = KANGAROO_CHUNK;
    *head = min_u64(p->message_len, KANGAROO_CHUNK);
}

/* ---- the CVs of a range ---- */

typedef struct cv_part {
    kangaroo k;           /* its leaves hash the chunks; its final node is unused */
    uint64_t pos;         /* the place in S of the next byte */
    uint64_t end;         /* |M| */
    uint64_t first;       /* the first chunk whose CV this part gives (>= 1) */
    size_t count;         /* CVs held */
    size_t taken;         /* output bytes squeezed */
    int bad;              /* no length, or an offset that is no chunk start of M */
    uint8_t cvs[KANGAROO_PART_MAX_CVS * TREE_MAX_CV];
} cv_part;

static void cv_sink(tree_leaves *t, const uint8_t *cvs, size_t len)
{
    cv_part *c = (cv_part *)((char *)t - offsetof(cv_part, k.leaves));
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

    kangaroo_init(&c->k, be, d->extra);
    c->k.leaves.sink = cv_sink;
    c->end = p->message_len;
    c->pos = p->offset;
    c->first = p->offset / KANGAROO_CHUNK > 1 ? p->offset / KANGAROO_CHUNK : 1;
    c->count = c->taken = 0;
    c->bad = p->message_len == UINT64_MAX || p->offset % KANGAROO_CHUNK != 0 ||
             p->offset > p->message_len;
}

/* Bytes of S at c->pos: those of S_0 are skipped, the rest hashed. */
static void cv_feed(cv_part *c, const uint8_t *in, size_t len)
{
    if (len == 0)
        return;     /* in may be NULL then */
    if (c->pos < KANGAROO_CHUNK) {
        size_t skip = (size_t)min_u64(KANGAROO_CHUNK - c->pos, len);
        in += skip;
        len -= skip;
        c->pos += skip;
    }
    if (len == 0)
        return;
    tree_leaves_update(&c->k.leaves, &c->k.final, in, len);
    c->pos += len;
}

/* CVs of the chunks that S up to byte s (exclusive) touches. */
static uint64_t cvs_until(const cv_part *c, uint64_t s)
{
    uint64_t chunks = (s + KANGAROO_CHUNK - 1) / KANGAROO_CHUNK;

    return chunks > c->first ? chunks - c->first : 0;
}

static int cv_absorb(void *st, const uint8_t *in, size_t len)
{
    cv_part *c = st;

    if (c->bad || len > c->end - c->pos ||
        cvs_until(c, c->pos + len) > KANGAROO_PART_MAX_CVS)
        return 0;
    cv_feed(c, in, len);
    return 1;
}

static int cv_count(const void *st, const mode_params *p, uint64_t *n)
{
    const cv_part *c = st;
    uint64_t chunks;

    if (c->bad)
        return 0;
    if (c->pos < c->end) {
        *n = cvs_until(c, c->pos / KANGAROO_CHUNK * KANGAROO_CHUNK);
        return 1;
    }
    chunks = kangaroo_chunks(c->end, p->custom_len);
    *n = chunks > c->first ? chunks - c->first : 0;
    return 1;
}

static int cv_finish(void *st, const mode_params *p, uint64_t outlen, int xof)
{
    cv_part *c = st;
    uint64_t n = 0;
    uint8_t enc[9];

    (void)xof;
    if (!cv_count(st, p, &n) || (c->pos < c->end && c->pos % KANGAROO_CHUNK != 0) ||
        n > KANGAROO_PART_MAX_CVS || outlen != n * c->k.leaves.cv_len)
        return 0;
    if (c->pos == c->end) {
        cv_feed(c, p->custom, p->custom_len);
        cv_feed(c, enc, kangaroo_suffix(enc, p->custom_len));
        tree_leaves_finish(&c->k.leaves, &c->k.final);
    }
    return 1;
}

static void cv_squeeze(void *st, uint8_t *out, size_t len)
{
    cv_part *c = st;

    tree_give_cvs(c->cvs, c->count * c->k.leaves.cv_len, &c->taken, out, len);
}

static void cv_attach_workers(void *st, worker_pool *pool, unsigned threads)
{
    tree_leaves_set_workers(&((cv_part *)st)->k.leaves, pool, threads);
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

/* ---- the final node from S_0's share of M and the CVs ---- */

typedef struct final_part {
    kangaroo k;
    uint64_t head;        /* bytes of M's first chunk still to come */
    uint64_t cv_bytes;    /* of CV_1 .. CV_{n-1} */
    uint64_t cv_got;
    int bad, headed;      /* no length; S_0 is complete */
    size_t tail_len;      /* bytes of C || length_encode(|C|) in S_0 */
    uint8_t tail[KANGAROO_CHUNK];
} final_part;

static void final_start(void *st, const mode_desc *d, const keccak_backend *be,
                        const mode_params *p)
{
    final_part *f = st;
    const kangaroo_params *kp = d->extra;
    uint8_t enc[9];
    size_t enc_len = kangaroo_suffix(enc, p->custom_len);

    kangaroo_init(&f->k, be, kp);
    f->bad = p->message_len == UINT64_MAX;
    f->head = f->bad ? 0 : min_u64(p->message_len, KANGAROO_CHUNK);
    f->cv_bytes = f->bad ? 0
                         : (kangaroo_chunks(p->message_len, p->custom_len) - 1) *
                               kp->cv_len;
    f->cv_got = 0;
    f->headed = 0;
    /* S_0 ends with as much of C || length_encode(|C|) as fits. */
    f->tail_len = 0;
    if (!f->bad && p->message_len < KANGAROO_CHUNK) {
        size_t room = KANGAROO_CHUNK - (size_t)p->message_len;
        size_t from_c = p->custom_len < room ? p->custom_len : room;
        if (from_c > 0)
            memcpy(f->tail, p->custom, from_c);
        room -= from_c;
        if (from_c == p->custom_len) {
            size_t from_enc = enc_len < room ? enc_len : room;
            memcpy(f->tail + from_c, enc, from_enc);
            from_c += from_enc;
        }
        f->tail_len = from_c;
    }
}

static void final_head_done(final_part *f)
{
    if (f->head == 0 && !f->headed) {
        kangaroo_update(&f->k, f->tail, f->tail_len);
        f->headed = 1;
    }
}

static int final_absorb(void *st, const uint8_t *in, size_t len)
{
    final_part *f = st;
    size_t take = (size_t)min_u64(f->head, len);

    if (f->bad || len - take > f->cv_bytes - f->cv_got)
        return 0;
    kangaroo_update(&f->k, in, take);
    f->head -= take;
    final_head_done(f);
    if (len == take)
        return 1;
    kangaroo_begin_tree(&f->k);
    sponge_absorb(&f->k.final, in + take, len - take);
    f->cv_got += len - take;
    return 1;
}

static int final_finish(void *st, const mode_params *p, uint64_t outlen, int xof)
{
    final_part *f = st;

    (void)p, (void)outlen, (void)xof;
    if (f->bad || f->head != 0 || f->cv_got != f->cv_bytes)
        return 0;
    final_head_done(f);
    if (f->cv_bytes == 0)
        return 1;   /* one node: S was absorbed whole */
    kangaroo_end_tree(&f->k, f->cv_bytes / f->k.leaves.cv_len);
    return 1;
}

static void final_squeeze(void *st, uint8_t *out, size_t len)
{
    sponge_squeeze(&((final_part *)st)->k.final, out, len);
}

static const mode_ops final_ops = {
    .state_size = sizeof(final_part),
    .start = final_start,
    .absorb = final_absorb,
    .finish = final_finish,
    .squeeze = final_squeeze,
    .part_shape = part_shape,
};

/* ---- descriptions ---- */

/* rate and rounds of the sponge under each, as kangaroo.c's */
#define CV_MODE(p_, rate_, rounds_, strength_, cv_)                          \
    {.ops = &cv_ops,                                                         \
     .rate = rate_,                                                          \
     .rounds = rounds_,                                                      \
     .domain = 0x0B,                                                         \
     .strength = strength_,                                                  \
     .outlen = cv_,                                                          \
     .takes = MODE_OUTLEN | MODE_CUSTOM | MODE_THREADS | MODE_PARTS | MODE_RANGE,  \
     .extra = &(p_)}
#define FINAL_MODE(p_, rate_, rounds_, strength_, outlen_)                   \
    {.ops = &final_ops,                                                      \
     .rate = rate_,                                                          \
     .rounds = rounds_,                                                      \
     .domain = 0x07,                                                         \
     .strength = strength_,                                                  \
     .outlen = outlen_,                                                      \
     .takes = MODE_OUTLEN | MODE_CUSTOM | MODE_PARTS,                        \
     .extra = &(p_)}

const mode_desc mode_kt128_cv = CV_MODE(kangaroo_kt128, 168, 12, 128, 32);
const mode_desc mode_kt256_cv = CV_MODE(kangaroo_kt256, 136, 12, 256, 64);
const mode_desc mode_m14_cv = CV_MODE(kangaroo_m14, 136, 14, 256, 64);
const mode_desc mode_kt128_final = FINAL_MODE(kangaroo_kt128, 168, 12, 128, 16);
const mode_desc mode_kt256_final = FINAL_MODE(kangaroo_kt256, 136, 12, 256, 64);
const mode_desc mode_m14_final = FINAL_MODE(kangaroo_m14, 136, 14, 256, 32);
