/* SPDX-License-Identifier: Apache-2.0 */
#include "sponge.h"

#include <string.h>

/*
 * Byte access to lanes kept `stride` words apart (1 for a single state, the
 * number of states for one state of an interleaved group): bytes up to a lane
 * boundary one at a time, then whole lanes.
 */
void keccak_xor_bytes(uint64_t *lanes, size_t stride, size_t offset,
                      const uint8_t *in, size_t len)
{
    while (len > 0 && offset % 8 != 0) {
        lanes[(offset / 8) * stride] ^= (uint64_t)*in++ << (8 * (offset % 8));
        offset++, len--;
    }
    for (; len >= 8; len -= 8, offset += 8, in += 8)
        lanes[(offset / 8) * stride] ^= keccak_load64(in);
    for (; len > 0; len--, offset++)
        lanes[(offset / 8) * stride] ^= (uint64_t)*in++ << (8 * (offset % 8));
}

void keccak_extract_bytes(const uint64_t *lanes, size_t stride, size_t offset,
                          uint8_t *out, size_t len)
{
    while (len > 0 && offset % 8 != 0) {
        *out++ = (uint8_t)(lanes[(offset / 8) * stride] >> (8 * (offset % 8)));
        offset++, len--;
    }
    for (; len >= 8; len -= 8, offset += 8, out += 8) {
        uint64_t v = lanes[(offset / 8) * stride];
        for (int b = 0; b < 8; b++)
            out[b] = (uint8_t)(v >> (8 * b));
    }
    for (; len > 0; len--, offset++)
        *out++ = (uint8_t)(lanes[(offset / 8) * stride] >> (8 * (offset % 8)));
}

void sponge_init(sponge *sp, const keccak_backend *be, unsigned rate,
                 unsigned rounds, uint8_t domain)
{
    memset(sp->s, 0, sizeof sp->s);
    sp->be = be;
    sp->rate = (uint16_t)rate;
    sp->rounds = (uint8_t)rounds;
    sp->domain = domain;
    sp->pos = 0;
    sp->squeezing = 0;
}

void sponge_absorb(sponge *sp, const void *data, size_t len)
{
    const uint8_t *in = data;

    if (len == 0)
        return; /* data may be NULL then */
    if (sp->pos > 0) {
        size_t take = sp->rate - sp->pos;
        if (take > len)
            take = len;
        keccak_xor_bytes(sp->s, 1, sp->pos, in, take);
        sp->pos = (uint16_t)(sp->pos + take);
        in += take;
        len -= take;
        if (sp->pos < sp->rate)
            return;
        sp->be->permute(sp->s, sp->rounds);
        sp->pos = 0;
    }
    if (len >= sp->rate) {
        size_t blocks = len / sp->rate;
        sp->be->absorb(sp->s, sp->rounds, sp->rate, in, blocks);
        in += blocks * sp->rate;
        len -= blocks * sp->rate;
    }
    keccak_xor_bytes(sp->s, 1, 0, in, len);
    sp->pos = (uint16_t)len;
}

void sponge_fill_block(sponge *sp)
{
    if (sp->pos > 0) {
        sp->be->permute(sp->s, sp->rounds);
        sp->pos = 0;
    }
}

static void pad(uint64_t *lanes, size_t stride, unsigned rate, size_t pos,
                uint8_t domain)
{
    uint8_t last = 0x80;

    keccak_xor_bytes(lanes, stride, pos, &domain, 1);
    keccak_xor_bytes(lanes, stride, rate - 1, &last, 1);
}

void sponge_squeeze(sponge *sp, void *data, size_t len)
{
    uint8_t *out = data;

    if (!sp->squeezing) {
        pad(sp->s, 1, sp->rate, sp->pos, sp->domain);
        sp->be->permute(sp->s, sp->rounds);
        sp->pos = 0;
        sp->squeezing = 1;
    }
    while (len > 0) {
        size_t take;
        if (sp->pos == sp->rate) {
            sp->be->permute(sp->s, sp->rounds);
            sp->pos = 0;
        }
        take = sp->rate - sp->pos;
        if (take > len)
            take = len;
        keccak_extract_bytes(sp->s, 1, sp->pos, out, take);
        sp->pos = (uint16_t)(sp->pos + take);
        out += take;
        len -= take;
    }
}

/* The input of a permutation whose block is already in the state. */
static const uint8_t zero_block[8 * KECCAK_STATE_LANES];

/* Up to be->lanes messages: whole blocks side by side, then the tails and
 * the padding one state at a time, and every permutation of the squeeze
 * side by side again (a zero block absorbed is a permutation). */
static void hash_group(const keccak_backend *be, unsigned n, unsigned rate,
                       unsigned rounds, uint8_t domain,
                       const uint8_t *const in[], size_t len,
                       uint8_t *const out[], size_t outlen)
{
    uint64_t st[KECCAK_LANES_MAX][KECCAK_STATE_LANES] = {{0}};
    uint64_t *s[KECCAK_LANES_MAX];
    unsigned rates[KECCAK_LANES_MAX];
    const uint8_t *lane_in[KECCAK_LANES_MAX] = {NULL};
    size_t blocks = len / rate, tail = len % rate, done = 0;

    for (unsigned j = 0; j < KECCAK_LANES_MAX; j++) {
        s[j] = st[j];
        rates[j] = rate;
    }
    for (unsigned j = 0; j < n; j++)
        lane_in[j] = in[j];
    if (blocks > 0)
        be->absorb_multi(s, rounds, rates, lane_in, blocks);
    for (unsigned j = 0; j < n; j++) {
        keccak_xor_bytes(st[j], 1, 0, in[j] + blocks * rate, tail);
        pad(st[j], 1, rate, tail, domain);
        lane_in[j] = zero_block;
    }
    for (;;) {
        size_t take = outlen - done < rate ? outlen - done : rate;
        be->absorb_multi(s, rounds, rates, lane_in, 1);
        for (unsigned j = 0; j < n; j++)
            keccak_extract_bytes(st[j], 1, 0, out[j] + done, take);
        done += take;
        if (done == outlen)
            break;
    }
}

void sponge_hash_many(const keccak_backend *be, unsigned n, unsigned rate,
                      unsigned rounds, uint8_t domain,
                      const uint8_t *const in[], size_t len,
                      uint8_t *const out[], size_t outlen)
{
    for (unsigned i = 0; i < n; i += be->lanes) {
        unsigned m = n - i < be->lanes ? n - i : be->lanes;
        hash_group(be, m, rate, rounds, domain, in + i, len, out + i, outlen);
    }
}
