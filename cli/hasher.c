/* SPDX-License-Identifier: Apache-2.0 */
#include "hasher.h"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <stdio.h>
#include <string.h>

#include "ksumprov.h"
#include "output.h"

#define PROPS "provider=" KSUMPROV_NAME

static const char empty[1] = "";

/* The parameters the options give this algorithm. */
static void build_params(hasher *h)
{
    const options *o = h->opts;
    unsigned t = h->alg->takes;
    OSSL_PARAM *p = h->params;

    if (t & TAKES_CUSTOM)
        *p++ = OSSL_PARAM_construct_octet_string(
            KSUM_PARAM_CUSTOM, (void *)(o->custom ? o->custom : empty),
            o->custom ? strlen(o->custom) : 0);
    if (t & TAKES_FUNCTION)
        *p++ = OSSL_PARAM_construct_octet_string(
            KSUM_PARAM_FUNCTION_NAME, (void *)(o->function ? o->function : empty),
            o->function ? strlen(o->function) : 0);
    if (t & TAKES_BLOCK)
        *p++ = OSSL_PARAM_construct_size_t(KSUM_PARAM_BLOCK_SIZE, &h->block_size);
    if (t & TAKES_DOMAIN)
        *p++ = OSSL_PARAM_construct_uint(KSUM_PARAM_DOMAIN, &h->domain);
    if (t & TAKES_XOF)
        *p++ = OSSL_PARAM_construct_int(KSUM_PARAM_XOF, &h->xof);
    if (t & TREE)
        *p++ = OSSL_PARAM_construct_uint(KSUM_PARAM_THREADS, &h->threads);
    if (h->alg->is_mac) {
        *p++ = OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &h->size);
        *p++ = OSSL_PARAM_construct_octet_string(
            OSSL_MAC_PARAM_KEY, o->key ? (void *)o->key : (void *)empty,
            o->key ? o->key_len : 0);
    } else if (t & TAKES_SIZE) {
        *p++ = OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_XOFLEN, &h->size);
    }
    *p = OSSL_PARAM_construct_end();
}

static int fetch_failed(const algorithm *alg)
{
    char why[512];

    openssl_reason(why, sizeof why);
    fprintf(message_stream(), "ksum: %s: cannot fetch from ksumprov: %s\n",
            alg->name, why);
    return 0;
}

size_t hasher_output_size(const algorithm *alg, const options *o)
{
    return (alg->takes & TAKES_SIZE) && o->size ? o->size : alg->default_size;
}

int hasher_open(hasher *h, OSSL_LIB_CTX *lib, const algorithm *alg,
                const options *o)
{
    memset(h, 0, sizeof *h);
    h->alg = alg;
    h->opts = o;
    h->size = hasher_output_size(alg, o);
    h->block_size = o->block_size ? o->block_size : 8192;
    h->domain = o->domain ? o->domain : 0x1F;
    h->xof = o->xof;
    h->threads = o->threads;
    build_params(h);
    if (alg->is_mac) {
        h->mac = EVP_MAC_fetch(lib, alg->name, PROPS);
        h->mac_ctx = h->mac ? EVP_MAC_CTX_new(h->mac) : NULL;
        return h->mac_ctx != NULL || fetch_failed(alg);
    }
    h->md = EVP_MD_fetch(lib, alg->name, PROPS);
    h->md_ctx = h->md ? EVP_MD_CTX_new() : NULL;
    return h->md_ctx != NULL || fetch_failed(alg);
}

void hasher_close(hasher *h)
{
    EVP_MAC_CTX_free(h->mac_ctx);
    EVP_MAC_free(h->mac);
    EVP_MD_CTX_free(h->md_ctx);
    EVP_MD_free(h->md);
}

int hasher_begin(hasher *h)
{
    if (h->mac)
        return EVP_MAC_init(h->mac_ctx, NULL, 0, h->params);
    return EVP_DigestInit_ex2(h->md_ctx, h->md, h->params);
}

int hasher_update(hasher *h, const uint8_t *in, size_t len)
{
    if (h->mac)
        return EVP_MAC_update(h->mac_ctx, in, len);
    return EVP_DigestUpdate(h->md_ctx, in, len);
}

int hasher_end(hasher *h, uint8_t *out)
{
    size_t outl;
    unsigned int n;

    if (h->mac)
        return EVP_MAC_final(h->mac_ctx, out, &outl, h->size);
    if (h->alg->takes & TAKES_SIZE)
        return EVP_DigestFinalXOF(h->md_ctx, out, h->size);
    return EVP_DigestFinal_ex(h->md_ctx, out, &n);
}

int hasher_squeeze(hasher *h, uint8_t *out, size_t len)
{
    OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_SQUEEZE, out, len),
                      OSSL_PARAM_END};

    if (h->mac)
        return EVP_MAC_CTX_get_params(h->mac_ctx, p);
    return EVP_MD_CTX_get_params(h->md_ctx, p);
}

int hasher_backend(OSSL_LIB_CTX *lib, char *name, size_t size)
{
    EVP_MD *md = EVP_MD_fetch(lib, DEFAULT_ALGORITHM->name, PROPS);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    const char *chosen = NULL;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_utf8_ptr(KSUM_PARAM_BACKEND,
                                                    (char **)&chosen, 0),
                      OSSL_PARAM_END};
    int ok = md != NULL && ctx != NULL && EVP_DigestInit_ex2(ctx, md, NULL) &&
             EVP_MD_CTX_get_params(ctx, p) && chosen != NULL &&
             strlen(chosen) < size;

    if (ok)
        strcpy(name, chosen);
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    ERR_clear_error();
    return ok;
}
