/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One digest through EVP, for counting instructions under an emulator
 * (bench/arm64.sh): the difference between two lengths is the cost of the
 * bytes between them, with the set-up and the final block cancelled out.
 *   insn_evp PROVIDER ALGORITHM BYTES   (PROVIDER: ksumprov or default)
 * KSUM_SIMD picks ksumprov's kernel as usual.  ksumprov's tree modes run
 * on this one thread: an emulator's counter is exact only for one.
 */
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksumprov.h"

int main(int argc, char **argv)
{
    OSSL_LIB_CTX *lib = OSSL_LIB_CTX_new();
    char props[64];
    unsigned char out[32];
    unsigned char *in;
    size_t len;
    EVP_MD *md;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned int one = 1;
    OSSL_PARAM threads[] = {OSSL_PARAM_construct_uint(KSUM_PARAM_THREADS, &one),
                            OSSL_PARAM_construct_end()};

    if (argc != 4 || lib == NULL || ctx == NULL)
        return 2;
    len = strtoul(argv[3], NULL, 10);
    in = malloc(len + 1);
    memset(in, 0xA5, len + 1);
    OSSL_PROVIDER_add_builtin(lib, KSUMPROV_NAME, ksumprov_init);
    if (OSSL_PROVIDER_load(lib, argv[1]) == NULL)
        return 1;
    snprintf(props, sizeof props, "provider=%s", argv[1]);
    md = EVP_MD_fetch(lib, argv[2], props);
    if (md == NULL || !EVP_DigestInit_ex(ctx, md, NULL))
        return 1;
    if (EVP_MD_CTX_settable_params(ctx) != NULL &&
        OSSL_PARAM_locate_const(EVP_MD_CTX_settable_params(ctx), KSUM_PARAM_THREADS) != NULL &&
        !EVP_MD_CTX_set_params(ctx, threads))
        return 1;
    if (!EVP_DigestUpdate(ctx, in, len))
        return 1;
    if (EVP_MD_get_size(md) > 0 ? !EVP_DigestFinal_ex(ctx, out, NULL)
                                : !EVP_DigestFinalXOF(ctx, out, sizeof out))
        return 1;
    for (size_t i = 0; i < 8; i++)
        printf("%02x", out[i]);
    printf("\n");
    EVP_MD_free(md);
    EVP_MD_CTX_free(ctx);
    OSSL_LIB_CTX_free(lib);
    free(in);
    return 0;
}
