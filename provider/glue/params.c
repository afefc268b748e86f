/* SPDX-License-Identifier: Apache-2.0 */
/*
 * OSSL_PARAM translation: one table of rules, each a key, the mode
 * parameter it sets (algorithms whose mode does not take it ignore the key),
 * when it may be set, and how it is read.  Upstream OpenSSL's names sit
 * beside ksumprov's own, and strings may be octet or UTF-8 either way.
 */
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <string.h>

#include "../modes/kangaroo.h"
#include "../permutation/keccak_p.h"
#include "settings.h"

_Static_assert(KSUMPROV_MAX_THREADS == 256, "read_threads says so");
_Static_assert(KSUMPROV_BATCH_PENDING == BATCH_PENDING_MAX,
               "ksumprov.h states the bound");
_Static_assert(KSUMPROV_PART_MAX_CHUNKS == KANGAROO_PART_MAX_CVS,
               "ksumprov.h states the bound");

enum when { BEFORE_DATA, BEFORE_OUTPUT, ANY_TIME };

typedef int read_fn(const ksum_provctx *prov, const OSSL_PARAM *p,
                    const settings *cur, settings *next);

typedef struct rule {
    const char *key;
    unsigned takes;         /* the MODE_* bit; 0: every algorithm */
    enum when when;
    read_fn *read;
    unsigned type;          /* as listed by settable_ctx_params */
    int digests_only;       /* a name OpenSSL's KMAC does not have */
} rule;

/* ---- readers ---- */

static int wrong_type(const ksum_provctx *prov, const OSSL_PARAM *p,
                      const char *what)
{
    KSUM_RAISE(prov, KSUM_R_BAD_PARAM_TYPE, "'%s' must be %s", p->key, what);
    return 0;
}

static int out_of_range(const ksum_provctx *prov, const OSSL_PARAM *p,
                        const char *range)
{
    KSUM_RAISE(prov, KSUM_R_OUT_OF_RANGE, "'%s' is out of range (%s)", p->key,
               range);
    return 0;
}

static int is_string(const OSSL_PARAM *p)
{
    return p->data_type == OSSL_PARAM_OCTET_STRING ||
           p->data_type == OSSL_PARAM_UTF8_STRING;
}

/* No data is an error, but for an empty octet string (a UTF-8 string is
 * NUL-terminated: NULL is no string at all). */
static int has_data(const ksum_provctx *prov, const OSSL_PARAM *p)
{
    if (p->data == NULL &&
        (p->data_size > 0 || p->data_type != OSSL_PARAM_OCTET_STRING)) {
        KSUM_RAISE(prov, KSUM_R_NULL_DATA, "'%s' has no data", p->key);
        return 0;
    }
    return 1;
}

/* A string parameter into a buffer of next, replacing an earlier value of
 * this same call (cur's buffer is freed only at commit). */
static int read_string(const ksum_provctx *prov, const OSSL_PARAM *p,
                       const buffer *cur, buffer *next)
{
    uint8_t *copy;

    if (!is_string(p))
        return wrong_type(prov, p, "a string");
    /* One spare byte so that an empty string still gets a buffer. */
    copy = OPENSSL_malloc(p->data_size + 1);
    if (copy == NULL) {
        KSUM_RAISE(prov, KSUM_R_ALLOC, "no memory for '%s'", p->key);
        return 0;
    }
    if (p->data_size > 0)
        memcpy(copy, p->data, p->data_size);
    if (next->p != cur->p)
        OPENSSL_clear_free(next->p, next->len);
    next->p = copy;
    next->len = p->data_size;
    return 1;
}

static int read_custom(const ksum_provctx *prov, const OSSL_PARAM *p,
                       const settings *cur, settings *next)
{
    return read_string(prov, p, &cur->custom, &next->custom);
}

static int read_fname(const ksum_provctx *prov, const OSSL_PARAM *p,
                      const settings *cur, settings *next)
{
    return read_string(prov, p, &cur->fname, &next->fname);
}

static int read_key(const ksum_provctx *prov, const OSSL_PARAM *p,
                    const settings *cur, settings *next)
{
    return read_string(prov, p, &cur->key, &next->key);
}

static int read_outlen(const ksum_provctx *prov, const OSSL_PARAM *p,
                       const settings *cur, settings *next)
{
    (void)cur;
    if (!OSSL_PARAM_get_size_t(p, &next->outlen))
        return wrong_type(prov, p, "a non-negative integer");
    /* SIZE_MAX stands for "no length" in the settings; no output is that
     * long, so refuse it here rather than forget it at final. */
    if (next->outlen == SIZE_MAX)
        return out_of_range(prov, p, "below SIZE_MAX");
    return 1;
}

