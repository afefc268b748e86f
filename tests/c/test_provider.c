/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Provider behaviour through EVP: differential tests against OpenSSL's
 * default provider, update-split invariance, dupctx, reuse, long outputs,
 * names, flags, parameter errors, and many threads on shared objects.
 */
#include <pthread.h>

#include "../../provider/permutation/keccak_p.h"
#include "testutil.h"

static OSSL_LIB_CTX *lib;
#define OURS "provider=ksumprov"
#define THEIRS "provider=default"

static const char *const all_digests[] = {
    "SHA3-224", "SHA3-256", "SHA3-384", "SHA3-512", "SHAKE128", "SHAKE256",
    "RAWSHAKE128", "RAWSHAKE256", "KECCAK-224", "KECCAK-256", "KECCAK-384",
    "KECCAK-512", "CSHAKE128", "CSHAKE256", "PARALLELHASH128",
    "PARALLELHASH256", "KANGAROOTWELVE", "KT256", "MARSUPILAMIFOURTEEN",
    "TURBOSHAKE128", "TURBOSHAKE256", NULL};

/* Final of n bytes: EVP_DigestFinalXOF for an XOF, EVP_DigestFinal_ex
 * (which must give n) for a fixed-length digest, which has no length to
 * set. */
static int final_any(EVP_MD_CTX *ctx, uint8_t *out, size_t n)
{
    unsigned int got = 0;

    if (EVP_MD_get_flags(EVP_MD_CTX_get0_md(ctx)) & EVP_MD_FLAG_XOF)
        return EVP_DigestFinalXOF(ctx, out, n);
    return EVP_DigestFinal_ex(ctx, out, &got) && got == n;
}

/* Hashes in with random update sizes (or one update when split is 0). */
static int digest_split(const char *name, const char *props,
                        const OSSL_PARAM *params, const uint8_t *in,
                        size_t len, uint8_t *out, size_t outlen, int split)
{
    EVP_MD *md = EVP_MD_fetch(lib, name, props);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = md != NULL && EVP_DigestInit_ex2(ctx, md, params);

    for (size_t done = 0; ok && done < len;) {
        size_t take = split ? test_random_u64() % (len - done + 1) : len - done;
        if (split && test_random_u64() % 4 == 0)
            take = test_random_u64() % 300 < len - done ? take % 300 : take;
        ok = EVP_DigestUpdate(ctx, in + done, take);
        done += take;
    }
    ok = ok && final_any(ctx, out, outlen);
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    return ok;
}

static int is_xof(const char *name)
{
    EVP_MD *md = EVP_MD_fetch(lib, name, OURS);
    int xof = md != NULL && (EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF) != 0;
    EVP_MD_free(md);
    return xof;
}

static void test_differential_digests(void)
{
    static const char *const names[] = {"SHA3-224", "SHA3-256", "SHA3-384",
                                        "SHA3-512", "SHAKE128", "SHAKE256"};
    uint8_t *in = malloc(40001), a[200], b[200];

    for (int round = 0; round < 40; round++) {
        for (size_t i = 0; i < 6; i++) {
            size_t len = test_random_u64() % 40001;
            int xof = i >= 4;
            size_t outlen = xof ? 1 + test_random_u64() % 200 : 0;
            EVP_MD *md = EVP_MD_fetch(lib, names[i], THEIRS);
            unsigned int n;
            EVP_MD_CTX *ctx = EVP_MD_CTX_new();
            test_random(in, len);
            EVP_DigestInit_ex2(ctx, md, NULL);
            EVP_DigestUpdate(ctx, in, len);
            if (xof)
                EVP_DigestFinalXOF(ctx, b, outlen);
            else
                EVP_DigestFinal_ex(ctx, b, &n), outlen = n;
            EVP_MD_CTX_free(ctx);
            EVP_MD_free(md);
            CHECK(digest_split(names[i], OURS, NULL, in, len, a, outlen, 1) &&
                      memcmp(a, b, outlen) == 0,
                  "%s differs from the default provider at len %zu", names[i], len);
        }
    }
    free(in);
}

static int kmac(const char *name, const char *props, const uint8_t *key,
                size_t klen, const char *custom, int xof, const uint8_t *in,
                size_t len, uint8_t *out, size_t outlen, int split)
{
    EVP_MAC *mac = EVP_MAC_fetch(lib, name, props);
    EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
    size_t outl = 0;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_CUSTOM, (char *)custom,
                                          strlen(custom)),
        OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &outlen),
        OSSL_PARAM_construct_int(OSSL_MAC_PARAM_XOF, &xof),
        OSSL_PARAM_construct_end()};
    int ok = ctx != NULL && EVP_MAC_CTX_set_params(ctx, params) &&
             EVP_MAC_init(ctx, key, klen, NULL);

    for (size_t done = 0; ok && done < len;) {
        size_t take = split ? test_random_u64() % (len - done + 1) : len - done;
        ok = EVP_MAC_update(ctx, in + done, take);
        done += take;
    }
    ok = ok && EVP_MAC_final(ctx, out, &outl, outlen) && outl == outlen;
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    return ok;
}

static void test_differential_kmac(void)
{
    uint8_t *in = malloc(40001), key[200], a[300], b[300];
    char custom[100];

    for (int round = 0; round < 60; round++) {
        const char *name = round % 2 ? "KMAC256" : "KMAC128";
        size_t len = test_random_u64() % 40001;
        size_t klen = 4 + test_random_u64() % 190; /* OpenSSL's minimum is 4 */
        size_t clen = test_random_u64() % 99, outlen = 1 + test_random_u64() % 300;
        int xof = (int)(test_random_u64() % 2);
        test_random(in, len);
        test_random(key, klen);
        for (size_t i = 0; i < clen; i++)
            custom[i] = (char)('a' + test_random_u64() % 26);
        custom[clen] = '\0';
        int ok = kmac(name, OURS, key, klen, custom, xof, in, len, a, outlen, 1) &&
                 kmac(name, THEIRS, key, klen, custom, xof, in, len, b, outlen, 0);
        CHECK(ok && memcmp(a, b, outlen) == 0,
              "%s differs: len %zu key %zu custom %zu out %zu xof %d", name,
              len, klen, clen, outlen, xof);
    }
    /* The empty key is valid in SP 800-185, though OpenSSL refuses it. */
    CHECK(kmac("KMAC128", OURS, (const uint8_t *)"", 0, "", 0, in, 10, a, 16, 0),
          "KMAC128 with an empty key");
    EVP_MAC *mac = EVP_MAC_fetch(lib, "KMAC128", OURS);
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
    CHECK(!EVP_MAC_init(ctx, NULL, 0, NULL), "KMAC init without any key must fail");
    ERR_clear_error();
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    free(in);
}

/* Parameters that give each algorithm something to customize. */
static size_t params_for(const char *name, OSSL_PARAM *p, size_t *b,
                         unsigned *d)
{
    size_t n = 0;

    if (strncmp(name, "CSHAKE", 6) == 0) {
        p[n++] = OSSL_PARAM_construct_octet_string(KSUM_PARAM_FUNCTION_NAME, "fn", 2);
        p[n++] = OSSL_PARAM_construct_octet_string(KSUM_PARAM_CUSTOM, "cust", 4);
    } else if (strncmp(name, "PARALLELHASH", 12) == 0) {
        *b = 1 + test_random_u64() % 300;
        p[n++] = OSSL_PARAM_construct_size_t(KSUM_PARAM_BLOCK_SIZE, b);
        p[n++] = OSSL_PARAM_construct_octet_string(KSUM_PARAM_CUSTOM, "cust", 4);
    } else if (strncmp(name, "TURBOSHAKE", 10) == 0) {
        *d = 1 + (unsigned)(test_random_u64() % 0x7F);
        p[n++] = OSSL_PARAM_construct_uint(KSUM_PARAM_DOMAIN, d);
    } else if (strcmp(name, "KANGAROOTWELVE") == 0 || strcmp(name, "KT256") == 0 ||
               strcmp(name, "MARSUPILAMIFOURTEEN") == 0) {
        p[n++] = OSSL_PARAM_construct_octet_string(KSUM_PARAM_CUSTOM, "cust", 4);
    }
    p[n] = OSSL_PARAM_construct_end();
    return n;
}

/* Any split of the input gives the one-update result; the same for dupctx
 * copies taken mid-stream. */
