/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ksumprov against the running OpenSSL's default provider, in one process.
 *
 * Every Keccak-family digest and MAC the default provider has in this
 * OpenSSL (SHA3, SHAKE, KECCAK, KMAC; CSHAKE from 4.0; whatever it adds
 * later) must be in ksumprov under each of the default's names, report the
 * same sizes and XOF flag, behave the same without an output length, and
 * give the same output for random inputs, update splits and parameters set
 * under the default's own names and types (xoflen, function-name,
 * customization, domain-separator, KMAC keys, custom, size, xof).  Where
 * the default provider accepts a call ksumprov must too; where it refuses
 * one ksumprov may accept (ksumprov takes longer strings and keys, for
 * example), and those cases are counted, not compared.
 *
 * The two providers live in two library contexts, so that a name only the
 * default provider registers does not reach ksumprov through the shared
 * name map.  Inputs come from a fixed seed: a failure replays.
 *
 * Usage: test_upstream_diff [TRIALS]   (per algorithm, default 150)
 */
#include <ctype.h>
#include <stddef.h>
#include <strings.h>

#include "testutil.h"

#define PROPS_K "provider=" KSUMPROV_NAME
#define MAX_FAILS 3 /* per algorithm: the first few tell the story */

static OSSL_LIB_CTX *lib_k, *lib_d;
static OSSL_PROVIDER *prov_k, *prov_d;
static int trials = 150, tolerated, compared;

static size_t rnd(size_t n)
{
    return n == 0 ? 0 : (size_t)(test_random_u64() % n);
}

/* Lengths near the edges that matter (empty, around the rate) more often
 * than plain random ones would. */
static size_t random_len(size_t rate, size_t max)
{
    switch (rnd(4)) {
    case 0:
        return rnd(8);
    case 1:
        return rate * (1 + rnd(3)) + rnd(3) - 1;
    case 2:
        return rnd(3 * rate);
    default:
        return rnd(max + 1);
    }
}

/* ---- library contexts ---- */

static void setup(void)
{
    lib_k = OSSL_LIB_CTX_new();
    lib_d = OSSL_LIB_CTX_new();
    if (lib_k == NULL || lib_d == NULL ||
        !OSSL_PROVIDER_add_builtin(lib_k, KSUMPROV_NAME, ksumprov_init) ||
        (prov_k = OSSL_PROVIDER_load(lib_k, KSUMPROV_NAME)) == NULL ||
        (prov_d = OSSL_PROVIDER_load(lib_d, "default")) == NULL) {
        fprintf(stderr, "cannot set up the library contexts\n");
        ERR_print_errors_fp(stderr);
        exit(2);
    }
}

static void teardown(void)
{
    OSSL_PROVIDER_unload(prov_k);
    OSSL_PROVIDER_unload(prov_d);
    OSSL_LIB_CTX_free(lib_k);
    OSSL_LIB_CTX_free(lib_d);
}

/* ---- the default provider's Keccak family ---- */

#define MAX_ALGS 32
#define MAX_NAMES 8

typedef struct alg {
    char *names[MAX_NAMES];
    int n_names;
    int is_mac;
} alg;

typedef struct alg_list {
    alg a[MAX_ALGS];
    int n;
    int is_mac;
} alg_list;

