/* SPDX-License-Identifier: Apache-2.0 */
/*
 * EVP_MAC dispatch for KMAC128 and KMAC256 over the generic context, with
 * OpenSSL's KMAC parameters.  Unlike OpenSSL's KMAC, any key length is
 * accepted, the empty key too, as SP 800-185 allows.  Settings (the key
 * among them) persist across inits, as in OpenSSL.
 */
#include <openssl/core_names.h>
#include <openssl/params.h>

#include "kmac.h"

#include "context.h"

static OSSL_FUNC_mac_dupctx_fn mac_dup;
static OSSL_FUNC_mac_freectx_fn mac_free;
static OSSL_FUNC_mac_init_fn mac_init;
static OSSL_FUNC_mac_update_fn mac_update;
static OSSL_FUNC_mac_final_fn mac_final;
static OSSL_FUNC_mac_set_ctx_params_fn mac_set_ctx_params;
static OSSL_FUNC_mac_get_ctx_params_fn mac_get_ctx_params;
static OSSL_FUNC_mac_gettable_params_fn mac_gettable_params;

static void *mac_dup(void *ctx)
{
    return ksum_ctx_dup(ctx);
}

static void mac_free(void *ctx)
{
    ksum_ctx_free(ctx);
}

static int mac_init(void *ctx, const unsigned char *key, size_t keylen,
                    const OSSL_PARAM params[])
{
    OSSL_PARAM key_param[] = {
        OSSL_PARAM_octet_string(OSSL_MAC_PARAM_KEY, (void *)key, keylen),
        OSSL_PARAM_END};

    if (!ksum_ctx_init(ctx, 0, params))
        return 0;
    if ((key != NULL && !ksum_ctx_set_params(ctx, key_param)) || !ksum_ctx_require_key(ctx))
        return ksum_ctx_init_failed(ctx);
    return 1;
}

static int mac_update(void *ctx, const unsigned char *in, size_t len)
{
    return ksum_ctx_update(ctx, in, len);
}

static int mac_final(void *ctx, unsigned char *out, size_t *outl, size_t outsz)
{
    return ksum_ctx_final(ctx, out, outl, outsz);
}

static int mac_set_ctx_params(void *ctx, const OSSL_PARAM params[])
{
    return ksum_ctx_set_params(ctx, params);
}

static int mac_get_ctx_params(void *ctx, OSSL_PARAM params[])
{
    return ksum_ctx_get_params(ctx, params);
}

/* The algorithm's own parameters: ksumprov's native default size. */
static int mac_get_params(OSSL_PARAM params[], const ksum_alg *alg)
{
    OSSL_PARAM *p = OSSL_PARAM_locate(params, KSUM_PARAM_DEFAULT_SIZE);

    return p == NULL || OSSL_PARAM_set_size_t(p, alg->mode->outlen);
}

static const OSSL_PARAM gettable_params[] = {
    OSSL_PARAM_size_t(KSUM_PARAM_DEFAULT_SIZE, NULL),
    OSSL_PARAM_END
};

static const OSSL_PARAM *mac_gettable_params(void *provctx)
{
    (void)provctx;
    return gettable_params;
}

#define MAC_FUNCTIONS(id, names, description, ...)                            \
    KSUM_ROW_FUNCTIONS(mac, id)                                               \
    static OSSL_FUNC_mac_get_params_fn id##_get_params;                       \
    static int id##_get_params(OSSL_PARAM params[])                           \
    {                                                                         \
        return mac_get_params(params, &ksum_algs[KSUM_ALG_##id]);             \
    }                                                                         \
    static const OSSL_DISPATCH id##_functions[] = {                           \
        {OSSL_FUNC_MAC_NEWCTX, (void (*)(void))id##_new},                     \
        {OSSL_FUNC_MAC_DUPCTX, (void (*)(void))mac_dup},                      \
        {OSSL_FUNC_MAC_FREECTX, (void (*)(void))mac_free},                    \
        {OSSL_FUNC_MAC_INIT, (void (*)(void))mac_init},                       \
        {OSSL_FUNC_MAC_UPDATE, (void (*)(void))mac_update},                   \
        {OSSL_FUNC_MAC_FINAL, (void (*)(void))mac_final},                     \
        {OSSL_FUNC_MAC_GET_PARAMS, (void (*)(void))id##_get_params},          \
        {OSSL_FUNC_MAC_GETTABLE_PARAMS, (void (*)(void))mac_gettable_params}, \
        {OSSL_FUNC_MAC_GET_CTX_PARAMS, (void (*)(void))mac_get_ctx_params},   \
        {OSSL_FUNC_MAC_GETTABLE_CTX_PARAMS, (void (*)(void))id##_gettable},   \
        {OSSL_FUNC_MAC_SET_CTX_PARAMS, (void (*)(void))mac_set_ctx_params},   \
        {OSSL_FUNC_MAC_SETTABLE_CTX_PARAMS, (void (*)(void))id##_settable},   \
        {0, NULL}};

KSUM_MACS(MAC_FUNCTIONS)

#define ALGORITHM(id, names, description, ...) \
    {names, "provider=" KSUMPROV_NAME, id##_functions, description},

const OSSL_ALGORITHM ksum_macs[] = {
    KSUM_MACS(ALGORITHM)
    {NULL, NULL, NULL, NULL},
};