static void test_splits_and_dup(void)
{
    static const size_t lens[] = {0, 1, 71, 72, 73, 135, 136, 137, 167, 168,
                                  169, 8191, 8192, 8193, 16384, 40000, 8192 * 5 + 7};
    uint8_t *in = malloc(50000), one[100], split[100], dup[100];

    test_random(in, 50000);
    for (int i = 0; all_digests[i] != NULL; i++) {
        const char *name = all_digests[i];
        size_t outlen = is_xof(name) ? 64 : 0;
        for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
            OSSL_PARAM params[4];
            size_t b;
            unsigned d;
            params_for(name, params, &b, &d);
            EVP_MD *md = EVP_MD_fetch(lib, name, OURS);
            size_t n = outlen ? outlen : (size_t)EVP_MD_get_size(md);
            CHECK(digest_split(name, OURS, params, in, lens[l], one, n, 0) &&
                      digest_split(name, OURS, params, in, lens[l], split, n, 1) &&
                      memcmp(one, split, n) == 0,
                  "%s split at len %zu", name, lens[l]);
            /* dupctx half way, then both finish the same input. */
            EVP_MD_CTX *ctx = EVP_MD_CTX_new(), *copy = EVP_MD_CTX_new();
            size_t half = lens[l] / 2;
            int ok = EVP_DigestInit_ex2(ctx, md, params) &&
                     EVP_DigestUpdate(ctx, in, half) &&
                     EVP_MD_CTX_copy_ex(copy, ctx) &&
                     EVP_DigestUpdate(copy, in + half, lens[l] - half) &&
                     final_any(copy, dup, n) &&
                     EVP_DigestUpdate(ctx, in + half, lens[l] - half) &&
                     final_any(ctx, split, n);
            CHECK(ok && memcmp(one, dup, n) == 0 && memcmp(one, split, n) == 0,
                  "%s dupctx at len %zu", name, lens[l]);
            /* Reuse after final through a new init. */
            ok = EVP_DigestInit_ex2(ctx, md, params) &&
                 EVP_DigestUpdate(ctx, in, lens[l]) &&
                 final_any(ctx, split, n);
            CHECK(ok && memcmp(one, split, n) == 0, "%s reuse", name);
            EVP_MD_CTX_free(ctx);
            EVP_MD_CTX_free(copy);
            EVP_MD_free(md);
        }
    }
    free(in);
}

static void test_long_output(void)
{
    const size_t n = 16 << 20;
    uint8_t *a = malloc(n), *b = malloc(n);
    static const char *const xofs[] = {"SHAKE128", "SHAKE256", "KANGAROOTWELVE",
                                       "PARALLELHASH256", "TURBOSHAKE128"};

    for (int i = 0; i < 5; i++) {
        const char *props = i < 2 ? THEIRS : OURS;
        /* A prefix of a long output is the short output (not for
         * ParallelHash, whose L is in the input: there use XOF mode). */
        int xof = 1;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_int(KSUM_PARAM_XOF, &xof),
                          OSSL_PARAM_construct_end()};
        CHECK(evp_digest(lib, xofs[i], OURS, p, (const uint8_t *)"abc", 3, a, n) &&
                  evp_digest(lib, xofs[i], props, p, (const uint8_t *)"abc", 3, b,
                             i < 2 ? n : 1000) &&
                  memcmp(a, b, i < 2 ? n : 1000) == 0,
              "%s 16 MiB output", xofs[i]);
    }
    free(a);
    free(b);
}

/* Squeezing through the "squeeze" parameter, in pieces, gives the output
 * of one final of the whole length; nothing may be absorbed after it. */
static int squeeze_pieces(EVP_MD_CTX *ctx, uint8_t *out, size_t n)
{
    for (size_t done = 0; done < n;) {
        size_t take = 1 + test_random_u64() % 3000;
        take = take < n - done ? take : n - done;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_SQUEEZE,
                                                            out + done, take),
                          OSSL_PARAM_construct_end()};
        if (!EVP_MD_CTX_get_params(ctx, p))
            return 0;
        done += take;
    }
    return 1;
}

static void test_squeeze_param(void)
{
    const size_t n = 100000;
    uint8_t *one = malloc(n), *pieces = malloc(n), in[5000];

    test_random(in, sizeof in);
    for (int i = 0; all_digests[i] != NULL; i++) {
        EVP_MD *md = EVP_MD_fetch(lib, all_digests[i], OURS);
        EVP_MD_CTX *ctx = EVP_MD_CTX_new();
        size_t outlen = is_xof(all_digests[i]) ? n : (size_t)EVP_MD_get_size(md);
        OSSL_PARAM len[] = {OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_XOFLEN, &outlen),
                            OSSL_PARAM_construct_end()};
        int ok = digest_split(all_digests[i], OURS, len, in, sizeof in, one, outlen, 0) &&
                 EVP_DigestInit_ex2(ctx, md, len) &&
                 EVP_DigestUpdate(ctx, in, sizeof in) && squeeze_pieces(ctx, pieces, outlen);
        if (!is_xof(all_digests[i])) {
            /* A fixed-length digest is not squeezed, as OpenSSL's refuse. */
            CHECK(!ok, "%s squeezed", all_digests[i]);
            ERR_clear_error();
            EVP_MD_CTX_free(ctx);
            EVP_MD_free(md);
            continue;
        }
        CHECK(ok && memcmp(one, pieces, outlen) == 0, "%s squeezed in pieces",
              all_digests[i]);
        CHECK(!EVP_DigestUpdate(ctx, in, 1) && !EVP_DigestFinalXOF(ctx, one, outlen),
              "%s accepted data or final after squeezing", all_digests[i]);
        ERR_clear_error();
        EVP_MD_CTX_free(ctx);
        EVP_MD_free(md);
    }
    /* KMAC, through EVP_MAC_CTX_get_params */
    for (int xof = 0; xof < 2; xof++) {
        uint8_t a[3000], b[3000];
        CHECK(kmac("KMAC256", OURS, (const uint8_t *)"key!", 4, "c", xof, in, 100, a,
                   sizeof a, 0), "KMAC256 final");
        EVP_MAC *mac = EVP_MAC_fetch(lib, "KMAC256", OURS);
        EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
        size_t size = sizeof b;
        OSSL_PARAM set[] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size),
                            OSSL_PARAM_construct_int(OSSL_MAC_PARAM_XOF, &xof),
                            OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_CUSTOM, "c", 1),
                            OSSL_PARAM_construct_end()};
        int ok = EVP_MAC_init(ctx, (const uint8_t *)"key!", 4, set) &&
                 EVP_MAC_update(ctx, in, 100);
        for (size_t done = 0; ok && done < sizeof b; done += 1000) {
            OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_SQUEEZE,
                                                                b + done, 1000),
                              OSSL_PARAM_construct_end()};
            ok = EVP_MAC_CTX_get_params(ctx, p);
        }
        CHECK(ok && memcmp(a, b, sizeof a) == 0, "KMAC256 squeezed in pieces, xof %d", xof);
        EVP_MAC_CTX_free(ctx);
        EVP_MAC_free(mac);
    }
    free(one);
    free(pieces);
}

/* One squeeze of n bytes through the squeeze parameter. */
static int squeeze_md(EVP_MD_CTX *ctx, uint8_t *out, size_t n)
{
    OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_SQUEEZE, out, n),
                      OSSL_PARAM_construct_end()};

    return EVP_MD_CTX_get_params(ctx, p);
}

static int squeeze_mac(EVP_MAC_CTX *ctx, uint8_t *out, size_t n)
{
    OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_SQUEEZE, out, n),
                      OSSL_PARAM_construct_end()};

    return EVP_MAC_CTX_get_params(ctx, p);
}

/* ParallelHash, TupleHash and KMAC hash their output length L in, unless
 * as XOFs: squeezed past L, the bytes would be no function's output.  The
 * first L bytes are the digest, in any pieces; a byte more is refused;
 * as XOFs they go on. */
static void test_squeeze_stops_at_a_hashed_length(void)
{
    static const char *const names[] = {"PARALLELHASH128", "PARALLELHASH256", "TUPLEHASH128",
                                        "TUPLEHASH256"};
    uint8_t want[64], got[64 + 1];

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        for (int xof = 0; xof < 2; xof++) {
            EVP_MD *md = EVP_MD_fetch(lib, names[i], OURS);
            EVP_MD_CTX *ctx = EVP_MD_CTX_new();
            size_t L = 40;
            OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_XOFLEN, &L),
                              OSSL_PARAM_construct_int(KSUM_PARAM_XOF, &xof),
                              OSSL_PARAM_construct_end()};
            int ok = digest_split(names[i], OURS, p, (const uint8_t *)"abc", 3, want, L, 0) &&
                     EVP_DigestInit_ex2(ctx, md, p) && EVP_DigestUpdate(ctx, "abc", 3) &&
                     squeeze_md(ctx, got, 25) && squeeze_md(ctx, got + 25, 15);
            CHECK(ok && memcmp(want, got, L) == 0, "%s xof %d: %zu bytes in pieces", names[i],
                  xof, L);
            CHECK(squeeze_md(ctx, got + L, 1) == xof, "%s xof %d: a byte past L %s", names[i],
                  xof, xof ? "refused" : "given");
            ERR_clear_error();
            EVP_MD_CTX_free(ctx);
            EVP_MD_free(md);
        }
    for (int xof = 0; xof < 2; xof++) {
        EVP_MAC *mac = EVP_MAC_fetch(lib, "KMAC128", OURS);
        EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
        size_t size = 32;
        OSSL_PARAM set[] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size),
                            OSSL_PARAM_construct_int(OSSL_MAC_PARAM_XOF, &xof),
                            OSSL_PARAM_construct_end()};
        int ok = kmac("KMAC128", OURS, (const uint8_t *)"key!", 4, "", xof,
                      (const uint8_t *)"abc", 3, want, size, 0) &&
                 EVP_MAC_init(ctx, (const uint8_t *)"key!", 4, set) &&
                 EVP_MAC_update(ctx, (const uint8_t *)"abc", 3) && squeeze_mac(ctx, got, 32);
        CHECK(ok && memcmp(want, got, size) == 0, "KMAC128 xof %d: squeezed whole", xof);
        CHECK(squeeze_mac(ctx, got, 1) == xof, "KMAC128 xof %d: a byte past L %s", xof,
              xof ? "refused" : "given");
        ERR_clear_error();
        EVP_MAC_CTX_free(ctx);
        EVP_MAC_free(mac);
    }
}

