/* SPDX-License-Identifier: Apache-2.0 */
/*
 * OpenSSL's own EVP test data (tests/vectors/openssl/) through ksumprov.
 *
 * Every "Digest" and "MAC" entry whose algorithm ksumprov has runs through
 * EVP with the property query "provider=ksumprov", applied the way
 * OpenSSL's test/evp_test.c applies it: the same parameters from the same
 * keywords, the same calls and the same checks (copies finalized with no
 * output, output and block sizes, a second round after re-initializing a
 * MAC, the one-shot EVP_Q_ functions), and "Result" naming the error an
 * entry must end with.  Each entry also runs with its input fed one byte
 * and 17 bytes at a time.  Entries for algorithms ksumprov does not have
 * are counted and skipped; an entry for one of ksumprov's algorithms that
 * fails or cannot run fails the test.
 *
 * "Availablein" and "FIPSversion" limit entries to OpenSSL's providers and
 * versions; ksumprov runs them all.  The released evp_test takes "Ctrl"
 * only in MAC entries; the Digest entries that have it (TurboSHAKE's
 * domain-separator) get it the same way: typed by the digest's settable
 * parameters and passed to EVP_DigestInit_ex2.
 *
 * Usage: test_evpdata DIR [FILE...]   (default: the four files in DIR)
 */
#include <strings.h>

#include "testutil.h"

#define PROPS "provider=" KSUMPROV_NAME

/* Names of ksumprov's algorithms, with upstream OpenSSL's spellings: an
 * entry for one of these must run.  Other names are tried too, so a new
 * algorithm runs as soon as ksumprov has it. */
static const char *const ours[] = {
    "SHA3-224", "SHA3-256", "SHA3-384", "SHA3-512", "SHAKE128", "SHAKE-128",
    "SHAKE256", "SHAKE-256", "RAWSHAKE128", "RAWSHAKE256", "KECCAK-224",
    "KECCAK-256", "KECCAK-384", "KECCAK-512", "CSHAKE128", "CSHAKE-128",
    "CSHAKE256", "CSHAKE-256", "PARALLELHASH128", "PARALLELHASH256",
    "KANGAROOTWELVE", "KT128", "K12", "KT256", "MARSUPILAMIFOURTEEN", "M14",
    "TURBOSHAKE128", "TURBOSHAKE256", "TUPLEHASH128", "TUPLEHASH256",
    "KMAC128", "KMAC-128", "KMAC256", "KMAC-256", NULL};

#define MAX_INPUTS 8
#define MAX_CTRLS 8

/* One Input value with its repeat count (Count). */
typedef struct input {
    uint8_t *buf;
    size_t len, count;
    int count_set;
} input;

typedef struct entry {
    const char *file;
    int line;
    int is_mac;
    char *alg;
    input in[MAX_INPUTS];
    int n_in;
    uint8_t *out, *key, *custom, *iv, *salt;
    size_t out_len, key_len, custom_len, iv_len, salt_len;
    char *sub_alg;          /* MAC "Algorithm" */
    int xof, pad_type, no_reinit;
    size_t digest_size;     /* Digest "OutputSize": the "size" parameter */
    int mac_size, mac_block_size; /* MAC "OutputSize", "BlockSize"; -1: none */
    char *ctrl[MAX_CTRLS];
    int n_ctrl;
    char *result;           /* the error the entry must end with, or NULL */
    const char *error;      /* what went wrong while reading it */
} entry;

/* ---- reading entries ---- */

static char *trim(char *s)
{
    char *end = s + strlen(s);

    while (*s == ' ' || *s == '\t')
        s++;
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' ||
                       end[-1] == '\r'))
        *--end = '\0';
    return s;
}

/* A value as evp_test reads one: NULL, empty, a quoted string (with \n
 * escapes) or hex.  Returns 0 if it is none of these. */