static int read_xof(const ksum_provctx *prov, const OSSL_PARAM *p,
                    const settings *cur, settings *next)
{
    int v;

    (void)cur;
    if (!OSSL_PARAM_get_int(p, &v))
        return wrong_type(prov, p, "an integer");
    next->xof = v != 0;   /* as OpenSSL's KMAC reads it */
    return 1;
}

static int read_block_size(const ksum_provctx *prov, const OSSL_PARAM *p,
                           const settings *cur, settings *next)
{
    size_t b;

    (void)cur;
    if (!OSSL_PARAM_get_size_t(p, &b))
        return wrong_type(prov, p, "a non-negative integer");
    if (b == 0)
        return out_of_range(prov, p, "at least 1");
    next->block_size = b;
    return 1;
}

static int read_domain(const ksum_provctx *prov, const OSSL_PARAM *p,
                       const settings *cur, settings *next)
{
    unsigned int d;

    (void)cur;
    if (!OSSL_PARAM_get_uint(p, &d))
        return wrong_type(prov, p, "an integer");
    if (d < 0x01 || d > 0x7F)
        return out_of_range(prov, p, "0x01..0x7F");
    next->domain = d;
    return 1;
}

static int read_threads(const ksum_provctx *prov, const OSSL_PARAM *p,
                        const settings *cur, settings *next)
{
    unsigned int t;

    (void)cur;
    if (!OSSL_PARAM_get_uint(p, &t))
        return wrong_type(prov, p, "an integer");
    if (t > KSUMPROV_MAX_THREADS)
        return out_of_range(prov, p, "0 to 256");
    next->threads = t;
    return 1;
}

static int read_backend(const ksum_provctx *prov, const OSSL_PARAM *p,
                        const settings *cur, settings *next)
{
    char name[16];
    const keccak_backend *be = NULL;

    (void)cur;
    if (!is_string(p) || p->data == NULL)
        return wrong_type(prov, p, "a string");
    /* The string need not end in NUL: copy it, when short enough. */
    if (p->data_size < sizeof name) {
        memcpy(name, p->data, p->data_size);
        name[p->data_size] = '\0';
        be = keccak_backend_by_name(name);
    }
    if (be == NULL) {
        KSUM_RAISE(prov, KSUM_R_BAD_BACKEND,
                   "backend '%.*s' is not built in or not supported by this CPU",
                   (int)(p->data_size < 32 ? p->data_size : 32),
                   (const char *)p->data);
        return 0;
    }
    next->be = be;
    return 1;
}

static int read_batch(const ksum_provctx *prov, const OSSL_PARAM *p,
                      const settings *cur, settings *next)
{
    (void)cur;
    if (!OSSL_PARAM_get_uint64(p, &next->batch))
        return wrong_type(prov, p, "a non-negative integer");
    return 1;
}

static int read_element(const ksum_provctx *prov, const OSSL_PARAM *p,
                        const settings *cur, settings *next)
{
    (void)cur;
    if (!OSSL_PARAM_get_uint64(p, &next->element_len))
        return wrong_type(prov, p, "a non-negative integer");
    next->announce = 1;
    return 1;
}

/* A length in bytes of a message given in parts; below 2^62, so that
 * sums with a customization's length cannot wrap. */
static int read_part_u64(const ksum_provctx *prov, const OSSL_PARAM *p,
                         uint64_t *v)
{
    if (!OSSL_PARAM_get_uint64(p, v))
        return wrong_type(prov, p, "a non-negative integer");
    if (*v >= (uint64_t)1 << 62)
        return out_of_range(prov, p, "below 2^62");
    return 1;
}

static int read_message_len(const ksum_provctx *prov, const OSSL_PARAM *p,
                            const settings *cur, settings *next)
{
    (void)cur;
    return read_part_u64(prov, p, &next->message_len);
}

static int read_offset(const ksum_provctx *prov, const OSSL_PARAM *p,
                       const settings *cur, settings *next)
{
    (void)cur;
    return read_part_u64(prov, p, &next->offset);
}

/* ---- the rules ---- */

/* A string that upstream OpenSSL types as UTF-8 for text modes. */
#define TEXT_OR_OCTET 0

