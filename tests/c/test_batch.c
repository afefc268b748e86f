/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Batched contexts (KSUM_PARAM_BATCH) against unbatched ones: every
 * sequential algorithm at lengths around block boundaries with lanes
 * finishing at different times, mixed groups, messages up to 1 MiB with
 * random splits, dup / free / init / final / squeeze / a new id in the
 * middle of a batch, random programs of all of these (batch_script.c), two
 * threads sharing groups (with updates up to 1 MiB too: long ones absorb
 * outside the group's lock), memory refused at join, and the groups below EVP
 * (provider/modes/batch.h): which members a flush takes with it.
 */
#include <pthread.h>

#include "../../provider/modes/batch.h"
#include "../../provider/modes/fips202.h"
#include "batch_script.h"
#include "testutil.h"

static OSSL_LIB_CTX *lib;
#define OURS "provider=ksumprov"
#define MSG_LEN ((1 << 20) + 65536)
static uint8_t *msg;

/* ---- OpenSSL's allocator, able to refuse the large blocks of a join ---- */

static int refuse_large;

static void *test_malloc(size_t n, const char *file, int line)
{
    (void)file, (void)line;
    if (refuse_large && n >= KSUMPROV_BATCH_PENDING)
        return NULL;
    return malloc(n);
}

static void *test_realloc(void *p, size_t n, const char *file, int line)
{
    (void)file, (void)line;
    if (refuse_large && n >= KSUMPROV_BATCH_PENDING)
        return NULL;
    return realloc(p, n);
}

static void test_free(void *p, const char *file, int line)
{
    (void)file, (void)line;
    free(p);
}

/* ---- contexts through EVP ---- */

typedef struct alg {
    const char *name;
    int mac, xof;
    unsigned rate;
} alg;

static const alg algs[] = {
    {"SHA3-224", 0, 0, 144}, {"SHA3-256", 0, 0, 136}, {"SHA3-384", 0, 0, 104},
    {"SHA3-512", 0, 0, 72}, {"KECCAK-224", 0, 0, 144}, {"KECCAK-256", 0, 0, 136},
    {"KECCAK-384", 0, 0, 104}, {"KECCAK-512", 0, 0, 72}, {"SHAKE128", 0, 1, 168},
    {"SHAKE256", 0, 1, 136}, {"RAWSHAKE128", 0, 1, 168}, {"RAWSHAKE256", 0, 1, 136},
    {"TURBOSHAKE128", 0, 1, 168}, {"TURBOSHAKE256", 0, 1, 136},
    {"CSHAKE128", 0, 1, 168}, {"CSHAKE256", 0, 1, 136}, {"KMAC128", 1, 0, 168},
    {"KMAC256", 1, 0, 136},
    /* the K12 family batches its first chunk (all of a short message) */
    {"KANGAROOTWELVE", 0, 1, 168}, {"KT256", 0, 1, 136},
    {"MARSUPILAMIFOURTEEN", 0, 1, 136},
};
#define ALGS (sizeof algs / sizeof algs[0])

/* A context of one of algs, with N and S for cSHAKE, a key and S for KMAC,
 * D for TurboSHAKE, and a batch id (0: none). */
typedef struct ctx {
    const alg *a;
    EVP_MD *md;
    EVP_MAC *mac;
    EVP_MD_CTX *mdc;
    EVP_MAC_CTX *macc;
    uint64_t id;
} ctx;

static int ctx_init(ctx *c)
{
    static unsigned domain = 0x0B;
    OSSL_PARAM p[6], *q = p;

    if (strncmp(c->a->name, "CSHAKE", 6) == 0) {
        *q++ = OSSL_PARAM_construct_utf8_string(KSUM_PARAM_FUNCTION_NAME, "fn", 0);
        *q++ = OSSL_PARAM_construct_utf8_string(KSUM_PARAM_CUSTOMIZATION,
                                                "a customization string", 0);
    }
    if (strncmp(c->a->name, "TURBO", 5) == 0)
        *q++ = OSSL_PARAM_construct_uint(KSUM_PARAM_DOMAIN, &domain);
    if (c->a->mac)
        *q++ = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CUSTOM, "kmac S", 0);
    if (c->id != 0)
        *q++ = OSSL_PARAM_construct_uint64(KSUM_PARAM_BATCH, &c->id);
    *q = OSSL_PARAM_construct_end();
    if (c->a->mac)
        return EVP_MAC_init(c->macc, (const uint8_t *)"the key", 7, p);
    return EVP_DigestInit_ex2(c->mdc, c->md, p);
}

