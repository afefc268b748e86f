/* SPDX-License-Identifier: Apache-2.0 */
/*
 * EVP_MD glue: one dispatch table per algorithm over a shared context.
 * Parameters may be set until the first byte is absorbed, so the mode's
 * state is built lazily, on the first update or final.
 */
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <stddef.h>
#include <string.h>

#include "../modes/fips202.h"
#include "../modes/kangaroo.h"
#include "../modes/sp800_185.h"
#include "prov.h"

enum kind { SHA3, KECCAK, SHAKE, RAWSHAKE, TURBOSHAKE, CSHAKE, PARALLELHASH,
            KANGAROO };

typedef struct digest_alg {
    enum kind kind;
    unsigned bits;       /* SHA3 and Keccak: the digest bits; else strength */
    size_t outlen;       /* default output bytes */
    const kangaroo_params *tree; /* KANGAROO only */
} digest_alg;

enum phase { FRESH, ABSORBING, SQUEEZING, FINISHED };

typedef struct digest_ctx {
    const digest_alg *alg;
    const ksum_provctx *prov;
    enum phase phase;
    size_t outlen;
    uint8_t *custom, *fname;
    size_t custom_len, fname_len;
    size_t block_size;     /* ParallelHash B */
    int xof_mode;          /* ParallelHashXOF */
    uint8_t domain;        /* TurboSHAKE D */
    unsigned threads;      /* tree modes: 0 = all CPUs */
    worker_pool *pool;     /* tree modes: helper threads, kept across inits */
    const keccak_backend *be;
    union {
        sponge sp;
        parallelhash ph;
        kangaroo kt;
    } u;
} digest_ctx;

static int is_xof(const digest_alg *alg)
{
    return alg->kind != SHA3 && alg->kind != KECCAK;
}

static size_t rate_of(const digest_alg *alg)
{
    /* The capacity is twice the digest bits or the strength. */
    return alg->kind == KANGAROO ? alg->tree->rate : KECCAK_RATE(2 * alg->bits);
}

static void set_defaults(digest_ctx *c)
{
    ksum_bytes_free(&c->custom, &c->custom_len);
    ksum_bytes_free(&c->fname, &c->fname_len);
    c->outlen = c->alg->outlen;
    c->block_size = 8192;
    c->xof_mode = 0;
    c->domain = 0x1F;
    c->threads = 0;
    c->be = keccak_backend_active();
    c->phase = FRESH;
}

static void *digest_new(void *provctx, const digest_alg *alg)
{
    digest_ctx *c = OPENSSL_zalloc(sizeof *c);

    if (c == NULL)
        return NULL;
    c->alg = alg;
    c->prov = provctx;
    set_defaults(c);
    return c;
}

/* The bytes of c that its algorithm can have written: EVP makes and frees
 * a context per message, so wiping the whole union would cost short
 * messages a tenth of their time. */
static size_t used_size(const digest_ctx *c)
{
    size_t mode = c->alg->kind == KANGAROO       ? sizeof c->u.kt
                  : c->alg->kind == PARALLELHASH ? sizeof c->u.ph
                                                 : sizeof c->u.sp;
    return offsetof(digest_ctx, u) + mode;
}

static void digest_free(void *vctx)
{
    digest_ctx *c = vctx;

    if (c == NULL)
        return;
    ksum_bytes_free(&c->custom, &c->custom_len);
    ksum_bytes_free(&c->fname, &c->fname_len);
    worker_pool_free(c->pool);
    OPENSSL_clear_free(c, used_size(c));
}

static tree_leaves *leaves_of(digest_ctx *c)
{
    return c->alg->kind == KANGAROO ? &c->u.kt.leaves : &c->u.ph.leaves;
}

/* Gives a started tree mode its threads.  The pool is made on first use and
 * is never shared between contexts; without one the mode runs on the
 * calling thread alone. */
static void attach_workers(digest_ctx *c)
{
    if (c->phase != ABSORBING ||
        (c->alg->kind != KANGAROO && c->alg->kind != PARALLELHASH))
        return;
    if (c->pool == NULL)
        c->pool = worker_pool_new();
    tree_leaves_set_workers(leaves_of(c), c->pool, c->threads);
}

