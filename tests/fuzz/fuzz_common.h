/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the fuzz targets: the algorithms and a library context. */
#ifndef KSUM_FUZZ_COMMON_H
#define KSUM_FUZZ_COMMON_H

#include <openssl/provider.h>
#include <stdlib.h>

#include "ksumprov.h"

/* Every digest, then the two MACs. */
static const char *const fuzz_algs[] = {
    "SHA3-224", "SHA3-256", "SHA3-384", "SHA3-512", "SHAKE128", "SHAKE256",
    "RAWSHAKE128", "RAWSHAKE256", "KECCAK-224", "KECCAK-256", "KECCAK-384",
    "KECCAK-512", "CSHAKE128", "CSHAKE256", "PARALLELHASH128",
    "PARALLELHASH256", "KANGAROOTWELVE", "KT256", "MARSUPILAMIFOURTEEN",
    "TURBOSHAKE128", "TURBOSHAKE256", "KMAC128", "KMAC256"};
#define NALGS (sizeof fuzz_algs / sizeof fuzz_algs[0])
#define FIRST_MAC 21

/* ksumprov built in, and OpenSSL's default provider when with_default. */
static OSSL_LIB_CTX *fuzz_libctx(int with_default)
{
    OSSL_LIB_CTX *lib = OSSL_LIB_CTX_new();

    if (lib == NULL || !OSSL_PROVIDER_add_builtin(lib, KSUMPROV_NAME, ksumprov_init) ||
        OSSL_PROVIDER_load(lib, KSUMPROV_NAME) == NULL ||
        (with_default && OSSL_PROVIDER_load(lib, "default") == NULL))
        abort();
    return lib;
}

#endif
