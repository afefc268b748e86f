/* SPDX-License-Identifier: Apache-2.0 */
/*
 * KangarooTwelve in parts through EVP (KT128-CV / KT128-FINAL and the
 * KT256 and M14 pairs, include/ksumprov.h):
 *
 * - For message lengths around every chunk boundary of S (including those
 *   where only the customization string pushes S over one), customization
 *   lengths 0..300 and 8190..8200, random chunk-aligned splits into
 *   ranges (each range possibly several contexts of at most
 *   KSUMPROV_PART_MAX_CHUNKS chunks, fed in random update sizes), the CVs
 *   combined by the FINAL algorithm give the one-context digest, for
 *   several output lengths and with squeezing; a copy of a CV context
 *   (EVP_MD_CTX_copy_ex) made halfway gives the same CVs.
 * - Refusals: no message-length, an offset that is no chunk start or past
 *   the end, input past the end, a range ending off a chunk boundary, more
 *   than KSUMPROV_PART_MAX_CHUNKS chunks, a final of the wrong length; the
 *   FINAL with one CV too few or too many, or CVs where no tree is used.
 *
 * Usage: test_parts [TRIALS]  (random trials per function, default 150)
 */
#include "testutil.h"

#define PROPS "provider=" KSUMPROV_NAME
#define CHUNK 8192

static OSSL_LIB_CTX *lib;

typedef struct family {
    const char *whole, *cv, *final;
    size_t cv_len;
} family;

static const family families[] = {
    {"KT128", "KT128-CV", "KT128-FINAL", 32},
    {"KT256", "KT256-CV", "KT256-FINAL", 64},
    {"M14", "M14-CV", "M14-FINAL", 64},
};

static size_t rnd(size_t n)
{
    return n == 0 ? 0 : (size_t)(test_random_u64() % n);
}

static int whole_digest(const family *f, const uint8_t *m, size_t len,
                        const uint8_t *c, size_t clen, uint8_t *out, size_t outlen)
{
    OSSL_PARAM p[] = {
        OSSL_PARAM_construct_octet_string(KSUM_PARAM_CUSTOM, (void *)c, clen),
        OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_XOFLEN, &outlen),
        OSSL_PARAM_END};

    return evp_digest(lib, f->whole, PROPS, p, m, len, out, outlen);
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

/* The CVs of M[start, end) into cvs (appended at *ncv); end is a multiple
 * of CHUNK or len.  Contexts of random sizes up to the limit. */
static int range_cvs(EVP_MD *md, const family *f, const uint8_t *m, uint64_t len,
                     const uint8_t *c, size_t clen, uint64_t start, uint64_t end,
                     uint8_t *cvs, size_t *ncv)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx != NULL;

    while (ok) {
        uint64_t most = (uint64_t)(KSUMPROV_PART_MAX_CHUNKS - 8) * CHUNK; /* room for C */
        uint64_t step = (1 + rnd(KSUMPROV_PART_MAX_CHUNKS - 8)) * (uint64_t)CHUNK;
        uint64_t stop = end - start <= (rnd(2) ? step : most) ? end : start + step;
        uint64_t count = 0;
        unsigned threads = (unsigned)rnd(3);
        OSSL_PARAM p[] = {
            OSSL_PARAM_construct_octet_string(KSUM_PARAM_CUSTOM, (void *)c, clen),
            OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &len),
            OSSL_PARAM_construct_uint64(KSUM_PARAM_OFFSET, &start),
            OSSL_PARAM_construct_uint(KSUM_PARAM_THREADS, &threads),
            OSSL_PARAM_END};
        OSSL_PARAM q[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_CV_COUNT, &count),
                          OSSL_PARAM_END};
        ok = EVP_DigestInit_ex2(ctx, md, p) && feed(ctx, m + start, stop - start);
        if (ok && rnd(4) == 0) {
            /* a copy gives the same CVs (the state holds them) */
            EVP_MD_CTX *copy = EVP_MD_CTX_new();
            ok = copy != NULL && EVP_MD_CTX_copy_ex(copy, ctx);
            EVP_MD_CTX_free(ctx);
            ctx = copy;
            ok = ok && ctx != NULL;
        }
        ok = ok && EVP_MD_CTX_get_params(ctx, q) &&
             EVP_DigestFinalXOF(ctx, cvs + *ncv * f->cv_len, count * f->cv_len);
        *ncv += count;
        start = stop;
        if (start == end)
            break;
    }
    EVP_MD_CTX_free(ctx);
    return ok;
}

static int combine(const family *f, const uint8_t *m, uint64_t len, const uint8_t *c,
                   size_t clen, const uint8_t *cvs, size_t ncv, uint8_t *out,
                   size_t outlen, int squeeze)
{
    EVP_MD *md = EVP_MD_fetch(lib, f->final, PROPS);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    OSSL_PARAM p[] = {
        OSSL_PARAM_construct_octet_string(KSUM_PARAM_CUSTOM, (void *)c, clen),
        OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &len),
        OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_XOFLEN, &outlen),
        OSSL_PARAM_END};
    int ok = md != NULL && ctx != NULL && EVP_DigestInit_ex2(ctx, md, p) &&
             feed(ctx, m, len < CHUNK ? len : CHUNK) &&
             feed(ctx, cvs, ncv * f->cv_len);

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