static const rule rules[] = {
    {OSSL_DIGEST_PARAM_XOFLEN, MODE_OUTLEN, BEFORE_OUTPUT, read_outlen,
     OSSL_PARAM_UNSIGNED_INTEGER, 1},
    {OSSL_DIGEST_PARAM_SIZE, MODE_OUTLEN, BEFORE_OUTPUT, read_outlen,
     OSSL_PARAM_UNSIGNED_INTEGER, 0},
    {KSUM_PARAM_XOF, MODE_XOF, BEFORE_OUTPUT, read_xof, OSSL_PARAM_INTEGER, 0},
    {KSUM_PARAM_CUSTOM, MODE_CUSTOM, BEFORE_DATA, read_custom,
     OSSL_PARAM_OCTET_STRING, 0},
    {KSUM_PARAM_CUSTOMIZATION, MODE_CUSTOM, BEFORE_DATA, read_custom,
     TEXT_OR_OCTET, 1},
    {KSUM_PARAM_FUNCTION_NAME, MODE_FNAME, BEFORE_DATA, read_fname, TEXT_OR_OCTET, 0},
    {OSSL_MAC_PARAM_KEY, MODE_KEY, BEFORE_DATA, read_key, OSSL_PARAM_OCTET_STRING, 0},
    {KSUM_PARAM_BLOCK_SIZE, MODE_BLOCK, BEFORE_DATA, read_block_size,
     OSSL_PARAM_UNSIGNED_INTEGER, 0},
    {KSUM_PARAM_DOMAIN, MODE_DOMAIN, BEFORE_DATA, read_domain,
     OSSL_PARAM_UNSIGNED_INTEGER, 0},
    {KSUM_PARAM_DOMAIN_SEPARATOR, MODE_DOMAIN, BEFORE_DATA, read_domain,
     OSSL_PARAM_UNSIGNED_INTEGER, 0},
    {KSUM_PARAM_THREADS, MODE_THREADS, ANY_TIME, read_threads,
     OSSL_PARAM_UNSIGNED_INTEGER, 0},
    {KSUM_PARAM_BACKEND, 0, BEFORE_DATA, read_backend, OSSL_PARAM_UTF8_STRING, 0},
    {KSUM_PARAM_BATCH, MODE_BATCH, ANY_TIME, read_batch,
     OSSL_PARAM_UNSIGNED_INTEGER, 0},
    {KSUM_PARAM_ELEMENT_LENGTH, MODE_ELEMENT, BEFORE_OUTPUT, read_element,
     OSSL_PARAM_UNSIGNED_INTEGER, 0},
    {KSUM_PARAM_MESSAGE_LENGTH, MODE_PARTS, BEFORE_DATA, read_message_len,
     OSSL_PARAM_UNSIGNED_INTEGER, 0},
    {KSUM_PARAM_OFFSET, MODE_RANGE, BEFORE_DATA, read_offset,
     OSSL_PARAM_UNSIGNED_INTEGER, 0},
};
#define RULES (sizeof rules / sizeof rules[0])

static int applies(const rule *r, const ksum_alg *alg)
{
    if (r->digests_only && (alg->flags & ALG_MAC))
        return 0;
    return r->takes == 0 || (alg->mode->takes & r->takes) != 0;
}


/* The rule of a key the algorithm takes; NULL for any other key. */
static const rule *rule_for(const char *key, const ksum_alg *alg)
{
    for (size_t i = 0; i < RULES; i++)
        if (key[0] == rules[i].key[0] && applies(&rules[i], alg) &&
            strcmp(key, rules[i].key) == 0)
            return &rules[i];
    return NULL;
}

/* A key given twice, or a later spelling of a setting whose earlier one
 * (the same reader, higher in the table: xoflen before size, as OpenSSL's
 * SHAKE reads them) is in the same call: the first counts. */
static int overridden(const rule *r, const ksum_alg *alg, const OSSL_PARAM params[],
                      const OSSL_PARAM *p)
{
    if (OSSL_PARAM_locate_const(params, p->key) != p)
        return 1;
    for (const rule *q = rules; q < r; q++)
        if (q->read == r->read && applies(q, alg) &&
            OSSL_PARAM_locate_const(params, q->key) != NULL)
            return 1;
    return 0;
}

/* An output length set on a digest whose length is fixed: skipped as keys
 * of other algorithms are, EVP_DigestFinalXOF (which sets xoflen before
 * OpenSSL 3.4) would report 100 bytes of SHA3-256 written.  At init it is
 * skipped, as the default provider's SHA3 init skips every parameter: a
 * program may give every digest one list. */