/* An init that fails leaves nothing to hash: an update or a final after
 * it would give a digest without what the init asked for (a
 * customization string, a new key). */
static void test_failed_init_leaves_nothing_to_hash(void)
{
    EVP_MD *md = EVP_MD_fetch(lib, "KT128", OURS);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_MAC *mac = EVP_MAC_fetch(lib, "KMAC128", OURS);
    EVP_MAC_CTX *mctx = EVP_MAC_CTX_new(mac);
    unsigned threads = 100000;
    char custom[600] = {0};
    uint8_t out[32];
    size_t outl;
    OSSL_PARAM bad[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_CUSTOM,
                                                          "mine", 4),
                        OSSL_PARAM_construct_uint(KSUM_PARAM_THREADS, &threads),
                        OSSL_PARAM_construct_end()};
    OSSL_PARAM bad_mac[] = {OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_CUSTOM, custom,
                                                              sizeof custom),
                            OSSL_PARAM_construct_end()};

    CHECK(md != NULL && ctx != NULL && !EVP_DigestInit_ex2(ctx, md, bad), "KT128: bad init");
    CHECK(!EVP_DigestUpdate(ctx, "abc", 3) && !EVP_DigestFinalXOF(ctx, out, sizeof out),
          "KT128: hashed after a failed init");
    CHECK(mctx != NULL && EVP_MAC_init(mctx, (const uint8_t *)"keyA", 4, NULL) &&
              EVP_MAC_update(mctx, (const uint8_t *)"abc", 3) &&
              EVP_MAC_final(mctx, out, &outl, sizeof out),
          "KMAC128 under keyA");
    CHECK(!EVP_MAC_init(mctx, (const uint8_t *)"keyB", 4, bad_mac), "KMAC128: bad init");
    CHECK(!EVP_MAC_update(mctx, (const uint8_t *)"abc", 3) &&
              !EVP_MAC_final(mctx, out, &outl, sizeof out),
          "KMAC128: hashed under the old key after a failed init");
    ERR_clear_error();
    /* and a good init works again */
    CHECK(EVP_DigestInit_ex2(ctx, md, NULL) && EVP_DigestUpdate(ctx, "abc", 3) &&
              EVP_DigestFinalXOF(ctx, out, sizeof out),
          "KT128: init again after a failed one");
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    EVP_MAC_CTX_free(mctx);
    EVP_MAC_free(mac);
}

static void test_names_and_flags(void)
{
    static const char *const aliases[] = {"kangarootwelve", "k12", "Kt128", "kt256",
                                          "m14", "MarsupilamiFourteen", "sha3-256",
                                          "shake-128", "ParallelHash128",
                                          "turboshake256", "rawshake256", "Keccak-256"};
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        EVP_MD *md = EVP_MD_fetch(lib, aliases[i], OURS);
        CHECK(md != NULL, "fetch %s", aliases[i]);
        EVP_MD_free(md);
    }
    for (int i = 0; all_digests[i] != NULL; i++) {
        int want = strncmp(all_digests[i], "SHA3", 4) != 0 &&
                   strncmp(all_digests[i], "KECCAK", 6) != 0;
        CHECK(is_xof(all_digests[i]) == want, "%s XOF flag", all_digests[i]);
    }
    static const char *const macs[] = {"KMAC128", "kmac-128", "KMAC256", "KMAC-256"};
    for (int i = 0; i < 4; i++) {
        EVP_MAC *mac = EVP_MAC_fetch(lib, macs[i], OURS);
        CHECK(mac != NULL, "fetch MAC %s", macs[i]);
        EVP_MAC_free(mac);
    }
    EVP_MD *md = EVP_MD_fetch(lib, "KT256", OURS);
    CHECK(md != NULL && EVP_MD_get_size(md) == 64 && EVP_MD_get_block_size(md) == 136,
          "KT256 size and block size");
    EVP_MD_free(md);
}

/* Each bad parameter must fail with an error on the queue, and no crash. */
static int init_fails(const char *name, const OSSL_PARAM *params)
{
    EVP_MD *md = EVP_MD_fetch(lib, name, OURS);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int failed = !EVP_DigestInit_ex2(ctx, md, params);
    int queued = ERR_peek_error() != 0;

    ERR_clear_error();
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    return failed && queued;
}

static void test_bad_params(void)
{
    size_t zero = 0;
    unsigned d80 = 0x80, d0 = 0;
    int two = 2;
    OSSL_PARAM b0[] = {OSSL_PARAM_construct_size_t(KSUM_PARAM_BLOCK_SIZE, &zero),
                       OSSL_PARAM_construct_end()};
    OSSL_PARAM dom80[] = {OSSL_PARAM_construct_uint(KSUM_PARAM_DOMAIN, &d80),
                          OSSL_PARAM_construct_end()};
    OSSL_PARAM dom0[] = {OSSL_PARAM_construct_uint(KSUM_PARAM_DOMAIN, &d0),
                         OSSL_PARAM_construct_end()};
    OSSL_PARAM xof_text[] = {OSSL_PARAM_construct_utf8_string(KSUM_PARAM_XOF, "1", 1),
                             OSSL_PARAM_construct_end()};
    OSSL_PARAM str_len[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_DIGEST_PARAM_XOFLEN, "32", 2),
        OSSL_PARAM_construct_end()};
    OSSL_PARAM int_custom[] = {OSSL_PARAM_construct_int(KSUM_PARAM_CUSTOM, &two),
                               OSSL_PARAM_construct_end()};

    CHECK(init_fails("PARALLELHASH128", b0), "B = 0 accepted");
    CHECK(init_fails("TURBOSHAKE128", dom80), "D = 0x80 accepted");
    CHECK(init_fails("TURBOSHAKE256", dom0), "D = 0 accepted");
    CHECK(init_fails("PARALLELHASH256", xof_text), "a string xof accepted");
    CHECK(init_fails("SHAKE128", str_len), "string xoflen accepted");
    CHECK(init_fails("CSHAKE128", int_custom), "integer custom accepted");

    /* A customization after data changes meaning: refused. */
    EVP_MD *md = EVP_MD_fetch(lib, "KANGAROOTWELVE", OURS);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    OSSL_PARAM custom[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_CUSTOM, "x", 1),
                           OSSL_PARAM_construct_end()};
    uint8_t out[32];
    CHECK(EVP_DigestInit_ex2(ctx, md, NULL) && EVP_DigestUpdate(ctx, "a", 1) &&
              !EVP_MD_CTX_set_params(ctx, custom),
          "custom after data accepted");
    ERR_clear_error();
    CHECK(EVP_DigestFinalXOF(ctx, out, 32) && !EVP_DigestUpdate(ctx, "a", 1),
          "update after final accepted");
    ERR_clear_error();
    /* Final's buffer must hold the output. */
    CHECK(EVP_DigestInit_ex2(ctx, md, NULL), "re-init");
    size_t big = 100;
    OSSL_PARAM len100[] = {OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_XOFLEN, &big),
                           OSSL_PARAM_construct_end()};
    unsigned int n = 0;
    uint8_t room[128];
    /* Before OpenSSL 3.4, EVP_DigestFinal_ex offers the algorithm's size (16
     * bytes) and the provider must refuse; from 3.4 on it offers the
     * context's (100), which fits. */
    int old = OPENSSL_version_major() == 3 && OPENSSL_version_minor() < 4;
    int done = EVP_MD_CTX_set_params(ctx, len100) && EVP_DigestFinal_ex(ctx, room, &n);
    CHECK(old ? !done : done && n == 100, "final of 100 bytes (OpenSSL %u.%u): %d, %u",
          OPENSSL_version_major(), OPENSSL_version_minor(), done, n);
    ERR_clear_error();
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
}

