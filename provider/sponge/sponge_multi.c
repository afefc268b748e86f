/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Several independent sponges absorbing at once: the whole blocks of as
 * many messages as the backend has lanes go through its absorb_multi side
 * by side (on AVX2, one 4-way permutation a block for four of them).  The partly
 * filled blocks before and after stay on the single-state path, so each
 * sponge ends exactly as sponge_absorb of its bytes would leave it.
 */
#include "sponge.h"

/* The whole blocks one lane has left to absorb. */
typedef struct lane {
    const uint8_t *in;
    size_t blocks;
} lane;

/* The input of a block whose bytes are already in the state. */
static const uint8_t zero_block[8 * KECCAK_STATE_LANES];

/* Completes sp's partly filled block from the input as sponge_absorb does,
 * but leaves the permutation to the caller, so that several sponges can
 * have it together: returns 1 when it is due. */
static int fill_partial(sponge *sp, const uint8_t **in, size_t *len)
{
    size_t take = sp->rate - sp->pos;

    if (sp->pos == 0)
        return 0;
    if (take > *len)
        take = *len;
    keccak_xor_bytes(sp->s, 1, sp->pos, *in, take);
    sp->pos = (uint16_t)(sp->pos + take);
    *in += take;
    *len -= take;
    if (sp->pos < sp->rate)
        return 0;
    sp->pos = 0;
    return 1;
}

/* One backend call on every lane with blocks left, for as many blocks as
 * the shortest of them has; returns 0 when no lane had any. */
static int absorb_step(sponge *const sp[], lane ln[], unsigned n)
{
    uint64_t *s[KECCAK_LANES_MAX] = {NULL};
    unsigned rate[KECCAK_LANES_MAX] = {0};
    const uint8_t *in[KECCAK_LANES_MAX] = {NULL};
    size_t k = SIZE_MAX;

    for (unsigned j = 0; j < n; j++)
        if (ln[j].blocks > 0 && ln[j].blocks < k)
            k = ln[j].blocks;
    if (k == SIZE_MAX)
        return 0;
    for (unsigned j = 0; j < n; j++) {
        s[j] = sp[j]->s;
        rate[j] = sp[j]->rate;
        if (ln[j].blocks == 0)
            continue;
        in[j] = ln[j].in;
        ln[j].in += k * rate[j];
        ln[j].blocks -= k;
    }
    sp[0]->be->absorb_multi(s, sp[0]->rounds, rate, in, k);
    return 1;
}

/* Lanes run out one by one; the backend decides whether fewer active lanes
 * still share its kernel, a narrower one, or go one at a time (avx2.c,
 * wide.inc). */
static void absorb_group(sponge *const sp[], const uint8_t *const in[],
                         const size_t len[], unsigned n)
{
    lane ln[KECCAK_LANES_MAX], due[KECCAK_LANES_MAX] = {{NULL, 0}};
    size_t tail[KECCAK_LANES_MAX];
    int any_due = 0;

    for (unsigned j = 0; j < n; j++) {
        const uint8_t *p = in[j];
        size_t l = len[j];
        if (l > 0 && fill_partial(sp[j], &p, &l)) {
            due[j] = (lane){zero_block, 1};
            any_due = 1;
        }
        ln[j] = (lane){p, l / sp[j]->rate};
        tail[j] = l % sp[j]->rate;
    }
    if (any_due)
        absorb_step(sp, due, n); /* the permutations of the filled blocks */
    while (absorb_step(sp, ln, n))
        ;
    for (unsigned j = 0; j < n; j++) {
        if (tail[j] == 0)
            continue; /* pos stays: 0, or a block the input did not fill */
        keccak_xor_bytes(sp[j]->s, 1, 0, ln[j].in, tail[j]);
        sp[j]->pos = (uint16_t)tail[j];
    }
}

static int same_rounds(sponge *const sp[], unsigned n)
{
    for (unsigned j = 1; j < n; j++)
        if (sp[j]->rounds != sp[0]->rounds)
            return 0;
    return 1;
}

void sponge_absorb_multi(sponge *const sp[], const uint8_t *const in[],
                         const size_t len[], unsigned n)
{
    for (unsigned i = 0, m; i < n; i += m) {
        unsigned lanes = sp[i]->be->lanes;
        m = n - i < lanes ? n - i : lanes;
        if (same_rounds(sp + i, m)) {
            absorb_group(sp + i, in + i, len + i, m);
            continue;
        }
        for (unsigned j = i; j < i + m; j++) /* correct, if not faster */
            sponge_absorb(sp[j], in[j], len[j]);
    }
}