static int starts_with(const char *s, const char *prefix)
{
    return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

static int family_name(const char *name)
{
    static const char *const prefixes[] = {
        "SHA3-", "SHAKE", "KECCAK-", "CSHAKE", "KT1", "KT2", "KT-", "K12",
        "KANGAROOTWELVE", "TURBOSHAKE", "TUPLEHASH", "PARALLELHASH", "KMAC", NULL};

    for (int i = 0; prefixes[i] != NULL; i++)
        if (starts_with(name, prefixes[i]))
            return 1;
    return 0;
}

/* The default provider's helpers for KMAC and cSHAKE (KECCAK-KMAC-128,
 * CSHAKE-KECCAK-128): plumbing, not algorithms anyone asks for. */
static int helper_name(const char *name)
{
    return starts_with(name, "KECCAK-KMAC") || starts_with(name, "CSHAKE-KECCAK");
}

static void add_name(const char *name, void *data)
{
    alg *a = data;

    if (a->n_names < MAX_NAMES)
        a->names[a->n_names++] = strdup(name);
}

static void keep_if_family(alg_list *list, alg *a)
{
    int family = 0, helper = 0;

    for (int i = 0; i < a->n_names; i++) {
        family |= family_name(a->names[i]);
        helper |= helper_name(a->names[i]);
    }
    if (family && !helper && list->n < MAX_ALGS) {
        a->is_mac = list->is_mac;
        list->a[list->n++] = *a;
        return;
    }
    for (int i = 0; i < a->n_names; i++)
        free(a->names[i]);
}

static void collect_md(EVP_MD *md, void *data)
{
    alg a = {0};

    EVP_MD_names_do_all(md, add_name, &a);
    keep_if_family(data, &a);
}

static void collect_mac(EVP_MAC *mac, void *data)
{
    alg a = {0};

    EVP_MAC_names_do_all(mac, add_name, &a);
    keep_if_family(data, &a);
}

/* The name to fetch by: the first one that is not an OID. */
static const char *main_name(const alg *a)
{
    for (int i = 0; i < a->n_names; i++)
        if (!isdigit((unsigned char)a->names[i][0]))
            return a->names[i];
    return a->names[0];
}

/* ksumprov, alone in its context, answers to every name the default
 * provider has for the algorithm.  Returns a name it answers to (for the
 * comparisons to go on), or NULL. */
static const char *check_names(const alg *a)
{
    const char *usable = NULL;

    for (int i = 0; i < a->n_names; i++) {
        void *impl;
        ERR_set_mark();
        impl = a->is_mac ? (void *)EVP_MAC_fetch(lib_k, a->names[i], PROPS_K)
                         : (void *)EVP_MD_fetch(lib_k, a->names[i], PROPS_K);
        ERR_pop_to_mark();
        CHECK(impl != NULL, "%s: the default provider's name '%s' is not ksumprov's",
              main_name(a), a->names[i]);
        if (impl != NULL && usable == NULL)
            usable = a->names[i];
        if (a->is_mac)
            EVP_MAC_free(impl);
        else
            EVP_MD_free(impl);
    }
    return usable;
}

/* ---- random parameters under the default provider's names ---- */

typedef struct params {
    OSSL_PARAM p[8];
    int n;
    size_t xoflen, size;
    unsigned int domain;
    int xof;
    int n_str;
    uint8_t str[3][600];
} params;

/* A random string for a string parameter: printable for a UTF-8 one (no
 * NUL, which OpenSSL 4.0 would cut at), any bytes for an octet one. */
static size_t random_string(uint8_t *buf, size_t max, int utf8)
{
    size_t len = rnd(4) == 0 ? rnd(8) : rnd(max + 1);

    test_random(buf, len);
    for (size_t i = 0; utf8 && i < len; i++)
        buf[i] = (uint8_t)(' ' + buf[i] % 95);
    buf[len] = '\0';
    return len;
}

/* cSHAKE's N: the SP 800-185 names upstream accepts, sometimes another. */
static size_t random_function_name(uint8_t *buf, int utf8)
{
    static const char *const names[] = {"", "KMAC", "TupleHash", "ParallelHash"};

    if (rnd(4) == 0)
        return random_string(buf, 40, utf8);
    strcpy((char *)buf, names[rnd(4)]);
    return strlen((char *)buf);
}

static void add_string(params *pr, const OSSL_PARAM *def, int limit)
{
    uint8_t *buf = pr->str[pr->n_str++ % 3];
    int utf8 = def->data_type == OSSL_PARAM_UTF8_STRING;
    size_t len = strcmp(def->key, "function-name") == 0
                     ? random_function_name(buf, utf8)
                     : random_string(buf, (size_t)limit, utf8);

    pr->p[pr->n++] = utf8 ? OSSL_PARAM_construct_utf8_string(def->key, (char *)buf, len)
                          : OSSL_PARAM_construct_octet_string(def->key, buf, len);
}

/* Parameters for the names the default provider's digest or MAC settles;
 * xoflen/size only when with_length. */
static void random_params(params *pr, const OSSL_PARAM *settable, int with_length,
                          int is_mac)
{
    pr->n = pr->n_str = 0;
    for (const OSSL_PARAM *d = settable; d != NULL && d->key != NULL; d++) {
        if (pr->n == 7)
            break;
        if (strcmp(d->key, "xoflen") == 0 && with_length && rnd(2)) {
            pr->xoflen = rnd(300);
            pr->p[pr->n++] = OSSL_PARAM_construct_size_t(d->key, &pr->xoflen);
        } else if (strcmp(d->key, "size") == 0 && is_mac && rnd(3) == 0) {
            pr->size = 1 + rnd(rnd(8) == 0 ? 5000 : 300);
            pr->p[pr->n++] = OSSL_PARAM_construct_size_t(d->key, &pr->size);
        } else if (strcmp(d->key, "function-name") == 0 ||
                   strcmp(d->key, "customization") == 0 ||
                   strcmp(d->key, "custom") == 0) {
            if (rnd(5) != 0)
                add_string(pr, d, d->data_type == OSSL_PARAM_UTF8_STRING ? 511 : 512);
        } else if (strcmp(d->key, "domain-separator") == 0 && rnd(4) != 0) {
            pr->domain = (unsigned int)(1 + rnd(127));
            pr->p[pr->n++] = OSSL_PARAM_construct_uint(d->key, &pr->domain);
        } else if (strcmp(d->key, "xof") == 0 && rnd(2)) {
            pr->xof = (int)rnd(2);
            pr->p[pr->n++] = OSSL_PARAM_construct_int(d->key, &pr->xof);
        }
    }
    pr->p[pr->n] = OSSL_PARAM_construct_end();
}

static const char *describe(const params *pr)
{
    static char s[512];
    size_t used = 0;

    s[0] = '\0';
    for (int i = 0; i < pr->n && used < sizeof s - 64; i++) {
        const OSSL_PARAM *p = &pr->p[i];
        if (p->data_type == OSSL_PARAM_UTF8_STRING || p->data_type == OSSL_PARAM_OCTET_STRING)
            used += (size_t)snprintf(s + used, sizeof s - used, " %s(%s, %zu bytes)", p->key,
                                     p->data_type == OSSL_PARAM_UTF8_STRING ? "utf8" : "octets",
                                     p->data_size);
        else
            used += (size_t)snprintf(s + used, sizeof s - used, " %s", p->key);
    }
    return used ? s : " none";
}

/* ---- one digest computation, the same on either provider ---- */

enum ending { FINAL_XOF, FINAL_DEFAULT, SQUEEZE };

typedef struct run {
    const uint8_t *msg;
    size_t len;
    size_t pieces[16]; /* update sizes; the rest in one */
    int n_pieces;
    enum ending ending;
    size_t outlen;
    size_t squeezes[16];
    int n_squeezes;
    const OSSL_PARAM *params;
} run;

typedef struct result {
    int init_ok, update_ok, final_ok;
    int ctx_size; /* EVP_MD_CTX_get_size after init */
    size_t outlen;
    uint8_t out[8192];
} result;

static int update_in_pieces(EVP_MD_CTX *ctx, const run *r)
{
    size_t done = 0;

    for (int i = 0; i < r->n_pieces && done + r->pieces[i] <= r->len; i++) {
        if (!EVP_DigestUpdate(ctx, r->msg + done, r->pieces[i]))
            return 0;
        done += r->pieces[i];
    }
    return EVP_DigestUpdate(ctx, r->msg + done, r->len - done);
}

static int finish(EVP_MD_CTX *ctx, const run *r, result *res)
{
    unsigned int n = 0;

    switch (r->ending) {
    case FINAL_XOF:
        res->outlen = r->outlen;
        return EVP_DigestFinalXOF(ctx, res->out, r->outlen);
    case FINAL_DEFAULT:
        if (!EVP_DigestFinal_ex(ctx, res->out, &n))
            return 0;
        res->outlen = n;
        return 1;
    case SQUEEZE:
#ifdef KSUM_HAVE_SQUEEZE
        res->outlen = 0;
        for (int i = 0; i < r->n_squeezes; i++) {
            if (!EVP_DigestSqueeze(ctx, res->out + res->outlen, r->squeezes[i]))
                return 0;
            res->outlen += r->squeezes[i];
        }
        return 1;
#else
        return 0;
#endif
    }
    return 0;
}

static void compute(const EVP_MD *md, const run *r, result *res)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();

    memset(res, 0, offsetof(result, out));
    ERR_set_mark();
    res->init_ok = ctx != NULL && EVP_DigestInit_ex2(ctx, md, r->params);
    if (res->init_ok) {
        res->ctx_size = EVP_MD_CTX_get_size(ctx);
        res->update_ok = update_in_pieces(ctx, r);
    }
    if (res->update_ok)
        res->final_ok = finish(ctx, r, res);
    ERR_pop_to_mark();
    EVP_MD_CTX_free(ctx);
}