/* The text of the error on the queue contains want; the queue is cleared. */
static int error_says(const char *want)
{
    const char *data = NULL;
    int flags = 0;
    unsigned long e = ERR_peek_error_data(&data, &flags);
    int found = e != 0 && data != NULL && strstr(data, want) != NULL;

    if (!found)
        fprintf(stderr, "expected an error saying '%s', got '%s'\n", want,
                data ? data : "(none)");
    ERR_clear_error();
    return found;
}

static int digest_hex(const char *name, const OSSL_PARAM *params,
                      const char *msg, size_t outlen, char *hex)
{
    EVP_MD *md = EVP_MD_fetch(lib, name, OURS);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    uint8_t out[64];
    int ok = md != NULL && ctx != NULL && EVP_DigestInit_ex2(ctx, md, params) &&
             EVP_DigestUpdate(ctx, msg, strlen(msg)) &&
             EVP_DigestFinalXOF(ctx, out, outlen);

    strcpy(hex, ok ? hex_of(out, outlen) : "failed");
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    return ok;
}

/* Issue reproductions: NULL data with a length, a NULL string, must be
 * errors, never a crash (they were: memcpy and strcmp on NULL). */
static void test_null_parameters(void)
{
    OSSL_PARAM custom[] = {OSSL_PARAM_construct_octet_string("custom", NULL, 5),
                           OSSL_PARAM_construct_end()};
    OSSL_PARAM customization[] = {
        OSSL_PARAM_construct_utf8_string("customization", NULL, 5),
        OSSL_PARAM_construct_end()};
    OSSL_PARAM fname[] = {OSSL_PARAM_construct_octet_string("function-name", NULL, 1),
                          OSSL_PARAM_construct_end()};
    OSSL_PARAM backend[] = {OSSL_PARAM_construct_utf8_string("backend", NULL, 0),
                            OSSL_PARAM_construct_end()};
    OSSL_PARAM key[] = {OSSL_PARAM_construct_octet_string("key", NULL, 4),
                        OSSL_PARAM_construct_end()};
    OSSL_PARAM xoflen[] = {{"xoflen", OSSL_PARAM_UNSIGNED_INTEGER, NULL, 8, 0},
                           OSSL_PARAM_construct_end()};
    OSSL_PARAM threads[] = {{"threads", OSSL_PARAM_UNSIGNED_INTEGER, NULL, 4, 0},
                            OSSL_PARAM_construct_end()};
    EVP_MAC *mac = EVP_MAC_fetch(lib, "KMAC128", OURS);
    EVP_MAC_CTX *mctx = EVP_MAC_CTX_new(mac);

    CHECK(init_fails("SHAKE128", xoflen), "xoflen NULL accepted");
    CHECK(init_fails("KT128", threads), "threads NULL accepted");
    CHECK(init_fails("CSHAKE128", custom), "custom NULL, 5 accepted");
    CHECK(init_fails("CSHAKE128", customization), "customization NULL, 5 accepted");
    OSSL_PARAM null_text[] = {OSSL_PARAM_construct_utf8_string("customization", NULL, 0),
                              OSSL_PARAM_construct_end()};
    OSSL_PARAM empty_octets[] = {OSSL_PARAM_construct_octet_string("custom", NULL, 0),
                                 OSSL_PARAM_construct_end()};
    CHECK(init_fails("KT128", null_text), "a NULL UTF-8 string accepted");
    char plain[129], empty[129];
    CHECK(digest_hex("KT128", NULL, "abc", 32, plain) &&
              digest_hex("KT128", empty_octets, "abc", 32, empty) && strcmp(plain, empty) == 0,
          "NULL with length 0 is not the empty octet string");
    CHECK(init_fails("CSHAKE256", fname), "function-name NULL, 1 accepted");
    CHECK(init_fails("SHA3-256", backend), "backend NULL accepted");
    CHECK(mctx != NULL && !EVP_MAC_init(mctx, NULL, 0, key), "KMAC key NULL, 4 accepted");
    CHECK(error_says("no data"), "KMAC key NULL message");
    CHECK(!EVP_MAC_init(mctx, NULL, 0, backend), "KMAC backend NULL accepted");
    ERR_clear_error();
    EVP_MAC_CTX_free(mctx);
    EVP_MAC_free(mac);
}

/* A failed set leaves the context as it was; range errors say so. */
static void test_failed_set_changes_nothing(void)
{
    int one = 1;
    size_t b = 16;
    char plain[129], after[129];
    int seven = 7;
    unsigned many = 257;
    /* wrong type, out of range: OpenSSL 3.5 reads the string "2" as an int */
    OSSL_PARAM xof2[] = {OSSL_PARAM_construct_int("custom", &seven),
                         OSSL_PARAM_construct_end()};
    OSSL_PARAM mixed[] = {OSSL_PARAM_construct_octet_string("custom", "abc", 3),
                          OSSL_PARAM_construct_size_t("block-size", &b),
                          OSSL_PARAM_construct_uint("threads", &many),
                          OSSL_PARAM_construct_end()};
    OSSL_PARAM twice[] = {OSSL_PARAM_construct_octet_string("custom", "abc", 3),
                          OSSL_PARAM_construct_utf8_string("customization", "de", 0),
                          OSSL_PARAM_construct_end()};
    OSSL_PARAM de[] = {OSSL_PARAM_construct_octet_string("custom", "abc", 3),
                       OSSL_PARAM_construct_end()};
    EVP_MD *md = EVP_MD_fetch(lib, "PARALLELHASH128", OURS);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_MAC *mac = EVP_MAC_fetch(lib, "KMAC128", OURS);
    EVP_MAC_CTX *mctx = EVP_MAC_CTX_new(mac);
    uint8_t a[32], z[32];
    size_t n = 0, m = 0;

    /* KMAC: an integer custom is refused and changes nothing. */
    CHECK(EVP_MAC_init(mctx, (const uint8_t *)"key", 3, NULL) &&
              !EVP_MAC_CTX_set_params(mctx, xof2),
          "KMAC integer custom accepted");
    CHECK(error_says("must be"), "integer custom message");
    CHECK(EVP_MAC_update(mctx, (const uint8_t *)"msg", 3) && EVP_MAC_final(mctx, a, &n, sizeof a),
          "KMAC after a failed set");
    CHECK(EVP_MAC_init(mctx, (const uint8_t *)"key", 3, NULL) &&
              EVP_MAC_update(mctx, (const uint8_t *)"msg", 3) && EVP_MAC_final(mctx, z, &m, sizeof z) &&
              n == m && memcmp(a, z, n) == 0,
          "a failed integer custom changed the KMAC");

    /* ParallelHash: a call whose last parameter is bad applies none. */
    CHECK(digest_hex("PARALLELHASH128", NULL, "msg", 16, plain), "ParallelHash");
    CHECK(EVP_DigestInit_ex2(ctx, md, NULL) && !EVP_MD_CTX_set_params(ctx, mixed),
          "bad threads in a mixed call accepted");
    CHECK(error_says("out of range"), "mixed call message");
    CHECK(EVP_DigestUpdate(ctx, "msg", 3) && EVP_DigestFinalXOF(ctx, a, 16) &&
              strcmp(hex_of(a, 16), plain) == 0,
          "a failed call changed the context");

    /* Both spellings of S in one call: custom counts, nothing leaks. */
    CHECK(digest_hex("PARALLELHASH128", twice, "msg", 16, after) &&
              digest_hex("PARALLELHASH128", de, "msg", 16, plain) &&
              strcmp(after, plain) == 0,
          "custom then customization in one call");

    /* A get that fails on one key squeezes nothing. */
    EVP_MD *shake = EVP_MD_fetch(lib, "SHAKE128", OURS);
    EVP_MD_CTX *sctx = EVP_MD_CTX_new();
    uint8_t first[16], again[32];
    int wrong_type = 0;
    OSSL_PARAM get[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_SQUEEZE, first, 16),
                        OSSL_PARAM_construct_int(KSUM_PARAM_BACKEND, &wrong_type),
                        OSSL_PARAM_construct_end()};
    CHECK(EVP_DigestInit_ex2(sctx, shake, NULL) && EVP_DigestUpdate(sctx, "abc", 3) &&
              !EVP_MD_CTX_get_params(sctx, get),
          "a get with a wrongly typed key succeeded");
    ERR_clear_error();
    CHECK(EVP_DigestFinalXOF(sctx, again, 32) &&
              strcmp(hex_of(again, 16), "5881092dd818bf5cf8a3ddb793fbcba7") == 0,
          "a failed get squeezed: %s", hex_of(again, 16));
    /* xoflen = SIZE_MAX is the provider's "no length": refused as out of
     * range when set, not accepted and then mistaken for "never set". */
    size_t huge = SIZE_MAX, sixteen = 16;
    unsigned int got = 0;
    OSSL_PARAM xmax[] = {OSSL_PARAM_construct_size_t("xoflen", &huge), OSSL_PARAM_construct_end()};
    OSSL_PARAM x16[] = {OSSL_PARAM_construct_size_t("xoflen", &sixteen), OSSL_PARAM_construct_end()};
    CHECK(EVP_DigestInit_ex2(sctx, shake, x16) && !EVP_MD_CTX_set_params(sctx, xmax),
          "xoflen = SIZE_MAX accepted");
    CHECK(error_says("out of range"), "xoflen = SIZE_MAX message");
    CHECK(EVP_DigestUpdate(sctx, "abc", 3) && EVP_DigestFinal_ex(sctx, again, &got) &&
              got == 16 && strcmp(hex_of(again, 16), "5881092dd818bf5cf8a3ddb793fbcba7") == 0,
          "xoflen = SIZE_MAX changed the length: %u", got);
    EVP_MD_CTX_free(sctx);
    EVP_MD_free(shake);

    /* xoflen after final: "initialize again", not "before any data". */
    OSSL_PARAM len[] = {OSSL_PARAM_construct_size_t("xoflen", &b),
                        OSSL_PARAM_construct_end()};
    CHECK(!EVP_MD_CTX_set_params(ctx, len), "xoflen after final accepted");
    CHECK(error_says("initialize"), "xoflen after final message");
    OSSL_PARAM xof1[] = {OSSL_PARAM_construct_int("xof", &one), OSSL_PARAM_construct_end()};
    CHECK(!EVP_MD_CTX_set_params(ctx, xof1), "xof after final accepted");
    ERR_clear_error();
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    EVP_MAC_CTX_free(mctx);
    EVP_MAC_free(mac);
}