static int ctx_open(ctx *c, const alg *a, uint64_t id)
{
    memset(c, 0, sizeof *c);
    c->a = a;
    c->id = id;
    if (a->mac) {
        c->mac = EVP_MAC_fetch(lib, a->name, OURS);
        c->macc = EVP_MAC_CTX_new(c->mac);
    } else {
        c->md = EVP_MD_fetch(lib, a->name, OURS);
        c->mdc = EVP_MD_CTX_new();
    }
    return (c->macc != NULL || c->mdc != NULL) && ctx_init(c);
}

static void ctx_close(ctx *c)
{
    EVP_MAC_CTX_free(c->macc);
    EVP_MAC_free(c->mac);
    EVP_MD_CTX_free(c->mdc);
    EVP_MD_free(c->md);
    memset(c, 0, sizeof *c);
}

static int ctx_update(ctx *c, const uint8_t *in, size_t len)
{
    if (c->a->mac)
        return EVP_MAC_update(c->macc, in, len);
    return EVP_DigestUpdate(c->mdc, in, len);
}

/* 32 bytes of output (the digest's own length for SHA3 and Keccak). */
static int ctx_final(ctx *c, uint8_t out[64])
{
    size_t outl;
    unsigned int n;

    if (c->a->mac)
        return EVP_MAC_final(c->macc, out, &outl, 64);
    if (c->a->xof)
        return EVP_DigestFinalXOF(c->mdc, out, 32);
    return EVP_DigestFinal_ex(c->mdc, out, &n);
}

static size_t out_len(const alg *a)
{
    if (a->mac) /* OpenSSL's default sizes */
        return a->rate == 168 ? 32 : 64;
    if (a->xof)
        return 32;
    return strtoul(strchr(a->name, '-') + 1, NULL, 10) / 8;
}

static int ctx_set_id(ctx *c, uint64_t id)
{
    OSSL_PARAM p[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_BATCH, &id),
                      OSSL_PARAM_construct_end()};
    int ok = c->a->mac ? EVP_MAC_CTX_set_params(c->macc, p)
                       : EVP_MD_CTX_set_params(c->mdc, p);

    if (ok)
        c->id = id;
    return ok;
}

static uint64_t ctx_get_id(ctx *c)
{
    uint64_t id = 12345;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_BATCH, &id),
                      OSSL_PARAM_construct_end()};

    if (!(c->a->mac ? EVP_MAC_CTX_get_params(c->macc, p)
                    : EVP_MD_CTX_get_params(c->mdc, p)))
        return 54321;
    return id;
}

/* The unbatched output of in; 0 on failure. */
static int expected(const alg *a, const uint8_t *in, size_t len, uint8_t out[64])
{
    ctx c;
    int ok = ctx_open(&c, a, 0) && ctx_update(&c, in, len) && ctx_final(&c, out);

    ctx_close(&c);
    return ok;
}

static void expect(const alg *a, const uint8_t *in, size_t len, uint8_t out[64])
{
    CHECK(expected(a, in, len, out), "%s unbatched", a->name);
}

/* n contexts of the given algorithms, in group id, hash message i of len[i]
 * bytes (at msg + 1000 i) in turns of `chunk` bytes; each output must be
 * its unbatched one.  Returns the first that is not, or -1 (no CHECK:
 * threads call it). */
static int in_turns(const alg *const a[], const size_t len[], unsigned n,
                    size_t chunk, uint64_t id)
{
    ctx c[8];
    size_t done[8] = {0};
    int more = 1, bad = -1;

    for (unsigned i = 0; i < n; i++)
        if (!ctx_open(&c[i], a[i], id) && bad < 0)
            bad = (int)i;
    while (more) {
        more = 0;
        for (unsigned i = 0; i < n; i++) {
            size_t take = len[i] - done[i] < chunk ? len[i] - done[i] : chunk;
            if (take == 0)
                continue;
            if (!ctx_update(&c[i], msg + 1000 * i + done[i], take) && bad < 0)
                bad = (int)i;
            done[i] += take;
            more = 1;
        }
    }
    for (unsigned i = 0; i < n; i++) {
        uint8_t got[64], want[64];
        if ((!expected(a[i], msg + 1000 * i, len[i], want) || !ctx_final(&c[i], got) ||
             memcmp(got, want, out_len(a[i])) != 0) &&
            bad < 0)
            bad = (int)i;
        ctx_close(&c[i]);
    }
    return bad;
}