static int parse_bin(const char *value, uint8_t **buf, size_t *len)
{
    size_t n = strlen(value), j = 0;
    long hexlen;

    OPENSSL_free(*buf);
    *buf = NULL;
    *len = 0;
    if (strcmp(value, "NULL") == 0)
        return 1;
    if (value[0] != '"') {
        if (n == 0)
            return (*buf = OPENSSL_zalloc(1)) != NULL;
        *buf = OPENSSL_hexstr2buf(value, &hexlen);
        *len = (size_t)hexlen;
        return *buf != NULL;
    }
    if (n < 2 || value[n - 1] != '"')
        return 0;
    *buf = OPENSSL_zalloc(n);
    for (size_t i = 1; *buf != NULL && i < n - 1; i++) {
        if (value[i] == '\\') {
            if (value[i + 1] != 'n')
                return 0;
            (*buf)[j++] = '\n';
            i++;
        } else {
            (*buf)[j++] = (uint8_t)value[i];
        }
    }
    *len = j;
    return *buf != NULL;
}

static int add_input(entry *e, const char *value)
{
    input *in;

    if (e->n_in == MAX_INPUTS)
        return 0;
    in = &e->in[e->n_in];
    if (!parse_bin(value, &in->buf, &in->len))
        return 0;
    if (in->buf == NULL) /* NULL input: nothing to hash */
        return 1;
    in->count = 1;
    e->n_in++;
    return 1;
}

/* Ncopy: the last input becomes n copies of itself. */
static int ncopy_input(entry *e, const char *value)
{
    int n = atoi(value);
    input *in = e->n_in > 0 ? &e->in[e->n_in - 1] : NULL;
    uint8_t *copies;

    if (in == NULL || n <= 0 || (copies = OPENSSL_malloc(in->len * n + 1)) == NULL)
        return 0;
    for (int i = 0; i < n; i++)
        memcpy(copies + in->len * i, in->buf, in->len);
    OPENSSL_free(in->buf);
    in->buf = copies;
    in->len *= (size_t)n;
    return 1;
}

/* Count: the last input is fed this many times (set once). */
static int count_input(entry *e, const char *value)
{
    int n = atoi(value);
    input *in = e->n_in > 0 ? &e->in[e->n_in - 1] : NULL;

    if (in == NULL || n <= 0 || in->count_set)
        return 0;
    in->count = (size_t)n;
    in->count_set = 1;
    return 1;
}

/* A MAC has one input; a second Input replaces the first. */
static int set_mac_input(entry *e, const char *value)
{
    e->n_in = 1;
    e->in[0].count = 1;
    return parse_bin(value, &e->in[0].buf, &e->in[0].len);
}

static int set_size(int *dst, const char *value)
{
    *dst = atoi(value);
    return *dst >= 0;
}

/* Applies one keyword of a Digest or MAC entry, as evp_test's parsers do;
 * 0 for a bad value or a keyword the entry's type does not know. */
static int apply_keyword(entry *e, const char *key, const char *value)
{
    int n;

    if (strcmp(key, "Input") == 0)
        return e->is_mac ? set_mac_input(e, value) : add_input(e, value);
    if (strcmp(key, "Output") == 0)
        return parse_bin(value, &e->out, &e->out_len);
    if (strcmp(key, "Ctrl") == 0 && e->n_ctrl < MAX_CTRLS)
        return (e->ctrl[e->n_ctrl++] = strdup(value)) != NULL;
    if (!e->is_mac) {
        if (strcmp(key, "Count") == 0)
            return count_input(e, value);
        if (strcmp(key, "Ncopy") == 0)
            return ncopy_input(e, value);
        if (strcmp(key, "Padding") == 0)
            return (e->pad_type = atoi(value)) > 0;
        if (strcmp(key, "XOF") == 0)
            return (e->xof = atoi(value)) > 0;
        if (strcmp(key, "OutputSize") == 0)
            return (n = atoi(value)) >= 0 && (e->digest_size = (size_t)n, 1);
        return 0;
    }
    if (strcmp(key, "Key") == 0)
        return parse_bin(value, &e->key, &e->key_len);
    if (strcmp(key, "Custom") == 0)
        return parse_bin(value, &e->custom, &e->custom_len);
    if (strcmp(key, "IV") == 0)
        return parse_bin(value, &e->iv, &e->iv_len);
    if (strcmp(key, "Salt") == 0)
        return parse_bin(value, &e->salt, &e->salt_len);
    if (strcmp(key, "Algorithm") == 0)
        return (e->sub_alg = strdup(value)) != NULL;
    if (strcmp(key, "XOF") == 0)
        return e->xof = 1;
    if (strcmp(key, "NoReinit") == 0)
        return e->no_reinit = 1;
    if (strcmp(key, "OutputSize") == 0)
        return set_size(&e->mac_size, value);
    if (strcmp(key, "BlockSize") == 0)
        return set_size(&e->mac_block_size, value);
    return 0;
}

