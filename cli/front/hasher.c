/* SPDX-License-Identifier: Apache-2.0 */
#include "front/hasher.h"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/messages.h"
#include "ksumprov.h"

#define PROPS "provider=" KSUMPROV_NAME

static const char empty[1] = "";

/* A parameter option's value, as its row says it is sent; a number is
 * copied into the hasher. */
static OSSL_PARAM param_of(hasher *h, const option_row *row)
{
    size_t i = TAKES_PARAM_INDEX(row->takes);
    const param_value *v = &h->spec->param[i];

    if (row->type == PARAM_COUNT) {
        h->sent.values[i].count = v->number;
        return OSSL_PARAM_construct_size_t(row->param, &h->sent.values[i].count);
    }
    if (row->type == PARAM_BYTE) {
        h->sent.values[i].byte = (unsigned)v->number;
        return OSSL_PARAM_construct_uint(row->param, &h->sent.values[i].byte);
    }
    return OSSL_PARAM_construct_octet_string(row->param, (void *)v->text, strlen(v->text));
}

/* What a begin sends, built again whenever it changes: the parameters of
 * what the user gave, and the two that ksum always sends: the output
 * length (ksum's default may not be the running OpenSSL's) and KMAC's key
 * (empty by default; OpenSSL's KMAC has none).  The numbers are h's, the
 * bytes spec's, which nothing changes once it is built. */
static void build_params(hasher *h)
{
    unsigned t = h->facts.takes & (h->given | TAKES_SIZE | TAKES_KEY | TAKES_THREADS);
    const hash_spec *spec = h->spec;
    OSSL_PARAM *p = h->sent.p;

    for (size_t i = 0; i < option_row_count; i++)
        if (option_rows[i].param != NULL && (t & option_rows[i].takes))
            *p++ = param_of(h, &option_rows[i]);
    if (t & TAKES_XOF)
        *p++ = OSSL_PARAM_construct_int(KSUM_PARAM_XOF, &h->xof);
    if ((t & TAKES_THREADS) && h->threads_set)
        *p++ = OSSL_PARAM_construct_uint(KSUM_PARAM_THREADS, &h->threads);
    if (t & TAKES_KEY)
        *p++ = OSSL_PARAM_construct_octet_string(
            OSSL_MAC_PARAM_KEY, spec->key ? (void *)spec->key : (void *)empty, spec->key_len);
    /* "size" is the MAC's name, "xoflen" the digests' */
    if (t & TAKES_SIZE)
        *p++ = OSSL_PARAM_construct_size_t(h->mac ? OSSL_MAC_PARAM_SIZE
                                                  : OSSL_DIGEST_PARAM_XOFLEN, &h->size);
    if ((h->facts.takes & TAKES_BATCH) && h->batch != 0)
        *p++ = OSSL_PARAM_construct_uint64(KSUM_PARAM_BATCH, &h->batch);
    *p = OSSL_PARAM_construct_end();
}

/* The parameter options', four that build_params sends besides, a batch
 * id and the end. */
_Static_assert(HASHER_PARAMS_MAX >= OPTIONS_PARAMS_MAX + 5, "room for every parameter");

const char *hash_spec_text(const hash_spec *spec, const char *param)
{
    for (size_t i = 0; i < option_row_count; i++) {
        const option_row *r = &option_rows[i];
        if (r->param != NULL && strcmp(r->param, param) == 0 && (spec->given & r->takes))
            return spec->param[TAKES_PARAM_INDEX(r->takes)].text;
    }
    return NULL;
}

/* The provider registered alg, so a fetch that fails with no reason
 * queued ran out of memory. */
static int fetch_failed(const algorithm *alg)
{
    char why[512];

    if (openssl_memory_failure(why, sizeof why))
        return message_fail("%s: out of memory", alg->name);
    return message_fail("%s: cannot fetch from ksumprov: %s", alg->name, why);
}

/* The parameters that the options besides the parameter options send,
 * and those ksum sends of itself. */
static const struct {
    const char *key;
    unsigned bit;
} parameters[] = {
    {OSSL_DIGEST_PARAM_XOFLEN, TAKES_SIZE},   {OSSL_MAC_PARAM_SIZE, TAKES_SIZE},
    {KSUM_PARAM_XOF, TAKES_XOF},              {OSSL_MAC_PARAM_KEY, TAKES_KEY},
    {KSUM_PARAM_THREADS, TAKES_THREADS},      {KSUM_PARAM_ELEMENT_LENGTH, TAKES_ELEMENTS},
    {KSUM_PARAM_BATCH, TAKES_BATCH},
};