static int fixed_length_refused(const ksum_provctx *prov, const ksum_alg *alg,
                                const OSSL_PARAM *p)
{
    if ((alg->mode->takes & MODE_OUTLEN) || (strcmp(p->key, OSSL_DIGEST_PARAM_XOFLEN) != 0 &&
                                             strcmp(p->key, OSSL_DIGEST_PARAM_SIZE) != 0))
        return 0;
    KSUM_RAISE(prov, KSUM_R_NOT_XOF, "'%s': this digest's output length is fixed", p->key);
    return 1;
}

static int allowed_now(const ksum_provctx *prov, const rule *r,
                       enum phase phase)
{
    if (phase >= PHASE_SQUEEZING && r->when != ANY_TIME) {
        KSUM_RAISE(prov, KSUM_R_ALREADY_FINISHED,
                   "'%s' cannot change after the output was produced; "
                   "initialize the context again", r->key);
        return 0;
    }
    if (phase == PHASE_ABSORBING && r->when == BEFORE_DATA) {
        KSUM_RAISE(prov, KSUM_R_PARAM_AFTER_DATA,
                   "'%s' must be set before any data", r->key);
        return 0;
    }
    return 1;
}

/* OpenSSL's own KMAC refuses these; ksumprov's KMAC does the same, but
 * for KMACXOF, whose output length is not part of the input. */
static int within_kmac_limits(const ksum_provctx *prov, const settings *s)
{
    if (s->custom.len > 512) {
        KSUM_RAISE(prov, KSUM_R_OUT_OF_RANGE,
                   "KMAC customization is out of range (at most 512 bytes)");
        return 0;
    }
    if (!s->xof && s->outlen > 2097151) {
        KSUM_RAISE(prov, KSUM_R_OUT_OF_RANGE,
                   "KMAC output length is out of range (at most 2097151 bytes)");
        return 0;
    }
    return 1;
}

int settings_read(const ksum_provctx *prov, const ksum_alg *alg,
                  enum phase phase, const settings *cur,
                  const OSSL_PARAM params[], int at_init, settings *next)
{
    *next = *cur;
    next->announce = 0;
    if (params == NULL)
        return 1;
    for (const OSSL_PARAM *p = params; p->key != NULL; p++) {
        const rule *r = rule_for(p->key, alg);
        if (r == NULL && !at_init && fixed_length_refused(prov, alg, p)) {
            settings_discard(cur, next);
            return 0;
        }
        if (r == NULL || overridden(r, alg, params, p))
            continue;
        if (!allowed_now(prov, r, phase) || !has_data(prov, p) ||
            !r->read(prov, p, cur, next)) {
            settings_discard(cur, next);
            return 0;
        }
    }
    if ((alg->flags & ALG_KMAC_LIMITS) && !within_kmac_limits(prov, next)) {
        settings_discard(cur, next);
        return 0;
    }
    return 1;
}

/* ---- settings ---- */

void settings_default(settings *s, const ksum_alg *alg, const ksum_provctx *prov)
{
    memset(s, 0, sizeof *s);
    s->outlen = prov->outlen[alg->index];
    s->block_size = 8192;
    s->domain = alg->mode->domain;
    s->be = keccak_backend_active();
    s->message_len = UINT64_MAX;
}

static void buffer_free(buffer *b)
{
    if (b->p != NULL)   /* the usual case costs no call into libcrypto */
        OPENSSL_clear_free(b->p, b->len);
    b->p = NULL;
    b->len = 0;
}

static void buffer_discard(const buffer *cur, buffer *next)
{
    if (next->p != cur->p)
        buffer_free(next);
}

void settings_discard(const settings *cur, settings *next)
{
    buffer_discard(&cur->custom, &next->custom);
    buffer_discard(&cur->fname, &next->fname);
    buffer_discard(&cur->key, &next->key);
}

void settings_commit(settings *cur, settings *next)
{
    if (next->custom.p != cur->custom.p)
        buffer_free(&cur->custom);
    if (next->fname.p != cur->fname.p)
        buffer_free(&cur->fname);
    if (next->key.p != cur->key.p)
        buffer_free(&cur->key);
    *cur = *next;
}

static int buffer_dup(buffer *dst, const buffer *src)
{
    dst->p = NULL;
    dst->len = 0;
    if (src->p == NULL)
        return 1;
    dst->p = OPENSSL_memdup(src->p, src->len + 1);
    if (dst->p == NULL)
        return 0;
    dst->len = src->len;
    return 1;
}

