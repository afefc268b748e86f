/* SPDX-License-Identifier: Apache-2.0 */
/*
 * EVP_DigestSqueeze (OpenSSL 3.3+) on every XOF of ksumprov.
 *
 * - Random pieces of output, some empty, concatenate to one
 *   EVP_DigestFinalXOF of the whole length, for random inputs, update
 *   splits and parameters, with and without an output length set first; a
 *   copy made halfway (EVP_MD_CTX_dup) squeezes on the same.
 * - For the XOFs the default provider has too (SHAKE128/256, CSHAKE on 4.0)
 *   the same pieces give the default provider's bytes.
 * - Calls after squeezing (update, final, squeeze after final, a squeeze of
 *   nothing before any data) succeed or fail as the default provider's
 *   SHAKE128 does.
 *
 * Built only when the OpenSSL headers declare EVP_DigestSqueeze.
 * Usage: test_squeeze [TRIALS]   (per XOF, default 60)
 */
#include <stddef.h>

#include "testutil.h"

#define PROPS_K "provider=" KSUMPROV_NAME
#define MAX_OUT 20000
#define MAX_FAILS 3 /* failing trials per XOF: the first few tell the story */

static OSSL_LIB_CTX *lib_k, *lib_d;
static OSSL_PROVIDER *prov_k, *prov_d;

static size_t rnd(size_t n)
{
    return n == 0 ? 0 : (size_t)(test_random_u64() % n);
}

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

/* ---- ksumprov's XOFs ---- */

#define MAX_XOFS 32

typedef struct xof_list {
    EVP_MD *md[MAX_XOFS];
    int n;
} xof_list;

static int is_xof(const EVP_MD *md)
{
    return (EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF) != 0;
}

/* A tree in parts (KT128-CV, KT128-FINAL, ...): its input is a range or
 * chaining values, not a message (test_parts.c covers it). */
static int is_part_algorithm(const EVP_MD *md)
{
    const char *name = EVP_MD_get0_name(md);
    size_t n = name != NULL ? strlen(name) : 0;

    return (n > 3 && strcmp(name + n - 3, "-CV") == 0) ||
           (n > 6 && strcmp(name + n - 6, "-FINAL") == 0);
}

static void collect(EVP_MD *md, void *data)
{
    xof_list *l = data;

    if (is_xof(md) && !is_part_algorithm(md) && l->n < MAX_XOFS && EVP_MD_up_ref(md))
        l->md[l->n++] = md;
}

/* ---- random parameters from ksumprov's settable list ---- */

typedef struct params {
    OSSL_PARAM p[10];
    int n;
    size_t xoflen, block_size;
    unsigned int domain;
    int xof;
    uint8_t str[2][300];
    int n_str;
} params;

static int has_key(const params *pr, const char *a, const char *b)
{
    for (int i = 0; i < pr->n; i++)
        if (strcmp(pr->p[i].key, a) == 0 || strcmp(pr->p[i].key, b) == 0)
            return 1;
    return 0;
}

static void add_string(params *pr, const OSSL_PARAM *def)
{
    uint8_t *buf = pr->str[pr->n_str++ % 2];
    size_t len = rnd(3) == 0 ? rnd(4) : rnd(sizeof pr->str[0]);
    int utf8 = def->data_type == OSSL_PARAM_UTF8_STRING;

    test_random(buf, len);
    for (size_t i = 0; utf8 && i < len; i++)
        buf[i] = (uint8_t)('a' + buf[i] % 26);
    buf[len] = '\0';
    pr->p[pr->n++] = utf8 ? OSSL_PARAM_construct_utf8_string(def->key, (char *)buf, len)
                          : OSSL_PARAM_construct_octet_string(def->key, buf, len);
}

/* Random values for the parameters the XOF takes (either spelling of a
 * name, not both); an output length of L when L is not 0, and otherwise
 * XOF mode where a mode's output depends on the length. */
