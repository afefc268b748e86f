/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Provider parameter handling: the input is a little program of parameter
 * sets (any key, any type, any value, NULL data pointers too), sets that
 * mix valid parameters with one invalid one, updates, finals, dups,
 * re-inits and squeezes on one digest or MAC context.  Errors are fine;
 * crashes, leaks, hangs and sanitizer reports are not, and neither is a
 * failed set_ctx_params that changed the context (after each failed set, a
 * copy of the context and a copy taken before the call must give the same
 * output size, backend and output bytes) nor a set that accepted a NULL
 * string for a parameter the algorithm takes: both abort.
 */
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

static OSSL_LIB_CTX *lib;


static const char *const keys[] = {
    "xoflen", "size", "custom", "function-name", "block-size", "xof",
    "domain", "threads", "backend", "key", "blocksize", "no-such-key",
    "squeeze"};

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static unsigned byte(reader *r)
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

static uint64_t number(reader *r)
{
    /* Small values mostly, sometimes huge ones. */
    unsigned kind = byte(r) % 4;
    uint64_t v = 0;
    for (unsigned i = 0; i < (kind == 3 ? 8u : kind == 2 ? 2u : 1u); i++)
        v = v << 8 | byte(r);
    return v;
}

/* Builds one parameter of a random key and type from the input: types 5
 * and 6 are strings with a NULL data pointer (and any length). */
static void make_param(reader *r, OSSL_PARAM *p, uint64_t *num, char *str)
{
    const char *key = keys[byte(r) % (sizeof keys / sizeof keys[0])];
    unsigned type = byte(r) % 7;
    size_t len = byte(r) % 40;

    *num = number(r);
    for (size_t i = 0; i < len; i++)
        str[i] = (char)byte(r);
    str[len] = '\0';
    if (strcmp(key, "backend") == 0 && len == 0)
        strcpy(str, byte(r) % 2 ? "portable" : "avx2"), len = strlen(str);
    switch (type) {
    case 0: *p = OSSL_PARAM_construct_size_t(key, (size_t *)num); break;
    case 1: *p = OSSL_PARAM_construct_uint(key, (unsigned *)num); break;
    case 2: *p = OSSL_PARAM_construct_int(key, (int *)num); break;
    case 3: *p = OSSL_PARAM_construct_octet_string(key, str, len); break;
    case 4: *p = OSSL_PARAM_construct_utf8_string(key, str, len); break;
    case 5: *p = OSSL_PARAM_construct_octet_string(key, NULL, len); break;
    default: *p = OSSL_PARAM_construct_utf8_string(key, NULL, len); break;
    }
    /* Keep thread counts and outputs small enough to run fast. */
    if (strcmp(key, "threads") == 0)
        *num %= 9;
    if (strcmp(key, "xoflen") == 0 || strcmp(key, "size") == 0)
        *num %= 5000;
}

/* Storage for the parameters of one call. */
#define MIXED_MAX 4
typedef struct param_set {
    OSSL_PARAM p[MIXED_MAX + 1];
    uint64_t num[MIXED_MAX];
    int ival[MIXED_MAX];
    unsigned uval[MIXED_MAX];
    char str[MIXED_MAX][48];
} param_set;

/* A value each key accepts (any key: those an algorithm does not take are
 * ignored), or, when bad, one it rejects: a wrong type, out of range, a
 * NULL data pointer, an unknown backend. */
