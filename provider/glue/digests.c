/* SPDX-License-Identifier: Apache-2.0 */
/*
 * EVP_MD dispatch: one table per row of KSUM_DIGESTS, all over the generic
 * context.  What differs between algorithms is in their mode description
 * and their row, never in code here.
 */
#include <openssl/core_names.h>
#include <openssl/params.h>

#include "digests.h"

#include "context.h"

#ifndef OSSL_FUNC_DIGEST_SQUEEZE
/* OpenSSL 3.3 and later call it for EVP_DigestSqueeze; older ones ignore
 * a function number they do not know. */
#define OSSL_FUNC_DIGEST_SQUEEZE 14
typedef int(OSSL_FUNC_digest_squeeze_fn)(void *dctx, unsigned char *out,
                                         size_t *outl, size_t outsz);
#endif

static OSSL_FUNC_digest_init_fn digest_init;
static OSSL_FUNC_digest_update_fn digest_update;
static OSSL_FUNC_digest_final_fn digest_final;
static OSSL_FUNC_digest_squeeze_fn digest_squeeze;
static OSSL_FUNC_digest_freectx_fn digest_free;
static OSSL_FUNC_digest_dupctx_fn digest_dup;
static OSSL_FUNC_digest_set_ctx_params_fn digest_set_ctx_params;
static OSSL_FUNC_digest_get_ctx_params_fn digest_get_ctx_params;
static OSSL_FUNC_digest_gettable_params_fn digest_gettable_params;

static int digest_init(void *ctx, const OSSL_PARAM params[])
{
    return ksum_ctx_init(ctx, 1, params);
}

static int digest_update(void *ctx, const unsigned char *in, size_t len)
{
    return ksum_ctx_update(ctx, in, len);
}

static int digest_final(void *ctx, unsigned char *out, size_t *outl,
                        size_t outsz)
{
    return ksum_ctx_final(ctx, out, outl, outsz);
}

static int digest_squeeze(void *ctx, unsigned char *out, size_t *outl,
                          size_t outsz)
{
    if (!ksum_ctx_squeeze(ctx, out, outsz))
        return 0;
    *outl = outsz;
    return 1;
}

static void digest_free(void *ctx)
{
    ksum_ctx_free(ctx);
}

static void *digest_dup(void *ctx)
{
    return ksum_ctx_dup(ctx);
}

static int digest_set_ctx_params(void *ctx, const OSSL_PARAM params[])
{
    return ksum_ctx_set_params(ctx, params);
}

static int digest_get_ctx_params(void *ctx, OSSL_PARAM params[])
{
    return ksum_ctx_get_params(ctx, params);
}

/* The algorithm's own parameters (EVP_MD_get_size and friends). */
static int digest_get_params(OSSL_PARAM params[], const ksum_alg *alg)
{
    size_t outlen = ksum_alg_outlen(alg);
    OSSL_PARAM *p;

    if ((p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_BLOCK_SIZE)) != NULL &&
        !OSSL_PARAM_set_size_t(p, alg->mode->rate))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_SIZE)) != NULL &&
        !OSSL_PARAM_set_size_t(p, outlen == SIZE_MAX ? 0 : outlen))
        return 0;
    if ((p = OSSL_PARAM_locate(params, KSUM_PARAM_DEFAULT_SIZE)) != NULL &&
        !OSSL_PARAM_set_size_t(p, alg->mode->outlen))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_XOF)) != NULL &&
        !OSSL_PARAM_set_int(p, (alg->mode->takes & MODE_OUTLEN) != 0))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_ALGID_ABSENT)) != NULL &&
        !OSSL_PARAM_set_int(p, (alg->flags & ALG_ALGID_ABSENT) != 0))
        return 0;
    return 1;
}

static const OSSL_PARAM gettable_params[] = {
    OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_BLOCK_SIZE, NULL),
    OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_SIZE, NULL),
    OSSL_PARAM_size_t(KSUM_PARAM_DEFAULT_SIZE, NULL),
    OSSL_PARAM_int(OSSL_DIGEST_PARAM_XOF, NULL),
    OSSL_PARAM_int(OSSL_DIGEST_PARAM_ALGID_ABSENT, NULL),
    OSSL_PARAM_END
};

static const OSSL_PARAM *digest_gettable_params(void *provctx)
{
    (void)provctx;
    return gettable_params;
}

/* The functions that need to know their row, then the table. */
#define DIGEST_FUNCTIONS(id, names, description, ...)                         \
    KSUM_ROW_FUNCTIONS(digest, id)                                            \
    static OSSL_FUNC_digest_get_params_fn id##_get_params;                    \
    static int id##_get_params(OSSL_PARAM params[])                           \
    {                                                                         \
        return digest_get_params(params, &ksum_algs[KSUM_ALG_##id]);          \
    }                                                                         \
    static const OSSL_DISPATCH id##_functions[] = {                           \
        {OSSL_FUNC_DIGEST_NEWCTX, (void (*)(void))id##_new},                  \
        {OSSL_FUNC_DIGEST_INIT, (void (*)(void))digest_init},                 \
        {OSSL_FUNC_DIGEST_UPDATE, (void (*)(void))digest_update},             \
        {OSSL_FUNC_DIGEST_FINAL, (void (*)(void))digest_final},               \
        {OSSL_FUNC_DIGEST_SQUEEZE, (void (*)(void))digest_squeeze},           \
        {OSSL_FUNC_DIGEST_FREECTX, (void (*)(void))digest_free},              \
        {OSSL_FUNC_DIGEST_DUPCTX, (void (*)(void))digest_dup},                \
        {OSSL_FUNC_DIGEST_GET_PARAMS, (void (*)(void))id##_get_params},       \
        {OSSL_FUNC_DIGEST_GETTABLE_PARAMS, (void (*)(void))digest_gettable_params}, \
        {OSSL_FUNC_DIGEST_SET_CTX_PARAMS, (void (*)(void))digest_set_ctx_params}, \
        {OSSL_FUNC_DIGEST_SETTABLE_CTX_PARAMS, (void (*)(void))id##_settable}, \
        {OSSL_FUNC_DIGEST_GET_CTX_PARAMS, (void (*)(void))digest_get_ctx_params}, \
        {OSSL_FUNC_DIGEST_GETTABLE_CTX_PARAMS, (void (*)(void))id##_gettable}, \
        {0, NULL}};

KSUM_DIGESTS(DIGEST_FUNCTIONS)

#define ALGORITHM(id, names, description, ...) \
    {names, "provider=" KSUMPROV_NAME, id##_functions, description},

const OSSL_ALGORITHM ksum_digests[] = {
    KSUM_DIGESTS(ALGORITHM)
    {NULL, NULL, NULL, NULL},
};