/* From an adversarial review.  A fixed-length digest has no
 * output length to set: EVP_DigestFinalXOF of 100 bytes on SHA3-256 set
 * xoflen, which was skipped, and then reported success with 32 bytes
 * written; OpenSSL's default provider fails the call, and so must we. */
static void test_fixed_length_has_no_output_length(void)
{
    static const char *const fixed[] = {"SHA3-224", "SHA3-256", "SHA3-384", "SHA3-512",
                                        "KECCAK-224", "KECCAK-256", "KECCAK-384",
                                        "KECCAK-512", NULL};
    size_t want = 100;
    OSSL_PARAM xoflen[] = {OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_XOFLEN, &want),
                           OSSL_PARAM_construct_end()};
    OSSL_PARAM size[] = {OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_SIZE, &want),
                         OSSL_PARAM_construct_end()};

    int old_evp = OPENSSL_version_major() == 3 && OPENSSL_version_minor() < 4;
    uint8_t aa[128];

    memset(aa, 0xAA, sizeof aa);
    for (int i = 0; fixed[i] != NULL; i++) {
        for (int who = 0; who < 2; who++) {
            EVP_MD *md = EVP_MD_fetch(lib, fixed[i], who ? THEIRS : OURS);
            EVP_MD_CTX *ctx = EVP_MD_CTX_new();
            uint8_t out[128], ref[64];
            unsigned int n = 0;
            int xof_done, set_x, set_s;
            if (who == 1 && md == NULL) {   /* Keccak-* came to OpenSSL in 3.2 */
                ERR_clear_error();
                EVP_MD_CTX_free(ctx);
                continue;
            }
            memset(out, 0xAA, sizeof out);
            CHECK(md != NULL && EVP_DigestInit_ex2(ctx, md, NULL) &&
                      EVP_DigestUpdate(ctx, "abc", 3),
                  "%s init", fixed[i]);
            xof_done = EVP_DigestFinalXOF(ctx, out, sizeof out - 28);
            ERR_clear_error();
            /* OpenSSL 3.0 to 3.3 set xoflen first, which the default SHA3
             * refuses; from 3.4 on EVP finals a fixed digest at its size */
            CHECK(xof_done == (!old_evp) &&
                      (!xof_done || memcmp(out + EVP_MD_get_size(md), aa,
                                           sizeof out - EVP_MD_get_size(md)) == 0),
                  "%s (%s): EVP_DigestFinalXOF of 100 bytes: %d, not as the default provider",
                  fixed[i], who ? "default" : "ksumprov", xof_done);
            CHECK(EVP_DigestInit_ex2(ctx, md, NULL), "%s init again", fixed[i]);
            set_x = EVP_MD_CTX_set_params(ctx, xoflen);
            set_s = EVP_MD_CTX_set_params(ctx, size);
            ERR_clear_error();
            CHECK(!set_x && !set_s, "%s (%s): an output length was accepted: %d %d", fixed[i],
                  who ? "default" : "ksumprov", set_x, set_s);
            /* at init, as the default provider's SHA3 init, a generic
             * list's length is ignored (helper review) */
            unsigned int m = 0;
            uint8_t again[64];
            CHECK(EVP_DigestInit_ex2(ctx, md, xoflen) && EVP_DigestUpdate(ctx, "abc", 3) &&
                      EVP_DigestFinal_ex(ctx, again, &m) && (int)m == EVP_MD_get_size(md),
                  "%s (%s): init with xoflen refused", fixed[i], who ? "default" : "ksumprov");
            ERR_clear_error();
            CHECK(EVP_DigestInit_ex2(ctx, md, NULL), "%s init a third time", fixed[i]);
            /* the refused settings changed nothing */
            CHECK(EVP_DigestUpdate(ctx, "abc", 3) && EVP_DigestFinal_ex(ctx, out, &n) &&
                      (int)n == EVP_MD_get_size(md) &&
                      EVP_Digest("abc", 3, ref, NULL, md, NULL) && memcmp(out, ref, n) == 0,
                  "%s after a refused length", fixed[i]);
            EVP_MD_CTX_free(ctx);
            EVP_MD_free(md);
        }
    }
}

/* Two spellings of one setting in one call: the first of ksumprov's table
 * counts, in either order (xoflen over size, as OpenSSL's SHAKE reads them;
 * custom over customization; domain over domain-separator). */
static void test_spellings_in_one_call(void)
{
    size_t twenty = 20, thirty = 30;
    unsigned d5 = 5, d9 = 9;
    char a[129], b[129];
    OSSL_PARAM xs[] = {OSSL_PARAM_construct_size_t("xoflen", &twenty),
                       OSSL_PARAM_construct_size_t("size", &thirty), OSSL_PARAM_construct_end()};
    OSSL_PARAM sx[] = {OSSL_PARAM_construct_size_t("size", &thirty),
                       OSSL_PARAM_construct_size_t("xoflen", &twenty), OSSL_PARAM_construct_end()};
    OSSL_PARAM cc[] = {OSSL_PARAM_construct_utf8_string("customization", "B", 0),
                       OSSL_PARAM_construct_octet_string("custom", "A", 1),
                       OSSL_PARAM_construct_end()};
    OSSL_PARAM c1[] = {OSSL_PARAM_construct_octet_string("custom", "A", 1),
                       OSSL_PARAM_construct_end()};
    OSSL_PARAM dd[] = {OSSL_PARAM_construct_uint("domain-separator", &d9),
                       OSSL_PARAM_construct_uint("domain", &d5), OSSL_PARAM_construct_end()};
    OSSL_PARAM d1[] = {OSSL_PARAM_construct_uint("domain", &d5), OSSL_PARAM_construct_end()};
    const char *names[] = {"SHAKE128", "CSHAKE256", "KANGAROOTWELVE", NULL};

    for (int i = 0; names[i] != NULL; i++) {
        for (int order = 0; order < 2; order++) {
            EVP_MD *md = EVP_MD_fetch(lib, names[i], OURS);
            EVP_MD_CTX *ctx = EVP_MD_CTX_new();
            size_t n = 0;
            OSSL_PARAM get[] = {OSSL_PARAM_construct_size_t("xoflen", &n),
                                OSSL_PARAM_construct_end()};
            /* read back: OpenSSL before 3.4 finals at the algorithm's size */
            CHECK(EVP_DigestInit_ex2(ctx, md, order ? sx : xs) &&
                      EVP_MD_CTX_get_params(ctx, get) && n == 20,
                  "%s: xoflen and size in one call gave %zu bytes, not 20", names[i], n);
            ERR_clear_error();
            EVP_MD_CTX_free(ctx);
            EVP_MD_free(md);
        }
    }
    CHECK(digest_hex("CSHAKE128", cc, "msg", 16, a) && digest_hex("CSHAKE128", c1, "msg", 16, b) &&
              strcmp(a, b) == 0,
          "customization and custom in one call: custom counts");
    CHECK(digest_hex("TURBOSHAKE128", dd, "msg", 16, a) &&
              digest_hex("TURBOSHAKE128", d1, "msg", 16, b) && strcmp(a, b) == 0,
          "domain-separator and domain in one call: domain counts");
}

