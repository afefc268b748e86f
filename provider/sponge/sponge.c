/* SPDX-License-Identifier: Apache-2.0 */
#include "sponge.h"

#include <string.h>

/*
 * Byte access to lanes kept `stride` words apart (1 for a single state,
 * KECCAK_PAR for one state of an interleaved group): bytes up to a lane
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

void sponge_hash_x4(const keccak_backend *be, unsigned rate, unsigned rounds,
                    uint8_t domain, const uint8_t *const in[KECCAK_PAR],
                    size_t len, uint8_t *const out[KECCAK_PAR], size_t outlen)
{
    uint64_t s[KECCAK_PAR * KECCAK_STATE_LANES] = {0};
    size_t blocks = len / rate, tail = len % rate, done = 0;

    be->absorb_x4(s, rounds, rate, in, blocks);
    for (unsigned j = 0; j < KECCAK_PAR; j++) {
        keccak_xor_bytes(s + j, KECCAK_PAR, 0, in[j] + blocks * rate, tail);
        pad(s + j, KECCAK_PAR, rate, tail, domain);
    }
    for (;;) {
        size_t take = outlen - done < rate ? outlen - done : rate;
        be->permute_x4(s, rounds);
        for (unsigned j = 0; j < KECCAK_PAR; j++)
            keccak_extract_bytes(s + j, KECCAK_PAR, 0, out[j] + done, take);
        done += take;
        if (done == outlen)
            break;
    }
}
