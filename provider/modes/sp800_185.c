/* SPDX-License-Identifier: Apache-2.0 */
#include "sp800_185.h"

#include <string.h>

#include "fips202.h"

/* value holds a 72-bit big-endian number; drop its leading zero bytes (but
 * keep one) and put the count before (left) or after (right) it. */
static size_t encode(uint8_t out[SP800_ENCODE_MAX], const uint8_t value[9],
                     int right)
{
    size_t skip = 0, n;

    while (skip < 8 && value[skip] == 0)
        skip++;
    n = 9 - skip;
    memcpy(out + (right ? 0 : 1), value + skip, n);
    out[right ? n : 0] = (uint8_t)n;
    return n + 1;
}

/* 8 * nbytes when bits is set, else x itself, as 9 big-endian bytes. */
static void to_be72(uint8_t value[9], uint64_t x, int bits)
{
    value[0] = bits ? (uint8_t)(x >> 61) : 0;
    if (bits)
        x <<= 3;
    for (int i = 8; i >= 1; i--, x >>= 8)
        value[i] = (uint8_t)x;
}

size_t sp800_left_encode(uint8_t out[SP800_ENCODE_MAX], uint64_t x)
{
    uint8_t v[9];
    to_be72(v, x, 0);
    return encode(out, v, 0);
}

size_t sp800_right_encode(uint8_t out[SP800_ENCODE_MAX], uint64_t x)
{
    uint8_t v[9];
    to_be72(v, x, 0);
    return encode(out, v, 1);
}

size_t sp800_left_encode_bits(uint8_t out[SP800_ENCODE_MAX], uint64_t nbytes)
{
    uint8_t v[9];
    to_be72(v, nbytes, 1);
    return encode(out, v, 0);
}

size_t sp800_right_encode_bits(uint8_t out[SP800_ENCODE_MAX], uint64_t nbytes)
{
    uint8_t v[9];
    to_be72(v, nbytes, 1);
    return encode(out, v, 1);
}

void sp800_absorb_encoded_string(sponge *sp, const uint8_t *s, size_t len)
{
    uint8_t enc[SP800_ENCODE_MAX];

    sponge_absorb(sp, enc, sp800_left_encode_bits(enc, len));
    sponge_absorb(sp, s, len);
}

/* bytepad's left_encode(w); its zero fill is sponge_fill_block, because the
 * sponge starts empty and zeros up to the block end change nothing. */
static void absorb_bytepad_start(sponge *sp)
{
    uint8_t enc[SP800_ENCODE_MAX];

    sponge_absorb(sp, enc, sp800_left_encode(enc, sp->rate));
}

void cshake_init(sponge *sp, const keccak_backend *be, unsigned strength,
                 const uint8_t *n, size_t nlen, const uint8_t *s, size_t slen)
{
    if (nlen == 0 && slen == 0) {
        shake_init(sp, be, strength);
        return;
    }
    sponge_init(sp, be, KECCAK_RATE(2 * strength), 24, 0x04);
    absorb_bytepad_start(sp);
    sp800_absorb_encoded_string(sp, n, nlen);
    sp800_absorb_encoded_string(sp, s, slen);
    sponge_fill_block(sp);
}

void kmac_init(sponge *sp, const keccak_backend *be, unsigned strength,
               const uint8_t *key, size_t keylen, const uint8_t *custom,
               size_t clen)
{
    static const uint8_t name[] = {'K', 'M', 'A', 'C'};

    cshake_init(sp, be, strength, name, sizeof name, custom, clen);
    absorb_bytepad_start(sp);
    sp800_absorb_encoded_string(sp, key, keylen);
    sponge_fill_block(sp);
}

void kmac_finish(sponge *sp, uint64_t outlen_bytes, int xof)
{
    uint8_t enc[SP800_ENCODE_MAX];

    sponge_absorb(sp, enc, sp800_right_encode_bits(enc, xof ? 0 : outlen_bytes));
}