/* ---- comparing ---- */

typedef struct pair {
    const char *name;
    EVP_MD *k, *d;
    EVP_MAC *mk, *md;
    int fails;
    int squeeze; /* the default provider squeezes this one */
} pair;

static int is_xof_md(const EVP_MD *md)
{
    return (EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF) != 0;
}

static const char *ending_name(enum ending e)
{
    return e == FINAL_XOF ? "EVP_DigestFinalXOF"
           : e == SQUEEZE ? "EVP_DigestSqueeze"
                          : "EVP_DigestFinal_ex";
}

/* The outcomes of one run on both providers.  Returns 1 if they agree. */
static int same_outcome(pair *pp, int trial, const run *r, const params *pr,
                        const result *k, const result *d)
{
    const char *what = NULL;

    if (d->init_ok && !k->init_ok)
        what = "init refused";
    else if (d->update_ok && !k->update_ok)
        what = "update refused";
    else if (d->final_ok && !k->final_ok)
        what = "output refused";
    else if (r->ending == FINAL_DEFAULT && d->init_ok && d->update_ok &&
             !d->final_ok && k->final_ok)
        what = "accepted a final the default provider refuses (no output length)";
    else if (d->init_ok && k->init_ok && r->ending == FINAL_DEFAULT &&
             d->ctx_size != k->ctx_size)
        what = "EVP_MD_CTX_get_size differs";
    else if (d->final_ok && k->final_ok &&
             (d->outlen != k->outlen || memcmp(d->out, k->out, d->outlen) != 0))
        what = "outputs differ";
    if (what == NULL) {
        tolerated += !d->final_ok && k->final_ok;
        compared += d->final_ok;
        test_passes++;
        return 1;
    }
    pp->fails++;
    CHECK(0, "%s trial %d: %s (input %zu bytes in %d+1 updates, %s%s; "
             "params:%s; default: init %d update %d final %d, %zu bytes, ctx size %d; "
             "ksumprov: init %d update %d final %d, %zu bytes, ctx size %d)",
          pp->name, trial, what, r->len, r->n_pieces, ending_name(r->ending),
          r->ending == FINAL_DEFAULT ? "" : " of a chosen length", describe(pr),
          d->init_ok, d->update_ok, d->final_ok, d->outlen, d->ctx_size, k->init_ok,
          k->update_ok, k->final_ok, k->outlen, k->ctx_size);
    return 0;
}