static void entry_free(entry *e)
{
    for (int i = 0; i < MAX_INPUTS; i++)
        OPENSSL_free(e->in[i].buf);
    for (int i = 0; i < e->n_ctrl; i++)
        free(e->ctrl[i]);
    OPENSSL_free(e->out);
    OPENSSL_free(e->key);
    OPENSSL_free(e->custom);
    OPENSSL_free(e->iv);
    OPENSSL_free(e->salt);
    free(e->alg);
    free(e->sub_alg);
    free(e->result);
    memset(e, 0, sizeof *e);
}

/* Reads the next stanza (lines up to a blank line) into e.  Returns 0 at
 * the end of the file, 1 for an entry (e->alg set) or a stanza of another
 * kind (e->alg NULL). */
static int next_entry(FILE *f, const char *file, int *lineno, entry *e)
{
    char *line = NULL;
    size_t cap = 0;
    int seen = 0;

    memset(e, 0, sizeof *e);
    e->file = file;
    e->mac_size = e->mac_block_size = -1;
    while (getline(&line, &cap, f) >= 0) {
        char *s = trim(line), *eq, *key, *value;

        (*lineno)++;
        if (*s == '#')
            continue;
        if (*s == '\0') {
            if (seen)
                break;
            continue;
        }
        seen = 1;
        if ((eq = strchr(s, '=')) == NULL) {
            e->error = e->error ? e->error : "line without '='";
            continue;
        }
        *eq = '\0';
        key = trim(s);
        value = trim(eq + 1);
        if (e->alg == NULL && (strcmp(key, "Digest") == 0 || strcmp(key, "MAC") == 0)) {
            e->is_mac = key[0] == 'M';
            e->alg = strdup(value);
            e->line = *lineno;
        } else if (strcmp(key, "Result") == 0) {
            free(e->result);
            e->result = strdup(value);
        } else if (strcmp(key, "Title") == 0 || strcmp(key, "Availablein") == 0 ||
                   strcmp(key, "FIPSversion") == 0 || strcmp(key, "Reason") == 0) {
            continue;
        } else if (e->alg == NULL) {
            e->error = e->error ? e->error : "keyword before the entry's type";
        } else if (!apply_keyword(e, key, value) && e->error == NULL) {
            static char why[128];
            snprintf(why, sizeof why, "bad or unknown keyword '%s'", key);
            e->error = why;
        }
    }
    free(line);
    return seen;
}

/* ---- running entries ---- */

/* Ctrl "name:value" lines as parameters, typed by the algorithm's settable
 * parameters (OSSL_PARAM_allocate_from_text, as evp_test).  params[*n..]
 * get allocated data the caller frees. */
static int ctrls_to_params(const entry *e, const OSSL_PARAM *settable,
                           OSSL_PARAM *params, size_t *n)
{
    for (int i = 0; i < e->n_ctrl; i++) {
        char *name = strdup(e->ctrl[i]), *value = name ? strchr(name, ':') : NULL;
        int ok = value != NULL;

        if (ok) {
            *value++ = '\0';
            ok = OSSL_PARAM_allocate_from_text(&params[*n], settable, name, value,
                                               strlen(value), NULL);
        }
        free(name);
        if (!ok)
            return 0;
        (*n)++;
    }
    return 1;
}

static void free_allocated(OSSL_PARAM *params, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        OPENSSL_free(params[i].data);
}

/* Feeds the inputs: one update per input and repeat, as evp_test, or, with
 * chunk > 0, every input in pieces of chunk bytes. */
static int feed(const entry *e, size_t chunk,
                int (*update)(void *ctx, const uint8_t *in, size_t len), void *ctx)
{
    for (int i = 0; i < e->n_in; i++)
        for (size_t r = 0; r < e->in[i].count; r++) {
            const uint8_t *p = e->in[i].buf;
            size_t left = e->in[i].len;
            do {
                size_t n = chunk == 0 || chunk > left ? left : chunk;
                if (!update(ctx, p, n))
                    return 0;
                p += n;
                left -= n;
            } while (left > 0);
        }
    return 1;
}