static void random_params(params *pr, const EVP_MD *md, size_t L)
{
    const OSSL_PARAM *settable = EVP_MD_settable_ctx_params(md);

    pr->n = pr->n_str = 0;
    for (const OSSL_PARAM *d = settable; d != NULL && d->key != NULL && pr->n < 8; d++) {
        const char *k = d->key;
        if ((strcmp(k, "custom") == 0 || strcmp(k, "customization") == 0) &&
            !has_key(pr, "custom", "customization") && rnd(3) != 0) {
            add_string(pr, d);
        } else if (strcmp(k, "function-name") == 0 && rnd(3) != 0) {
            add_string(pr, d);
        } else if ((strcmp(k, "domain") == 0 || strcmp(k, "domain-separator") == 0) &&
                   !has_key(pr, "domain", "domain-separator") && rnd(3) != 0) {
            pr->domain = (unsigned int)(1 + rnd(127));
            pr->p[pr->n++] = OSSL_PARAM_construct_uint(k, &pr->domain);
        } else if (strcmp(k, "block-size") == 0 && rnd(2)) {
            pr->block_size = 1 + rnd(300);
            pr->p[pr->n++] = OSSL_PARAM_construct_size_t(k, &pr->block_size);
        } else if (strcmp(k, "xof") == 0 && (L == 0 || rnd(2))) {
            pr->xof = L == 0 ? 1 : (int)rnd(2);
            pr->p[pr->n++] = OSSL_PARAM_construct_int(k, &pr->xof);
        }
    }
    if (L != 0) {
        pr->xoflen = L;
        pr->p[pr->n++] = OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_XOFLEN, &pr->xoflen);
    }
    pr->p[pr->n] = OSSL_PARAM_construct_end();
}

/* ---- squeezing ---- */

static int update_in_pieces(EVP_MD_CTX *ctx, const uint8_t *msg, size_t len)
{
    size_t done = 0;

    while (done < len) {
        size_t n = rnd(4) == 0 ? 0 : 1 + rnd(len - done);
        if (!EVP_DigestUpdate(ctx, msg + done, n))
            return 0;
        done += n;
    }
    return 1;
}

/* Piece sizes, some empty, adding up to L. */
static int random_pieces(size_t L, size_t *pieces, int max)
{
    int n = 0;
    size_t left = L;

    while (n < max - 1 && left > 0 && rnd(6) != 0) {
        pieces[n] = rnd(4) == 0 ? 0 : 1 + rnd(rnd(2) ? left : 200 < left ? 200 : left);
        left -= pieces[n++];
    }
    pieces[n++] = left;
    return n;
}

static int squeeze_pieces(EVP_MD_CTX *ctx, uint8_t *out, const size_t *pieces, int from,
                          int to)
{
    for (int i = from; i < to; i++) {
        if (!EVP_DigestSqueeze(ctx, out, pieces[i]))
            return 0;
        out += pieces[i];
    }
    return 1;
}

static size_t sum(const size_t *pieces, int n)
{
    size_t s = 0;

    for (int i = 0; i < n; i++)
        s += pieces[i];
    return s;
}

/* One trial: squeezed in pieces (and, from a copy made after the first
 * piece, again) against one final of the whole length. */
static void squeeze_trial(const EVP_MD *md, int trial, uint8_t *msg, uint8_t *bufs[3])
{
    const char *name = EVP_MD_get0_name(md);
    size_t L = rnd(8) == 0 ? rnd(MAX_OUT + 1) : rnd(700);
    size_t len = rnd(8) == 0 ? rnd(40000) : rnd(600), pieces[40];
    int set_len = rnd(2), n = random_pieces(L, pieces, 40);
    params pr;
    EVP_MD_CTX *a = EVP_MD_CTX_new(), *b = EVP_MD_CTX_new(), *copy = NULL;
    int ok;

    test_random(msg, len);
    random_params(&pr, md, set_len ? L : 0);
    /* TupleHash takes each update as an element: one update, then. */
    int elements = strncmp(name, "TUPLEHASH", 9) == 0;
    ok = a != NULL && b != NULL && EVP_DigestInit_ex2(a, md, pr.p) &&
         (elements ? EVP_DigestUpdate(a, msg, len) : update_in_pieces(a, msg, len)) &&
         squeeze_pieces(a, bufs[0], pieces, 0, 1);
    copy = ok ? EVP_MD_CTX_dup(a) : NULL;
    ok = ok && copy != NULL && squeeze_pieces(a, bufs[0] + pieces[0], pieces, 1, n) &&
         squeeze_pieces(copy, bufs[2] + pieces[0], pieces, 1, n);
    /* The reference: the same parameters, the whole length at once. */
    ok = ok && EVP_DigestInit_ex2(b, md, pr.p) && EVP_DigestUpdate(b, msg, len) &&
         EVP_DigestFinalXOF(b, bufs[1], L);
    CHECK(ok, "%s trial %d: squeezing failed (input %zu, output %zu in %d pieces%s)", name,
          trial, len, L, n, set_len ? ", xoflen set" : "");
    CHECK(!ok || memcmp(bufs[0], bufs[1], L) == 0,
          "%s trial %d: %d squeezed pieces differ from one final of %zu bytes "
          "(input %zu%s, %d params)", name, trial, n, L, len,
          set_len ? ", xoflen set" : "", pr.n);
    CHECK(!ok || memcmp(bufs[2] + pieces[0], bufs[1] + pieces[0], L - pieces[0]) == 0,
          "%s trial %d: a copy made after %zu squeezed bytes goes on differently", name,
          trial, pieces[0]);
    ERR_clear_error();
    EVP_MD_CTX_free(a);
    EVP_MD_CTX_free(b);
    EVP_MD_CTX_free(copy);
}

