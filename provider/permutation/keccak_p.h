/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Keccak-p[1600, n] backends: one small interface, several implementations.
 *
 * A backend permutes one state, has a fast loop that absorbs whole blocks
 * into one state, and absorbs into up to `lanes` states side by side: 1
 * for the single-state backends, 2 for the Arm64 SHA3 one, 4 for AVX2, 8
 * for the 8-way ones.  The
 * states of that multi-state absorb are separate, as the sponges of
 * independent messages (and the leaves of the tree modes) hold them: a
 * SIMD backend transposes them into its registers once a call, which costs
 * far less than one block, and no caller keeps an interleaved copy.  Every
 * backend gives bit-identical results to the portable one;
 * tests/c/test_core.c checks that.
 *
 * Return convention of this layer: nothing fails, every call returns void
 * (but the lookups, which return NULL when there is no such backend).
 */
#ifndef KSUM_KECCAK_P_H
#define KSUM_KECCAK_P_H

#include <stddef.h>
#include <stdint.h>

/* The most states any backend absorbs side by side (its `lanes`): callers
 * size their arrays with it and fill be->lanes of them. */
#define KECCAK_LANES_MAX 8
#define KECCAK_STATE_LANES 25

typedef struct keccak_backend {
    const char *name;
    unsigned lanes;     /* states absorb_multi takes: 1, 2, 4 or 8 */
    /* Keccak-p[1600, rounds] on one state; rounds is even, 2..24. */
    void (*permute)(uint64_t s[KECCAK_STATE_LANES], unsigned rounds);
    /* XOR nblocks whole blocks of rate bytes into s, permuting after each
     * (any rate keccak_rate_ok accepts). */
    void (*absorb)(uint64_t s[KECCAK_STATE_LANES], unsigned rounds,
                   unsigned rate, const uint8_t *in, size_t nblocks);
    /* Up to `lanes` separate states absorbing nblocks whole blocks each,
     * side by side (the arrays have `lanes` entries): state s[j] takes
     * rate[j] bytes a block from in[j] and is permuted after each.  A lane
     * whose in[j] is NULL is idle: s[j] and rate[j] are not used.  Rates
     * may differ (each one keccak_rate_ok); rounds are shared.  The
     * states must not overlap.
     * How the active lanes share the kernel is the backend's choice, from
     * its costs (an 8-way kernel steps down to its 4-way one, one lane to
     * the single-state loop). */
    void (*absorb_multi)(uint64_t *const s[], unsigned rounds,
                         const unsigned rate[], const uint8_t *const in[],
                         size_t nblocks);
} keccak_backend;

/* The rates every backend absorbs exactly: whole 8-byte lanes, from one
 * lane to 24 (the last lane of the 25 is always capacity).  The glue
 * refuses a mode whose rate is not one of them, rather than let a kernel
 * absorb a part of each block. */
#define KECCAK_RATE_MAX 192

static inline int keccak_rate_ok(unsigned rate)
{
    return rate >= 8 && rate <= KECCAK_RATE_MAX && rate % 8 == 0;
}

/* The backend chosen once from the CPU and KSUM_SIMD (a name of
 * keccak_backend_names; one this CPU cannot run is ignored). */
const keccak_backend *keccak_backend_active(void);

/* Every backend by name, or NULL when it is not built or this CPU lacks it. */
const keccak_backend *keccak_backend_by_name(const char *name);

/* The names of the backends built into this binary, NULL-terminated. */
extern const char *const keccak_backend_names[];

extern const keccak_backend keccak_portable_backend;
extern const keccak_backend keccak_portable8_backend;
#ifdef KSUM_HAVE_X86_SIMD
extern const keccak_backend keccak_bmi2_backend;
extern const keccak_backend keccak_avx2_backend;
#endif
#ifdef KSUM_HAVE_AVX512
extern const keccak_backend keccak_avx512_backend;
/* AVX-512F and VL, and an OS that saves the opmask and ZMM registers. */
int keccak_cpu_has_avx512(void);
#endif
#ifdef KSUM_HAVE_A64
extern const keccak_backend keccak_a64_backend;
extern const keccak_backend keccak_a64ror_backend;
extern const keccak_backend keccak_a64neon_backend;
#ifdef KSUM_HAVE_A64_SHA3
extern const keccak_backend keccak_a64sha3_backend;
extern const keccak_backend keccak_a64sha3x2_backend;
#endif
/* HWCAP_SHA3: the SHA3 instructions run on every core of this system. */
int keccak_a64_has_sha3(void);
/* The backend ("a64", "a64ror", "a64neon", "a64sha3x2" or "a64sha3") that the table of core families gives a
 * core of this MIDR_EL1, with or without the SHA3 instructions. */
const char *keccak_a64_kernel_for(uint32_t midr, int has_sha3);
/* That kernel for this CPU (KSUM_TEST_MIDR, for tests, replaces its MIDR). */
const char *keccak_a64_default(void);
#endif

/* The portable single-state calls with 2, 4 and 8 lanes, the multi-state
 * absorb one state after another: every width of the callers (sponge
 * groups, tree leaves, batch partners) testable on any CPU.  Not in
 * keccak_backend_names: no faster than portable. */
extern const keccak_backend keccak_serial_backends[3];

/* The calls of the backends, which other backends reuse: avx2 and avx512
 * take the bmi2 single-state ones. */
void keccak_portable_permute(uint64_t s[KECCAK_STATE_LANES], unsigned rounds);
void keccak_portable_absorb(uint64_t s[KECCAK_STATE_LANES], unsigned rounds,
                            unsigned rate, const uint8_t *in, size_t nblocks);
void keccak_portable_absorb_multi(uint64_t *const s[], unsigned rounds,
                                  const unsigned rate[],
                                  const uint8_t *const in[], size_t nblocks);
#ifdef KSUM_HAVE_X86_SIMD
void keccak_bmi2_permute(uint64_t s[KECCAK_STATE_LANES], unsigned rounds);
void keccak_bmi2_absorb(uint64_t s[KECCAK_STATE_LANES], unsigned rounds,
                        unsigned rate, const uint8_t *in, size_t nblocks);
void keccak_bmi2_absorb_multi(uint64_t *const s[], unsigned rounds,
                              const unsigned rate[], const uint8_t *const in[],
                              size_t nblocks);
#endif

/* The serial fallback: n states absorbed one after another with a
 * single-state absorb, idle lanes (in[j] NULL) skipped. */
void keccak_serial_absorb_multi(void (*absorb)(uint64_t *, unsigned, unsigned,
                                               const uint8_t *, size_t),
                                unsigned n, uint64_t *const s[], unsigned rounds,
                                const unsigned rate[], const uint8_t *const in[],
                                size_t nblocks);

/* Round constants of Keccak-f[1600]; Keccak-p[1600, n] uses the last n. */
extern const uint64_t keccak_round_constants[24];

static inline uint64_t keccak_load64(const uint8_t *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
           (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
           (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
}

#endif