/* What an algorithm takes, from its settable parameters: those above, and
 * the parameter options' (option_rows). */
static unsigned takes_of(const OSSL_PARAM *settable)
{
    unsigned takes = 0;

    for (size_t i = 0; i < sizeof parameters / sizeof parameters[0]; i++)
        if (OSSL_PARAM_locate_const(settable, parameters[i].key) != NULL)
            takes |= parameters[i].bit;
    for (size_t i = 0; i < option_row_count; i++)
        if (option_rows[i].param != NULL &&
            OSSL_PARAM_locate_const(settable, option_rows[i].param) != NULL)
            takes |= option_rows[i].takes;
    return takes;
}

/* What EVP says of h's fetched EVP_MD or EVP_MAC. */
static void describe(hasher *h)
{
    algorithm_facts *f = &h->facts;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t(KSUM_PARAM_DEFAULT_SIZE,
                                                  &f->default_size),
                      OSSL_PARAM_END};

    if (h->mac != NULL) {
        f->takes = takes_of(EVP_MAC_settable_ctx_params(h->mac));
        EVP_MAC_get_params(h->mac, p);
        return;
    }
    f->takes = takes_of(EVP_MD_settable_ctx_params(h->md));
    EVP_MD_get_params(h->md, p);
    if (!(f->takes & TAKES_SIZE))
        f->fixed_size = f->default_size = (size_t)EVP_MD_get_size(h->md);
}

size_t hasher_output_size(const algorithm_facts *f, const hash_spec *spec)
{
    return (f->takes & TAKES_SIZE) && spec->size ? spec->size : f->default_size;
}

/* hasher_open, sending the options of the bits given (TAKES_*) only;
 * quiet: a failure to fetch is not printed (a worker thread's). */
static int open_with(hasher *h, OSSL_LIB_CTX *lib, const algorithm *alg,
                     const hash_spec *spec, unsigned given, int quiet)
{
    memset(h, 0, sizeof *h);
    h->alg = alg;
    h->lib = lib;
    if (alg->is_mac) {
        h->mac = EVP_MAC_fetch(lib, alg->name, PROPS);
        h->mac_ctx = h->mac ? EVP_MAC_CTX_new(h->mac) : NULL;
    } else {
        h->md = EVP_MD_fetch(lib, alg->name, PROPS);
        h->md_ctx = h->md ? EVP_MD_CTX_new() : NULL;
    }
    if (h->mac_ctx == NULL && h->md_ctx == NULL) {
        if (!quiet)
            fetch_failed(alg);
        /* A hasher that failed to open holds nothing: closing it again is
         * safe. */
        hasher_close(h);
        memset(h, 0, sizeof *h);
        return 0;
    }
    describe(h);
    h->size = hasher_output_size(&h->facts, spec);
    h->xof = (h->facts.takes & given & TAKES_XOF) && spec->xof;
    h->spec = spec;
    h->given = given;
    h->threads = spec->threads;
    h->threads_set = spec->threads != 0;
    build_params(h);
    return 1;
}

int hasher_open(hasher *h, OSSL_LIB_CTX *lib, const algorithm *alg,
                const hash_spec *spec)
{
    return open_with(h, lib, alg, spec, spec->given, 0);
}

int hasher_open_quiet(hasher *h, OSSL_LIB_CTX *lib, const algorithm *alg,
                      const hash_spec *spec)
{
    return open_with(h, lib, alg, spec, spec->given, 1);
}

int algorithm_describe(OSSL_LIB_CTX *lib, const algorithm *a, algorithm_facts *f)
{
    static const hash_spec none;
    hasher h;

    if (!open_with(&h, lib, a, &none, 0, 0))
        return 0;
    *f = h.facts;
    hasher_close(&h);
    return 1;
}

