/*
 * The portable reference backend: plain C, two rounds per loop iteration so
 * the state never moves between the A and E lane sets.  The four-way calls
 * run the single-state code on each state in turn.
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

#define LANE uint64_t
#define XOR(a, b) ((a) ^ (b))
#define ANDN(a, b) (~(a) & (b))
#define ROL(a, n) rol64((a), (n))
#define XOR_RC(a, rc) ((a) ^ (rc))

static inline uint64_t rol64(uint64_t a, unsigned n)
{
    return (a << n) | (a >> (64 - n));
}

#include "keccak_round.inc"

#define LOAD_LANE(P, n, i) uint64_t P##n = s[i];
#define DECLARE_LANE(P, n, i) uint64_t P##n;
#define STORE_LANE(P, n, i) s[i] = P##n;

void keccak_portable_permute(uint64_t s[KECCAK_STATE_LANES], unsigned rounds)
{
    KECCAK_LANES(LOAD_LANE, A)
    KECCAK_LANES(DECLARE_LANE, E)
    for (unsigned i = 24 - rounds; i < 24; i += 2) {
        KECCAK_ROUND(A, E, keccak_round_constants[i]);
        KECCAK_ROUND(E, A, keccak_round_constants[i + 1]);
    }
    KECCAK_LANES(STORE_LANE, A)
}

void keccak_portable_absorb(uint64_t s[KECCAK_STATE_LANES], unsigned rounds,
                            unsigned rate, const uint8_t *in, size_t nblocks)
{
    unsigned lanes = rate / 8;

    for (; nblocks > 0; nblocks--, in += rate) {
        for (unsigned i = 0; i < lanes; i++)
            s[i] ^= keccak_load64(in + 8 * i);
        keccak_portable_permute(s, rounds);
    }
}

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

static void portable_permute_x4(uint64_t s[KECCAK_PAR * KECCAK_STATE_LANES],
                                unsigned rounds)
{
    uint64_t one[KECCAK_STATE_LANES];

    for (unsigned j = 0; j < KECCAK_PAR; j++) {
        gather(one, s, j);
        keccak_portable_permute(one, rounds);
        scatter(s, one, j);
    }
}

static void portable_absorb_x4(uint64_t s[KECCAK_PAR * KECCAK_STATE_LANES],
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
    portable_permute_x4, portable_absorb_x4,
};
