/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FIPS 202 and its relatives are the sponge with fixed parameters: SHA3 and
 * Keccak (pre-FIPS padding), SHAKE and RawSHAKE, and RFC 9861's TurboSHAKE
 * (12 rounds, caller's domain byte).  Their descriptions are in fips202.c.
 */
#ifndef KSUM_FIPS202_H
#define KSUM_FIPS202_H

#include "../sponge/sponge.h"

#define KECCAK_RATE(capacity_bits) (200 - (capacity_bits) / 8)

#define DOMAIN_SHA3 0x06
#define DOMAIN_KECCAK 0x01      /* as submitted to the SHA-3 competition */
#define DOMAIN_SHAKE 0x1F
#define DOMAIN_RAWSHAKE 0x07    /* SHAKE without its two suffix bits 11 */
#define DOMAIN_TURBOSHAKE 0x1F  /* TurboSHAKE's default D; any of 0x01..0x7F */

/* SHAKE128 or SHAKE256 (strength 128 or 256, capacity twice that). */
static inline void shake_init(sponge *sp, const keccak_backend *be,
                              unsigned strength)
{
    sponge_init(sp, be, KECCAK_RATE(2 * strength), 24, DOMAIN_SHAKE);
}

#endif