int hasher_try(OSSL_LIB_CTX *lib, const algorithm *alg, const hash_spec *spec,
               unsigned given, char *why, size_t size)
{
    hasher h;
    int ok;

    if (!open_with(&h, lib, alg, spec, spec->given & given, 0))
        return -1;
    ok = hasher_begin(&h);
    if (!ok && openssl_reason(why, size)) {
        message_fail("%s: out of memory", alg->name);
        ok = -1;
    }
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

int hasher_set_open(hasher_set *s, OSSL_LIB_CTX *lib, const hash_spec *spec,
                    const algorithm *const *algs, size_t n)
{
    memset(s, 0, sizeof *s);
    for (; s->n < n; s->n++) {
        hasher *h = &s->hs[s->n];
        if (!hasher_open(h, lib, algs[s->n], spec))
            return 0;   /* h holds nothing */
        if (hasher_streams(h))
            continue;
        s->sum_bytes += h->size;
        if ((s->sums[s->n] = malloc(h->size)) == NULL) {
            hasher_close(h);
            return message_fail("out of memory");
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
        return EVP_MAC_init(h->mac_ctx, NULL, 0, h->sent.p);
    return EVP_DigestInit_ex2(h->md_ctx, h->md, h->sent.p);
}

int hasher_update(hasher *h, const uint8_t *in, size_t len)
{
    if (h->mac)
        return EVP_MAC_update(h->mac_ctx, in, len);
    return EVP_DigestUpdate(h->md_ctx, in, len);
}

int hasher_end(hasher *h, uint8_t *out)
{
    if (h->mac)
        return EVP_MAC_final(h->mac_ctx, out, NULL, h->size);
    if (h->facts.takes & TAKES_SIZE)
        return EVP_DigestFinalXOF(h->md_ctx, out, h->size);
    return EVP_DigestFinal_ex(h->md_ctx, out, NULL);
}

int hasher_announce(hasher *h, uint64_t len)
{
    OSSL_PARAM p[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_ELEMENT_LENGTH, &len),
                      OSSL_PARAM_END};

    return EVP_MD_CTX_set_params(h->md_ctx, p);
}

/* Reads one parameter of h's context: p0 says which, and where to. */
static int get_param(hasher *h, OSSL_PARAM p0)
{
    OSSL_PARAM p[] = {p0, OSSL_PARAM_END};

    return h->mac ? EVP_MAC_CTX_get_params(h->mac_ctx, p) : EVP_MD_CTX_get_params(h->md_ctx, p);
}

int hasher_squeeze(hasher *h, uint8_t *out, size_t len)
{
    return get_param(h, OSSL_PARAM_construct_octet_string(KSUM_PARAM_SQUEEZE, out, len));
}

void hasher_set_size(hasher *h, size_t size)
{
    h->size = size;
    build_params(h);
}

void hasher_set_threads(hasher *h, unsigned n)
{
    h->threads = n;
    h->threads_set = 1;
    build_params(h);
}

void hasher_join(hasher *h, uint64_t id)
{
    h->batch = id;
    build_params(h);
}

size_t hasher_batch_prefix(hasher *h)
{
    uint64_t prefix = 0;
    int ok = (h->facts.takes & TAKES_BATCH) &&
             get_param(h, OSSL_PARAM_construct_uint64(KSUM_PARAM_BATCH_PREFIX, &prefix));

    if (!ok) {
        ERR_clear_error();   /* a context that batches nothing: not an error */
        return 0;
    }
    return prefix == 0 || prefix > SIZE_MAX ? SIZE_MAX : (size_t)prefix;
}

unsigned hasher_lanes(hasher *h)
{
    unsigned lanes = 0;
    int ok = get_param(h, OSSL_PARAM_construct_uint(KSUM_PARAM_LANES, &lanes));

    if (!ok)
        ERR_clear_error();
    return ok ? lanes : 0;
}

int hasher_backend(OSSL_LIB_CTX *lib, char *name, size_t size, unsigned *lanes)
{
    EVP_MD *md = EVP_MD_fetch(lib, algorithm_default()->name, PROPS);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    const char *chosen = NULL;
    unsigned ignored;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_utf8_ptr(KSUM_PARAM_BACKEND,
                                                    (char **)&chosen, 0),
                      OSSL_PARAM_construct_uint(KSUM_PARAM_LANES,
                                                lanes != NULL ? lanes : &ignored),
                      OSSL_PARAM_END};
    int ok = md != NULL && ctx != NULL && EVP_DigestInit_ex2(ctx, md, NULL) &&
             EVP_MD_CTX_get_params(ctx, p) && chosen != NULL &&
             (size_t)snprintf(name, size, "%s", chosen) < size;

    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    if (!ok)
        ERR_clear_error();
    return ok;
}