static void keyed_param(reader *r, param_set *s, int i, int bad)
{
    static const char *const settable[] = {
        "xoflen", "size", "custom", "function-name", "block-size", "xof",
        "domain", "threads", "backend", "key"};
    const char *key = settable[byte(r) % (sizeof settable / sizeof settable[0])];
    unsigned how = byte(r);
    size_t len = byte(r) % 40;
    OSSL_PARAM *p = &s->p[i];

    for (size_t j = 0; j < len; j++)
        s->str[i][j] = (char)byte(r);
    s->str[i][len] = '\0';
    s->num[i] = number(r) % 5000;
    if (strcmp(key, "custom") == 0 || strcmp(key, "function-name") == 0 ||
        strcmp(key, "key") == 0) {
        if (!bad)
            *p = OSSL_PARAM_construct_octet_string(key, s->str[i], len);
        else if (how % 2)
            *p = OSSL_PARAM_construct_octet_string(key, NULL, len + 1);
        else
            *p = OSSL_PARAM_construct_size_t(key, (size_t *)&s->num[i]);
    } else if (strcmp(key, "backend") == 0) {
        strcpy(s->str[i], bad ? "no-such-backend" : "portable");
        *p = bad && how % 2 ? OSSL_PARAM_construct_utf8_string(key, NULL, 0)
                            : OSSL_PARAM_construct_utf8_string(key, s->str[i], 0);
    } else if (strcmp(key, "xof") == 0) {
        s->ival[i] = bad ? (how % 2 ? 2 : -1) : (int)(how % 2);
        *p = OSSL_PARAM_construct_int(key, &s->ival[i]);
    } else if (strcmp(key, "domain") == 0) {
        s->uval[i] = bad ? (how % 2 ? 0 : 0x80 + how) : 1 + how % 0x7F;
        *p = OSSL_PARAM_construct_uint(key, &s->uval[i]);
    } else if (strcmp(key, "threads") == 0) {
        s->uval[i] = how % 9;
        *p = bad ? OSSL_PARAM_construct_utf8_string(key, s->str[i], 0)
                 : OSSL_PARAM_construct_uint(key, &s->uval[i]);
    } else if (strcmp(key, "block-size") == 0) {
        s->num[i] = bad ? 0 : 1 + s->num[i];
        *p = OSSL_PARAM_construct_size_t(key, (size_t *)&s->num[i]);
    } else {   /* xoflen, size */
        s->ival[i] = -1 - (int)(how % 100);
        *p = bad ? OSSL_PARAM_construct_int(key, &s->ival[i])
                 : OSSL_PARAM_construct_size_t(key, (size_t *)&s->num[i]);
    }
}

/* Two to four parameters in one call, one of them invalid. */
static void mixed_params(reader *r, param_set *s)
{
    int n = 2 + byte(r) % (MIXED_MAX - 1), bad = byte(r) % n;

    for (int i = 0; i < n; i++)
        keyed_param(r, s, i, i == bad);
    s->p[n] = OSSL_PARAM_construct_end();
}

/* What a context would give from now on: its output size, backend and
 * the next 64 bytes of output (when it can give them). */
typedef struct snapshot {
    int got_size, got_backend, squeezed;
    size_t size;
    const char *backend;
    uint8_t out[64];
} snapshot;

/* Gets are made one by one, so that one refused does not hide another. */
static void snapshot_gets(snapshot *s, const char *size_key, int (*get)(void *, OSSL_PARAM *),
                          void *ctx)
{
    OSSL_PARAM size[] = {OSSL_PARAM_construct_size_t(size_key, &s->size),
                         OSSL_PARAM_construct_end()};
    OSSL_PARAM backend[] = {OSSL_PARAM_construct_utf8_ptr(KSUM_PARAM_BACKEND,
                                                          (char **)&s->backend, 0),
                            OSSL_PARAM_construct_end()};
    OSSL_PARAM squeeze[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_SQUEEZE, s->out,
                                                              sizeof s->out),
                            OSSL_PARAM_construct_end()};

    s->got_size = get(ctx, size);
    s->got_backend = get(ctx, backend) && s->backend != NULL;
    s->squeezed = get(ctx, squeeze);
    ERR_clear_error();
}

static int md_get(void *ctx, OSSL_PARAM *p) { return EVP_MD_CTX_get_params(ctx, p); }
static int mac_get(void *ctx, OSSL_PARAM *p) { return EVP_MAC_CTX_get_params(ctx, p); }

static void snapshot_md(const EVP_MD_CTX *ctx, snapshot *s)
{
    EVP_MD_CTX *copy = EVP_MD_CTX_new();

    memset(s, 0, sizeof *s);
    if (copy != NULL && EVP_MD_CTX_copy_ex(copy, ctx))
        snapshot_gets(s, "xoflen", md_get, copy);
    EVP_MD_CTX_free(copy);
    ERR_clear_error();
}