/* The same pieces from ksumprov and from the default provider. */
static void default_trial(const EVP_MD *k, const EVP_MD *d, int trial, uint8_t *msg,
                          uint8_t *bufs[3])
{
    size_t L = rnd(8) == 0 ? rnd(MAX_OUT + 1) : rnd(700), len = rnd(1000), pieces[40];
    int n = random_pieces(L, pieces, 40), ok_k, ok_d;
    EVP_MD_CTX *ck = EVP_MD_CTX_new(), *cd = EVP_MD_CTX_new();

    test_random(msg, len);
    ok_k = ck != NULL && EVP_DigestInit_ex2(ck, k, NULL) && EVP_DigestUpdate(ck, msg, len) &&
           squeeze_pieces(ck, bufs[0], pieces, 0, n);
    ok_d = cd != NULL && EVP_DigestInit_ex2(cd, d, NULL) && EVP_DigestUpdate(cd, msg, len) &&
           squeeze_pieces(cd, bufs[1], pieces, 0, n);
    CHECK(ok_k && ok_d && memcmp(bufs[0], bufs[1], sum(pieces, n)) == 0,
          "%s trial %d: squeezing %zu bytes in %d pieces after %zu bytes of input: "
          "ksumprov %s, the default provider %s", EVP_MD_get0_name(k), trial, L, n, len,
          ok_k ? "squeezed" : "failed", ok_d ? "squeezed" : "failed");
    ERR_clear_error();
    EVP_MD_CTX_free(ck);
    EVP_MD_CTX_free(cd);
}

/* ---- calls after squeezing, as the default provider's SHAKE128 ---- */

enum step { UPDATE, SQUEEZE, FINAL, SQUEEZE_NOTHING };

typedef struct sequence {
    const char *what;
    enum step steps[4];
    int n;
} sequence;

/* The first is refused by OpenSSL 3.3 to 3.5's default provider only
 * after the update (which it accepts, to fail later) and by 4.0 at the
 * update; ksumprov refuses the update everywhere, and the check allows
 * that one difference. */
static const sequence sequences[] = {
    {"update after squeeze", {SQUEEZE, UPDATE}, 2},
    {"final after squeeze", {SQUEEZE, FINAL}, 2},
    {"squeeze after final", {FINAL, SQUEEZE}, 2},
    {"squeeze of nothing, then update and squeeze", {SQUEEZE_NOTHING, UPDATE, SQUEEZE}, 3},
    {"squeeze of nothing after squeezing", {SQUEEZE, SQUEEZE_NOTHING, SQUEEZE}, 3},
};

/* Runs the steps after an init and an update of "abc"; the outcome of each
 * step and the bytes output, into out.  A mode that hashes its output
 * length in (ParallelHash, TupleHash) is played as an XOF: without, its
 * output stops at that length (test_provider.c). */
static void play(const EVP_MD *md, const sequence *s, int *ok, uint8_t *out)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int xof = 1;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_int(KSUM_PARAM_XOF, &xof), OSSL_PARAM_END};
    int as_xof = OSSL_PARAM_locate_const(EVP_MD_settable_ctx_params(md), KSUM_PARAM_XOF) != NULL;
    int alive = ctx != NULL && EVP_DigestInit_ex2(ctx, md, as_xof ? p : NULL) &&
                EVP_DigestUpdate(ctx, "abc", 3);

    memset(out, 0, 64);
    for (int i = 0; i < s->n; i++) {
        uint8_t *o = out + 16 * i;
        ERR_set_mark();
        switch (s->steps[i]) {
        case UPDATE:
            ok[i] = alive && EVP_DigestUpdate(ctx, "def", 3);
            break;
        case SQUEEZE:
            ok[i] = alive && EVP_DigestSqueeze(ctx, o, 16);
            break;
        case SQUEEZE_NOTHING:
            ok[i] = alive && EVP_DigestSqueeze(ctx, o, 0);
            break;
        case FINAL:
            ok[i] = alive && EVP_DigestFinalXOF(ctx, o, 16);
            break;
        }
        ERR_pop_to_mark();
    }
    EVP_MD_CTX_free(ctx);
}

