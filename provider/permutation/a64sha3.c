/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Arm64 SHA3-extension backend (FEAT_SHA3: EOR3, RAX1, XAR, BCAX), built
 * with -march=armv8.2-a+sha3 for this file only and chosen at run time from
 * HWCAP_SHA3, so nothing else in the binary uses those instructions.  A
 * round is 66 vector instructions and a load.  The lanes are 128-bit
 * registers of two 64-bit halves: one state uses the low half, two states
 * (absorb_multi, lanes = 2) one half each, for the same instructions.
 */
#include <arm_neon.h>

#include "keccak_p.h"

/* theta's parities (EOR3) and D (RAX1), rho and pi by XAR (rotate right by
 * 64 - rho) writing lane (x, y) to (y, 2x + 3y), chi by BCAX, iota by EOR of
 * the constant in both halves.  Reads A0..A24, writes E0..E24. */
#define ROUND(A, E, rc) \
    do { \
        uint64x2_t c0 = veor3q_u64(veor3q_u64(A##0, A##5, A##10), A##15, A##20); \
        uint64x2_t c1 = veor3q_u64(veor3q_u64(A##1, A##6, A##11), A##16, A##21); \
        uint64x2_t c2 = veor3q_u64(veor3q_u64(A##2, A##7, A##12), A##17, A##22); \
        uint64x2_t c3 = veor3q_u64(veor3q_u64(A##3, A##8, A##13), A##18, A##23); \
        uint64x2_t c4 = veor3q_u64(veor3q_u64(A##4, A##9, A##14), A##19, A##24); \
        uint64x2_t d0 = vrax1q_u64(c4, c1); \
        uint64x2_t d1 = vrax1q_u64(c0, c2); \
        uint64x2_t d2 = vrax1q_u64(c1, c3); \
        uint64x2_t d3 = vrax1q_u64(c2, c4); \
        uint64x2_t d4 = vrax1q_u64(c3, c0); \
        uint64x2_t b0 = veorq_u64(A##0, d0); \
        uint64x2_t b1 = vxarq_u64(A##6, d1, 20); \
        uint64x2_t b2 = vxarq_u64(A##12, d2, 21); \
        uint64x2_t b3 = vxarq_u64(A##18, d3, 43); \
        uint64x2_t b4 = vxarq_u64(A##24, d4, 50); \
        uint64x2_t b5 = vxarq_u64(A##3, d3, 36); \
        uint64x2_t b6 = vxarq_u64(A##9, d4, 44); \
        uint64x2_t b7 = vxarq_u64(A##10, d0, 61); \
        uint64x2_t b8 = vxarq_u64(A##16, d1, 19); \
        uint64x2_t b9 = vxarq_u64(A##22, d2, 3); \
        uint64x2_t b10 = vxarq_u64(A##1, d1, 63); \
        uint64x2_t b11 = vxarq_u64(A##7, d2, 58); \
        uint64x2_t b12 = vxarq_u64(A##13, d3, 39); \
        uint64x2_t b13 = vxarq_u64(A##19, d4, 56); \
        uint64x2_t b14 = vxarq_u64(A##20, d0, 46); \
        uint64x2_t b15 = vxarq_u64(A##4, d4, 37); \
        uint64x2_t b16 = vxarq_u64(A##5, d0, 28); \
        uint64x2_t b17 = vxarq_u64(A##11, d1, 54); \
        uint64x2_t b18 = vxarq_u64(A##17, d2, 49); \
        uint64x2_t b19 = vxarq_u64(A##23, d3, 8); \
        uint64x2_t b20 = vxarq_u64(A##2, d2, 2); \
        uint64x2_t b21 = vxarq_u64(A##8, d3, 9); \
        uint64x2_t b22 = vxarq_u64(A##14, d4, 25); \
        uint64x2_t b23 = vxarq_u64(A##15, d0, 23); \
        uint64x2_t b24 = vxarq_u64(A##21, d1, 62); \
        E##0 = vbcaxq_u64(b0, b2, b1); \
        E##1 = vbcaxq_u64(b1, b3, b2); \
        E##2 = vbcaxq_u64(b2, b4, b3); \
        E##3 = vbcaxq_u64(b3, b0, b4); \
        E##4 = vbcaxq_u64(b4, b1, b0); \
        E##5 = vbcaxq_u64(b5, b7, b6); \
        E##6 = vbcaxq_u64(b6, b8, b7); \
        E##7 = vbcaxq_u64(b7, b9, b8); \
        E##8 = vbcaxq_u64(b8, b5, b9); \
        E##9 = vbcaxq_u64(b9, b6, b5); \
        E##10 = vbcaxq_u64(b10, b12, b11); \
        E##11 = vbcaxq_u64(b11, b13, b12); \
        E##12 = vbcaxq_u64(b12, b14, b13); \
        E##13 = vbcaxq_u64(b13, b10, b14); \
        E##14 = vbcaxq_u64(b14, b11, b10); \
        E##15 = vbcaxq_u64(b15, b17, b16); \
        E##16 = vbcaxq_u64(b16, b18, b17); \
        E##17 = vbcaxq_u64(b17, b19, b18); \
        E##18 = vbcaxq_u64(b18, b15, b19); \
        E##19 = vbcaxq_u64(b19, b16, b15); \
        E##20 = vbcaxq_u64(b20, b22, b21); \
        E##21 = vbcaxq_u64(b21, b23, b22); \
        E##22 = vbcaxq_u64(b22, b24, b23); \
        E##23 = vbcaxq_u64(b23, b20, b24); \
        E##24 = vbcaxq_u64(b24, b21, b20); \
        E##0 = veorq_u64(E##0, vld1q_dup_u64(rc)); \
    } while (0)

#define LANES(X)                                                             \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12)      \
    X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24)
#define DECLARE(i) uint64x2_t A##i, E##i;
#define LOAD1(i) A##i = vld1q_dup_u64(s + i);
#define STORE1(i) vst1q_lane_u64(s + i, A##i, 0);
#define LOAD2(i) A##i = vcombine_u64(vld1_u64(s0 + i), vld1_u64(s1 + i));
#define STORE2(i) vst1q_lane_u64(s0 + i, A##i, 0); vst1q_lane_u64(s1 + i, A##i, 1);

#define PERMUTE(rounds)                                                      \
    for (unsigned r = 24 - (rounds); r < 24; r += 2) {                       \
        ROUND(A, E, keccak_round_constants + r);                             \
        ROUND(E, A, keccak_round_constants + r + 1);                         \
    }

static inline uint64x1_t word(const uint8_t *p)
{
    return vreinterpret_u64_u8(vld1_u8(p));
}

/* The block's words XORed into the low halves (in1 NULL) or into both
 * halves: the switch enters at the last word of any rate of 8 to 192
 * bytes and falls through to the first. */
#define WORD(i)                                                              \
    A##i = veorq_u64(A##i, vcombine_u64(word(in0 + 8 * (i)),                 \
                                        in1 ? word(in1 + 8 * (i))            \
                                            : vdup_n_u64(0)))
#define FALL __attribute__((fallthrough))
#define XOR_BLOCK(words)                                                     \
    switch (words) {                                                         \
    case 24: WORD(23); FALL; case 23: WORD(22); FALL;                        \
    case 22: WORD(21); FALL; case 21: WORD(20); FALL;                        \
    case 20: WORD(19); FALL; case 19: WORD(18); FALL;                        \
    case 18: WORD(17); FALL; case 17: WORD(16); FALL;                        \
    case 16: WORD(15); FALL; case 15: WORD(14); FALL;                        \
    case 14: WORD(13); FALL; case 13: WORD(12); FALL;                        \
    case 12: WORD(11); FALL; case 11: WORD(10); FALL;                        \
    case 10: WORD(9); FALL; case 9: WORD(8); FALL;                           \
    case 8: WORD(7); FALL; case 7: WORD(6); FALL;                            \
    case 6: WORD(5); FALL; case 5: WORD(4); FALL;                            \
    case 4: WORD(3); FALL; case 3: WORD(2); FALL;                            \
    case 2: WORD(1); FALL;                                                   \
    default: WORD(0);                                                        \
    }

static void sha3_permute(uint64_t s[KECCAK_STATE_LANES], unsigned rounds)
{
    LANES(DECLARE)
    LANES(LOAD1)
    PERMUTE(rounds)
    LANES(STORE1)
}

static void sha3_absorb(uint64_t s[KECCAK_STATE_LANES], unsigned rounds,
                        unsigned rate, const uint8_t *in, size_t nblocks)
{
    const uint8_t *in0 = in, *in1 = NULL;
    LANES(DECLARE)

    LANES(LOAD1)
    for (; nblocks > 0; nblocks--, in0 += rate) {
        XOR_BLOCK(rate / 8)
        PERMUTE(rounds)
    }
    LANES(STORE1)
}

/* Two states of one rate, one in each half of the registers. */
static void sha3_absorb2(uint64_t *s0, uint64_t *s1, unsigned rounds,
                         unsigned rate, const uint8_t *in0, const uint8_t *in1,
                         size_t nblocks)
{
    LANES(DECLARE)

    LANES(LOAD2)
    for (; nblocks > 0; nblocks--, in0 += rate, in1 += rate) {
        XOR_BLOCK(rate / 8)
        PERMUTE(rounds)
    }
    LANES(STORE2)
}

/* Both halves when both lanes are active at one rate; otherwise each
 * active lane on its own. */
static void sha3_absorb_multi(uint64_t *const s[], unsigned rounds,
                              const unsigned rate[], const uint8_t *const in[],
                              size_t nblocks)
{
    if (in[0] != NULL && in[1] != NULL && rate[0] == rate[1]) {
        sha3_absorb2(s[0], s[1], rounds, rate[0], in[0], in[1], nblocks);
        return;
    }
    keccak_serial_absorb_multi(sha3_absorb, 2, s, rounds, rate, in, nblocks);
}

const keccak_backend keccak_a64sha3_backend = {
    "a64sha3", 2, sha3_permute, sha3_absorb, sha3_absorb_multi,
};