static int md_update(void *ctx, const uint8_t *in, size_t len)
{
    return EVP_DigestUpdate(ctx, in, len);
}

static int mac_update(void *ctx, const uint8_t *in, size_t len)
{
    return EVP_MAC_update(ctx, in, len);
}

static int md_is_xof(const EVP_MD *md)
{
    return (EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF) != 0;
}

/* A copy of an XOF context finalized with no output leaves the buffer
 * alone, and so does a dup (OpenSSL 3.1+). */
static const char *check_copies(EVP_MD_CTX *ctx)
{
    uint8_t guard[6] = "touch";
    EVP_MD_CTX *copy = EVP_MD_CTX_new();
    int ok = copy != NULL && EVP_MD_CTX_copy(copy, ctx) &&
             EVP_DigestFinalXOF(copy, guard, 0) && memcmp(guard, "touch", 6) == 0;

    EVP_MD_CTX_free(copy);
#if OPENSSL_VERSION_NUMBER >= 0x30100000L
    copy = ok ? EVP_MD_CTX_dup(ctx) : NULL;
    ok = copy != NULL && EVP_DigestFinalXOF(copy, guard, 0) &&
         memcmp(guard, "touch", 6) == 0;
    EVP_MD_CTX_free(copy);
#endif
    return ok ? NULL : "DIGESTFINALXOF_ERROR";
}

static const char *digest_output(const entry *e, const EVP_MD *md, EVP_MD_CTX *ctx,
                                 uint8_t *got)
{
    unsigned int got_len = 0;
    const char *err;

    if (e->xof || md_is_xof(md)) {
        if ((err = check_copies(ctx)) != NULL)
            return err;
        if (!EVP_DigestFinalXOF(ctx, got, e->out_len))
            return "DIGESTFINALXOF_ERROR";
        got_len = (unsigned int)e->out_len;
    } else if (!EVP_DigestFinal_ex(ctx, got, &got_len)) {
        return "DIGESTFINAL_ERROR";
    }
    if (got_len != e->out_len)
        return "DIGEST_LENGTH_MISMATCH";
    if (memcmp(got, e->out, e->out_len) != 0)
        return "DIGEST_MISMATCH";
    return NULL;
}

/* The one-shot EVP_Q_digest for an entry of one input, not an XOF. */
static const char *digest_oneshot(OSSL_LIB_CTX *lib, const entry *e,
                                  const EVP_MD *md, uint8_t *got)
{
    size_t n = 0;

    if (e->n_in != 1 || e->in[0].count_set || e->xof || md_is_xof(md))
        return NULL;
    if (!EVP_Q_digest(lib, EVP_MD_get0_name(md), PROPS, e->in[0].buf,
                      e->in[0].len, got, &n) ||
        n != e->out_len || memcmp(got, e->out, n) != 0)
        return "EVP_Q_digest failed";
    return NULL;
}

static const char *run_digest(OSSL_LIB_CTX *lib, const entry *e, const EVP_MD *md,
                              size_t chunk)
{
    OSSL_PARAM params[4 + MAX_CTRLS];
    size_t n = 0, alloc_from, xoflen = e->out_len, size = e->digest_size;
    int pad = e->pad_type;
    uint8_t *got = OPENSSL_zalloc(e->out_len > EVP_MAX_MD_SIZE ? e->out_len
                                                                : EVP_MAX_MD_SIZE);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    const char *err = NULL;

    if (e->xof)
        params[n++] = OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_XOFLEN, &xoflen);
    if (size > 0)
        params[n++] = OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_SIZE, &size);
    if (pad > 0)
        params[n++] = OSSL_PARAM_construct_int(OSSL_DIGEST_PARAM_PAD_TYPE, &pad);
    alloc_from = n;
    if (got == NULL || ctx == NULL)
        err = "TEST_FAILURE";
    else if (!ctrls_to_params(e, EVP_MD_settable_ctx_params(md), params, &n))
        err = "ERR_PARAM_ERROR";
    params[n] = OSSL_PARAM_construct_end();
    if (err == NULL && !EVP_DigestInit_ex2(ctx, md, params))
        err = "DIGESTINIT_ERROR";
    if (err == NULL && !feed(e, chunk, md_update, ctx))
        err = "DIGESTUPDATE_ERROR";
    if (err == NULL)
        err = digest_output(e, md, ctx, got);
    if (err == NULL && chunk == 0)
        err = digest_oneshot(lib, e, md, got);
    free_allocated(params, alloc_from, n);
    EVP_MD_CTX_free(ctx);
    OPENSSL_free(got);
    return err;
}

