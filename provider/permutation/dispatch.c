/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Picks the backend once, the first time one is asked for: the fastest this
 * CPU runs (avx2, bmi2, portable: the first it can), unless KSUM_SIMD names
 * another ("portable" forces the reference code, for tests and for ruling
 * the SIMD code out when debugging; a name this CPU cannot run is
 * ignored).  This choice is the only global state of the library.
 */
#include <pthread.h>
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