static void group_in_turns(const alg *const a[], const size_t len[], unsigned n,
                           size_t chunk, uint64_t id)
{
    int bad = in_turns(a, len, n, chunk, id);

    CHECK(bad < 0, "%s of %zu bytes in turns of %zu with %u others (id %llu)",
          a[bad < 0 ? 0 : bad]->name, len[bad < 0 ? 0 : bad], chunk, n - 1,
          (unsigned long long)id);
}

/* ---- tests ---- */

static void test_listed(void)
{
    static const char *const ignoring[] = {"PARALLELHASH128", "TUPLEHASH256",
                                           "PARALLELHASH256", "TUPLEHASH128"};

    for (size_t i = 0; i < ALGS; i++) {
        const OSSL_PARAM *set, *get;
        if (algs[i].mac) {
            EVP_MAC *mac = EVP_MAC_fetch(lib, algs[i].name, OURS);
            set = EVP_MAC_settable_ctx_params(mac);
            get = EVP_MAC_gettable_ctx_params(mac);
            EVP_MAC_free(mac);
        } else {
            EVP_MD *md = EVP_MD_fetch(lib, algs[i].name, OURS);
            set = EVP_MD_settable_ctx_params(md);
            get = EVP_MD_gettable_ctx_params(md);
            EVP_MD_free(md);
        }
        CHECK(OSSL_PARAM_locate_const(set, KSUM_PARAM_BATCH) != NULL &&
                  OSSL_PARAM_locate_const(get, KSUM_PARAM_BATCH) != NULL,
              "%s lists batch", algs[i].name);
    }
    for (size_t i = 0; i < 4; i++) {
        EVP_MD *md = EVP_MD_fetch(lib, ignoring[i], OURS);
        EVP_MD_CTX *c = EVP_MD_CTX_new();
        uint64_t id = 3;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_BATCH, &id),
                          OSSL_PARAM_construct_end()};
        uint8_t a[32], b[32];
        CHECK(OSSL_PARAM_locate_const(EVP_MD_settable_ctx_params(md),
                                      KSUM_PARAM_BATCH) == NULL,
              "%s does not list batch", ignoring[i]);
        CHECK(EVP_DigestInit_ex2(c, md, p) && EVP_DigestUpdate(c, msg, 5000) &&
                  EVP_DigestFinalXOF(c, a, 32) &&
                  evp_digest(lib, ignoring[i], OURS, NULL, msg, 5000, b, 32) &&
                  memcmp(a, b, 32) == 0,
              "%s ignores batch", ignoring[i]);
        EVP_MD_CTX_free(c);
        EVP_MD_free(md);
    }
}

static void test_param_semantics(void)
{
    const alg *sha3 = &algs[1], *kmac = &algs[16];
    ctx c, k;
    uint8_t out[64];
    OSSL_PARAM wrong[] = {OSSL_PARAM_construct_utf8_string(KSUM_PARAM_BATCH, "7", 0),
                          OSSL_PARAM_construct_end()};

    CHECK(ctx_open(&c, sha3, 0) && ctx_get_id(&c) == 0, "default id 0");
    CHECK(ctx_set_id(&c, 7) && ctx_get_id(&c) == 7, "id reads back");
    CHECK(EVP_MD_CTX_set_params(c.mdc, wrong) == 0 && ctx_get_id(&c) == 7,
          "a string id is refused and changes nothing");
    ERR_clear_error();
    CHECK(ctx_set_id(&c, 0xFFFFFFFFFFFFFFFFULL) && ctx_get_id(&c) == 0xFFFFFFFFFFFFFFFFULL,
          "any uint64 id");
    /* A digest's init resets it, unless it is given again. */
    c.id = 0;
    CHECK(ctx_init(&c) && ctx_get_id(&c) == 0, "digest init resets the id");
    c.id = 9;
    CHECK(ctx_init(&c) && ctx_get_id(&c) == 9, "init gives the id");
    CHECK(ctx_init(&c) && ctx_get_id(&c) == 9, "init gives it again");
    CHECK(ctx_update(&c, msg, 100) && ctx_final(&c, out), "final");
    CHECK(ctx_set_id(&c, 10) && ctx_get_id(&c) == 10, "any time, after final too");
    ctx_close(&c);
    /* KMAC keeps it across inits, as its key. */
    CHECK(ctx_open(&k, kmac, 5) && ctx_get_id(&k) == 5, "KMAC id");
    CHECK(EVP_MAC_init(k.macc, NULL, 0, NULL) && ctx_get_id(&k) == 5,
          "KMAC init keeps the id");
    CHECK(ctx_set_id(&k, 0) && ctx_get_id(&k) == 0, "KMAC leaves");
    ctx_close(&k);
}

