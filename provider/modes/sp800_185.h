/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NIST SP 800-185: the encodings and the cSHAKE and KMAC sponges that the
 * modes of that standard (cshake.c, parallelhash.c, tuplehash.c) build on.
 * Strength is 128 or 256; lengths in the encodings are in bits where the
 * standard says so.
 */
#ifndef KSUM_SP800_185_H
#define KSUM_SP800_185_H

#include "../sponge/sponge.h"

#define SP800_ENCODE_MAX 10 /* a 72-bit value and its length byte */

/* left_encode and right_encode of x, and of 8 * nbytes (which may need 72
 * bits); each returns the number of bytes written. */
size_t sp800_left_encode(uint8_t out[SP800_ENCODE_MAX], uint64_t x);
size_t sp800_right_encode(uint8_t out[SP800_ENCODE_MAX], uint64_t x);
size_t sp800_left_encode_bits(uint8_t out[SP800_ENCODE_MAX], uint64_t nbytes);
size_t sp800_right_encode_bits(uint8_t out[SP800_ENCODE_MAX], uint64_t nbytes);

/* cSHAKE with function name n and customization s; SHAKE when both are
 * empty, as the standard requires. */
void cshake_init(sponge *sp, const keccak_backend *be, unsigned strength,
                 const uint8_t *n, size_t nlen, const uint8_t *s, size_t slen);

/* KMAC: init absorbs the padded key; finish absorbs right_encode(L) (L = 0
 * for KMACXOF), after which the MAC is squeezed from sp. */
void kmac_init(sponge *sp, const keccak_backend *be, unsigned strength,
               const uint8_t *key, size_t keylen, const uint8_t *custom,
               size_t clen);
void kmac_finish(sponge *sp, uint64_t outlen_bytes, int xof);

/* encode_string(s): left_encode of its length in bits, then s. */
void sp800_absorb_encoded_string(sponge *sp, const uint8_t *s, size_t len);

#endif