static void *digest_dup(void *vctx)
{
    const digest_ctx *src = vctx;
    digest_ctx *c = OPENSSL_malloc(sizeof *c);

    if (c == NULL)
        return NULL;
    *c = *src;
    c->pool = NULL;
    attach_workers(c);
    if (!ksum_bytes_dup(&c->custom, src->custom, src->custom_len) ||
        !ksum_bytes_dup(&c->fname, src->fname, src->fname_len)) {
        OPENSSL_free(c->custom);
        OPENSSL_free(c->fname);
        worker_pool_free(c->pool);
        OPENSSL_free(c);
        return NULL;
    }
    return c;
}

/* Builds the mode's state from the parameters now fixed. */
static void start(digest_ctx *c)
{
    const digest_alg *a = c->alg;

    switch (a->kind) {
    case SHA3:
        sha3_init(&c->u.sp, c->be, a->bits);
        break;
    case KECCAK:
        keccak_init(&c->u.sp, c->be, a->bits);
        break;
    case SHAKE:
        shake_init(&c->u.sp, c->be, a->bits);
        break;
    case RAWSHAKE:
        rawshake_init(&c->u.sp, c->be, a->bits);
        break;
    case TURBOSHAKE:
        turboshake_init(&c->u.sp, c->be, a->bits, c->domain);
        break;
    case CSHAKE:
        cshake_init(&c->u.sp, c->be, a->bits, c->fname, c->fname_len, c->custom,
                    c->custom_len);
        break;
    case PARALLELHASH:
        parallelhash_init(&c->u.ph, c->be, a->bits, c->block_size, c->custom,
                          c->custom_len);
        break;
    case KANGAROO:
        kangaroo_init(&c->u.kt, c->be, a->tree);
        break;
    }
    c->phase = ABSORBING;
    attach_workers(c);
}

static int digest_set_ctx_params(void *vctx, const OSSL_PARAM params[]);

static int digest_init(void *vctx, const OSSL_PARAM params[])
{
    digest_ctx *c = vctx;

    set_defaults(c);
    return digest_set_ctx_params(c, params);
}

static int digest_update(void *vctx, const unsigned char *in, size_t len)
{
    digest_ctx *c = vctx;

    if (c->phase >= SQUEEZING) {
        KSUM_RAISE(c->prov, KSUM_R_ALREADY_FINISHED, "update after final");
        return 0;
    }
    if (c->phase == FRESH)
        start(c);
    switch (c->alg->kind) {
    case PARALLELHASH:
        parallelhash_update(&c->u.ph, in, len);
        break;
    case KANGAROO:
        kangaroo_update(&c->u.kt, in, len);
        break;
    default:
        sponge_absorb(&c->u.sp, in, len);
    }
    return 1;
}

/* The sponge the output is squeezed from. */
static sponge *output_sponge(digest_ctx *c)
{
    switch (c->alg->kind) {
    case PARALLELHASH:
        return &c->u.ph.final;
    case KANGAROO:
        return &c->u.kt.final;
    default:
        return &c->u.sp;
    }
}

/* Closes the input: from here on, output is squeezed. */
static sponge *finish(digest_ctx *c)
{
    if (c->phase == FRESH)
        start(c);
    if (c->alg->kind == PARALLELHASH)
        parallelhash_finish(&c->u.ph, c->outlen, c->xof_mode);
    else if (c->alg->kind == KANGAROO)
        kangaroo_finish(&c->u.kt, c->custom, c->custom_len);
    c->phase = SQUEEZING;
    return output_sponge(c);
}

static int digest_final(void *vctx, unsigned char *out, size_t *outl,
                        size_t outsz)
{
    digest_ctx *c = vctx;

    if (c->phase >= SQUEEZING) {
        KSUM_RAISE(c->prov, KSUM_R_ALREADY_FINISHED, "final called twice");
        return 0;
    }
    if (outsz < c->outlen) {
        KSUM_RAISE(c->prov, KSUM_R_OUTPUT_BUFFER_TOO_SMALL,
                   "need %zu bytes, have %zu", c->outlen, outsz);
        return 0;
    }
    sponge_squeeze(finish(c), out, c->outlen);
    c->phase = FINISHED;
    *outl = c->outlen;
    return 1;
}

/* ---- parameters ---- */

static int set_before_data(digest_ctx *c, const OSSL_PARAM *p)
{
    if (c->phase != FRESH) {
        KSUM_RAISE(c->prov, KSUM_R_PARAM_AFTER_DATA,
                   "'%s' must be set before any data", p->key);
        return 0;
    }
    return 1;
}

