/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The AVX2 backend: four Keccak-p[1600] states in the four 64-bit slots of
 * 256-bit registers, for the leaves of ParallelHash and the KangarooTwelve
 * family, and the messages absorbed together.  Built with -mavx2 for this file only and chosen at run time, so
 * the rest of the binary still runs on any x86-64.  Single-state calls are
 * the bmi2 backend's: a one-lane SIMD permutation is no faster.  Every CPU
 * with AVX2 has BMI2 (the dispatcher checks both).
 */
#include <immintrin.h>
#include <string.h>

#include "keccak_p.h"

#define LANES 4

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

static inline long long load64(const uint8_t *p)
{
    long long v;
    memcpy(&v, p, sizeof v); /* x86 is little-endian, as Keccak lanes are */
    return v;
}

/*
 * Four separate states, as the sponges of four messages hold them, in and
 * out of the registers once per call: a 4x4 transpose of 64-bit words turns
 * four rows of four words (one row per state) into four vectors of one word
 * from each state, and is its own inverse.
 */
static inline void transpose4(__m256i v[4])
{
    __m256i t0 = _mm256_unpacklo_epi64(v[0], v[1]); /* a0 b0 a2 b2 */
    __m256i t1 = _mm256_unpackhi_epi64(v[0], v[1]); /* a1 b1 a3 b3 */
    __m256i t2 = _mm256_unpacklo_epi64(v[2], v[3]); /* c0 d0 c2 d2 */
    __m256i t3 = _mm256_unpackhi_epi64(v[2], v[3]); /* c1 d1 c3 d3 */

    v[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
    v[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
    v[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
    v[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
}

static void load_rows(__m256i st[KECCAK_STATE_LANES], uint64_t *const s[LANES])
{
    for (unsigned i = 0; i + 4 <= KECCAK_STATE_LANES; i += 4) {
        for (unsigned j = 0; j < LANES; j++)
            st[i + j] = _mm256_loadu_si256((const __m256i *)(s[j] + i));
        transpose4(st + i);
    }
    st[24] = _mm256_set_epi64x((long long)s[3][24], (long long)s[2][24],
                               (long long)s[1][24], (long long)s[0][24]);
}

static void store_rows(uint64_t *const s[LANES], __m256i st[KECCAK_STATE_LANES])
{
    uint64_t last[LANES];

    for (unsigned i = 0; i + 4 <= KECCAK_STATE_LANES; i += 4) {
        transpose4(st + i);
        for (unsigned j = 0; j < LANES; j++)
            _mm256_storeu_si256((__m256i *)(s[j] + i), st[i + j]);
    }
    _mm256_storeu_si256((__m256i *)last, st[24]);
    for (unsigned j = 0; j < LANES; j++)
        s[j][24] = last[j];
}

/* The inputs of a multi-state absorb.  Idle lanes read zeros from
 * zero_block and never advance, so every lane can be loaded alike. */
typedef struct multi_in {
    const uint8_t *p[LANES];
    unsigned rate[LANES];  /* bytes to advance a block; 0 when idle */
    unsigned words[LANES]; /* input words a block; all 25 when idle */
    unsigned min_words, max_words; /* over the active lanes */
} multi_in;

static const uint8_t zero_block[8 * KECCAK_STATE_LANES];

static inline long long word_or_zero(const multi_in *in, unsigned j, unsigned i)
{
    return i < in->words[j] ? load64(in->p[j] + 8 * i) : 0;
}

/* Words all active lanes have are loaded four at a time from each input and
 * transposed; the words only some have (mixed rates), one by one. */
static void xor_block(__m256i st[KECCAK_STATE_LANES], const multi_in *in)
{
    unsigned i = 0;

    for (; i + 4 <= in->min_words; i += 4) {
        __m256i v[4];
        for (unsigned j = 0; j < LANES; j++)
            v[j] = _mm256_loadu_si256((const __m256i *)(in->p[j] + 8 * i));
        transpose4(v);
        for (unsigned j = 0; j < 4; j++)
            st[i + j] = _mm256_xor_si256(st[i + j], v[j]);
    }
    for (; i < in->max_words; i++)
        st[i] = _mm256_xor_si256(
            st[i], _mm256_set_epi64x(word_or_zero(in, 3, i), word_or_zero(in, 2, i),
                                     word_or_zero(in, 1, i), word_or_zero(in, 0, i)));
}

/* Sets up in and returns the number of active lanes; idle lanes get the
 * state scratch, whose result is thrown away. */
static unsigned multi_setup(multi_in *in, uint64_t *s[LANES],
                            uint64_t *const state[LANES], uint64_t *scratch,
                            const unsigned rate[LANES],
                            const uint8_t *const data[LANES])
{
    unsigned active = 0;

    in->min_words = KECCAK_STATE_LANES;
    in->max_words = 0;
    for (unsigned j = 0; j < LANES; j++) {
        int idle = data[j] == NULL;
        unsigned words = idle ? KECCAK_STATE_LANES : rate[j] / 8;
        s[j] = idle ? scratch : state[j];
        in->p[j] = idle ? zero_block : data[j];
        in->rate[j] = idle ? 0 : rate[j];
        in->words[j] = words;
        if (!idle) {
            active++;
            in->min_words = words < in->min_words ? words : in->min_words;
            in->max_words = words > in->max_words ? words : in->max_words;
        }
    }
    return active;
}

/*
 * A 4-way step costs about what 1.6 single-state permutations do, however
 * many of its lanes are active (bench/bench_core, docs/benchmarks.md):
 * two or more active lanes share it, and a lone lane goes on alone.
 */
static void avx2_absorb_multi(uint64_t *const state[LANES], unsigned rounds,
                              const unsigned rate[LANES],
                              const uint8_t *const data[LANES], size_t nblocks)
{
    uint64_t scratch[KECCAK_STATE_LANES] = {0}, *s[LANES];
    __m256i st[KECCAK_STATE_LANES];
    multi_in in;
    unsigned active = multi_setup(&in, s, state, scratch, rate, data);

    if (active < 2) {
        keccak_serial_absorb_multi(keccak_bmi2_absorb, LANES, state, rounds,
                                   rate, data, nblocks);
        return;
    }
    load_rows(st, s);
    for (; nblocks > 0; nblocks--) {
        xor_block(st, &in);
        permute_vec(st, rounds);
        for (unsigned j = 0; j < LANES; j++)
            in.p[j] += in.rate[j];
    }
    store_rows(s, st);
}

const keccak_backend keccak_avx2_backend = {
    "avx2", LANES, keccak_bmi2_permute, keccak_bmi2_absorb, avx2_absorb_multi,
};
