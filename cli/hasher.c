/* SPDX-License-Identifier: Apache-2.0 */
#include "hasher.h"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksumprov.h"
#include "messages.h"

#define PROPS "provider=" KSUMPROV_NAME

static const char empty[1] = "";

static OSSL_PARAM text_param(const char *key, const char *text)
{
    return OSSL_PARAM_construct_octet_string(key, (void *)text, strlen(text));
}

/* The parameters of what the user gave, and the two that ksum always
 * sends: the output length (ksum's default may not be the running
 * OpenSSL's) and KMAC's key (empty by default; OpenSSL's KMAC has none). */
static void build_params(hasher *h)
{
    const options *o = h->opts;
    unsigned t = h->facts.takes &
                 (o->given | TAKES_SIZE | TAKES_KEY | TAKES_THREADS | TAKES_BATCH);
    OSSL_PARAM *p = h->params;

    if (t & TAKES_CUSTOM)
        *p++ = text_param(KSUM_PARAM_CUSTOM, o->custom);
    if (t & TAKES_FUNCTION)
        *p++ = text_param(KSUM_PARAM_FUNCTION_NAME, o->function);
    if (t & TAKES_BLOCK)
        *p++ = OSSL_PARAM_construct_size_t(KSUM_PARAM_BLOCK_SIZE, (size_t *)&o->block_size);
    if (t & TAKES_DOMAIN)
        *p++ = OSSL_PARAM_construct_uint(KSUM_PARAM_DOMAIN, (unsigned *)&o->domain);
    if (t & TAKES_XOF)
        *p++ = OSSL_PARAM_construct_int(KSUM_PARAM_XOF, (int *)&o->xof);
    if ((t & TAKES_THREADS) && o->threads != 0)
        *p++ = OSSL_PARAM_construct_uint(KSUM_PARAM_THREADS, (unsigned *)&o->threads);
    if (t & TAKES_KEY)
        *p++ = OSSL_PARAM_construct_octet_string(
            OSSL_MAC_PARAM_KEY, o->key ? (void *)o->key : (void *)empty,
            o->key ? o->key_len : 0);
    if ((t & TAKES_BATCH) && h->batch != 0)
        *p++ = OSSL_PARAM_construct_uint64(KSUM_PARAM_BATCH, &h->batch);
    /* "size" is the MAC's name, "xoflen" the digests' */
    if (t & TAKES_SIZE)
        *p++ = OSSL_PARAM_construct_size_t(h->mac ? OSSL_MAC_PARAM_SIZE
                                                  : OSSL_DIGEST_PARAM_XOFLEN,
                                           &h->size);
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

size_t hasher_output_size(const algorithm_facts *f, const options *o)
{
    return (f->takes & TAKES_SIZE) && o->size ? o->size : f->default_size;
}

int hasher_open(hasher *h, OSSL_LIB_CTX *lib, const algorithm *alg,
                const options *o)
{
    memset(h, 0, sizeof *h);
    h->alg = alg;
    h->opts = o;
    if (alg->is_mac) {
        h->mac = EVP_MAC_fetch(lib, alg->name, PROPS);
        h->mac_ctx = h->mac ? EVP_MAC_CTX_new(h->mac) : NULL;
        if (h->mac_ctx == NULL)
            return fetch_failed(alg);
    } else {
        h->md = EVP_MD_fetch(lib, alg->name, PROPS);
        h->md_ctx = h->md ? EVP_MD_CTX_new() : NULL;
        if (h->md_ctx == NULL)
            return fetch_failed(alg);
    }
    algorithm_facts_of(h->md, h->mac, &h->facts);
    h->size = hasher_output_size(&h->facts, o);
    build_params(h);
    return 1;
}

int hasher_try(OSSL_LIB_CTX *lib, const algorithm *alg, const options *o,
               unsigned given, char *why, size_t size)
{
    options only = *o;
    hasher h;
    int ok;

    only.given &= given;
    if (!hasher_open(&h, lib, alg, &only)) {
        snprintf(why, size, "cannot fetch it");
        return 0;
    }
    ok = hasher_begin(&h);
    if (!ok)
        openssl_reason(why, size);
    hasher_close(&h);
    return ok;
}

void hasher_close(hasher *h)
{
    EVP_MAC_CTX_free(h->mac_ctx);
    EVP_MAC_free(h->mac);
    EVP_MD_CTX_free(h->md_ctx);
    EVP_MD_free(h->md);
}

int hasher_set_open(hasher_set *s, OSSL_LIB_CTX *lib, const options *o)
{
    memset(s, 0, sizeof *s);
    for (; s->n < o->nalgs; s->n++) {
        hasher *h = &s->hs[s->n];
        if (!hasher_open(h, lib, o->algs[s->n], o)) {
            hasher_close(h);
            return 0;
        }
        if (hasher_streams(h))
            continue;
        s->sum_bytes += h->size;
        if ((s->sums[s->n] = malloc(h->size)) == NULL) {
            hasher_close(h);
            fprintf(message_stream(), "ksum: out of memory\n");
            return 0;
        }
    }
    return 1;
}

void hasher_set_close(hasher_set *s)
{
    for (size_t k = 0; k < s->n; k++) {
        free(s->sums[k]);
        hasher_close(&s->hs[k]);
    }
    s->n = 0;
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
    if (h->facts.takes & TAKES_SIZE)
        return EVP_DigestFinalXOF(h->md_ctx, out, h->size);
    return EVP_DigestFinal_ex(h->md_ctx, out, &n);
}

int hasher_announce(hasher *h, uint64_t len)
{
    OSSL_PARAM p[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_ELEMENT_LENGTH, &len),
                      OSSL_PARAM_END};

    return EVP_MD_CTX_set_params(h->md_ctx, p);
}

int hasher_squeeze(hasher *h, uint8_t *out, size_t len)
{
    OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_SQUEEZE, out, len),
                      OSSL_PARAM_END};

    if (h->mac)
        return EVP_MAC_CTX_get_params(h->mac_ctx, p);
    return EVP_MD_CTX_get_params(h->md_ctx, p);
}

void hasher_join(hasher *h, uint64_t id)
{
    h->batch = id;
    build_params(h);
}

/* The name a context's "backend" points to, copied into name. */
static int copy_backend(const char *chosen, char *name, size_t size)
{
    if (chosen == NULL || strlen(chosen) >= size)
        return 0;
    strcpy(name, chosen);
    return 1;
}

unsigned hasher_lanes(hasher *h)
{
    unsigned lanes = 0;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_uint(KSUM_PARAM_LANES, &lanes), OSSL_PARAM_END};
    int ok = h->mac ? EVP_MAC_CTX_get_params(h->mac_ctx, p)
                    : EVP_MD_CTX_get_params(h->md_ctx, p);

    ERR_clear_error();
    return ok ? lanes : 0;
}

int hasher_backend(OSSL_LIB_CTX *lib, char *name, size_t size)
{
    EVP_MD *md = EVP_MD_fetch(lib, algorithm_default()->name, PROPS);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    const char *chosen = NULL;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_utf8_ptr(KSUM_PARAM_BACKEND,
                                                    (char **)&chosen, 0),
                      OSSL_PARAM_END};
    int ok = md != NULL && ctx != NULL && EVP_DigestInit_ex2(ctx, md, NULL) &&
             EVP_MD_CTX_get_params(ctx, p) && copy_backend(chosen, name, size);

    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    ERR_clear_error();
    return ok;
}
