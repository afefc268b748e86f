/* SPDX-License-Identifier: Apache-2.0 */
/*
 * EVP_MAC glue for KMAC128 and KMAC256, with OpenSSL's KMAC parameters.
 * Unlike OpenSSL's KMAC, any key length is accepted, the empty key too, as
 * SP 800-185 allows.  Keys are wiped when replaced or freed.
 */
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include "../modes/sp800_185.h"
#include "prov.h"

enum phase { FRESH, ABSORBING, SQUEEZING, FINISHED };

typedef struct mac_ctx {
    const ksum_provctx *prov;
    unsigned strength;
    enum phase phase;
    int initialized;    /* init succeeded with a key */
    size_t outlen;
    int xof;
    uint8_t *key, *custom;   /* key == NULL: none set yet */
    size_t key_len, custom_len;
    const keccak_backend *be;
    sponge sp;
} mac_ctx;

static void *mac_new(void *provctx, unsigned strength)
{
    mac_ctx *c = OPENSSL_zalloc(sizeof *c);

    if (c == NULL)
        return NULL;
    c->prov = provctx;
    c->strength = strength;
    c->outlen = strength / 4; /* OpenSSL's KMAC default: 2 * strength bits */
    c->be = keccak_backend_active();
    return c;
}

static void *mac128_new(void *provctx) { return mac_new(provctx, 128); }
static void *mac256_new(void *provctx) { return mac_new(provctx, 256); }

static void mac_free(void *vctx)
{
    mac_ctx *c = vctx;

    if (c == NULL)
        return;
    ksum_bytes_free(&c->key, &c->key_len);
    ksum_bytes_free(&c->custom, &c->custom_len);
    OPENSSL_clear_free(c, sizeof *c);
}

static void *mac_dup(void *vctx)
{
    const mac_ctx *src = vctx;
    mac_ctx *c = OPENSSL_malloc(sizeof *c);

    if (c == NULL)
        return NULL;
    *c = *src;
    if (!ksum_bytes_dup(&c->key, src->key, src->key_len) ||
        !ksum_bytes_dup(&c->custom, src->custom, src->custom_len)) {
        OPENSSL_clear_free(c->key, c->key_len);
        OPENSSL_free(c->custom);
        OPENSSL_free(c);
        return NULL;
    }
    return c;
}

static int set_before_data(mac_ctx *c, const OSSL_PARAM *p)
{
    if (c->phase == ABSORBING) {
        KSUM_RAISE(c->prov, KSUM_R_PARAM_AFTER_DATA,
                   "'%s' must be set before any data", p->key);
        return 0;
    }
    return 1;
}

static int mac_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    mac_ctx *c = vctx;
    const OSSL_PARAM *p;

    if (params == NULL)
        return 1;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_KEY)) != NULL &&
        !(set_before_data(c, p) &&
          ksum_param_get_bytes(c->prov, p, &c->key, &c->key_len)))
        return 0;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_CUSTOM)) != NULL &&
        !(set_before_data(c, p) &&
          ksum_param_get_bytes(c->prov, p, &c->custom, &c->custom_len)))
        return 0;
    if ((p = OSSL_PARAM_locate_const(params, KSUM_PARAM_BACKEND)) != NULL &&
        !(set_before_data(c, p) && ksum_param_get_backend(c->prov, p, &c->be)))
        return 0;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_SIZE)) != NULL &&
        !OSSL_PARAM_get_size_t(p, &c->outlen)) {
        KSUM_RAISE(c->prov, KSUM_R_BAD_PARAM_TYPE, "'size' must be an integer");
        return 0;
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_XOF)) != NULL &&
        (!OSSL_PARAM_get_int(p, &c->xof) || (c->xof != 0 && c->xof != 1))) {
        KSUM_RAISE(c->prov, KSUM_R_BAD_PARAM_TYPE, "'xof' must be 0 or 1");
        return 0;
    }
    return 1;
}

static int mac_init(void *vctx, const unsigned char *key, size_t keylen,
                     const OSSL_PARAM params[])
{
    mac_ctx *c = vctx;
    OSSL_PARAM key_param[] = {
        OSSL_PARAM_octet_string(OSSL_MAC_PARAM_KEY, (void *)key, keylen),
        OSSL_PARAM_END};

    c->phase = FRESH;
    c->initialized = 0;
    if (!mac_set_ctx_params(c, params))
        return 0;
    if (key != NULL && !mac_set_ctx_params(c, key_param))
        return 0;
    if (c->key == NULL) {
        KSUM_RAISE(c->prov, KSUM_R_NO_KEY, "set a key (it may be empty)");
        return 0;
    }
    c->initialized = 1;
    return 1;
}

static int ready(mac_ctx *c)
{
    if (!c->initialized) {
        KSUM_RAISE(c->prov, KSUM_R_NOT_INITIALIZED, "KMAC needs init first");
        return 0;
    }
    if (c->phase >= SQUEEZING) {
        KSUM_RAISE(c->prov, KSUM_R_ALREADY_FINISHED, "KMAC already finished");
        return 0;
    }
    if (c->phase == FRESH) {
        kmac_init(&c->sp, c->be, c->strength, c->key, c->key_len, c->custom,
                  c->custom_len);
        c->phase = ABSORBING;
    }
    return 1;
}

static int mac_update(void *vctx, const unsigned char *in, size_t len)
{
    mac_ctx *c = vctx;

    if (!ready(c))
        return 0;
    sponge_absorb(&c->sp, in, len);
    return 1;
}