static void random_pieces(size_t len, size_t *pieces, int *n)
{
    *n = (int)rnd(16);
    for (int i = 0; i < *n; i++)
        pieces[i] = rnd(3) == 0 ? 0 : rnd(len / 2 + 2);
}

static enum ending random_ending(const pair *pp, int xof)
{
    size_t pick = rnd(10);

    if (!xof || pick == 0)
        return FINAL_DEFAULT;
    if (pick <= 3 && pp->squeeze)
        return SQUEEZE;
    return FINAL_XOF;
}

static void digest_trial(pair *pp, int trial, uint8_t *msg, size_t max_msg)
{
    int xof = is_xof_md(pp->d);
    size_t rate = (size_t)EVP_MD_get_block_size(pp->d);
    run r = {0};
    params pr;
    static result k, d;

    r.ending = random_ending(pp, xof);
    r.len = random_len(rate, rnd(10) == 0 ? max_msg : 4 * rate);
    test_random(msg, r.len);
    r.msg = msg;
    random_pieces(r.len, r.pieces, &r.n_pieces);
    r.outlen = random_len(rate, rnd(10) == 0 ? sizeof k.out : 600);
    if (r.ending == SQUEEZE) {
        size_t left = r.outlen;
        for (r.n_squeezes = 0; r.n_squeezes < 15 && left > 0; r.n_squeezes++) {
            r.squeezes[r.n_squeezes] = rnd(4) == 0 ? 0 : 1 + rnd(left);
            left -= r.squeezes[r.n_squeezes];
        }
        r.squeezes[r.n_squeezes++] = left;
    }
    random_params(&pr, EVP_MD_settable_ctx_params(pp->d), r.ending == FINAL_XOF, 0);
    r.params = pr.p;
    compute(pp->d, &r, &d);
    compute(pp->k, &r, &k);
    same_outcome(pp, trial, &r, &pr, &k, &d);
}

