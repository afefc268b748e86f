/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ParallelHash in parts through EVP (PARALLELHASH128-CV / -FINAL and the
 * 256 pair, include/ksumprov.h):
 *
 * - The NIST samples (tests/vectors/SP800-185, fixed output and XOF) from
 *   the CVs of every split at block boundaries, combined by the FINAL
 *   algorithm: an oracle that is not ksumprov.
 * - Message lengths 0, 1, B-1, B, B+1 and several blocks, for B = 1, 7, 8,
 *   8192 and 65536 and random ones, random block-aligned splits into
 *   ranges (each possibly several contexts of at most
 *   KSUMPROV_PART_MAX_CHUNKS blocks, fed in random update sizes, some of
 *   them copied halfway), customization strings, fixed and XOF outputs,
 *   squeezing: CVs then FINAL give the one-context ParallelHash digest.
 * - "cv-span" and "head-length" say B and 0.
 * - Refusals, each with an error queued: no message-length, an offset that
 *   is no block start or past the end, input past the end, a range ending
 *   off a block boundary, more than KSUMPROV_PART_MAX_CHUNKS blocks, a
 *   final of the wrong length; the FINAL with one CV too few or too many,
 *   or without message-length.
 *
 * Usage: test_ph_parts VECTOR_DIR [TRIALS]  (random trials, default 150)
 */
#include "testutil.h"

#define PROPS "provider=" KSUMPROV_NAME

static OSSL_LIB_CTX *lib;

typedef struct family {
    const char *whole, *cv, *final;
    size_t cv_len;
    const char *samples, *xof_samples;
} family;

static const family families[] = {
    {"PARALLELHASH128", "PARALLELHASH128-CV", "PARALLELHASH128-FINAL", 32,
     "SP800-185/ParallelHash128_samples.txt", "SP800-185/ParallelHashXOF128_samples.txt"},
    {"PARALLELHASH256", "PARALLELHASH256-CV", "PARALLELHASH256-FINAL", 64,
     "SP800-185/ParallelHash256_samples.txt", "SP800-185/ParallelHashXOF256_samples.txt"},
};

/* What one message is hashed with. */
typedef struct job {
    const family *f;
    const uint8_t *m;
    uint64_t len;
    size_t block;
    const uint8_t *c;
    size_t clen;
    size_t outlen;
    int xof;
} job;

static size_t rnd(size_t n)
{
    return n == 0 ? 0 : (size_t)(test_random_u64() % n);
}

static uint64_t blocks_of(const job *j)
{
    return j->len / j->block + (j->len % j->block != 0);
}

static int whole_digest(const job *j, uint8_t *out)
{
    size_t outlen = j->outlen, block = j->block;
    int xof = j->xof;
    OSSL_PARAM p[] = {
        OSSL_PARAM_construct_octet_string(KSUM_PARAM_CUSTOM, (void *)j->c, j->clen),
        OSSL_PARAM_construct_size_t(KSUM_PARAM_BLOCK_SIZE, &block),
        OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_XOFLEN, &outlen),
        OSSL_PARAM_construct_int(KSUM_PARAM_XOF, &xof), OSSL_PARAM_END};

    return evp_digest(lib, j->f->whole, PROPS, p, j->m, (size_t)j->len, out, outlen);
}

/* Feeds in, len bytes in random update sizes. */
static int feed(EVP_MD_CTX *ctx, const uint8_t *in, size_t len)
{
    while (len > 0) {
        size_t n = rnd(4) == 0 ? len : 1 + rnd(len);
        if (!EVP_DigestUpdate(ctx, in, n))
            return 0;
        in += n;
        len -= n;
    }
    return 1;
}

/* The CVs of M[start, end) appended to cvs at *ncv; start is a multiple of
 * B, end one or len.  Contexts of random sizes up to the limit. */
