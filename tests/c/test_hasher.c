/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CLI's hasher owns what it sends: the OSSL_PARAMs
 * of an init point into the hasher's own storage (numbers) or at the
 * spec's bytes (strings and the key), hasher_set_size and hasher_join
 * change them, keeping their places, a batch id of 0 takes the id out, and what is sent
 * gives the digest EVP gives for the same parameters.  The options come
 * from a command line, through options_parse and options_resolve.
 */
#include <getopt.h>

#include "front/hasher.h"
#include "front/options.h"
#include "front/resolve.h"
/* CHECK only: testutil itself is not linked (it and the CLI both have a
 * hex_decode). */
#include "testutil.h"

int test_failures, test_passes;

static OSSL_LIB_CTX *lib;

/* The options and hasher of a command line; 0 when they are refused. */
static int open_for(char **argv, options *o, resolved *r, hasher *h)
{
    int argc = 0;

    while (argv[argc] != NULL)
        argc++;
    optind = 0;     /* getopt starts over */
    return options_parse(o, argc, argv) && options_judge(o) &&
           options_resolve(o, lib, r) && hasher_open(h, lib, r->alg, &r->hash);
}

static const OSSL_PARAM *sent(const hasher *h, const char *key)
{
    return OSSL_PARAM_locate_const(h->sent.p, key);
}

/* How many parameters are sent. */
static size_t count_sent(const hasher *h)
{
    size_t n = 0;

    while (h->sent.p[n].key != NULL)
        n++;
    return n;
}

/* Every number sent lies in the hasher's own storage. */
static int owns_its_numbers(const hasher *h)
{
    for (size_t i = 0; i < count_sent(h); i++)
        if (h->sent.p[i].data_type != OSSL_PARAM_OCTET_STRING &&
            ((const char *)h->sent.p[i].data < (const char *)h ||
             (const char *)h->sent.p[i].data >= (const char *)(h + 1)))
            return 0;
    return 1;
}

static size_t size_sent(const hasher *h, const char *key)
{
    size_t v = 0;
    const OSSL_PARAM *p = sent(h, key);

    return p != NULL && OSSL_PARAM_get_size_t(p, &v) ? v : 0;
}

/* cSHAKE128 of "abc" through the hasher, against EVP with the same
 * parameters written out. */
static void test_digest_is_evps(hasher *h, size_t len)
{
    uint8_t got[64], want[64];
    const char *custom = "foo";
    OSSL_PARAM p[] = {
        OSSL_PARAM_construct_octet_string(KSUM_PARAM_CUSTOM, (void *)custom, 3),
        OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_XOFLEN, &len),
        OSSL_PARAM_END};
    EVP_MD *md = EVP_MD_fetch(lib, "CSHAKE128", "provider=" KSUMPROV_NAME);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();

    CHECK(md != NULL && ctx != NULL && EVP_DigestInit_ex2(ctx, md, p) &&
          EVP_DigestUpdate(ctx, "abc", 3) && EVP_DigestFinalXOF(ctx, want, len),
          "EVP's own cSHAKE128");
    CHECK(hasher_begin(h) && hasher_update(h, (const uint8_t *)"abc", 3) &&
          hasher_end(h, got) && memcmp(got, want, len) == 0,
          "the hasher's cSHAKE128 at %zu bytes", len);
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
}

static void test_setters_change_in_place(void)
{
    char *argv[] = {"ksum", "--cshake128", "-C", "foo", "-n", "40", NULL};
    options o;
    resolved r;
    hasher h;
    size_t n;
    const OSSL_PARAM *xoflen_at;

    if (!open_for(argv, &o, &r, &h)) {
        CHECK(0, "ksum --cshake128 -C foo -n 40");
        options_free(&o);
        return;
    }
    n = count_sent(&h);
    xoflen_at = sent(&h, OSSL_DIGEST_PARAM_XOFLEN);
    CHECK(sent(&h, KSUM_PARAM_CUSTOM) != NULL &&
          sent(&h, KSUM_PARAM_CUSTOM)->data_size == 3 &&
          memcmp(sent(&h, KSUM_PARAM_CUSTOM)->data, "foo", 3) == 0, "-C foo is sent");
    CHECK(size_sent(&h, OSSL_DIGEST_PARAM_XOFLEN) == 40 && owns_its_numbers(&h),
          "-n 40 is sent, from the hasher's own storage");
    test_digest_is_evps(&h, 40);
    hasher_set_size(&h, 17);
    CHECK(h.size == 17 && size_sent(&h, OSSL_DIGEST_PARAM_XOFLEN) == 17 &&
              count_sent(&h) == n && sent(&h, OSSL_DIGEST_PARAM_XOFLEN) == xoflen_at,
          "hasher_set_size changes the length sent, in its place");
    test_digest_is_evps(&h, 17);
    CHECK((h.facts.takes & TAKES_BATCH) != 0, "cSHAKE128 batches");
    hasher_join(&h, 7);
    hasher_join(&h, 9);
    CHECK(count_sent(&h) == n + 1 && sent(&h, KSUM_PARAM_BATCH) != NULL && owns_its_numbers(&h),
          "one batch id, the last");
    hasher_set_size(&h, 33);
    hasher_join(&h, 0);
    CHECK(count_sent(&h) == n && sent(&h, KSUM_PARAM_BATCH) == NULL && owns_its_numbers(&h) &&
          size_sent(&h, OSSL_DIGEST_PARAM_XOFLEN) == 33, "id 0 takes the id out");
    test_digest_is_evps(&h, 33);
    hasher_close(&h);
    options_free(&o);
}

/* KMAC's length is "size"; its key is the options' bytes. */
static void test_a_mac(void)
{
    char *argv[] = {"ksum", "--kmac128", "-k", "0011", "-x", "-n", "5", NULL};
    options o;
    resolved r;
    hasher h;
    const OSSL_PARAM *key;

    if (!open_for(argv, &o, &r, &h)) {
        CHECK(0, "ksum --kmac128 -k 0011 -x -n 5");
        options_free(&o);
        return;
    }
    key = sent(&h, OSSL_MAC_PARAM_KEY);
    CHECK(key != NULL && key->data == o.key && key->data_size == 2, "the key is -k's bytes");
    CHECK(size_sent(&h, OSSL_MAC_PARAM_SIZE) == 5 && hasher_is_xof(&h), "-x -n 5");
    hasher_set_size(&h, 9);
    CHECK(size_sent(&h, OSSL_MAC_PARAM_SIZE) == 9 && owns_its_numbers(&h) &&
          sent(&h, OSSL_DIGEST_PARAM_XOFLEN) == NULL, "a MAC's length is its size");
    CHECK(hasher_begin(&h), "KMACXOF128 begins");
    hasher_close(&h);
    options_free(&o);
}

int main(void)
{
    OSSL_PROVIDER *prov;

    lib = OSSL_LIB_CTX_new();
    if (lib == NULL || !OSSL_PROVIDER_add_builtin(lib, KSUMPROV_NAME, ksumprov_init) ||
        (prov = OSSL_PROVIDER_load(lib, KSUMPROV_NAME)) == NULL) {
        fprintf(stderr, "cannot set up the library context\n");
        return 2;
    }
    test_setters_change_in_place();
    test_a_mac();
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(lib);
    printf("test_hasher: %d passed, %d failed\n", test_passes, test_failures);
    return test_failures == 0 ? 0 : 1;
}