/* Whether the default provider squeezes this digest (OpenSSL 3.3+). */
static int default_squeezes(const EVP_MD *md)
{
#ifdef KSUM_HAVE_SQUEEZE
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    uint8_t out[8];
    int ok;

    ERR_set_mark();
    ok = ctx != NULL && is_xof_md(md) && EVP_DigestInit_ex2(ctx, md, NULL) &&
         EVP_DigestSqueeze(ctx, out, sizeof out);
    ERR_pop_to_mark();
    EVP_MD_CTX_free(ctx);
    return ok;
#else
    (void)md;
    return 0;
#endif
}

static void compare_md_sizes(const pair *pp)
{
    CHECK(EVP_MD_get_size(pp->k) == EVP_MD_get_size(pp->d),
          "%s: EVP_MD_get_size %d, the default provider's %d", pp->name,
          EVP_MD_get_size(pp->k), EVP_MD_get_size(pp->d));
    CHECK(EVP_MD_get_block_size(pp->k) == EVP_MD_get_block_size(pp->d),
          "%s: block size %d, the default provider's %d", pp->name,
          EVP_MD_get_block_size(pp->k), EVP_MD_get_block_size(pp->d));
    CHECK(is_xof_md(pp->k) == is_xof_md(pp->d), "%s: XOF flag %d, the default's %d",
          pp->name, is_xof_md(pp->k), is_xof_md(pp->d));
}