/* Every algorithm at 0 to 3 rates around the block boundaries, four
 * lengths to a group (lanes finish at different times), in turns of
 * sizes around a block and of the pending bound. */
static void test_boundaries(void)
{
    for (size_t i = 0; i < ALGS; i++) {
        size_t rate = algs[i].rate, lens[20], n = 0;
        const size_t chunks[] = {1, 7, rate - 1, rate, rate + 1, 3 * rate, 65536};
        for (size_t k = 0; k <= 3; k++)
            for (size_t d = 0; d < 5; d++)
                if (k * rate + d >= 2)
                    lens[n++] = k * rate + d - 2;
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
            for (size_t g = 0; g + 4 <= n; g += 3) {
                const alg *a[4] = {&algs[i], &algs[i], &algs[i], &algs[i]};
                group_in_turns(a, lens + g, 4, chunks[c], 1 + g % 2);
            }
    }
}

/* The K12 family: messages around the first chunk's end (8192 bytes, where
 * the batch hands the final node back to the tree) and a few chunks long,
 * in groups of four, in turns of sizes that cross it. */
static void test_kangaroo_first_chunk(void)
{
    static const size_t around[] = {0, 1, 167, 8191, 8192, 8193, 8192 + 168,
                                    16383, 16384, 16385, 3 * 8192 + 5, 40000};
    static const size_t chunks[] = {1, 100, 4096, 8191, 8193, 65536};
    const size_t n = sizeof around / sizeof around[0];

    for (size_t i = ALGS - 3; i < ALGS; i++)
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
            for (size_t g = 0; g + 4 <= n; g += 2) {
                const alg *a[4] = {&algs[i], &algs[i], &algs[i], &algs[ALGS - 3]};
                if (chunks[c] == 1 && around[g + 3] > 9000)
                    continue;  /* byte by byte is slow and adds nothing there */
                group_in_turns(a, around + g, 4, chunks[c], 2 + g % 3);
            }
}

/* Groups of 1 to 6 contexts of mixed algorithms (rates, rounds: SHA3 with
 * TurboSHAKE), messages up to 1 MiB, in turns of random sizes. */
static void test_mixed_groups(void)
{
    for (int round = 0; round < 24; round++) {
        unsigned n = 1 + round % 6;
        const alg *a[6];
        size_t len[6];
        size_t chunk = round % 3 == 0 ? 65536 : 1 + test_random_u64() % 70000;
        for (unsigned i = 0; i < n; i++) {
            a[i] = &algs[test_random_u64() % ALGS];
            len[i] = test_random_u64() % (round % 4 == 0 ? (1 << 20) : 200000);
        }
        if (round % 5 == 0) { /* the pairs the issue names */
            a[0] = &algs[1];
            if (n > 1)
                a[1] = &algs[12];
        }
        group_in_turns(a, len, n, chunk, 100 + round % 2);
    }
}

/* One message split at random, in a group whose other members are fed in
 * turns with it. */