static void snapshot_mac(const EVP_MAC_CTX *ctx, snapshot *s)
{
    EVP_MAC_CTX *copy = EVP_MAC_CTX_dup(ctx);

    memset(s, 0, sizeof *s);
    if (copy != NULL)
        snapshot_gets(s, "size", mac_get, copy);
    EVP_MAC_CTX_free(copy);
    ERR_clear_error();
}

static void same_or_abort(const char *alg, const snapshot *before, const snapshot *after)
{
    if (before->got_size != after->got_size || before->size != after->size ||
        before->got_backend != after->got_backend ||
        (before->got_backend && strcmp(before->backend, after->backend) != 0) ||
        before->squeezed != after->squeezed ||
        (before->squeezed && memcmp(before->out, after->out, sizeof before->out) != 0)) {
        fprintf(stderr, "%s: a failed set_ctx_params changed the context "
                "(size %zu -> %zu, backend %s -> %s, output %s)\n", alg, before->size,
                after->size, before->got_backend ? before->backend : "?",
                after->got_backend ? after->backend : "?",
                before->squeezed != after->squeezed ? "now given or refused"
                                                    : "differs");
        abort();
    }
}

/* A string parameter the algorithm takes with a NULL data pointer and a
 * non-zero length, or a NULL UTF-8 string: the call must fail.  Of keys
 * given twice, the first counts, as OpenSSL's lookups go. */
static const char *null_string(const OSSL_PARAM *settable, const OSSL_PARAM *params)
{
    for (const OSSL_PARAM *p = params; p->key != NULL; p++)
        if (p->data == NULL && (p->data_type == OSSL_PARAM_UTF8_STRING ||
                                (p->data_type == OSSL_PARAM_OCTET_STRING && p->data_size > 0)) &&
            OSSL_PARAM_locate_const(settable, p->key) != NULL &&
            OSSL_PARAM_locate_const(params, p->key) == p)
            return p->key;
    return NULL;
}

static void refused_or_abort(const char *alg, const char *key)
{
    if (key != NULL) {
        fprintf(stderr, "%s: '%s' with a NULL data pointer was accepted\n", alg, key);
        abort();
    }
}

/* Sets params on ctx; when that fails, ctx must be as it was. */
static void md_set(const char *alg, EVP_MD_CTX *ctx, const OSSL_PARAM *params)
{
    snapshot before, after;

    snapshot_md(ctx, &before);
    if (EVP_MD_CTX_set_params(ctx, params)) {
        refused_or_abort(alg, null_string(EVP_MD_settable_ctx_params(EVP_MD_CTX_get0_md(ctx)),
                                          params));
        return;
    }
    ERR_clear_error();
    snapshot_md(ctx, &after);
    same_or_abort(alg, &before, &after);
}

static void mac_set(const char *alg, EVP_MAC_CTX *ctx, const OSSL_PARAM *params)
{
    snapshot before, after;

    snapshot_mac(ctx, &before);
    if (EVP_MAC_CTX_set_params(ctx, params)) {
        refused_or_abort(alg, null_string(EVP_MAC_CTX_settable_params((EVP_MAC_CTX *)ctx),
                                          params));
        return;
    }
    ERR_clear_error();
    snapshot_mac(ctx, &after);
    same_or_abort(alg, &before, &after);
}

/* A squeeze into no buffer: refused, not a crash. */
static OSSL_PARAM null_squeeze(reader *r)
{
    return OSSL_PARAM_construct_octet_string(KSUM_PARAM_SQUEEZE, NULL, 1 + number(r) % 5000);
}