static int get_size_param(digest_ctx *c, const OSSL_PARAM *p, size_t *v)
{
    if (!OSSL_PARAM_get_size_t(p, v)) {
        KSUM_RAISE(c->prov, KSUM_R_BAD_PARAM_TYPE,
                   "'%s' must be a non-negative integer", p->key);
        return 0;
    }
    return 1;
}

static int set_outlen(digest_ctx *c, const OSSL_PARAM params[])
{
    const char *keys[] = {OSSL_DIGEST_PARAM_XOFLEN, OSSL_DIGEST_PARAM_SIZE};

    for (size_t i = 0; i < 2; i++) {
        const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, keys[i]);
        if (p == NULL)
            continue;
        if (c->phase >= SQUEEZING)
            return set_before_data(c, p);
        if (!get_size_param(c, p, &c->outlen))
            return 0;
    }
    return 1;
}

static int set_custom(digest_ctx *c, const OSSL_PARAM params[])
{
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, KSUM_PARAM_CUSTOM);

    if (p == NULL)
        return 1;
    return set_before_data(c, p) &&
           ksum_param_get_bytes(c->prov, p, &c->custom, &c->custom_len);
}

static int set_fname(digest_ctx *c, const OSSL_PARAM params[])
{
    const OSSL_PARAM *p =
        OSSL_PARAM_locate_const(params, KSUM_PARAM_FUNCTION_NAME);

    if (p == NULL)
        return 1;
    return set_before_data(c, p) &&
           ksum_param_get_bytes(c->prov, p, &c->fname, &c->fname_len);
}

static int set_block_size(digest_ctx *c, const OSSL_PARAM params[])
{
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, KSUM_PARAM_BLOCK_SIZE);
    size_t b;

    if (p == NULL)
        return 1;
    if (!set_before_data(c, p) || !get_size_param(c, p, &b))
        return 0;
    if (b == 0) {
        KSUM_RAISE(c->prov, KSUM_R_BAD_BLOCK_SIZE, "block size must be >= 1");
        return 0;
    }
    c->block_size = b;
    return 1;
}

static int set_xof_mode(digest_ctx *c, const OSSL_PARAM params[])
{
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, KSUM_PARAM_XOF);
    int v;

    if (p == NULL)
        return 1;
    if (c->phase >= SQUEEZING)
        return set_before_data(c, p);
    if (!OSSL_PARAM_get_int(p, &v) || (v != 0 && v != 1)) {
        KSUM_RAISE(c->prov, KSUM_R_BAD_PARAM_TYPE, "'xof' must be 0 or 1");
        return 0;
    }
    c->xof_mode = v;
    return 1;
}

static int set_domain(digest_ctx *c, const OSSL_PARAM params[])
{
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, KSUM_PARAM_DOMAIN);
    unsigned int d;

    if (p == NULL)
        return 1;
    if (!set_before_data(c, p))
        return 0;
    if (!OSSL_PARAM_get_uint(p, &d)) {
        KSUM_RAISE(c->prov, KSUM_R_BAD_PARAM_TYPE, "'domain' must be an integer");
        return 0;
    }
    if (d < 0x01 || d > 0x7F) {
        KSUM_RAISE(c->prov, KSUM_R_BAD_DOMAIN,
                   "domain byte 0x%X is outside 0x01..0x7F", d);
        return 0;
    }
    c->domain = (uint8_t)d;
    return 1;
}

static int set_backend(digest_ctx *c, const OSSL_PARAM params[])
{
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, KSUM_PARAM_BACKEND);

    if (p == NULL)
        return 1;
    return set_before_data(c, p) && ksum_param_get_backend(c->prov, p, &c->be);
}

/* Speed only, so it may change at any time. */
static int set_threads(digest_ctx *c, const OSSL_PARAM params[])
{
    const OSSL_PARAM *p = OSSL_PARAM_locate_const(params, KSUM_PARAM_THREADS);

    if (p == NULL)
        return 1;
    if (!OSSL_PARAM_get_uint(p, &c->threads)) {
        KSUM_RAISE(c->prov, KSUM_R_BAD_PARAM_TYPE, "'threads' must be an integer");
        return 0;
    }
    attach_workers(c);
    return 1;
}