/* OpenSSL's KMAC reads xof as an int and takes any value but 0 as true. */
static void test_xof_any_true_value(void)
{
    uint8_t key[8] = "keykeyke", in[3] = "abc", a[40], b[40], c[40];
    int two = 2, minus = -1, one = 1;

    for (int i = 0; i < 2; i++) {
        const char *name = i ? "KMAC256" : "KMAC128";
        size_t outlen = 40, na = 0, nb = 0, nc = 0;
        int vals[3] = {two, minus, one};
        uint8_t *outs[3] = {a, b, c};
        size_t *ns[3] = {&na, &nb, &nc};
        for (int v = 0; v < 3; v++) {
            int x = vals[v];
            EVP_MAC *mac = EVP_MAC_fetch(lib, name, v == 2 ? THEIRS : OURS);
            EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
            OSSL_PARAM p[] = {OSSL_PARAM_construct_int("xof", &x),
                              OSSL_PARAM_construct_size_t("size", &outlen),
                              OSSL_PARAM_construct_end()};
            CHECK(ctx != NULL && EVP_MAC_init(ctx, key, sizeof key, p) &&
                      EVP_MAC_update(ctx, in, sizeof in) &&
                      EVP_MAC_final(ctx, outs[v], ns[v], outlen),
                  "%s with xof = %d", name, x);
            ERR_clear_error();
            EVP_MAC_CTX_free(ctx);
            EVP_MAC_free(mac);
        }
        CHECK(na == 40 && nb == 40 && nc == 40 && memcmp(a, c, 40) == 0 &&
                  memcmp(b, c, 40) == 0,
              "%s: xof = 2 and xof = -1 are not KMACXOF as OpenSSL's xof = 1", name);
    }
}

/* A value the caller's parameter cannot hold fails with a reason queued
 * (OpenSSL before 3.2 queues none of its own), and a MAC answers only what
 * its gettable list names (a helper review). */
static int get_fails(EVP_MD_CTX *ctx, OSSL_PARAM *p)
{
    int failed, queued;

    ERR_clear_error();
    failed = !EVP_MD_CTX_get_params(ctx, p);
    queued = ERR_peek_error() != 0;
    ERR_clear_error();
    return failed && queued;
}

static int lists(const OSSL_PARAM *list, const char *key)
{
    return list != NULL && OSSL_PARAM_locate_const(list, key) != NULL;
}

static void test_get_failures_are_reported(void)
{
    EVP_MD *md = EVP_MD_fetch(lib, "TURBOSHAKE128", OURS);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    char text[2];   /* shorter than every backend's name ("bmi2" fills 4 bytes exactly) */
    uint8_t small = 0, octets[8];
    const char *keys[] = {"xoflen", "domain", "lanes", "backend"};
    size_t outlen = 1000;
    OSSL_PARAM set[] = {OSSL_PARAM_construct_size_t("xoflen", &outlen), OSSL_PARAM_END};

    CHECK(EVP_DigestInit_ex2(ctx, md, set), "TurboSHAKE128 with xoflen 1000");
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        OSSL_PARAM as_text[] = {OSSL_PARAM_construct_utf8_string(keys[i], text, sizeof text),
                                OSSL_PARAM_END};
        CHECK(get_fails(ctx, as_text), "'%s' read into a 2-byte string: no reason queued",
              keys[i]);
    }
    {
        OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string("backend", octets, sizeof octets),
                          OSSL_PARAM_END};
        CHECK(get_fails(ctx, p), "'backend' read into octets: no reason queued");
    }
    {
        OSSL_PARAM p[] = {{"xoflen", OSSL_PARAM_UNSIGNED_INTEGER, &small, 1, 0}, OSSL_PARAM_END};
        CHECK(get_fails(ctx, p), "xoflen 1000 read into one byte: no reason queued");
    }
    {
        OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string("squeeze", NULL, 0), OSSL_PARAM_END};
        CHECK(get_fails(ctx, p), "squeeze into no buffer: no reason queued");
    }
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);

    for (int i = 0; i < 2; i++) {
        const char *name = i ? "KMAC256" : "KMAC128";
        EVP_MAC *mac = EVP_MAC_fetch(lib, name, OURS);
        EVP_MAC *theirs = EVP_MAC_fetch(lib, name, THEIRS);
        EVP_MAC_CTX *m = EVP_MAC_CTX_new(mac);
        uint8_t key[16] = {0};
        size_t got = 7;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t("xoflen", &got), OSSL_PARAM_END};
        CHECK(m != NULL && EVP_MAC_init(m, key, sizeof key, NULL), "%s init", name);
        CHECK(lists(EVP_MAC_gettable_ctx_params(mac), "xoflen") ==
                  lists(EVP_MAC_gettable_ctx_params(theirs), "xoflen"),
              "%s: gettable lists xoflen where OpenSSL's does not, or the reverse", name);
        CHECK(EVP_MAC_CTX_get_params(m, p) &&
                  (lists(EVP_MAC_gettable_ctx_params(mac), "xoflen") || got == 7),
              "%s answered xoflen (%zu), which its gettable list does not name", name, got);
        ERR_clear_error();
        EVP_MAC_CTX_free(m);
        EVP_MAC_free(mac);
        EVP_MAC_free(theirs);
    }
}

/* Code written for upstream OpenSSL: its names and types give the same
 * results as ksumprov's own. */
static void test_upstream_names(void)
{
    unsigned d = 0x0B;
    char a[129], b[129];
    OSSL_PARAM own_cshake[] = {
        OSSL_PARAM_construct_octet_string("custom", "Email Signature", 15),
        OSSL_PARAM_construct_octet_string("function-name", "N", 1),
        OSSL_PARAM_construct_end()};
    OSSL_PARAM up_cshake[] = {
        OSSL_PARAM_construct_utf8_string("customization", "Email Signature", 0),
        OSSL_PARAM_construct_utf8_string("function-name", "N", 0),
        OSSL_PARAM_construct_end()};
    OSSL_PARAM own_dom[] = {OSSL_PARAM_construct_uint("domain", &d),
                            OSSL_PARAM_construct_end()};
    OSSL_PARAM up_dom[] = {OSSL_PARAM_construct_uint("domain-separator", &d),
                           OSSL_PARAM_construct_end()};
    OSSL_PARAM own_kt[] = {OSSL_PARAM_construct_octet_string("custom", "C", 1),
                           OSSL_PARAM_construct_end()};
    OSSL_PARAM up_kt[] = {OSSL_PARAM_construct_octet_string("customization", "C", 1),
                          OSSL_PARAM_construct_end()};

    CHECK(digest_hex("CSHAKE128", own_cshake, "abc", 32, a) &&
              digest_hex("CSHAKE-128", up_cshake, "abc", 32, b) && strcmp(a, b) == 0,
          "cSHAKE: upstream names differ");
    CHECK(digest_hex("TURBOSHAKE128", own_dom, "abc", 32, a) &&
              digest_hex("TURBOSHAKE-128", up_dom, "abc", 32, b) && strcmp(a, b) == 0,
          "TurboSHAKE: domain-separator differs");
    CHECK(digest_hex("KT128", own_kt, "abc", 32, a) &&
              digest_hex("KT-128", up_kt, "abc", 32, b) && strcmp(a, b) == 0,
          "KT128: customization differs");

    /* settable lists carry upstream's names and types */
    EVP_MD *md = EVP_MD_fetch(lib, "CSHAKE128", OURS);
    const OSSL_PARAM *s = EVP_MD_settable_ctx_params(md);
    const OSSL_PARAM *c = OSSL_PARAM_locate_const(s, "customization");
    const OSSL_PARAM *f = OSSL_PARAM_locate_const(s, "function-name");
    CHECK(c != NULL && c->data_type == OSSL_PARAM_UTF8_STRING && f != NULL &&
              f->data_type == OSSL_PARAM_UTF8_STRING,
          "CSHAKE128 settable: customization and function-name as UTF-8");
    CHECK(OSSL_PARAM_locate_const(s, "domain") == NULL, "CSHAKE128 lists domain");
    EVP_MD_free(md);
    md = EVP_MD_fetch(lib, "KT128", OURS);
    c = OSSL_PARAM_locate_const(EVP_MD_settable_ctx_params(md), "customization");
    CHECK(c != NULL && c->data_type == OSSL_PARAM_OCTET_STRING,
          "KT128 settable: customization as an octet string");
    EVP_MD_free(md);

    /* TurboSHAKE's domain is readable under both names */
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned got1 = 0, got2 = 0;
    OSSL_PARAM get[] = {OSSL_PARAM_construct_uint("domain-separator", &got1),
                        OSSL_PARAM_construct_uint("domain", &got2),
                        OSSL_PARAM_construct_end()};
    md = EVP_MD_fetch(lib, "TURBOSHAKE256", OURS);
    CHECK(EVP_DigestInit_ex2(ctx, md, up_dom) && EVP_MD_CTX_get_params(ctx, get) &&
              got1 == 0x0B && got2 == 0x0B,
          "TurboSHAKE domain readable");
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);

    /* ksumprov's own default beside OpenSSL's (KMAC: 16 against 32) */
    EVP_MAC *mac = EVP_MAC_fetch(lib, "KMAC128", OURS);
    size_t own = 0;
    OSSL_PARAM dflt[] = {OSSL_PARAM_construct_size_t(KSUM_PARAM_DEFAULT_SIZE, &own),
                         OSSL_PARAM_construct_end()};
    CHECK(mac != NULL && EVP_MAC_get_params(mac, dflt) && own == 16,
          "KMAC128 default-size %zu", own);
    EVP_MAC_free(mac);
}

