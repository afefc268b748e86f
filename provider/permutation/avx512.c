/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The AVX-512 backend: wide.inc built with -mavx512f -mavx512vl for this
 * file only (the 4-way step-down uses vpternlogq and vprolq on 256-bit
 * registers, hence VL) and chosen at run time (dispatch.c), so the rest of
 * the binary still runs on any x86-64.  Single-state calls are the bmi2
 * backend's: a one-lane SIMD permutation is no faster.
 */
#define WIDE(name) avx512_##name
#define SINGLE_ABSORB keccak_bmi2_absorb
#define WIDE_RATE_COPIES /* the loop specialized for each rate: its speed */
#include "wide.inc"

const keccak_backend keccak_avx512_backend = {
    "avx512", 8, keccak_bmi2_permute, keccak_bmi2_absorb, avx512_absorb_multi,
};