/* Unknown keys are ignored, as OpenSSL's own providers do. */
static int digest_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    digest_ctx *c = vctx;
    enum kind k = c->alg->kind;

    if (params == NULL)
        return 1;
    if (!set_backend(c, params))
        return 0;
    if (is_xof(c->alg) && !set_outlen(c, params))
        return 0;
    if ((k == CSHAKE || k == PARALLELHASH || k == KANGAROO) &&
        !set_custom(c, params))
        return 0;
    if (k == CSHAKE && !set_fname(c, params))
        return 0;
    if (k == PARALLELHASH &&
        (!set_block_size(c, params) || !set_xof_mode(c, params)))
        return 0;
    if ((k == PARALLELHASH || k == KANGAROO) && !set_threads(c, params))
        return 0;
    if (k == TURBOSHAKE && !set_domain(c, params))
        return 0;
    return 1;
}

/* The next p->data_size bytes of output into p's buffer. */
static int squeeze_param(digest_ctx *c, OSSL_PARAM *p)
{
    if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == NULL) {
        KSUM_RAISE(c->prov, KSUM_R_BAD_PARAM_TYPE, "'squeeze' needs an octet buffer");
        return 0;
    }
    if (c->phase == FINISHED) {
        KSUM_RAISE(c->prov, KSUM_R_ALREADY_FINISHED, "squeeze after final");
        return 0;
    }
    sponge_squeeze(c->phase == SQUEEZING ? output_sponge(c) : finish(c), p->data,
                   p->data_size);
    p->return_size = p->data_size;
    return 1;
}

static int digest_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    digest_ctx *c = vctx;
    OSSL_PARAM *p;

    p = OSSL_PARAM_locate(params, KSUM_PARAM_SQUEEZE);
    if (p != NULL && !squeeze_param(c, p))
        return 0;

    p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_XOFLEN);
    if (p != NULL && !OSSL_PARAM_set_size_t(p, c->outlen))
        return 0;
    p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_SIZE);
    if (p != NULL && !OSSL_PARAM_set_size_t(p, c->outlen))
        return 0;
    p = OSSL_PARAM_locate(params, KSUM_PARAM_BACKEND);
    if (p != NULL && !OSSL_PARAM_set_utf8_ptr(p, c->be->name))
        return 0;
    return 1;
}

static int digest_get_params(OSSL_PARAM params[], const digest_alg *alg)
{
    OSSL_PARAM *p;

    p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_BLOCK_SIZE);
    if (p != NULL && !OSSL_PARAM_set_size_t(p, rate_of(alg)))
        return 0;
    p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_SIZE);
    if (p != NULL && !OSSL_PARAM_set_size_t(p, alg->outlen))
        return 0;
    p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_XOF);
    if (p != NULL && !OSSL_PARAM_set_int(p, is_xof(alg)))
        return 0;
    p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_ALGID_ABSENT);
    if (p != NULL && !OSSL_PARAM_set_int(p, 1))
        return 0;
    return 1;
}

static const OSSL_PARAM gettable_params[] = {
    OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_BLOCK_SIZE, NULL),
    OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_SIZE, NULL),
    OSSL_PARAM_int(OSSL_DIGEST_PARAM_XOF, NULL),
    OSSL_PARAM_int(OSSL_DIGEST_PARAM_ALGID_ABSENT, NULL),
    OSSL_PARAM_END
};

static const OSSL_PARAM *digest_gettable_params(void *provctx)
{
    (void)provctx;
    return gettable_params;
}

#define BACKEND_PARAM OSSL_PARAM_utf8_string(KSUM_PARAM_BACKEND, NULL, 0)
#define OUTLEN_PARAMS                                   \
    BACKEND_PARAM,                                      \
    OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, NULL),  \
    OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_SIZE, NULL)

static const OSSL_PARAM no_params[] = {BACKEND_PARAM, OSSL_PARAM_END};
static const OSSL_PARAM readable_params[] = {
    OUTLEN_PARAMS, OSSL_PARAM_octet_string(KSUM_PARAM_SQUEEZE, NULL, 0),
    OSSL_PARAM_END};
static const OSSL_PARAM xof_params[] = {OUTLEN_PARAMS, OSSL_PARAM_END};
static const OSSL_PARAM turboshake_params[] = {
    OUTLEN_PARAMS, OSSL_PARAM_uint(KSUM_PARAM_DOMAIN, NULL), OSSL_PARAM_END};