/* TupleHash's announced elements: the extension's errors. */
static void test_tuplehash_elements(void)
{
    EVP_MD *md = EVP_MD_fetch(lib, "TUPLEHASH128", OURS);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    uint64_t five = 5, zero = 0;
    OSSL_PARAM ann5[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_ELEMENT_LENGTH, &five),
                         OSSL_PARAM_construct_end()};
    OSSL_PARAM ann0[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_ELEMENT_LENGTH, &zero),
                         OSSL_PARAM_construct_end()};
    uint8_t a[32], b[32];

    CHECK(EVP_DigestInit_ex2(ctx, md, ann5) && EVP_DigestUpdate(ctx, "ab", 2) &&
              !EVP_DigestUpdate(ctx, "cdef", 4),
          "update past the announced element accepted");
    CHECK(error_says("announced"), "too long element message");
    CHECK(!EVP_MD_CTX_set_params(ctx, ann5), "announcement inside an element accepted");
    ERR_clear_error();
    CHECK(!EVP_DigestFinalXOF(ctx, a, 32), "final inside an element accepted");
    ERR_clear_error();
    /* the refused calls changed nothing: finish the element, then an empty one */
    CHECK(EVP_DigestInit_ex2(ctx, md, ann5) && EVP_DigestUpdate(ctx, "ab", 2) &&
              !EVP_DigestUpdate(ctx, "cdef", 4) && EVP_DigestUpdate(ctx, "cde", 3) &&
              EVP_MD_CTX_set_params(ctx, ann0) && EVP_DigestFinalXOF(ctx, a, 32),
          "element after refused calls");
    ERR_clear_error();
    CHECK(EVP_DigestInit_ex2(ctx, md, NULL) && EVP_DigestUpdate(ctx, "abcde", 5) &&
              EVP_MD_CTX_set_params(ctx, ann0) && EVP_DigestFinalXOF(ctx, b, 32) &&
              memcmp(a, b, 32) == 0,
          "streamed element differs from one update");
    /* no update at all: one empty element */
    CHECK(EVP_DigestInit_ex2(ctx, md, NULL) && EVP_DigestFinalXOF(ctx, a, 32) &&
              EVP_DigestInit_ex2(ctx, md, ann0) && EVP_DigestFinalXOF(ctx, b, 32) &&
              memcmp(a, b, 32) == 0,
          "no update is not one empty element");
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
}

/* Tree modes give the same output for every thread count and update split,
 * on inputs large enough for the threads to be used. */
static void test_thread_counts(void)
{
    static const char *const trees[] = {"KANGAROOTWELVE", "KT256",
                                        "MARSUPILAMIFOURTEEN", "PARALLELHASH128",
                                        "PARALLELHASH256"};
    static const unsigned counts[] = {1, 2, 3, 4, 7, 0};
    const size_t len = (6 << 20) + 12345;
    uint8_t *in = malloc(len), want[64], got[64];

    test_random(in, len);
    for (int a = 0; a < 5; a++) {
        size_t b = a >= 3 ? 1 + test_random_u64() % 20000 : 0;
        for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
            unsigned threads = counts[i];
            OSSL_PARAM p[] = {OSSL_PARAM_construct_uint(KSUM_PARAM_THREADS, &threads),
                              b ? OSSL_PARAM_construct_size_t(KSUM_PARAM_BLOCK_SIZE, &b)
                                : OSSL_PARAM_construct_end(),
                              OSSL_PARAM_construct_end()};
            uint8_t *out = i == 0 ? want : got;
            CHECK(digest_split(trees[a], OURS, p, in, len, out, 64, i > 0),
                  "%s with %u threads", trees[a], threads);
            CHECK(i == 0 || memcmp(want, got, 64) == 0,
                  "%s differs with %u threads", trees[a], threads);
        }
    }
    free(in);
}

/* A context keeps its helper threads across updates and inits; a copy
 * gets its own.  Both continue and agree with one thread. */
static void test_threads_kept_across_dup_and_init(void)
{
    static const char *const trees[] = {"KANGAROOTWELVE", "PARALLELHASH256"};
    const size_t part = 3 << 20;
    uint8_t *in = malloc(2 * part), want[32], a[32], b[32];

    test_random(in, 2 * part);
    for (int i = 0; i < 2; i++) {
        unsigned one = 1, four = 4;
        OSSL_PARAM p1[] = {OSSL_PARAM_construct_uint(KSUM_PARAM_THREADS, &one),
                           OSSL_PARAM_construct_end()};
        OSSL_PARAM p4[] = {OSSL_PARAM_construct_uint(KSUM_PARAM_THREADS, &four),
                           OSSL_PARAM_construct_end()};
        EVP_MD *md = EVP_MD_fetch(lib, trees[i], OURS);
        EVP_MD_CTX *ctx = EVP_MD_CTX_new(), *copy = EVP_MD_CTX_new();
        int ok = digest_split(trees[i], OURS, p1, in, 2 * part, want, 32, 0) &&
                 EVP_DigestInit_ex2(ctx, md, p4) && EVP_DigestUpdate(ctx, in, part) &&
                 EVP_MD_CTX_copy_ex(copy, ctx) &&
                 EVP_DigestUpdate(ctx, in + part, part) &&
                 EVP_DigestUpdate(copy, in + part, part) &&
                 EVP_DigestFinalXOF(copy, b, 32) && EVP_DigestFinalXOF(ctx, a, 32);
        CHECK(ok && memcmp(a, want, 32) == 0 && memcmp(b, want, 32) == 0,
              "%s: 4 threads across dupctx differ from 1", trees[i]);
        EVP_MD_CTX_free(copy);
        ok = EVP_DigestInit_ex2(ctx, md, p4) && EVP_DigestUpdate(ctx, in, 2 * part) &&
             EVP_DigestFinalXOF(ctx, a, 32);
        CHECK(ok && memcmp(a, want, 32) == 0, "%s: reinit with kept threads", trees[i]);
        EVP_MD_CTX_free(ctx);
        EVP_MD_free(md);
    }
    free(in);
}

static size_t output_size(const char *name)
{
    EVP_MD *md = EVP_MD_fetch(lib, name, OURS);
    size_t n = is_xof(name) ? 100 : (size_t)EVP_MD_get_size(md);
    EVP_MD_free(md);
    return n;
}

static void compare_backend(const char *name, const char *backend,
                            const uint8_t *in, size_t len)
{
    OSSL_PARAM params[6];
    size_t blk, n = output_size(name);
    unsigned d;
    size_t k = params_for(name, params, &blk, &d);
    uint8_t want[100], got[100];
    int ok;

    params[k + 1] = OSSL_PARAM_construct_end();
    params[k] = OSSL_PARAM_construct_utf8_string(KSUM_PARAM_BACKEND, "portable", 0);
    ok = digest_split(name, OURS, params, in, len, want, n, 1);
    params[k] = OSSL_PARAM_construct_utf8_string(KSUM_PARAM_BACKEND, (char *)backend, 0);
    ok = ok && digest_split(name, OURS, params, in, len, got, n, 1);
    CHECK(ok && memcmp(want, got, n) == 0, "%s on %s at len %zu", name, backend, len);
}