/* The MAC's parameters: sub-algorithm, custom, salt, IV, then the Ctrls. */
static const char *mac_params(const entry *e, const EVP_MAC *mac, OSSL_PARAM *params,
                              size_t *n, size_t *alloc_from)
{
    const OSSL_PARAM *settable = EVP_MAC_settable_ctx_params(mac);

    if (e->sub_alg != NULL) {
        const char *key = OSSL_PARAM_locate_const(settable, OSSL_MAC_PARAM_CIPHER)
                              ? OSSL_MAC_PARAM_CIPHER
                          : OSSL_PARAM_locate_const(settable, OSSL_MAC_PARAM_DIGEST)
                              ? OSSL_MAC_PARAM_DIGEST
                              : NULL;
        if (key == NULL)
            return "MAC_BAD_PARAMS";
        params[(*n)++] = OSSL_PARAM_construct_utf8_string(key, e->sub_alg, 0);
    }
    if (e->custom != NULL)
        params[(*n)++] = OSSL_PARAM_construct_octet_string(
            OSSL_MAC_PARAM_CUSTOM, e->custom, e->custom_len);
    if (e->salt != NULL)
        params[(*n)++] = OSSL_PARAM_construct_octet_string(
            OSSL_MAC_PARAM_SALT, e->salt, e->salt_len);
    if (e->iv != NULL)
        params[(*n)++] = OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_IV, e->iv,
                                                           e->iv_len);
    *alloc_from = *n;
    if (!ctrls_to_params(e, settable, params, n))
        return "ERR_PARAM_ERROR";
    return NULL;
}

/* The MAC's size is known before init and stays, unless "size" sets it. */
static const char *mac_sizes(const entry *e, EVP_MAC_CTX *ctx, size_t before,
                             size_t size_param)
{
    size_t after = EVP_MAC_CTX_get_mac_size(ctx);
    int out_size = -1, block_size = -1;
    OSSL_PARAM sizes[] = {
        OSSL_PARAM_construct_int(OSSL_MAC_PARAM_SIZE, &out_size),
        OSSL_PARAM_construct_int(OSSL_MAC_PARAM_BLOCK_SIZE, &block_size),
        OSSL_PARAM_construct_end()};

    if (before == 0 && after == 0)
        return "MAC SIZE not set";
    if (before != 0 && after != (size_param != 0 ? size_param : before))
        return "MAC SIZE check failed";
    if (e->mac_size < 0 && e->mac_block_size < 0)
        return NULL;
    if (!EVP_MAC_CTX_get_params(ctx, sizes))
        return "INTERNAL_ERROR";
    if ((e->mac_size >= 0 && out_size != e->mac_size) ||
        (e->mac_block_size >= 0 && block_size != e->mac_block_size))
        return "TEST_FAILURE";
    return NULL;
}

static const char *mac_output(const entry *e, EVP_MAC_CTX *ctx, uint8_t *got,
                              size_t cap)
{
    size_t got_len = 0;

    if (e->xof) {
        if (e->out_len > cap || !EVP_MAC_finalXOF(ctx, got, e->out_len) ||
            memcmp(got, e->out, e->out_len) != 0)
            return "MAC_FINAL_ERROR";
        return NULL;
    }
    if (!EVP_MAC_final(ctx, NULL, &got_len, 0))
        return "MAC_FINAL_LENGTH_ERROR";
    if (got_len > cap || !EVP_MAC_final(ctx, got, &got_len, got_len) ||
        got_len != e->out_len || memcmp(got, e->out, got_len) != 0)
        return "TEST_MAC_ERR";
    return NULL;
}

/* Updates and final, then again after re-initializing with the same key
 * (or, with NoReinit, re-initializing must fail). */
