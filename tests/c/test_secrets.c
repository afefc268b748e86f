/* SPDX-License-Identifier: Apache-2.0 */
/*
 * KMAC keys do not outlive their contexts: OpenSSL's allocator is replaced
 * by one that, on every free, looks for the key in the block being freed.
 * A block still holding the key when it is freed was not wiped.
 */
#include <stdint.h>

#include "testutil.h"

static const uint8_t key[32] = "ksum-test-key:wipe-me-0123456789";
static int unwiped;

/* Each block carries its size in front, so that free can scan it. */
static void *counting_malloc(size_t n, const char *file, int line)
{
    size_t *p = malloc(n + sizeof(size_t) * 2);
    (void)file, (void)line;
    if (p == NULL)
        return NULL;
    p[0] = n;
    return p + 2;
}

static int holds_key(const uint8_t *buf, size_t n)
{
    for (size_t i = 0; i + sizeof key <= n; i++)
        if (buf[i] == key[0] && memcmp(buf + i, key, sizeof key) == 0)
            return 1;
    return 0;
}

static void scanning_free(void *ptr, const char *file, int line)
{
    size_t *p = ptr;
    (void)file, (void)line;
    if (p == NULL)
        return;
    if (holds_key(ptr, p[-2]))
        unwiped++;
    free(p - 2);
}

static void *counting_realloc(void *ptr, size_t n, const char *file, int line)
{
    void *fresh = counting_malloc(n, file, line);
    if (fresh != NULL && ptr != NULL) {
        size_t old = ((size_t *)ptr)[-2];
        memcpy(fresh, ptr, old < n ? old : n);
        scanning_free(ptr, file, line);
    }
    return fresh;
}

int main(void)
{
    if (!CRYPTO_set_mem_functions(counting_malloc, counting_realloc, scanning_free)) {
        fprintf(stderr, "cannot replace OpenSSL's allocator\n");
        return 2;
    }
    OSSL_LIB_CTX *lib = test_libctx(0);
    EVP_MAC *mac = EVP_MAC_fetch(lib, "KMAC256", "provider=ksumprov");
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac), *copy;
    uint8_t out[64];
    size_t outl;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY, (void *)key,
                                                        sizeof key),
                      OSSL_PARAM_construct_end()};

    CHECK(EVP_MAC_init(ctx, key, sizeof key, NULL) &&
              EVP_MAC_update(ctx, (const uint8_t *)"abc", 3),
          "KMAC init");
    copy = EVP_MAC_CTX_dup(ctx);
    CHECK(copy != NULL && EVP_MAC_final(copy, out, &outl, sizeof out), "dup and final");
    CHECK(EVP_MAC_CTX_set_params(ctx, p) == 0, "key set after data must fail");
    ERR_clear_error();
    CHECK(EVP_MAC_init(ctx, key, sizeof key, p), "key replaced by init");
    EVP_MAC_CTX_free(copy);
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    test_libctx_free(lib);
    CHECK(unwiped == 0, "%d freed blocks still held the KMAC key", unwiped);
    return test_summary("test_secrets");
}