static int range_cvs(EVP_MD *md, const job *j, uint64_t start, uint64_t end,
                     uint8_t *cvs, size_t *ncv)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    uint64_t len = j->len;
    size_t block = j->block;
    int ok = ctx != NULL;

    while (ok) {
        uint64_t most = (uint64_t)KSUMPROV_PART_MAX_CHUNKS * block;
        uint64_t step = (1 + rnd(KSUMPROV_PART_MAX_CHUNKS)) * (uint64_t)block;
        uint64_t stop = end - start <= (rnd(2) ? step : most) ? end : start + step;
        uint64_t count = 0, span = 0, head = 1;
        unsigned threads = (unsigned)rnd(3);
        OSSL_PARAM p[] = {
            OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &len),
            OSSL_PARAM_construct_uint64(KSUM_PARAM_OFFSET, &start),
            OSSL_PARAM_construct_size_t(KSUM_PARAM_BLOCK_SIZE, &block),
            OSSL_PARAM_construct_uint(KSUM_PARAM_THREADS, &threads),
            OSSL_PARAM_END};
        OSSL_PARAM q[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_CV_COUNT, &count),
                          OSSL_PARAM_END};
        OSSL_PARAM shape[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_CV_SPAN, &span),
                              OSSL_PARAM_construct_uint64(KSUM_PARAM_HEAD_LENGTH, &head),
                              OSSL_PARAM_END};
        ok = EVP_DigestInit_ex2(ctx, md, p) && EVP_MD_CTX_get_params(ctx, shape) &&
             span == block && head == 0 && feed(ctx, j->m + start, (size_t)(stop - start));
        CHECK(ok, "%s range %llu..%llu of %llu, B %zu (span %llu, head %llu)", j->f->cv,
              (unsigned long long)start, (unsigned long long)stop,
              (unsigned long long)len, block, (unsigned long long)span,
              (unsigned long long)head);
        if (ok && rnd(4) == 0) {
            /* a copy gives the same CVs (the state holds them) */
            EVP_MD_CTX *copy = EVP_MD_CTX_new();
            ok = copy != NULL && EVP_MD_CTX_copy_ex(copy, ctx);
            EVP_MD_CTX_free(ctx);
            ctx = copy;
            ok = ok && ctx != NULL;
        }
        ok = ok && EVP_MD_CTX_get_params(ctx, q) &&
             count == (stop == len ? (stop + block - 1) / block : stop / block) - start / block &&
             EVP_DigestFinalXOF(ctx, cvs + *ncv * j->f->cv_len, count * j->f->cv_len);
        *ncv += count;
        start = stop;
        if (start == end)
            break;
    }
    EVP_MD_CTX_free(ctx);
    return ok;
}

static int combine(const job *j, const uint8_t *cvs, size_t ncv, uint8_t *out, int squeeze)
{
    EVP_MD *md = EVP_MD_fetch(lib, j->f->final, PROPS);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    uint64_t len = j->len;
    size_t outlen = j->outlen, block = j->block;
    int xof = j->xof;
    OSSL_PARAM p[] = {
        OSSL_PARAM_construct_octet_string(KSUM_PARAM_CUSTOM, (void *)j->c, j->clen),
        OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &len),
        OSSL_PARAM_construct_size_t(KSUM_PARAM_BLOCK_SIZE, &block),
        OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_XOFLEN, &outlen),
        OSSL_PARAM_construct_int(KSUM_PARAM_XOF, &xof), OSSL_PARAM_END};
    int ok = md != NULL && ctx != NULL && EVP_DigestInit_ex2(ctx, md, p) &&
             feed(ctx, cvs, ncv * j->f->cv_len);

    if (ok && squeeze) {
        size_t half = outlen / 2;
        OSSL_PARAM a[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_SQUEEZE, out, half),
                          OSSL_PARAM_END};
        OSSL_PARAM b[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_SQUEEZE,
                                                            out + half, outlen - half),
                          OSSL_PARAM_END};
        ok = EVP_MD_CTX_get_params(ctx, a) && EVP_MD_CTX_get_params(ctx, b);
    } else if (ok) {
        ok = EVP_DigestFinalXOF(ctx, out, outlen);
    }
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    return ok;
}

/* The digest of j through CVs of ranges cut at random block boundaries (at
 * every one when each_block), into out. */
static int in_parts(const job *j, int each_block, uint8_t *out)
{
    EVP_MD *md = EVP_MD_fetch(lib, j->f->cv, PROPS);
    uint64_t blocks = blocks_of(j);
    uint8_t *cvs = malloc((size_t)(blocks + 1) * j->f->cv_len);
    size_t ncv = 0;
    uint64_t start = 0;
    int ok = md != NULL && cvs != NULL;

    while (ok) {
        uint64_t at = start / j->block;
        uint64_t end = each_block ? (at + 1) * j->block
                                  : (at + 1 + rnd((size_t)(blocks - at))) * j->block;
        if (end > j->len || rnd(5) == 0)
            end = end > j->len ? j->len : end;
        ok = range_cvs(md, j, start, end, cvs, &ncv);
        start = end;
        if (start == j->len)
            break;
    }
    ok = ok && ncv == blocks && combine(j, cvs, ncv, out, (int)rnd(2));
    free(cvs);
    EVP_MD_free(md);
    return ok;
}

/* One trial: the parts give the one-context digest. */
static void trial(const job *j)
{
    uint8_t want[300], got[300];

    CHECK(j->outlen <= sizeof want && whole_digest(j, want) && in_parts(j, 0, got) &&
              memcmp(want, got, j->outlen) == 0,
          "%s: %llu bytes, B %zu, C %zu, out %zu, xof %d", j->f->final,
          (unsigned long long)j->len, j->block, j->clen, j->outlen, j->xof);
}

