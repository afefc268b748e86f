/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The table of algorithms, generated from algorithms.h's rows and defined
 * beside its declaration: digests.c, kmac.c, context.h and params.c read
 * it, and provider.c only returns their dispatch tables.
 */
#include "algorithms.h"

#include <openssl/crypto.h>
#include <stdint.h>

const ksum_alg ksum_algs[KSUM_ALG_COUNT] = {
    KSUM_DIGESTS(KSUM_ALG_ROW) KSUM_MACS(KSUM_ALG_ROW)
};

int ksum_algs_absorbable(const ksum_alg *algs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!keccak_rate_ok(algs[i].mode->rate))
            return 0;
    return 1;
}

int ksum_openssl_at_least(unsigned major, unsigned minor)
{
    unsigned have_major = OPENSSL_version_major();

    return have_major > major ||
           (have_major == major && OPENSSL_version_minor() >= minor);
}

size_t ksum_alg_outlen(const ksum_alg *alg)
{
    if (!ksum_openssl_at_least(alg->openssl_major, alg->openssl_minor))
        return alg->mode->outlen;
    return alg->openssl_outlen == NO_DEFAULT ? SIZE_MAX : alg->openssl_outlen;
}
