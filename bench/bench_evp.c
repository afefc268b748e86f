/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Micro-benchmark through EVP: ksumprov against OpenSSL's default provider,
 * side by side in one process, for SHA3-256, SHAKE128 and KMAC128 at
 * 64 B, 1 KiB, 64 KiB and 16 MiB.  Prints a markdown table of ns/byte
 * (best of several runs) and the ratio default/ksumprov (> 1: faster).
 * Then four messages at a time through ksumprov, fed in turns of 64 KiB as
 * ksum feeds files, with and without KSUM_PARAM_BATCH: the speed-up of
 * absorbing four messages together (that table alone: bench_evp --batch).
 */
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ksumprov.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Fetched once per measurement; each repetition is one init/update/final,
 * as an application hashing many messages does. */
typedef struct target {
    EVP_MD *md;
    EVP_MD_CTX *md_ctx;
    EVP_MAC *mac;
    EVP_MAC_CTX *mac_ctx;
} target;

static void target_open(target *t, OSSL_LIB_CTX *lib, const char *alg,
                        const char *props)
{
    memset(t, 0, sizeof *t);
    if (strcmp(alg, "KMAC128") == 0) {
        t->mac = EVP_MAC_fetch(lib, alg, props);
        t->mac_ctx = EVP_MAC_CTX_new(t->mac);
    } else {
        t->md = EVP_MD_fetch(lib, alg, props);
        t->md_ctx = EVP_MD_CTX_new();
    }
}

static void target_close(target *t)
{
    EVP_MAC_CTX_free(t->mac_ctx);
    EVP_MAC_free(t->mac);
    EVP_MD_CTX_free(t->md_ctx);
    EVP_MD_free(t->md);
}

static void target_init(target *t, const OSSL_PARAM *params)
{
    if (t->mac != NULL)
        EVP_MAC_init(t->mac_ctx, (const unsigned char *)"0123456789abcdef", 16,
                     params);
    else
        EVP_DigestInit_ex2(t->md_ctx, t->md, params);
}

static void target_update(target *t, const unsigned char *in, size_t len)
{
    if (t->mac != NULL)
        EVP_MAC_update(t->mac_ctx, in, len);
    else
        EVP_DigestUpdate(t->md_ctx, in, len);
}

static void target_final(target *t)
{
    unsigned char out[32];
    size_t outl;

    if (t->mac != NULL)
        EVP_MAC_final(t->mac_ctx, out, &outl, sizeof out);
    else if (EVP_MD_get_flags(t->md) & EVP_MD_FLAG_XOF)
        EVP_DigestFinalXOF(t->md_ctx, out, 32);
    else
        EVP_DigestFinal_ex(t->md_ctx, out, NULL);
}

static void run_once(target *t, const unsigned char *in, size_t len)
{
    target_init(t, NULL);
    target_update(t, in, len);
    target_final(t);
}

/* Best ns/byte over rounds of enough repetitions to take ~20 ms each. */
static double measure(OSSL_LIB_CTX *lib, const char *alg, const char *props,
                      const unsigned char *in, size_t len)
{
    size_t reps = 1 + (size_t)(4 << 20) / len;
    double best = 1e30;
    target t;

    target_open(&t, lib, alg, props);
    for (int round = 0; round < 7; round++) {
        double t0 = now();
        for (size_t r = 0; r < reps; r++)
            run_once(&t, in, len);
        double ns = (now() - t0) * 1e9 / ((double)reps * (double)len);
        if (ns < best)
            best = ns;
    }
    target_close(&t);
    return best;
}

/* Four messages of len bytes (distinct parts of in), fed in turns of up
 * to 64 KiB, then their finals; in one group when batched. */
static void run_four(target t[4], const unsigned char *in, size_t len,
                     int batched)
{
    uint64_t id = 1;
    OSSL_PARAM params[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_BATCH, &id),
                           OSSL_PARAM_construct_end()};

    for (int j = 0; j < 4; j++)
        target_init(&t[j], batched ? params : NULL);
    for (size_t done = 0; done < len; done += 65536) {
        size_t take = len - done < 65536 ? len - done : 65536;
        for (int j = 0; j < 4; j++)
            target_update(&t[j], in + j * len + done, take);
    }
    for (int j = 0; j < 4; j++)
        target_final(&t[j]);
}

static double measure_four(OSSL_LIB_CTX *lib, const char *alg,
                           const unsigned char *in, size_t len, int batched)
{
    size_t reps = 1 + (size_t)(16 << 20) / (4 * len);
    double best = 1e30;
    target t[4];

    for (int j = 0; j < 4; j++)
        target_open(&t[j], lib, alg, "provider=ksumprov");
    for (int round = 0; round < 7; round++) {
        double t0 = now();
        for (size_t r = 0; r < reps; r++)
            run_four(t, in, len, batched);
        double ns = (now() - t0) * 1e9 / ((double)reps * 4 * (double)len);
        if (ns < best)
            best = ns;
    }
    for (int j = 0; j < 4; j++)
        target_close(&t[j]);
    return best;
}

static void batch_table(OSSL_LIB_CTX *lib, const char *const algs[],
                        const unsigned char *in)
{
    static const size_t sizes[] = {4096, 65536, 4 << 20};

    printf("\n| algorithm | 4 messages of | one at a time ns/B | batched ns/B "
           "| speed-up |\n|---|---|---|---|---|\n");
    for (int a = 0; a < 3; a++)
        for (int s = 0; s < 3; s++) {
            double alone = measure_four(lib, algs[a], in, sizes[s], 0);
            double batched = measure_four(lib, algs[a], in, sizes[s], 1);
            printf("| %s | %zu B | %.2f | %.2f | %.2fx |\n", algs[a], sizes[s],
                   alone, batched, alone / batched);
        }
}

int main(int argc, char **argv)
{
    int only_batch = argc > 1 && strcmp(argv[1], "--batch") == 0;
    static const char *const algs[] = {"SHA3-256", "SHAKE128", "KMAC128"};
    static const size_t sizes[] = {64, 1024, 65536, 16 << 20};
    OSSL_LIB_CTX *lib = OSSL_LIB_CTX_new();
    unsigned char *in = malloc(16 << 20);

    memset(in, 0xA5, 16 << 20);
    OSSL_PROVIDER_add_builtin(lib, KSUMPROV_NAME, ksumprov_init);
    if (OSSL_PROVIDER_load(lib, KSUMPROV_NAME) == NULL ||
        OSSL_PROVIDER_load(lib, "default") == NULL) {
        fprintf(stderr, "cannot load the providers\n");
        return 1;
    }
    if (only_batch) {
        batch_table(lib, algs, in);
        goto done;
    }
    printf("| algorithm | input | default ns/B | ksumprov ns/B | ratio |\n"
           "|---|---|---|---|---|\n");
    for (int a = 0; a < 3; a++)
        for (int s = 0; s < 4; s++) {
            double theirs = measure(lib, algs[a], "provider=default", in, sizes[s]);
            double ours = measure(lib, algs[a], "provider=ksumprov", in, sizes[s]);
            printf("| %s | %zu B | %.2f | %.2f | %.2fx |\n", algs[a], sizes[s],
                   theirs, ours, theirs / ours);
        }
    batch_table(lib, algs, in);
done:
    free(in);
    OSSL_LIB_CTX_free(lib);
    return 0;
}
