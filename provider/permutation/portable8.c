/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The portable 8-way backend: wide.inc with the compiler's default flags,
 * so that every machine (and every CI run) tests the 8-way code of the
 * avx512 backend, and the callers' groups of eight, bit for bit against
 * the portable backend.  Single-state calls are the portable ones.
 */
#define WIDE(name) portable8_##name
#define SINGLE_ABSORB keccak_portable_absorb
#include "wide.inc"

const keccak_backend keccak_portable8_backend = {
    "portable8", 8, keccak_portable_permute, keccak_portable_absorb,
    portable8_absorb_multi,
};
