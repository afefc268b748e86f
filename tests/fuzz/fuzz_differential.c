/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Differential fuzzing: the input is split into a message and update sizes,
 * and hashed
 *  - by ksumprov and by OpenSSL's default provider (SHA3, SHAKE, KMAC), and
 *  - by every Keccak backend this CPU runs against the portable one, for
 *    every algorithm.
 * Any difference aborts.
 */
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

#define NORACLE 6   /* the first six digests exist in the default provider */

static OSSL_LIB_CTX *lib;


typedef struct job {
    const char *alg, *props, *backend;
    const uint8_t *msg;
    size_t len, outlen, step;   /* step: update size, 0 for one update */
    size_t block;               /* ParallelHash B */
    const char *custom;
} job;

static int run(const job *j, uint8_t *out)
{
    OSSL_PARAM params[6], *p = params;
    int xof = 0, ok;
    size_t outlen = j->outlen, outl;

    if (j->backend != NULL)
        *p++ = OSSL_PARAM_construct_utf8_string(KSUM_PARAM_BACKEND, (char *)j->backend, 0);
    if (strncmp(j->alg, "PARALLEL", 8) == 0)
        *p++ = OSSL_PARAM_construct_size_t(KSUM_PARAM_BLOCK_SIZE, (size_t *)&j->block);
    if (strncmp(j->alg, "KMAC", 4) == 0 || strncmp(j->alg, "CSHAKE", 6) == 0 ||
        strncmp(j->alg, "PARALLEL", 8) == 0 || strncmp(j->alg, "K", 1) == 0 ||
        strncmp(j->alg, "M", 1) == 0)
        *p++ = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CUSTOM, (char *)j->custom, 0);
    if (strncmp(j->alg, "KMAC", 4) == 0) {
        *p++ = OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &outlen);
        *p++ = OSSL_PARAM_construct_int(OSSL_MAC_PARAM_XOF, &xof);
    }
    *p = OSSL_PARAM_construct_end();
    if (strncmp(j->alg, "KMAC", 4) == 0) {
        EVP_MAC *mac = EVP_MAC_fetch(lib, j->alg, j->props);
        EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
        ok = EVP_MAC_init(ctx, (const uint8_t *)"fuzzkey!", 8, params);
        for (size_t i = 0; ok && i < j->len; i += j->step ? j->step : j->len)
            ok = EVP_MAC_update(ctx, j->msg + i,
                                j->step && j->step < j->len - i ? j->step : j->len - i);
        ok = ok && EVP_MAC_final(ctx, out, &outl, outlen);
        EVP_MAC_CTX_free(ctx);
        EVP_MAC_free(mac);
        return ok;
    }
    EVP_MD *md = EVP_MD_fetch(lib, j->alg, j->props);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    ok = EVP_DigestInit_ex2(ctx, md, params);
    for (size_t i = 0; ok && i < j->len; i += j->step ? j->step : j->len)
        ok = EVP_DigestUpdate(ctx, j->msg + i,
                              j->step && j->step < j->len - i ? j->step : j->len - i);
    if (EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF)
        ok = ok && EVP_DigestFinalXOF(ctx, out, outlen);
    else
        ok = ok && EVP_DigestFinal_ex(ctx, out, NULL);
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    return ok;
}

static void compare(const job *a, const job *b, const uint8_t *want, size_t n)
{
    uint8_t got[512];

    if (!run(b, got) || memcmp(want, got, n) != 0) {
        fprintf(stderr, "%s differs: %s/%s vs %s/%s, len %zu\n", a->alg,
                a->props, a->backend ? a->backend : "-", b->props,
                b->backend ? b->backend : "-", a->len);
        abort();
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    lib = fuzz_libctx(1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const backends[] = {"bmi2", "avx2", "portable8", "avx512"};
    uint8_t want[512];
    job j;

    if (size < 4)
        return 0;
    j.alg = fuzz_algs[data[0] % NALGS];
    j.outlen = 1 + data[1] % 255;
    j.step = data[2] % 5 == 0 ? 0 : 1 + data[2] * 37;
    j.block = 1 + data[3] * 13;
    j.custom = data[3] % 2 ? "fuzz" : "";
    j.msg = data + 4;
    j.len = size - 4;
    if (strncmp(j.alg, "SHA3", 4) == 0 || strncmp(j.alg, "KECCAK", 6) == 0)
        j.outlen = strtoul(strchr(j.alg, '-') + 1, NULL, 10) / 8;
    j.props = "provider=ksumprov";
    j.backend = "portable";
    if (!run(&j, want))
        abort();
    for (int b = 0; b < 4; b++) {
        job other = j;
        other.backend = backends[b];
        other.step = j.step ? j.step / 2 + 1 : 0;
        OSSL_PARAM probe[] = {OSSL_PARAM_construct_utf8_string(KSUM_PARAM_BACKEND,
                                                               (char *)backends[b], 0),
                              OSSL_PARAM_construct_end()};
        EVP_MD *md = EVP_MD_fetch(lib, "SHA3-256", "provider=ksumprov");
        EVP_MD_CTX *ctx = EVP_MD_CTX_new();
        int runnable = EVP_DigestInit_ex2(ctx, md, probe);
        EVP_MD_CTX_free(ctx);
        EVP_MD_free(md);
        ERR_clear_error();
        if (runnable)
            compare(&j, &other, want, j.outlen);
    }
    if (data[0] % NALGS < NORACLE || data[0] % NALGS >= FIRST_MAC) {
        job theirs = j;
        theirs.props = "provider=default";
        theirs.backend = NULL;
        theirs.step = 0;
        compare(&j, &theirs, want, j.outlen);
    }
    return 0;
}