int settings_dup(settings *dst, const settings *src)
{
    *dst = *src;
    dst->custom = dst->fname = dst->key = (buffer){NULL, 0};
    if (buffer_dup(&dst->custom, &src->custom) &&
        buffer_dup(&dst->fname, &src->fname) && buffer_dup(&dst->key, &src->key))
        return 1;
    settings_free(dst);
    return 0;
}

void settings_free(settings *s)
{
    buffer_free(&s->custom);
    buffer_free(&s->fname);
    buffer_free(&s->key);
}

/* ---- parameter lists, one per algorithm, built at load ---- */

static OSSL_PARAM describe(const rule *r, const ksum_alg *alg)
{
    unsigned type = r->type;

    if (type == TEXT_OR_OCTET)
        type = alg->mode->takes & MODE_TEXT ? OSSL_PARAM_UTF8_STRING
                                            : OSSL_PARAM_OCTET_STRING;
    return (OSSL_PARAM){r->key, type, NULL, 0, 0};
}

static OSSL_PARAM *list_of(const rule *table, size_t n, const ksum_alg *alg)
{
    OSSL_PARAM *list = OPENSSL_zalloc((n + 1) * sizeof *list);
    size_t used = 0;

    if (list == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (applies(&table[i], alg))
            list[used++] = describe(&table[i], alg);
    list[used] = (OSSL_PARAM)OSSL_PARAM_END;
    return list;
}

/* What ksum_ctx_get_params answers (read is unused). */
static const rule readable[] = {
    {KSUM_PARAM_SQUEEZE, MODE_OUTLEN, ANY_TIME, NULL, OSSL_PARAM_OCTET_STRING, 0},
    {OSSL_DIGEST_PARAM_XOFLEN, 0, ANY_TIME, NULL, OSSL_PARAM_UNSIGNED_INTEGER, 1},
    {OSSL_DIGEST_PARAM_SIZE, 0, ANY_TIME, NULL, OSSL_PARAM_UNSIGNED_INTEGER, 0},
    {OSSL_MAC_PARAM_BLOCK_SIZE, MODE_KEY, ANY_TIME, NULL, OSSL_PARAM_UNSIGNED_INTEGER,
     0},
    {KSUM_PARAM_DOMAIN, MODE_DOMAIN, ANY_TIME, NULL, OSSL_PARAM_UNSIGNED_INTEGER, 0},
    {KSUM_PARAM_DOMAIN_SEPARATOR, MODE_DOMAIN, ANY_TIME, NULL,
     OSSL_PARAM_UNSIGNED_INTEGER, 0},
    {KSUM_PARAM_BACKEND, 0, ANY_TIME, NULL, OSSL_PARAM_UTF8_PTR, 0},
    {KSUM_PARAM_LANES, 0, ANY_TIME, NULL, OSSL_PARAM_UNSIGNED_INTEGER, 0},
    {KSUM_PARAM_BATCH, MODE_BATCH, ANY_TIME, NULL, OSSL_PARAM_UNSIGNED_INTEGER, 0},
    {KSUM_PARAM_BATCH_PREFIX, MODE_BATCH, ANY_TIME, NULL, OSSL_PARAM_UNSIGNED_INTEGER,
     0},
    {KSUM_PARAM_CV_COUNT, MODE_RANGE, ANY_TIME, NULL, OSSL_PARAM_UNSIGNED_INTEGER, 0},
    {KSUM_PARAM_CV_SPAN, MODE_PARTS, ANY_TIME, NULL, OSSL_PARAM_UNSIGNED_INTEGER, 0},
    {KSUM_PARAM_HEAD_LENGTH, MODE_PARTS, ANY_TIME, NULL, OSSL_PARAM_UNSIGNED_INTEGER,
     0},
};

int ksum_param_lists_build(ksum_provctx *prov)
{
    for (unsigned i = 0; i < KSUM_ALG_COUNT; i++) {
        prov->outlen[i] = ksum_alg_outlen(&ksum_algs[i]);
        prov->settable[i] = list_of(rules, RULES, &ksum_algs[i]);
        prov->gettable[i] = list_of(readable, sizeof readable / sizeof readable[0],
                                    &ksum_algs[i]);
        if (prov->settable[i] == NULL || prov->gettable[i] == NULL)
            return 0;
    }
    return 1;
}

void ksum_param_lists_free(ksum_provctx *prov)
{
    for (unsigned i = 0; i < KSUM_ALG_COUNT; i++) {
        OPENSSL_free(prov->settable[i]);
        OPENSSL_free(prov->gettable[i]);
        prov->settable[i] = prov->gettable[i] = NULL;
    }
}