static const OSSL_PARAM cshake_params[] = {
    OUTLEN_PARAMS, OSSL_PARAM_octet_string(KSUM_PARAM_CUSTOM, NULL, 0),
    OSSL_PARAM_octet_string(KSUM_PARAM_FUNCTION_NAME, NULL, 0), OSSL_PARAM_END};
static const OSSL_PARAM parallelhash_params[] = {
    OUTLEN_PARAMS, OSSL_PARAM_octet_string(KSUM_PARAM_CUSTOM, NULL, 0),
    OSSL_PARAM_size_t(KSUM_PARAM_BLOCK_SIZE, NULL),
    OSSL_PARAM_int(KSUM_PARAM_XOF, NULL),
    OSSL_PARAM_uint(KSUM_PARAM_THREADS, NULL), OSSL_PARAM_END};
static const OSSL_PARAM tree_hash_params[] = {
    OUTLEN_PARAMS, OSSL_PARAM_octet_string(KSUM_PARAM_CUSTOM, NULL, 0),
    OSSL_PARAM_uint(KSUM_PARAM_THREADS, NULL), OSSL_PARAM_END};

static const OSSL_PARAM *settable_for(const digest_alg *alg)
{
    switch (alg->kind) {
    case SHA3:
    case KECCAK:
        return no_params;
    case TURBOSHAKE:
        return turboshake_params;
    case CSHAKE:
        return cshake_params;
    case PARALLELHASH:
        return parallelhash_params;
    case KANGAROO:
        return tree_hash_params;
    default:
        return xof_params;
    }
}

static const OSSL_PARAM *gettable_for(const digest_alg *alg)
{
    (void)alg;
    return readable_params;
}

/* ---- one dispatch table per algorithm ---- */

