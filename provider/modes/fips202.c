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

static const mode_ops sponge_ops = {
    .state_size = sizeof(sponge),
    .start = start,
    .absorb = absorb,
    .finish = finish,
    .squeeze = squeeze,
    .lane = lane,
};

/* Fixed-length functions: capacity twice the digest bits. */
#define FIXED(bits_, dom_)                                                   \
    {.ops = &sponge_ops,                                                     \
     .rate = KECCAK_RATE(2 * (bits_)),                                       \
     .rounds = 24,                                                           \
     .domain = dom_,                                                         \
     .outlen = (bits_) / 8,                                                  \
     .takes = MODE_BATCH}
/* XOFs: capacity twice the strength; default output as the original ksum. */
#define XOF(strength_, rounds_, dom_, outlen_, takes_)                       \
    {.ops = &sponge_ops,                                                     \
     .rate = KECCAK_RATE(2 * (strength_)),                                   \
     .rounds = rounds_,                                                      \
     .domain = dom_,                                                         \
     .strength = strength_,                                                  \
     .outlen = outlen_,                                                      \
     .takes = MODE_OUTLEN | MODE_BATCH | (takes_)}

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
