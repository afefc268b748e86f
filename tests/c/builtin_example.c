/* SPDX-License-Identifier: Apache-2.0 */
/*
 * docs/provider.md's "link the provider in" example as a whole program, built by
 * tests/python/test_install.py from the installed files only:
 *   cc builtin_example.c $(pkg-config --cflags --libs ksumprov)
 * ksumprov is registered with OSSL_PROVIDER_add_builtin() and loaded by
 * name in a library context of its own: no module is looked for.  Prints
 * the KT128 of "abc" (16 bytes) and the provider that computed it.
 */
#include <stdio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <ksumprov.h>

int main(void)
{
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *prov = NULL;
    EVP_MD *md = NULL;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned char out[16];
    int ok = libctx != NULL && ctx != NULL
             && OSSL_PROVIDER_add_builtin(libctx, "ksumprov", ksumprov_init)
             && (prov = OSSL_PROVIDER_load(libctx, "ksumprov")) != NULL
             && (md = EVP_MD_fetch(libctx, "KT128", NULL)) != NULL
             && EVP_DigestInit_ex2(ctx, md, NULL)
             && EVP_DigestUpdate(ctx, "abc", 3)
             && EVP_DigestFinalXOF(ctx, out, sizeof out);

    if (!ok) {
        ERR_print_errors_fp(stderr);
        return 1;
    }
    printf("%s:", OSSL_PROVIDER_get0_name(EVP_MD_get0_provider(md)));
    for (size_t i = 0; i < sizeof out; i++)
        printf("%02x", out[i]);
    printf("\n");
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(libctx);
    return 0;
}
