/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sponge over Keccak-p[1600, n]: absorb, pad with a domain byte, squeeze.
 * Written once over the backend interface; every mode builds on it.
 *
 * Return convention of this layer: nothing fails, every call returns void.
 */
#ifndef KSUM_SPONGE_H
#define KSUM_SPONGE_H

#include <stddef.h>
#include <stdint.h>

#include "../permutation/keccak_p.h"

typedef struct sponge {
    uint64_t s[KECCAK_STATE_LANES];
    const keccak_backend *be;
    uint16_t rate;      /* bytes per block: 200 - capacity / 8 */
    uint16_t pos;       /* bytes of the current block absorbed or squeezed */
    uint8_t rounds;     /* 24 for Keccak-f, 12 or 14 for the reduced ones */
    uint8_t domain;     /* suffix bits and first padding bit, e.g. 0x06 */
    uint8_t squeezing;  /* set by the padding; no absorbing after that */
} sponge;

/* Starts an empty sponge on backend be (keccak_backend_active() unless a
 * caller, such as a test, wants a particular one). */
void sponge_init(sponge *sp, const keccak_backend *be, unsigned rate,
                 unsigned rounds, uint8_t domain);

void sponge_absorb(sponge *sp, const void *in, size_t len);
/* Permutes if the current block is partly filled: bytepad's zero fill. */
void sponge_fill_block(sponge *sp);
/* Pads on the first call; any number of calls squeeze a continuous stream. */
void sponge_squeeze(sponge *sp, void *out, size_t len);

/* Absorbs in[j] (len[j] bytes; in[j] may be NULL when len[j] is 0) into
 * sp[j] for every j < n, leaving each sponge exactly as
 * sponge_absorb(sp[j], in[j], len[j]) would, but with the whole blocks of
 * a group of sponges absorbed side by side (sponge_multi.c): as many as
 * the backend of the group's first sponge has lanes, which runs the group
 * (every backend gives the same result).  The sponges may differ in rate
 * and domain byte; they must be distinct and not squeezing, and should
 * have equal rounds (groups that do not are absorbed one sponge after
 * another). */
void sponge_absorb_multi(sponge *const sp[], const uint8_t *const in[],
                         const size_t len[], unsigned n);

/* Hashes n messages of len bytes each (any n), one sponge per message with
 * the same parameters, into outlen bytes each, be->lanes of them side by
 * side: the leaves of tree modes. */
void sponge_hash_many(const keccak_backend *be, unsigned n, unsigned rate,
                      unsigned rounds, uint8_t domain,
                      const uint8_t *const in[], size_t len,
                      uint8_t *const out[], size_t outlen);

/* A sponge's state bytes, little-endian lanes as Keccak defines them. */
void keccak_xor_bytes(uint64_t *lanes, size_t stride, size_t offset,
                      const uint8_t *in, size_t len);
void keccak_extract_bytes(const uint64_t *lanes, size_t stride, size_t offset,
                          uint8_t *out, size_t len);

#endif
