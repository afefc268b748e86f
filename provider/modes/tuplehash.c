/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TupleHash (SP 800-185): cSHAKE(N = "TupleHash", S) over encode_string of
 * each element of a tuple, then right_encode(L).
 *
 * Each absorb call is one element, as in OpenSSL's own TupleHash; no call
 * at all hashes a tuple of one empty element.  Beyond that, announce(len)
 * says that the next element is len bytes, which then may come in any
 * number of absorb calls: an element can be streamed.
 */
#include "mode.h"
#include "sp800_185.h"

typedef struct tuplehash {
    sponge sp;
    uint64_t remaining;   /* bytes still due of an announced element */
    uint8_t streaming;    /* an announced element is open */
    uint8_t elements;     /* at least one element was absorbed */
} tuplehash;

static void start(void *st, const mode_desc *d, const keccak_backend *be,
                  const mode_params *p)
{
    static const uint8_t name[] = "TupleHash";
    tuplehash *t = st;

    cshake_init(&t->sp, be, d->strength, name, sizeof name - 1, p->custom,
                p->custom_len);
    t->remaining = 0;
    t->streaming = 0;
    t->elements = 0;
}

static int announce(void *st, uint64_t len)
{
    tuplehash *t = st;
    uint8_t enc[SP800_ENCODE_MAX];

    if (t->streaming)
        return 0;   /* the open element is not complete */
    sponge_absorb(&t->sp, enc, sp800_left_encode_bits(enc, len));
    t->elements = 1;
    t->remaining = len;
    t->streaming = len > 0;
    return 1;
}

static int absorb(void *st, const uint8_t *in, size_t len)
{
    tuplehash *t = st;

    if (!t->streaming) {
        sp800_absorb_encoded_string(&t->sp, in, len);
        t->elements = 1;
        return 1;
    }
    if (len > t->remaining)
        return 0;   /* more than the element announced */
    sponge_absorb(&t->sp, in, len);
    t->remaining -= len;
    t->streaming = t->remaining > 0;
    return 1;
}

static int finish(void *st, const mode_params *p, uint64_t outlen, int xof)
{
    tuplehash *t = st;
    uint8_t enc[SP800_ENCODE_MAX];

    (void)p;
    if (t->streaming)
        return 0;   /* the announced element is incomplete */
    if (!t->elements)
        sp800_absorb_encoded_string(&t->sp, NULL, 0);
    sponge_absorb(&t->sp, enc, sp800_right_encode_bits(enc, xof ? 0 : outlen));
    return 1;
}

static void squeeze(void *st, uint8_t *out, size_t len)
{
    sponge_squeeze(&((tuplehash *)st)->sp, out, len);
}

static const mode_ops tuplehash_ops = {
    .state_size = sizeof(tuplehash),
    .start = start,
    .absorb = absorb,
    .finish = finish,
    .squeeze = squeeze,
    .announce = announce,
};

/* Default output as OpenSSL's: 2 * strength bits. */
#define TUPLEHASH(strength_)                                                 \
    {.ops = &tuplehash_ops,                                                  \
     .rate = 200 - (strength_) / 4,                                          \
     .rounds = 24,                                                           \
     .domain = 0x04,                                                         \
     .strength = strength_,                                                  \
     .outlen = (strength_) / 4,                                              \
     .takes = MODE_OUTLEN | MODE_XOF | MODE_CUSTOM | MODE_ELEMENT | MODE_TEXT}

const mode_desc mode_tuplehash128 = TUPLEHASH(128);
const mode_desc mode_tuplehash256 = TUPLEHASH(256);
