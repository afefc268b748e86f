/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The BMI2 backend: the portable single-state code compiled with -mbmi
 * -mbmi2 (this file only), where andn does chi's ~a & b in one instruction
 * and rorx rotates without a copy (docs/benchmarks.md).  One
 * lane, as the portable backend.
 */
#include "keccak_p.h"

#define SINGLE(name) keccak_bmi2_##name
#include "single.inc"

const keccak_backend keccak_bmi2_backend = {
    "bmi2", 1, keccak_bmi2_permute, keccak_bmi2_absorb,
    keccak_bmi2_absorb_multi,
};
