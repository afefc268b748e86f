/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The portable reference backend: plain C, two rounds per loop iteration so
 * the state never moves between the A and E lane sets (single.inc).  The
 * four-way calls run the single-state code on each state in turn.
 */
#include "keccak_p.h"

const uint64_t keccak_round_constants[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL,
    0x8000000080008000ULL, 0x000000000000808bULL, 0x0000000080000001ULL,
    0x8000000080008081ULL, 0x8000000000008009ULL, 0x000000000000008aULL,
    0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL,
    0x8000000000008003ULL, 0x8000000000008002ULL, 0x8000000000000080ULL,
    0x000000000000800aULL, 0x800000008000000aULL, 0x8000000080008081ULL,
    0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

#define SINGLE(name) keccak_portable_##name
#include "single.inc"

static void gather(uint64_t one[KECCAK_STATE_LANES], const uint64_t *s,
                   unsigned j)
{
    for (unsigned i = 0; i < KECCAK_STATE_LANES; i++)
        one[i] = s[KECCAK_PAR * i + j];
}

static void scatter(uint64_t *s, const uint64_t one[KECCAK_STATE_LANES],
                    unsigned j)
{
    for (unsigned i = 0; i < KECCAK_STATE_LANES; i++)
        s[KECCAK_PAR * i + j] = one[i];
}

void keccak_portable_permute_x4(uint64_t s[KECCAK_PAR * KECCAK_STATE_LANES],
                                unsigned rounds)
{
    uint64_t one[KECCAK_STATE_LANES];

    for (unsigned j = 0; j < KECCAK_PAR; j++) {
        gather(one, s, j);
        keccak_portable_permute(one, rounds);
        scatter(s, one, j);
    }
}

void keccak_portable_absorb_x4(uint64_t s[KECCAK_PAR * KECCAK_STATE_LANES],
                               unsigned rounds, unsigned rate,
                               const uint8_t *const in[KECCAK_PAR],
                               size_t nblocks)
{
    uint64_t one[KECCAK_STATE_LANES];

    for (unsigned j = 0; j < KECCAK_PAR; j++) {
        gather(one, s, j);
        keccak_portable_absorb(one, rounds, rate, in[j], nblocks);
        scatter(s, one, j);
    }
}

const keccak_backend keccak_portable_backend = {
    "portable", keccak_portable_permute, keccak_portable_absorb,
    keccak_portable_permute_x4, keccak_portable_absorb_x4,
    keccak_portable_absorb_multi,
};