#define DIGEST(id, kind, bits, outlen, tree)                                   \
    static const digest_alg alg_##id = {kind, bits, outlen, tree};              \
    static void *id##_new(void *provctx) { return digest_new(provctx, &alg_##id); } \
    static int id##_get_params(OSSL_PARAM params[])                            \
    {                                                                          \
        return digest_get_params(params, &alg_##id);                           \
    }                                                                          \
    static const OSSL_PARAM *id##_settable(void *ctx, void *provctx)           \
    {                                                                          \
        (void)ctx, (void)provctx;                                              \
        return settable_for(&alg_##id);                                        \
    }                                                                          \
    static const OSSL_PARAM *id##_gettable(void *ctx, void *provctx)           \
    {                                                                          \
        (void)ctx, (void)provctx;                                              \
        return gettable_for(&alg_##id);                                        \
    }                                                                          \
    static const OSSL_DISPATCH id##_functions[] = {                            \
        {OSSL_FUNC_DIGEST_NEWCTX, (void (*)(void))id##_new},                   \
        {OSSL_FUNC_DIGEST_INIT, (void (*)(void))digest_init},                  \
        {OSSL_FUNC_DIGEST_UPDATE, (void (*)(void))digest_update},              \
        {OSSL_FUNC_DIGEST_FINAL, (void (*)(void))digest_final},                \
        {OSSL_FUNC_DIGEST_FREECTX, (void (*)(void))digest_free},               \
        {OSSL_FUNC_DIGEST_DUPCTX, (void (*)(void))digest_dup},                 \
        {OSSL_FUNC_DIGEST_GET_PARAMS, (void (*)(void))id##_get_params},        \
        {OSSL_FUNC_DIGEST_GETTABLE_PARAMS, (void (*)(void))digest_gettable_params}, \
        {OSSL_FUNC_DIGEST_SET_CTX_PARAMS, (void (*)(void))digest_set_ctx_params}, \
        {OSSL_FUNC_DIGEST_SETTABLE_CTX_PARAMS, (void (*)(void))id##_settable}, \
        {OSSL_FUNC_DIGEST_GET_CTX_PARAMS, (void (*)(void))digest_get_ctx_params}, \
        {OSSL_FUNC_DIGEST_GETTABLE_CTX_PARAMS, (void (*)(void))id##_gettable}, \
        {0, NULL}};

DIGEST(sha3_224, SHA3, 224, 28, NULL)
DIGEST(sha3_256, SHA3, 256, 32, NULL)
DIGEST(sha3_384, SHA3, 384, 48, NULL)
DIGEST(sha3_512, SHA3, 512, 64, NULL)
DIGEST(keccak_224, KECCAK, 224, 28, NULL)
DIGEST(keccak_256, KECCAK, 256, 32, NULL)
DIGEST(keccak_384, KECCAK, 384, 48, NULL)
DIGEST(keccak_512, KECCAK, 512, 64, NULL)
DIGEST(shake128, SHAKE, 128, 16, NULL)
DIGEST(shake256, SHAKE, 256, 32, NULL)
DIGEST(rawshake128, RAWSHAKE, 128, 16, NULL)
DIGEST(rawshake256, RAWSHAKE, 256, 32, NULL)
DIGEST(cshake128, CSHAKE, 128, 16, NULL)
DIGEST(cshake256, CSHAKE, 256, 32, NULL)
DIGEST(turboshake128, TURBOSHAKE, 128, 32, NULL)
DIGEST(turboshake256, TURBOSHAKE, 256, 64, NULL)
DIGEST(parallelhash128, PARALLELHASH, 128, 16, NULL)
DIGEST(parallelhash256, PARALLELHASH, 256, 32, NULL)
DIGEST(kt128, KANGAROO, 128, 16, &kangaroo_kt128)
DIGEST(kt256, KANGAROO, 256, 64, &kangaroo_kt256)
DIGEST(m14, KANGAROO, 256, 32, &kangaroo_m14)

#define PROPS "provider=ksumprov"

const OSSL_ALGORITHM ksum_digests[] = {
    {"SHA3-224:2.16.840.1.101.3.4.2.7", PROPS, sha3_224_functions, "SHA3-224 (FIPS 202)"},
    {"SHA3-256:2.16.840.1.101.3.4.2.8", PROPS, sha3_256_functions, "SHA3-256 (FIPS 202)"},
    {"SHA3-384:2.16.840.1.101.3.4.2.9", PROPS, sha3_384_functions, "SHA3-384 (FIPS 202)"},
    {"SHA3-512:2.16.840.1.101.3.4.2.10", PROPS, sha3_512_functions, "SHA3-512 (FIPS 202)"},
    {"SHAKE128:SHAKE-128:2.16.840.1.101.3.4.2.11", PROPS, shake128_functions, "SHAKE128 (FIPS 202)"},
    {"SHAKE256:SHAKE-256:2.16.840.1.101.3.4.2.12", PROPS, shake256_functions, "SHAKE256 (FIPS 202)"},
    {"RAWSHAKE128", PROPS, rawshake128_functions, "RawSHAKE128 (FIPS 202)"},
    {"RAWSHAKE256", PROPS, rawshake256_functions, "RawSHAKE256 (FIPS 202)"},
    {"KECCAK-224", PROPS, keccak_224_functions, "Keccak-224 (pre-FIPS padding)"},
    {"KECCAK-256", PROPS, keccak_256_functions, "Keccak-256 (pre-FIPS padding)"},
    {"KECCAK-384", PROPS, keccak_384_functions, "Keccak-384 (pre-FIPS padding)"},
    {"KECCAK-512", PROPS, keccak_512_functions, "Keccak-512 (pre-FIPS padding)"},
    {"CSHAKE128", PROPS, cshake128_functions, "cSHAKE128 (SP 800-185)"},
    {"CSHAKE256", PROPS, cshake256_functions, "cSHAKE256 (SP 800-185)"},
    {"PARALLELHASH128", PROPS, parallelhash128_functions, "ParallelHash128 (SP 800-185)"},
    {"PARALLELHASH256", PROPS, parallelhash256_functions, "ParallelHash256 (SP 800-185)"},
    {"KANGAROOTWELVE:KT128:K12", PROPS, kt128_functions, "KangarooTwelve (RFC 9861)"},
    {"KT256", PROPS, kt256_functions, "KT256 (RFC 9861)"},
    {"MARSUPILAMIFOURTEEN:M14", PROPS, m14_functions, "MarsupilamiFourteen"},
    {"TURBOSHAKE128", PROPS, turboshake128_functions, "TurboSHAKE128 (RFC 9861)"},
    {"TURBOSHAKE256", PROPS, turboshake256_functions, "TurboSHAKE256 (RFC 9861)"},
    {NULL, NULL, NULL, NULL},
};