static void compare_digest(const alg *a, uint8_t *msg, size_t max_msg)
{
    const char *name = check_names(a);
    pair pp = {main_name(a), NULL, NULL, NULL, NULL, 0, 0};

    if (name == NULL)
        return;
    pp.k = EVP_MD_fetch(lib_k, name, PROPS_K);
    pp.d = EVP_MD_fetch(lib_d, main_name(a), NULL);
    CHECK(pp.k != NULL && pp.d != NULL, "%s: fetch", pp.name);
    if (pp.k != NULL && pp.d != NULL) {
        pp.squeeze = default_squeezes(pp.d);
        compare_md_sizes(&pp);
        for (int t = 0; t < trials && pp.fails < MAX_FAILS; t++)
            digest_trial(&pp, t, msg, max_msg);
        if (pp.fails >= MAX_FAILS)
            fprintf(stderr, "%s: stopped after %d differences\n", pp.name, MAX_FAILS);
    }
    EVP_MD_free(pp.k);
    EVP_MD_free(pp.d);
}

/* ---- KMAC ---- */

typedef struct mac_result {
    int init_ok, update_ok, final_ok;
    size_t size_before, size_after, outlen;
    uint8_t out[6000];
} mac_result;

typedef struct mac_run {
    const uint8_t *key, *msg;
    size_t key_len, len;
    size_t pieces[16];
    int n_pieces;
    int final_xof;
    size_t outlen;
    const OSSL_PARAM *params;
} mac_run;

static int mac_update_in_pieces(EVP_MAC_CTX *ctx, const mac_run *r)
{
    size_t done = 0;

    for (int i = 0; i < r->n_pieces && done + r->pieces[i] <= r->len; i++) {
        if (!EVP_MAC_update(ctx, r->msg + done, r->pieces[i]))
            return 0;
        done += r->pieces[i];
    }
    return EVP_MAC_update(ctx, r->msg + done, r->len - done);
}

static void mac_compute(EVP_MAC *mac, const mac_run *r, mac_result *res)
{
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);

    memset(res, 0, offsetof(mac_result, out));
    ERR_set_mark();
    if (ctx != NULL) {
        res->size_before = EVP_MAC_CTX_get_mac_size(ctx);
        res->init_ok = EVP_MAC_init(ctx, r->key, r->key_len, r->params);
    }
    if (res->init_ok) {
        res->size_after = EVP_MAC_CTX_get_mac_size(ctx);
        res->update_ok = mac_update_in_pieces(ctx, r);
    }
    if (res->update_ok && r->final_xof) {
        res->final_ok = EVP_MAC_finalXOF(ctx, res->out, r->outlen);
        res->outlen = r->outlen;
    } else if (res->update_ok) {
        res->final_ok = EVP_MAC_final(ctx, res->out, &res->outlen, sizeof res->out);
    }
    ERR_pop_to_mark();
    EVP_MAC_CTX_free(ctx);
}

static int same_mac_outcome(pair *pp, int trial, const mac_run *r, const params *pr,
                            const mac_result *k, const mac_result *d)
{
    const char *what = NULL;

    if (d->size_before != k->size_before)
        what = "MAC size before init differs";
    else if (d->init_ok && !k->init_ok)
        what = "init refused";
    else if (d->init_ok && d->size_after != k->size_after)
        what = "MAC size after init differs";
    else if (d->update_ok && !k->update_ok)
        what = "update refused";
    else if (d->final_ok && !k->final_ok)
        what = "final refused";
    else if (d->final_ok && (d->outlen != k->outlen || memcmp(d->out, k->out, d->outlen) != 0))
        what = "outputs differ";
    if (what == NULL) {
        tolerated += !d->final_ok && k->final_ok;
        compared += d->final_ok;
        test_passes++;
        return 1;
    }
    pp->fails++;
    CHECK(0, "%s trial %d: %s (key %zu bytes, input %zu bytes in %d+1 updates, %s; "
             "params:%s; default: %d/%d/%d, %zu bytes; ksumprov: %d/%d/%d, %zu bytes)",
          pp->name, trial, what, r->key_len, r->len, r->n_pieces,
          r->final_xof ? "EVP_MAC_finalXOF" : "EVP_MAC_final", describe(pr), d->init_ok,
          d->update_ok, d->final_ok, d->outlen, k->init_ok, k->update_ok, k->final_ok,
          k->outlen);
    return 0;
}

