/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Keccak-p[1600, n] backends: one small interface, several implementations.
 *
 * A backend permutes one state or four states at once and has a fast loop
 * that absorbs whole blocks.  The four-way form keeps the states
 * lane-interleaved (lane i of state j at s[4 * i + j]) as XKCP's
 * "parallel states" do, so a SIMD backend loads one lane of all four states
 * with one vector load.  The multi-state absorb instead takes separate
 * states, as the sponges of independent messages hold them: a SIMD backend
 * transposes them into its registers once a call, which costs far less than
 * one block, and no caller keeps an interleaved copy.  Every backend gives
 * bit-identical results to the portable one; tests/c/test_core.c checks
 * that.
 *
 * Return convention of this layer: nothing fails, every call returns void
 * (but the lookups, which return NULL when there is no such backend).
 */
#ifndef KSUM_KECCAK_P_H
#define KSUM_KECCAK_P_H

#include <stddef.h>
#include <stdint.h>

#define KECCAK_PAR 4            /* states processed by the parallel calls */
#define KECCAK_STATE_LANES 25

typedef struct keccak_backend {
    const char *name;
    /* Keccak-p[1600, rounds] on one state; rounds is even, 2..24. */
    void (*permute)(uint64_t s[KECCAK_STATE_LANES], unsigned rounds);
    /* XOR nblocks whole blocks of rate bytes into s, permuting after each. */
    void (*absorb)(uint64_t s[KECCAK_STATE_LANES], unsigned rounds,
                   unsigned rate, const uint8_t *in, size_t nblocks);
    /* The same on KECCAK_PAR interleaved states, one input per state. */
    void (*permute_x4)(uint64_t s[KECCAK_PAR * KECCAK_STATE_LANES],
                       unsigned rounds);
    void (*absorb_x4)(uint64_t s[KECCAK_PAR * KECCAK_STATE_LANES],
                      unsigned rounds, unsigned rate,
                      const uint8_t *const in[KECCAK_PAR], size_t nblocks);
    /* Up to KECCAK_PAR separate (not interleaved) states absorbing nblocks
     * whole blocks each, side by side: state s[j] takes rate[j] bytes a
     * block from in[j] and is permuted after each.  A lane whose in[j] is
     * NULL is idle: s[j] and rate[j] are not used.  Rates may differ (each
     * one a rate the single-state absorb takes: 72, 104, 136, 144 or 168);
     * rounds are shared.  The states must not overlap.  How the active
     * lanes share the kernel is the backend's choice, from its costs. */
    void (*absorb_multi)(uint64_t *const s[KECCAK_PAR], unsigned rounds,
                         const unsigned rate[KECCAK_PAR],
                         const uint8_t *const in[KECCAK_PAR], size_t nblocks);
} keccak_backend;

/* The backend chosen once from the CPU and KSUM_SIMD (portable|bmi2|avx2). */
const keccak_backend *keccak_backend_active(void);

/* Every backend by name, or NULL when it is not built or this CPU lacks it. */
const keccak_backend *keccak_backend_by_name(const char *name);

/* The names of the backends built into this binary, NULL-terminated. */
extern const char *const keccak_backend_names[];

extern const keccak_backend keccak_portable_backend;
#ifdef KSUM_HAVE_X86_SIMD
extern const keccak_backend keccak_bmi2_backend;
extern const keccak_backend keccak_avx2_backend;
#endif

/* The calls of the backends, which other backends reuse: bmi2 takes the
 * portable four-way calls, avx2 the bmi2 single-state ones. */
void keccak_portable_permute(uint64_t s[KECCAK_STATE_LANES], unsigned rounds);
void keccak_portable_absorb(uint64_t s[KECCAK_STATE_LANES], unsigned rounds,
                            unsigned rate, const uint8_t *in, size_t nblocks);
void keccak_portable_permute_x4(uint64_t s[KECCAK_PAR * KECCAK_STATE_LANES],
                                unsigned rounds);
void keccak_portable_absorb_x4(uint64_t s[KECCAK_PAR * KECCAK_STATE_LANES],
                               unsigned rounds, unsigned rate,
                               const uint8_t *const in[KECCAK_PAR],
                               size_t nblocks);
void keccak_portable_absorb_multi(uint64_t *const s[KECCAK_PAR],
                                  unsigned rounds,
                                  const unsigned rate[KECCAK_PAR],
                                  const uint8_t *const in[KECCAK_PAR],
                                  size_t nblocks);
#ifdef KSUM_HAVE_X86_SIMD
void keccak_bmi2_permute(uint64_t s[KECCAK_STATE_LANES], unsigned rounds);
void keccak_bmi2_absorb(uint64_t s[KECCAK_STATE_LANES], unsigned rounds,
                        unsigned rate, const uint8_t *in, size_t nblocks);
void keccak_bmi2_absorb_multi(uint64_t *const s[KECCAK_PAR], unsigned rounds,
                              const unsigned rate[KECCAK_PAR],
                              const uint8_t *const in[KECCAK_PAR],
                              size_t nblocks);
#endif

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