static const char *mac_rounds(const entry *e, EVP_MAC_CTX *ctx, size_t chunk,
                              uint8_t *got, size_t cap)
{
    const char *err;
    OSSL_PARAM iv[2] = {OSSL_PARAM_END, OSSL_PARAM_END};

    if (e->iv != NULL)
        iv[0] = OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_IV, e->iv, e->iv_len);
    for (int round = 0; round < 2; round++) {
        if (!feed(e, chunk, mac_update, ctx))
            return "MAC_UPDATE_ERROR";
        if ((err = mac_output(e, ctx, got, cap)) != NULL)
            return err;
        if (round == 1)
            break;
        ERR_set_mark();
        int again = EVP_MAC_init(ctx, NULL, 0, iv);
        ERR_pop_to_mark();
        if (e->no_reinit)
            return again ? "MAC_REINIT_SHOULD_FAIL" : NULL;
        if (!again)
            return "MAC_REINIT_ERROR";
    }
    return NULL;
}

static const char *mac_oneshot(OSSL_LIB_CTX *lib, const entry *e,
                               const OSSL_PARAM *params, uint8_t *got, size_t cap)
{
    size_t n = 0;
    const uint8_t *in = e->n_in > 0 ? e->in[0].buf : NULL;
    size_t in_len = e->n_in > 0 ? e->in[0].len : 0;

    if (e->xof)
        return NULL;
    if (EVP_Q_mac(lib, e->alg, PROPS, e->sub_alg, params, e->key, e->key_len, in,
                  in_len, got, cap, &n) == NULL ||
        n != e->out_len || memcmp(got, e->out, n) != 0)
        return "EVP_Q_mac failed";
    return NULL;
}

static const char *run_mac(OSSL_LIB_CTX *lib, const entry *e, EVP_MAC *mac,
                           size_t chunk)
{
    OSSL_PARAM params[8 + MAX_CTRLS];
    size_t n = 0, alloc_from = 0, size_param = 0, before, cap = e->out_len + 256;
    const OSSL_PARAM *p;
    uint8_t *got = OPENSSL_zalloc(cap);
    EVP_MAC_CTX *ctx = NULL;
    const char *err = mac_params(e, mac, params, &n, &alloc_from);

    params[n] = OSSL_PARAM_construct_end();
    p = OSSL_PARAM_locate_const(params + alloc_from, OSSL_MAC_PARAM_SIZE);
    if (err == NULL && p != NULL && !OSSL_PARAM_get_size_t(p, &size_param))
        err = "ERR_PARAM_ERROR";
    if (err == NULL && (got == NULL || (ctx = EVP_MAC_CTX_new(mac)) == NULL))
        err = "MAC_CREATE_ERROR";
    if (err == NULL) {
        ERR_set_mark();
        before = EVP_MAC_CTX_get_mac_size(ctx);
        ERR_pop_to_mark();
        if (!EVP_MAC_init(ctx, e->key, e->key_len, params))
            err = "MAC_INIT_ERROR";
        else
            err = mac_sizes(e, ctx, before, size_param);
    }
    if (err == NULL)
        err = mac_rounds(e, ctx, chunk, got, cap);
    if (err == NULL && chunk == 0)
        err = mac_oneshot(lib, e, params, got, cap);
    free_allocated(params, alloc_from, n);
    EVP_MAC_CTX_free(ctx);
    OPENSSL_free(got);
    return err;
}

/* ---- files ---- */

#define MAX_NAMES 32

typedef struct tally {
    int run, failed, skipped;
    char *skipped_names[MAX_NAMES];
    int n_names;
} tally;

static int is_ours(const char *alg)
{
    for (int i = 0; ours[i] != NULL; i++)
        if (strcasecmp(alg, ours[i]) == 0)
            return 1;
    return 0;
}

static void note_skipped(tally *t, const char *alg)
{
    t->skipped++;
    for (int i = 0; i < t->n_names; i++)
        if (strcasecmp(t->skipped_names[i], alg) == 0)
            return;
    if (t->n_names < MAX_NAMES)
        t->skipped_names[t->n_names++] = strdup(alg);
}

