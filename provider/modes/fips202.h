/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FIPS 202 and its relatives are the sponge with fixed parameters:
 * SHA3 and Keccak (pre-FIPS padding), SHAKE and RawSHAKE, and RFC 9861's
 * TurboSHAKE (12 rounds, caller's domain byte).  Every mode takes the
 * backend its sponges run on.
 */
#ifndef KSUM_FIPS202_H
#define KSUM_FIPS202_H

#include "../sponge/sponge.h"

#define KECCAK_RATE(capacity_bits) (200 - (capacity_bits) / 8)

/* SHA3-d: d = 224, 256, 384, 512; capacity 2d. */
static inline void sha3_init(sponge *sp, const keccak_backend *be,
                             unsigned d)
{
    sponge_init(sp, be, KECCAK_RATE(2 * d), 24, 0x06);
}

/* Keccak-d as submitted to the SHA-3 competition (Ethereum's Keccak-256). */
static inline void keccak_init(sponge *sp, const keccak_backend *be,
                               unsigned d)
{
    sponge_init(sp, be, KECCAK_RATE(2 * d), 24, 0x01);
}

/* SHAKE128 and SHAKE256: strength 128 or 256, capacity twice that. */
static inline void shake_init(sponge *sp, const keccak_backend *be,
                              unsigned strength)
{
    sponge_init(sp, be, KECCAK_RATE(2 * strength), 24, 0x1F);
}

/* RawSHAKE128 and RawSHAKE256: SHAKE without its two suffix bits 11. */
static inline void rawshake_init(sponge *sp, const keccak_backend *be,
                                 unsigned strength)
{
    sponge_init(sp, be, KECCAK_RATE(2 * strength), 24, 0x07);
}

/* domain is 0x01..0x7F (RFC 9861 section 2.2); 0x1F is the default. */
static inline void turboshake_init(sponge *sp, const keccak_backend *be,
                                   unsigned strength, uint8_t domain)
{
    sponge_init(sp, be, KECCAK_RATE(2 * strength), 12, domain);
}

#endif