static char *unquote(const char *s)
{
    size_t n = strlen(s);
    return n >= 2 && s[0] == '"' ? strndup(s + 1, n - 2) : strdup(s);
}

/* The NIST samples, from the CVs of one-block ranges and of random splits. */
static void samples(const family *f, const char *dir, const char *file, int xof)
{
    vector_file vf;
    int count = 0;

    CHECK(vector_open(&vf, dir, file), "missing vector file %s", file);
    while (vector_next(&vf)) {
        char *s = unquote(field(&vf, "S"));
        size_t len, wl;
        uint8_t *msg = hex_decode(field(&vf, "Msg"), &len);
        uint8_t *want = hex_decode(field(&vf, "MD"), &wl);
        uint8_t got[256];
        job j = {f, msg, len, (size_t)strtoul(field(&vf, "B"), NULL, 10),
                 (const uint8_t *)s, strlen(s), wl, xof};
        for (int each = 0; each < 2; each++)
            CHECK(wl <= sizeof got && in_parts(&j, each, got) && memcmp(got, want, wl) == 0,
                  "%s sample %d (%s): got %s", file, count, each ? "each block" : "random",
                  hex_of(got, wl));
        free(s), free(msg), free(want);
        count++;
    }
    CHECK(count > 0, "%s had no vectors", file);
    vector_close(&vf);
}

/* Each of these must fail, with an error on the queue. */
#define REFUSED(cond, ...)                                                     \
    do {                                                                       \
        ERR_clear_error();                                                     \
        CHECK((cond) && ERR_peek_error() != 0, __VA_ARGS__);                   \
        ERR_clear_error();                                                     \
    } while (0)

static void refusals(const family *f)
{
    enum { B = 100 };
    static uint8_t m[3 * B + 50];
    EVP_MD *cv = EVP_MD_fetch(lib, f->cv, PROPS);
    EVP_MD *fin = EVP_MD_fetch(lib, f->final, PROPS);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    uint8_t out[4096], cvs[5 * 64] = {0};
    uint64_t len = sizeof m, off, count;
    size_t block = B;
    unsigned int n;
    OSSL_PARAM none[] = {OSSL_PARAM_END};
    OSSL_PARAM q[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_CV_COUNT, &count),
                      OSSL_PARAM_END};
    OSSL_PARAM fp[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &len),
                       OSSL_PARAM_construct_size_t(KSUM_PARAM_BLOCK_SIZE, &block),
                       OSSL_PARAM_END};