/* The lanes a context reads follow its backend, digests and MACs alike. */
static void test_lanes(void)
{
    static const struct { const char *backend; unsigned lanes; } want[] = {
        {"portable", 1}, {"portable8", 8}, {"bmi2", 1}, {"avx2", 4}, {"avx512", 8}};

    for (size_t b = 0; b < sizeof want / sizeof want[0]; b++) {
        EVP_MD *md = EVP_MD_fetch(lib, "KT128", OURS);
        EVP_MD_CTX *ctx = EVP_MD_CTX_new();
        unsigned lanes = 0;
        OSSL_PARAM pick[] = {OSSL_PARAM_construct_utf8_string(
                                 KSUM_PARAM_BACKEND, (char *)want[b].backend, 0),
                             OSSL_PARAM_construct_end()};
        OSSL_PARAM get[] = {OSSL_PARAM_construct_uint(KSUM_PARAM_LANES, &lanes),
                            OSSL_PARAM_construct_end()};
        if (EVP_DigestInit_ex2(ctx, md, pick)) {
            CHECK(EVP_MD_CTX_get_params(ctx, get) && lanes == want[b].lanes,
                  "%s reads %u lanes", want[b].backend, lanes);
        } else {
            printf("backend %s lanes: SKIPPED: %s\n", want[b].backend,
                   strcmp(want[b].backend, "avx512") == 0 ? "this CPU has no AVX-512"
                                                          : "not runnable here");
            ERR_clear_error();
        }
        EVP_MD_CTX_free(ctx);
        EVP_MD_free(md);
    }
    {
        EVP_MAC *mac = EVP_MAC_fetch(lib, "KMAC128", OURS);
        EVP_MAC_CTX *mctx = EVP_MAC_CTX_new(mac);
        unsigned lanes = 0;
        OSSL_PARAM get[] = {OSSL_PARAM_construct_uint(KSUM_PARAM_LANES, &lanes),
                            OSSL_PARAM_construct_end()};
        CHECK(EVP_MAC_CTX_get_params(mctx, get) &&
                  lanes == keccak_backend_active()->lanes,
              "KMAC reads %u lanes", lanes);
        EVP_MAC_CTX_free(mctx);
        EVP_MAC_free(mac);
    }
}

/* The part of a message a batch group absorbs together: all of it for the
 * sequential algorithms, the first chunk for the K12 family; the others
 * neither list nor answer it. */
static void test_batch_prefix(void)
{
    static const struct { const char *name; uint64_t prefix; int listed; } want[] = {
        {"SHA3-256", 0, 1}, {"SHAKE128", 0, 1},      {"TURBOSHAKE128", 0, 1},
        {"KT128", 8192, 1}, {"KT256", 8192, 1},      {"M14", 8192, 1},
        {"PARALLELHASH128", 0, 0}, {"TUPLEHASH256", 0, 0}};

    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        EVP_MD *md = EVP_MD_fetch(lib, want[i].name, OURS);
        EVP_MD_CTX *ctx = EVP_MD_CTX_new();
        uint64_t prefix = 77;
        OSSL_PARAM get[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_BATCH_PREFIX, &prefix),
                            OSSL_PARAM_construct_end()};
        const OSSL_PARAM *list = EVP_MD_gettable_ctx_params(md);
        int listed = OSSL_PARAM_locate_const(list, KSUM_PARAM_BATCH_PREFIX) != NULL;

        CHECK(md != NULL && EVP_DigestInit_ex2(ctx, md, NULL), "%s init", want[i].name);
        CHECK(listed == want[i].listed, "%s lists batch-prefix: %d", want[i].name, listed);
        CHECK(EVP_MD_CTX_get_params(ctx, get), "%s get batch-prefix", want[i].name);
        CHECK(prefix == (want[i].listed ? want[i].prefix : 77),
              "%s batch-prefix %llu", want[i].name, (unsigned long long)prefix);
        EVP_MD_CTX_free(ctx);
        EVP_MD_free(md);
    }
    {
        EVP_MAC *mac = EVP_MAC_fetch(lib, "KMAC256", OURS);
        EVP_MAC_CTX *mctx = EVP_MAC_CTX_new(mac);
        uint64_t prefix = 77;
        OSSL_PARAM get[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_BATCH_PREFIX, &prefix),
                            OSSL_PARAM_construct_end()};
        CHECK(EVP_MAC_CTX_get_params(mctx, get) && prefix == 0, "KMAC batch-prefix %llu",
              (unsigned long long)prefix);
        EVP_MAC_CTX_free(mctx);
        EVP_MAC_free(mac);
    }
}

/* Every backend this CPU runs gives the portable backend's output, for
 * every algorithm, chosen per context with the "backend" parameter. */
static void test_backends_through_evp(void)
{
    static const char *const backends[] = {"bmi2", "avx2", "portable8", "avx512"};
    static const size_t lens[] = {0, 1, 167, 168, 169, 8191, 8192, 8193,
                                  4 * 8192, 5 * 8192 + 1, 9 * 8192 + 77, 70000};
    uint8_t *in = malloc(80000);

    test_random(in, 80000);
    for (int b = 0; b < 4; b++) {
        EVP_MD *probe = EVP_MD_fetch(lib, "SHA3-256", OURS);
        EVP_MD_CTX *ctx = EVP_MD_CTX_new();
        OSSL_PARAM pick[] = {
            OSSL_PARAM_construct_utf8_string(KSUM_PARAM_BACKEND, (char *)backends[b], 0),
            OSSL_PARAM_construct_end()};
        int available = EVP_DigestInit_ex2(ctx, probe, pick);
        ERR_clear_error();
        EVP_MD_CTX_free(ctx);
        EVP_MD_free(probe);
        if (!available) {
            printf("backend %s: SKIPPED: %s\n", backends[b],
                   strcmp(backends[b], "avx512") == 0 ? "this CPU has no AVX-512"
                                                      : "not runnable here");
            continue;
        }
        for (int i = 0; all_digests[i] != NULL; i++)
            for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++)
                compare_backend(all_digests[i], backends[b], in, lens[l]);
    }
    OSSL_PARAM bad[] = {OSSL_PARAM_construct_utf8_string(KSUM_PARAM_BACKEND, "neon", 0),
                        OSSL_PARAM_construct_end()};
    CHECK(init_fails("SHAKE128", bad), "backend 'neon' accepted");
    free(in);
}

/* Eight threads share the fetched objects; each uses its own contexts. */
static EVP_MD *shared_md;
static EVP_MAC *shared_mac;
static uint8_t thread_want[2][32];

static void *hash_worker(void *arg)
{
    uint8_t buf[10000], out[32];
    size_t outl;
    (void)arg;
    memset(buf, 0x5A, sizeof buf);
    for (int i = 0; i < 200; i++) {
        EVP_MD_CTX *ctx = EVP_MD_CTX_new(), *copy = EVP_MD_CTX_new();
        EVP_DigestInit_ex2(ctx, shared_md, NULL);
        EVP_DigestUpdate(ctx, buf, 5000);
        EVP_MD_CTX_copy_ex(copy, ctx);
        EVP_MD_CTX_free(ctx);
        EVP_DigestUpdate(copy, buf + 5000, 5000);
        EVP_DigestFinalXOF(copy, out, 32);
        EVP_MD_CTX_free(copy);
        if (memcmp(out, thread_want[0], 32) != 0)
            return "digest";
        EVP_MAC_CTX *m = EVP_MAC_CTX_new(shared_mac);
        EVP_MAC_init(m, (const uint8_t *)"key!", 4, NULL);
        EVP_MAC_update(m, buf, sizeof buf);
        EVP_MAC_final(m, out, &outl, sizeof out);
        EVP_MAC_CTX_free(m);
        if (memcmp(out, thread_want[1], 32) != 0)
            return "mac";
    }
    return NULL;
}

static void test_threads(void)
{
    pthread_t t[8];
    uint8_t buf[10000];
    size_t outl;

    memset(buf, 0x5A, sizeof buf);
    shared_md = EVP_MD_fetch(lib, "KANGAROOTWELVE", OURS);
    shared_mac = EVP_MAC_fetch(lib, "KMAC128", OURS);
    evp_digest(lib, "KANGAROOTWELVE", OURS, NULL, buf, sizeof buf, thread_want[0], 32);
    EVP_MAC_CTX *m = EVP_MAC_CTX_new(shared_mac);
    EVP_MAC_init(m, (const uint8_t *)"key!", 4, NULL);
    EVP_MAC_update(m, buf, sizeof buf);
    EVP_MAC_final(m, thread_want[1], &outl, 32);
    EVP_MAC_CTX_free(m);
    for (int i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, hash_worker, NULL);
    for (int i = 0; i < 8; i++) {
        void *res;
        pthread_join(t[i], &res);
        CHECK(res == NULL, "thread %d: %s differs", i, (const char *)res);
    }
    EVP_MD_free(shared_md);
    EVP_MAC_free(shared_mac);
}

int main(void)
{
    lib = test_libctx(1);
    test_differential_digests();
    test_differential_kmac();
    test_splits_and_dup();
    test_long_output();
    test_names_and_flags();
    test_squeeze_param();
    test_squeeze_stops_at_a_hashed_length();
    test_failed_init_leaves_nothing_to_hash();
    test_bad_params();
    test_null_parameters();
    test_failed_set_changes_nothing();
    test_upstream_names();
    test_fixed_length_has_no_output_length();
    test_spellings_in_one_call();
    test_xof_any_true_value();
    test_get_failures_are_reported();
    test_tuplehash_elements();
    test_threads();
    test_thread_counts();
    test_threads_kept_across_dup_and_init();
    test_backends_through_evp();
    test_lanes();
    test_batch_prefix();
    test_libctx_free(lib);
    return test_summary("test_provider");
}
