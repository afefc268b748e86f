/* SPDX-License-Identifier: Apache-2.0 */
/* cSHAKE and KMAC (SP 800-185) as modes: a sponge started with N and S
 * (and, for KMAC, the padded key) and closed, for KMAC, with the output
 * length. */
#include "mode.h"
#include "sp800_185.h"

static void cshake_start(void *st, const mode_desc *d, const keccak_backend *be,
                         const mode_params *p)
{
    cshake_init(st, be, d->strength, p->fname, p->fname_len, p->custom,
                p->custom_len);
}

static void kmac_start(void *st, const mode_desc *d, const keccak_backend *be,
                       const mode_params *p)
{
    kmac_init(st, be, d->strength, p->key, p->key_len, p->custom,
              p->custom_len);
}

static int absorb(void *st, const uint8_t *in, size_t len)
{
    sponge_absorb(st, in, len);
    return 1;
}

static int cshake_finish(void *st, const mode_params *p, uint64_t outlen, int xof)
{
    (void)st, (void)p, (void)outlen, (void)xof;
    return 1;
}

static int kmac_finish_op(void *st, const mode_params *p, uint64_t outlen,
                          int xof)
{
    (void)p;
    kmac_finish(st, outlen, xof);
    return 1;
}

static void squeeze(void *st, uint8_t *out, size_t len)
{
    sponge_squeeze(st, out, len);
}

/* After the prefix (N, S and, for KMAC, the key) the message goes into
 * the sponge as it is. */
static sponge *lane(void *st)
{
    return st;
}

static const mode_ops cshake_ops = {
    .state_size = sizeof(sponge),
    .start = cshake_start,
    .absorb = absorb,
    .finish = cshake_finish,
    .squeeze = squeeze,
    .lane = lane,
};
static const mode_ops kmac_ops = {
    .state_size = sizeof(sponge),
    .start = kmac_start,
    .absorb = absorb,
    .finish = kmac_finish_op,
    .squeeze = squeeze,
    .lane = lane,
};

#define RATE(strength) (200 - (strength) / 4)
#define CSHAKE(strength_)                                                    \
    {.ops = &cshake_ops,                                                     \
     .rate = RATE(strength_),                                                \
     .rounds = 24,                                                           \
     .domain = 0x04,                                                         \
     .strength = strength_,                                                  \
     .outlen = (strength_) / 8,                                              \
     .takes = MODE_OUTLEN | MODE_CUSTOM | MODE_FNAME | MODE_TEXT | MODE_BATCH}
/* ksumprov's own KMAC default is the original ksum's, strength bits; the
 * glue gives OpenSSL's 2 * strength bits where OpenSSL's KMAC is. */
#define KMAC(strength_)                                                      \
    {.ops = &kmac_ops,                                                       \
     .rate = RATE(strength_),                                                \
     .rounds = 24,                                                           \
     .domain = 0x04,                                                         \
     .strength = strength_,                                                  \
     .outlen = (strength_) / 8,                                              \
     .takes = MODE_OUTLEN | MODE_XOF | MODE_CUSTOM | MODE_KEY | MODE_BATCH}

const mode_desc mode_cshake128 = CSHAKE(128);
const mode_desc mode_cshake256 = CSHAKE(256);
const mode_desc mode_kmac128 = KMAC(128);
const mode_desc mode_kmac256 = KMAC(256);