/* One trial: M of len bytes, C of clen, cut at random chunk boundaries. */
static void trial(const family *f, const uint8_t *m, uint64_t len, const uint8_t *c,
                  size_t clen)
{
    EVP_MD *md = EVP_MD_fetch(lib, f->cv, PROPS);
    uint64_t chunks = (len + clen + 9) / CHUNK + 2;
    uint8_t *cvs = malloc(chunks * f->cv_len);
    uint8_t want[200], got[200];
    size_t outlen = 1 + rnd(sizeof want), ncv = 0;
    uint64_t start = 0;
    int ok = md != NULL && cvs != NULL;

    while (ok) {
        uint64_t mchunks = (len + CHUNK - 1) / CHUNK;
        uint64_t at = start / CHUNK;
        uint64_t end = at >= mchunks ? len : (at + 1 + rnd(mchunks - at)) * CHUNK;
        if (rnd(3) == 0 || end > len)
            end = end > len ? len : end;
        ok = range_cvs(md, f, m, len, c, clen, start, end, cvs, &ncv);
        start = end;
        if (start == len)
            break;
    }
    CHECK(ok, "%s CVs of %llu bytes, C %zu", f->cv, (unsigned long long)len, clen);
    ok = ok && whole_digest(f, m, len, c, clen, want, outlen) &&
         combine(f, m, len, c, clen, cvs, ncv, got, outlen, (int)rnd(2));
    CHECK(ok && memcmp(want, got, outlen) == 0, "%s: %llu bytes, C %zu, out %zu",
          f->final, (unsigned long long)len, clen, outlen);
    free(cvs);
    EVP_MD_free(md);
}

/* Each of these must fail. */
static void refusals(const family *f)
{
    static uint8_t m[3 * CHUNK + 100];
    EVP_MD *cv = EVP_MD_fetch(lib, f->cv, PROPS);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    uint8_t out[4096];
    uint64_t len = sizeof m, off, count;
    OSSL_PARAM none[] = {OSSL_PARAM_END};
    OSSL_PARAM q[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_CV_COUNT, &count),
                      OSSL_PARAM_END};