static void test_random_splits(void)
{
    for (int round = 0; round < 30; round++) {
        const alg *a = &algs[test_random_u64() % ALGS];
        size_t len = test_random_u64() % (round < 5 ? (1 << 20) : 140000);
        ctx c, others[3];
        uint8_t got[64], want[64];
        for (int j = 0; j < 3; j++)
            ctx_open(&others[j], &algs[test_random_u64() % ALGS], 77);
        CHECK(ctx_open(&c, a, 77), "open");
        for (size_t done = 0; done < len;) {
            size_t take = test_random_u64() % 3 == 0 ? test_random_u64() % 300
                                                      : test_random_u64() % 90000;
            if (take > len - done)
                take = len - done;
            ctx_update(&c, msg + done, take);
            ctx_update(&others[done % 3], msg + 7, take);
            done += take;
        }
        expect(a, msg, len, want);
        CHECK(ctx_final(&c, got) && memcmp(got, want, out_len(a)) == 0,
              "%s of %zu bytes split at random", a->name, len);
        for (int j = 0; j < 3; j++)
            ctx_close(&others[j]);
        ctx_close(&c);
    }
}

/* dup, free, init, final, squeeze and a new id while the others hold
 * pending input. */
static void test_mid_batch(void)
{
    const alg *sha3 = &algs[1], *shake = &algs[8], *kmac = &algs[17];
    const size_t part = 40000;
    ctx c[5], copy;
    uint8_t got[64], want[64], sq[100], sq_want[100];

    CHECK(ctx_open(&c[0], sha3, 1) && ctx_open(&c[1], sha3, 1) &&
              ctx_open(&c[2], shake, 1) && ctx_open(&c[3], kmac, 1) &&
              ctx_open(&c[4], sha3, 1),
          "open");
    for (int i = 0; i < 5; i++)
        ctx_update(&c[i], msg, part);
    /* dup: the copy holds everything the original was given, and both go
     * on in the group. */
    memset(&copy, 0, sizeof copy);
    copy.a = sha3;
    copy.id = 1;
    copy.mdc = EVP_MD_CTX_new();
    CHECK(EVP_MD_CTX_copy_ex(copy.mdc, c[0].mdc) && ctx_get_id(&copy) == 1,
          "dup keeps the id");
    /* free in the middle: the others do not notice. */
    EVP_MD_CTX_free(c[1].mdc);
    c[1].mdc = NULL;
    /* init in the middle: the pending input is forgotten. */
    c[4].id = 1;
    CHECK(ctx_init(&c[4]), "init");
    /* squeeze in the middle. */
    {
        OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_SQUEEZE, sq,
                                                            sizeof sq),
                          OSSL_PARAM_construct_end()};
        EVP_MD_CTX *u = EVP_MD_CTX_new();
        CHECK(EVP_MD_CTX_get_params(c[2].mdc, p), "squeeze");
        CHECK(EVP_DigestInit_ex2(u, c[2].md, NULL) && EVP_DigestUpdate(u, msg, part) &&
                  EVP_DigestFinalXOF(u, sq_want, sizeof sq_want) &&
                  memcmp(sq, sq_want, sizeof sq) == 0,
              "squeeze mid-batch");
        EVP_MD_CTX_free(u);
    }
    /* a new id in the middle: the input held goes with it. */
    CHECK(ctx_set_id(&c[3], 2), "new id");
    for (int i = 0; i < 5; i++)
        if (i != 1 && i != 2)
            ctx_update(&c[i], msg + part, part);
    ctx_update(&copy, msg + 5, part);
    expect(sha3, msg, 2 * part, want);
    CHECK(ctx_final(&c[0], got) && memcmp(got, want, 32) == 0, "original after dup");
    {
        uint8_t *m = malloc(2 * part);
        memcpy(m, msg, part);
        memcpy(m + part, msg + 5, part);
        expect(sha3, m, 2 * part, want);
        CHECK(ctx_final(&copy, got) && memcmp(got, want, 32) == 0, "copy");
        free(m);
    }
    expect(kmac, msg, 2 * part, want);
    CHECK(ctx_final(&c[3], got) && memcmp(got, want, 64) == 0, "KMAC after a new id");
    expect(sha3, msg + part, part, want);
    CHECK(ctx_final(&c[4], got) && memcmp(got, want, 32) == 0, "after init");
    EVP_MD_CTX_free(copy.mdc);
    for (int i = 0; i < 5; i++)
        ctx_close(&c[i]);
}

