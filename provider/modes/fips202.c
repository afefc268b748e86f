/* SPDX-License-Identifier: Apache-2.0 */
/* The FIPS 202 functions and TurboSHAKE as modes: a bare sponge. */
#include "fips202.h"

#include "mode.h"

static void start(void *st, const mode_desc *d, const keccak_backend *be,
                  const mode_params *p)
{
    uint8_t domain = d->takes & MODE_DOMAIN ? p->domain : d->domain;

    sponge_init(st, be, d->rate, d->rounds, domain);
}

static int absorb(void *st, const uint8_t *in, size_t len)
{
    sponge_absorb(st, in, len);
    return 1;
}

static int finish(void *st, const mode_params *p, uint64_t outlen, int xof)
{
    (void)st, (void)p, (void)outlen, (void)xof;
    return 1;   /* the padding comes with the first squeeze */
}

static void squeeze(void *st, uint8_t *out, size_t len)
{
    sponge_squeeze(st, out, len);
}

static sponge *lane(void *st)
{
    return st;
}

static const mode_ops sponge_ops = {sizeof(sponge), start, absorb, finish,
                                    squeeze, NULL, NULL, lane, NULL, NULL};

/* Fixed-length functions: capacity twice the digest bits. */
#define FIXED(bits, dom)                                                     \
    {&sponge_ops, KECCAK_RATE(2 * (bits)), 24, dom, 0, (bits) / 8,           \
     MODE_BATCH, NULL, 0}
/* XOFs: capacity twice the strength; default output as the original ksum. */
#define XOF(strength, rounds, dom, outlen, takes)                            \
    {&sponge_ops, KECCAK_RATE(2 * (strength)), rounds, dom, strength, outlen, \
     MODE_OUTLEN | MODE_BATCH | (takes), NULL, 0}

const mode_desc mode_sha3_224 = FIXED(224, DOMAIN_SHA3);
const mode_desc mode_sha3_256 = FIXED(256, DOMAIN_SHA3);
const mode_desc mode_sha3_384 = FIXED(384, DOMAIN_SHA3);
const mode_desc mode_sha3_512 = FIXED(512, DOMAIN_SHA3);
const mode_desc mode_keccak_224 = FIXED(224, DOMAIN_KECCAK);
const mode_desc mode_keccak_256 = FIXED(256, DOMAIN_KECCAK);
const mode_desc mode_keccak_384 = FIXED(384, DOMAIN_KECCAK);
const mode_desc mode_keccak_512 = FIXED(512, DOMAIN_KECCAK);
const mode_desc mode_shake128 = XOF(128, 24, DOMAIN_SHAKE, 16, 0);
const mode_desc mode_shake256 = XOF(256, 24, DOMAIN_SHAKE, 32, 0);
const mode_desc mode_rawshake128 = XOF(128, 24, DOMAIN_RAWSHAKE, 16, 0);
const mode_desc mode_rawshake256 = XOF(256, 24, DOMAIN_RAWSHAKE, 32, 0);
const mode_desc mode_turboshake128 =
    XOF(128, 12, DOMAIN_TURBOSHAKE, 32, MODE_DOMAIN);
const mode_desc mode_turboshake256 =
    XOF(256, 12, DOMAIN_TURBOSHAKE, 64, MODE_DOMAIN);