#define RANGE(o)                                                               \
    (off = (o), (OSSL_PARAM[]){                                                \
                    OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &len), \
                    OSSL_PARAM_construct_uint64(KSUM_PARAM_OFFSET, &off),      \
                    OSSL_PARAM_END})

    CHECK(EVP_DigestInit_ex2(ctx, cv, none) && !EVP_DigestUpdate(ctx, m, 10),
          "%s without message-length", f->cv);
    /* Asking for the count of no part is refused, and the settings can
     * still be made (a helper review: it answered 0 and fixed them). */
    CHECK(EVP_DigestInit_ex2(ctx, cv, none) && !EVP_MD_CTX_get_params(ctx, q) &&
              ERR_peek_error() != 0 && EVP_MD_CTX_set_params(ctx, RANGE(CHUNK)) &&
              EVP_DigestUpdate(ctx, m, CHUNK) && EVP_MD_CTX_get_params(ctx, q) &&
              count == 1,
          "%s cv-count without message-length", f->cv);
    ERR_clear_error();
    CHECK(EVP_DigestInit_ex2(ctx, cv, RANGE(100)) && !EVP_MD_CTX_get_params(ctx, q) &&
              ERR_peek_error() != 0,
          "%s cv-count at an offset off a chunk start", f->cv);
    ERR_clear_error();
    {
        char text[2];
        OSSL_PARAM t[] = {OSSL_PARAM_construct_utf8_string(KSUM_PARAM_CV_COUNT, text,
                                                           sizeof text),
                          OSSL_PARAM_END};
        CHECK(EVP_DigestInit_ex2(ctx, cv, RANGE(0)) && !EVP_MD_CTX_get_params(ctx, t) &&
                  EVP_MD_CTX_set_params(ctx, RANGE(CHUNK)),
              "%s cv-count into a string failed but fixed the settings", f->cv);
        ERR_clear_error();
    }
    CHECK(EVP_DigestInit_ex2(ctx, cv, RANGE(100)) && !EVP_DigestUpdate(ctx, m, 10),
          "%s at an offset off a chunk start", f->cv);
    CHECK(EVP_DigestInit_ex2(ctx, cv, RANGE(4 * CHUNK)) &&
              !EVP_DigestUpdate(ctx, m, 10),
          "%s at an offset past the end", f->cv);
    CHECK(EVP_DigestInit_ex2(ctx, cv, RANGE(2 * CHUNK)) &&
              !EVP_DigestUpdate(ctx, m, CHUNK + 101),
          "%s past the end", f->cv);
    CHECK(EVP_DigestInit_ex2(ctx, cv, RANGE(CHUNK)) && EVP_DigestUpdate(ctx, m, 100) &&
              EVP_MD_CTX_get_params(ctx, q) && count == 0 &&
              !EVP_DigestFinalXOF(ctx, out, 0),
          "%s ending off a chunk boundary", f->cv);
    CHECK(EVP_DigestInit_ex2(ctx, cv, RANGE(CHUNK)) && EVP_DigestUpdate(ctx, m, CHUNK) &&
              EVP_MD_CTX_get_params(ctx, q) && count == 1 &&
              !EVP_DigestFinalXOF(ctx, out, 2 * f->cv_len),
          "%s final of the wrong length", f->cv);
    {
        /* Squeezed, a part gives its CVs and not a byte more. */
        size_t outlen = f->cv_len;
        OSSL_PARAM x[] = {OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_XOFLEN, &outlen),
                          OSSL_PARAM_END};
        OSSL_PARAM all[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_SQUEEZE, out,
                                                              f->cv_len),
                            OSSL_PARAM_END};
        OSSL_PARAM more[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_SQUEEZE, out, 1),
                             OSSL_PARAM_END};
        CHECK(EVP_DigestInit_ex2(ctx, cv, RANGE(CHUNK)) && EVP_DigestUpdate(ctx, m, CHUNK) &&
                  EVP_MD_CTX_set_params(ctx, x) && EVP_MD_CTX_get_params(ctx, all) &&
                  !EVP_MD_CTX_get_params(ctx, more),
              "%s squeezed past its CVs", f->cv);
        ERR_clear_error();
    }
    {
        uint64_t big = (uint64_t)(KSUMPROV_PART_MAX_CHUNKS + 2) * CHUNK, zero = 0;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &big),
                          OSSL_PARAM_construct_uint64(KSUM_PARAM_OFFSET, &zero),
                          OSSL_PARAM_END};
        uint8_t *buf = calloc(1, big);
        CHECK(buf != NULL && EVP_DigestInit_ex2(ctx, cv, p) &&
                  !EVP_DigestUpdate(ctx, buf, big),
              "%s over %d chunks", f->cv, KSUMPROV_PART_MAX_CHUNKS);
        free(buf);
    }
    {
        /* The FINAL: the tree of 3 * CHUNK + 100 bytes has 3 CVs. */
        EVP_MD *fin = EVP_MD_fetch(lib, f->final, PROPS);
        uint8_t cvs[4 * 64] = {0};
        uint64_t small = 100;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &len),
                          OSSL_PARAM_END};
        OSSL_PARAM s[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &small),
                          OSSL_PARAM_END};
        unsigned int n;
        CHECK(EVP_DigestInit_ex2(ctx, fin, p) && EVP_DigestUpdate(ctx, m, CHUNK) &&
                  EVP_DigestUpdate(ctx, cvs, 2 * f->cv_len) &&
                  !EVP_DigestFinal_ex(ctx, out, &n),
              "%s one CV short", f->final);
        CHECK(EVP_DigestInit_ex2(ctx, fin, p) && EVP_DigestUpdate(ctx, m, CHUNK) &&
                  !EVP_DigestUpdate(ctx, cvs, 4 * f->cv_len),
              "%s one CV too many", f->final);
        CHECK(EVP_DigestInit_ex2(ctx, fin, s) && EVP_DigestUpdate(ctx, m, 100) &&
                  !EVP_DigestUpdate(ctx, cvs, 1),
              "%s CVs where no tree is used", f->final);
        CHECK(EVP_DigestInit_ex2(ctx, fin, none) && !EVP_DigestUpdate(ctx, m, 1),
              "%s without message-length", f->final);
        EVP_MD_free(fin);
    }
    ERR_clear_error();
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(cv);
}

int main(int argc, char **argv)
{
    int trials = argc > 1 ? atoi(argv[1]) : 150;
    size_t max = 3 * (size_t)KSUMPROV_PART_MAX_CHUNKS * CHUNK;
    uint8_t *m = malloc(max), c[9000];

    lib = test_libctx(0);
    if (m == NULL || lib == NULL)
        return 2;
    test_random(m, max);
    test_random(c, sizeof c);
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        const family *f = &families[i];
        refusals(f);
        /* Around each boundary, where only C crosses it. */
        for (size_t clen = 0; clen < 12; clen += 3)
            for (uint64_t len = 0; len < 4 * CHUNK + 20; len += (len % CHUNK < 20 || len % CHUNK > CHUNK - 20) ? 1 : 997)
                trial(f, m, len, c, clen);
        for (size_t clen = 8185; clen < 8200; clen++)
            trial(f, m, rnd(3) == 0 ? 0 : rnd(2 * CHUNK), c, clen);
        for (int t = 0; t < trials; t++) {
            uint64_t len = rnd(4) == 0 ? rnd(max) : rnd(8) * CHUNK + rnd(64) - 32;
            if (len > max)
                len = rnd(CHUNK);
            trial(f, m, len, c, rnd(3) == 0 ? 0 : rnd(300));
        }
    }
    free(m);
    test_libctx_free(lib);
    return test_summary("parts");
}