/* Random programs of every operation (batch_script.c). */
static void run_programs(unsigned count, size_t code_len, size_t max_update,
                         uint64_t first_id, const char *who)
{
    uint8_t *code = malloc(code_len);
    unsigned long steps = 0, outputs = 0;

    for (unsigned i = 0; i < count; i++) {
        batch_script s = {0};
        test_random(code, code_len);
        s.lib = lib;
        s.code = code;
        s.code_len = code_len;
        s.msg = msg;
        s.msg_len = MSG_LEN;
        s.max_update = max_update;
        s.first_id = first_id;
        s.slots = 1 + code[0] % BATCH_SCRIPT_SLOTS;
        CHECK(batch_script_run(&s, code_len), "%s program %u: %s", who, i, s.error);
        steps += s.steps;
        outputs += s.outputs;
    }
    printf("%s programs: %lu steps, %lu outputs compared\n", who, steps, outputs);
    free(code);
}

static void test_programs(int quick)
{
    run_programs(quick ? 1 : 6, 1000, 1 << 20, 1, "large");
    run_programs(quick ? 15 : 100, 2000, 70000, 1, "small");
}

/* Two threads, each with its own contexts, in the same groups. */
static pthread_mutex_t check_lock = PTHREAD_MUTEX_INITIALIZER;

/* Seeds 1 and 2: updates up to 70000 bytes, 40 programs; 3 and 4: up to
 * 1 MiB, so that long updates of one thread run while the other's flushes
 * take and give back members of the same groups, 8 programs. */
static void *thread_programs(void *arg)
{
    uint8_t code[500];
    uint64_t seed = (uintptr_t)arg;
    int bad = 0, long_ones = seed > 2;

    for (unsigned i = 0; i < (long_ones ? 8u : 40u) && !bad; i++) {
        batch_script s = {0};
        for (size_t j = 0; j < sizeof code; j++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            code[j] = (uint8_t)(seed >> 56);
        }
        s.lib = lib;
        s.code = code;
        s.code_len = sizeof code;
        s.msg = msg;
        s.msg_len = MSG_LEN;
        s.max_update = long_ones ? 1 << 20 : 70000;
        s.first_id = 500;
        s.slots = 4;
        if (!batch_script_run(&s, sizeof code)) {
            pthread_mutex_lock(&check_lock);
            CHECK(0, "thread %lu program %u: %s", (unsigned long)(uintptr_t)arg, i,
                  s.error);
            pthread_mutex_unlock(&check_lock);
            bad = 1;
        }
    }
    return NULL;
}

/* Three contexts a thread, all six in one group, 64 KiB turns. */
static void *thread_turns(void *arg)
{
    const alg *a[3] = {&algs[1], &algs[1], &algs[12]};
    size_t len[3] = {600000, 400000, 500000};
    int bad = 0;

    (void)arg;
    for (int round = 0; round < 3; round++)
        bad |= in_turns(a, len, 3, 65536, 600) >= 0;
    return bad ? "differs" : NULL;
}

static void test_threads(void)
{
    pthread_t t[4];

    for (uintptr_t seed = 1; seed <= 4; seed += 2) {
        pthread_create(&t[0], NULL, thread_programs, (void *)seed);
        pthread_create(&t[1], NULL, thread_programs, (void *)(seed + 1));
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
    }
    pthread_create(&t[2], NULL, thread_turns, NULL);
    pthread_create(&t[3], NULL, thread_turns, NULL);
    for (int i = 2; i < 4; i++) {
        void *res;
        pthread_join(t[i], &res);
        CHECK(res == NULL, "thread %d in a shared group: %s", i, (const char *)res);
    }
}

static int last_reason_is_alloc(void)
{
    unsigned long e = ERR_peek_last_error();
    int ok = e != 0 && ERR_GET_REASON(e) == 1; /* KSUM_R_ALLOC */

    ERR_clear_error();
    return ok;
}

