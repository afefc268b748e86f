/*
 * Picks the backend once, the first time one is asked for: the fastest this
 * CPU runs, unless KSUM_SIMD names another ("portable" forces the reference
 * code, for tests and for ruling the SIMD code out when debugging).  This
 * choice is the only global state of the library.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "keccak_p.h"

const char *const keccak_backend_names[] = {
    "portable",
#ifdef KSUM_HAVE_AVX2
    "avx2",
#endif
    NULL,
};

static int cpu_has_avx2(void)
{
#if defined(KSUM_HAVE_AVX2) && (defined(__GNUC__) || defined(__clang__))
    /* Checks both the CPUID bit and that the OS saves the YMM registers. */
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

const keccak_backend *keccak_backend_by_name(const char *name)
{
    if (strcmp(name, "portable") == 0)
        return &keccak_portable_backend;
#ifdef KSUM_HAVE_AVX2
    if (strcmp(name, "avx2") == 0 && cpu_has_avx2())
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
        be = cpu_has_avx2() ? keccak_backend_by_name("avx2") : NULL;
    chosen = be != NULL ? be : &keccak_portable_backend;
}

const keccak_backend *keccak_backend_active(void)
{
    pthread_once(&chosen_once, choose_backend);
    return chosen;
}