static int mac_final(void *vctx, unsigned char *out, size_t *outl,
                     size_t outsize)
{
    mac_ctx *c = vctx;

    if (!ready(c))
        return 0;
    if (outsize < c->outlen) {
        KSUM_RAISE(c->prov, KSUM_R_OUTPUT_BUFFER_TOO_SMALL,
                   "need %zu bytes, have %zu", c->outlen, outsize);
        return 0;
    }
    kmac_finish(&c->sp, c->outlen, c->xof);
    sponge_squeeze(&c->sp, out, c->outlen);
    c->phase = FINISHED;
    *outl = c->outlen;
    return 1;
}

/* The next p->data_size bytes of output; see KSUM_PARAM_SQUEEZE. */
static int squeeze_param(mac_ctx *c, OSSL_PARAM *p)
{
    if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == NULL) {
        KSUM_RAISE(c->prov, KSUM_R_BAD_PARAM_TYPE, "'squeeze' needs an octet buffer");
        return 0;
    }
    if (c->phase != SQUEEZING) {
        if (!ready(c))
            return 0;
        kmac_finish(&c->sp, c->outlen, c->xof);
        c->phase = SQUEEZING;
    }
    sponge_squeeze(&c->sp, p->data, p->data_size);
    p->return_size = p->data_size;
    return 1;
}

static int mac_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    mac_ctx *c = vctx;
    OSSL_PARAM *p;

    p = OSSL_PARAM_locate(params, KSUM_PARAM_SQUEEZE);
    if (p != NULL && !squeeze_param(c, p))
        return 0;

    p = OSSL_PARAM_locate(params, OSSL_MAC_PARAM_SIZE);
    if (p != NULL && !OSSL_PARAM_set_size_t(p, c->outlen))
        return 0;
    p = OSSL_PARAM_locate(params, OSSL_MAC_PARAM_BLOCK_SIZE);
    if (p != NULL && !OSSL_PARAM_set_size_t(p, 200 - c->strength / 4))
        return 0;
    p = OSSL_PARAM_locate(params, KSUM_PARAM_BACKEND);
    if (p != NULL && !OSSL_PARAM_set_utf8_ptr(p, c->be->name))
        return 0;
    return 1;
}

static const OSSL_PARAM settable[] = {
    OSSL_PARAM_octet_string(OSSL_MAC_PARAM_KEY, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_MAC_PARAM_CUSTOM, NULL, 0),
    OSSL_PARAM_size_t(OSSL_MAC_PARAM_SIZE, NULL),
    OSSL_PARAM_int(OSSL_MAC_PARAM_XOF, NULL),
    OSSL_PARAM_utf8_string(KSUM_PARAM_BACKEND, NULL, 0),
    OSSL_PARAM_END
};

static const OSSL_PARAM gettable[] = {
    OSSL_PARAM_octet_string(KSUM_PARAM_SQUEEZE, NULL, 0),
    OSSL_PARAM_size_t(OSSL_MAC_PARAM_SIZE, NULL),
    OSSL_PARAM_size_t(OSSL_MAC_PARAM_BLOCK_SIZE, NULL),
    OSSL_PARAM_utf8_string(KSUM_PARAM_BACKEND, NULL, 0),
    OSSL_PARAM_END
};

static const OSSL_PARAM *mac_settable(void *ctx, void *provctx)
{
    (void)ctx, (void)provctx;
    return settable;
}

static const OSSL_PARAM *mac_gettable(void *ctx, void *provctx)
{
    (void)ctx, (void)provctx;
    return gettable;
}

#define MAC_FUNCTIONS(newfn)                                                  \
    {                                                                         \
        {OSSL_FUNC_MAC_NEWCTX, (void (*)(void))newfn},                        \
        {OSSL_FUNC_MAC_DUPCTX, (void (*)(void))mac_dup},                      \
        {OSSL_FUNC_MAC_FREECTX, (void (*)(void))mac_free},                    \
        {OSSL_FUNC_MAC_INIT, (void (*)(void))mac_init},                       \
        {OSSL_FUNC_MAC_UPDATE, (void (*)(void))mac_update},                   \
        {OSSL_FUNC_MAC_FINAL, (void (*)(void))mac_final},                     \
        {OSSL_FUNC_MAC_GET_CTX_PARAMS, (void (*)(void))mac_get_ctx_params},   \
        {OSSL_FUNC_MAC_GETTABLE_CTX_PARAMS, (void (*)(void))mac_gettable},    \
        {OSSL_FUNC_MAC_SET_CTX_PARAMS, (void (*)(void))mac_set_ctx_params},   \
        {OSSL_FUNC_MAC_SETTABLE_CTX_PARAMS, (void (*)(void))mac_settable},    \
        {0, NULL},                                                            \
    }

static const OSSL_DISPATCH kmac128_functions[] = MAC_FUNCTIONS(mac128_new);
static const OSSL_DISPATCH kmac256_functions[] = MAC_FUNCTIONS(mac256_new);

const OSSL_ALGORITHM ksum_macs[] = {
    {"KMAC128:KMAC-128", "provider=ksumprov", kmac128_functions, "KMAC128 (SP 800-185)"},
    {"KMAC256:KMAC-256", "provider=ksumprov", kmac256_functions, "KMAC256 (SP 800-185)"},
    {NULL, NULL, NULL, NULL},
};