static void test_refused_memory(void)
{
    const alg *sha3 = &algs[1];
    ctx c, j;
    uint8_t got[64], want[64];
    EVP_MD_CTX *copy = EVP_MD_CTX_new();

    CHECK(ctx_open(&c, sha3, 0) && ctx_open(&j, sha3, 4), "open");
    ctx_update(&j, msg, 1000);
    refuse_large = 1;
    CHECK(!ctx_set_id(&c, 4) && last_reason_is_alloc(), "join refused");
    CHECK(ctx_get_id(&c) == 0, "the context is as it was");
    CHECK(!EVP_MD_CTX_copy_ex(copy, j.mdc), "dup refused");
    ERR_clear_error();
    c.id = 4;
    CHECK(!ctx_init(&c), "init with an id refused");
    ERR_clear_error();
    refuse_large = 0;
    c.id = 0;
    CHECK(ctx_init(&c) && ctx_update(&c, msg, 3000) && ctx_final(&c, got), "unbatched");
    expect(sha3, msg, 3000, want);
    CHECK(memcmp(got, want, 32) == 0, "unbatched after a refused join");
    ctx_update(&j, msg + 1000, 2000);
    CHECK(ctx_final(&j, got) && memcmp(got, want, 32) == 0,
          "batched after a refused dup");
    EVP_MD_CTX_free(copy);
    ctx_close(&c);
    ctx_close(&j);
}

/* ---- the groups below EVP ---- */

static void *plain_alloc(size_t n)
{
    return malloc(n);
}

static void plain_release(void *p, size_t wipe)
{
    (void)wipe;
    free(p);
}

static const batch_memory plain = {plain_alloc, plain_release};

/* A backend of four lanes on any CPU: the serial one, same results. */
static const keccak_backend *four_lanes(void)
{
    return &keccak_serial_backends[1];
}

/* Who a flush takes with it: members with pending whole blocks, on the
 * same backend with the same rounds, at most three (four lanes), those
 * with the most. */
static void test_pairing(void)
{
    const keccak_backend *be = four_lanes(), *other = &keccak_portable_backend;
    batch_registry *r = batch_registry_new(&plain);
    sponge sp[7], ref[7];
    batch_member *m[7];
    const size_t full = BATCH_PENDING_MAX;
    uint8_t a[32], b[32];

    for (int i = 0; i < 7; i++) {
        /* 0-3: SHA3-256; 4: TurboSHAKE128 (12 rounds); 5: SHA3-512 on
         * another backend (if any); 6: SHA3-512 */
        unsigned rate = i == 4 ? 168 : i >= 5 ? 72 : 136;
        sponge_init(&sp[i], i == 5 && other != NULL ? other : be, rate,
                    i == 4 ? 12 : 24, DOMAIN_SHA3);
        ref[i] = sp[i];
        m[i] = batch_join(r, 1, &sp[i]);
    }
    /* Pending: 0-3 the full buffer; 4, 5 plenty; 6 a little. */
    for (int i = 0; i < 7; i++) {
        size_t len = i < 4 ? full : i < 6 ? 30000 : 300;
        batch_absorb(m[i], msg + i, len);
        sponge_absorb(&ref[i], msg + i, len);
        CHECK(batch_pending(m[i]) == len, "member %d holds its input", i);
    }
    /* 0 overflows: 1, 2, 3 go with it, block for block. */
    batch_absorb(m[0], msg, 10);
    sponge_absorb(&ref[0], msg, 10);
    CHECK(batch_pending(m[0]) == 10, "the overflowing member holds the new input");
    for (int i = 1; i < 4; i++)
        CHECK(batch_pending(m[i]) == full % 136, "member %d absorbed with it: %zu held", i,
              batch_pending(m[i]));
    CHECK(batch_pending(m[4]) == 30000, "other rounds are not taken");
    CHECK(batch_pending(m[5]) == 30000, "fewer blocks than three others: not taken");
    CHECK(batch_pending(m[6]) == 300, "not taken while three hold more");
    /* 6 flushes (final): 5 (if it pairs), then 1-3's remainders are not
     * whole blocks, 4 does not pair. */
    batch_flush(m[6]);
    CHECK(batch_pending(m[6]) == 0, "a flush takes all of its own");
    CHECK(batch_pending(m[5]) == (other != NULL ? 30000 : 30000 - 4 * 72),
          "taken for the shortest's blocks only on the same backend: %zu held",
          batch_pending(m[5]));
    for (int i = 0; i < 7; i++) {
        batch_flush(m[i]);
        sponge_squeeze(&sp[i], a, 32);
        sponge_squeeze(&ref[i], b, 32);
        CHECK(memcmp(a, b, 32) == 0, "member %d's result", i);
        batch_leave(m[i]);
    }
    batch_registry_free(r);
}

