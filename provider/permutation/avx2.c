/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The AVX2 backend: four Keccak-p[1600] states in the four 64-bit slots of
 * 256-bit registers, for the leaves of ParallelHash and the KangarooTwelve
 * family.  Built with -mavx2 for this file only and chosen at run time, so
 * the rest of the binary still runs on any x86-64.  Single-state calls are
 * the bmi2 backend's: a one-lane SIMD permutation is no faster.  Every CPU
 * with AVX2 has BMI2 (the dispatcher checks both).
 */
#include <immintrin.h>
#include <string.h>

#include "keccak_p.h"

#define LANE __m256i
#define XOR(a, b) _mm256_xor_si256((a), (b))
#define ANDN(a, b) _mm256_andnot_si256((a), (b))
#define ROL(a, n) rol64x4((a), (n))
#define XOR_RC(a, rc) _mm256_xor_si256((a), _mm256_set1_epi64x((long long)(rc)))

static inline __m256i rol64x4(__m256i a, int n)
{
    /* Byte-multiple rotations are one shuffle instead of two shifts and an OR. */
    if (n == 8)
        return _mm256_shuffle_epi8(
            a, _mm256_setr_epi8(7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12,
                                13, 14, 7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10,
                                11, 12, 13, 14));
    if (n == 56)
        return _mm256_shuffle_epi8(
            a, _mm256_setr_epi8(1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14,
                                15, 8, 1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12,
                                13, 14, 15, 8));
    return _mm256_or_si256(_mm256_slli_epi64(a, n),
                           _mm256_srli_epi64(a, 64 - n));
}

#include "keccak_round.inc"

#define LOAD_LANE(P, n, i) __m256i P##n = st[i];
#define DECLARE_LANE(P, n, i) __m256i P##n;
#define STORE_LANE(P, n, i) st[i] = P##n;

static void permute_vec(__m256i st[KECCAK_STATE_LANES], unsigned rounds)
{
    KECCAK_LANES(LOAD_LANE, A)
    KECCAK_LANES(DECLARE_LANE, E)
    for (unsigned i = 24 - rounds; i < 24; i += 2) {
        KECCAK_ROUND(A, E, keccak_round_constants[i]);
        KECCAK_ROUND(E, A, keccak_round_constants[i + 1]);
    }
    KECCAK_LANES(STORE_LANE, A)
}

static void load_states(__m256i st[KECCAK_STATE_LANES], const uint64_t *s)
{
    for (unsigned i = 0; i < KECCAK_STATE_LANES; i++)
        st[i] = _mm256_loadu_si256((const __m256i *)(s + KECCAK_PAR * i));
}

static void store_states(uint64_t *s, const __m256i st[KECCAK_STATE_LANES])
{
    for (unsigned i = 0; i < KECCAK_STATE_LANES; i++)
        _mm256_storeu_si256((__m256i *)(s + KECCAK_PAR * i), st[i]);
}

static inline long long load64(const uint8_t *p)
{
    long long v;
    memcpy(&v, p, sizeof v); /* x86 is little-endian, as Keccak lanes are */
    return v;
}

static void avx2_permute_x4(uint64_t s[KECCAK_PAR * KECCAK_STATE_LANES],
                            unsigned rounds)
{
    __m256i st[KECCAK_STATE_LANES];

    load_states(st, s);
    permute_vec(st, rounds);
    store_states(s, st);
}

static void avx2_absorb_x4(uint64_t s[KECCAK_PAR * KECCAK_STATE_LANES],
                           unsigned rounds, unsigned rate,
                           const uint8_t *const in[KECCAK_PAR], size_t nblocks)
{
    __m256i st[KECCAK_STATE_LANES];
    unsigned lanes = rate / 8;

    load_states(st, s);
    for (size_t b = 0; b < nblocks; b++) {
        size_t off = b * rate;
        for (unsigned i = 0; i < lanes; i++) {
            size_t at = off + 8 * i;
            st[i] = _mm256_xor_si256(
                st[i], _mm256_set_epi64x(load64(in[3] + at), load64(in[2] + at),
                                         load64(in[1] + at), load64(in[0] + at)));
        }
        permute_vec(st, rounds);
    }
    store_states(s, st);
}

const keccak_backend keccak_avx2_backend = {
    "avx2", keccak_bmi2_permute, keccak_bmi2_absorb,
    avx2_permute_x4, avx2_absorb_x4,
};
