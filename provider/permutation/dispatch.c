/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Picks the backend once, the first time one is asked for: the fastest this
 * CPU runs (avx512, avx2, bmi2, portable: the first it can; on Arm64 the
 * kernel a64_cpu.c's table of cores gives it, never portable8), unless KSUM_SIMD names
 * another ("portable" forces the reference code, for tests and for ruling
 * the SIMD code out when debugging; a name this CPU cannot run is
 * ignored).  This choice is the only global state of the library.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keccak_p.h"

const char *const keccak_backend_names[] = {
    "portable",
    "portable8",
#ifdef KSUM_HAVE_X86_SIMD
    "bmi2",
    "avx2",
#endif
#ifdef KSUM_HAVE_AVX512
    "avx512",
#endif
#ifdef KSUM_HAVE_A64
    "a64",
    "a64ror",
    "a64neon",
#endif
#ifdef KSUM_HAVE_A64_SHA3
    "a64sha3",
    "a64sha3x2",
#endif
    NULL,
};

#ifdef KSUM_HAVE_X86_SIMD
static int cpu_has(int avx2)
{
    /* __builtin_cpu_supports checks the CPUID bits and, for AVX2, that the
     * OS saves the YMM registers. */
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("bmi") || !__builtin_cpu_supports("bmi2"))
        return 0;
    return !avx2 || __builtin_cpu_supports("avx2");
}
#endif

#ifdef KSUM_HAVE_AVX512
#include <cpuid.h>

/* XCR0 by xgetbv, in asm so that this file needs no -mxsave. */
static uint64_t xcr0(void)
{
    uint32_t lo, hi;

    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t)hi << 32 | lo;
}

/* Checked here rather than trusted to __builtin_cpu_supports, whose
 * runtimes differ in whether they look at XCR0 for AVX-512: the CPU must
 * have AVX-512F and VL, and the OS must save the SSE and AVX state (XCR0
 * bits 1, 2) and the opmask and ZMM registers (bits 5, 6, 7), or the first
 * 512-bit instruction faults. */
int keccak_cpu_has_avx512(void)
{
    const uint64_t saved = 1u << 1 | 1u << 2 | 1u << 5 | 1u << 6 | 1u << 7;
    unsigned a, b, c, d;

    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
        return 0;
    if ((xcr0() & saved) != saved)
        return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    return (b & bit_AVX512F) && (b & bit_AVX512VL);
}
#endif

const keccak_backend *keccak_backend_by_name(const char *name)
{
    if (strcmp(name, "portable") == 0)
        return &keccak_portable_backend;
    if (strcmp(name, "portable8") == 0)
        return &keccak_portable8_backend;
#ifdef KSUM_HAVE_X86_SIMD
    if (strcmp(name, "bmi2") == 0 && cpu_has(0))
        return &keccak_bmi2_backend;
    if (strcmp(name, "avx2") == 0 && cpu_has(1))
        return &keccak_avx2_backend;
#endif
#ifdef KSUM_HAVE_AVX512
    /* avx512 takes bmi2's single-state calls. */
    if (strcmp(name, "avx512") == 0 && cpu_has(1) && keccak_cpu_has_avx512())
        return &keccak_avx512_backend;
#endif
#ifdef KSUM_HAVE_A64
    if (strcmp(name, "a64") == 0)
        return &keccak_a64_backend;
    if (strcmp(name, "a64ror") == 0)
        return &keccak_a64ror_backend;
    if (strcmp(name, "a64neon") == 0)
        return &keccak_a64neon_backend;
#endif
#ifdef KSUM_HAVE_A64_SHA3
    if (strcmp(name, "a64sha3") == 0 && keccak_a64_has_sha3())
        return &keccak_a64sha3_backend;
    if (strcmp(name, "a64sha3x2") == 0 && keccak_a64_has_sha3())
        return &keccak_a64sha3x2_backend;
#endif
    return NULL;
}

static const keccak_backend *chosen;
static pthread_once_t chosen_once = PTHREAD_ONCE_INIT;

static void choose_backend(void)
{
    const char *want = getenv("KSUM_SIMD");
    const keccak_backend *be = NULL;

    if (want != NULL && *want != '\0' && strcmp(want, "auto") != 0)
        be = keccak_backend_by_name(want);
#ifdef KSUM_HAVE_A64
    if (be == NULL)
        be = keccak_backend_by_name(keccak_a64_default());
    if (be == NULL)
        be = &keccak_a64_backend;
#endif
    if (be == NULL)
        be = keccak_backend_by_name("avx512");
    if (be == NULL)
        be = keccak_backend_by_name("avx2");
    if (be == NULL)
        be = keccak_backend_by_name("bmi2");
    chosen = be != NULL ? be : &keccak_portable_backend;
}

const keccak_backend *keccak_backend_active(void)
{
    pthread_once(&chosen_once, choose_backend);
    return chosen;
}