/* Prints the file's counts and forgets the skipped names. */
static void print_tally(const char *name, tally *t)
{
    printf("%s: %d entries run through ksumprov, %d failed; %d skipped (not "
           "ksumprov's:", name, t->run, t->failed, t->skipped);
    for (int i = 0; i < t->n_names; i++) {
        printf(" %s", t->skipped_names[i]);
        free(t->skipped_names[i]);
    }
    printf("%s)\n", t->n_names == 0 ? " none" : "");
}

/* The entry's outcome against its expected Result. */
static const char *outcome(const entry *e, const char *err)
{
    static char why[256];

    if (e->result == NULL)
        return err;
    if (err != NULL && strcmp(err, e->result) == 0)
        return NULL;
    snprintf(why, sizeof why, "expected %s, got %s", e->result,
             err ? err : "success");
    return why;
}

/* The entry three times: inputs as evp_test feeds them, one byte at a time,
 * 17 bytes at a time.  Returns the first failure. */
static const char *run_entry(OSSL_LIB_CTX *lib, const entry *e, EVP_MD *md,
                             EVP_MAC *mac, size_t *chunk_failed)
{
    static const size_t chunks[] = {0, 1, 17};

    for (size_t i = 0; i < 3; i++) {
        const char *err = outcome(e, md ? run_digest(lib, e, md, chunks[i])
                                        : run_mac(lib, e, mac, chunks[i]));
        if (err != NULL) {
            *chunk_failed = chunks[i];
            return err;
        }
    }
    return NULL;
}

static void one_entry(OSSL_LIB_CTX *lib, const entry *e, tally *t)
{
    EVP_MD *md = NULL;
    EVP_MAC *mac = NULL;
    const char *err;
    size_t chunk = 0;

    ERR_set_mark();
    if (e->is_mac)
        mac = EVP_MAC_fetch(lib, e->alg, PROPS);
    else
        md = EVP_MD_fetch(lib, e->alg, PROPS);
    ERR_pop_to_mark();
    if (md == NULL && mac == NULL && !is_ours(e->alg)) {
        note_skipped(t, e->alg);
        return;
    }
    t->run++;
    if (md == NULL && mac == NULL)
        err = "not fetched from ksumprov";
    else if (e->error != NULL)
        err = e->error;
    else
        err = run_entry(lib, e, md, mac, &chunk);
    if (err != NULL) {
        t->failed++;
        CHECK(0, "%s:%d: %s %s: %s (input in pieces of %zu bytes; 0: as evp_test)",
              e->file, e->line, e->is_mac ? "MAC" : "Digest", e->alg, err, chunk);
    } else {
        test_passes++;
    }
    ERR_clear_error();
    EVP_MD_free(md);
    EVP_MAC_free(mac);
}

static void run_file(OSSL_LIB_CTX *lib, const char *dir, const char *name)
{
    char path[4096];
    FILE *f;
    entry e;
    tally t = {0};
    int lineno = 0;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "r");
    CHECK(f != NULL, "cannot open %s", path);
    if (f == NULL)
        return;
    while (next_entry(f, name, &lineno, &e)) {
        if (e.alg != NULL)
            one_entry(lib, &e, &t);
        else if (e.error != NULL)
            CHECK(0, "%s:%d: %s", name, lineno, e.error);
        entry_free(&e);
    }
    fclose(f);
    CHECK(t.run > 0, "%s: no entry for ksumprov's algorithms", name);
    print_tally(name, &t);
}

int main(int argc, char **argv)
{
    static const char *const files[] = {"evpmd_sha.txt", "evpmac_common.txt",
                                        "evpmd_kt.txt", "evpmd_turboshake.txt"};
    OSSL_LIB_CTX *lib;

    if (argc < 2) {
        fprintf(stderr, "usage: test_evpdata DIR [FILE...]\n");
        return 2;
    }
    printf("OpenSSL %s (headers: %s)\n", OpenSSL_version(OPENSSL_VERSION_STRING),
           OPENSSL_VERSION_TEXT);
    lib = test_libctx(0);
    if (argc > 2)
        for (int i = 2; i < argc; i++)
            run_file(lib, argv[1], argv[i]);
    else
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
            run_file(lib, argv[1], files[i]);
    test_libctx_free(lib);
    return test_summary("test_evpdata");
}