static void run_digest(const char *name, reader *r)
{
    EVP_MD *md = EVP_MD_fetch(lib, name, "provider=ksumprov");
    EVP_MD_CTX *ctx = EVP_MD_CTX_new(), *copy;
    uint8_t out[5000];
    unsigned int outl;

    EVP_DigestInit_ex2(ctx, md, NULL);
    while (r->n > 0) {
        OSSL_PARAM params[2] = {OSSL_PARAM_END, OSSL_PARAM_END};
        uint64_t num;
        char str[64];
        size_t len;
        param_set mixed;
        switch (byte(r) % 9) {
        case 0:
            make_param(r, &params[0], &num, str);
            md_set(name, ctx, params);
            break;
        case 1:
            len = byte(r) * (size_t)(byte(r) % 4 == 0 ? 200 : 1);
            len = len < r->n ? len : r->n;
            EVP_DigestUpdate(ctx, r->p, len);
            r->p += len, r->n -= len;
            break;
        case 2:
            if (EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF)
                EVP_DigestFinalXOF(ctx, out, number(r) % sizeof out);
            else
                EVP_DigestFinal_ex(ctx, out, &outl);
            break;
        case 3:
            copy = EVP_MD_CTX_new();
            if (EVP_MD_CTX_copy_ex(copy, ctx)) {
                EVP_MD_CTX_free(ctx);
                ctx = copy;
            } else {
                EVP_MD_CTX_free(copy);
            }
            break;
        case 4:
            make_param(r, &params[0], &num, str);
            EVP_DigestInit_ex2(ctx, md, params);
            break;
        case 5:
            if (byte(r) % 2)
                params[0] = OSSL_PARAM_construct_octet_string(
                    KSUM_PARAM_SQUEEZE, out, number(r) % sizeof out);
            else
                params[0] = OSSL_PARAM_construct_size_t("xoflen", (size_t *)&num);
            EVP_MD_CTX_get_params(ctx, params);
            break;
        case 7:
            mixed_params(r, &mixed);
            md_set(name, ctx, mixed.p);
            break;
        case 8:
            params[0] = null_squeeze(r);
            EVP_MD_CTX_get_params(ctx, params);
            break;
        default:
            EVP_DigestInit_ex2(ctx, md, NULL);
        }
    }
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
}

static void run_mac(const char *name, reader *r)
{
    EVP_MAC *mac = EVP_MAC_fetch(lib, name, "provider=ksumprov");
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac), *copy;
    uint8_t out[5000];
    size_t outl;

    while (r->n > 0) {
        OSSL_PARAM params[2] = {OSSL_PARAM_END, OSSL_PARAM_END};
        uint64_t num;
        char str[64];
        size_t len;
        param_set mixed;
        switch (byte(r) % 8) {
        case 0:
            make_param(r, &params[0], &num, str);
            mac_set(name, ctx, params);
            break;
        case 1:
            len = byte(r);
            len = len < r->n ? len : r->n;
            EVP_MAC_update(ctx, r->p, len);
            r->p += len, r->n -= len;
            break;
        case 2:
            EVP_MAC_final(ctx, out, &outl, number(r) % sizeof out);
            break;
        case 3:
            copy = EVP_MAC_CTX_dup(ctx);
            if (copy != NULL) {
                EVP_MAC_CTX_free(ctx);
                ctx = copy;
            }
            break;
        case 4: {
            int no_key = byte(r) % 4 == 0;
            len = byte(r) % 64;
            len = len < r->n ? len : r->n;
            EVP_MAC_init(ctx, no_key ? NULL : r->p, len, NULL);
            r->p += len, r->n -= len;
            break;
        }
        case 6:
            mixed_params(r, &mixed);
            mac_set(name, ctx, mixed.p);
            break;
        case 7:
            params[0] = null_squeeze(r);
            EVP_MAC_CTX_get_params(ctx, params);
            break;
        default:
            if (byte(r) % 2)
                params[0] = OSSL_PARAM_construct_octet_string(
                    KSUM_PARAM_SQUEEZE, out, number(r) % sizeof out);
            else
                params[0] = OSSL_PARAM_construct_size_t("size", (size_t *)&num);
            EVP_MAC_CTX_get_params(ctx, params);
        }
    }
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    lib = fuzz_libctx(0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    size_t alg = byte(&r) % NALGS;

    if (alg >= FIRST_MAC)
        run_mac(fuzz_algs[alg], &r);
    else
        run_digest(fuzz_algs[alg], &r);
    ERR_clear_error();
    return 0;
}