static void check_sequences(const EVP_MD *md, const EVP_MD *shake_d, const EVP_MD *shake_k)
{
    for (size_t i = 0; i < sizeof sequences / sizeof sequences[0]; i++) {
        const sequence *s = &sequences[i];
        int ok_k[4] = {0}, ok_d[4] = {0};
        uint8_t out_k[64], out_d[64];

        play(shake_d, s, ok_d, out_d);
        play(md, s, ok_k, out_k);
        if (i == 0 && ok_d[1] && !ok_k[1])
            ok_d[1] = 0;    /* stricter than 3.3-3.5, as 4.0 */
        CHECK(memcmp(ok_k, ok_d, sizeof ok_k) == 0,
              "%s: %s: steps %d %d %d, the default provider's SHAKE128 %d %d %d",
              EVP_MD_get0_name(md), s->what, ok_k[0], ok_k[1], ok_k[2], ok_d[0], ok_d[1],
              ok_d[2]);
        if (md == shake_k)
            CHECK(memcmp(out_k, out_d, sizeof out_k) == 0, "SHAKE128: %s: other bytes",
                  s->what);
    }
}

int main(int argc, char **argv)
{
    static xof_list xofs;
    int trials = argc > 1 ? atoi(argv[1]) : 60;
    uint8_t *msg = malloc(40000), *bufs[3];
    EVP_MD *shake_d, *shake_k;

    setup();
    for (int i = 0; i < 3; i++)
        bufs[i] = calloc(1, MAX_OUT);
    printf("OpenSSL %s (headers: %s)\n", OpenSSL_version(OPENSSL_VERSION_STRING),
           OPENSSL_VERSION_TEXT);
    EVP_MD_do_all_provided(lib_k, collect, &xofs);
    shake_d = EVP_MD_fetch(lib_d, "SHAKE128", NULL);
    shake_k = EVP_MD_fetch(lib_k, "SHAKE128", PROPS_K);
    CHECK(xofs.n >= 10 && shake_d != NULL && shake_k != NULL,
          "ksumprov's XOFs or the default provider's SHAKE128 not found");
    printf("ksumprov XOFs squeezed:");
    for (int i = 0; i < xofs.n; i++)
        printf(" %s", EVP_MD_get0_name(xofs.md[i]));
    printf("\ncompared with the default provider:");
    for (int i = 0; i < xofs.n; i++) {
        const EVP_MD *k = xofs.md[i];
        EVP_MD *d;

        ERR_set_mark();
        d = EVP_MD_fetch(lib_d, EVP_MD_get0_name(k), NULL);
        ERR_pop_to_mark();
        int before = test_failures;
        for (int t = 0; t < trials && test_failures - before < MAX_FAILS; t++)
            squeeze_trial(k, t, msg, bufs);
        if (d != NULL) {
            printf(" %s", EVP_MD_get0_name(k));
            for (int t = 0; t < trials && test_failures - before < MAX_FAILS; t++)
                default_trial(k, d, t, msg, bufs);
        }
        if (test_failures - before >= MAX_FAILS)
            fprintf(stderr, "%s: stopped after %d failures\n", EVP_MD_get0_name(k),
                    MAX_FAILS);
        if (shake_d != NULL)
            check_sequences(k, shake_d, shake_k);
        EVP_MD_free(d);
        EVP_MD_free(xofs.md[i]);
    }
    printf("\n");
    EVP_MD_free(shake_d);
    EVP_MD_free(shake_k);
    for (int i = 0; i < 3; i++)
        free(bufs[i]);
    free(msg);
    OSSL_PROVIDER_unload(prov_k);
    OSSL_PROVIDER_unload(prov_d);
    OSSL_LIB_CTX_free(lib_k);
    OSSL_LIB_CTX_free(lib_d);
    return test_summary("test_squeeze");
}