#define RANGE(o)                                                               \
    (off = (o), (OSSL_PARAM[]){                                                \
                    OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &len), \
                    OSSL_PARAM_construct_uint64(KSUM_PARAM_OFFSET, &off),      \
                    OSSL_PARAM_construct_size_t(KSUM_PARAM_BLOCK_SIZE, &block), \
                    OSSL_PARAM_END})

    CHECK(cv != NULL && fin != NULL && ctx != NULL, "%s: fetch", f->cv);
    if (cv == NULL || fin == NULL || ctx == NULL)
        goto done;
    REFUSED(EVP_DigestInit_ex2(ctx, cv, none) && !EVP_DigestUpdate(ctx, m, 10),
            "%s without message-length", f->cv);
    REFUSED(EVP_DigestInit_ex2(ctx, cv, none) && !EVP_MD_CTX_get_params(ctx, q),
            "%s cv-count without message-length", f->cv);
    REFUSED(EVP_DigestInit_ex2(ctx, cv, RANGE(50)) && !EVP_DigestUpdate(ctx, m, 10),
            "%s at an offset off a block start", f->cv);
    REFUSED(EVP_DigestInit_ex2(ctx, cv, RANGE(50)) && !EVP_MD_CTX_get_params(ctx, q),
            "%s cv-count at an offset off a block start", f->cv);
    REFUSED(EVP_DigestInit_ex2(ctx, cv, RANGE(4 * B)) && !EVP_DigestUpdate(ctx, m, 1),
            "%s at an offset past the end", f->cv);
    REFUSED(EVP_DigestInit_ex2(ctx, cv, RANGE(2 * B)) && !EVP_DigestUpdate(ctx, m, B + 51),
            "%s past the end", f->cv);
    REFUSED(EVP_DigestInit_ex2(ctx, cv, RANGE(B)) && EVP_DigestUpdate(ctx, m, 50) &&
                EVP_MD_CTX_get_params(ctx, q) && count == 0 &&
                !EVP_DigestFinalXOF(ctx, out, 0),
            "%s ending off a block boundary", f->cv);
    REFUSED(EVP_DigestInit_ex2(ctx, cv, RANGE(B)) && EVP_DigestUpdate(ctx, m, B) &&
                EVP_MD_CTX_get_params(ctx, q) && count == 1 &&
                !EVP_DigestFinalXOF(ctx, out, 2 * f->cv_len),
            "%s final of the wrong length", f->cv);
    {
        uint64_t big = (uint64_t)(KSUMPROV_PART_MAX_CHUNKS + 2) * B, zero = 0;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &big),
                          OSSL_PARAM_construct_uint64(KSUM_PARAM_OFFSET, &zero),
                          OSSL_PARAM_construct_size_t(KSUM_PARAM_BLOCK_SIZE, &block),
                          OSSL_PARAM_END};
        uint8_t *buf = calloc(1, big);
        REFUSED(buf != NULL && EVP_DigestInit_ex2(ctx, cv, p) &&
                    EVP_DigestUpdate(ctx, buf, (size_t)KSUMPROV_PART_MAX_CHUNKS * B) &&
                    !EVP_DigestUpdate(ctx, buf, 1),
                "%s over %d blocks", f->cv, KSUMPROV_PART_MAX_CHUNKS);
        free(buf);
    }
    /* The FINAL: 3 * B + 50 bytes are 4 blocks, 4 CVs. */
    REFUSED(EVP_DigestInit_ex2(ctx, fin, fp) && EVP_DigestUpdate(ctx, cvs, 3 * f->cv_len) &&
                !EVP_DigestFinal_ex(ctx, out, &n),
            "%s one CV short", f->final);
    REFUSED(EVP_DigestInit_ex2(ctx, fin, fp) && EVP_DigestUpdate(ctx, cvs, 4 * f->cv_len) &&
                !EVP_DigestUpdate(ctx, cvs, 1),
            "%s one CV too many", f->final);
    REFUSED(EVP_DigestInit_ex2(ctx, fin, none) && !EVP_DigestUpdate(ctx, cvs, 1),
            "%s without message-length", f->final);
    REFUSED(EVP_DigestInit_ex2(ctx, fin, none) && !EVP_DigestFinal_ex(ctx, out, &n),
            "%s final without message-length", f->final);
    {
        /* An empty message has no block, so no CV at all. */
        uint64_t zero = 0;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &zero),
                          OSSL_PARAM_END};
        REFUSED(EVP_DigestInit_ex2(ctx, fin, p) && !EVP_DigestUpdate(ctx, cvs, 1),
                "%s a CV of the empty message", f->final);
    }
done:
    ERR_clear_error();
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(cv);
    EVP_MD_free(fin);
}

int main(int argc, char **argv)
{
    static const size_t blocks[] = {1, 7, 8, 8192, 65536};
    const char *dir = argc > 1 ? argv[1] : "tests/vectors";
    int trials = argc > 2 ? atoi(argv[2]) : 150;
    size_t max = 4 * (size_t)65536 + 100;
    uint8_t *m = malloc(max), c[300];

    lib = test_libctx(0);
    if (m == NULL || lib == NULL)
        return 2;
    test_random(m, max);
    test_random(c, sizeof c);
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        const family *f = &families[i];
        refusals(f);
        samples(f, dir, f->samples, 0);
        samples(f, dir, f->xof_samples, 1);
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
            size_t B = blocks[b];
            uint64_t lens[] = {0, 1, B - 1, B, B + 1, 2 * B, 3 * B - 1, 3 * B + 1};
            for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++)
                for (int xof = 0; xof < 2; xof++) {
                    job j = {f, m, lens[k], B, c, k % 3 == 0 ? 0 : k * 40, 32, xof};
                    if (j.len == 0 && B == 1 && k > 0)
                        continue;
                    j.outlen = xof ? 1 + rnd(300) : (k % 2 ? 32 : 300);
                    trial(&j);
                }
        }
        /* Many blocks for small B: ranges over several contexts. */
        for (size_t B = 1; B <= 8; B += 7) {
            job j = {f, m, (uint64_t)KSUMPROV_PART_MAX_CHUNKS * B * 3 + 5, B, c, 12, 64, 0};
            trial(&j);
        }
        for (int t = 0; t < trials; t++) {
            size_t B = rnd(3) == 0 ? 1 + rnd(20) : 1 + rnd(70000);
            uint64_t len = rnd(max);
            job j = {f, m, len, B, c, rnd(3) == 0 ? 0 : rnd(sizeof c), 1 + rnd(300),
                     (int)rnd(2)};
            if (len / B > 3 * KSUMPROV_PART_MAX_CHUNKS)
                j.len = rnd(3 * KSUMPROV_PART_MAX_CHUNKS * B);
            trial(&j);
        }
    }
    free(m);
    test_libctx_free(lib);
    return test_summary("ph_parts");
}