/* As many partners as the backend has lanes but one: none on a
 * single-state backend, seven on an 8-way one. */
static void test_pairing_width(const keccak_backend *be)
{
    enum { N = KECCAK_LANES_MAX + 1 };
    batch_registry *r = batch_registry_new(&plain);
    sponge sp[N];
    batch_member *m[N];
    unsigned taken = 0;

    for (int i = 0; i < N; i++) {
        sponge_init(&sp[i], be, 136, 24, DOMAIN_SHA3);
        m[i] = batch_join(r, 1, &sp[i]);
        batch_absorb(m[i], msg + i, BATCH_PENDING_MAX);
    }
    batch_absorb(m[0], msg, 10);
    for (int i = 1; i < N; i++)
        taken += batch_pending(m[i]) < BATCH_PENDING_MAX;
    CHECK(taken == be->lanes - 1, "%s: %u partners taken, %u lanes", be->name,
          taken, be->lanes);
    for (int i = 0; i < N; i++)
        batch_leave(m[i]);
    batch_registry_free(r);
}

/* Input longer than the buffer goes straight in, with the others'. */
static void test_long_update(void)
{
    const keccak_backend *be = keccak_backend_active()->lanes >= 3
                                   ? keccak_backend_active() : four_lanes();
    batch_registry *r = batch_registry_new(&plain);
    sponge sp[3], ref[3];
    batch_member *m[3];
    uint8_t a[32], b[32];

    for (int i = 0; i < 3; i++) {
        sponge_init(&sp[i], be, 136, 24, DOMAIN_SHA3);
        ref[i] = sp[i];
        m[i] = batch_join(r, 9, &sp[i]);
    }
    batch_absorb(m[1], msg, 30000);
    batch_absorb(m[2], msg + 1, 60000);
    batch_absorb(m[0], msg + 2, 100);
    batch_absorb(m[0], msg + 3, 3 * BATCH_PENDING_MAX + 5);
    sponge_absorb(&ref[1], msg, 30000);
    sponge_absorb(&ref[2], msg + 1, 60000);
    sponge_absorb(&ref[0], msg + 2, 100);
    sponge_absorb(&ref[0], msg + 3, 3 * BATCH_PENDING_MAX + 5);
    CHECK(batch_pending(m[0]) == 0, "a long update is absorbed at once");
    CHECK(batch_pending(m[1]) == 30000 % 136 &&
              batch_pending(m[2]) == 60000 - 30000 / 136 * 136,
          "with the others' blocks, as many as the shortest: %zu, %zu held",
          batch_pending(m[1]), batch_pending(m[2]));
    for (int i = 0; i < 3; i++) {
        batch_flush(m[i]);
        sponge_squeeze(&sp[i], a, 32);
        sponge_squeeze(&ref[i], b, 32);
        CHECK(memcmp(a, b, 32) == 0, "member %d's result", i);
        batch_leave(m[i]);
    }
    batch_registry_free(r);
}

/* --quick (the runs on each backend as the default): fewer programs and
 * no threads, which choose backends themselves. */
int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;

    test_skip_unless_backend_runs();
    if (!CRYPTO_set_mem_functions(test_malloc, test_realloc, test_free)) {
        fprintf(stderr, "cannot replace OpenSSL's allocator\n");
        return 2;
    }
    lib = test_libctx(0);
    msg = malloc(MSG_LEN);
    test_random(msg, MSG_LEN);
    test_pairing();
    test_pairing_width(&keccak_portable_backend);
    test_pairing_width(&keccak_serial_backends[0]);
    test_pairing_width(&keccak_portable8_backend);
    test_pairing_width(keccak_backend_active());
    test_long_update();
    test_listed();
    test_param_semantics();
    test_boundaries();
    test_kangaroo_first_chunk();
    test_mixed_groups();
    test_random_splits();
    test_mid_batch();
    test_refused_memory();
    test_programs(quick);
    if (!quick)
        test_threads();
    free(msg);
    test_libctx_free(lib);
    return test_summary("test_batch");
}