static void mac_trial(pair *pp, int trial, uint8_t *msg, size_t max_msg)
{
    static mac_result k, d;
    uint8_t key[512];
    mac_run r = {0};
    params pr;

    /* The default provider takes keys of 4 to 512 bytes. */
    r.key_len = rnd(4) == 0 ? (rnd(2) ? 4 : 512) : 4 + rnd(509);
    test_random(key, r.key_len);
    r.key = key;
    r.len = random_len(168, rnd(10) == 0 ? max_msg : 600);
    test_random(msg, r.len);
    r.msg = msg;
    random_pieces(r.len, r.pieces, &r.n_pieces);
    r.final_xof = rnd(3) == 0;
    r.outlen = 1 + rnd(rnd(5) == 0 ? sizeof k.out : 200);
    random_params(&pr, EVP_MAC_settable_ctx_params(pp->md), 1, 1);
    r.params = pr.p;
    mac_compute(pp->md, &r, &d);
    mac_compute(pp->mk, &r, &k);
    same_mac_outcome(pp, trial, &r, &pr, &k, &d);
}

static void compare_mac(const alg *a, uint8_t *msg, size_t max_msg)
{
    const char *name = check_names(a);
    pair pp = {main_name(a), NULL, NULL, NULL, NULL, 0, 0};

    if (name == NULL)
        return;
    pp.mk = EVP_MAC_fetch(lib_k, name, PROPS_K);
    pp.md = EVP_MAC_fetch(lib_d, main_name(a), NULL);
    CHECK(pp.mk != NULL && pp.md != NULL, "%s: fetch", pp.name);
    for (int t = 0; pp.mk != NULL && pp.md != NULL && t < trials && pp.fails < MAX_FAILS; t++)
        mac_trial(&pp, t, msg, max_msg);
    if (pp.fails >= MAX_FAILS)
        fprintf(stderr, "%s: stopped after %d differences\n", pp.name, MAX_FAILS);
    EVP_MAC_free(pp.mk);
    EVP_MAC_free(pp.md);
}

static void print_list(const char *what, const alg_list *l)
{
    printf("%s:", what);
    for (int i = 0; i < l->n; i++)
        printf(" %s", main_name(&l->a[i]));
    printf("%s\n", l->n ? "" : " none");
}

static void free_list(alg_list *l)
{
    for (int i = 0; i < l->n; i++)
        for (int j = 0; j < l->a[i].n_names; j++)
            free(l->a[i].names[j]);
}

int main(int argc, char **argv)
{
    static alg_list mds, macs;
    size_t max_msg = 70000; /* past KT's 8 KiB chunks several times */
    uint8_t *msg = malloc(max_msg + 1);

    if (argc > 1)
        trials = atoi(argv[1]);
    setup();
    printf("OpenSSL %s (headers: %s)\n", OpenSSL_version(OPENSSL_VERSION_STRING),
           OPENSSL_VERSION_TEXT);
    mds.is_mac = 0;
    EVP_MD_do_all_provided(lib_d, collect_md, &mds);
    macs.is_mac = 1;
    EVP_MAC_do_all_provided(lib_d, collect_mac, &macs);
    print_list("default provider digests compared", &mds);
    print_list("default provider MACs compared", &macs);
    CHECK(mds.n > 0 && macs.n > 0, "the default provider has no Keccak family?");
    for (int i = 0; i < mds.n; i++)
        compare_digest(&mds.a[i], msg, max_msg);
    for (int i = 0; i < macs.n; i++)
        compare_mac(&macs.a[i], msg, max_msg);
    printf("%d trials per algorithm: %d outputs compared; %d calls the default "
           "provider refused and ksumprov accepted\n", trials, compared, tolerated);
    free_list(&mds);
    free_list(&macs);
    free(msg);
    teardown();
    return test_summary("test_upstream_diff");
}
