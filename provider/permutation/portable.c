/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The portable reference backend: plain C, two rounds per loop iteration so
 * the state never moves between the A and E lane sets (single.inc).  One
 * lane; the serial fallback (several lanes, one after another) for the
 * tests of the wider callers.
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

void keccak_serial_absorb_multi(void (*absorb)(uint64_t *, unsigned, unsigned,
                                               const uint8_t *, size_t),
                                unsigned n, uint64_t *const s[], unsigned rounds,
                                const unsigned rate[], const uint8_t *const in[],
                                size_t nblocks)
{
    for (unsigned j = 0; j < n; j++)
        if (in[j] != NULL)
            absorb(s[j], rounds, rate[j], in[j], nblocks);
}

const keccak_backend keccak_portable_backend = {
    "portable", 1, keccak_portable_permute, keccak_portable_absorb,
    keccak_portable_absorb_multi,
};

#define SERIAL(n)                                                            \
    static void serial##n##_absorb_multi(uint64_t *const s[], unsigned rounds, \
                                         const unsigned rate[],              \
                                         const uint8_t *const in[],          \
                                         size_t nblocks)                     \
    {                                                                        \
        keccak_serial_absorb_multi(keccak_portable_absorb, n, s, rounds,     \
                                   rate, in, nblocks);                       \
    }
SERIAL(2)
SERIAL(4)
SERIAL(8)

const keccak_backend keccak_serial_backends[3] = {
    {"serial2", 2, keccak_portable_permute, keccak_portable_absorb,
     serial2_absorb_multi},
    {"serial4", 4, keccak_portable_permute, keccak_portable_absorb,
     serial4_absorb_multi},
    {"serial8", 8, keccak_portable_permute, keccak_portable_absorb,
     serial8_absorb_multi},
};
