/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Provider parameter handling: the input is a little program of parameter
 * sets (any key, any type, any value), updates, finals, dups and re-inits
 * on one digest or MAC context.  Errors are fine; crashes, leaks, hangs and
 * sanitizer reports are not.
 */
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

static OSSL_LIB_CTX *lib;


static const char *const keys[] = {
    "xoflen", "size", "custom", "function-name", "block-size", "xof",
    "domain", "threads", "backend", "key", "blocksize", "no-such-key",
    "squeeze"};

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static unsigned byte(reader *r)
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

static uint64_t number(reader *r)
{
    /* Small values mostly, sometimes huge ones. */
    unsigned kind = byte(r) % 4;
    uint64_t v = 0;
    for (unsigned i = 0; i < (kind == 3 ? 8u : kind == 2 ? 2u : 1u); i++)
        v = v << 8 | byte(r);
    return v;
}

/* Builds one parameter of a random key and type from the input. */
static void make_param(reader *r, OSSL_PARAM *p, uint64_t *num, char *str)
{
    const char *key = keys[byte(r) % (sizeof keys / sizeof keys[0])];
    unsigned type = byte(r) % 5;
    size_t len = byte(r) % 40;

    *num = number(r);
    for (size_t i = 0; i < len; i++)
        str[i] = (char)byte(r);
    str[len] = '\0';
    if (strcmp(key, "backend") == 0 && len == 0)
        strcpy(str, byte(r) % 2 ? "portable" : "avx2"), len = strlen(str);
    switch (type) {
    case 0: *p = OSSL_PARAM_construct_size_t(key, (size_t *)num); break;
    case 1: *p = OSSL_PARAM_construct_uint(key, (unsigned *)num); break;
    case 2: *p = OSSL_PARAM_construct_int(key, (int *)num); break;
    case 3: *p = OSSL_PARAM_construct_octet_string(key, str, len); break;
    default: *p = OSSL_PARAM_construct_utf8_string(key, str, len); break;
    }
    /* Keep thread counts and outputs small enough to run fast. */
    if (strcmp(key, "threads") == 0)
        *num %= 9;
    if (strcmp(key, "xoflen") == 0 || strcmp(key, "size") == 0)
        *num %= 5000;
}

static void run_digest(const char *name, reader *r)
{
    EVP_MD *md = EVP_MD_fetch(lib, name, "provider=ksumprov");
    EVP_MD_CTX *ctx = EVP_MD_CTX_new(), *copy;
    uint8_t out[5000];
    unsigned int outl;

    EVP_DigestInit_ex2(ctx, md, NULL);
    while (r->n > 0) {
        OSSL_PARAM params[2] = {OSSL_PARAM_END, OSSL_PARAM_END};
        uint64_t num;
        char str[64];
        size_t len;
        switch (byte(r) % 7) {
        case 0:
            make_param(r, &params[0], &num, str);
            EVP_MD_CTX_set_params(ctx, params);
            break;
        case 1:
            len = byte(r) * (size_t)(byte(r) % 4 == 0 ? 200 : 1);
            len = len < r->n ? len : r->n;
            EVP_DigestUpdate(ctx, r->p, len);
            r->p += len, r->n -= len;
            break;
        case 2:
            if (EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF)
                EVP_DigestFinalXOF(ctx, out, number(r) % sizeof out);
            else
                EVP_DigestFinal_ex(ctx, out, &outl);
            break;
        case 3:
            copy = EVP_MD_CTX_new();
            if (EVP_MD_CTX_copy_ex(copy, ctx)) {
                EVP_MD_CTX_free(ctx);
                ctx = copy;
            } else {
                EVP_MD_CTX_free(copy);
            }
            break;
        case 4:
            make_param(r, &params[0], &num, str);
            EVP_DigestInit_ex2(ctx, md, params);
            break;
        case 5:
            if (byte(r) % 2)
                params[0] = OSSL_PARAM_construct_octet_string(
                    KSUM_PARAM_SQUEEZE, out, number(r) % sizeof out);
            else
                params[0] = OSSL_PARAM_construct_size_t("xoflen", (size_t *)&num);
            EVP_MD_CTX_get_params(ctx, params);
            break;
        default:
            EVP_DigestInit_ex2(ctx, md, NULL);
        }
    }
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
}

static void run_mac(const char *name, reader *r)
{
    EVP_MAC *mac = EVP_MAC_fetch(lib, name, "provider=ksumprov");
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac), *copy;
    uint8_t out[5000];
    size_t outl;

    while (r->n > 0) {
        OSSL_PARAM params[2] = {OSSL_PARAM_END, OSSL_PARAM_END};
        uint64_t num;
        char str[64];
        size_t len;
        switch (byte(r) % 6) {
        case 0:
            make_param(r, &params[0], &num, str);
            EVP_MAC_CTX_set_params(ctx, params);
            break;
        case 1:
            len = byte(r);
            len = len < r->n ? len : r->n;
            EVP_MAC_update(ctx, r->p, len);
            r->p += len, r->n -= len;
            break;
        case 2:
            EVP_MAC_final(ctx, out, &outl, number(r) % sizeof out);
            break;
        case 3:
            copy = EVP_MAC_CTX_dup(ctx);
            if (copy != NULL) {
                EVP_MAC_CTX_free(ctx);
                ctx = copy;
            }
            break;
        case 4: {
            int no_key = byte(r) % 4 == 0;
            len = byte(r) % 64;
            len = len < r->n ? len : r->n;
            EVP_MAC_init(ctx, no_key ? NULL : r->p, len, NULL);
            r->p += len, r->n -= len;
            break;
        }
        default:
            if (byte(r) % 2)
                params[0] = OSSL_PARAM_construct_octet_string(
                    KSUM_PARAM_SQUEEZE, out, number(r) % sizeof out);
            else
                params[0] = OSSL_PARAM_construct_size_t("size", (size_t *)&num);
            EVP_MAC_CTX_get_params(ctx, params);
        }
    }
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    lib = fuzz_libctx(0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    size_t alg = byte(&r) % NALGS;

    if (alg >= FIRST_MAC)
        run_mac(fuzz_algs[alg], &r);
    else
        run_digest(fuzz_algs[alg], &r);
    ERR_clear_error();
    return 0;
}
